//! `sync_aggregates`: one row per beacon block from Altair on (era files): which members of the current sync
//! committee signed the previous slot's block root. A block has exactly one aggregate, so the dataset has no
//! `index_in_block`.

use super::{DatasetBuilder, DatasetError};
use crate::verify::era::VerifiedBeaconBlock;
use arrow_array::builder::{BinaryBuilder, UInt32Builder, UInt64Builder};
use arrow_array::ArrayRef;
use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use std::sync::{Arc, LazyLock};

/// The `sync_aggregates` dataset.
pub struct SyncAggregates;

static SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        Field::new("slot", DataType::UInt64, false),
        Field::new("block_root", DataType::Binary, false),
        Field::new("sync_committee_bits", DataType::Binary, false),
        Field::new("participation_count", DataType::UInt32, false),
    ]))
});

era_dataset!(SyncAggregates, "sync_aggregates", SyncAggregatesBuilder, sort: &["slot"], dictionary: &[]);

#[derive(Default)]
struct SyncAggregatesBuilder {
    slot: UInt64Builder,
    block_root: BinaryBuilder,
    sync_committee_bits: BinaryBuilder,
    participation_count: UInt32Builder,
}

impl DatasetBuilder for SyncAggregatesBuilder {
    fn add_beacon_block(&mut self, b: &VerifiedBeaconBlock<'_>) -> Result<(), DatasetError> {
        let body = b.body;
        if let Some(agg) = body.sync_aggregate() {
            self.slot.append_value(b.slot);
            self.block_root.append_value(b.root);
            self.sync_committee_bits
                .append_value(agg.sync_committee_bits());
            self.participation_count.append_value(agg.participation());
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        let s = &mut *self;
        let cols: Vec<ArrayRef> = vec![
            Arc::new(s.slot.finish()),
            Arc::new(s.block_root.finish()),
            Arc::new(s.sync_committee_bits.finish()),
            Arc::new(s.participation_count.finish()),
        ];
        // Columns match SCHEMA by construction; a mismatch is a bug caught by the dataset tests.
        RecordBatch::try_new(SCHEMA.clone(), cols)
            .expect("sync_aggregates columns match the schema")
    }
}
