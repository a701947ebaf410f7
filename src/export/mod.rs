//! The export stage: verify each era1, ere or era file and, in the same decoding pass, build every selected dataset;
//! a file's Parquet outputs appear only if the whole file verified. Files are processed one after another,
//! each split across all threads, so memory is bounded by one window of block chunks whatever the number of
//! files.
//!
//! Output names: an era1 file's are named by its execution block range, an era file's by its era number and
//! slot range (pre-merge era files have no execution blocks, so a block range could not tell them apart); see
//! [`crate::sink::names`].
//!
//! The stage in four parts: the plan (which input gives which rows), the visitor (one builder per
//! dataset per chunk of blocks), the [`Exporter`] (one source at a time: verify, write, commit, record) and
//! [`progress`] (outcomes and bars).

mod exporter;
pub mod hash_cache;
mod plan;
pub mod progress;
mod visitor;

pub use exporter::Exporter;
pub(crate) use plan::SourcePlan;
pub(crate) use visitor::{ExportChunk, ExportVisitor};

use crate::crypto::signer::{Signer, SignerBackend, SignerError};
use crate::datasets::Dataset;
use crate::network::Network;
use crate::sink::parquet::{ParquetOptions, SinkError};
use crate::store::delta::TableFormat;
use crate::store::output::{OutputStore, StoreError};
use crate::store::url::RemoteUrl;
use progress::{FileOutcome, Progress};
use std::path::{Path, PathBuf};

/// What to export and how.
#[derive(Clone)]
pub struct ExportOptions {
    /// Output directory.
    pub out: PathBuf,
    /// The datasets to write, in order.
    pub datasets: Vec<&'static dyn Dataset>,
    /// Recover senders (`from_address`); off leaves the column null and never touches the signer.
    pub senders: bool,
    /// The secp256k1 implementation [`export`] builds the process signer with, when it builds it.
    pub signer_backend: SignerBackend,
    /// The signer senders are recovered with; `None`: the process signer, initialised by [`export`]. Set only
    /// to compare signers side by side in one process (`eraflow bench`); jobs leave it `None`.
    pub signer: Option<&'static Signer>,
    /// Network override; default from each file name.
    pub network: Option<Network>,
    /// Redo outputs even when the manifest proves them complete.
    pub overwrite: bool,
    /// Prove complete sources by their full contents: every input hashed (not taken from the kept hashes) and
    /// every output read back and hashed (not proven by its size and modification time or ETag).
    pub verify_outputs: bool,
    /// Where the sha256 of local inputs is kept by file identity ([`hash_cache`]); `None`: every input
    /// is hashed every run.
    pub input_hashes: Option<PathBuf>,
    /// After the export, remove the Parquet files under the dataset folders that no completion record lists
    /// (local outputs); without it they are only named in the run report.
    pub clean_stale: bool,
    /// How the Parquet files are encoded.
    pub parquet: ParquetOptions,
    /// Plain Parquet folders, or a Delta Lake table per dataset over the same files.
    pub table_format: TableFormat,
}

