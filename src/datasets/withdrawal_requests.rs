//! `withdrawal_requests`: one row per Electra execution-layer withdrawal or exit request
//! ([EIP-7002](https://eips.ethereum.org/EIPS/eip-7002)) in a beacon block's `execution_requests` (era files,
//! Electra on); `amount_gwei` 0 asks for a full exit.

use super::operations::{key_fields, KeyColumns, KEY_SORT};
use super::{DatasetBuilder, DatasetError};
use crate::verify::era::VerifiedBeaconBlock;
use arrow_array::builder::{BinaryBuilder, UInt64Builder};
use arrow_array::ArrayRef;
use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use std::sync::{Arc, LazyLock};

/// The `withdrawal_requests` dataset.
pub struct WithdrawalRequests;

static SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    let mut f = key_fields().to_vec();
    f.extend([
        Field::new("source_address", DataType::Binary, false),
        Field::new("validator_pubkey", DataType::Binary, false),
        Field::new("amount_gwei", DataType::UInt64, false),
    ]);
    Arc::new(Schema::new(f))
});

era_dataset!(
    WithdrawalRequests,
    "withdrawal_requests",
    WithdrawalRequestsBuilder,
    sort: &KEY_SORT,
    dictionary: &["source_address"]
);

#[derive(Default)]
struct WithdrawalRequestsBuilder {
    key: KeyColumns,
    source_address: BinaryBuilder,
    validator_pubkey: BinaryBuilder,
    amount_gwei: UInt64Builder,
}

impl DatasetBuilder for WithdrawalRequestsBuilder {
    fn add_beacon_block(&mut self, b: &VerifiedBeaconBlock<'_>) -> Result<(), DatasetError> {
        let err = || DatasetError::ssz("withdrawal_requests", b.slot, "execution_requests");
        let Some(requests) = b.body.execution_request_lists() else {
            return Ok(());
        };
        for (i, w) in requests.map_err(err())?.withdrawals.iter().enumerate() {
            self.key.append(b, i);
            self.source_address.append_value(w.source_address());
            self.validator_pubkey.append_value(w.validator_pubkey());
            self.amount_gwei.append_value(w.amount());
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        let s = &mut *self;
        let mut cols: Vec<ArrayRef> = s.key.finish().to_vec();
        cols.extend([
            Arc::new(s.source_address.finish()) as ArrayRef,
            Arc::new(s.validator_pubkey.finish()),
            Arc::new(s.amount_gwei.finish()),
        ]);
        // Columns match SCHEMA by construction; a mismatch is a bug caught by the dataset tests.
        RecordBatch::try_new(SCHEMA.clone(), cols)
            .expect("withdrawal_requests columns match the schema")
    }
}
