//! Running stages over a set of input files, with progress, a summary and the JSON run report.

use super::job::JobError;
use super::report::{RunReport, StageReport};
use crate::export::progress::{FileOutcome, Progress};
use crate::export::{self, ExportOptions};
use crate::formats::Archive;
use crate::store::output::OutputStore;
use crate::store::url::RemoteUrl;
use crate::util::{memory::peak_rss_bytes, time::rfc3339};
use crate::verify::{verify_archives_until, VerifyOptions};
use std::path::{Path, PathBuf};

/// A stage of a job.
#[derive(Clone)]
pub enum Stage {
    /// Verify every file (and chains across files); with a cache folder (an output directory), files whose
    /// bytes passed these checks before are not verified again ([`super::verify_cache`]).
    Verify(VerifyOptions, Option<PathBuf>),
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
/// signal ([`crate::util::interrupt`]) is checked before each stage and each file: the run then ends with what is
/// done and `report.signal` set. With `remote`, exports are published to that object-store prefix (the
/// export options' `out` is their local staging directory); [`finish_run`] then uploads the report.
pub fn run_stages(
    report: &mut RunReport,
    files: &[PathBuf],
    remote: Option<&RemoteUrl>,
    stages: &[Stage],
) -> Result<(), JobError> {
    run_stages_with(report, files, &[], remote, stages)
}

/// [`run_stages`], with inputs that already failed (remote files that could not be fetched) counted as failed
/// files of every stage.
pub fn run_stages_with(
    report: &mut RunReport,
    files: &[PathBuf],
    failed: &[FileOutcome],
    remote: Option<&RemoteUrl>,
    stages: &[Stage],
) -> Result<(), JobError> {
    let t0 = std::time::Instant::now();
    let blocks = total_blocks(files);
    for stage in stages {
        if crate::util::interrupt::requested().is_some() {
            break;
        }
        let mut stale = None;
        let (name, outcomes) = match stage {
            Stage::Verify(opts, cache) => {
                let progress = Progress::new("verify", files.len(), blocks);
                let stop = || crate::util::interrupt::requested().is_some();
                let reports = match cache {
                    Some(out) => {
                        let cache = super::verify_cache::VerifyCache::new(out, opts);
                        crate::verify::verify_archives_cached(files, opts, &stop, &cache)
                    }
                    None => verify_archives_until(files, opts, &stop),
                };
                let outcomes: Vec<FileOutcome> = reports
                    .into_iter()
                    .map(|r| {
                        progress.advance(r.blocks, r.transactions);
                        let o = outcome_of(r);
                        progress.file_done(&o);
                        o
                    })
                    .collect();
                progress.finish();
                ("verify", (outcomes, progress.elapsed()))
            }
            Stage::Export(opts) => {
                let progress = Progress::new("export", files.len(), blocks);
                let started = std::time::SystemTime::now();
                let r = export::export_to(files, opts, remote, &progress);
                progress.finish();
                if r.is_ok() && remote.is_none() {
                    stale = Some(export::stale_outputs(opts, started));
                }
                ("export", (r?, progress.elapsed()))
            }
        };
        let (mut outcomes, secs) = outcomes;
        outcomes.extend(failed.iter().cloned());
        let mut stage = StageReport::new(name, secs, outcomes);
        if let Some((paths, removed)) = stale.take() {
            (stage.stale_outputs, stage.stale_removed) = (paths, removed);
        }
        report.stages.push(stage);
    }
    report.signal = crate::util::interrupt::requested();
    report.seconds = t0.elapsed().as_secs_f64();
    report.peak_rss_bytes = peak_rss_bytes();
    report.ok = report.signal.is_none() && report.stages.iter().all(|s| s.failed_files == 0);
    Ok(())
}

/// A verify stage's outcome for one file.
pub(crate) fn outcome_of(r: crate::verify::report::FileReport) -> FileOutcome {
    FileOutcome {
        file: r.file,
        ok: r.ok,
        blocks: r.blocks,
        transactions: r.transactions,
        logs: r.logs,
        bytes_in: r.file_size,
        skipped: r.from_cache,
        errors: r.errors.into_iter().map(Into::into).collect(),
        ..Default::default()
    }
}

/// Ends `report` with `status` and saves it under `out` ([`RunReport::finish`]). With `remote`, the report is
/// uploaded beside the outputs (its `path` then names the object) and `out`, the local staging directory,
/// is removed.
pub fn finish_run(
    report: &mut RunReport,
    status: crate::error::ExitStatus,
    out: &Path,
    remote: Option<&RemoteUrl>,
) -> Result<PathBuf, JobError> {
    let r = finish_into(report, status, out, remote);
    discard_staging(out, remote);
    r
}

/// Removes `out` when it is the local staging directory of the remote output `remote`.
pub fn discard_staging(out: &Path, remote: Option<&RemoteUrl>) {
    let staged = out
        .file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with("eraflow-staging-"));
    if remote.is_some() && staged {
        // The staging directory holds nothing that is not uploaded, or that a failed run could still use.
        let _ = std::fs::remove_dir_all(out);
    }
}

fn finish_into(
    report: &mut RunReport,
    status: crate::error::ExitStatus,
    out: &Path,
    remote: Option<&RemoteUrl>,
) -> Result<PathBuf, JobError> {
    let path = report.finish(status, out).map_err(|source| JobError::Io {
        path: out.join("_eraflow").join("runs"),
        source,
    })?;
    if let Some(u) = remote {
        let store = OutputStore::connect(u)?;
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let rel = format!("_eraflow/runs/{}", name.unwrap_or_default());
        store.publish(&rel, &path)?;
        let at = PathBuf::from(store.location(&rel));
        report.path = Some(at.clone());
        return Ok(at);
    }
    Ok(path)
}
