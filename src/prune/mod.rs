//! Prune manifests: verified lists a node uses to drop pre-merge history by key, without decoding anything.
//!
//! `eraflow prune` reads era1 archives once, verifies each file (accumulator, header chain, transactions root,
//! ommers; receipts are never decompressed and the signature algorithm is never touched), and writes:
//!
//! - `block_hashes.bin`: 32-byte block hashes in block order;
//! - `tx_hashes.bin`: every transaction hash, 32 bytes each, strictly increasing (external merge sort, so memory
//!   stays within `--memory-budget` however long the chain);
//! - `tx_locations.parquet`: (transaction_hash, block_number, transaction_index) sorted by block then index;
//! - `ranges.json`: block ranges per data kind a node may drop (headers are kept, see [`manifest::Ranges`]);
//! - with `--format text`, also `block_hashes.txt` and `tx_hashes.txt` (one 0x-hash per line);
//! - `manifest.json` last: network, range, sources with checksums and roots, totals, every file's sha256.
//!
//! The directory is built beside its destination under a hidden temporary name and renamed into place only
//! when complete, so a failed or killed run leaves no partial manifest. Outputs are deterministic.

pub mod check;
pub mod extsort;
pub mod manifest;

use crate::formats::era1::Era1File;
use crate::formats::FormatError;
use crate::formats::{ArchiveKind, ArchiveName};
use crate::fsutil::AtomicFile;
use crate::network::{Network, NetworkError};
use crate::verify::era1::{
    verify_file_with, BlockHashes, BlockVisitor, VerifiedBlock, VerifyOptions,
};
use arrow::array::{ArrayBuilder, FixedSizeBinaryBuilder, UInt32Builder, UInt64Builder};
use arrow::datatypes::{DataType, Field, Schema};
use arrow::record_batch::RecordBatch;
use extsort::{ExternalSorter, Hash32, SortError, SortStats};
use manifest::{BlockRange, ListFile, Manifest, Ranges, SourceFile, Totals};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use sha2::Digest;
use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Default in-memory budget of the hash sort: 256 MiB (8 M hashes per run; ~210 runs for mainnet).
pub const DEFAULT_MEMORY_BUDGET: usize = 256 << 20;

/// Rows per Parquet batch and row group: bounds the writer's buffer (~3 MB) whatever the input size.
const PARQUET_ROWS: usize = 64 * 1024;

/// Which list files to write besides the binary ones (which are always written: `prune check` and nodes use them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputFormat {
    /// Binary lists only.
    #[default]
    Binary,
    /// Binary lists plus `block_hashes.txt` and `tx_hashes.txt` for scripts.
    Text,
}

impl std::str::FromStr for OutputFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "binary" => Ok(OutputFormat::Binary),
            "text" => Ok(OutputFormat::Text),
            other => Err(format!("unknown prune format '{other}': binary or text")),
        }
    }
}

/// How to build a manifest.
#[derive(Debug, Clone)]
pub struct PruneOptions {
    /// Network preset; `None` takes it from the file names (which must all agree).
    pub network: Option<Network>,
    /// First block to include; default the first block of the inputs.
    pub from_block: Option<u64>,
    /// Exclusive end: blocks `< until_block` are included. Default: the end of the inputs, which must not reach
    /// the network's first proof-of-stake block (only an explicit `until_block` may go past it).
    pub until_block: Option<u64>,
    /// Record uncovered ranges as gaps instead of refusing.
    pub allow_gaps: bool,
    /// Extra text outputs.
    pub format: OutputFormat,
    /// Bytes of hashes the sort may hold in memory before spilling a run.
    pub memory_budget: usize,
}

impl Default for PruneOptions {
    fn default() -> Self {
        PruneOptions {
            network: None,
            from_block: None,
            until_block: None,
            allow_gaps: false,
            format: OutputFormat::Binary,
            memory_budget: DEFAULT_MEMORY_BUDGET,
        }
    }
}

