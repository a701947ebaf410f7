//! Reading era files (the layout is in the module above).

use crate::formats::e2store::mapped::MappedFile;
use crate::formats::e2store::{read_record_at, MappedArchive, Record, RecordType, HEADER_LEN};
use crate::formats::error::{FormatError, FormatErrorKind};
use crate::formats::snappy::FramedDecoder;
use std::path::{Path, PathBuf};

/// Slots per era file (SLOTS_PER_HISTORICAL_ROOT of the mainnet preset).
pub const SLOTS_PER_ERA: u64 = 8192;

/// Largest decompressed `CompressedSignedBeaconBlock` accepted. A block's size is its execution payload's
/// transactions plus at most ~0.2 MB of consensus operations (attestations, slashings, deposits, exits):
/// payloads stayed under ~9 MB (36M gas of zero calldata at 4 gas a byte; EIP-7623 raised that to 10 gas in
/// Pectra) and EIP-7934 caps an execution block at 10 MiB of RLP from Fusaka on; 32 MiB is 3x that.
pub const MAX_BLOCK_BYTES: usize = 32 << 20;

/// Largest decompressed `CompressedBeaconState` accepted. A state is dominated by its validator registry,
/// ~150 bytes a validator with balances, participation and inactivity scores (~170 MB at mainnet's ~1.1M
/// validators in 2025); every ETH in existence staked in 32-ETH validators would be ~3.8M validators, ~570 MB.
/// 1 GiB covers that. Era files are verified one at a time, so one state buffer is live per process.
pub const MAX_STATE_BYTES: usize = 1 << 30;

/// A decoder for `CompressedSignedBeaconBlock` records (capped at [`MAX_BLOCK_BYTES`]); one per worker.
pub fn block_decoder() -> FramedDecoder {
    FramedDecoder::with_max_output(MAX_BLOCK_BYTES)
}

/// A decoder for the `CompressedBeaconState` record (capped at [`MAX_STATE_BYTES`]).
pub fn state_decoder() -> FramedDecoder {
    FramedDecoder::with_max_output(MAX_STATE_BYTES)
}

/// A slot index: the starting slot and the absolute file offset of each slot's record (`None` = empty slot).
#[derive(Debug, Clone)]
pub struct SlotIndex {
    /// The slot of the first entry: `(era - 1) * 8192` for the block index, `era * 8192` for the state index.
    pub start_slot: u64,
    /// One entry per slot from `start_slot`: the absolute file offset of that slot's record (the on-disk
    /// offsets, relative to the index record, already resolved), or `None` for a slot without a block.
    pub offsets: Vec<Option<u64>>,
    /// Absolute file offset of the SlotIndex record itself.
    pub record_offset: u64,
}

/// An era file, memory-mapped, with its slot indices located and bounds-checked.
pub struct EraFile {
    path: PathBuf,
    map: MappedFile,
    state_index: SlotIndex,
    block_index: Option<SlotIndex>,
}

impl std::fmt::Debug for EraFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EraFile")
            .field("path", &self.path)
            .field("state_slot", &self.state_slot())
            .finish()
    }
}

fn read_index(
    bytes: &[u8],
    offset: u64,
    expect_count: Option<u64>,
) -> Result<SlotIndex, FormatError> {
    let rec = read_record_at(bytes, offset)?;
    rec.expect(RecordType::SLOT_INDEX, "SlotIndex")?;
    let d = rec.data;
    if d.len() < 16 || (d.len() - 16) % 8 != 0 {
        return Err(FormatError::at(
            offset,
            FormatErrorKind::Index(format!("slot index of {} bytes", d.len())),
        ));
    }
    let count = u64::from_le_bytes(d[d.len() - 8..].try_into().unwrap_or_default());
    if count != ((d.len() - 16) / 8) as u64 || expect_count.is_some_and(|c| c != count) {
        return Err(FormatError::at(
            offset,
            FormatErrorKind::Index(format!(
                "slot index declares {count} entries in {} bytes{}",
                d.len(),
                expect_count.map_or(String::new(), |c| format!(", expected {c}"))
            )),
        ));
    }
    let start_slot = u64::from_le_bytes(d[..8].try_into().unwrap_or_default());
    // Slots are u64: an index reaching past 2^64 - 1 is garbage (and later slot arithmetic would wrap). The
    // bound keeps one spare era, so `start_slot + 8192` (the block index's link to the state's slot) is exact.
    if start_slot.checked_add(count + SLOTS_PER_ERA).is_none() {
        return Err(FormatError::at(
            offset + HEADER_LEN as u64,
            FormatErrorKind::Index(format!(
                "starting slot {start_slot} with {count} entries passes the largest slot {}",
                u64::MAX - SLOTS_PER_ERA
            )),
        ));
    }
    let mut offsets = Vec::with_capacity(count as usize);
    for (i, c) in d[8..d.len() - 8].chunks_exact(8).enumerate() {
        let rel = i64::from_le_bytes(c.try_into().unwrap_or_default());
        if rel == 0 {
            offsets.push(None);
            continue;
        }
        let abs = offset as i128 + rel as i128;
        if abs < HEADER_LEN as i128 || abs >= offset as i128 {
            return Err(FormatError::at(
                offset + 8 + 8 + 8 * i as u64,
                FormatErrorKind::Index(format!(
                    "entry {i} (slot {}) points to offset {abs}, outside 8..{offset}",
                    start_slot + i as u64
                )),
            ));
        }
        offsets.push(Some(abs as u64));
    }
    Ok(SlotIndex {
        start_slot,
        offsets,
        record_offset: offset,
    })
}

