//! The published JSON Schema of scene files is the one the types generate.
//! To refresh it after changing a scene file type:
//! `UPDATE_SCENE_SCHEMA=1 cargo test -p contact-sim --all-features --test scene_schema`.
#![cfg(feature = "serde")]

use std::path::PathBuf;

fn committed_schema() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/scene.schema.json")
}

#[test]
fn the_committed_schema_is_the_generated_one() {
    let generated = contact_sim::scene_file::json_schema();
    let path = committed_schema();
    if std::env::var_os("UPDATE_SCENE_SCHEMA").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "docs/scene.schema.json differs from the schema the types generate: run \
         `UPDATE_SCENE_SCHEMA=1 cargo test -p contact-sim --all-features --test scene_schema` \
         and commit the file"
    );
}

#[test]
fn the_schema_names_every_stepper_and_shape() {
    let schema: serde_json::Value =
        serde_json::from_str(&contact_sim::scene_file::json_schema()).unwrap();
    let text = schema.to_string();
    for name in [
        "fixed",
        "conservative_advancement",
        "event_driven",
        "dormand_prince",
        "box",
        "sphere",
        "convex_hull",
        "half_space",
        "hinge",
        "prismatic",
        "spring",
        "point_force",
    ] {
        assert!(text.contains(&format!("\"{name}\"")), "{name} missing");
    }
}
