//! ere files: execution history of one era (8192 blocks) before or after the merge — headers, bodies, slim
//! receipts, Portal header proofs, total difficulty over pre-merge blocks and the accumulator root.
//!
//! Layout (`formats/ere.md` and `types/0x0a00.md`, `0x0b00.md`, `0x6732.md` of
//! <https://github.com/eth-clients/e2store-format-specs>, as go-ethereum's `internal/era/execdb` reads and writes
//! it):
//!
//! ```text
//! ere := Version | CompressedHeader+ | CompressedBody+ | CompressedSlimReceipts* | Proof* | TotalDifficulty*
//!        | other-entries* | AccumulatorRoot? | DynamicBlockIndex
//! DynamicBlockIndex := starting-number | indexes * count | component-count | count     (all u64 LE)
//! indexes := header | body | receipts? | total-difficulty? | proof?                      (i64 LE, relative)
//! ```
//!
//! - Each index entry is relative to the start of the `DynamicBlockIndex` record (negative), as in era1.
//! - `component-count` (2 to 5) says how many entries each block has. Which entry is which is read from the
//!   record types the first block's entries point at, not from their position: the spec orders a block's
//!   entries `receipts, difficulty, proof` but its file layout puts `Proof` records before `TotalDifficulty`
//!   ones, Nethermind indexes `receipts, proof, difficulty`, and one version of the spec made the receipts
//!   entry mandatory while `ere.md` and the `noreceipts` profile make it optional. eraflow accepts every such
//!   file (as go-ethereum's reader does, by type tag), requires header and body, and writes the spec's order.
//! - Records of one component must come in block order; whether components are grouped (the spec,
//!   go-ethereum) or interleaved block by block (nimbus's reader) does not matter to a reader that follows the
//!   index, so both are accepted.
//! - `TotalDifficulty` (32 bytes little-endian) and `AccumulatorRoot` cover pre-merge history only: a
//!   merge-transition file repeats the final total difficulty for its post-merge blocks and roots the
//!   accumulator over its pre-merge blocks; a post-merge file has neither.
//! - A file is named `<network>-<era:05>-<first 4 bytes of the last block's hash>(-noproofs)?(-noreceipts)?.ere`
//!   (`.erae` on older mirrors); see [`super::ArchiveName`].

use super::archive::{ArchiveKind, ArchiveName, EreProfile};
use super::e2store::{read_record_at, write_record, Record, RecordType, HEADER_LEN};
use super::error::{FormatError, FormatErrorKind};
use super::execution::{check_total_difficulty, BlockRecords, BLOCKS_PER_ERA};
use super::mapped::MappedFile;
use std::path::{Path, PathBuf};

/// One kind of per-block entry in a dynamic block index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Component {
    /// `CompressedHeader`.
    Header,
    /// `CompressedBody`.
    Body,
    /// `CompressedSlimReceipts`.
    Receipts,
    /// `TotalDifficulty`.
    TotalDifficulty,
    /// `Proof`.
    Proof,
}

impl Component {
    /// Every component, in the spec's index order.
    pub const ALL: [Component; 5] = [
        Component::Header,
        Component::Body,
        Component::Receipts,
        Component::TotalDifficulty,
        Component::Proof,
    ];

    /// The record type of this component's entries.
    pub fn record_type(self) -> RecordType {
        match self {
            Component::Header => RecordType::COMPRESSED_HEADER,
            Component::Body => RecordType::COMPRESSED_BODY,
            Component::Receipts => RecordType::COMPRESSED_SLIM_RECEIPTS,
            Component::TotalDifficulty => RecordType::TOTAL_DIFFICULTY,
            Component::Proof => RecordType::PROOF,
        }
    }

    /// The record type's name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Component::Header => "CompressedHeader",
            Component::Body => "CompressedBody",
            Component::Receipts => "CompressedSlimReceipts",
            Component::TotalDifficulty => "TotalDifficulty",
            Component::Proof => "Proof",
        }
    }

    /// The component whose records have type `kind`.
    pub fn of(kind: RecordType) -> Option<Component> {
        Component::ALL.into_iter().find(|c| c.record_type() == kind)
    }

    /// The component's position in [`Component::ALL`].
    pub fn position(self) -> usize {
        self as usize
    }
}

