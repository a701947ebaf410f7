//! e2store: the type-length-value container under era1, era and ere files.
//!
//! Format facts (e2store as specified in nimbus-eth2's `docs/e2store.md`
//! <https://github.com/status-im/nimbus-eth2/blob/unstable/docs/e2store.md>; the formats built on it are in
//! <https://github.com/eth-clients/e2store-format-specs>):
//! - a record is an 8-byte header `type: [u8; 2] | length: u32 LE | reserved: u16 (zero)` followed by
//!   `length` bytes of data;
//! - a file is a sequence of records starting with a `Version` record (`"e2"`, length 0);
//! - readers skip record types they do not know.
//!
//! Records are handed out as slices of the memory map: nothing is copied.

pub mod mapped;
pub mod snappy;

use super::error::{FormatError, FormatErrorKind};
use mapped::MappedFile;
use std::path::Path;

/// What every archive file type shares: one memory map of the file at a path, opened from the file or from
/// bytes, read once ([`MappedArchive::from_map`]: the type's index and trailer), and checked once processed.
pub trait MappedArchive {
    /// Reads the file's layout (indices, trailer) from `map`, the bytes of the file `path` names.
    fn from_map(path: &Path, map: MappedFile) -> Result<Self, FormatError>
    where
        Self: Sized;

    /// The file's path.
    fn path(&self) -> &Path;

    /// The file's map.
    fn map(&self) -> &MappedFile;

    /// Maps `path` and reads its layout; records are read lazily. A file that shrinks while mapped reads as
    /// zeros past its new end instead of killing the process; [`check_unchanged`](Self::check_unchanged) says
    /// so (see [`mapped`]).
    fn open(path: &Path) -> Result<Self, FormatError>
    where
        Self: Sized,
    {
        Self::read_mapped(path, MappedFile::open(path)?)
    }

    /// [`from_map`](Self::from_map) on the map of the file at `path`, where a layout that fails to read
    /// because the file changed underneath fails as [`FormatErrorKind::Changed`].
    fn read_mapped(path: &Path, map: MappedFile) -> Result<Self, FormatError>
    where
        Self: Sized,
    {
        let opened = map.opened();
        // A layout that fails to read because the file shrank or was rewritten under the map is the file's
        // change (exit 2: rerun once it is complete), not a malformed archive (exit 1).
        Self::from_map(path, map).map_err(|e| match opened.map(|o| o.check()) {
            Some(Err(changed)) => changed.in_file(path),
            _ => e,
        })
    }

    /// Reads `bytes` (copied into memory) as the file `path` names, without touching the file system
    /// (fuzzing, tests).
    fn from_bytes(path: &Path, bytes: &[u8]) -> Result<Self, FormatError>
    where
        Self: Sized,
    {
        let map = MappedFile::from_bytes(bytes)
            .map_err(|e| FormatError::at(0, FormatErrorKind::Io(e.into())).in_file(path))?;
        Self::from_map(path, map)
    }

    /// The whole file as bytes (the memory map).
    fn bytes(&self) -> &[u8] {
        self.map().bytes()
    }

    /// Fails when the file changed since it was opened (see [`MappedFile::check_unchanged`]): call it once
    /// the file is processed.
    fn check_unchanged(&self) -> Result<(), FormatError> {
        self.map()
            .check_unchanged()
            .map_err(|e| e.in_file(self.path()))
    }
}

/// Size of a record header.
pub const HEADER_LEN: usize = 8;

/// Largest record accepted (a guard against garbage lengths; records are slices of the map, so nothing is
/// allocated by it). An era file's compressed `BeaconState` is the largest record there is: a state of a million
/// validators compresses to ~100 MB (its pubkeys do not compress), above the 50 MiB go-ethereum's reader allows for
/// era1 records, so the cap is the decompressed state's own, 1 GiB ([`crate::formats::era::MAX_STATE_BYTES`]).
pub const MAX_RECORD_LEN: u64 = 1 << 30;

/// A record type, compared as the two bytes on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RecordType(pub [u8; 2]);

