//! The export stage: verify each era1, ere or era file and, in the same decoding pass, build every selected dataset;
//! a file's Parquet outputs appear only if the whole file verified. Files are processed one after another,
//! each split across all threads, so memory is bounded by one window of block chunks whatever the number of
//! files.
//!
//! Output names: an era1 file's are named by its execution block range, an era file's by its era number and
//! slot range (pre-merge era files have no execution blocks, so a block range could not tell them apart); see
//! [`crate::sink::names`].

use super::hash_cache::{HashCache, InputProof, Stamp};
use super::report::{FileOutcome, OutcomeError, Progress, Proof};
use crate::crypto::signer::{Signer, SignerBackend, SignerError};
use crate::datasets::{Dataset, DatasetBuilder, DatasetError, ExportContext};
use crate::formats::execution::BLOCKS_PER_ERA;
use crate::formats::{Archive, ArchiveKind};
use crate::network::Network;
use crate::sink::manifest::{self, CompletionRecord, OutputEntry};
use crate::sink::names::{era_output_path, era_slot_range, output_path};
use crate::sink::parquet::{FileLayout, ParquetOptions, ParquetSink, SinkError};
use crate::store::output::{Check, OutputProof, OutputStore, StoreError};
use crate::store::url::RemoteUrl;
use crate::verify::era::{BeaconVisitor, VerifiedBeaconBlock, VerifiedState};
use crate::verify::execution::{BlockVisitor, VerifiedBlock, VerifyOptions};
use crate::verify::report::FileReport;
use std::path::{Path, PathBuf};
use std::time::Instant;

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
    /// Where the sha256 of local inputs is kept by file identity ([`super::hash_cache`]); `None`: every input
    /// is hashed every run.
    pub input_hashes: Option<PathBuf>,
    /// After the export, remove the Parquet files under the dataset folders that no completion record lists
    /// (local outputs); without it they are only named in the run report.
    pub clean_stale: bool,
    /// How the Parquet files are encoded.
    pub parquet: ParquetOptions,
}

/// Why the export could not run at all (per-file failures are in the outcomes instead).
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The dataset list is empty.
    #[error("no datasets selected")]
    NoDatasets,
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
    /// A fingerprint of everything that changes a dataset's output bytes: a rerun with other options redoes
    /// that dataset's files (and only the datasets it changes: adding a dataset leaves the others complete).
    fn fingerprint(&self, dataset: &dyn Dataset) -> String {
        format!(
            "dataset={};senders={};compression={}:{};row_group={};schema={}",
            dataset.name(),
            self.senders,
            self.parquet.compression.name(),
            self.parquet.compression_level,
            self.parquet.row_group_size,
            crate::datasets::SCHEMA_VERSION
        )
    }
}

/// Which input gives which rows when inputs of one run hold the same blocks, decided from file names alone (so
/// remote files not fetched yet are planned like local ones), the same way every run:
///
/// - execution files of one network and era of different kinds or profiles (an era1 and an ere file, or ere
///   files of two profiles) hold the same blocks: only those of the first kind with receipts are exported, the
///   others are not read ([`FileOutcome::same_blocks_as`]): ere (default profile, then `noproofs`), then era1,
///   then ere without receipts;
/// - when a network's ere files in the run reach past the merge, its era files give the beacon-chain datasets
///   only: `blocks`, `transactions` and `withdrawals` of post-merge blocks come from the ere files, which carry
///   receipts (and so `gas_used`, `success` and logs) that era files lack.
#[derive(Debug, Default)]
pub(crate) struct SourcePlan {
    /// Execution inputs left out, by file name: the name of the input of the same blocks that is exported.
    same_blocks: std::collections::HashMap<String, String>,
    /// Networks whose era files give no execution rows in this run.
    execution_from_ere: std::collections::BTreeSet<String>,
}