/// Fewest entries a block has in a dynamic block index (header and body).
pub const MIN_COMPONENTS: u64 = 2;
/// Most entries a block has (header, body, receipts, total difficulty, proof).
pub const MAX_COMPONENTS: u64 = 5;

/// The dynamic block index: where each block's entries are, and which entry is which component.
#[derive(Debug, Clone)]
pub struct DynamicBlockIndex {
    /// First block number.
    pub start: u64,
    /// Number of blocks.
    pub count: u64,
    /// Entries per block (`component-count`, 2 to 5).
    pub components: u64,
    /// Offset of the `DynamicBlockIndex` record.
    pub record_offset: u64,
    /// For each [`Component`] (in [`Component::ALL`] order), its entry's position within a block's entries.
    slots: [Option<u8>; 5],
}

impl DynamicBlockIndex {
    /// The position of `c`'s entry among a block's entries, when the file has that component.
    pub fn slot(&self, c: Component) -> Option<u64> {
        self.slots[c.position()].map(u64::from)
    }

    /// Whether the file has `c` for every block.
    pub fn has(&self, c: Component) -> bool {
        self.slot(c).is_some()
    }

    /// The components in the order a block's entries list them.
    pub fn order(&self) -> Vec<Component> {
        let mut v: Vec<(u8, Component)> = Component::ALL
            .into_iter()
            .filter_map(|c| self.slots[c.position()].map(|s| (s, c)))
            .collect();
        v.sort_unstable();
        v.into_iter().map(|(_, c)| c).collect()
    }

    /// The profile the components present make (no `Proof` entries: `noproofs`; no receipts: `noreceipts`).
    pub fn profile(&self) -> EreProfile {
        EreProfile {
            no_proofs: !self.has(Component::Proof),
            no_receipts: !self.has(Component::Receipts),
        }
    }

    /// File offset of block `i`'s entry at position `slot`.
    fn entry_at(&self, i: u64, slot: u64) -> u64 {
        self.record_offset + HEADER_LEN as u64 + 8 + 8 * (i * self.components + slot)
    }

    /// Block `i`'s entry at position `slot`, as an absolute offset checked to land among the block records
    /// (after `Version`, before the index).
    fn offset(&self, bytes: &[u8], i: u64, slot: u64) -> Result<u64, FormatError> {
        let at = self.entry_at(i, slot);
        let entry = bytes
            .get(at as usize..at as usize + 8)
            .and_then(|s| <[u8; 8]>::try_from(s).ok())
            .ok_or_else(|| {
                FormatError::at(
                    at,
                    FormatErrorKind::Index(format!("no entry {slot} for block {i}")),
                )
            })?;
        let rel = i64::from_le_bytes(entry);
        let abs = self.record_offset as i128 + rel as i128;
        if abs < HEADER_LEN as i128 || abs >= self.record_offset as i128 {
            return Err(FormatError::at(
                at,
                FormatErrorKind::Index(format!(
                    "entry {slot} of block {} points to offset {abs}, outside the block records {HEADER_LEN}..{}",
                    self.start.saturating_add(i),
                    self.record_offset
                )),
            )
            .in_block(self.start.saturating_add(i)));
        }
        Ok(abs as u64)
    }
}

/// An `AccumulatorRoot` record's root and offset.
type Accumulator = ([u8; 32], u64);

/// An ere file, memory-mapped, with its index read and its layout worked out from the first block's entries.
pub struct EreFile {
    path: PathBuf,
    map: MappedFile,
    index: DynamicBlockIndex,
    accumulator: Option<Accumulator>,
    name: Option<ArchiveName>,
}

impl std::fmt::Debug for EreFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EreFile")
            .field("path", &self.path)
            .field("blocks", &self.index.count)
            .field("components", &self.index.order())
            .finish()
    }
}

