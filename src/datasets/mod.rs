//! Datasets: one module per table, all behind [`Dataset`], so a new dataset is one new file plus one line in
//! [`ALL`]. Each builds Arrow record batches straight from verified block views — no per-row owned structs.
//!
//! Two archive kinds feed them: era1 files (pre-merge execution blocks, [`DatasetBuilder::add_block`]) and era
//! files (beacon blocks with their post-merge execution payloads, [`DatasetBuilder::add_beacon_block`]). A
//! dataset says which kinds can give it rows ([`Dataset::sources`]); export writes its file only for those.
//!
//! Column names follow cryo's (<https://github.com/paradigmxyz/cryo>) where cryo has the column. Hashes and addresses
//! are binary; every uint256 appears as three columns `<name>_binary` (32-byte big-endian), `<name>_string` (decimal)
//! and `<name>_f64`, because DuckDB and Polars mishandle Decimal256. Every column is documented in `docs/schema.md`.

pub mod beacon_blocks;
pub mod blocks;
pub mod columns;
pub mod logs;
pub mod transactions;
pub mod uncles;
pub mod withdrawals;

use crate::consensus::SszError;
use crate::crypto::signer::Signer;
use crate::inputs::ArchiveKind;
use crate::verify::era::VerifiedBeaconBlock;
use crate::verify::era1::VerifiedBlock;
use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;

/// Bumped whenever a column is added, removed, renamed or changes type (or changes nullability); recorded in
/// every output manifest, so a rerun after an upgrade redoes old outputs instead of mixing schemas.
/// 2: `blocks.total_difficulty_*` nullable (null for era-sourced rows); the `withdrawals` and `beacon_blocks`
/// datasets.
pub const SCHEMA_VERSION: u32 = 2;

/// Facts about the whole run a dataset may need per row.
#[derive(Debug, Clone, Copy)]
pub struct ExportContext {
    /// The network's chain id (the `chain_id` columns).
    pub chain_id: u64,
    /// The process-wide signer when senders are exported ([EIP-7702](https://eips.ethereum.org/EIPS/eip-7702)
    /// authorities are recovered with it); `None` with `--no-senders`, so that path never touches the signature
    /// algorithm.
    pub signer: Option<&'static Signer>,
}

/// Why a dataset could not take a verified block's rows (a view accessor failed where verification passed):
/// the file's outputs are then discarded like a verification failure, never written half-filled.
#[derive(Debug, Clone, thiserror::Error)]
pub enum DatasetError {
    /// An SSZ field of a beacon block did not decode.
    #[error("dataset {dataset}, slot {slot}: {field}: {source}")]
    Ssz {
        /// The dataset whose builder read the field.
        dataset: &'static str,
        /// The beacon block's slot.
        slot: u64,
        /// The body field that failed.
        field: &'static str,
        /// The decoder's error.
        source: SszError,
    },
}

/// One table eraflow can export.
pub trait Dataset: Sync + Send {
    /// Directory and file-name part (`blocks`, `transactions`, ...).
    fn name(&self) -> &'static str;
    /// The Arrow schema of every batch.
    fn schema(&self) -> SchemaRef;
    /// Whether rows need receipts (receipt decompression is skipped when no selected dataset needs them).
    fn needs_receipts(&self) -> bool;
    /// Archive kinds that can give this dataset rows: export writes the dataset's file for a source only when
    /// its kind is listed (an era1 file has no withdrawals, an era file no receipts or ommers), so no
    /// structurally empty files are made.
    fn sources(&self) -> &'static [ArchiveKind];
    /// A builder for one chunk of consecutive blocks.
    fn builder(&self, ctx: ExportContext) -> Box<dyn DatasetBuilder>;
}

/// Accumulates rows of one chunk of blocks. Both `add_*` methods default to adding nothing, so a dataset fed
/// by one archive kind implements only its own.
pub trait DatasetBuilder: Send {
    /// Appends the rows of one verified era1 block.
    fn add_block(&mut self, _block: &VerifiedBlock<'_>) {}
    /// Appends the rows of one verified beacon block of an era file (with its execution payload after the
    /// merge).
    fn add_beacon_block(&mut self, _block: &VerifiedBeaconBlock<'_>) -> Result<(), DatasetError> {
        Ok(())
    }
    /// The rows as one batch (in block order, then transaction/log/uncle index).
    fn finish(self: Box<Self>) -> RecordBatch;
}

/// Every dataset, in the default export order.
pub static ALL: &[&dyn Dataset] = &[
    &blocks::Blocks,
    &transactions::Transactions,
    &logs::Logs,
    &uncles::Uncles,
    &withdrawals::Withdrawals,
    &beacon_blocks::BeaconBlocks,
];

/// Looks datasets up by name (`blocks,transactions`); an unknown name is an error listing the known ones.
pub fn by_names(names: &[impl AsRef<str>]) -> Result<Vec<&'static dyn Dataset>, String> {
    names
        .iter()
        .map(|n| {
            let n = n.as_ref().trim();
            ALL.iter().copied().find(|d| d.name() == n).ok_or_else(|| {
                format!(
                    "unknown dataset '{n}': known datasets are {}",
                    ALL.iter().map(|d| d.name()).collect::<Vec<_>>().join(", ")
                )
            })
        })
        .collect()
}