impl SourcePlan {
    /// Plans `names` (paths or URLs; only their file names are read), each on `network` or the one its name names.
    pub(crate) fn new(names: &[PathBuf], network: Option<&Network>) -> SourcePlan {
        use crate::formats::ArchiveName;
        let mut plan = SourcePlan::default();
        let mut by_era: std::collections::BTreeMap<(String, u64), Vec<(u8, String)>> =
            Default::default();
        for p in names {
            let Some(file) = p.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            let Ok(name) = ArchiveName::parse(file) else {
                continue;
            };
            let net_name = network.map_or(name.network.clone(), |n| n.name.clone());
            let rank = match (name.kind, name.profile.no_receipts, name.profile.no_proofs) {
                (ArchiveKind::Ere, false, false) => 0,
                (ArchiveKind::Ere, false, true) => 1,
                (ArchiveKind::Era1, _, _) => 2,
                (ArchiveKind::Ere, true, _) => 3,
                (ArchiveKind::Era, _, _) => continue,
            };
            if name.kind == ArchiveKind::Ere && !name.profile.no_receipts {
                let first_pos = network
                    .cloned()
                    .or_else(|| Network::by_name(&name.network).ok())
                    .map(|n| n.first_pos_block);
                let last = name.era.saturating_mul(BLOCKS_PER_ERA) + BLOCKS_PER_ERA - 1;
                if first_pos.is_some_and(|f| last >= f) {
                    plan.execution_from_ere.insert(net_name.clone());
                }
            }
            by_era
                .entry((net_name, name.era))
                .or_default()
                .push((rank, file.to_string()));
        }
        // Files of the same kind and profile in one era are different chains (or a partial file beside a full
        // one), exported as before; only other kinds and profiles of the era step aside for the best one.
        for (_, mut files) in by_era {
            files.sort();
            let Some((best, kept)) = files.first().cloned() else {
                continue;
            };
            for (rank, other) in files {
                if rank != best {
                    plan.same_blocks.insert(other, kept.clone());
                }
            }
        }
        plan
    }

    /// The input exported instead of `source`, when `source` holds blocks another input gives.
    pub(crate) fn same_blocks_as(&self, source: &str) -> Option<&str> {
        self.same_blocks.get(source).map(String::as_str)
    }

    /// Whether `dataset` takes rows from `source` (of `kind`, on `network`): not an execution dataset of an era
    /// file when the run's ere files give that network's post-merge execution rows.
    fn gives(&self, kind: ArchiveKind, network: &str, dataset: &dyn Dataset) -> bool {
        dataset.sources().contains(&kind)
            && !(kind == ArchiveKind::Era
                && dataset.sources().contains(&ArchiveKind::Ere)
                && self.execution_from_ere.contains(network))
    }

    /// What the plan adds to a dataset's fingerprint for `source`: an era file whose execution rows come from
    /// ere files instead is complete without them, and redone (to drop them) when that changes.
    fn fingerprint(
        &self,
        source: &str,
        network: Option<&Network>,
        dataset: &dyn Dataset,
    ) -> String {
        let Some(name) = crate::formats::ArchiveName::parse(source).ok() else {
            return String::new();
        };
        let net = network.map_or(name.network.as_str(), |n| n.name.as_str());
        if name.kind == ArchiveKind::Era && !self.gives(name.kind, net, dataset) {
            ";execution_rows=ere".into()
        } else {
            String::new()
        }
    }
}

/// The visitor that fills one builder per dataset per chunk (era1 blocks, or era beacon blocks).
pub(crate) struct ExportVisitor<'a> {
    pub(crate) datasets: &'a [&'static dyn Dataset],
    pub(crate) ctx: ExportContext,
}

impl BlockVisitor for ExportVisitor<'_> {
    type Chunk = (u64, u64, Vec<Box<dyn DatasetBuilder>>);
    fn start_chunk(&self, _: u64) -> Self::Chunk {
        (
            0,
            0,
            self.datasets.iter().map(|d| d.builder(self.ctx)).collect(),
        )
    }
    fn visit(&self, chunk: &mut Self::Chunk, block: &VerifiedBlock<'_>) {
        chunk.0 += 1;
        chunk.1 += block.transactions.len() as u64;
        for b in &mut chunk.2 {
            b.add_block(block);
        }
    }
}

