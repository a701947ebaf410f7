//! The export stage: verify each era1 file and, in the same decoding pass, build every selected dataset; a
//! file's Parquet outputs appear only if the whole file verified. Files are processed one after another, each
//! split across all threads, so memory is bounded by one window of block chunks whatever the number of files.

use super::report::{FileOutcome, Progress};
use crate::crypto::signer::{self, SignatureAlgorithm};
use crate::datasets::{Dataset, DatasetBuilder, ExportContext};
use crate::formats::era1::{Era1File, Era1Name};
use crate::network::Network;
use crate::sink::manifest::{self, Manifest, OutputEntry, SourceEntry};
use crate::sink::parquet::{ParquetOptions, ParquetSink};
use crate::verify::era1::{verify_file_with, BlockVisitor, VerifiedBlock, VerifyOptions};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What to export and how.
#[derive(Clone)]
pub struct ExportOptions {
    pub out: PathBuf,
    pub datasets: Vec<&'static dyn Dataset>,
    /// Recover senders (`from_address`); off leaves the column null and never touches the signer.
    pub senders: bool,
    /// Network override; default from each file name.
    pub network: Option<Network>,
    /// Redo outputs even when the manifest proves them complete.
    pub overwrite: bool,
    pub parquet: ParquetOptions,
}

/// Why the export could not run at all (per-file failures are in the outcomes instead).
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("{0}")]
    Setup(String),
}

impl ExportOptions {
    /// A fingerprint of everything that changes output bytes: a rerun with other options redoes the files.
    fn fingerprint(&self) -> String {
        let names: Vec<&str> = self.datasets.iter().map(|d| d.name()).collect();
        format!(
            "datasets={};senders={};compression={}:{};row_group={};schema={}",
            names.join(","),
            self.senders,
            self.parquet.compression,
            self.parquet.compression_level,
            self.parquet.row_group_size,
            crate::datasets::SCHEMA_VERSION
        )
    }
}

/// The visitor that fills one builder per dataset per chunk.
struct ExportVisitor<'a> {
    datasets: &'a [&'static dyn Dataset],
    ctx: ExportContext,
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