/// Why no manifest was written. Every variant names the file and block(s) involved.
#[derive(Debug, thiserror::Error)]
pub enum PruneError {
    /// No input files.
    #[error("prune: no input files")]
    NoInputs,
    /// An archive could not be opened or its index read.
    #[error("prune: {0}")]
    Open(FormatError),
    /// The network could not be determined or resolved.
    #[error("prune: {0}")]
    Network(String),
    /// A network preset failed to load.
    #[error("prune: {0}")]
    Preset(#[from] NetworkError),
    /// `from_block >= until_block`, or no input block falls in the range.
    #[error("prune: empty range: {0}")]
    EmptyRange(String),
    /// The inputs reach the first proof-of-stake block and no explicit `--until-block` was given.
    #[error("prune: {file} holds blocks {first}..={last}, which reach {network}'s first proof-of-stake block {first_pos_block}; post-merge blocks are only included with an explicit --until-block (e.g. --until-block {first_pos_block} for pre-merge history only)")]
    CrossesMerge {
        /// The archive reaching past the merge.
        file: String,
        /// Its first block.
        first: u64,
        /// Its last block.
        last: u64,
        /// Network name.
        network: String,
        /// The network's first proof-of-stake block.
        first_pos_block: u64,
    },
    /// Two archives cover some of the same blocks.
    #[error("prune: {a} (blocks {a_first}..={a_last}) and {b} (blocks {b_first}..={b_last}) overlap; pass each block once")]
    Overlap {
        /// Earlier file.
        a: String,
        /// Its first block.
        a_first: u64,
        /// Its last block.
        a_last: u64,
        /// Later file.
        b: String,
        /// Its first block.
        b_first: u64,
        /// Its last block.
        b_last: u64,
    },
    /// Blocks in the range that no archive covers (without `--allow-gaps`).
    #[error("prune: gap: blocks {first}..={last} are in the range but in no input file ({context}); add the missing archives or pass --allow-gaps to record the gap")]
    Gap {
        /// First missing block.
        first: u64,
        /// Last missing block.
        last: u64,
        /// Neighbouring files.
        context: String,
    },
    /// An archive failed verification: nothing from it (or the run) is written.
    #[error("prune: {file} did not verify ({} errors): {}", .errors.len(), .errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Unverified {
        /// The archive.
        file: String,
        /// The verifier's errors (bounded).
        errors: Vec<crate::verify::report::ReportError>,
    },
    /// Consecutive archives do not chain (parent hash or total difficulty across the boundary).
    #[error("prune: {file}: block {block}: {what}: expected {expected} (end of {previous}), found {found}")]
    Discontinuity {
        /// The later archive.
        file: String,
        /// Its first block.
        block: u64,
        /// The previous archive.
        previous: String,
        /// What did not chain.
        what: &'static str,
        /// Value from the previous file.
        expected: String,
        /// Value in this file.
        found: String,
    },
    /// Sorting transaction hashes failed (spill I/O or a duplicate hash).
    #[error("prune: {0}")]
    Sort(#[from] SortError),
    /// The destination exists and is not an earlier manifest directory; it is never overwritten.
    #[error("prune: {0}: exists and is not a prune manifest directory (no manifest.json); refusing to replace it")]
    OutputExists(String),
    /// Writing an output failed.
    #[error("prune: {path}: {source}")]
    Io {
        /// The file or directory.
        path: String,
        /// The underlying error.
        source: io::Error,
    },
    /// Writing the Parquet file failed.
    #[error("prune: {path}: parquet: {message}")]
    Parquet {
        /// The file.
        path: String,
        /// What the writer said.
        message: String,
    },
}

impl PruneError {
    /// True when the data (archives) is at fault rather than usage or the environment: `eraflow prune` exits 1
    /// for these and 2 for the rest.
    pub fn is_data_error(&self) -> bool {
        matches!(
            self,
            PruneError::Open(_)
                | PruneError::Overlap { .. }
                | PruneError::Gap { .. }
                | PruneError::Unverified { .. }
                | PruneError::Discontinuity { .. }
                | PruneError::Sort(SortError::Duplicate(_))
        )
    }
}

fn io_at(path: &Path) -> impl FnOnce(io::Error) -> PruneError + '_ {
    move |source| PruneError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// What a successful run produced.
#[derive(Debug, Clone)]
pub struct PruneSummary {
    /// The manifest as written.
    pub manifest: Manifest,
    /// Where it was written.
    pub out: PathBuf,
    /// Inputs that hold no block of the range (not read).
    pub skipped: Vec<String>,
    /// What the hash sort did.
    pub sort: SortStats,
}

/// One input archive's block range, known from its index before verification.
struct Input {
    path: PathBuf,
    name: String,
    first: u64,
    last: u64,
}

/// A writer that hashes and counts everything it passes through, so no output is read back for its sha256.
struct Hashing<W: Write> {
    inner: W,
    sha: sha2::Sha256,
    bytes: u64,
}

impl<W: Write> Hashing<W> {
    fn new(inner: W) -> Self {
        Hashing {
            inner,
            sha: sha2::Sha256::new(),
            bytes: 0,
        }
    }
    fn finish(self, entries: u64) -> (W, ListFile) {
        let rec = ListFile {
            sha256: hex::encode(self.sha.finalize()),
            bytes: self.bytes,
            entries,
        };
        (self.inner, rec)
    }
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.sha.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// A list file being written atomically with its checksum.
struct ListWriter {
    out: Hashing<AtomicFile>,
    entries: u64,
}

impl ListWriter {
    fn create(path: &Path) -> Result<Self, PruneError> {
        Ok(ListWriter {
            out: Hashing::new(AtomicFile::create(path).map_err(io_at(path))?),
            entries: 0,
        })
    }
    fn hash(&mut self, h: &Hash32) -> io::Result<()> {
        self.entries += 1;
        self.out.write_all(h)
    }
    fn hex_line(&mut self, h: &Hash32) -> io::Result<()> {
        self.entries += 1;
        let mut line = [0u8; 67];
        line[..2].copy_from_slice(b"0x");
        // Cannot fail: the buffer is exactly 64 bytes.
        let _ = hex::encode_to_slice(h, &mut line[2..66]);
        line[66] = b'\n';
        self.out.write_all(&line)
    }
    fn commit(self) -> Result<ListFile, PruneError> {
        let (f, rec) = self.out.finish(self.entries);
        let dest = f.dest().to_path_buf();
        f.commit_staged().map_err(io_at(&dest))?;
        Ok(rec)
    }
}

/// The Parquet schema of `tx_locations.parquet`.
pub fn tx_locations_schema() -> Arc<Schema> {
    Arc::new(Schema::new(vec![
        Field::new("transaction_hash", DataType::FixedSizeBinary(32), false),
        Field::new("block_number", DataType::UInt64, false),
        Field::new("transaction_index", DataType::UInt32, false),
    ]))
}

/// `tx_locations.parquet`, written in bounded batches.
struct LocationsWriter {
    path: PathBuf,
    writer: ArrowWriter<Hashing<AtomicFile>>,
    hashes: FixedSizeBinaryBuilder,
    blocks: UInt64Builder,
    indices: UInt32Builder,
    rows: u64,
}

impl LocationsWriter {
    fn create(path: &Path) -> Result<Self, PruneError> {
        let f = AtomicFile::create(path).map_err(io_at(path))?;
        // Hashes are incompressible and unique: no dictionary, no compression. Numbers compress well.
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_max_row_group_row_count(Some(PARQUET_ROWS))
            .set_column_dictionary_enabled("transaction_hash".into(), false)
            .set_column_compression("transaction_hash".into(), Compression::UNCOMPRESSED)
            .build();
        let writer = ArrowWriter::try_new(Hashing::new(f), tx_locations_schema(), Some(props))
            .map_err(|e| parquet_err(path, e))?;
        Ok(LocationsWriter {
            path: path.to_path_buf(),
            writer,
            hashes: FixedSizeBinaryBuilder::with_capacity(PARQUET_ROWS, 32),
            blocks: UInt64Builder::with_capacity(PARQUET_ROWS),
            indices: UInt32Builder::with_capacity(PARQUET_ROWS),
            rows: 0,
        })
    }

