//! Writing era files.

use super::read::SLOTS_PER_ERA;
use crate::formats::e2store::{write_record, RecordType};
use crate::formats::name::{ArchiveKind, ArchiveName};
use crate::formats::snappy::compress_framed;
use std::path::{Path, PathBuf};

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
        write_record(&mut scratch, RecordType::VERSION, &[]);
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
        write_record(&mut self.scratch, kind, data);
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
            &compress_framed(signed_block_ssz),
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
            &compress_framed(state_ssz),
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