/// What one chunk of an era file's slots produced: beacon blocks, transactions, one builder per dataset, and
/// the first dataset error (which discards the file's outputs).
pub(crate) struct EraChunk {
    pub(crate) blocks: u64,
    pub(crate) transactions: u64,
    pub(crate) builders: Vec<Box<dyn DatasetBuilder>>,
    pub(crate) error: Option<DatasetError>,
}

impl BeaconVisitor for ExportVisitor<'_> {
    type Chunk = EraChunk;
    fn start_chunk(&self, _: u64) -> EraChunk {
        EraChunk {
            blocks: 0,
            transactions: 0,
            builders: self.datasets.iter().map(|d| d.builder(self.ctx)).collect(),
            error: None,
        }
    }
    fn visit(&self, chunk: &mut EraChunk, block: &VerifiedBeaconBlock<'_>) {
        chunk.blocks += 1;
        chunk.transactions += block
            .execution
            .as_ref()
            .map_or(0, |x| x.transactions.len() as u64);
        for b in &mut chunk.builders {
            if let Err(e) = b.add_beacon_block(block) {
                chunk.error.get_or_insert(e);
            }
        }
    }
    fn wants_state(&self) -> bool {
        self.datasets.iter().any(|d| d.reads_state())
    }
    /// The registry in chunks of [`STATE_CHUNK`] validators, each written before the next is read, so a
    /// 2-million-validator state never has its rows in memory at once.
    fn visit_state(&self, state: &VerifiedState<'_>, emit: &mut dyn FnMut(EraChunk)) {
        let n = state.registry.len();
        for start in (0..n).step_by(STATE_CHUNK) {
            let mut chunk = BeaconVisitor::start_chunk(self, state.slot);
            for (b, d) in chunk.builders.iter_mut().zip(self.datasets) {
                if !d.reads_state() {
                    continue;
                }
                if let Err(e) = b.add_state(state, start..(start + STATE_CHUNK).min(n)) {
                    chunk.error.get_or_insert(e);
                }
            }
            emit(chunk);
        }
    }
}

/// Validators per chunk of a state dataset: ~3 MiB of builder memory, a few per row group.
const STATE_CHUNK: usize = 1 << 15;

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
        if super::interrupt::requested().is_some() {
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

/// An export under way: the output store opened once, then files exported one at a time as the caller has
/// them (local files, or remote ones as they arrive in the cache), then the manifest rebuilt by
/// [`Exporter::finish`].
pub struct Exporter<'a> {
    opts: &'a ExportOptions,
    store: OutputStore,
    needs_receipts: bool,
    plan: SourcePlan,
    hashes: Option<HashCache>,
}

