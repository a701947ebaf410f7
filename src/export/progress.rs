//! Progress while a stage runs, file by file: what happened to each input ([`FileOutcome`], with its typed
//! [`OutcomeError`]s), and live progress (an indicatif bar on a terminal, structured logs otherwise).

use crate::crypto::signer::SignerError;
use crate::datasets::DatasetError;
use crate::formats::FormatError;
use crate::sink::parquet::SinkError;
use crate::verify::report::ReportError;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// One reason a file failed in a stage: its verification, or writing what was made from it.
#[derive(Debug, Clone, thiserror::Error)]
pub enum OutcomeError {
    /// The file did not verify (or could not be opened).
    #[error(transparent)]
    Verify(#[from] ReportError),
    /// A dataset could not be built from a verified block.
    #[error(transparent)]
    Dataset(#[from] DatasetError),
    /// A Parquet output could not be written or committed.
    #[error(transparent)]
    Sink(Arc<SinkError>),
    /// The manifest could not be written.
    #[error("{}", .path.display())]
    Manifest {
        /// The manifest file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: Arc<std::io::Error>,
    },
    /// The output store could not record or publish an output.
    #[error(transparent)]
    Store(Arc<crate::store::output::StoreError>),
    /// A remote input could not be fetched, or its bytes do not match its published sha256.
    #[error(transparent)]
    Fetch(Arc<crate::store::fetch::FetchError>),
    /// Senders were asked for but the signer is unusable.
    #[error("{}: recovering senders", .path.display())]
    Signer {
        /// The input file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: SignerError,
    },
    /// Neither the job nor the file name says which network the file is from.
    #[error("{}: cannot tell the network from the file name; pass --network", .0.display())]
    UnknownNetwork(PathBuf),
}

impl OutcomeError {
    /// 2 for what is not the data's fault — an input that cannot be read, an output or the manifest that
    /// cannot be written (disk full, a directory in the way), a signer that cannot be set up — else 1.
    pub fn exit_status(&self) -> crate::error::ExitStatus {
        use crate::error::ExitStatus;
        match self {
            OutcomeError::Verify(e) if e.is_io() => ExitStatus::Usage,
            OutcomeError::Sink(_)
            | OutcomeError::Manifest { .. }
            | OutcomeError::Store(_)
            | OutcomeError::Signer { .. } => ExitStatus::Usage,
            // A remote file that could not be fetched, or whose bytes do not match: that file fails alone.
            OutcomeError::Verify(_)
            | OutcomeError::Fetch(_)
            | OutcomeError::Dataset(_)
            | OutcomeError::UnknownNetwork(_) => ExitStatus::DataErrors,
        }
    }
}

impl From<SinkError> for OutcomeError {
    fn from(e: SinkError) -> Self {
        OutcomeError::Sink(Arc::new(e))
    }
}

impl From<crate::store::output::StoreError> for OutcomeError {
    fn from(e: crate::store::output::StoreError) -> Self {
        OutcomeError::Store(Arc::new(e))
    }
}

impl From<FormatError> for OutcomeError {
    fn from(e: FormatError) -> Self {
        OutcomeError::Verify(e.into())
    }
}

impl Serialize for OutcomeError {
    /// As the one line [`crate::error::render`] makes of it.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&crate::error::render(self))
    }
}

/// What happened to one input file in one stage.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FileOutcome {
    /// The input file as given.
    pub file: String,
    /// Verified (and, for export, every output committed).
    pub ok: bool,
    /// Outputs were already complete per the manifest.
    pub skipped: bool,
    /// Blocks read (era: beacon blocks).
    pub blocks: u64,
    /// Transactions read.
    pub transactions: u64,
    /// Logs read (era1).
    pub logs: u64,
    /// Size of the input file.
    pub bytes_in: u64,
    /// Wall-clock seconds this file took.
    pub seconds: f64,
    /// Rows per dataset.
    pub rows: BTreeMap<String, u64>,
    /// Per decoded-event dataset, the logs with one of its event signatures but not the event's shape (wrong
    /// topic count or data length, ABI offsets out of bounds, ...), which gave no row; datasets that met none are
    /// not listed. Empty for a file skipped as complete.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub skipped_lookalikes: BTreeMap<String, u64>,
    /// Per token dataset, the [EIP-7708](https://eips.ethereum.org/EIPS/eip-7708) ETH-transfer logs (Amsterdam
    /// on: emitted by `SYSTEM_ADDRESS` in an ERC-20 `Transfer`'s shape) it set aside as ETH, not a token;
    /// `native_transfers` holds them. Datasets that met none are not listed.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub skipped_eth_transfer_logs: BTreeMap<String, u64>,
    /// Outputs written, relative to the output directory.
    pub outputs: Vec<String>,
    /// Why the file failed: file, offset, block and expected against found where known.
    pub errors: Vec<OutcomeError>,
    /// Whether every block of the file was proven to be the canonical chain (execution files; `None`: not all
    /// could be, or not checked, as when the outputs were already complete).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub canonical: Option<bool>,
    /// Not exported because another input of the run holds the same blocks and gives their rows (an era1 and an
    /// ere file of one era: see `docs/schema.md`, "Which archive gives which rows").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub same_blocks_as: Option<String>,
    /// Skipped as complete: how the input and its outputs were proven unchanged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proof: Option<Proof>,
}

