//! Bad input to the `contact` program: a clear error naming the field or
//! the argument, a non-zero exit status, and no file written, not even in
//! part.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn contact(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_contact"))
        .args(args)
        .output()
        .expect("the contact program runs")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("contact-bad-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn scene() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenes/ball_bounce.json")
        .to_string_lossy()
        .into_owned()
}

/// Runs `args`, expects exit status `code` and `needle` on stderr, and
/// that `dir` stays empty.
fn refused(args: &[&str], code: i32, needle: &str, dir: &Path) {
    let output = contact(args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(code), "{args:?}: {stderr}");
    assert!(
        stderr.contains(needle),
        "{args:?}: `{needle}` not in\n{stderr}"
    );
    let left: Vec<_> = std::fs::read_dir(dir).unwrap().collect();
    assert!(left.is_empty(), "{args:?} left {left:?}");
}

#[test]
fn bad_arguments_are_named_and_write_nothing() {
    let dir = scratch("arguments");
    let out = dir.join("t.json");
    let out = out.to_str().unwrap();
    let scene = scene();
    refused(&["run"], 2, "SCENE.json", &dir);
    refused(
        &["run", &scene, "--steps", "0", "--out", out],
        2,
        "--steps",
        &dir,
    );
    refused(
        &["run", &scene, "--steps", "x", "--out", out],
        2,
        "--steps",
        &dir,
    );
    refused(
        &["run", &scene, "--duration", "-1", "--out", out],
        2,
        "--duration",
        &dir,
    );
    refused(
        &["run", &scene, "--duration", "NaN", "--out", out],
        2,
        "--duration",
        &dir,
    );
    refused(
        &["run", &scene, "--duration", "1", "--steps", "2"],
        2,
        "--steps",
        &dir,
    );
    refused(
        &["run", &scene, "--every", "0", "--out", out],
        2,
        "--every",
        &dir,
    );
    let txt = dir.join("t.txt");
    refused(
        &["run", &scene, "--out", txt.to_str().unwrap()],
        2,
        "--out",
        &dir,
    );
    let missing = dir.join("no/such/folder/t.json");
    refused(
        &["run", &scene, "--out", missing.to_str().unwrap()],
        2,
        "--out",
        &dir,
    );
    refused(&["run", &scene, "--bogus"], 2, "--bogus", &dir);
    refused(&["solve-lcp", "nothing.json"], 2, "nothing.json", &dir);
    refused(
        &["solve-lcp", "x.json", "--method", "newton"],
        2,
        "--method",
        &dir,
    );
    refused(&["walk"], 2, "walk", &dir);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_scene_files_are_named_by_field_and_write_nothing() {
    let dir = scratch("scenes");
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let trajectory = out.join("t.csv");
    let trajectory = trajectory.to_str().unwrap();
    let good = std::fs::read_to_string(scene()).unwrap();
    for (edit, needle) in [
        (
            ("\"radius\": 0.1", "\"radius\": -0.1"),
            "bodies[1].shape.sphere.radius: must be > 0",
        ),
        (
            ("\"restitution\": 0.8", "\"restitution\": 1.5"),
            "bodies[1].restitution: must be in [0, 1]",
        ),
        (
            ("\"h\": 0.0005", "\"h\": \"small\""),
            "stepper.fixed.h: invalid type",
        ),
        (
            ("\"version\": 1", "\"version\": 7"),
            "version: version 7 is newer",
        ),
        (
            ("\"mass\": 0.5,", "\"mass\": 0.5, \"colour\": 3,"),
            "bodies[1].colour: unknown field `colour`",
        ),
        (
            ("\"body\": \"ball\"", "\"body\": \"bal\""),
            "expect[0].observable.final_position.body: no body is named `bal`",
        ),
        (("{", "["), "not valid JSON at line"),
    ] {
        let text = good.replacen(edit.0, edit.1, 1);
        assert_ne!(text, good, "{edit:?} changed nothing");
        let file = dir.join("scene.json");
        std::fs::write(&file, text).unwrap();
        refused(
            &["run", file.to_str().unwrap(), "--out", trajectory],
            2,
            needle,
            &out,
        );
    }
    refused(
        &["run", "no-such-scene.json"],
        2,
        "cannot read no-such-scene.json",
        &out,
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