impl MappedArchive for EraFile {
    fn from_map(path: &Path, map: MappedFile) -> Result<Self, FormatError> {
        let (state_index, block_index) =
            Self::read_indices(map.bytes()).map_err(|e| e.in_file(path))?;
        Ok(EraFile {
            path: path.to_path_buf(),
            map,
            state_index,
            block_index,
        })
    }

    fn path(&self) -> &Path {
        &self.path
    }

    fn map(&self) -> &MappedFile {
        &self.map
    }
}

impl EraFile {
    fn read_indices(bytes: &[u8]) -> Result<(SlotIndex, Option<SlotIndex>), FormatError> {
        let len = bytes.len() as u64;
        read_record_at(bytes, 0)?.expect(RecordType::VERSION, "Version")?;
        let state_at = len.checked_sub(HEADER_LEN as u64 + 24).ok_or_else(|| {
            FormatError::at(
                0,
                FormatErrorKind::Truncated {
                    expected: 32,
                    found: len,
                },
            )
        })?;
        let state_index = read_index(bytes, state_at, Some(1))?;
        if state_index.offsets[0].is_none() {
            return Err(FormatError::at(
                state_at,
                FormatErrorKind::Index("the state slot index is empty".into()),
            ));
        }
        let block_len = HEADER_LEN as u64 + 16 + 8 * SLOTS_PER_ERA;
        let block_index = state_at
            .checked_sub(block_len)
            .filter(|&at| read_record_at(bytes, at).is_ok_and(|r| r.kind == RecordType::SLOT_INDEX))
            .map(|at| read_index(bytes, at, Some(SLOTS_PER_ERA)))
            .transpose()?;
        if let Some(b) = &block_index {
            if b.start_slot + SLOTS_PER_ERA != state_index.start_slot {
                return Err(FormatError::at(
                    b.record_offset,
                    FormatErrorKind::Mismatch {
                        what: "block index start slot",
                        expected: format!(
                            "{} (state slot - 8192)",
                            state_index.start_slot.saturating_sub(SLOTS_PER_ERA)
                        ),
                        found: b.start_slot.to_string(),
                    },
                ));
            }
        }
        Ok((state_index, block_index))
    }

    /// Slot of the state (`era * 8192`).
    pub fn state_slot(&self) -> u64 {
        self.state_index.start_slot
    }
    /// The era number.
    pub fn era(&self) -> u64 {
        self.state_slot() / SLOTS_PER_ERA
    }
    /// The block slot index (absent in the genesis era).
    pub fn block_index(&self) -> Option<&SlotIndex> {
        self.block_index.as_ref()
    }

    /// The CompressedBeaconState record.
    pub fn state_record(&self) -> Result<Record<'_>, FormatError> {
        let at = self.state_index.offsets[0].unwrap_or_default();
        let r = read_record_at(self.map.bytes(), at).map_err(|e| e.in_file(&self.path))?;
        r.expect(RecordType::COMPRESSED_BEACON_STATE, "CompressedBeaconState")
            .map_err(|e| e.in_file(&self.path))?;
        Ok(r)
    }

    /// The CompressedSignedBeaconBlock record of `slot`, or `None` for an empty slot or a slot outside the file.
    pub fn block_record(&self, slot: u64) -> Result<Option<Record<'_>>, FormatError> {
        let Some(idx) = &self.block_index else {
            return Ok(None);
        };
        let Some(Some(at)) = slot
            .checked_sub(idx.start_slot)
            .and_then(|i| idx.offsets.get(i as usize))
        else {
            return Ok(None);
        };
        let r = read_record_at(self.map.bytes(), *at)
            .map_err(|e| e.in_file(&self.path).in_slot(slot))?;
        r.expect(
            RecordType::COMPRESSED_SIGNED_BEACON_BLOCK,
            "CompressedSignedBeaconBlock",
        )
        .map_err(|e| e.in_file(&self.path).in_slot(slot))?;
        Ok(Some(r))
    }
}
