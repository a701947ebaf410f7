//! `validators`: one row per validator of an era file's BeaconState, the registry and balance snapshot every
//! 8192 slots that only era files hold: record, balance, and by fork the inactivity score, participation flags
//! and the Electra queue entries naming it.
//!
//! Opt-in (`--datasets validators`, not in the default export list): mainnet holds ~2 million validators per
//! state. Rows come from the state that verification hashed, read straight from its bytes, chunk by chunk of
//! validators (see [`crate::consensus::registry`]), so memory stays bounded by one chunk and one row group.

use super::{Dataset, DatasetBuilder, DatasetError, ExportContext};
use crate::formats::Need;
use crate::verify::era::VerifiedState;
use arrow_array::builder::{
    BinaryBuilder, BooleanBuilder, UInt32Builder, UInt64Builder, UInt8Builder,
};
use arrow_array::ArrayRef;
use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use std::ops::Range;
use std::sync::{Arc, LazyLock};

/// The `validators` dataset.
pub struct Validators;

static SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    let u64 = |n| Field::new(n, DataType::UInt64, false);
    Arc::new(Schema::new(vec![
        u64("slot"),
        u64("era"),
        u64("validator_index"),
        Field::new("pubkey", DataType::Binary, false),
        Field::new("withdrawal_credentials", DataType::Binary, false),
        u64("effective_balance"),
        u64("balance"),
        Field::new("slashed", DataType::Boolean, false),
        u64("activation_eligibility_epoch"),
        u64("activation_epoch"),
        u64("exit_epoch"),
        u64("withdrawable_epoch"),
        Field::new("inactivity_score", DataType::UInt64, true),
        Field::new("previous_epoch_participation", DataType::UInt8, true),
        Field::new("current_epoch_participation", DataType::UInt8, true),
        Field::new("pending_deposit_count", DataType::UInt32, true),
        Field::new("pending_partial_withdrawal_count", DataType::UInt32, true),
        Field::new("pending_consolidation_count", DataType::UInt32, true),
    ]))
});

impl Dataset for Validators {
    fn name(&self) -> &'static str {
        "validators"
    }
    fn schema(&self) -> SchemaRef {
        SCHEMA.clone()
    }
    fn needs_receipts(&self) -> bool {
        false
    }
    /// Era files only: their BeaconState.
    fn needs(&self) -> Need {
        Need::State
    }
    fn builder(&self, _: ExportContext) -> Box<dyn DatasetBuilder> {
        Box::<ValidatorsBuilder>::default()
    }
    fn sort_columns(&self) -> &'static [&'static str] {
        &["slot", "validator_index"]
    }
    /// Withdrawal credentials repeat across an operator's validators (tens of thousands share one address):
    /// a dictionary under every codec (Parquet falls back to plain when a page's dictionary grows too big).
    fn repeated_columns(&self) -> &'static [&'static str] {
        &["withdrawal_credentials"]
    }
    fn delta_columns(&self) -> &'static [&'static str] {
        &["validator_index"]
    }
    fn reads_state(&self) -> bool {
        true
    }
}

#[derive(Default)]
struct ValidatorsBuilder {
    slot: UInt64Builder,
    era: UInt64Builder,
    validator_index: UInt64Builder,
    pubkey: BinaryBuilder,
    withdrawal_credentials: BinaryBuilder,
    effective_balance: UInt64Builder,
    balance: UInt64Builder,
    slashed: BooleanBuilder,
    /// activation eligibility, activation, exit, withdrawable.
    epochs: [UInt64Builder; 4],
    inactivity_score: UInt64Builder,
    previous_epoch_participation: UInt8Builder,
    current_epoch_participation: UInt8Builder,
    pending_deposit_count: UInt32Builder,
    pending_partial_withdrawal_count: UInt32Builder,
    pending_consolidation_count: UInt32Builder,
}

impl DatasetBuilder for ValidatorsBuilder {
    fn add_state(
        &mut self,
        s: &VerifiedState<'_>,
        range: Range<usize>,
    ) -> Result<(), DatasetError> {
        let r = s.registry;
        let end = range.end.min(r.len());
        let range = range.start.min(end)..end;
        let n = range.len();
        self.slot.append_value_n(s.slot, n);
        self.era.append_value_n(s.era, n);
        for i in range.clone() {
            self.validator_index.append_value(i as u64);
        }
        for v in r.validators(range.clone()) {
            self.pubkey.append_value(v.pubkey());
            self.withdrawal_credentials
                .append_value(v.withdrawal_credentials());
            self.effective_balance.append_value(v.effective_balance());
            self.slashed.append_value(v.slashed());
            self.epochs[0].append_value(v.activation_eligibility_epoch());
            self.epochs[1].append_value(v.activation_epoch());
            self.epochs[2].append_value(v.exit_epoch());
            self.epochs[3].append_value(v.withdrawable_epoch());
        }
        for b in r.balances(range.clone()) {
            self.balance.append_value(b);
        }
        match r.inactivity_scores(range.clone()) {
            Some(scores) => scores.for_each(|v| self.inactivity_score.append_value(v)),
            None => self.inactivity_score.append_nulls(n),
        }
        match r.previous_epoch_participation(range.clone()) {
            Some(f) => self.previous_epoch_participation.append_slice(f),
            None => self.previous_epoch_participation.append_nulls(n),
        }
        match r.current_epoch_participation(range.clone()) {
            Some(f) => self.current_epoch_participation.append_slice(f),
            None => self.current_epoch_participation.append_nulls(n),
        }
        match r.pending() {
            Some(p) => {
                for (i, v) in range.clone().zip(r.validators(range)) {
                    let index = i as u64;
                    self.pending_deposit_count
                        .append_value(p.deposits(v.pubkey()));
                    self.pending_partial_withdrawal_count
                        .append_value(p.partial_withdrawals(index));
                    self.pending_consolidation_count
                        .append_value(p.consolidations(index));
                }
            }
            None => {
                self.pending_deposit_count.append_nulls(n);
                self.pending_partial_withdrawal_count.append_nulls(n);
                self.pending_consolidation_count.append_nulls(n);
            }
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        let s = &mut *self;
        let mut cols: Vec<ArrayRef> = vec![
            Arc::new(s.slot.finish()),
            Arc::new(s.era.finish()),
            Arc::new(s.validator_index.finish()),
            Arc::new(s.pubkey.finish()),
            Arc::new(s.withdrawal_credentials.finish()),
            Arc::new(s.effective_balance.finish()),
            Arc::new(s.balance.finish()),
            Arc::new(s.slashed.finish()),
        ];
        cols.extend(
            s.epochs
                .iter_mut()
                .map(|b| Arc::new(b.finish()) as ArrayRef),
        );
        cols.extend([
            Arc::new(s.inactivity_score.finish()) as ArrayRef,
            Arc::new(s.previous_epoch_participation.finish()),
            Arc::new(s.current_epoch_participation.finish()),
            Arc::new(s.pending_deposit_count.finish()),
            Arc::new(s.pending_partial_withdrawal_count.finish()),
            Arc::new(s.pending_consolidation_count.finish()),
        ]);
        // Columns match SCHEMA by construction; a mismatch is a bug caught by the dataset tests.
        RecordBatch::try_new(SCHEMA.clone(), cols).expect("validators columns match the schema")
    }
}
