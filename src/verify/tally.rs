//! What the block pass of an execution file tallies, below the pass and its helpers (receipts, the sequential
//! checks): each block's facts, the counts merged across chunks, transaction kinds by label, located RLP errors.

use crate::execution::rlp;
use crate::execution::transaction::TxKind;
use crate::formats::{FormatError, FormatErrorKind};
use alloy_primitives::U256;
use std::collections::BTreeMap;
use std::path::Path;

/// What one block contributed, kept for the sequential checks after the parallel pass.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct BlockFacts {
    pub(super) hash: [u8; 32],
    pub(super) parent: [u8; 32],
    /// The block's TotalDifficulty record, when the file has them.
    pub(super) td_le: Option<[u8; 32]>,
    pub(super) difficulty: U256,
    /// The AuRa step of an AuRa-sealed header (the difficulty rule links it to its parent's).
    pub(super) aura_step: Option<u64>,
    /// The header's `slot_number` (Amsterdam on): where the block meets the era files' bids.
    pub(super) slot: Option<u64>,
    pub(super) ok: bool,
}

/// Counts accumulated over a chunk of blocks and merged.
#[derive(Debug, Default)]
pub(super) struct Counts {
    pub(super) transactions: u64,
    pub(super) ommers: u64,
    pub(super) receipts: u64,
    pub(super) logs: u64,
    /// Transactions by kind, indexed by [`kind_slot`] (an array: a map lookup per transaction showed in
    /// profiles of prune).
    pub(super) tx_kinds: [u64; KIND_LABELS.len()],
    /// Receipts by transaction kind ([`kind_slot`]) and form (0: status, 1: post-state root), named at the end
    /// (formatting a name per receipt showed in profiles).
    pub(super) receipt_forms: [[u64; 2]; KIND_LABELS.len()],
    pub(super) header_fields: BTreeMap<usize, u64>,
    pub(super) senders_recovered: u64,
    pub(super) sender_errors: u64,
    pub(super) withdrawals: u64,
    /// Proof records by proof type (ere, default profile).
    pub(super) proof_types: BTreeMap<u64, u64>,
    /// Blocks whose proof reached an anchor, by anchor name.
    pub(super) proven: BTreeMap<String, u64>,
    /// Blocks whose proof found no anchor to check against, and the first reason.
    pub(super) unanchored: u64,
    pub(super) unanchored_reason: Option<String>,
}

impl Counts {
    pub(super) fn merge(mut self, o: Counts) -> Counts {
        self.transactions += o.transactions;
        self.ommers += o.ommers;
        self.receipts += o.receipts;
        self.logs += o.logs;
        for (a, b) in self.tx_kinds.iter_mut().zip(o.tx_kinds) {
            *a += b;
        }
        for (a, b) in self.receipt_forms.iter_mut().zip(o.receipt_forms) {
            a[0] += b[0];
            a[1] += b[1];
        }
        self.senders_recovered += o.senders_recovered;
        self.sender_errors += o.sender_errors;
        for (k, v) in o.header_fields {
            *self.header_fields.entry(k).or_default() += v;
        }
        self.withdrawals += o.withdrawals;
        for (k, v) in o.proof_types {
            *self.proof_types.entry(k).or_default() += v;
        }
        for (k, v) in o.proven {
            *self.proven.entry(k).or_default() += v;
        }
        self.unanchored += o.unanchored;
        if self.unanchored_reason.is_none() {
            self.unanchored_reason = o.unanchored_reason;
        }
        self
    }
}

/// Every [`kind_label`], at its [`kind_slot`].
pub(super) const KIND_LABELS: [&str; 6] = [
    "legacy_pre155",
    "legacy_eip155",
    "type1",
    "type2",
    "type3",
    "type4",
];

/// Where a transaction kind is counted in [`Counts::tx_kinds`]: the position of its label in [`KIND_LABELS`].
pub(super) fn kind_slot(kind: TxKind) -> usize {
    match kind {
        TxKind::LegacyPre155 => 0,
        TxKind::Legacy155 => 1,
        TxKind::Eip2930 => 2,
        TxKind::Eip1559 => 3,
        TxKind::Eip4844 => 4,
        TxKind::Eip7702 => 5,
    }
}

/// The report label of a transaction kind (stable names in `verify --json`: legacy_pre155, legacy_eip155,
/// type1..type4).
pub fn kind_label(kind: TxKind) -> &'static str {
    match kind {
        TxKind::LegacyPre155 => "legacy_pre155",
        TxKind::Legacy155 => "legacy_eip155",
        TxKind::Eip2930 => "type1",
        TxKind::Eip1559 => "type2",
        TxKind::Eip4844 => "type3",
        TxKind::Eip7702 => "type4",
    }
}

/// An RLP failure located at the record at `offset` of `path`, block `number`.
pub(super) fn rlp_error(e: rlp::RlpError, offset: u64, path: &Path, number: u64) -> FormatError {
    FormatError::at(offset, FormatErrorKind::Rlp(e.to_string()))
        .in_file(path)
        .in_block(number)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_slots_hold_their_labels() {
        for k in [
            TxKind::LegacyPre155,
            TxKind::Legacy155,
            TxKind::Eip2930,
            TxKind::Eip1559,
            TxKind::Eip4844,
            TxKind::Eip7702,
        ] {
            assert_eq!(KIND_LABELS[kind_slot(k)], kind_label(k));
        }
    }
}
