//! era1 files: pre-merge execution history, 8192 blocks per file.
//!
//! Layout (the era1 format, <https://github.com/eth-clients/e2store-format-specs/blob/main/formats/era1.md>, as
//! go-ethereum's `internal/era` and reth's `reth-era` implement it):
//!
//! ```text
//! era1  := Version | block-tuple* | other-entries* | Accumulator | BlockIndex
//! block-tuple := CompressedHeader | CompressedBody | CompressedReceipts | TotalDifficulty
//! BlockIndex  := starting-number: u64 LE | index: i64 LE * count | count: u64 LE
//! ```
//!
//! - Index offsets are relative to the start of the BlockIndex record itself, so they are negative.
//! - TotalDifficulty is a 32-byte **little-endian** uint256.
//! - Accumulator is `hash_tree_root(List[HeaderRecord{block_hash, total_difficulty}, 8192])`.
//! - A file is named `<network>-<era:05>-<first 4 bytes of the accumulator root, hex>.era1`.

use super::archive::{ArchiveKind, ArchiveName};
use super::e2store::{read_record_at, Record, RecordType, HEADER_LEN};
use super::error::{FormatError, FormatErrorKind};
use super::mapped::MappedFile;
use std::path::{Path, PathBuf};

pub use super::execution::BLOCKS_PER_ERA;

/// The block index: which block each tuple holds and where it starts.
#[derive(Debug, Clone)]
pub struct BlockIndex {
    /// First block number.
    pub start: u64,
    /// Absolute file offsets of each block's CompressedHeader record.
    pub offsets: Vec<u64>,
    /// Offset of the BlockIndex record.
    pub record_offset: u64,
}

impl BlockIndex {
    /// Number of blocks.
    pub fn len(&self) -> u64 {
        self.offsets.len() as u64
    }
    /// True for an index of no blocks (never valid in an era1 file).
    pub fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }
}

/// The four records of one block, as slices of the map (still compressed).
#[derive(Debug, Clone, Copy)]
pub struct BlockTuple<'a> {
    /// The block number (the index's starting number plus the tuple's position).
    pub number: u64,
    /// `CompressedHeader`: snappy-framed RLP of the header.
    pub header: Record<'a>,
    /// `CompressedBody`: snappy-framed RLP of the body `[transactions, ommers]`.
    pub body: Record<'a>,
    /// `CompressedReceipts`: snappy-framed RLP list of the block's receipts.
    pub receipts: Record<'a>,
    /// `TotalDifficulty`: the chain's total difficulty after this block, 32 bytes little-endian (not
    /// compressed).
    pub total_difficulty: Record<'a>,
}

impl<'a> From<BlockTuple<'a>> for super::execution::BlockRecords<'a> {
    fn from(t: BlockTuple<'a>) -> Self {
        super::execution::BlockRecords {
            number: t.number,
            header: t.header,
            body: t.body,
            receipts: Some(t.receipts),
            total_difficulty: Some(t.total_difficulty),
            proof: None,
        }
    }
}

/// An era1 file, memory-mapped, with its index and accumulator located and bounds-checked.
pub struct Era1File {
    path: PathBuf,
    map: MappedFile,
    index: BlockIndex,
    accumulator: [u8; 32],
    accumulator_offset: u64,
    name: Option<ArchiveName>,
}

impl std::fmt::Debug for Era1File {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Era1File")
            .field("path", &self.path)
            .field("blocks", &self.index.len())
            .finish()
    }
}

impl Era1File {
    /// Maps `path` and reads its Version, BlockIndex and Accumulator records. Block records are read lazily.
    /// A file that shrinks while mapped reads as zeros past its new end instead of killing the process;
    /// [`check_unchanged`](Self::check_unchanged) says so (see [`super::mapped`]).
    pub fn open(path: &Path) -> Result<Self, FormatError> {
        Self::from_map(path, MappedFile::open(path)?)
    }

    /// Reads `bytes` (copied into memory) as the era1 file `path` names, without touching the file system.
    pub fn from_bytes(path: &Path, bytes: &[u8]) -> Result<Self, FormatError> {
        let map = MappedFile::from_bytes(bytes)
            .map_err(|e| FormatError::at(0, FormatErrorKind::Io(e.into())).in_file(path))?;
        Self::from_map(path, map)
    }

