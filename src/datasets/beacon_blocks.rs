//! `beacon_blocks`: one row per beacon block of an era file (empty slots have none), with its roots (checked
//! against the era state), the execution block it carries after the merge, and the operation counts of its
//! body, so consensus-layer activity can be joined to execution rows by `execution_block_hash`.

use super::table::Columns;
use super::{DatasetBuilder, DatasetError};
use crate::consensus::SszError;
use crate::verify::era::VerifiedBeaconBlock;
use arrow_array::builder::{BinaryBuilder, StringBuilder, UInt32Builder, UInt64Builder};
use arrow_array::RecordBatch;

/// The `beacon_blocks` dataset.
pub struct BeaconBlocks;

// Era files only: era1 files hold no beacon blocks.
dataset!(
    BeaconBlocks,
    "beacon_blocks",
    BeaconBlocksColumns,
    BeaconBlocks
);

columns! {
    struct BeaconBlocksColumns {
        slot: UInt64Builder [sort],
        proposer_index: UInt64Builder,
        block_root: BinaryBuilder,
        parent_root: BinaryBuilder,
        state_root: BinaryBuilder,
        execution_block_number: UInt64Builder [nullable],
        execution_block_hash: BinaryBuilder [nullable],
        attestation_count: UInt32Builder,
        deposit_count: UInt32Builder,
        voluntary_exit_count: UInt32Builder,
        proposer_slashing_count: UInt32Builder,
        attester_slashing_count: UInt32Builder,
        bls_to_execution_change_count: UInt32Builder,
        blob_kzg_commitment_count: UInt32Builder,
        graffiti: BinaryBuilder,
        fork: StringBuilder,
    }
}

impl DatasetBuilder for BeaconBlocksColumns {
    fn add_beacon_block(&mut self, b: &VerifiedBeaconBlock<'_>) -> Result<(), DatasetError> {
        let err = |field: &'static str| {
            move |source: SszError| DatasetError::Ssz {
                dataset: "beacon_blocks",
                slot: b.slot,
                field,
                source,
            }
        };
        // Every fallible read happens before the first append, so a failure leaves no partial row.
        let body = b.body;
        let counts = [
            body.attestations().map_err(err("attestations"))?,
            body.deposits().map_err(err("deposits"))?,
            body.voluntary_exits().map_err(err("voluntary_exits"))?,
            body.proposer_slashings()
                .map_err(err("proposer_slashings"))?,
            body.attester_slashings()
                .map_err(err("attester_slashings"))?,
            body.bls_to_execution_changes()
                .map_err(err("bls_to_execution_changes"))?,
            body.blob_kzg_commitments()
                .map_err(err("blob_kzg_commitments"))?,
        ];
        self.slot.append_value(b.slot);
        self.proposer_index.append_value(b.block.proposer_index());
        self.block_root.append_value(b.root);
        self.parent_root.append_value(b.block.parent_root());
        self.state_root.append_value(b.block.state_root());
        self.execution_block_number
            .append_option(b.execution.as_ref().map(|x| x.header.number));
        self.execution_block_hash
            .append_option(b.execution.as_ref().map(|x| x.block_hash));
        let count_columns = [
            &mut self.attestation_count,
            &mut self.deposit_count,
            &mut self.voluntary_exit_count,
            &mut self.proposer_slashing_count,
            &mut self.attester_slashing_count,
            &mut self.bls_to_execution_change_count,
            &mut self.blob_kzg_commitment_count,
        ];
        for (col, n) in count_columns.into_iter().zip(counts) {
            col.append_value(n as u32);
        }
        self.graffiti.append_value(body.graffiti());
        self.fork.append_value(b.block.fork().name());
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        self.finish_batch()
    }
}
