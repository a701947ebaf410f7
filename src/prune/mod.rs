//! Prune manifests: verified lists a node uses to drop history by key, without decoding anything: pre-merge
//! history, a fixed range, or everything older than a rolling window ([`window`], EIP-4444's
//! `HISTORY_PRUNE_EPOCHS`).
//!
//! `eraflow prune` reads era1 archives once, verifies each file (accumulator, header chain, transactions root,
//! ommers; receipts are never decompressed and the signature algorithm is never touched), and writes:
//!
//! - `block_hashes.bin`: 32-byte block hashes in block order;
//! - `tx_hashes.bin`: every transaction hash, 32 bytes each, strictly increasing (external merge sort, so memory
//!   stays within `--memory-budget` however long the chain);
//! - `tx_locations.parquet`: (transaction_hash, block_number, transaction_index) sorted by block then index;
//! - `ranges.json`: block ranges per data kind a node may drop (headers are kept, see [`manifest::Ranges`]);
//! - with `--format text`, also `block_hashes.txt` and `tx_hashes.txt` (one 0x-hash per line);
//! - `manifest.json` last: network, range, sources with checksums and roots, totals, every file's sha256.
//!
//! The directory is built beside its destination under a hidden temporary name and renamed into place only
//! when complete, so a failed or killed run leaves no partial manifest. Outputs are deterministic.
//!
//! Modules by concept: `options` and `error` hold the API types; `plan` resolves the inputs into a block range;
//! [`window`] ends it where a rolling window of kept history begins; `source` supplies the inputs whole;
//! `build` verifies the archives and installs the directory; [`extend`] carries an earlier manifest over so
//! only later archives are read; `lists` writes its files; [`manifest`] defines their format, [`extsort`]
//! sorts the transaction hashes and [`check`] re-verifies a written directory.

mod build;
pub mod check;
mod error;
pub mod extend;
pub mod extsort;
mod lists;
pub mod manifest;
mod options;
mod plan;
mod source;
pub mod window;

pub use build::{run, run_from, Held, InputSource, PruneSummary};
pub use error::PruneError;
pub use lists::tx_locations_schema;
pub use manifest::WindowRecord;
pub use options::{
    OutputFormat, PruneOptions, Window, DEFAULT_MEMORY_BUDGET, HISTORY_PRUNE_EPOCHS,
};
