//! `attester_slashings`: one row per attester slashing in a beacon block (era files): two conflicting indexed
//! attestations (a double vote or a surround vote), with the validators it slashes, the indices attesting in
//! both.

use super::operations::{key_fields, u64_list_builder, u64_list_field, KeyColumns, KEY_SORT};
use super::{DatasetBuilder, DatasetError};
use crate::verify::era::VerifiedBeaconBlock;
use arrow_array::builder::{ListBuilder, UInt32Builder, UInt64Builder};
use arrow_array::ArrayRef;
use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use std::sync::{Arc, LazyLock};

/// The `attester_slashings` dataset.
pub struct AttesterSlashings;

static SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    let mut f = key_fields().to_vec();
    f.extend([
        u64_list_field("slashed_indices"),
        Field::new("slashed_count", DataType::UInt32, false),
        Field::new("attestation_1_slot", DataType::UInt64, false),
        Field::new("attestation_1_source_epoch", DataType::UInt64, false),
        Field::new("attestation_1_target_epoch", DataType::UInt64, false),
        Field::new("attestation_2_slot", DataType::UInt64, false),
        Field::new("attestation_2_source_epoch", DataType::UInt64, false),
        Field::new("attestation_2_target_epoch", DataType::UInt64, false),
    ]);
    Arc::new(Schema::new(f))
});

era_dataset!(
    AttesterSlashings,
    "attester_slashings",
    AttesterSlashingsBuilder,
    sort: &KEY_SORT,
    dictionary: &[]
);

struct AttesterSlashingsBuilder {
    key: KeyColumns,
    slashed_indices: ListBuilder<UInt64Builder>,
    slashed_count: UInt32Builder,
    /// `attestation_1` and `attestation_2`: slot, source epoch, target epoch.
    votes: [[UInt64Builder; 3]; 2],
}

impl Default for AttesterSlashingsBuilder {
    fn default() -> Self {
        AttesterSlashingsBuilder {
            key: KeyColumns::default(),
            slashed_indices: u64_list_builder(),
            slashed_count: UInt32Builder::new(),
            votes: Default::default(),
        }
    }
}

impl DatasetBuilder for AttesterSlashingsBuilder {
    fn add_beacon_block(&mut self, b: &VerifiedBeaconBlock<'_>) -> Result<(), DatasetError> {
        let err = || DatasetError::ssz("attester_slashings", b.slot, "attester_slashings");
        let list = b.body.attester_slashing_list().map_err(err())?;
        for (i, s) in list.iter().enumerate() {
            let slashed = s.slashed_indices();
            self.key.append(b, i);
            self.slashed_count.append_value(slashed.len() as u32);
            self.slashed_indices.values().append_slice(&slashed);
            self.slashed_indices.append(true);
            for (cols, a) in self
                .votes
                .iter_mut()
                .zip([&s.attestation_1, &s.attestation_2])
            {
                let d = a.data();
                cols[0].append_value(d.slot());
                cols[1].append_value(d.source_epoch());
                cols[2].append_value(d.target_epoch());
            }
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        let s = &mut *self;
        let mut cols: Vec<ArrayRef> = s.key.finish().to_vec();
        cols.push(Arc::new(s.slashed_indices.finish()));
        cols.push(Arc::new(s.slashed_count.finish()));
        for vote in &mut s.votes {
            for c in vote {
                cols.push(Arc::new(c.finish()));
            }
        }
        // Columns match SCHEMA by construction; a mismatch is a bug caught by the dataset tests.
        RecordBatch::try_new(SCHEMA.clone(), cols)
            .expect("attester_slashings columns match the schema")
    }
}