impl RecordType {
    /// `Version` (`"e2"`): must open every e2store file.
    pub const VERSION: RecordType = RecordType([0x65, 0x32]);
    /// era1: snappy-framed RLP block header.
    pub const COMPRESSED_HEADER: RecordType = RecordType([0x03, 0x00]);
    /// era1: snappy-framed RLP block body `[transactions, ommers]`.
    pub const COMPRESSED_BODY: RecordType = RecordType([0x04, 0x00]);
    /// era1: snappy-framed RLP list of receipts.
    pub const COMPRESSED_RECEIPTS: RecordType = RecordType([0x05, 0x00]);
    /// era1: total difficulty after the block, uint256 little-endian.
    pub const TOTAL_DIFFICULTY: RecordType = RecordType([0x06, 0x00]);
    /// era1: hash_tree_root of the header-record list.
    pub const ACCUMULATOR: RecordType = RecordType([0x07, 0x00]);
    /// era1: block index (starting number, offsets, count).
    pub const BLOCK_INDEX: RecordType = RecordType([0x66, 0x32]);
    /// era: snappy-framed SSZ SignedBeaconBlock.
    pub const COMPRESSED_SIGNED_BEACON_BLOCK: RecordType = RecordType([0x01, 0x00]);
    /// era: snappy-framed SSZ BeaconState.
    pub const COMPRESSED_BEACON_STATE: RecordType = RecordType([0x02, 0x00]);
    /// era: slot index (starting slot, offsets, count).
    pub const SLOT_INDEX: RecordType = RecordType([0x69, 0x32]);
    /// ere: snappy-framed RLP list of slim receipts `[tx-type, post-state-or-status, cumulative-gas, logs]`.
    pub const COMPRESSED_SLIM_RECEIPTS: RecordType = RecordType([0x0a, 0x00]);
    /// ere: snappy-framed RLP `[proof-type, ssz(proof)]` tying a header to a trusted root (Portal proofs).
    pub const PROOF: RecordType = RecordType([0x0b, 0x00]);
    /// ere: dynamic block index (starting number, 2 to 5 offsets per block, component count, count).
    pub const DYNAMIC_BLOCK_INDEX: RecordType = RecordType([0x67, 0x32]);
    /// Padding record, ignored.
    pub const EMPTY: RecordType = RecordType([0x00, 0x00]);

    /// A human name for messages.
    pub fn name(self) -> String {
        let known = match self {
            Self::VERSION => "Version",
            Self::COMPRESSED_HEADER => "CompressedHeader",
            Self::COMPRESSED_BODY => "CompressedBody",
            Self::COMPRESSED_RECEIPTS => "CompressedReceipts",
            Self::TOTAL_DIFFICULTY => "TotalDifficulty",
            Self::ACCUMULATOR => "Accumulator",
            Self::BLOCK_INDEX => "BlockIndex",
            Self::COMPRESSED_SIGNED_BEACON_BLOCK => "CompressedSignedBeaconBlock",
            Self::COMPRESSED_BEACON_STATE => "CompressedBeaconState",
            Self::SLOT_INDEX => "SlotIndex",
            Self::COMPRESSED_SLIM_RECEIPTS => "CompressedSlimReceipts",
            Self::PROOF => "Proof",
            Self::DYNAMIC_BLOCK_INDEX => "DynamicBlockIndex",
            Self::EMPTY => "Empty",
            _ => "",
        };
        if known.is_empty() {
            format!("0x{:02x}{:02x}", self.0[0], self.0[1])
        } else {
            format!("{known} (0x{:02x}{:02x})", self.0[0], self.0[1])
        }
    }
}

/// One record: its type, where it starts, and its data as a slice of the file.
#[derive(Debug, Clone, Copy)]
pub struct Record<'a> {
    /// The record type from the header's first two bytes (unknown types are kept, not rejected).
    pub kind: RecordType,
    /// Offset of the record header from the start of the file.
    pub offset: u64,
    /// The `length` data bytes after the 8-byte header, borrowed from the input (still compressed for the
    /// `Compressed*` types).
    pub data: &'a [u8],
}

impl Record<'_> {
    /// Offset just past this record.
    pub fn end(&self) -> u64 {
        self.offset + HEADER_LEN as u64 + self.data.len() as u64
    }

    /// Fails unless the record is of type `want`.
    pub fn expect(&self, want: RecordType, want_name: &'static str) -> Result<(), FormatError> {
        if self.kind == want {
            Ok(())
        } else {
            Err(FormatError::at(
                self.offset,
                FormatErrorKind::UnexpectedRecord {
                    expected: want_name,
                    found: self.kind.name(),
                },
            ))
        }
    }
}

/// Reads the record that starts at `offset` of `bytes`.
pub fn read_record_at(bytes: &[u8], offset: u64) -> Result<Record<'_>, FormatError> {
    let start = usize::try_from(offset).map_err(|_| {
        FormatError::at(
            offset,
            FormatErrorKind::Index("offset beyond address space".into()),
        )
    })?;
    let avail = bytes.len().saturating_sub(start) as u64;
    let header = bytes
        .get(start..start.saturating_add(HEADER_LEN))
        .ok_or_else(|| {
            FormatError::at(
                offset,
                FormatErrorKind::Truncated {
                    expected: HEADER_LEN as u64,
                    found: avail,
                },
            )
        })?;
    let kind = RecordType([header[0], header[1]]);
    let len = u32::from_le_bytes([header[2], header[3], header[4], header[5]]) as u64;
    let reserved = u16::from_le_bytes([header[6], header[7]]);
    if reserved != 0 {
        return Err(FormatError::at(
            offset,
            FormatErrorKind::ReservedNotZero { found: reserved },
        ));
    }
    if len > MAX_RECORD_LEN {
        return Err(FormatError::at(
            offset,
            FormatErrorKind::RecordTooLarge {
                found: len,
                cap: MAX_RECORD_LEN,
            },
        ));
    }
    let data_start = start + HEADER_LEN;
    let data = bytes
        .get(data_start..data_start + len as usize)
        .ok_or_else(|| {
            FormatError::at(
                offset,
                FormatErrorKind::Truncated {
                    expected: len,
                    found: avail - HEADER_LEN as u64,
                },
            )
        })?;
    Ok(Record { kind, offset, data })
}

