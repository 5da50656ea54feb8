//! `contact view` and `contact plot` as a user runs them: a recorded run
//! turned into a page and plots, and every kind of bad input refused with
//! exit status 2, a message naming what and where, and no file written.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A small scene: a box dropped on the ground, recorded with contacts.
const SCENE: &str = r#"{
  "version": 1,
  "name": "drop",
  "gravity": [0.0, 0.0, -9.81],
  "bodies": [
    { "name": "ground", "fixed": true, "shape": { "half_space": { "normal": [0.0, 0.0, 1.0] } } },
    { "name": "box", "shape": { "box": { "half_extents": [0.5, 0.5, 0.5] } }, "mass": 1.0, "position": [0.0, 0.0, 0.6] }
  ],
  "stepper": { "fixed": { "h": 0.01 } },
  "run": { "steps": 30 }
}"#;

/// A fresh, empty folder for one test.
fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("contact-view-plot-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn contact(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_contact"))
        .args(args)
        .output()
        .unwrap()
}

fn text(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// The files in `dir`, sorted.
fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Runs the scene into `dir/drop.json`.
fn recorded(dir: &Path) -> PathBuf {
    let scene = dir.join("drop.scene.json");
    std::fs::write(&scene, SCENE).unwrap();
    let trajectory = dir.join("drop.json");
    let run = contact(&["run", text(&scene), "--out", text(&trajectory)]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    trajectory
}

/// Asserts exit status 2, a message holding each of `words`, and that
/// `dir` holds only `before`.
fn refused(output: &Output, words: &[&str], dir: &Path, before: &[String]) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    for word in words {
        assert!(stderr.contains(word), "`{word}` not in: {stderr}");
    }
    assert!(
        stderr.matches(" column ").count() <= 1,
        "position repeated: {stderr}"
    );
    assert_eq!(files(dir), before, "a file was written or left: {stderr}");
}

#[test]
fn a_run_becomes_a_page_and_plots() {
    let dir = folder("good");
    let trajectory = recorded(&dir);
    let view = contact(&["view", text(&trajectory)]);
    assert!(
        view.status.success(),
        "{}",
        String::from_utf8_lossy(&view.stderr)
    );
    let html = std::fs::read_to_string(dir.join("drop.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && html.contains("\"scene\":\"drop\""));
    let plot = contact(&["plot", text(&trajectory), "--format", "both"]);
    assert!(
        plot.status.success(),
        "{}",
        String::from_utf8_lossy(&plot.stderr)
    );
    for name in ["drop.plots.png", "drop.plots.svg"] {
        let size = std::fs::metadata(dir.join(name)).unwrap().len();
        assert!(size > 10_000, "{name}: {size} bytes");
    }
    assert_eq!(
        files(&dir),
        [
            "drop.html",
            "drop.json",
            "drop.plots.png",
            "drop.plots.svg",
            "drop.scene.json"
        ]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_arguments_are_refused_and_write_nothing() {
    let dir = folder("arguments");
    let trajectory = recorded(&dir);
    let before = files(&dir);
    let t = text(&trajectory);
    let missing_dir = dir.join("no/such/folder");
    let out_missing = missing_dir.join("v.html");
    let absent = dir.join("absent.json");
    let csv = dir.join("drop.csv");
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        (vec!["view"], vec!["TRAJ.json"]),
        (vec!["view", t, "--out", "page.txt"], vec!["--out", ".html"]),
        (
            vec!["view", t, "--out", text(&out_missing)],
            vec!["--out", "no/such/folder"],
        ),
        (vec!["view", t, "--frames", "3"], vec!["--frames"]),
        (
            vec!["view", text(&absent)],
            vec!["absent.json", "No such file"],
        ),
        (vec!["plot", t, "--format", "gif"], vec!["--format", "gif"]),
        (
            vec!["plot", t, "--out-dir", text(&missing_dir)],
            vec!["--out-dir", "not an existing folder"],
        ),
        (vec!["plot", text(&absent)], vec!["absent.json"]),
        (vec!["plot", text(&csv)], vec!["drop.csv", "CSV"]),
    ];
    for (args, words) in cases {
        let mut full = args.clone();
        if args[0] == "plot" && !args.contains(&"--out-dir") {
            full.extend(["--out-dir", text(&dir)]);
        }
        refused(&contact(&full), &words, &dir, &before);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn malformed_trajectories_are_refused_where_they_break() {
    let dir = folder("malformed");
    let good = std::fs::read_to_string(recorded(&dir)).unwrap();
    std::fs::remove_file(dir.join("drop.json")).unwrap();
    let mut value: serde_json::Value = serde_json::from_str(&good).unwrap();
    value["frames"][2]["poses"][1][0] = "left".into();
    let wrong_type = value.to_string();
    let mut value: serde_json::Value = serde_json::from_str(&good).unwrap();
    value["frames"][3]["poses"].as_array_mut().unwrap().pop();
    let short = value.to_string();
    // Cut after a comma, so the file ends where a value should start (a
    // cut inside a number would be an invalid number, not an early end).
    let half = good[..good.len() / 2].rfind(',').unwrap() + 1;
    let cases: Vec<(&str, String, Vec<&str>)> = vec![
        (
            "truncated.json",
            good[..half].to_string(),
            vec!["truncated.json", "line", "column", "EOF"],
        ),
        (
            "empty.json",
            String::new(),
            vec!["empty.json", "line 1 column 0"],
        ),
        (
            "scene.json",
            SCENE.to_string(),
            vec!["scene.json", "format", "not a trajectory"],
        ),
        (
            "type.json",
            wrong_type,
            vec!["type.json", "frames[2].poses[1][0]", "invalid type"],
        ),
        (
            "short.json",
            short,
            vec!["short.json", "frames[3].poses", "1 poses for 2 bodies"],
        ),
    ];
    for (name, content, words) in cases {
        let path = dir.join(name);
        std::fs::write(&path, content).unwrap();
        let before = files(&dir);
        refused(&contact(&["view", text(&path)]), &words, &dir, &before);
        refused(&contact(&["plot", text(&path)]), &words, &dir, &before);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