/// Why the export could not run at all (per-file failures are in the outcomes instead).
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The dataset list is empty.
    #[error("no datasets selected")]
    NoDatasets,
    /// A dataset needs recovered senders (`contracts`' deployer) but senders are off.
    #[error("dataset {0} needs senders (its deployer is the recovered sender): drop --no-senders (senders = false) or the dataset")]
    NeedsSenders(&'static str),
    /// The output directory cannot be created.
    #[error("{}", .path.display())]
    Out {
        /// The output directory.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The Parquet options are unusable.
    #[error(transparent)]
    Parquet(#[from] SinkError),
    /// The signature algorithm cannot be set up for senders.
    #[error("recovering senders")]
    Signer(#[from] SignerError),
    /// The output store could not be opened, or its manifest not rebuilt from the completion records.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl ExportOptions {
    /// `datasets` into `out` with every other option at its library default: no senders, the default signer
    /// backend and Parquet settings, no overwrite, proofs from metadata, no kept input hashes, stale files only
    /// named. Jobs resolve their own (`configs/default.toml`); this is for library callers, benches and tests.
    pub fn new(out: PathBuf, datasets: Vec<&'static dyn Dataset>) -> ExportOptions {
        ExportOptions {
            out,
            datasets,
            senders: false,
            signer_backend: SignerBackend::default(),
            signer: None,
            network: None,
            overwrite: false,
            verify_outputs: false,
            input_hashes: None,
            clean_stale: false,
            parquet: ParquetOptions::default(),
            table_format: TableFormat::Parquet,
        }
    }

    /// Whether senders are recovered for `datasets`: asked for, and some dataset has a column for them.
    pub(crate) fn recovers_senders(&self, datasets: &[&'static dyn Dataset]) -> bool {
        self.senders && datasets.iter().any(|d| d.uses_senders())
    }

    /// A fingerprint of everything that changes a dataset's output bytes: a rerun with other options redoes
    /// that dataset's files (and only the datasets it changes: adding a dataset leaves the others complete).
    fn fingerprint(&self, dataset: &dyn Dataset) -> String {
        let mut f = format!(
            "dataset={};senders={};compression={}:{};row_group={};schema={}",
            dataset.name(),
            self.senders,
            self.parquet.compression.name(),
            self.parquet.compression_level,
            self.parquet.row_group_size,
            crate::datasets::SCHEMA_VERSION
        );
        // Only decoded events have one, so the built-in datasets' fingerprints (and completed outputs) stay.
        if let Some(d) = dataset.definition() {
            f.push_str(";definition=");
            f.push_str(d);
        }
        // A source completed as plain files is not in any table: switching an output to Delta redoes (and
        // commits) its sources. Plain outputs keep their fingerprints.
        if self.table_format == TableFormat::Delta {
            f.push_str(";table=delta");
        }
        f
    }
}

/// Exports every file into the local directory `opts.out`; returns one outcome per file, in input order.
pub fn export(
    paths: &[PathBuf],
    opts: &ExportOptions,
    progress: &Progress,
) -> Result<Vec<FileOutcome>, ExportError> {
    export_to(paths, opts, None, progress)
}

/// Exports every file into `remote` when given (`opts.out` is then the local staging directory outputs are
/// written to before they are uploaded), else into the local directory `opts.out`.
pub fn export_to(
    paths: &[PathBuf],
    opts: &ExportOptions,
    remote: Option<&RemoteUrl>,
    progress: &Progress,
) -> Result<Vec<FileOutcome>, ExportError> {
    let exporter = Exporter::new(opts, remote, paths)?;
    let mut outcomes = Vec::with_capacity(paths.len());
    for path in paths {
        if crate::util::interrupt::requested().is_some() {
            break; // a signal asked the run to stop: no new file
        }
        let outcome = exporter.file(path, progress);
        progress.file_done(&outcome);
        outcomes.push(outcome);
    }
    exporter.finish()?;
    Ok(outcomes)
}

/// Parquet files of a local output that no completion record lists, found after an export that began at
/// `started` (every dataset folder, not only the selected ones: a narrower rerun leaves the others' files), and
/// whether they were removed (`clean_stale`). Files another writer is publishing now are never among them.
pub fn stale_outputs(opts: &ExportOptions, started: std::time::SystemTime) -> (Vec<String>, bool) {
    let dir = OutputStore::local(&opts.out);
    let stale = dir.unlisted_outputs(crate::datasets::ALL.iter().map(|d| d.name()), started);
    if !opts.clean_stale || stale.is_empty() {
        return (stale, false);
    }
    let mut all = true;
    for rel in &stale {
        if let Err(e) = std::fs::remove_file(opts.out.join(rel)) {
            tracing::warn!(file = %opts.out.join(rel).display(), error = %e, "could not remove a stale output");
            all = false;
        }
    }
    (stale, all)
}

/// The network of a file: the explicit one, else the one its name names.
pub(crate) fn network_of(path: &Path, explicit: Option<&Network>) -> Option<Network> {
    if let Some(n) = explicit {
        return Some(n.clone());
    }
    let name = crate::formats::ArchiveName::of_path(path)?;
    Network::by_name(&name.network).ok()
}

#[cfg(test)]
mod seam_tests;
