//! Progress while a job runs (a bar on a terminal, structured logs otherwise) and the JSON run report written
//! at the end (`OUT/_eraflow/runs/<started>-<pid>.json`).

use crate::export::progress::FileOutcome;
use serde::Serialize;
use std::path::PathBuf;

/// One stage's part of the run report.
#[derive(Debug, Clone, Default, Serialize)]
pub struct StageReport {
    /// `verify` or `export`.
    pub stage: String,
    /// Wall-clock seconds of the stage.
    pub seconds: f64,
    /// One outcome per input file, in input order.
    pub files: Vec<FileOutcome>,
    /// Blocks of the files done (not skipped).
    pub blocks: u64,
    /// Transactions of the files done.
    pub transactions: u64,
    /// `blocks / seconds`.
    pub blocks_per_second: f64,
    /// Input megabytes (10^6 bytes) of the files done per second.
    pub megabytes_per_second: f64,
    /// Files that failed.
    pub failed_files: usize,
    /// Look-alikes per decoded-event dataset over the files done (see [`FileOutcome::skipped_lookalikes`]).
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub skipped_lookalikes: std::collections::BTreeMap<String, u64>,
    /// EIP-7708 ETH-transfer logs per token dataset over the files done (see
    /// [`FileOutcome::skipped_eth_transfer_logs`]).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub skipped_eth_transfer_logs: std::collections::BTreeMap<String, u64>,
    /// Export into a local directory: Parquet files under the dataset folders that no completion record lists
    /// once the stage is done (relative paths); removed when the export's `clean_stale` is set.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stale_outputs: Vec<String>,
    /// Whether `stale_outputs` were removed.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub stale_removed: bool,
}

impl StageReport {
    /// Sums a stage's file outcomes.
    pub fn new(stage: &str, seconds: f64, files: Vec<FileOutcome>) -> StageReport {
        let done: Vec<&FileOutcome> = files.iter().filter(|f| !f.skipped).collect();
        let blocks = done.iter().map(|f| f.blocks).sum::<u64>();
        let bytes = done.iter().map(|f| f.bytes_in).sum::<u64>();
        let mut skipped_lookalikes = std::collections::BTreeMap::new();
        for (d, n) in done.iter().flat_map(|f| &f.skipped_lookalikes) {
            *skipped_lookalikes.entry(d.clone()).or_insert(0) += n;
        }
        let mut skipped_eth_transfer_logs = std::collections::BTreeMap::new();
        for (d, n) in done.iter().flat_map(|f| &f.skipped_eth_transfer_logs) {
            *skipped_eth_transfer_logs.entry(d.clone()).or_insert(0) += n;
        }
        StageReport {
            stage: stage.into(),
            seconds,
            blocks,
            transactions: done.iter().map(|f| f.transactions).sum(),
            blocks_per_second: blocks as f64 / seconds.max(1e-9),
            megabytes_per_second: bytes as f64 / 1e6 / seconds.max(1e-9),
            failed_files: files.iter().filter(|f| !f.ok).count(),
            skipped_lookalikes,
            skipped_eth_transfer_logs,
            files,
            stale_outputs: Vec::new(),
            stale_removed: false,
        }
    }
}

/// How a run ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    /// Still running (never saved so).
    #[default]
    Running,
    /// Every file verified and exported.
    Ok,
    /// A file or a stage failed.
    Failed,
    /// SIGTERM or SIGINT stopped it between files; a rerun does the rest.
    Interrupted,
}

