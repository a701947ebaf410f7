//! Running stages over a set of input files, with progress, a summary and the JSON run report.

use super::export::{self, ExportOptions};
use super::job::JobError;
use super::report::{peak_rss_bytes, FileOutcome, Progress, RunReport, StageReport};
use crate::formats::Archive;
use crate::store::output::StoreError;
use crate::store::remote::RemoteOutput;
use crate::store::url::RemoteUrl;
use crate::verify::{verify_archives, VerifyOptions};
use std::path::{Path, PathBuf};

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

/// Runs `stages` over `files` and writes the run report under `out`. With `remote`, exports are published to
/// that object-store prefix, `out` is their local staging directory, and the run report is uploaded beside
/// them and the staging directory removed. Files that fail are in the report (its
/// [`RunReport::exit_status`] says so); an error means a stage could not run at all or the report could not
/// be written.
pub fn run_stages(
    files: &[PathBuf],
    out: &Path,
    remote: Option<&RemoteUrl>,
    stages: &[Stage],
) -> Result<RunReport, JobError> {
    run_stages_with(files, &[], out, remote, stages)
}

/// [`run_stages`], with inputs that already failed (remote files that could not be fetched) counted as failed
/// files of every stage.
pub fn run_stages_with(
    files: &[PathBuf],
    failed: &[FileOutcome],
    out: &Path,
    remote: Option<&RemoteUrl>,
    stages: &[Stage],
) -> Result<RunReport, JobError> {
    let r = run_stages_into(files, failed, out, remote, stages);
    let staged = out
        .file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with("eraflow-staging-"));
    if remote.is_some() && staged {
        // The staging directory holds nothing that is not uploaded, or that a failed run could still use.
        let _ = std::fs::remove_dir_all(out);
    }
    r
}

fn run_stages_into(
    files: &[PathBuf],
    failed: &[FileOutcome],
    out: &Path,
    remote: Option<&RemoteUrl>,
    stages: &[Stage],
) -> Result<RunReport, JobError> {
    let started_at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let t0 = std::time::Instant::now();
    let mut report = RunReport {
        eraflow_version: env!("CARGO_PKG_VERSION").into(),
        started_at,
        threads: rayon::current_num_threads(),
        inputs: files.iter().map(|p| p.display().to_string()).collect(),
        ..Default::default()
    };
    let blocks = total_blocks(files);
    for stage in stages {
        let (name, outcomes) = match stage {
            Stage::Verify(opts) => {
                let progress = Progress::new("verify", files.len(), blocks);
                let reports = verify_archives(files, opts);
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
                let r = export::export_to(files, opts, remote, &progress);
                progress.finish();
                ("export", (r?, progress.elapsed()))
            }
        };
        let (mut outcomes, secs) = outcomes;
        outcomes.extend(failed.iter().cloned());
        report.stages.push(StageReport::new(name, secs, outcomes));
    }
    report.seconds = t0.elapsed().as_secs_f64();
    report.peak_rss_bytes = peak_rss_bytes();
    report.ok = report.stages.iter().all(|s| s.failed_files == 0);
    let path = report.save(out).map_err(|source| JobError::Io {
        path: out.join("_eraflow").join("runs"),
        source,
    })?;
    report.path = Some(path.clone());
    if let Some(u) = remote {
        let store = RemoteOutput::open(u).map_err(StoreError::from)?;
        store.upload_report(&path).map_err(StoreError::from)?;
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        report.path = Some(PathBuf::from(
            store.location(&format!("_eraflow/runs/{}", name.unwrap_or_default())),
        ));
    }
    Ok(report)
}