    fn push(&mut self, hash: &Hash32, block: u64, index: u32) -> Result<(), PruneError> {
        self.hashes
            .append_value(hash)
            .map_err(|e| parquet_err(&self.path, e))?;
        self.blocks.append_value(block);
        self.indices.append_value(index);
        self.rows += 1;
        if self.blocks.len() >= PARQUET_ROWS {
            self.flush_batch()?;
        }
        Ok(())
    }

    fn flush_batch(&mut self) -> Result<(), PruneError> {
        if self.blocks.is_empty() {
            return Ok(());
        }
        let batch = RecordBatch::try_new(
            tx_locations_schema(),
            vec![
                Arc::new(self.hashes.finish()),
                Arc::new(self.blocks.finish()),
                Arc::new(self.indices.finish()),
            ],
        )
        .map_err(|e| parquet_err(&self.path, e))?;
        self.writer
            .write(&batch)
            .map_err(|e| parquet_err(&self.path, e))
    }

    fn commit(mut self) -> Result<ListFile, PruneError> {
        self.flush_batch()?;
        let hashing = self
            .writer
            .into_inner()
            .map_err(|e| parquet_err(&self.path, e))?;
        let (f, rec) = hashing.finish(self.rows);
        f.commit_staged().map_err(io_at(&self.path))?;
        Ok(rec)
    }
}

fn parquet_err(path: &Path, e: impl std::fmt::Display) -> PruneError {
    PruneError::Parquet {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// What one chunk of verified blocks contributes: hashes of blocks in range, their transactions, and the parent
/// hash of the file's first block (to chain files).
struct ChunkOut {
    first_parent: Option<Hash32>,
    blocks: Vec<(u64, Hash32)>,
    txs: Vec<(Hash32, u64, u32)>,
}

/// The prune visitor: keeps block and transaction hashes of blocks inside `[from, until)`.
struct PruneVisitor {
    file_first: u64,
    from: u64,
    until: u64,
}

impl BlockVisitor for PruneVisitor {
    type Chunk = ChunkOut;
    fn start_chunk(&self, _first_block: u64) -> ChunkOut {
        ChunkOut {
            first_parent: None,
            blocks: Vec::new(),
            txs: Vec::new(),
        }
    }
    fn needs_decoded_transactions(&self) -> bool {
        false
    }
    fn visit_hashed(
        &self,
        chunk: &mut ChunkOut,
        block: &VerifiedBlock<'_>,
        hashes: &BlockHashes<'_>,
    ) {
        if block.number == self.file_first {
            chunk.first_parent = Some(*block.header.parent_hash());
        }
        if block.number < self.from || block.number >= self.until {
            return;
        }
        chunk.blocks.push((block.number, hashes.block));
        chunk.txs.reserve(hashes.transactions.len());
        for (i, h) in hashes.transactions.iter().enumerate() {
            // A block cannot hold 2^32 transactions (gas limits); saturate rather than wrap if one claimed to.
            let idx = u32::try_from(i).unwrap_or(u32::MAX);
            chunk.txs.push((*h, block.number, idx));
        }
    }
    fn visit(&self, chunk: &mut ChunkOut, block: &VerifiedBlock<'_>) {
        if block.number == self.file_first {
            chunk.first_parent = Some(*block.header.parent_hash());
        }
        if block.number < self.from || block.number >= self.until {
            return;
        }
        chunk.blocks.push((block.number, block.header.hash().0));
        for (i, tx) in block.transactions.iter().enumerate() {
            // A block cannot hold 2^32 transactions (gas limits); saturate rather than wrap if one claimed to.
            let idx = u32::try_from(i).unwrap_or(u32::MAX);
            chunk.txs.push((tx.hash().0, block.number, idx));
        }
    }
}

/// Opens every input's index (cheap: no block is decoded) and returns them sorted by first block.
fn scan_inputs(paths: &[PathBuf]) -> Result<Vec<Input>, PruneError> {
    let mut inputs = Vec::with_capacity(paths.len());
    for p in paths {
        let f = Era1File::open(p).map_err(PruneError::Open)?;
        inputs.push(Input {
            path: p.clone(),
            name: p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| p.display().to_string()),
            first: f.first_block(),
            last: f.last_block(),
        });
    }
    inputs.sort_by(|a, b| (a.first, &a.name).cmp(&(b.first, &b.name)));
    for w in inputs.windows(2) {
        if w[1].first <= w[0].last {
            return Err(PruneError::Overlap {
                a: w[0].name.clone(),
                a_first: w[0].first,
                a_last: w[0].last,
                b: w[1].name.clone(),
                b_first: w[1].first,
                b_last: w[1].last,
            });
        }
    }
    Ok(inputs)
}

/// The network: the option, else the one all file names agree on.
fn pick_network(opt: Option<&Network>, inputs: &[Input]) -> Result<Network, PruneError> {
    if let Some(n) = opt {
        return Ok(n.clone());
    }
    let mut name: Option<String> = None;
    for i in inputs {
        let parsed = ArchiveName::parse_as(ArchiveKind::Era1, &i.name).map_err(|e| {
            PruneError::Network(format!(
                "{}: {e}; pass --network to name the network",
                i.name
            ))
        })?;
        match &name {
            None => name = Some(parsed.network),
            Some(n) if *n != parsed.network => {
                return Err(PruneError::Network(format!(
                    "inputs mix networks '{n}' and '{}' ({}); one manifest covers one network",
                    parsed.network, i.name
                )))
            }
            Some(_) => {}
        }
    }
    let name = name.ok_or(PruneError::NoInputs)?;
    Ok(Network::by_name(&name)?)
}

/// The resolved plan: inclusive range, whether explicit, files in it, gaps, files skipped.
struct Plan {
    range: BlockRange,
    explicit: bool,
    selected: Vec<Input>,
    gaps: Vec<BlockRange>,
    skipped: Vec<String>,
}

fn plan(inputs: Vec<Input>, net: &Network, opts: &PruneOptions) -> Result<Plan, PruneError> {
    let (Some(first_in), Some(last_in)) = (inputs.first(), inputs.last()) else {
        return Err(PruneError::NoInputs);
    };
    let (inputs_first, inputs_last) = (first_in.first, last_in.last);
    if opts.until_block.is_none() {
        if let Some(i) = inputs.iter().find(|i| i.last >= net.first_pos_block) {
            return Err(PruneError::CrossesMerge {
                file: i.name.clone(),
                first: i.first,
                last: i.last,
                network: net.name.clone(),
                first_pos_block: net.first_pos_block,
            });
        }
    }
    let from = opts.from_block.unwrap_or(inputs_first);
    let until = opts
        .until_block
        .unwrap_or_else(|| inputs_last.saturating_add(1));
    if from >= until {
        return Err(PruneError::EmptyRange(format!(
            "--from-block {from} is not below the end {until} (exclusive)"
        )));
    }
    let range = BlockRange {
        first: from,
        last: until - 1,
    };
    let (selected, outside): (Vec<Input>, Vec<Input>) = inputs
        .into_iter()
        .partition(|i| i.last >= range.first && i.first <= range.last);
    if selected.is_empty() {
        return Err(PruneError::EmptyRange(format!(
            "no input file holds a block in {}..={}",
            range.first, range.last
        )));
    }
    let mut gaps = Vec::new();
    let mut next = range.first;
    let mut prev_name: Option<&str> = None;
    for i in &selected {
        if i.first > next {
            gaps.push((
                BlockRange {
                    first: next,
                    last: i.first - 1,
                },
                format!(
                    "after {}, before {}",
                    prev_name.unwrap_or("the range start"),
                    i.name
                ),
            ));
        }
        next = i.last.saturating_add(1);
        prev_name = Some(&i.name);
    }
    if next <= range.last {
        gaps.push((
            BlockRange {
                first: next,
                last: range.last,
            },
            format!(
                "after {}, before the range end",
                prev_name.unwrap_or("the range start")
            ),
        ));
    }
    if let Some((g, context)) = gaps.first() {
        if !opts.allow_gaps {
            return Err(PruneError::Gap {
                first: g.first,
                last: g.last,
                context: context.clone(),
            });
        }
    }
    Ok(Plan {
        range,
        explicit: opts.from_block.is_some() || opts.until_block.is_some(),
        selected,
        gaps: gaps.into_iter().map(|(g, _)| g).collect(),
        skipped: outside.into_iter().map(|i| i.name).collect(),
    })
}

/// Checks the destination may be replaced: absent, empty, or an earlier manifest directory.
fn check_destination(out: &Path) -> Result<(), PruneError> {
    if !out.exists() {
        return Ok(());
    }
    if !out.is_dir() {
        return Err(PruneError::OutputExists(out.display().to_string()));
    }
    let empty = fs::read_dir(out).map_err(io_at(out))?.next().is_none();
    if empty || out.join(manifest::MANIFEST).is_file() {
        Ok(())
    } else {
        Err(PruneError::OutputExists(out.display().to_string()))
    }
}

/// Removes a directory tree, ignoring absence.
fn remove_dir(p: &Path) {
    let _ = fs::remove_dir_all(p);
}

/// Builds the manifest directory `out` from era1 archives `paths` (any order). Nothing appears at `out` unless
/// every contributing file verified and every output was written; an earlier manifest directory there is
/// replaced, anything else is refused.
pub fn run(paths: &[PathBuf], out: &Path, opts: &PruneOptions) -> Result<PruneSummary, PruneError> {
    if paths.is_empty() {
        return Err(PruneError::NoInputs);
    }
    check_destination(out)?;
    let inputs = scan_inputs(paths)?;
    let net = pick_network(opts.network.as_ref(), &inputs)?;
    let plan = plan(inputs, &net, opts)?;

    let parent = out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(parent).map_err(io_at(parent))?;
    let base = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "prune".into());
    let tmp = parent.join(format!(".{base}.tmp-{}", std::process::id()));
    remove_dir(&tmp);
    fs::create_dir_all(&tmp).map_err(io_at(&tmp))?;
    let result = build(&plan, &net, &tmp, opts);
    let (manifest, sort) = match result {
        Ok(r) => r,
        Err(e) => {
            remove_dir(&tmp);
            return Err(e);
        }
    };
    if let Err(e) = install(&tmp, out) {
        remove_dir(&tmp);
        return Err(e);
    }
    Ok(PruneSummary {
        manifest,
        out: out.to_path_buf(),
        skipped: plan.skipped,
        sort,
    })
}

/// Renames the finished temporary directory to `out`, replacing an earlier manifest directory.
fn install(tmp: &Path, out: &Path) -> Result<(), PruneError> {
    check_destination(out)?;
    // The files inside were committed without syncing the directory: persist their names once, here. Best
    // effort, like `AtomicFile::commit`: syncing a directory is not supported everywhere.
    if let Ok(d) = fs::File::open(tmp) {
        let _ = d.sync_all();
    }
    let old = out.with_file_name(format!(
        ".{}.old-{}",
        out.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        std::process::id()
    ));
    let had_old = out.exists();
    if had_old {
        fs::rename(out, &old).map_err(io_at(out))?;
    }
    fs::rename(tmp, out).map_err(io_at(out))?;
    if let Some(p) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        if let Ok(d) = fs::File::open(p) {
            let _ = d.sync_all();
        }
    }
    if had_old {
        remove_dir(&old);
    }
    Ok(())
}

/// The lists written while files are verified, owned by the writer thread.
struct Lists {
    dir: PathBuf,
    block_hashes: ListWriter,
    block_txt: Option<ListWriter>,
    locations: LocationsWriter,
    sorter: ExternalSorter,
}

impl Lists {
    fn create(dir: &Path, opts: &PruneOptions) -> Result<Lists, PruneError> {
        Ok(Lists {
            dir: dir.to_path_buf(),
            block_hashes: ListWriter::create(&dir.join(manifest::BLOCK_HASHES))?,
            block_txt: match opts.format {
                OutputFormat::Text => {
                    Some(ListWriter::create(&dir.join(manifest::BLOCK_HASHES_TXT))?)
                }
                OutputFormat::Binary => None,
            },
            locations: LocationsWriter::create(&dir.join(manifest::TX_LOCATIONS))?,
            sorter: ExternalSorter::new(opts.memory_budget, &dir.join(".spill")),
        })
    }

