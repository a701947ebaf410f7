//! `payload_attestations`: one row per payload attestation of a Gloas beacon block
//! ([EIP-7732](https://eips.ethereum.org/EIPS/eip-7732)): the payload timeliness committee's aggregated vote on
//! whether the previous slot's block revealed its payload in time and its blob data was available (era files,
//! Gloas on). Verification checked each votes on the block's parent at the previous slot.

use super::operations::KeyColumns;
use super::table::Columns;
use super::{DatasetBuilder, DatasetError};
use crate::verify::era::VerifiedBeaconBlock;
use arrow_array::builder::{BinaryBuilder, BooleanBuilder, UInt32Builder, UInt64Builder};
use arrow_array::RecordBatch;

/// The `payload_attestations` dataset.
pub struct PayloadAttestations;

era_dataset!(
    PayloadAttestations,
    "payload_attestations",
    PayloadAttestationsColumns
);

columns! {
    struct PayloadAttestationsColumns {
        key: KeyColumns [sort],
        attestation_slot: UInt64Builder,
        beacon_block_root: BinaryBuilder [dictionary],
        payload_present: BooleanBuilder,
        blob_data_available: BooleanBuilder,
        aggregation_bits: BinaryBuilder,
        attesting_count: UInt32Builder,
        signature: BinaryBuilder,
    }
}

impl DatasetBuilder for PayloadAttestationsColumns {
    fn add_beacon_block(&mut self, b: &VerifiedBeaconBlock<'_>) -> Result<(), DatasetError> {
        let err = DatasetError::ssz("payload_attestations", b.slot, "payload_attestations");
        for (i, a) in b
            .body
            .payload_attestations()
            .map_err(err)?
            .iter()
            .enumerate()
        {
            self.key.append(b, i);
            self.attestation_slot.append_value(a.slot());
            self.beacon_block_root.append_value(a.beacon_block_root());
            self.payload_present.append_value(a.payload_present());
            self.blob_data_available
                .append_value(a.blob_data_available());
            self.aggregation_bits.append_value(a.aggregation_bits());
            self.attesting_count.append_value(a.attesting_count());
            self.signature.append_value(a.signature());
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        self.finish_batch()
    }
}
