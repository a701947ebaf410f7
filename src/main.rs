//! The `eraflow` command line: parses arguments into the top layer of a job (flags over `--set` over a
//! pipeline file over `configs/default.toml`), calls one library function per command
//! ([`eraflow::pipeline`]) and renders its typed report. Errors are rendered once, here.

mod cli;

use clap::Parser;
use cli::args::{Cli, Command, PruneCommand};
use cli::flags::Flags;
use eraflow::pipeline::{self, ExitStatus, JobError};
use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            let status = if e.use_stderr() {
                ExitStatus::Usage
            } else {
                ExitStatus::Ok
            };
            return ExitCode::from(status.code());
        }
    };
    // Structured logs on stderr (RUST_LOG overrides the level); progress bars replace them on a terminal.
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_ansi(false)
        .try_init();
    let status = match command(cli) {
        Ok(status) => status,
        Err(e) => {
            eprintln!("error: {}", eraflow::error::render(&e));
            e.exit_status()
        }
    };
    ExitCode::from(status.code())
}

/// Builds the job of a command, runs it and prints its report.
fn command(cli: Cli) -> Result<ExitStatus, JobError> {
    let threads = cli.threads;
    let mut f = Flags::default();
    match cli.command {
        Command::Verify {
            json,
            network,
            checksum,
            senders,
            signature_algorithm,
            paths,
        } => {
            f.str("name", Some("verify"))
                .str("network", network)
                .list("inputs", &paths);
            f.stage("verify").switch("verify.checksum", checksum, true);
            f.switch("verify.senders", senders, true);
            f.str("verify.signature_algorithm", signature_algorithm);
            let reports = pipeline::verify(&f.job(threads, None, &[])?)?;
            let failed = reports.iter().filter(|r| !r.ok).count();
            for r in &reports {
                match json {
                    true => println!("{}", serde_json::to_string(r).unwrap_or_default()),
                    false => println!("{}", eraflow::verify::render::verify_lines(r)),
                }
            }
            if !json {
                let n = reports.len();
                println!("{n} files, {} verified, {failed} failed", n - failed);
            }
            Ok(if failed > 0 {
                ExitStatus::DataErrors
            } else {
                ExitStatus::Ok
            })
        }
        Command::Synth {
            out,
            kind,
            network,
            era,
            fork,
            files,
            blocks,
            validators,
            txs_per_block,
            seed,
        } => {
            f.str("name", Some("synth")).str("network", network);
            f.path("synth.out", &out)
                .str("synth.kind", kind)
                .int("synth.era", era);
            f.str("synth.fork", fork)
                .int("synth.files", files)
                .int("synth.blocks", blocks);
            f.int("synth.validators", validators)
                .int("synth.txs_per_block", txs_per_block);
            f.int("synth.seed", seed);
            let job = f.job(threads, None, &[])?;
            let synth = job
                .synth
                .as_ref()
                .expect("the synth flags enable the stage");
            for p in pipeline::synth(synth, false)? {
                println!("{}", p.display());
            }
            Ok(ExitStatus::Ok)
        }
        Command::Export {
            out,
            datasets,
            no_senders,
            network,
            overwrite,
            compression,
            compression_level,
            row_group_size,
            cache_dir,
            cache_max_bytes,
            keep_cache,
            paths,
        } => {
            f.str(
                "cache_dir",
                cache_dir.map(|p| p.to_string_lossy().into_owned()),
            )
            .int("cache_max_bytes", cache_max_bytes)
            .switch("keep_cache", keep_cache, true);
            f.str("name", Some("export"))
                .str("network", network)
                .list("inputs", &paths)
                .path("out", &out);
            f.stage("export")
                .switch("export.senders", no_senders, false);
            f.switch("export.overwrite", overwrite, true);
            if let Some(d) = &datasets {
                f.list("export.datasets", d);
            }
            f.str("export.compression", compression)
                .int("export.compression_level", compression_level);
            f.int("export.row_group_size", row_group_size);
            let report = pipeline::export(&f.job(threads, None, &[])?)?;
            print_run_report(&report);
            Ok(report.exit_status())
        }
        Command::Run {
            pipeline: file,
            sets,
        } => {
            let job = f.job(threads, Some(&file), &sets)?;
            let outcome = pipeline::run(&job)?;
            if let Some(paths) = &outcome.synthesized {
                let dir = job.synth.as_ref().map_or(Path::new(""), |s| &s.out);
                eprintln!("synth: {} files in {}", paths.len(), dir.display());
            }
            if let Some(r) = &outcome.report {
                print_run_report(r);
            }
            match &outcome.prune {
                Some(Ok(p)) => print_prune(p, None),
                Some(Err(e)) => eprintln!("error: {}", eraflow::error::render(e)),
                None => {}
            }
            Ok(outcome.exit_status())
        }
        Command::Bench {
            blocks,
            txs_per_block,
            runs,
            dir,
            json,
        } => {
            let dir = dir.unwrap_or_else(|| {
                std::env::temp_dir().join(format!("eraflow-bench-{}", std::process::id()))
            });
            std::fs::create_dir_all(&dir).map_err(|source| JobError::Io {
                path: dir.clone(),
                source,
            })?;
            pipeline::job::set_threads(threads.unwrap_or(0))?;
            match eraflow::bench::run(&dir, blocks, txs_per_block, runs.max(1)) {
                Ok(ms) if json => {
                    println!("{}", serde_json::to_string_pretty(&ms).unwrap_or_default())
                }
                Ok(ms) => eraflow::bench::print(&ms),
                Err(e) => {
                    eprintln!("error: bench: {e}");
                    return Ok(ExitStatus::Usage);
                }
            }
            Ok(ExitStatus::Ok)
        }
        Command::StateRoot {
            file,
            fork,
            network,
        } => {
            f.str("name", Some("state-root")).str("network", network);
            let job = f.job(threads, None, &[])?;
            pipeline::job::set_threads(job.threads)?;
            let fork = fork
                .map(|f| f.parse())
                .transpose()
                .map_err(|e| JobError::Invalid {
                    key: "--fork",
                    message: format!("{e}"),
                })?;
            let r = pipeline::state_root(&file, fork, job.network.as_ref())?;
            println!("0x{}", hex::encode(r.root));
            eprintln!(
                "{}: {:?} state at slot {}, {} validators, {} bytes; read {:.3}s, hash_tree_root {:.3}s on {} threads",
                file.display(), r.fork, r.slot, r.validators, r.bytes, r.read_seconds, r.hash_seconds,
                rayon::current_num_threads()
            );
            Ok(ExitStatus::Ok)
        }
        Command::Inspect { file, network } => {
            f.str("name", Some("inspect")).str("network", network);
            let job = f.job(threads, None, &[])?;
            let r = pipeline::inspect(&file, job.network.as_ref())?;
            println!("{}", eraflow::verify::render::inspect_text(&r));
            Ok(if r.ok {
                ExitStatus::Ok
            } else {
                ExitStatus::DataErrors
            })
        }
        Command::Prune {
            check: Some(PruneCommand::Check { dir }),
            ..
        } => {
            let s = pipeline::prune_check(&dir)?;
            print_check(&dir, &s);
            Ok(ExitStatus::Ok)
        }
        Command::Prune {
            check: None,
            args: a,
        } => {
            let started = std::time::Instant::now();
            f.str("name", Some("prune"))
                .str("network", a.network)
                .list("inputs", &a.paths);
            if let Some(out) = &a.out {
                f.path("prune.out", out);
            }
            f.int("prune.from_block", a.from_block)
                .int("prune.until_block", a.until_block);
            f.switch("prune.allow_gaps", a.allow_gaps, true)
                .str("prune.format", a.format);
            f.int("prune.memory_budget", a.memory_budget);
            // `eraflow prune check` is its own command; building does not re-read what it wrote.
            f.set("prune.check", toml::Value::Boolean(false));
            let report = pipeline::prune(&f.job(threads, None, &[])?)?;
            print_prune(&report, Some(started));
            Ok(ExitStatus::Ok)
        }
    }
}