    fn from_map(path: &Path, map: MappedFile) -> Result<Self, FormatError> {
        let (index, accumulator, accumulator_offset) =
            Self::read_trailer(map.bytes()).map_err(|e| e.in_file(path))?;
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| ArchiveName::parse_as(ArchiveKind::Era1, n).ok());
        Ok(Era1File {
            path: path.to_path_buf(),
            map,
            index,
            accumulator,
            accumulator_offset,
            name,
        })
    }

    fn read_trailer(bytes: &[u8]) -> Result<(BlockIndex, [u8; 32], u64), FormatError> {
        let len = bytes.len() as u64;
        read_record_at(bytes, 0)?.expect(RecordType::VERSION, "Version")?;
        // BlockIndex is the last record; its final 8 bytes are the count.
        let count_bytes: [u8; 8] = bytes
            .get(bytes.len().saturating_sub(8)..)
            .and_then(|s| s.try_into().ok())
            .ok_or_else(|| {
                FormatError::at(
                    0,
                    FormatErrorKind::Truncated {
                        expected: 8,
                        found: len,
                    },
                )
            })?;
        let count = u64::from_le_bytes(count_bytes);
        if count == 0 || count > BLOCKS_PER_ERA {
            return Err(FormatError::at(
                len - 8,
                FormatErrorKind::Index(format!("block count must be 1..=8192, found {count}")),
            ));
        }
        let index_len = HEADER_LEN as u64 + 16 + 8 * count;
        let index_offset = len.checked_sub(index_len).ok_or_else(|| {
            FormatError::at(
                0,
                FormatErrorKind::Index(format!(
                    "file of {len} bytes cannot hold an index of {count} blocks"
                )),
            )
        })?;
        let rec = read_record_at(bytes, index_offset)?;
        rec.expect(RecordType::BLOCK_INDEX, "BlockIndex")?;
        if rec.end() != len {
            return Err(FormatError::at(
                index_offset,
                FormatErrorKind::Index(format!(
                    "index record ends at {}, file at {len}",
                    rec.end()
                )),
            ));
        }
        let start = u64::from_le_bytes(rec.data[..8].try_into().unwrap_or_default());
        // Block numbers are u64: an index whose blocks would reach 2^64 - 1 is garbage, not history, and would
        // make "first..=last" and "last + 1" (the next file's first block) wrap around. The fuzzer found
        // `start + count - 1 == u64::MAX` overflowing in `last_block` (fuzz/corpus/era1/crash-3662dfd5...).
        if start.checked_add(count).is_none() {
            return Err(FormatError::at(
                index_offset + HEADER_LEN as u64,
                FormatErrorKind::Index(format!(
                    "starting block number {start} with {count} blocks passes the largest block number {}",
                    u64::MAX - 1
                )),
            ));
        }
        let mut offsets = Vec::with_capacity(count as usize);
        for (i, c) in rec.data[8..8 + 8 * count as usize]
            .chunks_exact(8)
            .enumerate()
        {
            let rel = i64::from_le_bytes(c.try_into().unwrap_or_default());
            let abs = (index_offset as i128) + rel as i128;
            if abs < HEADER_LEN as i128 || abs >= index_offset as i128 {
                return Err(FormatError::at(
                    index_offset + 8 + 8 + 8 * i as u64,
                    FormatErrorKind::Index(format!(
                        "entry {i} (block {}) points to offset {abs}, outside the block records 8..{index_offset}",
                        start.saturating_add(i as u64)
                    )),
                )
                .in_block(start.saturating_add(i as u64)));
            }
            offsets.push(abs as u64);
        }
        let acc_offset = index_offset
            .checked_sub(HEADER_LEN as u64 + 32)
            .ok_or_else(|| {
                FormatError::at(
                    index_offset,
                    FormatErrorKind::Index("no room for the Accumulator record".into()),
                )
            })?;
        let acc = read_record_at(bytes, acc_offset)?;
        acc.expect(RecordType::ACCUMULATOR, "Accumulator")?;
        let accumulator: [u8; 32] = acc.data.try_into().map_err(|_| {
            FormatError::at(
                acc_offset,
                FormatErrorKind::Mismatch {
                    what: "accumulator length",
                    expected: "32".into(),
                    found: acc.data.len().to_string(),
                },
            )
        })?;
        Ok((
            BlockIndex {
                start,
                offsets,
                record_offset: index_offset,
            },
            accumulator,
            acc_offset,
        ))
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
    /// The whole file as bytes (the memory map).
    pub fn bytes(&self) -> &[u8] {
        self.map.bytes()
    }

    /// Fails when the file changed since it was opened (see [`MappedFile::check_unchanged`]): call it once
    /// the file is processed.
    pub fn check_unchanged(&self) -> Result<(), FormatError> {
        self.map
            .check_unchanged()
            .map_err(|e| e.in_file(&self.path))
    }
    /// The block index.
    pub fn index(&self) -> &BlockIndex {
        &self.index
    }
    /// First block number.
    pub fn first_block(&self) -> u64 {
        self.index.start
    }
    /// Last block number.
    pub fn last_block(&self) -> u64 {
        self.index.start + self.index.len() - 1
    }
    /// Number of blocks.
    pub fn block_count(&self) -> u64 {
        self.index.len()
    }
    /// The Accumulator record's root.
    pub fn accumulator_root(&self) -> &[u8; 32] {
        &self.accumulator
    }
    /// Offset of the Accumulator record.
    pub fn accumulator_offset(&self) -> u64 {
        self.accumulator_offset
    }
    /// The parsed file name, when it is canonical.
    pub fn name(&self) -> Option<&ArchiveName> {
        self.name.as_ref()
    }

    /// The records of the `i`-th block of the file (0-based), checked to be in tuple order.
    pub fn block(&self, i: u64) -> Result<BlockTuple<'_>, FormatError> {
        let number = self.index.start + i;
        let at = |e: FormatError| e.in_file(&self.path).in_block(number);
        let offset = *self.index.offsets.get(i as usize).ok_or_else(|| {
            at(FormatError::at(
                self.index.record_offset,
                FormatErrorKind::Index(format!("no entry {i}")),
            ))
        })?;
        let header = read_record_at(self.map.bytes(), offset).map_err(at)?;
        header
            .expect(RecordType::COMPRESSED_HEADER, "CompressedHeader")
            .map_err(at)?;
        let body = read_record_at(self.map.bytes(), header.end()).map_err(at)?;
        body.expect(RecordType::COMPRESSED_BODY, "CompressedBody")
            .map_err(at)?;
        let receipts = read_record_at(self.map.bytes(), body.end()).map_err(at)?;
        receipts
            .expect(RecordType::COMPRESSED_RECEIPTS, "CompressedReceipts")
            .map_err(at)?;
        let total_difficulty = read_record_at(self.map.bytes(), receipts.end()).map_err(at)?;
        total_difficulty
            .expect(RecordType::TOTAL_DIFFICULTY, "TotalDifficulty")
            .map_err(at)?;
        super::execution::check_total_difficulty(&total_difficulty).map_err(at)?;
        Ok(BlockTuple {
            number,
            header,
            body,
            receipts,
            total_difficulty,
        })
    }
}

