//! Running stages over a set of input files, with progress, a summary and the JSON run report.

use super::export::{self, ExportOptions};
use super::job::JobError;
use super::report::{peak_rss_bytes, rfc3339, FileOutcome, Progress, RunReport, StageReport};
use crate::formats::Archive;
use crate::verify::{verify_archives_until, VerifyOptions};
use std::path::PathBuf;

/// A stage of a job.
#[derive(Clone)]
pub enum Stage {
    /// Verify every file (and chains across files).
    Verify(VerifyOptions),
    /// Verify and export to Parquet.
    Export(ExportOptions),
}

/// Blocks for the progress bar: era1 block counts, and the non-empty slots of era files.
fn total_blocks(files: &[PathBuf]) -> u64 {
    files
        .iter()
        .map(|p| Archive::open(p).map_or(0, |a| a.block_count()))
        .sum()
}

/// A run report begun now for the job `name` (and its shard) over `files`; [`run_stages`] fills it and
/// [`RunReport::finish`] ends and saves it.
pub fn begin_report(name: &str, shard: Option<String>, files: &[PathBuf]) -> RunReport {
    let now = std::time::SystemTime::now();
    RunReport {
        name: name.into(),
        started: rfc3339(now),
        started_at: now
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
        shard,
        pid: std::process::id(),
        eraflow_version: env!("CARGO_PKG_VERSION").into(),
        threads: rayon::current_num_threads(),
        inputs: files.iter().map(|p| p.display().to_string()).collect(),
        ..Default::default()
    }
}

/// Runs `stages` over `files` into `report`. Files that fail are in the report (its
/// [`RunReport::exit_status`] says so); an error means a stage could not run at all. A stop asked for by a
/// signal ([`super::interrupt`]) is checked before each stage and each file: the run then ends with what is
/// done and `report.signal` set.
pub fn run_stages(
    report: &mut RunReport,
    files: &[PathBuf],
    stages: &[Stage],
) -> Result<(), JobError> {
    let t0 = std::time::Instant::now();
    let blocks = total_blocks(files);
    for stage in stages {
        if super::interrupt::requested().is_some() {
            break;
        }
        let (name, outcomes) = match stage {
            Stage::Verify(opts) => {
                let progress = Progress::new("verify", files.len(), blocks);
                let stop = || super::interrupt::requested().is_some();
                let reports = verify_archives_until(files, opts, &stop);
                let outcomes: Vec<FileOutcome> = reports
                    .into_iter()
                    .map(|r| {
                        progress.advance(r.blocks, r.transactions);
                        let o = FileOutcome {
                            file: r.file,
                            ok: r.ok,
                            blocks: r.blocks,
                            transactions: r.transactions,
                            logs: r.logs,
                            bytes_in: r.file_size,
                            errors: r.errors.into_iter().map(Into::into).collect(),
                            ..Default::default()
                        };
                        progress.file_done(&o);
                        o
                    })
                    .collect();
                progress.finish();
                ("verify", (outcomes, progress.elapsed()))
            }
            Stage::Export(opts) => {
                let progress = Progress::new("export", files.len(), blocks);
                let r = export::export(files, opts, &progress);
                progress.finish();
                ("export", (r?, progress.elapsed()))
            }
        };
        let (outcomes, secs) = outcomes;
        report.stages.push(StageReport::new(name, secs, outcomes));
    }
    report.signal = super::interrupt::requested();
    report.seconds = t0.elapsed().as_secs_f64();
    report.peak_rss_bytes = peak_rss_bytes();
    report.ok = report.signal.is_none() && report.stages.iter().all(|s| s.failed_files == 0);
    Ok(())
}