/// How a source skipped as complete was proven unchanged since its completion records were written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Proof {
    /// The input: its sha256 kept by file identity (`stat`), computed (`sha256`), published by its mirror
    /// (`published`), or its name (`name`).
    pub input: super::hash_cache::InputProof,
    /// Its outputs: their size and modification time (`size+mtime`) or ETag (`etag`), their hash (`sha256`),
    /// or none to prove (`none`); the most costly any needed.
    pub outputs: crate::store::output::OutputProof,
}

impl FileOutcome {
    /// 0 when the file was done, else the worst of its errors ([`OutcomeError::exit_status`]; 1 for a failure
    /// that names no error).
    pub fn exit_status(&self) -> crate::error::ExitStatus {
        use crate::error::ExitStatus;
        if self.ok {
            return ExitStatus::Ok;
        }
        self.errors
            .iter()
            .map(OutcomeError::exit_status)
            .max()
            .unwrap_or(ExitStatus::DataErrors)
    }
}

/// Every live bar, drawn together; log lines are written between redraws ([`suspend_bars`]) so a bar never
/// freezes under a log line or breaks one.
static BARS: std::sync::LazyLock<indicatif::MultiProgress> =
    std::sync::LazyLock::new(indicatif::MultiProgress::new);

/// Whether [`Progress::new`] may draw bars (on a terminal): off with `--quiet`.
static SHOW_BARS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Turns progress bars on or off for the whole process.
pub fn show_progress_bars(on: bool) {
    SHOW_BARS.store(on, Ordering::Relaxed);
}

/// Runs `f` (which writes to stderr) with the progress bars cleared, then redraws them.
pub fn suspend_bars<R>(f: impl FnOnce() -> R) -> R {
    BARS.suspend(f)
}

/// A rate as people read it: whole blocks per second, thousands as `k` (indicatif's `{per_sec}` prints four
/// decimals and no unit).
pub fn rate_text(blocks_per_second: f64) -> String {
    if !blocks_per_second.is_finite() || blocks_per_second <= 0.0 {
        "- blocks/s".into()
    } else if blocks_per_second >= 10_000.0 {
        format!("{:.1}k blocks/s", blocks_per_second / 1000.0)
    } else {
        format!("{blocks_per_second:.0} blocks/s")
    }
}

/// The bar's look: `verify: 4 files [=====>    ] 8192/32768 blocks 12000 txs (5321 blocks/s, eta 5s)`.
fn bar_style() -> indicatif::ProgressStyle {
    indicatif::ProgressStyle::with_template(
        "{prefix} [{bar:30}] {pos}/{len} blocks {msg} ({rate}, eta {eta})",
    )
    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
    .with_key(
        "rate",
        |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
            let _ = w.write_str(&rate_text(s.per_sec()));
        },
    )
    .progress_chars("=> ")
}

/// Live progress: an indicatif bar when stderr is a terminal, `tracing` events otherwise.
pub struct Progress {
    bar: Option<indicatif::ProgressBar>,
    /// No bar and no log events (library callers, tests, benchmarks).
    silent: bool,
    blocks: AtomicU64,
    txs: AtomicU64,
    started: Instant,
}