/// Writes an era1 file: block tuples in order, then the accumulator and index. The file appears under its
/// canonical name only when complete (see `util::fs::AtomicFile`).
pub struct Era1Writer {
    out: crate::util::fs::AtomicFile,
    dir: PathBuf,
    network: String,
    start: Option<u64>,
    pos: u64,
    offsets: Vec<u64>,
    records: crate::execution::accumulator::HeaderRecords,
    scratch: Vec<u8>,
}

impl Era1Writer {
    /// Starts a file for `network` in `dir`; its name is fixed at [`Era1Writer::finish`].
    pub fn create(dir: &Path, network: &str) -> std::io::Result<Self> {
        use std::io::Write;
        // Unique per writer so parallel writers into one directory never share a temporary file.
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let partial = dir.join(format!(
            ".{network}.{}.{n}.era1.partial",
            std::process::id()
        ));
        let mut out = crate::util::fs::AtomicFile::create(&partial)?;
        let mut scratch = Vec::new();
        super::e2store::write_record(&mut scratch, RecordType::VERSION, &[]);
        out.write_all(&scratch)?;
        Ok(Era1Writer {
            out,
            dir: dir.to_path_buf(),
            network: network.to_string(),
            start: None,
            pos: scratch.len() as u64,
            offsets: Vec::with_capacity(BLOCKS_PER_ERA as usize),
            records: crate::execution::accumulator::HeaderRecords::with_capacity(
                BLOCKS_PER_ERA as usize,
            ),
            scratch,
        })
    }

