//! `proposer_slashings`: one row per proposer slashing in a beacon block (era files): two signed headers of
//! the same slot by the same proposer, proving a double proposal.

use super::operations::{key_fields, KeyColumns, KEY_SORT};
use super::{DatasetBuilder, DatasetError};
use crate::verify::era::VerifiedBeaconBlock;
use arrow_array::builder::{BinaryBuilder, UInt64Builder};
use arrow_array::ArrayRef;
use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use std::sync::{Arc, LazyLock};

/// The `proposer_slashings` dataset.
pub struct ProposerSlashings;

static SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    let mut f = key_fields().to_vec();
    f.extend([
        Field::new("proposer_index", DataType::UInt64, false),
        Field::new("header_1_slot", DataType::UInt64, false),
        Field::new("header_1_root", DataType::Binary, false),
        Field::new("header_2_slot", DataType::UInt64, false),
        Field::new("header_2_root", DataType::Binary, false),
    ]);
    Arc::new(Schema::new(f))
});

era_dataset!(
    ProposerSlashings,
    "proposer_slashings",
    ProposerSlashingsBuilder,
    sort: &KEY_SORT,
    dictionary: &[]
);

#[derive(Default)]
struct ProposerSlashingsBuilder {
    key: KeyColumns,
    proposer_index: UInt64Builder,
    header_1_slot: UInt64Builder,
    header_1_root: BinaryBuilder,
    header_2_slot: UInt64Builder,
    header_2_root: BinaryBuilder,
}

impl DatasetBuilder for ProposerSlashingsBuilder {
    fn add_beacon_block(&mut self, b: &VerifiedBeaconBlock<'_>) -> Result<(), DatasetError> {
        let err = || DatasetError::ssz("proposer_slashings", b.slot, "proposer_slashings");
        let list = b.body.proposer_slashing_list().map_err(err())?;
        for (i, p) in list.iter().enumerate() {
            let (h1, h2) = (p.header(0), p.header(1));
            self.key.append(b, i);
            self.proposer_index.append_value(h1.proposer_index);
            self.header_1_slot.append_value(h1.slot);
            self.header_1_root.append_value(h1.root());
            self.header_2_slot.append_value(h2.slot);
            self.header_2_root.append_value(h2.root());
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        let s = &mut *self;
        let mut cols: Vec<ArrayRef> = s.key.finish().to_vec();
        cols.extend([
            Arc::new(s.proposer_index.finish()) as ArrayRef,
            Arc::new(s.header_1_slot.finish()),
            Arc::new(s.header_1_root.finish()),
            Arc::new(s.header_2_slot.finish()),
            Arc::new(s.header_2_root.finish()),
        ]);
        // Columns match SCHEMA by construction; a mismatch is a bug caught by the dataset tests.
        RecordBatch::try_new(SCHEMA.clone(), cols)
            .expect("proposer_slashings columns match the schema")
    }
}
