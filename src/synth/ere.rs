//! Synthetic ere files: the blocks of [`super::blocks`] (the same bytes an era1 file of the era holds, before the
//! merge) written with slim receipts, in any era: pre-merge eras with total difficulty and the accumulator root,
//! the merge-transition era (total difficulty repeated after the merge, accumulator over its pre-merge blocks)
//! and post-merge eras (neither), with every transaction type 0-4, logs, failed transactions, withdrawals, blob
//! fields and the Prague requests hash as the network's forks allow. On synthnet, era 122 crosses the merge,
//! Shanghai, Cancun and Prague; from era 123 every block is in Prague.

use super::blocks::{block_parts, chain_start, Accounts, BlockParts};
use super::options::{SynthError, SynthOptions};
use crate::crypto::keccak::keccak256;
use crate::execution::receipt;
use crate::formats::ere::{EreBlock, EreWriter};
use crate::formats::execution::BLOCKS_PER_ERA;
use crate::formats::EreProfile;
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// What to generate.
#[derive(Debug, Clone)]
pub struct EreSynthOptions {
    /// The chain: network, first era, files, blocks per file, transactions per block, seed.
    pub chain: SynthOptions,
    /// Which components to leave out. Proofs need the canonical-history work (Portal proofs against a network's
    /// trusted roots), so synthetic files are written without them: `no_proofs` must be set.
    pub profile: EreProfile,
}

/// Writes the files and returns their paths in order.
pub fn write(dir: &Path, opts: &EreSynthOptions) -> Result<Vec<PathBuf>, SynthError> {
    let chain = &opts.chain;
    if chain.blocks == 0 || chain.blocks > BLOCKS_PER_ERA {
        return Err(SynthError::Options(format!(
            "--blocks must be 1..=8192, got {}",
            chain.blocks
        )));
    }
    if chain.files == 0 {
        return Err(SynthError::Options("at least one file".into()));
    }
    if !opts.profile.no_proofs {
        return Err(SynthError::Options(format!(
            "profile '{}': synthetic ere files carry no Portal proofs (they would need trusted roots of the synthetic network); use noproofs or noproofs-noreceipts",
            opts.profile.name()
        )));
    }
    let accounts = Accounts::new(chain)?;
    std::fs::create_dir_all(dir).map_err(|source| SynthError::Io {
        path: dir.display().to_string(),
        source,
    })?;
    let net = &chain.network;
    let (mut parent, mut td) = chain_start(chain.seed, chain.era * BLOCKS_PER_ERA);
    let mut paths = Vec::new();
    for f in 0..chain.files {
        let start = (chain.era + f) * BLOCKS_PER_ERA;
        let parts: Vec<BlockParts> = (start..start + chain.blocks)
            .into_par_iter()
            .map(|b| block_parts(b, chain, &accounts))
            .collect::<Result<_, _>>()?;
        let io = |source| SynthError::Io {
            path: dir.display().to_string(),
            source,
        };
        // Total difficulty only over eras that hold pre-merge blocks (the spec's rule for ere files).
        let with_td = !net.is_merged(start);
        let mut w = EreWriter::create(dir, &net.name).map_err(io)?;
        for (i, mut p) in parts.into_iter().enumerate() {
            let number = start + i as u64;
            p.header.parent_hash = parent;
            let raw = p.header.encode();
            parent = keccak256(&raw);
            td += p.header.difficulty;
            let slim = (!opts.profile.no_receipts).then(|| {
                receipt::encode_slim_list(
                    receipt::decode_list(&p.receipts)
                        .into_iter()
                        .flatten()
                        .filter_map(Result::ok),
                )
            });
            w.add_block(&EreBlock {
                number,
                header: &raw,
                body: &p.body,
                slim_receipts: slim.as_deref(),
                total_difficulty: with_td.then_some(td),
                pre_merge: !net.is_merged(number),
                proof: None,
            })
            .map_err(io)?;
        }
        paths.push(w.finish().map_err(io)?);
    }
    Ok(paths)
}

/// Like [`write()`], but does nothing when `dir` already holds the files these exact options produce (recorded
/// in `dir/.synth-ere-<network>-<era>.done`).
pub fn write_once(dir: &Path, opts: &EreSynthOptions) -> Result<super::Synthesized, SynthError> {
    let c = &opts.chain;
    let fingerprint = format!(
        "kind=ere {} profile={}",
        c.fingerprint(),
        opts.profile.name()
    );
    let marker = format!(".synth-ere-{}-{:05}.done", c.network.name, c.era);
    super::once(dir, &marker, &fingerprint, || write(dir, opts))
}
