//! The run reports of an output (`_eraflow/runs/<started>-<pid>.json`), read back for the page.
//!
//! [`crate::pipeline::report::RunReport`] is what a run writes; its file errors are typed causes that serialise
//! as the one line `crate::error::render` makes of them and cannot be rebuilt from that line. So the page reads
//! the same JSON into [`RunView`], the fields it shows with the errors as text (a test in
//! `tests/it/report.rs` writes a `RunReport` and reads it back as a `RunView`, so the two cannot drift apart).
//! A report that does not parse is shown as such, not dropped.

use super::source::Output;
use super::ReportError;
use serde::Deserialize;

/// One file's outcome in a stage, as the page shows it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct FileView {
    /// The input as given.
    pub file: String,
    /// Done (verified, and exported when exporting).
    pub ok: bool,
    /// Already complete; not redone.
    pub skipped: bool,
    /// Blocks read.
    pub blocks: u64,
    /// Transactions read.
    pub transactions: u64,
    /// Its errors, rendered.
    pub errors: Vec<String>,
}

/// One stage of a run.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct StageView {
    /// `verify` or `export`.
    pub stage: String,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// One per input file.
    pub files: Vec<FileView>,
    /// Blocks of the files done.
    pub blocks: u64,
    /// Transactions of the files done.
    pub transactions: u64,
    /// Blocks per second.
    pub blocks_per_second: f64,
    /// Files that failed.
    pub failed_files: usize,
}

/// A run report, as the page shows it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct RunView {
    /// The pipeline's (or command's) name.
    pub name: String,
    /// `ok`, `failed` or `interrupted`.
    pub status: String,
    /// The process exit code.
    pub exit_code: u8,
    /// Start, RFC 3339 UTC.
    pub started: String,
    /// End, RFC 3339 UTC.
    pub finished: String,
    /// The shard, when sharded.
    pub shard: Option<String>,
    /// The eraflow version that ran.
    pub eraflow_version: String,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Worker threads.
    pub threads: usize,
    /// The stages in order.
    pub stages: Vec<StageView>,
    /// Peak resident memory.
    pub peak_rss_bytes: Option<u64>,
}

impl RunView {
    /// Files done, skipped and failed over every stage (a file of two stages counts twice).
    pub fn file_counts(&self) -> (usize, usize, usize) {
        let files = self.stages.iter().flat_map(|s| &s.files);
        files.fold((0, 0, 0), |(d, s, f), o| match (o.ok, o.skipped) {
            (_, true) => (d, s + 1, f),
            (true, false) => (d + 1, s, f),
            (false, false) => (d, s, f + 1),
        })
    }

    /// Blocks and transactions per second of the run's longest-running stage's work over the run's wall time.
    pub fn rates(&self) -> (f64, f64) {
        let blocks = self.stages.iter().map(|s| s.blocks).max().unwrap_or(0);
        let txs = self
            .stages
            .iter()
            .map(|s| s.transactions)
            .max()
            .unwrap_or(0);
        let secs = self.seconds.max(1e-9);
        (blocks as f64 / secs, txs as f64 / secs)
    }
}

/// A run report file: its name and what it holds, or why it could not be read.
#[derive(Debug, Clone)]
pub struct RunEntry {
    /// The file name under `_eraflow/runs/`.
    pub name: String,
    /// The report, or why it does not parse.
    pub run: Result<RunView, String>,
}

/// The run reports of `out`: how many there are, and the newest `limit`, newest first.
pub fn load(out: &Output, limit: usize) -> Result<(usize, Vec<RunEntry>), ReportError> {
    let names = out.run_names()?;
    let total = names.len();
    let mut entries = Vec::new();
    for name in names.into_iter().rev().take(limit) {
        let run = match out.run_report(&name)? {
            Some(b) => serde_json::from_slice::<RunView>(&b).map_err(|e| e.to_string()),
            None => Err("removed while read".into()),
        };
        entries.push(RunEntry { name, run });
    }
    Ok((total, entries))
}

/// The failed input files whose last outcome, over `runs` (newest first), is a failure: by file name (not path),
/// with that outcome's first error.
pub fn failed_files(runs: &[RunEntry]) -> std::collections::BTreeMap<String, String> {
    use std::collections::BTreeMap;
    let mut last: BTreeMap<String, Option<String>> = BTreeMap::new();
    // Oldest first, so a later run's outcome replaces an earlier one's.
    for e in runs.iter().rev() {
        let Ok(r) = &e.run else { continue };
        let mut this: BTreeMap<String, Option<String>> = BTreeMap::new();
        for f in r.stages.iter().flat_map(|s| &s.files) {
            let name = f.file.rsplit(['/', '\\']).next().unwrap_or(&f.file);
            let slot = this.entry(name.to_string()).or_insert(None);
            // A failure in any stage of the run stands.
            if !f.ok && !f.skipped && slot.is_none() {
                *slot = Some(f.errors.first().cloned().unwrap_or_default());
            }
        }
        last.extend(this);
    }
    last.into_iter()
        .filter_map(|(k, v)| v.map(|v| (k, v)))
        .collect()
}
