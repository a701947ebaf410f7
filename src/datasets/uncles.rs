//! `uncles`: one row per ommer header included in a block.

use super::columns::U256Columns;
use super::table::Columns;
use super::DatasetBuilder;
use crate::execution::header::HeaderView;
use crate::verify::execution::VerifiedBlock;
use arrow_array::builder::{BinaryBuilder, UInt32Builder, UInt64Builder};
use arrow_array::RecordBatch;

/// The `uncles` dataset.
pub struct Uncles;

// Post-merge blocks (era payloads) have no ommers.
dataset!(Uncles, "uncles", UnclesColumns, Ommers);

columns! {
    struct UnclesColumns {
        block_number: UInt64Builder [sort],
        uncle_index: UInt32Builder [sort],
        uncle_hash: BinaryBuilder,
        author: BinaryBuilder [dictionary],
        number: UInt64Builder,
        difficulty: U256Columns,
        gas_used: UInt64Builder,
        gas_limit: UInt64Builder,
        timestamp: UInt64Builder,
    }
}

impl DatasetBuilder for UnclesColumns {
    fn add_block(&mut self, b: &VerifiedBlock<'_>) {
        for (i, item) in b.body.ommers().enumerate() {
            // Verification decoded every ommer header already; a failure here cannot happen for a verified block.
            let Ok(h) = item
                .map_err(|_| ())
                .and_then(|it| HeaderView::decode(it.raw).map_err(|_| ()))
            else {
                continue;
            };
            self.block_number.append_value(b.number);
            self.uncle_index.append_value(i as u32);
            self.uncle_hash.append_value(h.hash());
            self.author.append_value(h.beneficiary());
            self.number.append_value(h.number());
            self.difficulty.append(Some(h.difficulty()));
            self.gas_used.append_value(h.gas_used());
            self.gas_limit.append_value(h.gas_limit());
            self.timestamp.append_value(h.timestamp());
        }
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        self.finish_batch()
    }
}
