//! One source at a time: open the output store once, then per file verify, build every dataset, write its
//! Parquet, commit the outputs and their completion records, and merge them into the manifest.

use super::hash_cache::{HashCache, InputProof, Stamp};
use super::progress::{FileOutcome, OutcomeError, Progress, Proof};
use super::{network_of, ExportError, ExportOptions, ExportVisitor, SourcePlan};
use crate::datasets::{Dataset, DatasetBuilder};
use crate::formats::{Archive, ArchiveKind};
use crate::network::Network;
use crate::sink::manifest::{self, CompletionRecord, OutputEntry};
use crate::sink::names::{era_output_path, era_slot_range, output_path};
use crate::sink::parquet::{FileLayout, ParquetSink};
use crate::sink::portable;
use crate::store::delta::{self, AddedFile, DeltaError, DeltaTables, TableFormat};
use crate::store::output::{Check, OutputProof, OutputStore, Proven, StoreError};
use crate::store::url::RemoteUrl;
use crate::verify::execution::VerifyOptions;
use crate::verify::report::FileReport;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// An export under way: the output store opened once, then files exported one at a time as the caller has
/// them (local files, or remote ones as they arrive in the cache), then the manifest rebuilt by
/// [`Exporter::finish`].
pub struct Exporter<'a> {
    opts: &'a ExportOptions,
    store: OutputStore,
    needs_receipts: bool,
    plan: SourcePlan,
    hashes: Option<HashCache>,
    /// The datasets' Delta tables (`table_format = "delta"`).
    tables: Option<DeltaTables>,
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
        if let Some(d) = opts
            .datasets
            .iter()
            .find(|d| d.needs_senders() && !opts.senders)
        {
            return Err(ExportError::NeedsSenders(d.name()));
        }
        opts.parquet.validate()?;
        std::fs::create_dir_all(&opts.out).map_err(|source| ExportError::Out {
            path: opts.out.clone(),
            source,
        })?;
        if opts.recovers_senders(&opts.datasets) && opts.signer.is_none() {
            // One algorithm per process, chosen before any worker starts.
            crate::verify::init_signer(None, opts.signer_backend, opts.network.as_ref(), names)?;
        }
        // Every dataset's folder, not only the selected ones: a narrower rerun cleans what a wider one left.
        let dirs: Vec<&str> = crate::datasets::ALL.iter().map(|d| d.name()).collect();
        let store = OutputStore::open(&opts.out, remote, &dirs)?;
        let tables = match opts.table_format {
            TableFormat::Parquet => None,
            TableFormat::Delta => {
                let tables = store.tables()?;
                // Every table of the run exists, with its schema, before any source is read: a dataset no
                // source has given rows yet is an empty table, not a missing one. A table the output's listing
                // shows is checked when a source is first committed to it (a no-op rerun reads no table).
                for d in &opts.datasets {
                    if store.listed(&delta::first_commit(d.name()))? != Some(true) {
                        tables
                            .ensure(d.name(), &portable::dataset_schema(*d))
                            .map_err(StoreError::from)?;
                    }
                }
                Some(tables)
            }
        };
        Ok(Exporter {
            opts,
            store,
            needs_receipts: opts.datasets.iter().any(|d| d.needs_receipts()),
            plan: SourcePlan::new(names, opts.network.as_ref()),
            hashes: match opts.verify_outputs {
                true => None,
                false => opts.input_hashes.as_deref().map(HashCache::new),
            },
            tables,
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

    /// Which of the run's datasets `source` (bytes with sha256 `sha`) still needs: completeness is per dataset,
    /// so only those without a record proving their output are made. Also the records of the others, and how
    /// their outputs were proven.
    fn pending(&self, source: &str, sha: &str) -> Result<Pending, StoreError> {
        let mut pending: Vec<&'static dyn Dataset> = Vec::new();
        let mut done: Vec<CompletionRecord> = Vec::new();
        let mut outputs = OutputProof::None;
        for &d in &self.opts.datasets {
            if self.opts.overwrite {
                pending.push(d);
                continue;
            }
            match self.complete(source, d, Some(sha), self.check())? {
                Some(p) => {
                    outputs = outputs.max(p.output);
                    done.push(p.record);
                }
                None => pending.push(d),
            }
        }
        Ok((pending, done, outputs))
    }

    /// The record of (`source`, `dataset`) when it proves the dataset complete for source bytes with sha256
    /// `sha` (any a record names, when `None`), and how its output was proven unchanged. A Delta output is proven
    /// as a plain one: a record is written only after its file's commit (and `table optimize` rewrites the
    /// records to the compacted file, which stays in place), so no table is read on a rerun — except a table
    /// this run had to create (its log lost, or never made), of which no earlier record's file is part.
    fn complete(
        &self,
        source: &str,
        d: &dyn Dataset,
        sha: Option<&str>,
        check: Check,
    ) -> Result<Option<Proven>, StoreError> {
        let options = self.fingerprint(source, d);
        let proven = match sha {
            Some(sha) => self
                .store
                .complete(source, d.name(), sha, &options, check)?,
            None => self
                .store
                .complete_by_name(source, d.name(), None, &options, check)?,
        };
        if let (Some(tables), Some(p)) = (&self.tables, &proven) {
            if let Some(o) = p
                .record
                .output
                .as_ref()
                .filter(|_| tables.created(d.name()))
            {
                if !tables.holds(d.name(), &o.path, o.bytes)? {
                    return Ok(None);
                }
            }
        }
        Ok(proven)
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
            match self.complete(source, d, sha256, self.check())? {
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
            .filter(|r| {
                r.kind
                    .parse::<ArchiveKind>()
                    .map_or(true, |k| k.holds().execution_blocks)
            })
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

/// The datasets a source still needs, the records of the others, and how their outputs were proven.
type Pending = (
    Vec<&'static dyn Dataset>,
    Vec<CompletionRecord>,
    OutputProof,
);

fn export_one(
    path: &Path,
    exporter: &Exporter<'_>,
    progress: &Progress,
    hashes: Option<&HashCache>,
) -> FileOutcome {
    let opts = exporter.opts;
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
    let (pending, done, outputs) = match exporter.pending(&source, &sha) {
        Ok(p) => p,
        Err(e) => {
            outcome.errors.push(e.into());
            return outcome;
        }
    };
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
        .filter(|d| exporter.plan.gives(kind.holds(), &network.name, *d))
        .collect();
    let mut sinks = match open_sinks(&datasets, &file, &network, &source, &sha, opts) {
        Ok(s) => s,
        Err(e) => {
            outcome.errors.push(e);
            return outcome;
        }
    };
    // The signer only when senders are exported into some dataset of this file (then `export` initialised it
    // before any worker started); a file whose datasets have no sender column never touches it.
    let signer = match opts.recovers_senders(&datasets) {
        true => match opts.signer.map_or_else(crate::crypto::signer::global, Ok) {
            Ok(s) => Some(s),
            Err(e) => {
                outcome.errors.push(OutcomeError::Signer {
                    path: path.to_path_buf(),
                    source: e,
                });
                return outcome;
            }
        },
        false => None,
    };
    let (visitor, vopts) =
        ExportVisitor::with_options(&datasets, &network, signer, exporter.needs_receipts);
    let mut skipped = vec![Skipped::default(); sinks.len()];
    let (report, sink_error) = verify_into(
        &file,
        &vopts,
        &visitor,
        (&mut sinks, &mut skipped),
        progress,
    );
    record_skipped(&datasets, &skipped, &mut outcome);
    let (first, last, slots) = match &file {
        Archive::Execution(f) => (f.first_block(), f.last_block(), None),
        Archive::Era(f) => (
            report.first_block.unwrap_or(0),
            report.last_block.unwrap_or(0),
            Some(era_slot_range(f.era())),
        ),
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

/// `outcome` as a source skipped because the records `done` prove its outputs (`proof` says how), holding
/// `blocks` blocks.
fn skipped(
    mut outcome: FileOutcome,
    done: Vec<CompletionRecord>,
    proof: Proof,
    blocks: u64,
) -> FileOutcome {
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
}

/// One sink per dataset for the rows of `file`, named by its blocks (or era) on `network`.
fn open_sinks(
    datasets: &[&'static dyn Dataset],
    file: &Archive,
    network: &Network,
    source: &str,
    sha: &str,
    opts: &ExportOptions,
) -> Result<Vec<(String, ParquetSink)>, OutcomeError> {
    let mut sinks = Vec::with_capacity(datasets.len());
    for d in datasets {
        let rel = match file {
            Archive::Execution(f) => {
                output_path(d.name(), &network.name, f.first_block(), f.last_block())
            }
            Archive::Era(f) => era_output_path(d.name(), &network.name, f.era()),
        };
        // Facts about where the rows came from, never where the file was read from (its path or URL), so the
        // same archive gives the same bytes wherever it is.
        let delta = opts.table_format == TableFormat::Delta;
        let schema = match delta {
            true => portable::dataset_schema(*d),
            false => d.schema(),
        };
        let layout = FileLayout {
            metadata: vec![
                ("eraflow.version".into(), env!("CARGO_PKG_VERSION").into()),
                (
                    "eraflow.schema_version".into(),
                    crate::datasets::SCHEMA_VERSION.to_string(),
                ),
                ("eraflow.dataset".into(), d.name().into()),
                ("eraflow.network".into(), network.name.clone()),
                ("eraflow.chain_id".into(), network.chain_id.to_string()),
                ("eraflow.source".into(), source.to_string()),
                ("eraflow.source_sha256".into(), sha.to_string()),
            ],
            ..FileLayout::of(*d, schema)
        };
        match ParquetSink::create_dataset(&opts.out.join(&rel), &layout, &opts.parquet) {
            Ok(s) if delta => sinks.push((rel, s.portable())),
            Ok(s) => sinks.push((rel, s)),
            Err(e) => return Err(e.into()),
        }
    }
    Ok(sinks)
}

/// Verifies `file` and writes each chunk of `visitor`'s rows into `sinks`: the file's report, and the first
/// error writing them (or of a dataset).
fn verify_into(
    file: &Archive,
    vopts: &VerifyOptions,
    visitor: &ExportVisitor<'_>,
    (sinks, skipped): (&mut [(String, ParquetSink)], &mut [Skipped]),
    progress: &Progress,
) -> (FileReport, Option<OutcomeError>) {
    let mut sink_error: Option<OutcomeError> = None;
    // Empty chunks of an era file (runs of empty slots) add nothing; skipping them keeps files independent of
    // how slots fall into chunks. era1 chunks are written as always.
    let skip_empty = file.kind().holds().beacon_blocks;
    // The checksum recorded in the manifest was read from this same map before verification, which ends by
    // checking that the file has not changed since it was mapped.
    let report = crate::verify::archive(file, vopts, visitor, |c| {
        progress.advance(c.blocks, c.transactions);
        if let Some(e) = c.error {
            sink_error.get_or_insert(e.into());
        }
        if sink_error.is_none() {
            sink_error = write_chunk(sinks, skipped, c.builders, skip_empty).err();
        }
    });
    (report, sink_error)
}

/// Names in `outcome` the datasets that met look-alikes (or ETH-transfer logs), in dataset-name order (a
/// BTreeMap): the same figures whatever the chunking or thread count, as they are counted per log.
fn record_skipped(
    datasets: &[&'static dyn Dataset],
    skipped: &[Skipped],
    outcome: &mut FileOutcome,
) {
    for (d, n) in datasets.iter().zip(skipped) {
        if n.lookalikes > 0 {
            outcome
                .skipped_lookalikes
                .insert(d.name().to_string(), n.lookalikes);
        }
        if n.eth_transfer_logs > 0 {
            outcome
                .skipped_eth_transfer_logs
                .insert(d.name().to_string(), n.eth_transfer_logs);
        }
    }
}

/// Logs a dataset's builders read and gave no row, per kind (the run report's `skipped_*` counts).
#[derive(Debug, Clone, Copy, Default)]
struct Skipped {
    /// [`DatasetBuilder::lookalikes`].
    lookalikes: u64,
    /// [`DatasetBuilder::eth_transfer_logs`].
    eth_transfer_logs: u64,
}

/// Writes one chunk's batch of every dataset to its sink, in dataset order, adding each builder's look-alikes and
/// ETH-transfer logs to its dataset's counts.
fn write_chunk(
    sinks: &mut [(String, ParquetSink)],
    skipped: &mut [Skipped],
    builders: Vec<Box<dyn DatasetBuilder>>,
    skip_empty: bool,
) -> Result<(), OutcomeError> {
    for (((_, sink), b), n) in sinks.iter_mut().zip(builders).zip(skipped.iter_mut()) {
        n.lookalikes += b.lookalikes();
        n.eth_transfer_logs += b.eth_transfer_logs();
        let batch = b.finish();
        if skip_empty && batch.num_rows() == 0 {
            continue;
        }
        sink.write(&batch)?;
    }
    Ok(())
}

/// Adds a source's published file of dataset `d` to its table (the table's schema checked once per run), unless
/// the source's rows are already in a file `eraflow table optimize` compacted: its record names that file, and
/// the table holds it, so a new file would hold them twice. The record is read only where the table holds a
/// compacted file at all.
fn add_to_table(
    store: &OutputStore,
    tables: &DeltaTables,
    d: &dyn Dataset,
    file: &AddedFile<'_>,
) -> Result<(), StoreError> {
    let dataset = d.name();
    tables.ensure_once(dataset, &portable::dataset_schema(d))?;
    if tables.holds_compacted(dataset)? {
        if let Some(o) = store
            .read_record(file.source, dataset)?
            .and_then(|r| r.output)
        {
            if o.path != file.rel && tables.holds(dataset, &o.path, o.bytes)? {
                return Err(DeltaError::Compacted {
                    table: tables.location(dataset),
                    source_file: file.source.to_string(),
                    file: o.path,
                }
                .into());
            }
        }
    }
    tables.add(dataset, file)?;
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
    let mut records = done;
    match record_datasets(
        &args,
        &report,
        sinks,
        datasets,
        pending,
        exporter,
        &mut outcome,
    ) {
        Ok(new) => records.extend(new),
        Err(e) => {
            outcome.errors.push(e);
            return outcome;
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

/// Under the source's lock, each pending dataset's output committed and its completion record written, in
/// order; a dataset another writer completed meanwhile keeps that writer's record (ours is discarded). Returns
/// the records; stops at the first failure.
fn record_datasets(
    args: &FinishArgs<'_>,
    report: &FileReport,
    sinks: Vec<(String, ParquetSink)>,
    datasets: &[&'static dyn Dataset],
    pending: &[&'static dyn Dataset],
    exporter: &Exporter<'_>,
    outcome: &mut FileOutcome,
) -> Result<Vec<CompletionRecord>, OutcomeError> {
    let (opts, store) = (exporter.opts, &exporter.store);
    let mut sinks: Vec<Option<(String, ParquetSink)>> = sinks.into_iter().map(Some).collect();
    let mut records = Vec::new();
    let _lock = store.lock_source(&args.source)?;
    for &d in pending {
        let options = exporter.fingerprint(&args.source, d);
        let slot = datasets.iter().position(|x| x.name() == d.name());
        if !opts.overwrite {
            // Asked now, not as listed at the start: another writer may have finished it meanwhile.
            let check = match opts.verify_outputs {
                true => Check::Full,
                false => Check::Fresh,
            };
            if let Some(p) = exporter.complete(&args.source, d, Some(&args.sha), check)? {
                // Another writer finished it while this one worked: its output stands (ours is discarded).
                drop(slot.and_then(|i| sinks[i].take()));
                records.push(p.record);
                continue;
            }
        }
        let sink = slot.and_then(|i| sinks[i].take());
        let output = commit_output(args, d, sink, exporter, outcome)?;
        let record = completion_record(args, report, d, options, output);
        store.write_record(&record)?;
        records.push(record);
    }
    Ok(records)
}

/// Dataset `d`'s output from its sink: committed, published and (with Delta tables) added to its table. None
/// for a dataset without a sink, or without rows: no 0-row files (a source with no transactions has no
/// transactions file); dropping the sink discards its temporary file, and the record still says the dataset is
/// complete, with no output.
fn commit_output(
    args: &FinishArgs<'_>,
    d: &dyn Dataset,
    sink: Option<(String, ParquetSink)>,
    exporter: &Exporter<'_>,
    outcome: &mut FileOutcome,
) -> Result<Option<OutputEntry>, OutcomeError> {
    let store = &exporter.store;
    let (rel, sink) = match sink {
        None => return Ok(None),
        Some((_, sink)) if sink.rows() == 0 => {
            outcome.rows.insert(d.name().to_string(), 0);
            return Ok(None);
        }
        Some(s) => s,
    };
    let (p, rows) = sink.commit()?;
    let bytes = std::fs::metadata(&p).map(|m| m.len()).unwrap_or(0);
    let sha256 = manifest::file_sha256(&p).unwrap_or_default();
    let published = store.publish(&rel, &p)?;
    // Into its table before its record: a record always names a committed file, and a commit made before a
    // crash is found (not repeated) by the rerun.
    if let Some(tables) = &exporter.tables {
        let added = AddedFile {
            source: &args.source,
            rel: &rel,
            network: &args.network.name,
            bytes,
            rows,
            sha256: &sha256,
        };
        add_to_table(store, tables, d, &added)?;
    }
    outcome.rows.insert(d.name().to_string(), rows);
    Ok(Some(OutputEntry {
        dataset: d.name().into(),
        path: rel,
        rows,
        bytes,
        sha256,
        mtime_ns: published.mtime_ns,
        etag: published.etag,
    }))
}

/// The completion record of dataset `d` of a verified source, with its output (if any).
fn completion_record(
    args: &FinishArgs<'_>,
    report: &FileReport,
    d: &dyn Dataset,
    options: String,
    output: Option<OutputEntry>,
) -> CompletionRecord {
    CompletionRecord {
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
    }
}
