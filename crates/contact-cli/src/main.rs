//! The `contact` program (see the `contact_cli` library for its commands).

fn main() -> std::process::ExitCode {
    contact_cli::main_with(std::env::args_os())
}