impl<'a> Exporter<'a> {
    /// Checks the options, creates the output (staging) directory, opens the store, and initialises the
    /// process signer when senders are exported (its algorithm from the network, else from the networks
    /// `names` name; only file names are read, so remote files not fetched yet can be named).
    pub fn new(
        opts: &'a ExportOptions,
        remote: Option<&RemoteUrl>,
        names: &[PathBuf],
    ) -> Result<Exporter<'a>, ExportError> {
        if opts.datasets.is_empty() {
            return Err(ExportError::NoDatasets);
        }
        opts.parquet.validate()?;
        std::fs::create_dir_all(&opts.out).map_err(|source| ExportError::Out {
            path: opts.out.clone(),
            source,
        })?;
        if opts.senders && opts.signer.is_none() {
            // One algorithm per process, chosen before any worker starts.
            super::job::init_signer(None, opts.signer_backend, opts.network.as_ref(), names)?;
        }
        // Every dataset's folder, not only the selected ones: a narrower rerun cleans what a wider one left.
        let dirs: Vec<&str> = crate::datasets::ALL.iter().map(|d| d.name()).collect();
        let store = OutputStore::open(&opts.out, remote, &dirs)?;
        Ok(Exporter {
            opts,
            store,
            needs_receipts: opts.datasets.iter().any(|d| d.needs_receipts()),
            plan: SourcePlan::new(names, opts.network.as_ref()),
            hashes: match opts.verify_outputs {
                true => None,
                false => opts.input_hashes.as_deref().map(HashCache::new),
            },
        })
    }

    /// Verifies and exports one file (or skips it when its records prove every dataset complete, or when
    /// another input of the run gives its blocks' rows).
    pub fn file(&self, path: &Path, progress: &Progress) -> FileOutcome {
        self.file_with(path, progress, self.hashes.as_ref())
    }

    /// [`Exporter::file`] for a remote file fetched into the cache: its hash is not kept (the copy leaves the
    /// cache; a rerun proves the source by its published sha256 or name, without fetching it).
    pub fn fetched_file(&self, path: &Path, progress: &Progress) -> FileOutcome {
        self.file_with(path, progress, None)
    }

    /// [`Exporter::file`] with the input hashes kept in `hashes` (none: hash the file).
    fn file_with(
        &self,
        path: &Path,
        progress: &Progress,
        hashes: Option<&HashCache>,
    ) -> FileOutcome {
        let source = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if let Some(other) = self.plan.same_blocks_as(&source) {
            return self.same_blocks(path.display().to_string(), other);
        }
        export_one(path, self, progress, hashes)
    }

    /// The outcome of an input left out because `other` holds the same blocks and is exported instead.
    fn same_blocks(&self, file: String, other: &str) -> FileOutcome {
        FileOutcome {
            file,
            ok: true,
            skipped: true,
            same_blocks_as: Some(other.to_string()),
            ..Default::default()
        }
    }

    /// The fingerprint of `dataset`'s output from `source`: the options that shape its bytes, and which rows
    /// the run's plan gives it.
    fn fingerprint(&self, source: &str, dataset: &dyn Dataset) -> String {
        format!(
            "{}{}",
            self.opts.fingerprint(dataset),
            self.plan
                .fingerprint(source, self.opts.network.as_ref(), dataset)
        )
    }

    /// How thoroughly completion records are checked: from metadata, or (`verify_outputs`) by contents.
    fn check(&self) -> Check {
        match self.opts.verify_outputs {
            true => Check::Full,
            false => Check::Listed,
        }
    }

    /// The records of `source`, made from bytes with sha256 `sha256`, when they prove every dataset complete,
    /// and how their outputs were proven (the most costly proof any needed).
    fn proven(
        &self,
        source: &str,
        sha256: Option<&str>,
    ) -> Result<Option<(Vec<CompletionRecord>, OutputProof)>, StoreError> {
        let mut done = Vec::with_capacity(self.opts.datasets.len());
        let mut proof = OutputProof::None;
        for &d in &self.opts.datasets {
            let options = self.fingerprint(source, d);
            match self
                .store
                .complete_by_name(source, d.name(), sha256, &options, self.check())?
            {
                Some(p) => {
                    proof = proof.max(p.output);
                    done.push(p.record);
                }
                None => return Ok(None),
            }
        }
        Ok(Some((done, proof)))
    }

    /// The outcome of a source skipped without reading it, when the records of the file named `source`
    /// prove every dataset complete: made from bytes with sha256 `sha256` when the mirror publishes one, else
    /// from whatever bytes the records name (an archive's canonical name carries its root, so a name stands
    /// for its contents). `None` when something is left to make, or with `--overwrite`.
    pub fn complete_by_name(
        &self,
        source: &str,
        sha256: Option<&str>,
    ) -> Result<Option<FileOutcome>, StoreError> {
        if let Some(other) = self.plan.same_blocks_as(source) {
            return Ok(Some(self.same_blocks(source.to_string(), other)));
        }
        if self.opts.overwrite {
            return Ok(None);
        }
        let Some((done, outputs)) = self.proven(source, sha256)? else {
            return Ok(None);
        };
        let input = match sha256 {
            Some(_) => InputProof::Published,
            None => InputProof::Name,
        };
        // Blocks as a local skip counts them where the records tell (an execution file's block range).
        let blocks = done
            .first()
            .filter(|r| r.kind != ArchiveKind::Era.extension())
            .map_or(0, |r| r.last_block.saturating_sub(r.first_block) + 1);
        Ok(Some(FileOutcome {
            file: source.to_string(),
            ok: true,
            skipped: true,
            blocks,
            outputs: done
                .into_iter()
                .filter_map(|r| r.output)
                .map(|o| o.path)
                .collect(),
            proof: Some(Proof { input, outputs }),
            ..Default::default()
        }))
    }

    /// Rebuilds the manifest: the aggregate of every record, including those of writers that ran beside this
    /// one.
    pub fn finish(self) -> Result<(), ExportError> {
        self.store.rebuild_manifest()?;
        Ok(())
    }
}

