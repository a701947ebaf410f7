//! `deposits`: one row per deposit a beacon block processes from the deposit contract's queue (era files; the
//! Eth1 bridge, phase0 on), with the deposit data an analyst filters on.

use super::operations::KeyColumns;
use super::table::Columns;
use super::{DatasetBuilder, DatasetError};
use crate::verify::era::VerifiedBeaconBlock;
use arrow_array::builder::{BinaryBuilder, UInt64Builder};
use arrow_array::RecordBatch;

/// The `deposits` dataset.
pub struct Deposits;

era_dataset!(Deposits, "deposits", DepositsColumns);

columns! {
    struct DepositsColumns {
        key: KeyColumns [sort],
        pubkey: BinaryBuilder,
        withdrawal_credentials: BinaryBuilder [dictionary],
        amount_gwei: UInt64Builder,
        signature: BinaryBuilder,
    }
}

impl DatasetBuilder for DepositsColumns {
    fn add_beacon_block(&mut self, b: &VerifiedBeaconBlock<'_>) -> Result<(), DatasetError> {
        let err = DatasetError::ssz("deposits", b.slot, "deposits");
        for (i, d) in b.body.deposit_list().map_err(err)?.iter().enumerate() {
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
        self.finish_batch()
    }
}
