//! Reading era1 files (the layout is in the module above).

use crate::formats::block::{check_total_difficulty, BlockRecords};
use crate::formats::e2store::mapped::MappedFile;
use crate::formats::e2store::{read_record_at, MappedArchive, Record, RecordType, HEADER_LEN};
use crate::formats::error::{FormatError, FormatErrorKind};
use crate::formats::name::{ArchiveKind, ArchiveName, BLOCKS_PER_ERA};
use std::path::{Path, PathBuf};

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

impl<'a> From<BlockTuple<'a>> for BlockRecords<'a> {
    fn from(t: BlockTuple<'a>) -> Self {
        BlockRecords {
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

impl MappedArchive for Era1File {
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

    fn path(&self) -> &Path {
        &self.path
    }

    fn map(&self) -> &MappedFile {
        &self.map
    }
}

impl Era1File {
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
        check_total_difficulty(&total_difficulty).map_err(at)?;
        Ok(BlockTuple {
            number,
            header,
            body,
            receipts,
            total_difficulty,
        })
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
