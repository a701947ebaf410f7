//! `attestations`: one row per aggregate attestation included in a beacon block (era files), with the committees
//! it covers (Electra's `committee_bits` too), how many validators it aggregates, its votes (head, source,
//! target) and its inclusion delay.

use super::columns::U64ListColumn;
use super::operations::KeyColumns;
use super::table::Columns;
use super::{DatasetBuilder, DatasetError};
use crate::consensus::operations::bitlist_counts;
use crate::verify::era::VerifiedBeaconBlock;
use arrow_array::builder::{BinaryBuilder, UInt32Builder, UInt64Builder};
use arrow_array::RecordBatch;

/// The `attestations` dataset.
pub struct Attestations;

era_dataset!(Attestations, "attestations", AttestationsColumns);

// A block's attestations vote for few heads and one or two epochs' checkpoints: the roots are `repeated`.
columns! {
    struct AttestationsColumns {
        key: KeyColumns [sort, repeated],
        attestation_slot: UInt64Builder,
        committee_index: UInt64Builder,
        committee_bits: BinaryBuilder [nullable],
        committee_indices: U64ListColumn,
        aggregation_bits: BinaryBuilder,
        aggregation_bits_length: UInt32Builder,
        attesting_count: UInt32Builder,
        beacon_block_root: BinaryBuilder [repeated],
        source_epoch: UInt64Builder,
        source_root: BinaryBuilder [repeated],
        target_epoch: UInt64Builder,
        target_root: BinaryBuilder [repeated],
        inclusion_delay: UInt64Builder [nullable],
        signature: BinaryBuilder,
    }
}

impl DatasetBuilder for AttestationsColumns {
    fn add_beacon_block(&mut self, b: &VerifiedBeaconBlock<'_>) -> Result<(), DatasetError> {
        let err = DatasetError::ssz("attestations", b.slot, "attestations");
        for (i, a) in b.body.attestation_list().map_err(err)?.iter().enumerate() {
            let bits = a.aggregation_bits();
            // Bitlists were validated when the block was hashed; a delimiter-less one cannot reach here.
            let (length, set) = bitlist_counts(bits).unwrap_or((0, 0));
            let data = a.data();
            self.key.append(b, i);
            self.attestation_slot.append_value(data.slot());
            self.committee_index.append_value(data.index());
            self.committee_bits.append_option(a.committee_bits());
            self.committee_indices.append(&a.committee_indices());
            self.aggregation_bits.append_value(bits);
            self.aggregation_bits_length.append_value(length);
            self.attesting_count.append_value(set);
            self.beacon_block_root
                .append_value(data.beacon_block_root());
            self.source_epoch.append_value(data.source_epoch());
            self.source_root.append_value(data.source_root());
            self.target_epoch.append_value(data.target_epoch());
            self.target_root.append_value(data.target_root());
            // A valid block includes attestations of earlier slots only (MIN_ATTESTATION_INCLUSION_DELAY = 1).
            self.inclusion_delay
                .append_option(b.slot.checked_sub(data.slot()));
            self.signature.append_value(a.signature());
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        self.finish_batch()
    }
}
