//! `voluntary_exits`: one row per signed voluntary exit included in a beacon block (era files, phase0 on).

use super::operations::{key_fields, KeyColumns, KEY_SORT};
use super::{DatasetBuilder, DatasetError};
use crate::verify::era::VerifiedBeaconBlock;
use arrow_array::builder::UInt64Builder;
use arrow_array::ArrayRef;
use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use std::sync::{Arc, LazyLock};

/// The `voluntary_exits` dataset.
pub struct VoluntaryExits;

static SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    let mut f = key_fields().to_vec();
    f.extend([
        Field::new("epoch", DataType::UInt64, false),
        Field::new("validator_index", DataType::UInt64, false),
    ]);
    Arc::new(Schema::new(f))
});

era_dataset!(VoluntaryExits, "voluntary_exits", VoluntaryExitsBuilder, sort: &KEY_SORT, dictionary: &[]);

#[derive(Default)]
struct VoluntaryExitsBuilder {
    key: KeyColumns,
    epoch: UInt64Builder,
    validator_index: UInt64Builder,
}

impl DatasetBuilder for VoluntaryExitsBuilder {
    fn add_beacon_block(&mut self, b: &VerifiedBeaconBlock<'_>) -> Result<(), DatasetError> {
        let err = || DatasetError::ssz("voluntary_exits", b.slot, "voluntary_exits");
        let list = b.body.voluntary_exit_list().map_err(err())?;
        for (i, e) in list.iter().enumerate() {
            self.key.append(b, i);
            self.epoch.append_value(e.epoch());
            self.validator_index.append_value(e.validator_index());
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        let s = &mut *self;
        let mut cols: Vec<ArrayRef> = s.key.finish().to_vec();
        cols.extend([
            Arc::new(s.epoch.finish()) as ArrayRef,
            Arc::new(s.validator_index.finish()),
        ]);
        // Columns match SCHEMA by construction; a mismatch is a bug caught by the dataset tests.
        RecordBatch::try_new(SCHEMA.clone(), cols)
            .expect("voluntary_exits columns match the schema")
    }
}