/// Removes temporary files a killed run left behind (`.<name>.<pid>.tmp`).
fn clean_stale_temporaries(out: &Path, datasets: &[&'static dyn Dataset]) {
    for d in datasets.iter().map(|d| d.name()).chain(["_eraflow"]) {
        if let Ok(rd) = std::fs::read_dir(out.join(d)) {
            for e in rd.flatten() {
                let n = e.file_name();
                let n = n.to_string_lossy();
                if n.starts_with('.') && n.ends_with(".tmp") {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
    }
}

/// Output file name of a dataset for a source range.
pub fn output_path(dataset: &str, network: &str, first: u64, last: u64) -> String {
    format!("{dataset}/{network}__{dataset}__{first:08}_to_{last:08}.parquet")
}

/// Exports every file; returns one outcome per file, in input order.
pub fn export(
    paths: &[PathBuf],
    opts: &ExportOptions,
    progress: &Progress,
) -> Result<Vec<FileOutcome>, ExportError> {
    if opts.datasets.is_empty() {
        return Err(ExportError::Setup("no datasets selected".into()));
    }
    std::fs::create_dir_all(&opts.out)
        .map_err(|e| ExportError::Setup(format!("{}: {e}", opts.out.display())))?;
    if opts.senders {
        // One algorithm per process, chosen before any worker starts.
        let name = opts
            .network
            .as_ref()
            .map(|n| n.signature_algorithm.clone())
            .or_else(|| {
                paths
                    .iter()
                    .find_map(|p| network_of(p, None).map(|n| n.signature_algorithm))
            })
            .unwrap_or_else(|| "secp256k1".into());
        let alg =
            SignatureAlgorithm::from_name(&name).map_err(|e| ExportError::Setup(e.to_string()))?;
        signer::init(alg).map_err(|e| ExportError::Setup(e.to_string()))?;
    }
    clean_stale_temporaries(&opts.out, &opts.datasets);
    let mut manifest = Manifest::load(&opts.out);
    let fingerprint = opts.fingerprint();
    let needs_receipts = opts.datasets.iter().any(|d| d.needs_receipts());
    let mut outcomes = Vec::with_capacity(paths.len());
    for path in paths {
        let outcome = export_one(
            path,
            opts,
            &fingerprint,
            needs_receipts,
            &mut manifest,
            progress,
        );
        progress.file_done(&outcome);
        outcomes.push(outcome);
    }
    Ok(outcomes)
}

fn network_of(path: &Path, explicit: Option<&Network>) -> Option<Network> {
    if let Some(n) = explicit {
        return Some(n.clone());
    }
    let name = Era1Name::parse(path.file_name()?.to_str()?).ok()?;
    Network::by_name(&name.network).ok()
}

fn export_one(
    path: &Path,
    opts: &ExportOptions,
    fingerprint: &str,
    needs_receipts: bool,
    manifest: &mut Manifest,
    progress: &Progress,
) -> FileOutcome {
    let started = Instant::now();
    let source = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut outcome = FileOutcome {
        file: path.display().to_string(),
        ..Default::default()
    };
    let file = match Era1File::open(path) {
        Ok(f) => f,
        Err(e) => {
            outcome.errors.push(e.to_string());
            return outcome;
        }
    };
    let sha = hex::encode(crate::crypto::sha256::sha256(file.bytes()));
    if !opts.overwrite && manifest.is_complete(&opts.out, &source, &sha, fingerprint) {
        outcome.skipped = true;
        outcome.ok = true;
        outcome.blocks = file.block_count();
        if let Some(e) = manifest.sources.get(&source) {
            outcome.outputs = e.outputs.iter().map(|o| o.path.clone()).collect();
        }
        return outcome;
    }
    let Some(network) = network_of(path, opts.network.as_ref()) else {
        outcome.errors.push(format!(
            "{}: cannot tell the network from the file name; pass --network",
            path.display()
        ));
        return outcome;
    };
    let (first, last) = (file.first_block(), file.last_block());
    let mut sinks = Vec::with_capacity(opts.datasets.len());
    for d in &opts.datasets {
        let rel = output_path(d.name(), &network.name, first, last);
        match ParquetSink::create(&opts.out.join(&rel), d.schema(), &opts.parquet) {
            Ok(s) => sinks.push((rel, s)),
            Err(e) => {
                outcome.errors.push(e.to_string());
                return outcome;
            }
        }
    }
    let visitor = ExportVisitor {
        datasets: &opts.datasets,
        ctx: ExportContext {
            chain_id: network.chain_id,
        },
    };
    let vopts = VerifyOptions {
        network: Some(network.clone()),
        checksum: false,
        senders: opts.senders,
        skip_receipts: !needs_receipts,
    };
    let mut sink_error: Option<String> = None;
    let report = verify_file_with(path, &vopts, &visitor, |(blocks, txs, builders)| {
        progress.advance(blocks, txs);
        if sink_error.is_some() {
            return;
        }
        for ((_, sink), b) in sinks.iter_mut().zip(builders) {
            if let Err(e) = sink.write(&b.finish()) {
                sink_error = Some(e.to_string());
                return;
            }
        }
    });
    outcome.blocks = report.blocks;
    outcome.transactions = report.transactions;
    outcome.logs = report.logs;
    outcome.bytes_in = report.file_size;
    if !report.ok || sink_error.is_some() {
        // Dropping the sinks deletes their temporary files: a file that fails verification is never exported.
        outcome.errors.extend(report.errors);
        outcome.errors.extend(sink_error);
        return outcome;
    }
    let mut entries = Vec::new();
    for ((rel, sink), d) in sinks.into_iter().zip(&opts.datasets) {
        match sink.commit() {
            Ok((p, rows)) => {
                let bytes = std::fs::metadata(&p).map(|m| m.len()).unwrap_or(0);
                let sha256 = manifest::file_sha256(&p).unwrap_or_default();
                outcome.rows.insert(d.name().to_string(), rows);
                outcome.outputs.push(rel.clone());
                entries.push(OutputEntry {
                    dataset: d.name().into(),
                    path: rel,
                    rows,
                    bytes,
                    sha256,
                });
            }
            Err(e) => {
                outcome.errors.push(e.to_string());
                return outcome;
            }
        }
    }
    manifest.sources.insert(
        source,
        SourceEntry {
            sha256: sha,
            accumulator_root: report.accumulator_root.unwrap_or_default(),
            network: network.name.clone(),
            first_block: first,
            last_block: last,
            options: fingerprint.to_string(),
            outputs: entries,
        },
    );
    if let Err(e) = manifest.save(&opts.out) {
        outcome
            .errors
            .push(format!("{}: {e}", manifest::path(&opts.out).display()));
        return outcome;
    }
    outcome.ok = true;
    outcome.seconds = started.elapsed().as_secs_f64();
    outcome
}
