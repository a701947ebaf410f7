//! `deposit_requests`: one row per Electra deposit request ([EIP-6110](https://eips.ethereum.org/EIPS/eip-6110))
//! in a beacon block's `execution_requests` (era files, Electra on): deposits read straight from the execution
//! layer's deposit contract logs, with the contract's deposit index.

use super::operations::{key_fields, KeyColumns, KEY_SORT};
use super::{DatasetBuilder, DatasetError};
use crate::verify::era::VerifiedBeaconBlock;
use arrow_array::builder::{BinaryBuilder, UInt64Builder};
use arrow_array::ArrayRef;
use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use std::sync::{Arc, LazyLock};

/// The `deposit_requests` dataset.
pub struct DepositRequests;

static SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    let mut f = key_fields().to_vec();
    f.extend([
        Field::new("pubkey", DataType::Binary, false),
        Field::new("withdrawal_credentials", DataType::Binary, false),
        Field::new("amount_gwei", DataType::UInt64, false),
        Field::new("signature", DataType::Binary, false),
        Field::new("deposit_index", DataType::UInt64, false),
    ]);
    Arc::new(Schema::new(f))
});

era_dataset!(
    DepositRequests,
    "deposit_requests",
    DepositRequestsBuilder,
    sort: &KEY_SORT,
    dictionary: &["withdrawal_credentials"]
);

#[derive(Default)]
struct DepositRequestsBuilder {
    key: KeyColumns,
    pubkey: BinaryBuilder,
    withdrawal_credentials: BinaryBuilder,
    amount_gwei: UInt64Builder,
    signature: BinaryBuilder,
    deposit_index: UInt64Builder,
}

impl DatasetBuilder for DepositRequestsBuilder {
    fn add_beacon_block(&mut self, b: &VerifiedBeaconBlock<'_>) -> Result<(), DatasetError> {
        let err = || DatasetError::ssz("deposit_requests", b.slot, "execution_requests");
        let Some(requests) = b.body.execution_request_lists() else {
            return Ok(());
        };
        for (i, d) in requests.map_err(err())?.deposits.iter().enumerate() {
            self.key.append(b, i);
            self.pubkey.append_value(d.pubkey());
            self.withdrawal_credentials
                .append_value(d.withdrawal_credentials());
            self.amount_gwei.append_value(d.amount());
            self.signature.append_value(d.signature());
            self.deposit_index.append_value(d.index());
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        let s = &mut *self;
        let mut cols: Vec<ArrayRef> = s.key.finish().to_vec();
        cols.extend([
            Arc::new(s.pubkey.finish()) as ArrayRef,
            Arc::new(s.withdrawal_credentials.finish()),
            Arc::new(s.amount_gwei.finish()),
            Arc::new(s.signature.finish()),
            Arc::new(s.deposit_index.finish()),
        ]);
        // Columns match SCHEMA by construction; a mismatch is a bug caught by the dataset tests.
        RecordBatch::try_new(SCHEMA.clone(), cols)
            .expect("deposit_requests columns match the schema")
    }
}
