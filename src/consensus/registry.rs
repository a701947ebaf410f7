//! A BeaconState's validator registry read column by column: the validators, their balances and, by fork,
//! inactivity scores, participation flags and the Electra queues that name them.
//!
//! Spec facts: `validators`, `balances` and (Altair on) `previous_epoch_participation`,
//! `current_epoch_participation` and `inactivity_scores` all have one entry per validator, index for index
//! (phase0 `process_deposit` / altair `add_validator_to_registry` append to each together), so a state where
//! their lengths differ is malformed. Electra's `pending_deposits` name validators by `pubkey` (a deposit may be
//! for a key that has no validator yet), `pending_partial_withdrawals` by `validator_index`, and
//! `pending_consolidations` by `source_index` and `target_index`.
//!
//! Nothing here copies the registry: [`Registry`] holds slices of the state's bytes, and a caller reads any
//! range of validators from them (export streams the registry in chunks).

use super::ssz::{read_u64, ErrorKind, SszError};
use super::state::BeaconState;
use super::validators::VALIDATOR_SIZE;
use std::collections::HashMap;
use std::ops::Range;

/// Serialized size of a `PendingDeposit` (pubkey, withdrawal_credentials, amount, signature, slot).
const PENDING_DEPOSIT_SIZE: usize = 48 + 32 + 8 + 96 + 8;
/// Serialized size of a `PendingPartialWithdrawal` (validator_index, amount, withdrawable_epoch).
const PENDING_PARTIAL_WITHDRAWAL_SIZE: usize = 24;
/// Serialized size of a `PendingConsolidation` (source_index, target_index).
const PENDING_CONSOLIDATION_SIZE: usize = 16;

/// One validator's `Validator` record (121 bytes): `pubkey` 0, `withdrawal_credentials` 48,
/// `effective_balance` 80, `slashed` 88, `activation_eligibility_epoch` 89, `activation_epoch` 97,
/// `exit_epoch` 105, `withdrawable_epoch` 113.
#[derive(Debug, Clone, Copy)]
pub struct ValidatorRecord<'a>(&'a [u8]);

impl<'a> ValidatorRecord<'a> {
    fn u64_at(&self, at: usize) -> u64 {
        read_u64(self.0, at).unwrap_or_default()
    }
    /// `pubkey` (48 bytes).
    pub fn pubkey(&self) -> &'a [u8] {
        self.0.get(..48).unwrap_or_default()
    }
    /// `withdrawal_credentials` (32 bytes; the first byte is the credential type: 0x00 BLS, 0x01 execution
    /// address, 0x02 compounding).
    pub fn withdrawal_credentials(&self) -> &'a [u8] {
        self.0.get(48..80).unwrap_or_default()
    }
    /// `effective_balance` (Gwei).
    pub fn effective_balance(&self) -> u64 {
        self.u64_at(80)
    }
    /// `slashed`.
    pub fn slashed(&self) -> bool {
        self.0.get(88).is_some_and(|&b| b == 1)
    }
    /// `activation_eligibility_epoch`.
    pub fn activation_eligibility_epoch(&self) -> u64 {
        self.u64_at(89)
    }
    /// `activation_epoch`.
    pub fn activation_epoch(&self) -> u64 {
        self.u64_at(97)
    }
    /// `exit_epoch`.
    pub fn exit_epoch(&self) -> u64 {
        self.u64_at(105)
    }
    /// `withdrawable_epoch`.
    pub fn withdrawable_epoch(&self) -> u64 {
        self.u64_at(113)
    }
}

/// How many Electra queue entries name each validator.
#[derive(Debug, Default)]
pub struct PendingCounts {
    deposits: HashMap<[u8; 48], u32>,
    partial_withdrawals: HashMap<u64, u32>,
    consolidations: HashMap<u64, u32>,
}

