//! Writing ere files.

use crate::formats::e2store::{write_record, RecordType};
use crate::formats::name::{ArchiveKind, ArchiveName, EreProfile, BLOCKS_PER_ERA};
use crate::formats::snappy::compress_framed;
use std::path::{Path, PathBuf};

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
        let framed = compress_framed;
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
