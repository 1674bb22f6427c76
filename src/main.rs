//! The `fabcheck` binary: everything is in the library, so it stays testable without a process.
fn main() -> std::process::ExitCode {
    fabcheck::cli::main()
}