impl Progress {
    /// Progress over `total_blocks` blocks in `files` files.
    pub fn new(stage: &str, files: usize, total_blocks: u64) -> Progress {
        let show = SHOW_BARS.load(Ordering::Relaxed) && std::io::stderr().is_terminal();
        let bar = show.then(|| {
            let b = BARS.add(indicatif::ProgressBar::new(total_blocks));
            b.set_style(bar_style());
            b.set_prefix(format!("{stage}: {files} files"));
            b
        });
        tracing::info!(stage, files, total_blocks, "starting");
        Progress {
            bar,
            silent: false,
            blocks: AtomicU64::new(0),
            txs: AtomicU64::new(0),
            started: Instant::now(),
        }
    }

    /// A progress that shows nothing (tests, library use).
    pub fn hidden() -> Progress {
        Progress {
            bar: None,
            silent: true,
            blocks: AtomicU64::new(0),
            txs: AtomicU64::new(0),
            started: Instant::now(),
        }
    }

    /// Counts processed blocks and transactions.
    pub fn advance(&self, blocks: u64, txs: u64) {
        self.blocks.fetch_add(blocks, Ordering::Relaxed);
        let t = self.txs.fetch_add(txs, Ordering::Relaxed) + txs;
        if let Some(b) = &self.bar {
            b.inc(blocks);
            b.set_message(format!("{t} txs"));
        }
    }

    /// Adds blocks to the total (files whose size is known only once they arrive: remote inputs).
    pub fn add_total(&self, blocks: u64) {
        if let Some(b) = &self.bar {
            b.inc_length(blocks);
        }
    }

    /// Reports a finished file.
    pub fn file_done(&self, o: &FileOutcome) {
        if self.silent {
            return;
        }
        if let Some(b) = &self.bar {
            if o.skipped {
                b.inc(o.blocks);
            }
            let status = if o.skipped {
                "skipped (complete)"
            } else if o.ok {
                "ok"
            } else {
                "FAILED"
            };
            b.println(format!("{status}: {}", o.file));
        } else if o.ok {
            tracing::info!(file = %o.file, skipped = o.skipped, blocks = o.blocks, transactions = o.transactions, "file done");
        } else {
            // Rendered as the report renders them (`file: at byte offset …: expected …, found …`), not as
            // the errors' Debug form.
            let errors: Vec<String> = o.errors.iter().map(|e| crate::error::render(e)).collect();
            tracing::error!(file = %o.file, errors = %errors.join("; "), "file failed");
        }
    }

    /// Ends the bar.
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
            BARS.remove(b);
        }
    }

    /// Seconds since start.
    pub fn elapsed(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    /// A terminal that records what a bar draws.
    #[derive(Debug, Clone, Default)]
    struct Recorder(std::sync::Arc<std::sync::Mutex<String>>);

    impl indicatif::TermLike for Recorder {
        fn width(&self) -> u16 {
            200
        }
        fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn write_line(&self, s: &str) -> std::io::Result<()> {
            self.0.lock().unwrap().push_str(&format!("{s}\n"));
            Ok(())
        }
        fn write_str(&self, s: &str) -> std::io::Result<()> {
            self.0.lock().unwrap().push_str(s);
            Ok(())
        }
        fn clear_line(&self) -> std::io::Result<()> {
            Ok(())
        }
        fn flush(&self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_bar_shows_a_whole_rate_with_its_unit() {
        let term = Recorder::default();
        let bar = indicatif::ProgressBar::with_draw_target(
            Some(10_000),
            indicatif::ProgressDrawTarget::term_like(Box::new(term.clone())),
        );
        bar.set_style(super::bar_style());
        std::thread::sleep(Duration::from_millis(50));
        bar.inc(3_000);
        bar.abandon();
        let drawn = term.0.lock().unwrap().clone();
        assert!(drawn.contains("3000/10000 blocks"), "{drawn}");
        let rate = drawn
            .split('(')
            .nth(1)
            .and_then(|s| s.split(',').next())
            .unwrap_or_default()
            .to_string();
        assert!(rate.ends_with(" blocks/s"), "rate '{rate}' in: {drawn}");
        assert!(
            !rate.contains('.') || rate.contains('k'),
            "rate '{rate}' in: {drawn}"
        );
        assert_eq!(super::rate_text(1234.5678), "1235 blocks/s");
        assert_eq!(super::rate_text(45_678.9), "45.7k blocks/s");
    }
}
