//! `consolidation_requests`: one row per Electra consolidation request
//! ([EIP-7251](https://eips.ethereum.org/EIPS/eip-7251)) in a beacon block's `execution_requests` (era files,
//! Electra on): the source validator's balance moves to the target's (or, source = target, the validator
//! switches to compounding credentials).

use super::operations::{key_fields, KeyColumns, KEY_SORT};
use super::{DatasetBuilder, DatasetError};
use crate::verify::era::VerifiedBeaconBlock;
use arrow_array::builder::BinaryBuilder;
use arrow_array::ArrayRef;
use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use std::sync::{Arc, LazyLock};

/// The `consolidation_requests` dataset.
pub struct ConsolidationRequests;

static SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    let mut f = key_fields().to_vec();
    f.extend([
        Field::new("source_address", DataType::Binary, false),
        Field::new("source_pubkey", DataType::Binary, false),
        Field::new("target_pubkey", DataType::Binary, false),
    ]);
    Arc::new(Schema::new(f))
});

era_dataset!(
    ConsolidationRequests,
    "consolidation_requests",
    ConsolidationRequestsBuilder,
    sort: &KEY_SORT,
    dictionary: &["source_address"]
);

#[derive(Default)]
struct ConsolidationRequestsBuilder {
    key: KeyColumns,
    source_address: BinaryBuilder,
    source_pubkey: BinaryBuilder,
    target_pubkey: BinaryBuilder,
}

impl DatasetBuilder for ConsolidationRequestsBuilder {
    fn add_beacon_block(&mut self, b: &VerifiedBeaconBlock<'_>) -> Result<(), DatasetError> {
        let err = || DatasetError::ssz("consolidation_requests", b.slot, "execution_requests");
        let Some(requests) = b.body.execution_request_lists() else {
            return Ok(());
        };
        for (i, c) in requests.map_err(err())?.consolidations.iter().enumerate() {
            self.key.append(b, i);
            self.source_address.append_value(c.source_address());
            self.source_pubkey.append_value(c.source_pubkey());
            self.target_pubkey.append_value(c.target_pubkey());
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        let s = &mut *self;
        let mut cols: Vec<ArrayRef> = s.key.finish().to_vec();
        cols.extend([
            Arc::new(s.source_address.finish()) as ArrayRef,
            Arc::new(s.source_pubkey.finish()),
            Arc::new(s.target_pubkey.finish()),
        ]);
        // Columns match SCHEMA by construction; a mismatch is a bug caught by the dataset tests.
        RecordBatch::try_new(SCHEMA.clone(), cols)
            .expect("consolidation_requests columns match the schema")
    }
}