/// The JSON run report.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RunReport {
    /// The pipeline's (or command's) name.
    pub name: String,
    /// `ok`, `failed` or `interrupted`.
    pub status: RunStatus,
    /// The process exit code of the run (0, 1, 2, or 128 + the signal).
    pub exit_code: u8,
    /// Start, RFC 3339 UTC (`2026-12-01T13:09:21Z`).
    pub started: String,
    /// End, RFC 3339 UTC.
    pub finished: String,
    /// The signal that interrupted the run.
    pub signal: Option<i32>,
    /// The shard run (`K/N`), when sharded.
    pub shard: Option<String>,
    /// The process id (with `started`, the report's file name).
    pub pid: u32,
    /// The eraflow version that ran.
    pub eraflow_version: String,
    /// Unix seconds at the start.
    pub started_at: u64,
    /// Wall-clock seconds of the whole run.
    pub seconds: f64,
    /// Worker threads.
    pub threads: usize,
    /// The input files, expanded.
    pub inputs: Vec<String>,
    /// Wall-clock seconds of the synth stage that made (or found already made) the inputs, before the stages;
    /// absent without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub synth_seconds: Option<f64>,
    /// The stages, in the order they ran.
    pub stages: Vec<StageReport>,
    /// Peak resident memory of the process (Linux `VmHWM`).
    pub peak_rss_bytes: Option<u64>,
    /// No file failed.
    pub ok: bool,
    /// Where the report was saved (not part of the JSON).
    #[serde(skip)]
    pub path: Option<PathBuf>,
}

impl RunReport {
    /// 128 + the signal when interrupted, else the worst of the files of every stage: 2 when a file could not
    /// be read or its outputs not written, 1 when a file failed a check, else 0.
    pub fn exit_status(&self) -> crate::error::ExitStatus {
        if let Some(sig) = self.signal {
            return crate::error::ExitStatus::Interrupted(sig as u8);
        }
        self.stages
            .iter()
            .flat_map(|s| &s.files)
            .map(FileOutcome::exit_status)
            .max()
            .unwrap_or_default()
    }
}

/// The human summary of a stage: one line of totals, then each failed file with its first errors.
impl std::fmt::Display for StageReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let skipped = self.files.iter().filter(|f| f.skipped).count();
        write!(
            f,
            "{}: {} files ({} done, {} skipped as complete, {} failed), {} blocks, {} transactions in {:.2}s ({:.0} blocks/s, {:.1} MB/s)",
            self.stage,
            self.files.len(),
            self.files.len() - skipped - self.failed_files,
            skipped,
            self.failed_files,
            self.blocks,
            self.transactions,
            self.seconds,
            self.blocks_per_second,
            self.megabytes_per_second
        )?;
        if !self.stale_outputs.is_empty() {
            let what = match self.stale_removed {
                true => "removed",
                false => "kept (--clean-stale removes them)",
            };
            write!(
                f,
                "\n  {} outputs no completion record lists, {what}:",
                self.stale_outputs.len()
            )?;
            for p in self.stale_outputs.iter().take(10) {
                write!(f, "\n    {p}")?;
            }
            if self.stale_outputs.len() > 10 {
                write!(f, "\n    ... and {} more", self.stale_outputs.len() - 10)?;
            }
        }
        for o in self.files.iter().filter(|o| !o.ok) {
            write!(f, "\n  FAILED {}", o.file)?;
            for e in o.errors.iter().take(10) {
                write!(f, "\n    {}", crate::error::render(e))?;
            }
        }
        Ok(())
    }
}

impl RunReport {
    /// Ends the report with the run's exit status (which a later stage, such as prune, may have worsened)
    /// and writes it under `out`.
    pub fn finish(
        &mut self,
        status: crate::error::ExitStatus,
        out: &std::path::Path,
    ) -> std::io::Result<PathBuf> {
        use crate::error::ExitStatus;
        self.exit_code = status.code();
        self.status = match status {
            ExitStatus::Ok => RunStatus::Ok,
            ExitStatus::Interrupted(_) => RunStatus::Interrupted,
            _ => RunStatus::Failed,
        };
        self.ok = status == ExitStatus::Ok;
        self.finished = crate::util::time::rfc3339(std::time::SystemTime::now());
        let p = self.save(out)?;
        self.path = Some(p.clone());
        Ok(p)
    }

    /// Writes the report to `OUT/_eraflow/runs/<started>-<pid>.json` (two runs started in the same second
    /// are two processes) and returns its path.
    pub fn save(&self, out: &std::path::Path) -> std::io::Result<PathBuf> {
        let p = out
            .join("_eraflow")
            .join("runs")
            .join(format!("{}-{}.json", self.started, self.pid));
        crate::util::fs::write_atomic(
            &p,
            &serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?,
        )?;
        Ok(p)
    }
}