impl EreFile {
    /// Maps `path` and reads its Version, DynamicBlockIndex and (when present) AccumulatorRoot records. Block
    /// records are read lazily. Guarded against the file shrinking while mapped like
    /// [`super::era1::Era1File::open`].
    pub fn open(path: &Path) -> Result<Self, FormatError> {
        Self::from_map(path, MappedFile::open(path)?)
    }

    /// Reads `bytes` (copied into memory) as the ere file `path` names, without touching the file system.
    pub fn from_bytes(path: &Path, bytes: &[u8]) -> Result<Self, FormatError> {
        let map = MappedFile::from_bytes(bytes)
            .map_err(|e| FormatError::at(0, FormatErrorKind::Io(e.into())).in_file(path))?;
        Self::from_map(path, map)
    }

    fn from_map(path: &Path, map: MappedFile) -> Result<Self, FormatError> {
        let (index, accumulator) = read_trailer(map.bytes()).map_err(|e| e.in_file(path))?;
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| ArchiveName::parse_as(ArchiveKind::Ere, n).ok());
        Ok(EreFile {
            path: path.to_path_buf(),
            map,
            index,
            accumulator,
            name,
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
    /// The whole file as bytes (the memory map).
    pub fn bytes(&self) -> &[u8] {
        self.map.bytes()
    }
    /// Fails when the file changed since it was opened (see [`MappedFile::check_unchanged`]).
    pub fn check_unchanged(&self) -> Result<(), FormatError> {
        self.map
            .check_unchanged()
            .map_err(|e| e.in_file(&self.path))
    }
    /// The block index.
    pub fn index(&self) -> &DynamicBlockIndex {
        &self.index
    }
    /// First block number.
    pub fn first_block(&self) -> u64 {
        self.index.start
    }
    /// Number of blocks.
    pub fn block_count(&self) -> u64 {
        self.index.count
    }
    /// The parsed file name, when it is canonical.
    pub fn name(&self) -> Option<&ArchiveName> {
        self.name.as_ref()
    }
    /// The `AccumulatorRoot` record's root and offset, when the file has one (pre-merge and transition eras).
    pub fn accumulator(&self) -> Option<(&[u8; 32], u64)> {
        self.accumulator.as_ref().map(|(r, o)| (r, *o))
    }
    /// The profile the file's components make (see [`DynamicBlockIndex::profile`]).
    pub fn profile(&self) -> EreProfile {
        self.index.profile()
    }

    /// Where block `i`'s entry for `c` points (`None` when the file has no such component).
    pub fn component_offset(&self, i: u64, c: Component) -> Result<Option<u64>, FormatError> {
        let Some(slot) = self.index.slot(c) else {
            return Ok(None);
        };
        let number = self.index.start.saturating_add(i);
        self.index
            .offset(self.bytes(), i, slot)
            .map(Some)
            .map_err(|e| e.in_file(&self.path).in_block(number))
    }

    /// Where block `i`'s header record is, per the index.
    pub fn header_offset(&self, i: u64) -> Result<u64, FormatError> {
        Ok(self.component_offset(i, Component::Header)?.unwrap_or(0))
    }

    /// The bytes of block `i`'s header, body and receipts records (0 for entries that are unusable).
    pub fn block_size(&self, i: u64) -> u64 {
        [Component::Header, Component::Body, Component::Receipts]
            .into_iter()
            .filter_map(|c| self.component_offset(i, c).ok().flatten())
            .filter_map(|o| read_record_at(self.bytes(), o).ok())
            .map(|r| r.end() - r.offset)
            .sum()
    }

    /// The records of the `i`-th block of the file (0-based), each checked to be of its component's type.
    pub fn block(&self, i: u64) -> Result<BlockRecords<'_>, FormatError> {
        let number = self.index.start.saturating_add(i);
        if i >= self.index.count {
            return Err(FormatError::at(
                self.index.record_offset,
                FormatErrorKind::Index(format!("no entry {i}")),
            )
            .in_file(&self.path)
            .in_block(number));
        }
        let at = |e: FormatError| e.in_file(&self.path).in_block(number);
        let record = |c: Component| -> Result<Option<Record<'_>>, FormatError> {
            let Some(offset) = self.component_offset(i, c)? else {
                return Ok(None);
            };
            let r = read_record_at(self.bytes(), offset).map_err(at)?;
            r.expect(c.record_type(), c.name()).map_err(at)?;
            Ok(Some(r))
        };
        let header = record(Component::Header)?;
        let body = record(Component::Body)?;
        let (Some(header), Some(body)) = (header, body) else {
            // The layout always has both (checked when the file was opened).
            return Err(at(FormatError::at(
                self.index.record_offset,
                FormatErrorKind::Index("no header or body entry".into()),
            )));
        };
        let total_difficulty = record(Component::TotalDifficulty)?;
        if let Some(td) = &total_difficulty {
            check_total_difficulty(td).map_err(at)?;
        }
        Ok(BlockRecords {
            number,
            header,
            body,
            receipts: record(Component::Receipts)?,
            total_difficulty,
            proof: record(Component::Proof)?,
        })
    }
}

