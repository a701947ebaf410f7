//! `blob_commitments`: one row per blob KZG commitment of a beacon block (era files, Deneb on), with its
//! versioned hash `0x01 || sha256(commitment)[1..]` ([EIP-4844](https://eips.ethereum.org/EIPS/eip-4844)), the
//! join key to `transactions.blob_versioned_hashes`. Verification checked that the block's blob transactions
//! carry exactly these hashes, in order. From Gloas on, the commitments of the block's bid: the execution block
//! that carries their blobs is the one the bid commits to (`execution_block_hash`; its number is not in the
//! beacon block, so null).

use super::operations::KeyColumns;
use super::table::Columns;
use super::{DatasetBuilder, DatasetError};
use crate::verify::era::VerifiedBeaconBlock;
use crate::verify::payload::versioned_hash;
use arrow_array::builder::{BinaryBuilder, UInt64Builder};
use arrow_array::RecordBatch;

/// The `blob_commitments` dataset.
pub struct BlobCommitments;

era_dataset!(BlobCommitments, "blob_commitments", BlobCommitmentsColumns);

columns! {
    struct BlobCommitmentsColumns {
        key: KeyColumns [sort],
        kzg_commitment: BinaryBuilder,
        versioned_hash: BinaryBuilder,
        execution_block_number: UInt64Builder [nullable],
        execution_block_hash: BinaryBuilder [nullable],
    }
}

impl DatasetBuilder for BlobCommitmentsColumns {
    fn add_beacon_block(&mut self, b: &VerifiedBeaconBlock<'_>) -> Result<(), DatasetError> {
        let err = DatasetError::ssz("blob_commitments", b.slot, "blob_kzg_commitments");
        let block_hash = match (&b.execution, b.body.bid()) {
            (Some(x), _) => Some(x.block_hash.0),
            (None, Some(bid)) => Some(bid.map_err(err)?.block_hash()),
            (None, None) => None,
        };
        let err = DatasetError::ssz("blob_commitments", b.slot, "blob_kzg_commitments");
        for (i, c) in b
            .body
            .blob_kzg_commitment_list()
            .map_err(err)?
            .iter()
            .enumerate()
        {
            self.key.append(b, i);
            self.kzg_commitment.append_value(c);
            self.versioned_hash.append_value(versioned_hash(c));
            self.execution_block_number
                .append_option(b.execution.as_ref().map(|x| x.header.number));
            self.execution_block_hash.append_option(block_hash);
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        self.finish_batch()
    }
}
