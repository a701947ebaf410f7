//! `bls_to_execution_changes`: one row per signed BLS-to-execution credential change in a beacon block (era
//! files, Capella on): the validator's withdrawal credentials switch from a BLS key to an execution address.

use super::operations::KeyColumns;
use super::table::Columns;
use super::{DatasetBuilder, DatasetError};
use crate::verify::era::VerifiedBeaconBlock;
use arrow_array::builder::{BinaryBuilder, UInt64Builder};
use arrow_array::RecordBatch;

/// The `bls_to_execution_changes` dataset.
pub struct BlsToExecutionChanges;

era_dataset!(
    BlsToExecutionChanges,
    "bls_to_execution_changes",
    BlsChangesColumns
);

columns! {
    struct BlsChangesColumns {
        key: KeyColumns [sort],
        validator_index: UInt64Builder,
        from_bls_pubkey: BinaryBuilder,
        to_execution_address: BinaryBuilder [dictionary],
        signature: BinaryBuilder,
    }
}

impl DatasetBuilder for BlsChangesColumns {
    fn add_beacon_block(&mut self, b: &VerifiedBeaconBlock<'_>) -> Result<(), DatasetError> {
        let field = "bls_to_execution_changes";
        let list = b.body.bls_to_execution_change_list();
        for (i, c) in list
            .map_err(DatasetError::ssz(field, b.slot, field))?
            .iter()
            .enumerate()
        {
            self.key.append(b, i);
            self.validator_index.append_value(c.validator_index());
            self.from_bls_pubkey.append_value(c.from_bls_pubkey());
            self.to_execution_address
                .append_value(c.to_execution_address());
            self.signature.append_value(c.signature());
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        self.finish_batch()
    }
}