    /// Appends one verified chunk (already checked to be the next blocks in order).
    fn add(&mut self, chunk: &ChunkOut) -> Result<(), PruneError> {
        let bpath = self.dir.join(manifest::BLOCK_HASHES);
        for (_, h) in &chunk.blocks {
            self.block_hashes.hash(h).map_err(io_at(&bpath))?;
            if let Some(t) = self.block_txt.as_mut() {
                t.hex_line(h).map_err(io_at(&bpath))?;
            }
        }
        for (h, b, i) in &chunk.txs {
            self.locations.push(h, *b, *i)?;
            self.sorter.push(*h)?;
        }
        Ok(())
    }
}

/// Verified chunks queued for the writer thread: enough to ride out a slow write, bounded so memory does
/// not grow when writing falls behind.
const WRITE_QUEUE: usize = 8;

/// The sha256 of a whole archive (recorded in the manifest), computed on a helper thread while the same file
/// is verified, so it costs no time on the verification threads when a core is free.
fn file_sha256(path: &Path) -> Result<String, PruneError> {
    let f = fs::File::open(path).map_err(io_at(path))?;
    // SAFETY: read-only map of an archive that eraflow never writes; the same assumption as `Era1File::open`.
    let map = unsafe { memmap2::Mmap::map(&f) }.map_err(io_at(path))?;
    Ok(hex::encode(crate::crypto::sha256::sha256(&map)))
}

/// Verifies the planned files in block order and writes every output into `dir`; manifest last.
///
/// Three kinds of work overlap: verification (on the caller's rayon pool), each file's sha256 (a helper
/// thread per file) and list writing (one writer thread fed verified chunks in block order through a bounded
/// channel). At the end the list files are committed (fsync'd) concurrently while the transaction hashes are
/// sorted and written.
fn build(
    plan: &Plan,
    net: &Network,
    dir: &Path,
    opts: &PruneOptions,
) -> Result<(Manifest, SortStats), PruneError> {
    let lists = Lists::create(dir, opts)?;
    let verify_opts = VerifyOptions {
        network: Some(net.clone()),
        // Computed beside verification instead, see `file_sha256`.
        checksum: false,
        senders: false,
        skip_receipts: true,
        signer: None,
    };
    let (sources, lists) = std::thread::scope(|s| -> Result<_, PruneError> {
        let (send, recv) = std::sync::mpsc::sync_channel::<ChunkOut>(WRITE_QUEUE);
        let writer = s.spawn(move || -> Result<Lists, PruneError> {
            let mut lists = lists;
            for chunk in recv {
                lists.add(&chunk)?;
            }
            Ok(lists)
        });
        let sources = verify_inputs(plan, &verify_opts, &send, s);
        drop(send);
        let written = writer.join().map_err(|_| PruneError::Io {
            path: dir.display().to_string(),
            source: io::Error::other("list writer thread panicked"),
        });
        // A verification failure names the file; it wins over a write error it may have caused.
        let sources = sources?;
        Ok((sources, written??))
    })?;
    let Lists {
        block_hashes,
        block_txt,
        locations,
        sorter,
        ..
    } = lists;

    let ranges = Ranges::new(
        &net.name,
        net.chain_id,
        manifest::covered(plan.range, &plan.gaps),
    );
    let ranges_path = dir.join(manifest::RANGES);
    let spill_dir = dir.join(".spill");
    let tx_path = dir.join(manifest::TX_HASHES);
    // Commit the finished lists (each an fsync) while the transaction hashes are sorted and written.
    let (files, sort) = std::thread::scope(|s| -> Result<_, PruneError> {
        let blocks = s.spawn(
            move || -> Result<Vec<(&'static str, ListFile)>, PruneError> {
                let mut v = vec![(manifest::BLOCK_HASHES, block_hashes.commit()?)];
                if let Some(t) = block_txt {
                    v.push((manifest::BLOCK_HASHES_TXT, t.commit()?));
                }
                Ok(v)
            },
        );
        let locs = s.spawn(move || locations.commit());
        let rng = s.spawn(|| write_json(&ranges_path, &ranges));

        let mut tx_bin = ListWriter::create(&tx_path)?;
        let mut tx_txt = match opts.format {
            OutputFormat::Text => Some(ListWriter::create(&dir.join(manifest::TX_HASHES_TXT))?),
            OutputFormat::Binary => None,
        };
        let sort = sorter.finish(
            |h| {
                tx_bin.hash(h)?;
                if let Some(t) = tx_txt.as_mut() {
                    t.hex_line(h)?;
                }
                Ok(())
            },
            &tx_path,
        );
        let tx_files = sort.map_err(PruneError::from).and_then(|sort| {
            remove_dir(&spill_dir);
            let mut v = vec![(manifest::TX_HASHES, tx_bin.commit()?)];
            if let Some(t) = tx_txt {
                v.push((manifest::TX_HASHES_TXT, t.commit()?));
            }
            Ok((v, sort))
        });
        let panicked = |what: &str| PruneError::Io {
            path: dir.display().to_string(),
            source: io::Error::other(format!("{what} thread panicked")),
        };
        let blocks = blocks.join().map_err(|_| panicked("block list"))?;
        let locs = locs.join().map_err(|_| panicked("locations"))?;
        let rng = rng.join().map_err(|_| panicked("ranges"))?;
        let (tx_files, sort) = tx_files?;
        let mut files = BTreeMap::new();
        for (name, rec) in blocks?.into_iter().chain(tx_files) {
            files.insert(name.to_string(), rec);
        }
        files.insert(manifest::TX_LOCATIONS.to_string(), locs?);
        files.insert(manifest::RANGES.to_string(), rng?);
        Ok((files, sort))
    })?;

    let totals = Totals {
        blocks: sources.iter().map(|s| s.blocks).sum(),
        transactions: sources.iter().map(|s| s.transactions).sum(),
        archive_bytes: sources.iter().map(|s| s.size).sum(),
    };
    let manifest = Manifest {
        format_version: manifest::FORMAT_VERSION.into(),
        eraflow_version: env!("CARGO_PKG_VERSION").into(),
        network: net.name.clone(),
        chain_id: net.chain_id,
        first_pos_block: net.first_pos_block,
        range: plan.range,
        explicit_range: plan.explicit,
        gaps: plan.gaps.clone(),
        sources,
        totals,
        files,
    };
    write_json(&dir.join(manifest::MANIFEST), &manifest)?;
    Ok((manifest, sort))
}

/// Verifies every planned file in block order, sending each verified chunk to the writer through `send`, and
/// returns the manifest's source records. Stops at the first file that does not verify or chain.
fn verify_inputs<'scope>(
    plan: &'scope Plan,
    verify_opts: &VerifyOptions,
    send: &std::sync::mpsc::SyncSender<ChunkOut>,
    scope: &'scope std::thread::Scope<'scope, '_>,
) -> Result<Vec<SourceFile>, PruneError> {
    let mut sources = Vec::with_capacity(plan.selected.len());
    // (file name, last block, last block hash, final total difficulty) of the previous file.
    let mut prev: Option<(String, u64, String, Option<String>)> = None;
    for input in &plan.selected {
        let sha = scope.spawn(|| file_sha256(&input.path));
        let visitor = PruneVisitor {
            file_first: input.first,
            from: plan.range.first,
            until: plan.range.last.saturating_add(1),
        };
        let mut first_parent: Option<Hash32> = None;
        let mut failure: Option<PruneError> = None;
        let mut writer_gone = false;
        let mut expected_block = input.first.max(plan.range.first);
        let (mut blocks, mut txs) = (0u64, 0u64);
        let report = verify_file_with(&input.path, verify_opts, &visitor, |chunk: ChunkOut| {
            if failure.is_some() || writer_gone {
                return;
            }
            if chunk.first_parent.is_some() {
                first_parent = chunk.first_parent;
            }
            for (number, _) in &chunk.blocks {
                if *number != expected_block {
                    // A block that failed its checks is not visited; the report will say why.
                    failure = Some(PruneError::Unverified {
                        file: input.name.clone(),
                        errors: vec![format!(
                            "block {expected_block} missing from the verified stream (found {number})"
                        )
                        .into()],
                    });
                    return;
                }
                expected_block += 1;
            }
            blocks += chunk.blocks.len() as u64;
            txs += chunk.txs.len() as u64;
            // A closed channel means the writer failed; its error is collected when it is joined.
            writer_gone = send.send(chunk).is_err();
        });
        let sha = sha.join().map_err(|_| PruneError::Io {
            path: input.path.display().to_string(),
            source: io::Error::other("sha256 thread panicked"),
        });
        if !report.ok {
            let mut errors = report.errors.clone();
            if report.errors_omitted > 0 {
                errors.push(format!("... and {} more", report.errors_omitted).into());
            }
            return Err(PruneError::Unverified {
                file: input.name.clone(),
                errors,
            });
        }
        if let Some(e) = failure {
            return Err(e);
        }
        if writer_gone {
            // The writer's own error is reported by the caller.
            return Ok(sources);
        }
        let sha = sha??;
        let included = BlockRange {
            first: input.first.max(plan.range.first),
            last: input.last.min(plan.range.last),
        };
        if blocks != included.len() {
            return Err(PruneError::Unverified {
                file: input.name.clone(),
                errors: vec![format!(
                    "expected {} verified blocks in {}..={}, found {blocks}",
                    included.len(),
                    included.first,
                    included.last
                )
                .into()],
            });
        }
        // Chain to the previous file when they are adjacent.
        if let Some((pname, plast, phash, ptd)) = &prev {
            if plast.checked_add(1) == Some(input.first) {
                let found = first_parent.map(|p| format!("0x{}", hex::encode(p)));
                if found.as_deref() != Some(phash.as_str()) {
                    return Err(PruneError::Discontinuity {
                        file: input.name.clone(),
                        block: input.first,
                        previous: pname.clone(),
                        what: "parent hash",
                        expected: phash.clone(),
                        found: found.unwrap_or_else(|| "nothing".into()),
                    });
                }
                if let (Some(p), Some(i)) = (ptd, &report.initial_total_difficulty) {
                    if p != i {
                        return Err(PruneError::Discontinuity {
                            file: input.name.clone(),
                            block: input.first,
                            previous: pname.clone(),
                            what: "total difficulty before the first block",
                            expected: p.clone(),
                            found: i.clone(),
                        });
                    }
                }
            }
        }
        prev = Some((
            input.name.clone(),
            input.last,
            report.last_block_hash.clone().unwrap_or_default(),
            report.final_total_difficulty.clone(),
        ));
        sources.push(SourceFile {
            name: input.name.clone(),
            sha256: sha,
            size: report.file_size,
            file_blocks: BlockRange {
                first: input.first,
                last: input.last,
            },
            included,
            accumulator_root: report.accumulator_root.clone().unwrap_or_default(),
            blocks,
            transactions: txs,
        });
    }
    Ok(sources)
}

/// Writes pretty JSON plus a newline atomically into the staging directory (synced once by [`install`]) and
/// returns its integrity record.
fn write_json<T: serde::Serialize>(path: &Path, value: &T) -> Result<ListFile, PruneError> {
    let mut bytes = serde_json::to_vec_pretty(value).map_err(|e| PruneError::Io {
        path: path.display().to_string(),
        source: io::Error::other(e),
    })?;
    bytes.push(b'\n');
    let mut f = AtomicFile::create(path).map_err(io_at(path))?;
    f.write_all(&bytes).map_err(io_at(path))?;
    f.commit_staged().map_err(io_at(path))?;
    Ok(ListFile {
        sha256: hex::encode(crate::crypto::sha256::sha256(&bytes)),
        bytes: bytes.len() as u64,
        entries: 0,
    })
}
