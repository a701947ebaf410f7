//! `sync_aggregates`: one row per beacon block from Altair on (era files): which members of the current sync
//! committee signed the previous slot's block root. A block has exactly one aggregate, so the dataset has no
//! `index_in_block`.

use super::table::Columns;
use super::{DatasetBuilder, DatasetError};
use crate::verify::era::VerifiedBeaconBlock;
use arrow_array::builder::{BinaryBuilder, UInt32Builder, UInt64Builder};
use arrow_array::RecordBatch;

/// The `sync_aggregates` dataset.
pub struct SyncAggregates;

era_dataset!(SyncAggregates, "sync_aggregates", SyncAggregatesColumns);

columns! {
    struct SyncAggregatesColumns {
        slot: UInt64Builder [sort],
        block_root: BinaryBuilder,
        sync_committee_bits: BinaryBuilder,
        participation_count: UInt32Builder,
        sync_committee_signature: BinaryBuilder,
    }
}

impl DatasetBuilder for SyncAggregatesColumns {
    fn add_beacon_block(&mut self, b: &VerifiedBeaconBlock<'_>) -> Result<(), DatasetError> {
        if let Some(agg) = b.body.sync_aggregate() {
            self.slot.append_value(b.slot);
            self.block_root.append_value(b.root);
            self.sync_committee_bits
                .append_value(agg.sync_committee_bits());
            self.participation_count.append_value(agg.participation());
            self.sync_committee_signature.append_value(agg.signature());
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        self.finish_batch()
    }
}