/// Reads the trailer: the `DynamicBlockIndex` (the last record), the layout its first block's entries point at,
/// and the `AccumulatorRoot` record just before it, if any.
fn read_trailer(bytes: &[u8]) -> Result<(DynamicBlockIndex, Option<Accumulator>), FormatError> {
    let len = bytes.len() as u64;
    read_record_at(bytes, 0)?.expect(RecordType::VERSION, "Version")?;
    // The index's last 16 bytes are its component count and block count.
    let tail: [u8; 16] = bytes
        .get(bytes.len().saturating_sub(16)..)
        .and_then(|s| s.try_into().ok())
        .ok_or_else(|| {
            FormatError::at(
                0,
                FormatErrorKind::Truncated {
                    expected: 16,
                    found: len,
                },
            )
        })?;
    let word = |i: usize| u64::from_le_bytes(tail[i * 8..i * 8 + 8].try_into().unwrap_or_default());
    let (components, count) = (word(0), word(1));
    if count == 0 || count > BLOCKS_PER_ERA {
        return Err(FormatError::at(
            len - 8,
            FormatErrorKind::Index(format!("block count must be 1..=8192, found {count}")),
        ));
    }
    if !(MIN_COMPONENTS..=MAX_COMPONENTS).contains(&components) {
        return Err(FormatError::at(
            len - 16,
            FormatErrorKind::Index(format!(
                "component count must be {MIN_COMPONENTS}..={MAX_COMPONENTS} (header, body, then receipts, total difficulty, proof when present), found {components}"
            )),
        ));
    }
    let index_len = HEADER_LEN as u64 + 8 + 8 * count * components + 16;
    let record_offset = len.checked_sub(index_len).ok_or_else(|| {
        FormatError::at(
            0,
            FormatErrorKind::Index(format!(
                "file of {len} bytes cannot hold an index of {count} blocks with {components} entries each"
            )),
        )
    })?;
    let rec = read_record_at(bytes, record_offset)?;
    rec.expect(RecordType::DYNAMIC_BLOCK_INDEX, "DynamicBlockIndex")?;
    if rec.end() != len {
        return Err(FormatError::at(
            record_offset,
            FormatErrorKind::Index(format!("index record ends at {}, file at {len}", rec.end())),
        ));
    }
    let start = u64::from_le_bytes(rec.data[..8].try_into().unwrap_or_default());
    // As in era1: an index whose blocks would pass u64::MAX is garbage, and would make "last + 1" wrap.
    if start.checked_add(count).is_none() {
        return Err(FormatError::at(
            record_offset + HEADER_LEN as u64,
            FormatErrorKind::Index(format!(
                "starting block number {start} with {count} blocks passes the largest block number {}",
                u64::MAX - 1
            )),
        ));
    }
    let mut index = DynamicBlockIndex {
        start,
        count,
        components,
        record_offset,
        slots: [None; 5],
    };
    // Which entry is which: the record types the first block's entries point at.
    for slot in 0..components {
        let offset = index.offset(bytes, 0, slot)?;
        let target = read_record_at(bytes, offset)?;
        let Some(c) = Component::of(target.kind) else {
            return Err(FormatError::at(
                index.entry_at(0, slot),
                FormatErrorKind::Index(format!(
                    "entry {slot} of the first block points at a {} record, which is no block component (CompressedHeader, CompressedBody, CompressedSlimReceipts, TotalDifficulty, Proof)",
                    target.kind.name()
                )),
            )
            .in_block(start));
        };
        if let Some(other) = index.slots[c.position()] {
            return Err(FormatError::at(
                index.entry_at(0, slot),
                FormatErrorKind::Index(format!(
                    "entries {other} and {slot} of the first block both point at {} records",
                    c.name()
                )),
            )
            .in_block(start));
        }
        index.slots[c.position()] = Some(slot as u8);
    }
    for c in [Component::Header, Component::Body] {
        if !index.has(c) {
            return Err(FormatError::at(
                record_offset,
                FormatErrorKind::Index(format!(
                    "no entry of the first block points at a {} record (every block needs a header and a body)",
                    c.name()
                )),
            ));
        }
    }
    // The optional AccumulatorRoot sits right before the index (a 32-byte record); anything else there is
    // another entry. The record walk of verification confirms the record really starts there.
    let accumulator = record_offset
        .checked_sub(HEADER_LEN as u64 + 32)
        .and_then(|at| read_record_at(bytes, at).ok())
        .filter(|r| r.kind == RecordType::ACCUMULATOR && r.end() == record_offset)
        .and_then(|r| {
            <[u8; 32]>::try_from(r.data)
                .ok()
                .map(|root| (root, r.offset))
        });
    Ok((index, accumulator))
}

