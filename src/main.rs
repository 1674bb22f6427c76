//! The `fabcheck` binary: everything is in the library, so it stays testable without a process.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    fabcheck::cli::main()
}
