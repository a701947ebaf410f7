//! Writing era1 files.

use crate::formats::e2store::{write_record, RecordType};
use crate::formats::name::{ArchiveKind, ArchiveName, BLOCKS_PER_ERA};
use crate::formats::snappy::compress_framed;
use std::path::{Path, PathBuf};

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
        write_record(&mut scratch, RecordType::VERSION, &[]);
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
        write_record(&mut self.scratch, kind, data);
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
        self.record(RecordType::COMPRESSED_HEADER, &compress_framed(header_rlp))?;
        self.record(RecordType::COMPRESSED_BODY, &compress_framed(body_rlp))?;
        self.record(
            RecordType::COMPRESSED_RECEIPTS,
            &compress_framed(receipts_rlp),
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