/// One block for [`EreWriter::add_block`]: uncompressed RLP of its parts.
#[derive(Debug, Clone, Copy)]
pub struct EreBlock<'a> {
    /// The block number (must follow the previous block's).
    pub number: u64,
    /// RLP of the header.
    pub header: &'a [u8],
    /// RLP of the body.
    pub body: &'a [u8],
    /// RLP list of the slim receipts; `None` leaves receipts out (the `noreceipts` profile, for every block).
    pub slim_receipts: Option<&'a [u8]>,
    /// Total difficulty after the block: `Some` for every block of a pre-merge or merge-transition era (the
    /// final total difficulty on post-merge blocks), `None` for every block of a post-merge era.
    pub total_difficulty: Option<alloy_primitives::U256>,
    /// Whether the block was mined (difficulty above zero): its header record enters the accumulator root.
    pub pre_merge: bool,
    /// RLP `[proof-type, ssz(proof)]` of the header's Portal proof; `None` for every block (the `noproofs`
    /// profile) or for none.
    pub proof: Option<&'a [u8]>,
}

/// A component's records written while blocks arrive, then copied into the file in the spec's order by
/// [`EreWriter::finish`]. Spilled to a temporary file beside the output, so a writer's memory does not grow
/// with the era (a post-merge era's bodies are gigabytes); removed when dropped.
struct Section {
    path: PathBuf,
    out: Option<std::io::BufWriter<std::fs::File>>,
    /// Offsets of each record within the section.
    offsets: Vec<u64>,
    len: u64,
}

impl Section {
    fn create(path: PathBuf) -> std::io::Result<Section> {
        let f = std::fs::File::create(&path)?;
        Ok(Section {
            path,
            out: Some(std::io::BufWriter::new(f)),
            offsets: Vec::new(),
            len: 0,
        })
    }

    fn push(
        &mut self,
        kind: RecordType,
        data: &[u8],
        scratch: &mut Vec<u8>,
    ) -> std::io::Result<()> {
        use std::io::Write;
        scratch.clear();
        write_record(scratch, kind, data);
        self.offsets.push(self.len);
        self.len += scratch.len() as u64;
        match &mut self.out {
            Some(o) => o.write_all(scratch),
            None => Err(std::io::Error::other("ere writer: section already copied")),
        }
    }

