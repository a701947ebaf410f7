//! `voluntary_exits`: one row per signed voluntary exit included in a beacon block (era files, phase0 on).

use super::operations::KeyColumns;
use super::table::Columns;
use super::{DatasetBuilder, DatasetError};
use crate::verify::era::VerifiedBeaconBlock;
use arrow_array::builder::{BinaryBuilder, UInt64Builder};
use arrow_array::RecordBatch;

/// The `voluntary_exits` dataset.
pub struct VoluntaryExits;

era_dataset!(VoluntaryExits, "voluntary_exits", VoluntaryExitsColumns);

columns! {
    struct VoluntaryExitsColumns {
        key: KeyColumns [sort],
        epoch: UInt64Builder,
        validator_index: UInt64Builder,
        signature: BinaryBuilder,
    }
}

impl DatasetBuilder for VoluntaryExitsColumns {
    fn add_beacon_block(&mut self, b: &VerifiedBeaconBlock<'_>) -> Result<(), DatasetError> {
        let err = DatasetError::ssz("voluntary_exits", b.slot, "voluntary_exits");
        for (i, e) in b
            .body
            .voluntary_exit_list()
            .map_err(err)?
            .iter()
            .enumerate()
        {
            self.key.append(b, i);
            self.epoch.append_value(e.epoch());
            self.validator_index.append_value(e.validator_index());
            self.signature.append_value(e.signature());
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        self.finish_batch()
    }
}
