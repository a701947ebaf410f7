//! What the block-operation datasets share: their key columns and the item lists they read.
//!
//! Each operation dataset (`attestations`, `deposits`, `deposit_requests`, `withdrawal_requests`,
//! `consolidation_requests`, `voluntary_exits`, `proposer_slashings`, `attester_slashings`,
//! `bls_to_execution_changes`, `blob_commitments`) has one row per item of a verified beacon block, and starts
//! with the same three columns: `slot`, `block_root` (the block's verified root, join key to `beacon_blocks`)
//! and `index_in_block` (the item's position in its body list), and is sorted by them. `sync_aggregates` has one
//! row per block (a block has one aggregate), so it has no `index_in_block`.

use crate::verify::era::VerifiedBeaconBlock;
use arrow_array::builder::{BinaryBuilder, ListBuilder, UInt32Builder, UInt64Builder};
use arrow_array::ArrayRef;
use arrow_schema::{DataType, Field};
use std::sync::Arc;

/// The three key columns' fields.
pub fn key_fields() -> [Field; 3] {
    [
        Field::new("slot", DataType::UInt64, false),
        Field::new("block_root", DataType::Binary, false),
        Field::new("index_in_block", DataType::UInt32, false),
    ]
}

/// The sort order every operation file declares.
pub const KEY_SORT: [&str; 2] = ["slot", "index_in_block"];

/// Builders of the key columns.
#[derive(Default)]
pub struct KeyColumns {
    slot: UInt64Builder,
    block_root: BinaryBuilder,
    index_in_block: UInt32Builder,
}

impl KeyColumns {
    /// Appends the key of item `index` of block `b`.
    pub fn append(&mut self, b: &VerifiedBeaconBlock<'_>, index: usize) {
        self.slot.append_value(b.slot);
        self.block_root.append_value(b.root);
        self.index_in_block.append_value(index as u32);
    }

    /// The finished arrays, in field order.
    pub fn finish(&mut self) -> [ArrayRef; 3] {
        [
            Arc::new(self.slot.finish()),
            Arc::new(self.block_root.finish()),
            Arc::new(self.index_in_block.finish()),
        ]
    }
}

/// A `list<uint64>` column's field (non-null items).
pub fn u64_list_field(name: &str) -> Field {
    Field::new(name, DataType::List(Arc::new(u64_item())), false)
}

fn u64_item() -> Field {
    Field::new("item", DataType::UInt64, false)
}

/// A builder for a `list<uint64>` column declared by [`u64_list_field`].
pub fn u64_list_builder() -> ListBuilder<UInt64Builder> {
    ListBuilder::new(UInt64Builder::new()).with_field(Arc::new(u64_item()))
}
