//! era files: beacon-chain history, one file per 8192 slots
//! (<https://github.com/eth-clients/e2store-format-specs/blob/main/formats/era.md>).
//!
//! ```text
//! era   := group+
//! group := Version | CompressedSignedBeaconBlock* | CompressedBeaconState | other* | SlotIndex(block)? | SlotIndex(state)
//! SlotIndex := starting-slot: u64 LE | offset: i64 LE * count | count: u64 LE
//! ```
//!
//! - Offsets are relative to the start of the SlotIndex record; 0 marks an empty slot.
//! - The state is the one at slot `era * 8192`; the blocks are those of slots `(era - 1) * 8192 ..
//!   era * 8192`, so the genesis era has a state and no block index.
//! - A file is named `<network>-<era:05>-<hash8>.era`: hash8 is the first 4 bytes of the genesis validators
//!   root (era 0), `historical_roots[era - 1]` before Capella, or the historical summary root after it.

use super::archive::{ArchiveKind, ArchiveName};
use super::e2store::{read_record_at, Record, RecordType, HEADER_LEN};
use super::error::{FormatError, FormatErrorKind};
use super::mapped::MappedFile;
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
pub fn block_decoder() -> super::snappy::FramedDecoder {
    super::snappy::FramedDecoder::with_max_output(MAX_BLOCK_BYTES)
}

/// A decoder for the `CompressedBeaconState` record (capped at [`MAX_STATE_BYTES`]).
pub fn state_decoder() -> super::snappy::FramedDecoder {
    super::snappy::FramedDecoder::with_max_output(MAX_STATE_BYTES)
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

impl EraFile {
    /// Maps `path` and reads its slot indices (guarded like [`super::era1::Era1File::open`]).
    pub fn open(path: &Path) -> Result<Self, FormatError> {
        Self::from_map(path, MappedFile::open(path)?)
    }

    /// Reads `bytes` (copied into memory) as the era file `path` names, without touching the file system.
    pub fn from_bytes(path: &Path, bytes: &[u8]) -> Result<Self, FormatError> {
        let map = MappedFile::from_bytes(bytes)
            .map_err(|e| FormatError::at(0, FormatErrorKind::Io(e.into())).in_file(path))?;
        Self::from_map(path, map)
    }

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

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
    /// The whole file (the memory map).
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

/// Writes one era file atomically: blocks (snappy-framed SSZ) in slot order, then the state, the block slot
/// index (absent in era 0) and the state slot index. The file exists under its final name only once complete.
pub struct EraWriter {
    out: crate::util::fs::AtomicFile,
    dir: PathBuf,
    network: String,
    era: u64,
    pos: u64,
    /// Absolute offset of each slot's block record, 0 = empty slot.
    block_offsets: Vec<u64>,
    last_slot: Option<u64>,
    scratch: Vec<u8>,
}

impl EraWriter {
    /// Starts era `era` of `network` in `dir`.
    pub fn create(dir: &Path, network: &str, era: u64) -> std::io::Result<Self> {
        use std::io::Write;
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let partial = dir.join(format!(".{network}.{}.{n}.era.partial", std::process::id()));
        let mut out = crate::util::fs::AtomicFile::create(&partial)?;
        let mut scratch = Vec::new();
        super::e2store::write_record(&mut scratch, RecordType::VERSION, &[]);
        out.write_all(&scratch)?;
        Ok(EraWriter {
            out,
            dir: dir.to_path_buf(),
            network: network.to_string(),
            era,
            pos: scratch.len() as u64,
            block_offsets: vec![0; if era == 0 { 0 } else { SLOTS_PER_ERA as usize }],
            last_slot: None,
            scratch,
        })
    }

    fn record(&mut self, kind: RecordType, data: &[u8]) -> std::io::Result<u64> {
        use std::io::Write;
        let at = self.pos;
        self.scratch.clear();
        super::e2store::write_record(&mut self.scratch, kind, data);
        self.out.write_all(&self.scratch)?;
        self.pos += self.scratch.len() as u64;
        Ok(at)
    }

    /// Appends the serialized `SignedBeaconBlock` of `slot`; slots must increase and lie in
    /// `(era - 1) * 8192 .. era * 8192`.
    pub fn add_block(&mut self, slot: u64, signed_block_ssz: &[u8]) -> std::io::Result<()> {
        let start = self.era.saturating_sub(1) * SLOTS_PER_ERA;
        if self.era == 0
            || slot < start
            || slot >= start + SLOTS_PER_ERA
            || self.last_slot.is_some_and(|l| slot <= l)
        {
            return Err(std::io::Error::other(format!(
                "era writer: block at slot {slot} does not belong after slot {:?} in era {}",
                self.last_slot, self.era
            )));
        }
        let at = self.record(
            RecordType::COMPRESSED_SIGNED_BEACON_BLOCK,
            &super::snappy::compress_framed(signed_block_ssz),
        )?;
        self.block_offsets[(slot - start) as usize] = at;
        self.last_slot = Some(slot);
        Ok(())
    }

    /// Writes the state at slot `era * 8192` and both indices, and moves the file to its canonical name with
    /// `short_root` (the first 4 bytes of the state's last historical root, or of the genesis validators root
    /// in era 0).
    pub fn finish(mut self, state_ssz: &[u8], short_root: &[u8]) -> std::io::Result<PathBuf> {
        let state_at = self.record(
            RecordType::COMPRESSED_BEACON_STATE,
            &super::snappy::compress_framed(state_ssz),
        )?;
        let slot_index = |start: u64, index_at: u64, offsets: &[u64]| {
            let mut d = Vec::with_capacity(16 + 8 * offsets.len());
            d.extend_from_slice(&start.to_le_bytes());
            for &o in offsets {
                let rel = if o == 0 {
                    0
                } else {
                    o as i64 - index_at as i64
                };
                d.extend_from_slice(&rel.to_le_bytes());
            }
            d.extend_from_slice(&(offsets.len() as u64).to_le_bytes());
            d
        };
        if self.era > 0 {
            let offsets = std::mem::take(&mut self.block_offsets);
            let d = slot_index((self.era - 1) * SLOTS_PER_ERA, self.pos, &offsets);
            self.record(RecordType::SLOT_INDEX, &d)?;
        }
        let d = slot_index(self.era * SLOTS_PER_ERA, self.pos, &[state_at]);
        self.record(RecordType::SLOT_INDEX, &d)?;
        let dest = self.dir.join(ArchiveName::format(
            ArchiveKind::Era,
            &self.network,
            self.era,
            short_root,
        ));
        let tmp_dest = self.out.dest().to_path_buf();
        self.out.commit()?;
        std::fs::rename(&tmp_dest, &dest)?;
        Ok(dest)
    }
}