/// The network of a file: the explicit one, else the one its name names.
pub(crate) fn network_of(path: &Path, explicit: Option<&Network>) -> Option<Network> {
    if let Some(n) = explicit {
        return Some(n.clone());
    }
    let name = crate::formats::ArchiveName::of_path(path)?;
    Network::by_name(&name.network).ok()
}

fn export_one(
    path: &Path,
    exporter: &Exporter<'_>,
    progress: &Progress,
    hashes: Option<&HashCache>,
) -> FileOutcome {
    let (opts, store) = (exporter.opts, &exporter.store);
    let started = Instant::now();
    let source = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut outcome = FileOutcome {
        file: path.display().to_string(),
        ..Default::default()
    };
    // The file's stamp before anything is read: what its hash is kept under once its bytes verified.
    let stamp = hashes.and_then(|_| Stamp::of_path(path));
    let skipped = |mut outcome: FileOutcome, done: Vec<CompletionRecord>, proof, blocks| {
        outcome.skipped = true;
        outcome.ok = true;
        outcome.blocks = blocks;
        outcome.outputs = done
            .into_iter()
            .filter_map(|r| r.output)
            .map(|o| o.path)
            .collect();
        outcome.proof = Some(proof);
        outcome
    };
    // An input unchanged since it was hashed, whose records and outputs prove every dataset complete from
    // their metadata: nothing of it, or of its outputs, is read (its index only, for the block count).
    if !opts.overwrite {
        if let Some(sha) = hashes.and_then(|h| h.get(path)) {
            match exporter.proven(&source, Some(&sha)) {
                Ok(Some((done, outputs))) => {
                    let blocks = Archive::open(path).map_or(0, |a| a.block_count());
                    let proof = Proof {
                        input: InputProof::Stat,
                        outputs,
                    };
                    return skipped(outcome, done, proof, blocks);
                }
                Ok(None) => {}
                Err(e) => {
                    outcome.errors.push(e.into());
                    return outcome;
                }
            }
        }
    }
    let file = match Archive::open(path) {
        Ok(f) => f,
        Err(e) => {
            outcome.errors.push(e.into());
            return outcome;
        }
    };
    let sha = hex::encode(crate::crypto::sha256::sha256(file.bytes()));
    // Completeness is per dataset: only the datasets without a record proving their output are made.
    let mut pending: Vec<&'static dyn Dataset> = Vec::new();
    let mut done: Vec<CompletionRecord> = Vec::new();
    let mut outputs = OutputProof::None;
    for &d in &opts.datasets {
        if opts.overwrite {
            pending.push(d);
            continue;
        }
        let options = exporter.fingerprint(&source, d);
        match store.complete(&source, d.name(), &sha, &options, exporter.check()) {
            Ok(Some(p)) => {
                outputs = outputs.max(p.output);
                done.push(p.record);
            }
            Ok(None) => pending.push(d),
            Err(e) => {
                outcome.errors.push(e.into());
                return outcome;
            }
        }
    }
    if pending.is_empty() {
        // These bytes verified when their records were written: their hash is kept for the next run.
        if let (Some(h), Some(s)) = (hashes, &stamp) {
            h.put(path, s, &sha);
        }
        let proof = Proof {
            input: InputProof::Hashed,
            outputs,
        };
        return skipped(outcome, done, proof, file.block_count());
    }
    let Some(network) = network_of(path, opts.network.as_ref()) else {
        outcome
            .errors
            .push(OutcomeError::UnknownNetwork(path.to_path_buf()));
        return outcome;
    };
    // Only datasets this kind of archive can fill get a file (no era1 withdrawals, no era logs), and an era file
    // no execution rows the run's ere files give.
    let kind = file.kind();
    let datasets: Vec<&'static dyn Dataset> = pending
        .iter()
        .copied()
        .filter(|d| exporter.plan.gives(kind, &network.name, *d))
        .collect();
    let mut sinks = Vec::with_capacity(datasets.len());
    for d in &datasets {
        let rel = match &file {
            Archive::Execution(f) => {
                output_path(d.name(), &network.name, f.first_block(), f.last_block())
            }
            Archive::Era(f) => era_output_path(d.name(), &network.name, f.era()),
        };
        // Facts about where the rows came from, never where the file was read from (its path or URL), so the
        // same archive gives the same bytes wherever it is.
        let layout = FileLayout {
            schema: d.schema(),
            sort_columns: d.sort_columns(),
            dictionary_columns: d.dictionary_columns(),
            repeated_columns: d.repeated_columns(),
            delta_columns: d.delta_columns(),
            metadata: vec![
                ("eraflow.version".into(), env!("CARGO_PKG_VERSION").into()),
                (
                    "eraflow.schema_version".into(),
                    crate::datasets::SCHEMA_VERSION.to_string(),
                ),
                ("eraflow.dataset".into(), d.name().into()),
                ("eraflow.network".into(), network.name.clone()),
                ("eraflow.chain_id".into(), network.chain_id.to_string()),
                ("eraflow.source".into(), source.clone()),
                ("eraflow.source_sha256".into(), sha.clone()),
            ],
        };
        match ParquetSink::create_dataset(&opts.out.join(&rel), &layout, &opts.parquet) {
            Ok(s) => sinks.push((rel, s)),
            Err(e) => {
                outcome.errors.push(e.into());
                return outcome;
            }
        }
    }
    // The signer only when senders are exported (then `export` initialised it before any worker started).
    let signer = if opts.senders {
        match opts.signer.map_or_else(crate::crypto::signer::global, Ok) {
            Ok(s) => Some(s),
            Err(e) => {
                outcome.errors.push(OutcomeError::Signer {
                    path: path.to_path_buf(),
                    source: e,
                });
                return outcome;
            }
        }
    } else {
        None
    };
    let visitor = ExportVisitor {
        datasets: &datasets,
        ctx: ExportContext {
            chain_id: network.chain_id,
            signer,
        },
    };
    let vopts = VerifyOptions {
        network: Some(network.clone()),
        checksum: false,
        senders: opts.senders,
        skip_receipts: !exporter.needs_receipts,
        signer,
        trusted_states: None,
        historical_summaries: None,
        accumulator: None,
    };
    let mut sink_error: Option<OutcomeError> = None;
    // Empty chunks of an era file (runs of empty slots) add nothing; skipping them keeps files independent of
    // how slots fall into chunks. era1 chunks are written as always.
    let skip_empty = kind == ArchiveKind::Era;
    // The checksum recorded in the manifest was read from this same map before verification, which ends by
    // checking that the file has not changed since it was mapped.
    let (report, first, last, slots) = match &file {
        Archive::Execution(f) => {
            // The map the sha256 was read from: one map of the file, so its pages count once in RSS.
            let report = crate::verify::execution::verify_opened_with(
                f,
                &vopts,
                &visitor,
                |(blocks, txs, builders)| {
                    progress.advance(blocks, txs);
                    if sink_error.is_none() {
                        sink_error = write_chunk(&mut sinks, builders, skip_empty).err();
                    }
                },
            );
            (report, f.first_block(), f.last_block(), None)
        }
        Archive::Era(f) => {
            let report = crate::verify::era::verify_opened_with(f, &vopts, &visitor, |c| {
                progress.advance(c.blocks, c.transactions);
                if let Some(e) = c.error {
                    sink_error.get_or_insert(e.into());
                }
                if sink_error.is_none() {
                    sink_error = write_chunk(&mut sinks, c.builders, skip_empty).err();
                }
            });
            let (first, last) = (report.first_block, report.last_block);
            (
                report,
                first.unwrap_or(0),
                last.unwrap_or(0),
                Some(era_slot_range(f.era())),
            )
        }
    };
    finish_source(
        FinishArgs {
            source,
            sha,
            network: &network,
            first,
            last,
            slots,
            kind,
            path,
            stamp,
        },
        report,
        sink_error,
        sinks,
        &datasets,
        &pending,
        done,
        exporter,
        outcome,
        started,
    )
}

