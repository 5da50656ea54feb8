//! The layering check: each crate of the stack may depend (for build or
//! normal use; dev-dependencies are free) only on crates above it, and
//! `contact-lcp` on none of ours, so it can be used alone. Read from
//! `cargo metadata`, so it sees exactly what cargo builds.

use std::process::{Command, ExitCode};

use serde_json::Value;

/// The stack, top first.
const LAYERS: [&str; 6] = [
    "contact-math",
    "contact-lcp",
    "contact-geometry",
    "contact-dynamics",
    "contact-sim",
    "contact-cli",
];

/// Runs the check; prints every violation.
pub fn run() -> ExitCode {
    let output = match Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .output()
    {
        Ok(output) if output.status.success() => output,
        Ok(output) => {
            eprintln!(
                "check-layers: cargo metadata failed: {}",
                String::from_utf8_lossy(&output.stderr)
            );
            return ExitCode::FAILURE;
        }
        Err(error) => {
            eprintln!("check-layers: cannot run cargo: {error}");
            return ExitCode::FAILURE;
        }
    };
    let metadata: Value = match serde_json::from_slice(&output.stdout) {
        Ok(value) => value,
        Err(error) => {
            eprintln!("check-layers: cargo metadata is not JSON: {error}");
            return ExitCode::FAILURE;
        }
    };
    let violations = violations(&metadata);
    for violation in &violations {
        println!("check-layers: {violation}");
    }
    if violations.is_empty() {
        println!("check-layers: layering holds");
        ExitCode::SUCCESS
    } else {
        println!("check-layers: {} violation(s)", violations.len());
        ExitCode::FAILURE
    }
}

/// Every broken rule in a `cargo metadata` document.
fn violations(metadata: &Value) -> Vec<String> {
    let mut found = Vec::new();
    let packages = metadata["packages"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    for layer in LAYERS {
        if !packages.iter().any(|p| p["name"] == layer) {
            found.push(format!("{layer} is missing from the workspace"));
        }
    }
    for package in packages {
        let Some(name) = package["name"].as_str() else {
            continue;
        };
        let Some(rank) = LAYERS.iter().position(|&l| l == name) else {
            continue;
        };
        let dependencies = package["dependencies"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default();
        for dependency in dependencies {
            if dependency["kind"] == "dev" {
                continue;
            }
            let Some(dep) = dependency["name"].as_str() else {
                continue;
            };
            let Some(dep_rank) = LAYERS.iter().position(|&l| l == dep) else {
                continue;
            };
            if name == "contact-lcp" {
                found.push(format!("contact-lcp must stand alone but depends on {dep}"));
            } else if dep_rank >= rank {
                found.push(format!("{name} depends on {dep}, which is not above it"));
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metadata(edges: &[(&str, &str, &str)]) -> Value {
        let packages: Vec<Value> = LAYERS
            .iter()
            .map(|&name| {
                let deps: Vec<Value> = edges
                    .iter()
                    .filter(|(from, _, _)| *from == name)
                    .map(|(_, to, kind)| {
                        serde_json::json!({"name": to, "kind": if kind.is_empty() { Value::Null } else { (*kind).into() }})
                    })
                    .collect();
                serde_json::json!({"name": name, "dependencies": deps})
            })
            .collect();
        serde_json::json!({ "packages": packages })
    }

    #[test]
    fn downward_dependencies_pass() {
        let ok = metadata(&[
            ("contact-geometry", "contact-math", ""),
            ("contact-dynamics", "contact-lcp", ""),
            ("contact-sim", "contact-dynamics", ""),
            ("contact-math", "contact-sim", "dev"),
        ]);
        assert!(violations(&ok).is_empty(), "{:?}", violations(&ok));
    }

    #[test]
    fn upward_and_lcp_dependencies_fail() {
        let bad = metadata(&[
            ("contact-math", "contact-geometry", ""),
            ("contact-lcp", "contact-math", ""),
            ("contact-dynamics", "contact-sim", "build"),
        ]);
        let found = violations(&bad);
        assert_eq!(found.len(), 3, "{found:?}");
        assert!(
            found
                .iter()
                .any(|v| v.contains("contact-lcp must stand alone"))
        );
    }
}
