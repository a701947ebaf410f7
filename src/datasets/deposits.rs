//! `deposits`: one row per deposit a beacon block processes from the deposit contract's queue (era files; the
//! Eth1 bridge, phase0 on), with the deposit data an analyst filters on.

use super::operations::{key_fields, KeyColumns, KEY_SORT};
use super::{DatasetBuilder, DatasetError};
use crate::verify::era::VerifiedBeaconBlock;
use arrow_array::builder::{BinaryBuilder, UInt64Builder};
use arrow_array::ArrayRef;
use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use std::sync::{Arc, LazyLock};

/// The `deposits` dataset.
pub struct Deposits;

static SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    let mut f = key_fields().to_vec();
    f.extend([
        Field::new("pubkey", DataType::Binary, false),
        Field::new("withdrawal_credentials", DataType::Binary, false),
        Field::new("amount_gwei", DataType::UInt64, false),
        Field::new("signature", DataType::Binary, false),
    ]);
    Arc::new(Schema::new(f))
});

era_dataset!(Deposits, "deposits", DepositsBuilder, sort: &KEY_SORT, dictionary: &["withdrawal_credentials"]);

#[derive(Default)]
struct DepositsBuilder {
    key: KeyColumns,
    pubkey: BinaryBuilder,
    withdrawal_credentials: BinaryBuilder,
    amount_gwei: UInt64Builder,
    signature: BinaryBuilder,
}

impl DatasetBuilder for DepositsBuilder {
    fn add_beacon_block(&mut self, b: &VerifiedBeaconBlock<'_>) -> Result<(), DatasetError> {
        let err = || DatasetError::ssz("deposits", b.slot, "deposits");
        let list = b.body.deposit_list().map_err(err())?;
        for (i, d) in list.iter().enumerate() {
            self.key.append(b, i);
            self.pubkey.append_value(d.pubkey());
            self.withdrawal_credentials
                .append_value(d.withdrawal_credentials());
            self.amount_gwei.append_value(d.amount());
            self.signature.append_value(d.signature());
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
        ]);
        // Columns match SCHEMA by construction; a mismatch is a bug caught by the dataset tests.
        RecordBatch::try_new(SCHEMA.clone(), cols).expect("deposits columns match the schema")
    }
}
