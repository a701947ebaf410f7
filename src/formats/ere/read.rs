//! Reading ere files (the layout is in the module above).

use crate::formats::block::{check_total_difficulty, BlockRecords};
use crate::formats::e2store::mapped::MappedFile;
use crate::formats::e2store::{read_record_at, MappedArchive, Record, RecordType, HEADER_LEN};
use crate::formats::error::{FormatError, FormatErrorKind};
use crate::formats::name::{ArchiveKind, ArchiveName, EreProfile, BLOCKS_PER_ERA};
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

impl MappedArchive for EreFile {
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

    fn path(&self) -> &Path {
        &self.path
    }

    fn map(&self) -> &MappedFile {
        &self.map
    }
}

impl EreFile {
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
    ///
    /// From the index alone where it can (a record ends where the next block's record of its component
    /// starts, in the spec's grouped layout; an interleaved one overcounts, which only moves chunk boundaries):
    /// this runs once per block before the work is cut, and reading each record's header here cost ~1% of a
    /// verification. The last block, or an index that does not grow, reads the record.
    pub fn block_size(&self, i: u64) -> u64 {
        [Component::Header, Component::Body, Component::Receipts]
            .into_iter()
            .filter_map(|c| {
                let at = self.component_offset(i, c).ok().flatten()?;
                let next = (i + 1 < self.index.count)
                    .then(|| self.component_offset(i + 1, c).ok().flatten())
                    .flatten()
                    .filter(|&n| n > at);
                match next {
                    Some(n) => Some(n - at),
                    None => read_record_at(self.bytes(), at)
                        .ok()
                        .map(|r| r.end() - r.offset),
                }
            })
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

/// The index's fixed fields, checked: its starting block number, block count, components per block and
/// record offset. Reads the file's first record and its index record only.
fn index_fields(bytes: &[u8]) -> Result<(u64, u64, u64, u64), FormatError> {
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
    Ok((start, count, components, record_offset))
}

/// The first and last block of the ere file at `path`, from its index's fixed fields alone: no block record is
/// read, so a remote file's skeleton (its first and last bytes) plans a prune. [`MappedArchive::open`] also
/// checks what the first block's entries point at, which lie in the middle of the file.
pub fn block_span(path: &Path) -> Result<(u64, u64), FormatError> {
    let map = MappedFile::open(path)?;
    let (start, count, _, _) = index_fields(map.bytes()).map_err(|e| e.in_file(path))?;
    Ok((start, start + count - 1))
}

/// Reads the trailer: the `DynamicBlockIndex` (the last record), the layout its first block's entries point at,
/// and the `AccumulatorRoot` record just before it, if any.
fn read_trailer(bytes: &[u8]) -> Result<(DynamicBlockIndex, Option<Accumulator>), FormatError> {
    let (start, count, components, record_offset) = index_fields(bytes)?;
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
