//! Datasets: one module per table, all behind [`Dataset`], so a new dataset is one new file plus one line in
//! [`ALL`]. Each builds Arrow record batches straight from verified block views — no per-row owned structs.
//!
//! Column names follow cryo's where cryo has the column. Hashes and addresses are binary; every uint256 appears
//! as three columns `<name>_binary` (32-byte big-endian), `<name>_string` (decimal) and `<name>_f64`, because
//! DuckDB and Polars mishandle Decimal256. Every column is documented in `docs/schema.md`.

pub mod blocks;
pub mod columns;
pub mod logs;
pub mod transactions;
pub mod uncles;

use crate::verify::era1::VerifiedBlock;
use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;

/// Bumped whenever a column is added, removed, renamed or changes type; recorded in every output manifest.
pub const SCHEMA_VERSION: u32 = 1;

/// Facts about the whole run a dataset may need per row.
#[derive(Debug, Clone, Copy)]
pub struct ExportContext {
    pub chain_id: u64,
}

/// One table eraflow can export.
pub trait Dataset: Sync + Send {
    /// Directory and file-name part (`blocks`, `transactions`, ...).
    fn name(&self) -> &'static str;
    /// The Arrow schema of every batch.
    fn schema(&self) -> SchemaRef;
    /// Whether rows need receipts (receipt decompression is skipped when no selected dataset needs them).
    fn needs_receipts(&self) -> bool;
    /// A builder for one chunk of consecutive blocks.
    fn builder(&self, ctx: ExportContext) -> Box<dyn DatasetBuilder>;
}

/// Accumulates rows of one chunk of blocks.
pub trait DatasetBuilder: Send {
    /// Appends the rows of one verified block.
    fn add_block(&mut self, block: &VerifiedBlock<'_>);
    /// The rows as one batch (in block order, then transaction/log/uncle index).
    fn finish(self: Box<Self>) -> RecordBatch;
}

/// Every dataset, in the default export order.
pub static ALL: &[&dyn Dataset] = &[
    &blocks::Blocks,
    &transactions::Transactions,
    &logs::Logs,
    &uncles::Uncles,
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