/// Writes one chunk's batch of every dataset to its sink, in dataset order.
fn write_chunk(
    sinks: &mut [(String, ParquetSink)],
    builders: Vec<Box<dyn DatasetBuilder>>,
    skip_empty: bool,
) -> Result<(), OutcomeError> {
    for ((_, sink), b) in sinks.iter_mut().zip(builders) {
        let batch = b.finish();
        if skip_empty && batch.num_rows() == 0 {
            continue;
        }
        sink.write(&batch)?;
    }
    Ok(())
}

/// What a source's completion records hold besides their outputs.
struct FinishArgs<'a> {
    source: String,
    sha: String,
    network: &'a Network,
    first: u64,
    last: u64,
    slots: Option<(u64, u64)>,
    kind: ArchiveKind,
    /// The input, and its stamp before it was read: its hash is kept once it verified.
    path: &'a Path,
    stamp: Option<Stamp>,
}

/// Commits the outputs of a verified source and writes one completion record per pending dataset, under the
/// source's lock, then puts them into the manifest; discards the outputs otherwise. A dataset another writer
/// completed meanwhile (checked again under the lock) keeps that writer's output and record.
#[allow(clippy::too_many_arguments)]
fn finish_source(
    args: FinishArgs<'_>,
    report: FileReport,
    sink_error: Option<OutcomeError>,
    sinks: Vec<(String, ParquetSink)>,
    datasets: &[&'static dyn Dataset],
    pending: &[&'static dyn Dataset],
    done: Vec<CompletionRecord>,
    exporter: &Exporter<'_>,
    mut outcome: FileOutcome,
    started: Instant,
) -> FileOutcome {
    let (opts, store) = (exporter.opts, &exporter.store);
    outcome.blocks = report.blocks;
    outcome.transactions = report.transactions;
    outcome.canonical = report.canonical;
    outcome.logs = report.logs;
    outcome.bytes_in = report.file_size;
    if !report.ok || sink_error.is_some() {
        // Dropping the sinks deletes their temporary files: a file that fails verification is never exported.
        outcome
            .errors
            .extend(report.errors.into_iter().map(OutcomeError::from));
        outcome.errors.extend(sink_error);
        return outcome;
    }
    // Verified, and unchanged since it was opened (the verification's last check): its hash is kept.
    if let (Some(h), Some(s)) = (&exporter.hashes, &args.stamp) {
        // A stamp is taken only where the hash is to be kept (local inputs).
        h.put(args.path, s, &args.sha);
    }
    let mut sinks: Vec<Option<(String, ParquetSink)>> = sinks.into_iter().map(Some).collect();
    let mut records = done;
    {
        let _lock = match store.lock_source(&args.source) {
            Ok(l) => l,
            Err(e) => {
                outcome.errors.push(e.into());
                return outcome;
            }
        };
        for &d in pending {
            let options = exporter.fingerprint(&args.source, d);
            let slot = datasets.iter().position(|x| x.name() == d.name());
            if !opts.overwrite {
                // Asked now, not as listed at the start: another writer may have finished it meanwhile.
                let check = match opts.verify_outputs {
                    true => Check::Full,
                    false => Check::Fresh,
                };
                match store.complete(&args.source, d.name(), &args.sha, &options, check) {
                    Ok(Some(p)) => {
                        // Another writer finished it while this one worked: its output stands (ours is
                        // discarded).
                        drop(slot.and_then(|i| sinks[i].take()));
                        records.push(p.record);
                        continue;
                    }
                    Ok(None) => {}
                    Err(e) => {
                        outcome.errors.push(e.into());
                        return outcome;
                    }
                }
            }
            let output = match slot.and_then(|i| sinks[i].take()) {
                None => None,
                // No 0-row files (a source with no transactions has no transactions file): dropping the sink
                // discards its temporary file, and the record still says the dataset is complete, with no
                // output.
                Some((_, sink)) if sink.rows() == 0 => {
                    outcome.rows.insert(d.name().to_string(), 0);
                    None
                }
                Some((rel, sink)) => match sink.commit() {
                    Ok((p, rows)) => {
                        let bytes = std::fs::metadata(&p).map(|m| m.len()).unwrap_or(0);
                        let sha256 = manifest::file_sha256(&p).unwrap_or_default();
                        let published = match store.publish(&rel, &p) {
                            Ok(x) => x,
                            Err(e) => {
                                outcome.errors.push(e.into());
                                return outcome;
                            }
                        };
                        outcome.rows.insert(d.name().to_string(), rows);
                        Some(OutputEntry {
                            dataset: d.name().into(),
                            path: rel,
                            rows,
                            bytes,
                            sha256,
                            mtime_ns: published.mtime_ns,
                            etag: published.etag,
                        })
                    }
                    Err(e) => {
                        outcome.errors.push(e.into());
                        return outcome;
                    }
                },
            };
            let record = CompletionRecord {
                source: args.source.clone(),
                dataset: d.name().into(),
                sha256: args.sha.clone(),
                options,
                schema_version: crate::datasets::SCHEMA_VERSION,
                network: args.network.name.clone(),
                kind: args.kind.extension().into(),
                first_block: args.first,
                last_block: args.last,
                slots: args.slots,
                state_root: report.beacon.as_ref().map(|b| b.state_root.clone()),
                accumulator_root: report.accumulator_root.clone().unwrap_or_default(),
                output,
                canonical: report.canonical.filter(|c| *c),
                canonical_by: report
                    .canonical_detail
                    .as_ref()
                    .map(|d| d.proven.clone())
                    .unwrap_or_default(),
            };
            if let Err(e) = store.write_record(&record) {
                outcome.errors.push(e.into());
                return outcome;
            }
            records.push(record);
        }
    }
    let order = |r: &CompletionRecord| {
        opts.datasets
            .iter()
            .position(|d| d.name() == r.dataset)
            .unwrap_or(usize::MAX)
    };
    records.sort_by_key(order);
    outcome.outputs = records
        .into_iter()
        .filter_map(|r| r.output)
        .map(|o| o.path)
        .collect();
    if let Err(e) = store.update_manifest(&args.source) {
        outcome.errors.push(e.into());
        return outcome;
    }
    outcome.ok = true;
    outcome.seconds = started.elapsed().as_secs_f64();
    outcome
}
