//! `attester_slashings`: one row per attester slashing in a beacon block (era files): two conflicting indexed
//! attestations (a double vote or a surround vote), with the validators it slashes, the indices attesting in
//! both.

use super::columns::U64ListColumn;
use super::operations::KeyColumns;
use super::table::{ColumnGroup, Columns, Spec};
use super::{DatasetBuilder, DatasetError};
use crate::consensus::operations::IndexedAttestation;
use crate::verify::era::VerifiedBeaconBlock;
use arrow_array::builder::{BinaryBuilder, UInt32Builder, UInt64Builder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field};

/// The `attester_slashings` dataset.
pub struct AttesterSlashings;

era_dataset!(
    AttesterSlashings,
    "attester_slashings",
    AttesterSlashingsColumns
);

columns! {
    struct AttesterSlashingsColumns {
        key: KeyColumns [sort],
        slashed_indices: U64ListColumn,
        slashed_count: UInt32Builder,
        attestation_1: VoteColumns,
        attestation_2: VoteColumns,
    }
}

/// One indexed attestation, whole: `<name>_slot`, `<name>_source_epoch`, `<name>_target_epoch`, then
/// `<name>_attesting_indices`, `<name>_committee_index`, `<name>_beacon_block_root`, `<name>_source_root`,
/// `<name>_target_root`, `<name>_signature`.
#[derive(Default)]
struct VoteColumns {
    slot: UInt64Builder,
    source_epoch: UInt64Builder,
    target_epoch: UInt64Builder,
    attesting_indices: U64ListColumn,
    committee_index: UInt64Builder,
    beacon_block_root: BinaryBuilder,
    source_root: BinaryBuilder,
    target_root: BinaryBuilder,
    signature: BinaryBuilder,
}

impl VoteColumns {
    fn append(&mut self, a: &IndexedAttestation<'_>) {
        let d = a.data();
        self.slot.append_value(d.slot());
        self.source_epoch.append_value(d.source_epoch());
        self.target_epoch.append_value(d.target_epoch());
        self.attesting_indices
            .append(&a.attesting_indices().collect::<Vec<_>>());
        self.committee_index.append_value(d.index());
        self.beacon_block_root.append_value(d.beacon_block_root());
        self.source_root.append_value(d.source_root());
        self.target_root.append_value(d.target_root());
        self.signature.append_value(a.signature());
    }
}

impl ColumnGroup for VoteColumns {
    fn fields(name: &'static str, spec: Spec) -> Vec<Field> {
        let mut out: Vec<Field> = ["slot", "source_epoch", "target_epoch"]
            .map(|part| Field::new(format!("{name}_{part}"), DataType::UInt64, spec.nullable))
            .to_vec();
        out.push(Field::new(
            format!("{name}_attesting_indices"),
            DataType::List(std::sync::Arc::new(super::columns::u64_item())),
            spec.nullable,
        ));
        out.push(Field::new(
            format!("{name}_committee_index"),
            DataType::UInt64,
            spec.nullable,
        ));
        for part in [
            "beacon_block_root",
            "source_root",
            "target_root",
            "signature",
        ] {
            out.push(Field::new(
                format!("{name}_{part}"),
                DataType::Binary,
                spec.nullable,
            ));
        }
        out
    }

    fn finish_into(&mut self, out: &mut Vec<ArrayRef>) {
        self.slot.finish_into(out);
        self.source_epoch.finish_into(out);
        self.target_epoch.finish_into(out);
        self.attesting_indices.finish_into(out);
        self.committee_index.finish_into(out);
        self.beacon_block_root.finish_into(out);
        self.source_root.finish_into(out);
        self.target_root.finish_into(out);
        self.signature.finish_into(out);
    }
}

impl DatasetBuilder for AttesterSlashingsColumns {
    fn add_beacon_block(&mut self, b: &VerifiedBeaconBlock<'_>) -> Result<(), DatasetError> {
        let err = DatasetError::ssz("attester_slashings", b.slot, "attester_slashings");
        for (i, s) in b
            .body
            .attester_slashing_list()
            .map_err(err)?
            .iter()
            .enumerate()
        {
            let slashed = s.slashed_indices();
            self.key.append(b, i);
            self.slashed_indices.append(&slashed);
            self.slashed_count.append_value(slashed.len() as u32);
            self.attestation_1.append(&s.attestation_1);
            self.attestation_2.append(&s.attestation_2);
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        self.finish_batch()
    }
}
