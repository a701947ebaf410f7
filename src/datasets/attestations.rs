//! `attestations`: one row per aggregate attestation included in a beacon block (era files), with the committees
//! it covers (Electra's `committee_bits` too), how many validators it aggregates, its votes (head, source,
//! target) and its inclusion delay.

use super::operations::{key_fields, u64_list_builder, u64_list_field, KeyColumns, KEY_SORT};
use super::{DatasetBuilder, DatasetError};
use crate::consensus::operations::bitlist_counts;
use crate::verify::era::VerifiedBeaconBlock;
use arrow_array::builder::{BinaryBuilder, ListBuilder, UInt32Builder, UInt64Builder};
use arrow_array::ArrayRef;
use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use std::sync::{Arc, LazyLock};

/// The `attestations` dataset.
pub struct Attestations;

static SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    let mut f = key_fields().to_vec();
    f.extend([
        Field::new("attestation_slot", DataType::UInt64, false),
        Field::new("committee_index", DataType::UInt64, false),
        Field::new("committee_bits", DataType::Binary, true),
        u64_list_field("committee_indices"),
        Field::new("aggregation_bits", DataType::Binary, false),
        Field::new("aggregation_bits_length", DataType::UInt32, false),
        Field::new("attesting_count", DataType::UInt32, false),
        Field::new("beacon_block_root", DataType::Binary, false),
        Field::new("source_epoch", DataType::UInt64, false),
        Field::new("source_root", DataType::Binary, false),
        Field::new("target_epoch", DataType::UInt64, false),
        Field::new("target_root", DataType::Binary, false),
        Field::new("inclusion_delay", DataType::UInt64, true),
    ]);
    Arc::new(Schema::new(f))
});

era_dataset!(
    Attestations,
    "attestations",
    AttestationsBuilder,
    sort: &KEY_SORT,
    dictionary: &[],
    // A block's attestations vote for few heads and one or two epochs' checkpoints.
    repeated: &["block_root", "beacon_block_root", "source_root", "target_root"]
);

struct AttestationsBuilder {
    key: KeyColumns,
    attestation_slot: UInt64Builder,
    committee_index: UInt64Builder,
    committee_bits: BinaryBuilder,
    committee_indices: ListBuilder<UInt64Builder>,
    aggregation_bits: BinaryBuilder,
    aggregation_bits_length: UInt32Builder,
    attesting_count: UInt32Builder,
    beacon_block_root: BinaryBuilder,
    source_epoch: UInt64Builder,
    source_root: BinaryBuilder,
    target_epoch: UInt64Builder,
    target_root: BinaryBuilder,
    inclusion_delay: UInt64Builder,
}

impl Default for AttestationsBuilder {
    fn default() -> Self {
        AttestationsBuilder {
            key: KeyColumns::default(),
            attestation_slot: UInt64Builder::new(),
            committee_index: UInt64Builder::new(),
            committee_bits: BinaryBuilder::new(),
            committee_indices: u64_list_builder(),
            aggregation_bits: BinaryBuilder::new(),
            aggregation_bits_length: UInt32Builder::new(),
            attesting_count: UInt32Builder::new(),
            beacon_block_root: BinaryBuilder::new(),
            source_epoch: UInt64Builder::new(),
            source_root: BinaryBuilder::new(),
            target_epoch: UInt64Builder::new(),
            target_root: BinaryBuilder::new(),
            inclusion_delay: UInt64Builder::new(),
        }
    }
}

impl DatasetBuilder for AttestationsBuilder {
    fn add_beacon_block(&mut self, b: &VerifiedBeaconBlock<'_>) -> Result<(), DatasetError> {
        let list = b.body.attestation_list().map_err(DatasetError::ssz(
            "attestations",
            b.slot,
            "attestations",
        ))?;
        for (i, a) in list.iter().enumerate() {
            let bits = a.aggregation_bits();
            // Bitlists were validated when the block was hashed; a delimiter-less one cannot reach here.
            let (length, set) = bitlist_counts(bits).unwrap_or((0, 0));
            let data = a.data();
            self.key.append(b, i);
            self.attestation_slot.append_value(data.slot());
            self.committee_index.append_value(data.index());
            self.committee_bits.append_option(a.committee_bits());
            self.committee_indices
                .values()
                .append_slice(&a.committee_indices());
            self.committee_indices.append(true);
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
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        let s = &mut *self;
        let mut cols: Vec<ArrayRef> = s.key.finish().to_vec();
        cols.extend([
            Arc::new(s.attestation_slot.finish()) as ArrayRef,
            Arc::new(s.committee_index.finish()),
            Arc::new(s.committee_bits.finish()),
            Arc::new(s.committee_indices.finish()),
            Arc::new(s.aggregation_bits.finish()),
            Arc::new(s.aggregation_bits_length.finish()),
            Arc::new(s.attesting_count.finish()),
            Arc::new(s.beacon_block_root.finish()),
            Arc::new(s.source_epoch.finish()),
            Arc::new(s.source_root.finish()),
            Arc::new(s.target_epoch.finish()),
            Arc::new(s.target_root.finish()),
            Arc::new(s.inclusion_delay.finish()),
        ]);
        // Columns match SCHEMA by construction; a mismatch is a bug caught by the dataset tests.
        RecordBatch::try_new(SCHEMA.clone(), cols).expect("attestations columns match the schema")
    }
}