/// Iterates the records of a whole e2store byte slice, in order.
///
/// Yields an error (and then stops) on the first malformed record, so a truncated file never loops.
///
/// # Example
///
/// Two records written out by hand: the `Version` record every file starts with (`"e2"`, no data), then a
/// record of a type eraflow does not know, which is handed out rather than rejected.
///
/// ```
/// use eraflow::formats::e2store::{E2StoreReader, RecordType};
///
/// let file = [
///     0x65, 0x32, 0, 0, 0, 0, 0, 0,       // type "e2", length 0, reserved 0
///     0xaa, 0xbb, 3, 0, 0, 0, 0, 0,       // type 0xaabb, length 3 (u32 little-endian), reserved 0
///     b'a', b'b', b'c',                   // its data
/// ];
/// let records = E2StoreReader::new(&file).collect::<Result<Vec<_>, _>>()?;
/// assert_eq!(records.len(), 2);
/// assert_eq!(records[0].kind, RecordType::VERSION);
/// assert_eq!(records[1].kind, RecordType([0xaa, 0xbb]));
/// assert_eq!((records[1].offset, records[1].data), (8, &b"abc"[..]));
/// assert_eq!(records[1].end(), file.len() as u64);
///
/// // A record cut short is an error that names the offset of its header, and iteration stops there.
/// let mut cut = E2StoreReader::new(&file[..file.len() - 1]);
/// assert!(cut.next().unwrap().is_ok());
/// assert_eq!(cut.next().unwrap().unwrap_err().offset, 8);
/// assert!(cut.next().is_none());
/// # Ok::<(), eraflow::formats::FormatError>(())
/// ```
pub struct E2StoreReader<'a> {
    bytes: &'a [u8],
    pos: u64,
    failed: bool,
}

impl<'a> E2StoreReader<'a> {
    /// A reader over `bytes` (usually a memory map), starting at offset 0.
    pub fn new(bytes: &'a [u8]) -> Self {
        E2StoreReader {
            bytes,
            pos: 0,
            failed: false,
        }
    }
}

impl<'a> Iterator for E2StoreReader<'a> {
    type Item = Result<Record<'a>, FormatError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.pos >= self.bytes.len() as u64 {
            return None;
        }
        match read_record_at(self.bytes, self.pos) {
            Ok(r) => {
                self.pos = r.end();
                Some(Ok(r))
            }
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}

/// Appends one record (header + data) to `out`: the writer side, used by the era1 writer and synth.
pub fn write_record(out: &mut Vec<u8>, kind: RecordType, data: &[u8]) {
    out.extend_from_slice(&kind.0);
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(data);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_errors() {
        let mut f = Vec::new();
        write_record(&mut f, RecordType::VERSION, &[]);
        write_record(&mut f, RecordType([0xaa, 0xbb]), b"skip me");
        write_record(&mut f, RecordType::ACCUMULATOR, &[7u8; 32]);
        let recs: Vec<_> = E2StoreReader::new(&f).collect::<Result<_, _>>().unwrap();
        assert_eq!(recs.len(), 3);
        assert_eq!(recs[2].kind, RecordType::ACCUMULATOR);
        assert_eq!(recs[2].offset, 8 + 8 + 7);

        // Truncated data.
        let err = E2StoreReader::new(&f[..f.len() - 1])
            .last()
            .unwrap()
            .unwrap_err();
        assert!(
            matches!(
                err.kind,
                FormatErrorKind::Truncated {
                    expected: 32,
                    found: 31
                }
            ),
            "{err}"
        );
        assert_eq!(err.offset, 23);
        // Truncated header.
        let err = read_record_at(&f, f.len() as u64 - 3).unwrap_err();
        assert!(matches!(err.kind, FormatErrorKind::Truncated { .. }));
        // Reserved bytes.
        let mut g = f.clone();
        g[7] = 1;
        assert!(matches!(
            read_record_at(&g, 0).unwrap_err().kind,
            FormatErrorKind::ReservedNotZero { .. }
        ));
        // Length cap.
        let mut h = f.clone();
        h[2..6].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(
            read_record_at(&h, 0).unwrap_err().kind,
            FormatErrorKind::RecordTooLarge { .. }
        ));
    }
}
