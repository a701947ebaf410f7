//! The `eraflow` command line: parses arguments into the top layer of a job (flags over `--set` over a
//! pipeline file over `configs/default.toml`) and dispatches to one function per command ([`cli::commands`]),
//! which calls the library once ([`eraflow::pipeline`]) and renders its typed report. Errors are rendered once,
//! here.
//!
//! The Python package compiles this file into its native module too (`python/src/lib.rs`), so `pip install
//! ./python` gives an `eraflow` command running this very [`run`].

#[macro_use] // `note!`, by name, wherever this file is compiled (the Python module too)
mod cli;

use clap::Parser;
use cli::args::{Cli, Command, PruneCommand};
use cli::commands;
use cli::flags::Flags;
use cli::output::Output;
use eraflow::error::ExitStatus;
use eraflow::pipeline::JobError;
use std::ffi::OsString;
use std::process::ExitCode;

#[allow(dead_code)] // unused where the Python package compiles this file, which calls `run`
fn main() -> ExitCode {
    // Before any thread starts: the allocator's parameters are process-wide (not where Python hosts `run`).
    eraflow::util::memory::tune_allocator();
    ExitCode::from(run(std::env::args_os()))
}

/// The command line over `args` (the program name first): parses, runs one command, prints its report, and
/// returns the exit code (0 ok, 1 data errors, 2 usage or I/O, 128 + a signal).
pub fn run(args: impl IntoIterator<Item = impl Into<OsString> + Clone>) -> u8 {
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            let status = if e.use_stderr() {
                ExitStatus::Usage
            } else {
                ExitStatus::Ok
            };
            return status.code();
        }
    };
    cli::output::init_logs(cli.quiet, cli.log_format);
    // SIGTERM / SIGINT stop a run or an export between files (util::interrupt).
    if matches!(cli.command, Command::Run(_) | Command::Export(_)) {
        if let Err(e) = eraflow::util::interrupt::install() {
            eprintln!("warning: signal handlers: {e}");
        }
    }
    let mut out = Output::stdout();
    let status = match command(cli, &mut out) {
        Ok(status) => status,
        Err(e) => {
            note!("error: {}", eraflow::error::render(&e));
            e.exit_status()
        }
    };
    // A reader that closed the pipe early ends nothing: the status stays the one the work earned (see
    // cli::output). Any other failure to write stdout is an I/O error.
    let status = match out.finish() {
        Ok(()) => status,
        Err(e) => {
            note!("error: {}", eraflow::error::render(&e));
            status.max(ExitStatus::Usage)
        }
    };
    status.code()
}

/// Dispatches a parsed command line to its command, which runs it and prints its report to `stdout`.
fn command(cli: Cli, stdout: &mut Output) -> Result<ExitStatus, JobError> {
    let threads = cli.threads;
    let mut f = Flags::default();
    f.str("signer_backend", cli.signer_backend);
    match cli.command {
        Command::Verify(a) => commands::verify(a, f, threads, stdout),
        Command::Synth(a) => commands::synth(a, f, threads, stdout),
        Command::Export(a) => commands::export(a, f, threads, stdout),
        Command::Run(a) => commands::run(a, f, threads, stdout),
        Command::Plan(a) => commands::plan(a, f, threads, stdout),
        Command::Bench(a) => commands::bench(a, threads, stdout),
        Command::StateRoot(a) => commands::state_root(a, f, threads, stdout),
        Command::Convert(a) => commands::convert(a, f, threads, stdout),
        Command::Report(a) => commands::report(a, f, threads, stdout),
        Command::Inspect(a) => commands::inspect(a, f, threads, stdout),
        Command::Prune {
            check:
                Some(PruneCommand::Check {
                    dir,
                    rebuild,
                    fetch,
                }),
            ..
        } => commands::prune_check(&dir, rebuild, fetch, f, threads, stdout),
        Command::Prune { check: None, args } => commands::prune(args, f, threads, stdout),
        Command::Table { command } => commands::table(command, stdout),
    }
}
