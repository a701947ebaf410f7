//! Synthetic era1 files: real signatures over seeded keys, every pre-merge transaction kind the network's forks
//! allow, receipts with logs and correct blooms, ommers, consistent roots and total difficulty (the blocks come
//! from [`super::blocks`], shared with the ere writer).
//!
//! Deterministic: the same options give byte-identical files (block contents come from a generator seeded by
//! `(seed, block number)`, signatures are [RFC 6979](https://www.rfc-editor.org/rfc/rfc6979)).

use super::blocks::{block_parts, chain_start, Accounts, BlockParts};
pub use super::options::{SynthError, SynthOptions};
use crate::crypto::keccak::keccak256;
use crate::formats::era1::{Era1Writer, BLOCKS_PER_ERA};
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// Writes the files and returns their paths in order.
pub fn write(dir: &Path, opts: &SynthOptions) -> Result<Vec<PathBuf>, SynthError> {
    if opts.blocks == 0 || opts.blocks > BLOCKS_PER_ERA {
        return Err(SynthError::Options(format!(
            "--blocks must be 1..=8192, got {}",
            opts.blocks
        )));
    }
    if opts.files == 0 {
        return Err(SynthError::Options("at least one file".into()));
    }
    let last_block = (opts.era + opts.files) * BLOCKS_PER_ERA;
    if last_block > opts.network.first_pos_block {
        return Err(SynthError::Options(format!(
            "era1 holds pre-merge blocks only: {} merges at block {}, eras up to {} needed",
            opts.network.name,
            opts.network.first_pos_block,
            opts.era + opts.files - 1
        )));
    }
    let accounts = Accounts::new(opts)?;
    std::fs::create_dir_all(dir).map_err(|source| SynthError::Io {
        path: dir.display().to_string(),
        source,
    })?;
    let (mut parent, mut td) = chain_start(opts.seed, opts.era * BLOCKS_PER_ERA);
    let mut paths = Vec::new();
    for f in 0..opts.files {
        let start = (opts.era + f) * BLOCKS_PER_ERA;
        let parts: Vec<BlockParts> = (start..start + opts.blocks)
            .into_par_iter()
            .map(|b| block_parts(b, opts, &accounts))
            .collect::<Result<_, _>>()?;
        let io = |source| SynthError::Io {
            path: dir.display().to_string(),
            source,
        };
        let mut w = Era1Writer::create(dir, &opts.network.name).map_err(io)?;
        for (i, mut p) in parts.into_iter().enumerate() {
            p.header.parent_hash = parent;
            let raw = p.header.encode();
            parent = keccak256(&raw);
            td += p.header.difficulty;
            w.add_block(start + i as u64, &raw, &p.body, &p.receipts, td)
                .map_err(io)?;
        }
        paths.push(w.finish().map_err(io)?);
    }
    Ok(paths)
}

/// Like [`write()`], but does nothing when `dir` already holds the files these exact options produce (recorded
/// in `dir/.synth-<network>-<era>.done`), so a scheduled pipeline can start with a synth stage cheaply.
pub fn write_once(dir: &Path, opts: &SynthOptions) -> Result<super::Synthesized, SynthError> {
    let marker = format!(".synth-{}-{:05}.done", opts.network.name, opts.era);
    super::once(dir, &marker, &opts.fingerprint(), || write(dir, opts))
}
