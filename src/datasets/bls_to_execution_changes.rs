//! `bls_to_execution_changes`: one row per signed BLS-to-execution credential change in a beacon block (era
//! files, Capella on): the validator's withdrawal credentials switch from a BLS key to an execution address.

use super::operations::{key_fields, KeyColumns, KEY_SORT};
use super::{DatasetBuilder, DatasetError};
use crate::verify::era::VerifiedBeaconBlock;
use arrow_array::builder::{BinaryBuilder, UInt64Builder};
use arrow_array::ArrayRef;
use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use std::sync::{Arc, LazyLock};

/// The `bls_to_execution_changes` dataset.
pub struct BlsToExecutionChanges;

static SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    let mut f = key_fields().to_vec();
    f.extend([
        Field::new("validator_index", DataType::UInt64, false),
        Field::new("from_bls_pubkey", DataType::Binary, false),
        Field::new("to_execution_address", DataType::Binary, false),
    ]);
    Arc::new(Schema::new(f))
});

era_dataset!(
    BlsToExecutionChanges,
    "bls_to_execution_changes",
    BlsChangesBuilder,
    sort: &KEY_SORT,
    dictionary: &["to_execution_address"]
);

#[derive(Default)]
struct BlsChangesBuilder {
    key: KeyColumns,
    validator_index: UInt64Builder,
    from_bls_pubkey: BinaryBuilder,
    to_execution_address: BinaryBuilder,
}

impl DatasetBuilder for BlsChangesBuilder {
    fn add_beacon_block(&mut self, b: &VerifiedBeaconBlock<'_>) -> Result<(), DatasetError> {
        let err = || {
            DatasetError::ssz(
                "bls_to_execution_changes",
                b.slot,
                "bls_to_execution_changes",
            )
        };
        let list = b.body.bls_to_execution_change_list().map_err(err())?;
        for (i, c) in list.iter().enumerate() {
            self.key.append(b, i);
            self.validator_index.append_value(c.validator_index());
            self.from_bls_pubkey.append_value(c.from_bls_pubkey());
            self.to_execution_address
                .append_value(c.to_execution_address());
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        let s = &mut *self;
        let mut cols: Vec<ArrayRef> = s.key.finish().to_vec();
        cols.extend([
            Arc::new(s.validator_index.finish()) as ArrayRef,
            Arc::new(s.from_bls_pubkey.finish()),
            Arc::new(s.to_execution_address.finish()),
        ]);
        // Columns match SCHEMA by construction; a mismatch is a bug caught by the dataset tests.
        RecordBatch::try_new(SCHEMA.clone(), cols)
            .expect("bls_to_execution_changes columns match the schema")
    }
}