impl PendingCounts {
    /// Entries of `pending_deposits` for `pubkey`.
    pub fn deposits(&self, pubkey: &[u8]) -> u32 {
        if self.deposits.is_empty() {
            return 0;
        }
        pubkey
            .try_into()
            .ok()
            .and_then(|k: [u8; 48]| self.deposits.get(&k).copied())
            .unwrap_or(0)
    }
    /// Entries of `pending_partial_withdrawals` for validator `index`.
    pub fn partial_withdrawals(&self, index: u64) -> u32 {
        self.partial_withdrawals.get(&index).copied().unwrap_or(0)
    }
    /// Entries of `pending_consolidations` with validator `index` as source or target.
    pub fn consolidations(&self, index: u64) -> u32 {
        self.consolidations.get(&index).copied().unwrap_or(0)
    }
}

/// The registry of one state: per-validator lists as slices of the state's bytes.
#[derive(Debug)]
pub struct Registry<'a> {
    validators: &'a [u8],
    balances: &'a [u8],
    inactivity_scores: Option<&'a [u8]>,
    previous_participation: Option<&'a [u8]>,
    current_participation: Option<&'a [u8]>,
    pending: Option<PendingCounts>,
}

/// A list field of `state` whose length must be `n` entries of `size` bytes.
fn per_validator<'a>(
    state: &BeaconState<'a>,
    name: &'static str,
    size: usize,
    n: usize,
) -> Result<Option<&'a [u8]>, SszError> {
    let Some(b) = state.field(name) else {
        return Ok(None);
    };
    if b.len() != n * size {
        return Err(SszError::new(ErrorKind::Length {
            ty: format!("{name} (one entry per validator, {n} validators)"),
            expected: n * size,
            found: b.len(),
        })
        .at_field(name)
        .at_field("BeaconState"));
    }
    Ok(Some(b))
}

/// The entries of a fixed-size-element list field (empty when the fork has no such field).
fn entries<'a>(
    state: &BeaconState<'a>,
    name: &'static str,
    size: usize,
) -> Result<std::slice::ChunksExact<'a, u8>, SszError> {
    let b = state.field(name).unwrap_or_default();
    if !b.len().is_multiple_of(size) {
        return Err(SszError::new(ErrorKind::NotMultiple {
            ty: name.into(),
            elem_size: size,
            found: b.len(),
        })
        .at_field(name)
        .at_field("BeaconState"));
    }
    Ok(b.chunks_exact(size))
}

impl<'a> Registry<'a> {
    /// Reads the registry of `state`, checking that every per-validator list has one entry per validator.
    pub fn new(state: &BeaconState<'a>) -> Result<Registry<'a>, SszError> {
        let validators = state.field("validators").unwrap_or_default();
        if !validators.len().is_multiple_of(VALIDATOR_SIZE) {
            return Err(SszError::new(ErrorKind::NotMultiple {
                ty: "validators".into(),
                elem_size: VALIDATOR_SIZE,
                found: validators.len(),
            })
            .at_field("validators")
            .at_field("BeaconState"));
        }
        let n = validators.len() / VALIDATOR_SIZE;
        let balances = per_validator(state, "balances", 8, n)?.unwrap_or_default();
        let inactivity_scores = per_validator(state, "inactivity_scores", 8, n)?;
        let previous_participation = per_validator(state, "previous_epoch_participation", 1, n)?;
        let current_participation = per_validator(state, "current_epoch_participation", 1, n)?;
        let pending = if state.field("pending_deposits").is_some() {
            let mut p = PendingCounts::default();
            for d in entries(state, "pending_deposits", PENDING_DEPOSIT_SIZE)? {
                if let Ok(k) = d[..48].try_into() {
                    *p.deposits.entry(k).or_default() += 1;
                }
            }
            for w in entries(
                state,
                "pending_partial_withdrawals",
                PENDING_PARTIAL_WITHDRAWAL_SIZE,
            )? {
                *p.partial_withdrawals
                    .entry(read_u64(w, 0).unwrap_or_default())
                    .or_default() += 1;
            }
            for c in entries(state, "pending_consolidations", PENDING_CONSOLIDATION_SIZE)? {
                let (source, target) = (
                    read_u64(c, 0).unwrap_or_default(),
                    read_u64(c, 8).unwrap_or_default(),
                );
                *p.consolidations.entry(source).or_default() += 1;
                if target != source {
                    *p.consolidations.entry(target).or_default() += 1;
                }
            }
            Some(p)
        } else {
            None
        };
        Ok(Registry {
            validators,
            balances,
            inactivity_scores,
            previous_participation,
            current_participation,
            pending,
        })
    }

    /// Number of validators.
    pub fn len(&self) -> usize {
        self.validators.len() / VALIDATOR_SIZE
    }

    /// Whether the registry is empty.
    pub fn is_empty(&self) -> bool {
        self.validators.is_empty()
    }

    /// The records of validators `range` (clamped to the registry).
    pub fn validators(
        &self,
        range: Range<usize>,
    ) -> impl ExactSizeIterator<Item = ValidatorRecord<'a>> {
        let end = range.end.min(self.len());
        let start = range.start.min(end);
        self.validators[start * VALIDATOR_SIZE..end * VALIDATOR_SIZE]
            .chunks_exact(VALIDATOR_SIZE)
            .map(ValidatorRecord)
    }