    /// Appends the section to `dest`.
    fn copy_into(&mut self, dest: &mut impl std::io::Write) -> std::io::Result<()> {
        use std::io::Write;
        if let Some(mut o) = self.out.take() {
            o.flush()?;
        }
        let mut f = std::fs::File::open(&self.path)?;
        let copied = std::io::copy(&mut f, dest)?;
        if copied != self.len {
            return Err(std::io::Error::other(format!(
                "ere writer: section {} holds {copied} bytes, expected {}",
                self.path.display(),
                self.len
            )));
        }
        Ok(())
    }
}

impl Drop for Section {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Writes an ere file: the spec's layout (headers, bodies, slim receipts, proofs, total difficulties, the
/// accumulator root over pre-merge blocks, the dynamic block index in the spec's entry order), byte for byte.
/// The file appears under its canonical name, with the profile its components make, only when complete.
pub struct EreWriter {
    dir: PathBuf,
    network: String,
    partial: PathBuf,
    start: Option<u64>,
    blocks: u64,
    /// headers, bodies, receipts, proofs, total difficulties: the spec's file order.
    sections: Vec<Section>,
    has_receipts: Option<bool>,
    has_proofs: Option<bool>,
    has_td: Option<bool>,
    records: crate::execution::accumulator::HeaderRecords,
    last_hash: [u8; 32],
    scratch: Vec<u8>,
}

impl EreWriter {
    /// Starts a file for `network` in `dir`; its name is fixed at [`EreWriter::finish`].
    pub fn create(dir: &Path, network: &str) -> std::io::Result<Self> {
        // Unique per writer so parallel writers into one directory never share a temporary file.
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        std::fs::create_dir_all(dir)?;
        let base = format!(".{network}.{}.{n}.ere", std::process::id());
        let sections = ["headers", "bodies", "receipts", "proofs", "tds"]
            .iter()
            .map(|s| Section::create(dir.join(format!("{base}.{s}.partial"))))
            .collect::<std::io::Result<Vec<_>>>()?;
        Ok(EreWriter {
            dir: dir.to_path_buf(),
            network: network.to_string(),
            partial: dir.join(format!("{base}.partial")),
            start: None,
            blocks: 0,
            sections,
            has_receipts: None,
            has_proofs: None,
            has_td: None,
            records: crate::execution::accumulator::HeaderRecords::with_capacity(
                BLOCKS_PER_ERA as usize,
            ),
            last_hash: [0; 32],
            scratch: Vec::new(),
        })
    }

    /// Appends one block. The first block decides which optional components the file has; every later block
    /// must have the same ones.
    pub fn add_block(&mut self, b: &EreBlock<'_>) -> std::io::Result<()> {
        let expected = self.start.map_or(b.number, |s| s + self.blocks);
        if b.number != expected || self.blocks >= BLOCKS_PER_ERA {
            return Err(std::io::Error::other(format!(
                "ere writer: expected block {expected} (at most 8192 per file), got {}",
                b.number
            )));
        }
        let same = |seen: &mut Option<bool>, now: bool, what: &str| {
            if *seen.get_or_insert(now) == now {
                Ok(())
            } else {
                Err(std::io::Error::other(format!(
                    "ere writer: block {} {} {what}, the file's first block {}",
                    b.number,
                    if now { "has" } else { "lacks" },
                    if now { "lacks it" } else { "has it" }
                )))
            }
        };
        same(
            &mut self.has_receipts,
            b.slim_receipts.is_some(),
            "receipts",
        )?;
        same(&mut self.has_proofs, b.proof.is_some(), "a proof")?;
        same(
            &mut self.has_td,
            b.total_difficulty.is_some(),
            "a total difficulty",
        )?;
        if b.pre_merge && b.total_difficulty.is_none() {
            return Err(std::io::Error::other(format!(
                "ere writer: pre-merge block {} needs its total difficulty",
                b.number
            )));
        }
        self.start.get_or_insert(b.number);
        let hash = crate::crypto::keccak::keccak256(b.header).0;
        let td_le = b.total_difficulty.map(|td| td.to_le_bytes::<32>());
        if b.pre_merge {
            if let Some(td) = &td_le {
                self.records.push(&hash, td);
            }
        }
        self.last_hash = hash;
        let s = &mut self.scratch;
        let framed = super::snappy::compress_framed;
        self.sections[0].push(RecordType::COMPRESSED_HEADER, &framed(b.header), s)?;
        self.sections[1].push(RecordType::COMPRESSED_BODY, &framed(b.body), s)?;
        if let Some(r) = b.slim_receipts {
            self.sections[2].push(RecordType::COMPRESSED_SLIM_RECEIPTS, &framed(r), s)?;
        }
        if let Some(p) = b.proof {
            self.sections[3].push(RecordType::PROOF, &framed(p), s)?;
        }
        if let Some(td) = &td_le {
            self.sections[4].push(RecordType::TOTAL_DIFFICULTY, td, s)?;
        }
        self.blocks += 1;
        Ok(())
    }

