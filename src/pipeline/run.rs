//! A job's stages, and the run report they fill: begun, then ended and saved (uploaded beside a remote output).

use super::job::JobError;
use super::report::RunReport;
use crate::export::progress::FileOutcome;
use crate::export::ExportOptions;
use crate::store::output::OutputStore;
use crate::store::url::RemoteUrl;
use crate::util::time::rfc3339;
use crate::verify::VerifyOptions;
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

/// A run report begun now for the job `name` (and its shard) over `files`; [`super::stream::run_inputs`] fills it and
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
