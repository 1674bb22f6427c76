//! The command line: argument parsing (app.rs) and one file per subcommand.

mod app;
mod audit;
mod baseline;
mod bench;
mod bench_judge;
mod conclude;
#[cfg(feature = "lab")]
mod demo;
mod diff;
mod drain;
mod duration;
mod flows;
mod inventory;
#[cfg(feature = "lab")]
mod lab;
mod lock;
mod parse;
mod policy;
mod run_playbook;
pub mod stdout;
mod targets;
mod unwritten;

use app::{Cli, Command};
use clap::Parser;
use fabcheck_model::exit_codes;
use std::process::ExitCode;

/// Runs fabcheck with the process arguments; maps the outcome to the exit code (design.md):
/// 0 clean, 1 findings at or above `--fail-on`, 2 the run could not be done.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => return fail(anyhow::anyhow!("cannot start the async runtime: {e}")),
    };
    let outcome = runtime.block_on(async {
        match cli.command {
            Command::Audit(args) => audit::run(args).await,
            Command::Parse(args) => parse::run(args),
            #[cfg(feature = "lab")]
            Command::Lab(args) => lab::run(args).await,
            #[cfg(feature = "lab")]
            Command::Demo(args) => demo::run(args).await,
            Command::Bench(app::BenchCommand::Nccl(args)) => bench::run(*args).await,
            Command::Bench(app::BenchCommand::Judge(args)) => bench_judge::run(*args).await,
            Command::Baseline(command) => baseline::run(command),
            Command::Run(args) => run_playbook::run(args).await,
            Command::Flows(args) => flows::run(args),
            Command::Inventory(args) => inventory::run(&args),
            Command::Diff(args) => diff::run(&args),
            Command::Policy(command) => policy::run(command).await,
        }
    });
    // Lab servers and lingering connections must not keep the process alive.
    runtime.shutdown_background();
    match outcome {
        Ok(code) => ExitCode::from(code as u8),
        Err(e) => fail(e),
    }
}

fn fail(e: anyhow::Error) -> ExitCode {
    eprintln!("fabcheck: {e:#}");
    ExitCode::from(exit_codes::RUN_ERROR as u8)
}
