//! `proposer_slashings`: one row per proposer slashing in a beacon block (era files): two signed headers of
//! the same slot by the same proposer, proving a double proposal.

use super::operations::KeyColumns;
use super::table::Columns;
use super::{DatasetBuilder, DatasetError};
use crate::verify::era::VerifiedBeaconBlock;
use arrow_array::builder::{BinaryBuilder, UInt64Builder};
use arrow_array::RecordBatch;

/// The `proposer_slashings` dataset.
pub struct ProposerSlashings;

era_dataset!(
    ProposerSlashings,
    "proposer_slashings",
    ProposerSlashingsColumns
);

columns! {
    struct ProposerSlashingsColumns {
        key: KeyColumns [sort],
        proposer_index: UInt64Builder,
        header_1_slot: UInt64Builder,
        header_1_root: BinaryBuilder,
        header_2_slot: UInt64Builder,
        header_2_root: BinaryBuilder,
        header_1_parent_root: BinaryBuilder,
        header_1_state_root: BinaryBuilder,
        header_1_body_root: BinaryBuilder,
        header_1_signature: BinaryBuilder,
        header_2_parent_root: BinaryBuilder,
        header_2_state_root: BinaryBuilder,
        header_2_body_root: BinaryBuilder,
        header_2_signature: BinaryBuilder,
    }
}

impl DatasetBuilder for ProposerSlashingsColumns {
    fn add_beacon_block(&mut self, b: &VerifiedBeaconBlock<'_>) -> Result<(), DatasetError> {
        let err = DatasetError::ssz("proposer_slashings", b.slot, "proposer_slashings");
        for (i, p) in b
            .body
            .proposer_slashing_list()
            .map_err(err)?
            .iter()
            .enumerate()
        {
            let (h1, h2) = (p.header(0), p.header(1));
            self.key.append(b, i);
            self.proposer_index.append_value(h1.proposer_index);
            self.header_1_slot.append_value(h1.slot);
            self.header_1_root.append_value(h1.root());
            self.header_2_slot.append_value(h2.slot);
            self.header_2_root.append_value(h2.root());
            self.header_1_parent_root.append_value(h1.parent_root);
            self.header_1_state_root.append_value(h1.state_root);
            self.header_1_body_root.append_value(h1.body_root);
            self.header_1_signature.append_value(p.signature(0));
            self.header_2_parent_root.append_value(h2.parent_root);
            self.header_2_state_root.append_value(h2.state_root);
            self.header_2_body_root.append_value(h2.body_root);
            self.header_2_signature.append_value(p.signature(1));
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        self.finish_batch()
    }
}
