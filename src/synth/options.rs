//! What a synthetic execution chain is made of ([`SynthOptions`]) and why making it can fail ([`SynthError`]):
//! shared by the block generator and the era1 and ere writers, below them all.

use crate::formats::era1::BLOCKS_PER_ERA;
use crate::network::Network;

/// What to generate.
#[derive(Debug, Clone)]
pub struct SynthOptions {
    /// Network whose fork blocks decide which transaction and receipt kinds each block may hold (and whose
    /// name, chain id and signature algorithm the files carry).
    pub network: Network,
    /// First era (its first block is `era * 8192`).
    pub era: u64,
    /// Number of consecutive files, chained by parent hash and total difficulty.
    pub files: u64,
    /// Blocks per file (at most 8192; fewer makes a short final file, handy for tests).
    pub blocks: u64,
    /// Transactions per block, cycling through every kind the block's forks allow.
    pub txs_per_block: u32,
    /// Seeds block contents and signing keys: the same options give byte-identical files.
    pub seed: u64,
    /// Receipts full of token events (ERC-20/721/1155 transfers, approvals) and malformed look-alikes of them,
    /// instead of random logs (`synth::tokens`). Off, the files keep the bytes they always had.
    pub tokens: bool,
}

impl SynthOptions {
    /// Defaults: one full era 0 file of synthnet with 4 transactions per block, seed 1.
    pub fn new(network: Network) -> Self {
        SynthOptions {
            network,
            era: 0,
            files: 1,
            blocks: BLOCKS_PER_ERA,
            txs_per_block: 4,
            seed: 1,
            tokens: false,
        }
    }

    /// These options as the `key=value` words a synth stage's marker records (see `write_once`).
    pub(crate) fn fingerprint(&self) -> String {
        format!(
            "network={} era={} files={} blocks={} txs={} seed={}",
            self.network.name, self.era, self.files, self.blocks, self.txs_per_block, self.seed
        )
    }
}

/// Why synthesis failed.
#[derive(Debug, thiserror::Error)]
pub enum SynthError {
    /// Options that cannot be met (too many blocks for one file, no files, a fork no era lies wholly in), or a
    /// generated object that does not fit its fork's schema.
    #[error("synth: {0}")]
    Options(String),
    /// Creating the output directory or writing a file failed.
    #[error("synth: writing {path}: {source}")]
    Io {
        /// The directory or file being written.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The network's signature algorithm is unknown, or signing a transaction failed.
    #[error("synth: signing: {0}")]
    Sign(String),
}