fn print_run_report(r: &pipeline::report::RunReport) {
    for s in &r.stages {
        println!("{s}");
    }
    if let Some(p) = &r.path {
        eprintln!("run report: {}", p.display());
    }
}

fn print_prune(p: &pipeline::PruneReport, started: Option<std::time::Instant>) {
    let (s, m) = (&p.summary, &p.summary.manifest);
    for f in &s.skipped {
        eprintln!("note: {f} holds no block of the range; not read");
    }
    let took = started.map_or(String::new(), |t| {
        format!(", {:.1}s", t.elapsed().as_secs_f64())
    });
    println!(
        "OK   {}  {} blocks {}..={}  {} transactions  {} sources  {} gaps  ({} sort runs spilled{took})",
        s.out.display(), m.totals.blocks, m.range.first, m.range.last, m.totals.transactions,
        m.sources.len(), m.gaps.len(), s.sort.runs_spilled,
    );
    if let Some(c) = &p.check {
        print_check(&s.out, c);
    }
}

fn print_check(dir: &Path, s: &eraflow::prune::check::CheckSummary) {
    println!(
        "OK   {}  {} files consistent: {} blocks, {} transactions",
        dir.display(),
        s.files_checked,
        s.manifest.totals.blocks,
        s.manifest.totals.transactions
    );
}