    fn record(&mut self, kind: RecordType, data: &[u8]) -> std::io::Result<()> {
        use std::io::Write;
        self.scratch.clear();
        super::e2store::write_record(&mut self.scratch, kind, data);
        self.out.write_all(&self.scratch)?;
        self.pos += self.scratch.len() as u64;
        Ok(())
    }

    /// Appends block `number` (must follow the previous one): uncompressed RLP of header, body and receipts,
    /// and the total difficulty after it.
    pub fn add_block(
        &mut self,
        number: u64,
        header_rlp: &[u8],
        body_rlp: &[u8],
        receipts_rlp: &[u8],
        total_difficulty: alloy_primitives::U256,
    ) -> std::io::Result<()> {
        let expected = self.start.map_or(number, |s| s + self.offsets.len() as u64);
        if number != expected || self.offsets.len() as u64 >= BLOCKS_PER_ERA {
            return Err(std::io::Error::other(format!(
                "era1 writer: expected block {expected} (at most 8192 per file), got {number}"
            )));
        }
        self.start.get_or_insert(number);
        self.offsets.push(self.pos);
        let hash = crate::crypto::keccak::keccak256(header_rlp);
        let td_le: [u8; 32] = total_difficulty.to_le_bytes();
        self.records.push(&hash.0, &td_le);
        self.record(
            RecordType::COMPRESSED_HEADER,
            &super::snappy::compress_framed(header_rlp),
        )?;
        self.record(
            RecordType::COMPRESSED_BODY,
            &super::snappy::compress_framed(body_rlp),
        )?;
        self.record(
            RecordType::COMPRESSED_RECEIPTS,
            &super::snappy::compress_framed(receipts_rlp),
        )?;
        self.record(RecordType::TOTAL_DIFFICULTY, &td_le)
    }

    /// Writes the accumulator and index, and moves the file to `<network>-<era:05>-<hash8>.era1`.
    pub fn finish(mut self) -> std::io::Result<PathBuf> {
        let start = self
            .start
            .ok_or_else(|| std::io::Error::other("era1 writer: no blocks"))?;
        let root = self
            .records
            .root()
            .ok_or_else(|| std::io::Error::other("era1 writer: too many blocks"))?;
        self.record(RecordType::ACCUMULATOR, &root)?;
        let index_pos = self.pos as i64;
        let mut index = Vec::with_capacity(16 + 8 * self.offsets.len());
        index.extend_from_slice(&start.to_le_bytes());
        for &o in &self.offsets {
            index.extend_from_slice(&(o as i64 - index_pos).to_le_bytes());
        }
        index.extend_from_slice(&(self.offsets.len() as u64).to_le_bytes());
        self.record(RecordType::BLOCK_INDEX, &index)?;
        let name = ArchiveName::format(
            ArchiveKind::Era1,
            &self.network,
            start / BLOCKS_PER_ERA,
            &root,
        );
        let dest = self.dir.join(&name);
        let tmp_dest = self.out.dest().to_path_buf();
        self.out.commit()?;
        std::fs::rename(&tmp_dest, &dest)?;
        Ok(dest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        let n = ArchiveName::parse_as(ArchiveKind::Era1, "sepolia-00021-b8814b14.era1").unwrap();
        assert_eq!(
            (n.network.as_str(), n.era, n.short_root),
            ("sepolia", 21, [0xb8, 0x81, 0x4b, 0x14])
        );
        let n =
            ArchiveName::parse_as(ArchiveKind::Era1, "synthnet-r1-00002-00112233.era1").unwrap();
        assert_eq!((n.network.as_str(), n.era), ("synthnet-r1", 2));
        for bad in [
            "x.era1",
            "mainnet-0-5ec1ffb8.era1",
            "mainnet-00000-5ec1ffb.era1",
            "mainnet-00000-5ec1ffbz.era1",
            "mainnet-00000-5ec1ffb8.era",
        ] {
            assert!(
                ArchiveName::parse_as(ArchiveKind::Era1, bad).is_err(),
                "{bad}"
            );
        }
        assert_eq!(
            ArchiveName::format(ArchiveKind::Era1, "mainnet", 3, &[0xab; 32]),
            "mainnet-00003-abababab.era1"
        );
    }
}
