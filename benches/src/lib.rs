//! Scenario benchmarks of the contact workspace; the benches live in
//! `benches/benches/` and run with `cargo bench -p contact-benches`.
