//! `validators`: one row per validator of an era file's BeaconState, the registry and balance snapshot every
//! 8192 slots that only era files hold: record, balance, and by fork the inactivity score, participation flags
//! and the Electra queue entries naming it.
//!
//! Opt-in (`--datasets validators`, not in the default export list): mainnet holds ~2 million validators per
//! state. Rows come from the state that verification hashed, read straight from its bytes, chunk by chunk of
//! validators (see [`crate::consensus::registry`]), so memory stays bounded by one chunk and one row group.

use super::table::Columns;
use super::{DatasetBuilder, DatasetError};
use crate::verify::era::VerifiedState;
use arrow_array::builder::{
    BinaryBuilder, BooleanBuilder, UInt32Builder, UInt64Builder, UInt8Builder,
};
use arrow_array::RecordBatch;
use std::ops::Range;

/// The `validators` dataset.
pub struct Validators;

// Era files only: their BeaconState.
dataset!(Validators, "validators", ValidatorsColumns, State);

// Withdrawal credentials repeat across an operator's validators (tens of thousands share one address): a
// dictionary under every codec, `repeated` (Parquet falls back to plain when a page's dictionary grows too big).
columns! {
    struct ValidatorsColumns {
        slot: UInt64Builder [sort],
        era: UInt64Builder,
        validator_index: UInt64Builder [sort, delta],
        pubkey: BinaryBuilder,
        withdrawal_credentials: BinaryBuilder [repeated],
        effective_balance: UInt64Builder,
        balance: UInt64Builder,
        slashed: BooleanBuilder,
        activation_eligibility_epoch: UInt64Builder [wide],
        activation_epoch: UInt64Builder [wide],
        exit_epoch: UInt64Builder [wide],
        withdrawable_epoch: UInt64Builder [wide],
        inactivity_score: UInt64Builder [nullable],
        previous_epoch_participation: UInt8Builder [nullable],
        current_epoch_participation: UInt8Builder [nullable],
        pending_deposit_count: UInt32Builder [nullable],
        pending_partial_withdrawal_count: UInt32Builder [nullable],
        pending_consolidation_count: UInt32Builder [nullable],
    }
}

impl DatasetBuilder for ValidatorsColumns {
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
            self.activation_eligibility_epoch
                .append_value(v.activation_eligibility_epoch());
            self.activation_epoch.append_value(v.activation_epoch());
            self.exit_epoch.append_value(v.exit_epoch());
            self.withdrawable_epoch.append_value(v.withdrawable_epoch());
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
        self.finish_batch()
    }
}
