//! The gallery (`scenes/`): every scene runs with the `contact` program,
//! states what it expects and gets a verdict; a falsified expectation
//! fails the verdict and the exit status.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn contact(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_contact"))
        .args(args)
        .output()
        .expect("the contact program runs")
}

fn text(output: &Output) -> String {
    format!(
        "status {:?}\n--- stdout\n{}--- stderr\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// A fresh scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("contact-gallery-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The scenes the issue names, by file.
const GALLERY: [&str; 14] = [
    "ball_bounce",
    "ball_bounce_event_driven",
    "box_heap",
    "box_push",
    "box_stack",
    "cline_chain",
    "drumwright_chain",
    "drumwright_die",
    "four_bar_linkage",
    "hinged_pendulum",
    "newtons_cradle",
    "painleve_rod",
    "planar_blocks",
    "wall_pyramid",
];

#[test]
fn every_gallery_scene_runs_and_gets_a_verdict() {
    let mut found: Vec<String> = std::fs::read_dir(repository().join("scenes"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|name| name.strip_suffix(".json").map(str::to_string))
        .collect();
    found.sort();
    assert_eq!(
        found, GALLERY,
        "scenes/ holds other scenes than the gallery lists"
    );
    let dir = scratch("all");
    for name in GALLERY {
        let scene = repository().join(format!("scenes/{name}.json"));
        let file: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&scene).unwrap()).unwrap();
        let expectations = file["expect"].as_array().map_or(0, Vec::len);
        assert!(expectations > 0, "{name} states no expectation");
        assert!(file["description"].is_string(), "{name} has no description");
        assert!(
            file["run"]["duration"].is_number() || file["run"]["steps"].is_number(),
            "{name} states no run length"
        );
        // A few steps: the full runs take seconds each in a release build.
        let out = dir.join(format!("{name}.json"));
        let output = contact(&[
            "run",
            scene.to_str().unwrap(),
            "--steps",
            "3",
            "--out",
            out.to_str().unwrap(),
        ]);
        let report = text(&output);
        let code = output.status.code();
        assert!(code == Some(0) || code == Some(1), "{name}: {report}");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(stdout.contains("ran 3 steps"), "{name}: {report}");
        assert!(
            stdout.contains(&format!("of {expectations} expectations hold")),
            "{name}: {report}"
        );
        // The exit status is the verdict's.
        assert_eq!(
            code == Some(0),
            stdout.contains("verdict: PASS"),
            "{name}: {report}"
        );
        let trajectory: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        assert_eq!(
            trajectory["frames"].as_array().map(Vec::len),
            Some(4),
            "{name}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_falsified_expectation_fails_the_verdict() {
    let scene = repository().join("scenes/ball_bounce.json");
    let text_of_scene = std::fs::read_to_string(&scene).unwrap();
    // As stated, the whole run passes.
    let output = contact(&["run", scene.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    assert!(stdout.contains("verdict: PASS (3 of 3"), "{stdout}");
    // The apex moved from 0.74 m to 0.9 m: that expectation fails.
    assert!(text_of_scene.contains("\"value\": 0.74,"));
    let dir = scratch("falsified");
    let falsified = dir.join("ball_bounce.json");
    std::fs::write(
        &falsified,
        text_of_scene.replace("\"value\": 0.74,", "\"value\": 0.9,"),
    )
    .unwrap();
    let output = contact(&["run", falsified.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert!(stdout.contains("verdict: FAIL (2 of 3"), "{stdout}");
    assert!(
        stdout.contains("FAIL  final_position(ball, z) = 0.74"),
        "{stdout}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The event-driven ball's whole run (81 frames, fast) passes; its apex
/// moved by 1e-4 m, far beyond the stated 1e-8, fails.
#[test]
fn the_event_driven_ball_meets_its_apex() {
    let scene = repository().join("scenes/ball_bounce_event_driven.json");
    let output = contact(&["run", scene.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    assert!(stdout.contains("verdict: PASS (4 of 4"), "{stdout}");
    let text_of_scene = std::fs::read_to_string(&scene).unwrap();
    assert!(text_of_scene.contains("\"value\": 0.225568,"));
    let dir = scratch("event-driven");
    let falsified = dir.join("ball_bounce_event_driven.json");
    std::fs::write(
        &falsified,
        text_of_scene.replace("\"value\": 0.225568,", "\"value\": 0.225668,"),
    )
    .unwrap();
    let output = contact(&["run", falsified.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert!(stdout.contains("verdict: FAIL (3 of 4"), "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Run whole, or run half, saved with `--save-state` and the rest run from
/// the file: the same last frame, whichever the stepper (fixed, conservative
/// advancement, event-driven).
#[test]
fn a_saved_state_continues_the_run_bit_for_bit() {
    let dir = scratch("state");
    // A box sliding and spinning on the ground: the event-driven stepper's
    // memory (next step, sliding contacts, forces' reference) is in use.
    let slider = dir.join("slider.json");
    std::fs::write(
        &slider,
        serde_json::json!({
            "version": 1,
            "bodies": [
                { "fixed": true, "friction": 0.3,
                  "shape": { "half_space": { "normal": [0, 0, 1] } } },
                { "shape": { "box": { "half_extents": [0.3, 0.2, 0.1] } }, "mass": 2.0,
                  "position": [0, 0, 0.1], "linear_velocity": [2, 0.5, 0],
                  "angular_velocity": [0, 0, 3], "friction": 0.3 }
            ],
            "stepper": { "event_driven": { "frame": 0.0123, "tolerance": 1e-12 } }
        })
        .to_string(),
    )
    .unwrap();
    let gallery = |name: &str| repository().join(format!("scenes/{name}.json"));
    for (name, scene, half) in [
        ("box_push", gallery("box_push"), "300"),
        ("drumwright_die", gallery("drumwright_die"), "150"),
        (
            "ball_bounce_event_driven",
            gallery("ball_bounce_event_driven"),
            "40",
        ),
        ("slider", slider, "10"),
    ] {
        let scene = scene.to_str().unwrap();
        let whole_steps = (2 * half.parse::<u32>().unwrap()).to_string();
        let path = |file: &str| {
            dir.join(format!("{name}-{file}"))
                .to_string_lossy()
                .into_owned()
        };
        let (state, whole, second) = (path("state.json"), path("whole.json"), path("second.json"));
        for args in [
            vec!["run", scene, "--steps", &whole_steps, "--out", &whole],
            vec!["run", scene, "--steps", half, "--save-state", &state],
            vec!["run", &state, "--steps", half, "--out", &second],
        ] {
            let output = contact(&args);
            assert!(
                output.status.code().is_some_and(|c| c <= 1),
                "{name}: {}",
                text(&output)
            );
        }
        let last = |file: &str| {
            let trajectory: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
            trajectory["frames"]
                .as_array()
                .unwrap()
                .last()
                .unwrap()
                .clone()
        };
        let (whole, second) = (last(&whole), last(&second));
        assert_eq!(whole["time"], second["time"], "{name}");
        assert_eq!(whole["poses"], second["poses"], "{name}");
        assert_eq!(whole["contacts"], second["contacts"], "{name}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
