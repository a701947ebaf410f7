//! `beacon_blocks`: one row per beacon block of an era file (empty slots have none), with its roots (checked
//! against the era state), the execution block it carries after the merge, and the operation counts of its
//! body, so consensus-layer activity can be joined to execution rows by `execution_block_hash`. From Gloas on a
//! block carries a builder's bid instead of the payload: its `bid_*` columns (null before Gloas), and whether it
//! builds on its parent's revealed payload.

use super::table::Columns;
use super::{DatasetBuilder, DatasetError};
use crate::consensus::SszError;
use crate::verify::era::VerifiedBeaconBlock;
use arrow_array::builder::{
    BinaryBuilder, BooleanBuilder, StringBuilder, UInt32Builder, UInt64Builder,
};
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
        signature: BinaryBuilder,
        randao_reveal: BinaryBuilder,
        eth1_deposit_root: BinaryBuilder,
        eth1_deposit_count: UInt64Builder,
        eth1_block_hash: BinaryBuilder,
        compressed_size: UInt64Builder,
        ssz_size: UInt64Builder,
        bid_builder_index: UInt64Builder [nullable, wide],
        bid_self_built: BooleanBuilder [nullable],
        bid_value_gwei: UInt64Builder [nullable],
        bid_execution_payment_gwei: UInt64Builder [nullable],
        bid_block_hash: BinaryBuilder [nullable],
        bid_parent_block_hash: BinaryBuilder [nullable],
        bid_gas_limit: UInt64Builder [nullable],
        bid_blob_kzg_commitments_root: BinaryBuilder [nullable],
        bid_execution_requests_root: BinaryBuilder [nullable],
        parent_payload_status: StringBuilder [nullable],
        payload_attestation_count: UInt32Builder [nullable],
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
        let bid = match body.bid() {
            Some(bid) => Some(bid.map_err(err("signed_execution_payload_bid"))?),
            None => None,
        };
        let bid_parts = match &bid {
            Some(bid) => Some((
                bid.blob_kzg_commitments_root()
                    .map_err(err("signed_execution_payload_bid"))?,
                body.payload_attestations()
                    .map_err(err("payload_attestations"))?
                    .len(),
            )),
            None => None,
        };
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
            // Gloas: the blobs the bid commits to (the body has no list of its own).
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
        self.signature.append_value(b.signature);
        self.randao_reveal.append_value(body.randao_reveal());
        let (deposit_root, deposit_count, block_hash) = body.eth1_data();
        self.eth1_deposit_root.append_value(deposit_root);
        self.eth1_deposit_count.append_value(deposit_count);
        self.eth1_block_hash.append_value(block_hash);
        self.compressed_size.append_value(b.sizes.0);
        self.ssz_size.append_value(b.sizes.1);
        let bid = bid.as_ref();
        self.bid_builder_index
            .append_option(bid.map(|x| x.builder_index()));
        self.bid_self_built
            .append_option(bid.map(|x| x.self_built()));
        self.bid_value_gwei.append_option(bid.map(|x| x.value()));
        self.bid_execution_payment_gwei
            .append_option(bid.map(|x| x.execution_payment()));
        self.bid_block_hash
            .append_option(bid.map(|x| x.block_hash()));
        self.bid_parent_block_hash
            .append_option(bid.map(|x| x.parent_block_hash()));
        self.bid_gas_limit.append_option(bid.map(|x| x.gas_limit()));
        self.bid_blob_kzg_commitments_root
            .append_option(bid_parts.map(|p| p.0));
        self.bid_execution_requests_root
            .append_option(bid.map(|x| x.execution_requests_root()));
        self.parent_payload_status
            .append_option(b.parent_payload_revealed.map(
                |r| {
                    if r {
                        "revealed"
                    } else {
                        "withheld"
                    }
                },
            ));
        self.payload_attestation_count
            .append_option(bid_parts.map(|p| p.1 as u32));
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        self.finish_batch()
    }
}