    /// `balances[range]` (Gwei), clamped to the registry.
    pub fn balances(&self, range: Range<usize>) -> impl ExactSizeIterator<Item = u64> + 'a {
        u64s(self.balances, range)
    }

    /// `inactivity_scores[range]` (Altair on).
    pub fn inactivity_scores(
        &self,
        range: Range<usize>,
    ) -> Option<impl ExactSizeIterator<Item = u64> + 'a> {
        self.inactivity_scores.map(|b| u64s(b, range))
    }

    /// `previous_epoch_participation[range]` (Altair on): flag bits 0 timely source, 1 timely target, 2 timely
    /// head.
    pub fn previous_epoch_participation(&self, range: Range<usize>) -> Option<&'a [u8]> {
        self.previous_participation.map(|b| clamp(b, range))
    }

    /// `current_epoch_participation[range]` (Altair on).
    pub fn current_epoch_participation(&self, range: Range<usize>) -> Option<&'a [u8]> {
        self.current_participation.map(|b| clamp(b, range))
    }

    /// The Electra queue counts (`None` before Electra).
    pub fn pending(&self) -> Option<&PendingCounts> {
        self.pending.as_ref()
    }

    /// The sum of every balance (Gwei; u128, so no registry can overflow it).
    pub fn total_balance(&self) -> u128 {
        self.balances(0..self.len()).map(u128::from).sum()
    }
}

fn clamp(b: &[u8], range: Range<usize>) -> &[u8] {
    let end = range.end.min(b.len());
    &b[range.start.min(end)..end]
}

fn u64s(b: &[u8], range: Range<usize>) -> impl ExactSizeIterator<Item = u64> + '_ {
    let end = range.end.min(b.len() / 8);
    let start = range.start.min(end);
    b[start * 8..end * 8]
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::consensus::{synth, Fork, Spec};

    #[test]
    fn registry_columns_line_up_and_mismatched_lengths_are_refused() {
        let bytes = synth::state(Spec::mainnet(Fork::Electra), 300, 5);
        let state = BeaconState::new(&bytes, Spec::mainnet(Fork::Electra)).unwrap();
        let r = Registry::new(&state).unwrap();
        assert_eq!(r.len(), 300);
        assert_eq!(r.validators(290..400).len(), 10);
        assert_eq!(r.balances(0..300).len(), 300);
        assert_eq!(r.inactivity_scores(0..10).unwrap().len(), 10);
        assert!(r.pending().is_some());
        let b = state.field("balances").unwrap();
        let sum: u128 = b
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()) as u128)
            .sum();
        assert_eq!(r.total_balance(), sum);
        let spec = Spec::mainnet(Fork::Electra);
        let short = crate::consensus::ssz::with_fields(
            spec.state_schema(),
            &bytes,
            &[("balances", &b[..8 * 299])],
        )
        .unwrap();
        let s = BeaconState::new(&short, spec).unwrap();
        let e = Registry::new(&s).unwrap_err().to_string();
        assert!(
            e.contains("balances") && e.contains("300 validators"),
            "{e}"
        );
        let phase0 = synth::state(Spec::mainnet(Fork::Phase0), 10, 5);
        let s0 = BeaconState::new(&phase0, Spec::mainnet(Fork::Phase0)).unwrap();
        let r0 = Registry::new(&s0).unwrap();
        assert!(r0.inactivity_scores(0..1).is_none() && r0.pending().is_none());
    }
}