    /// Writes the sections, the accumulator root (over the pre-merge blocks, when there are any) and the index,
    /// and moves the file to `<network>-<era:05>-<last hash8>(-profile).ere`.
    pub fn finish(mut self) -> std::io::Result<PathBuf> {
        use std::io::Write;
        let start = self
            .start
            .ok_or_else(|| std::io::Error::other("ere writer: no blocks"))?;
        let mut out = crate::util::fs::AtomicFile::create(&self.partial)?;
        let mut pos = 0u64;
        self.scratch.clear();
        write_record(&mut self.scratch, RecordType::VERSION, &[]);
        out.write_all(&self.scratch)?;
        pos += self.scratch.len() as u64;
        // Absolute offsets of each section's records, in the spec's file order.
        let mut absolute: Vec<Vec<u64>> = Vec::with_capacity(self.sections.len());
        for s in &mut self.sections {
            absolute.push(s.offsets.iter().map(|o| pos + o).collect());
            s.copy_into(&mut out)?;
            pos += s.len;
        }
        if !self.records.is_empty() {
            let root = self
                .records
                .root()
                .ok_or_else(|| std::io::Error::other("ere writer: too many blocks"))?;
            self.scratch.clear();
            write_record(&mut self.scratch, RecordType::ACCUMULATOR, &root);
            out.write_all(&self.scratch)?;
            pos += self.scratch.len() as u64;
        }
        // The spec's entry order: header, body, receipts, total difficulty, proof (present ones only).
        let [headers, bodies, receipts, proofs, tds] = <[Vec<u64>; 5]>::try_from(absolute)
            .map_err(|_| std::io::Error::other("ere writer: sections"))?;
        let entries: Vec<&Vec<u64>> = [&headers, &bodies, &receipts, &tds, &proofs]
            .into_iter()
            .filter(|v| !v.is_empty())
            .collect();
        let index_pos = pos as i64;
        let mut index = Vec::with_capacity(24 + 8 * entries.len() * self.blocks as usize);
        index.extend_from_slice(&start.to_le_bytes());
        for i in 0..self.blocks as usize {
            for e in &entries {
                let abs = e.get(i).copied().unwrap_or_default() as i64;
                index.extend_from_slice(&(abs - index_pos).to_le_bytes());
            }
        }
        index.extend_from_slice(&(entries.len() as u64).to_le_bytes());
        index.extend_from_slice(&self.blocks.to_le_bytes());
        self.scratch.clear();
        write_record(&mut self.scratch, RecordType::DYNAMIC_BLOCK_INDEX, &index);
        out.write_all(&self.scratch)?;
        let name = ArchiveName {
            kind: ArchiveKind::Ere,
            network: self.network.clone(),
            era: start / BLOCKS_PER_ERA,
            short_root: self.last_hash[..4].try_into().unwrap_or_default(),
            profile: EreProfile {
                no_proofs: self.has_proofs != Some(true),
                no_receipts: self.has_receipts != Some(true),
            },
        };
        let dest = self.dir.join(name.file_name());
        out.commit()?;
        std::fs::rename(&self.partial, &dest)?;
        Ok(dest)
    }
}
