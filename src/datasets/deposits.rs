//! `deposits`: one row per deposit a beacon block processes from the deposit contract's queue (era files; the
//! Eth1 bridge, phase0 on), with the deposit data an analyst filters on.

use super::operations::{DepositDataColumns, KeyColumns};
use super::table::Columns;
use super::{DatasetBuilder, DatasetError};
use crate::verify::era::VerifiedBeaconBlock;
use arrow_array::builder::{BinaryBuilder, ListBuilder};
use arrow_array::RecordBatch;

/// The `deposits` dataset.
pub struct Deposits;

era_dataset!(Deposits, "deposits", DepositsColumns);

columns! {
    struct DepositsColumns {
        key: KeyColumns [sort],
        data: DepositDataColumns [dictionary],
        proof: ListBuilder<BinaryBuilder>,
    }
}

impl DatasetBuilder for DepositsColumns {
    fn add_beacon_block(&mut self, b: &VerifiedBeaconBlock<'_>) -> Result<(), DatasetError> {
        let err = DatasetError::ssz("deposits", b.slot, "deposits");
        for (i, d) in b.body.deposit_list().map_err(err)?.iter().enumerate() {
            self.key.append(b, i);
            self.data.append(&d.data());
            for r in d.proof() {
                self.proof.values().append_value(r);
            }
            self.proof.append(true);
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        self.finish_batch()
    }
}
