//! `native_transfers`: one row per movement of ETH an archive proves, never two for one movement (cryo's
//! `native_transfers` column names, which cryo fills from an archive node's traces; here from the blocks alone).
//! `kind` says where each row comes from:
//! - `transaction`: a top-level transfer of non-zero value that did not fail (every fork; a creation's
//!   `to_address` is the contract it created, `keccak256(rlp([sender, nonce]))[12:]`). Its receipt's status says
//!   whether it failed from Byzantium on; before, a failed transaction consumed all its gas, so one that used
//!   less is proven to have succeeded and one that used all of it may have either way: it is a row with `success`
//!   null. From Amsterdam on, the transaction's own EIP-7708 log is its `log_index` (no second row).
//! - `withdrawal`: a non-zero [EIP-4895](https://eips.ethereum.org/EIPS/eip-4895) withdrawal (Shanghai on), from
//!   the beacon chain (`from_address` null), its amount in wei.
//! - `log`: an [EIP-7708](https://eips.ethereum.org/EIPS/eip-7708) ETH-transfer log of an internal transfer (a
//!   `CALL`, `CREATE`, `CREATE2` or `SELFDESTRUCT` that moved value; Amsterdam on).
//!
//! Before Amsterdam, internal transfers are only in execution traces, which no archive holds; fees, priority
//! fees and (pre-merge) block rewards are not movements between accounts and are left out (docs/schema.md).
//! Rows are in block order: each transaction's row, then its logs' rows, then the block's withdrawals.

use super::columns::U256Columns;
use super::table::{Columns, Table};
use super::{Dataset, DatasetBuilder, ExportContext};
use crate::execution::eth_transfer::{self, EthTransfer};
use crate::execution::receipt::Outcome;
use crate::execution::transaction::TxView;
use crate::formats::Need;
use crate::verify::execution::VerifiedBlock;
use alloy_primitives::{Address, U256};
use arrow_array::builder::{
    BinaryBuilder, BooleanBuilder, StringBuilder, UInt32Builder, UInt64Builder,
};
use arrow_array::RecordBatch;

/// The `native_transfers` dataset.
pub struct NativeTransfers;

impl Dataset for NativeTransfers {
    fn name(&self) -> &'static str {
        "native_transfers"
    }
    fn table(&self) -> &'static Table {
        NativeTransferColumns::table()
    }
    /// Whether a transaction succeeded, and the EIP-7708 logs, are in receipts (era files carry none).
    fn needs(&self) -> Need {
        Need::Receipts
    }
    fn needs_receipts(&self) -> bool {
        true
    }
    /// A transaction row's `from_address` (and a creation's `to_address`) is its recovered sender; without
    /// senders they are null unless the transaction's own EIP-7708 log names them.
    fn uses_senders(&self) -> bool {
        true
    }
    fn builder(&self, ctx: ExportContext) -> Box<dyn DatasetBuilder> {
        Box::new(NativeTransfersBuilder {
            chain_id: ctx.chain_id,
            c: NativeTransferColumns::default(),
        })
    }
}

columns! {
    struct NativeTransferColumns {
        block_number: UInt64Builder [sort],
        block_hash: BinaryBuilder,
        timestamp: UInt64Builder,
        /// The row's place in its block, from 0 (cryo's `transfer_index`).
        transfer_index: UInt32Builder [sort],
        /// `transaction`, `withdrawal` or `log`.
        kind: StringBuilder,
        transaction_index: UInt32Builder [nullable],
        transaction_hash: BinaryBuilder [nullable],
        /// The EIP-7708 log of the row (a transaction's own value log, or an internal transfer's).
        log_index: UInt32Builder [nullable],
        withdrawal_index: UInt64Builder [nullable],
        from_address: BinaryBuilder [nullable, dictionary],
        to_address: BinaryBuilder [nullable, dictionary],
        value: U256Columns,
        /// Null only for a pre-Byzantium transaction that used all its gas (success not provable).
        success: BooleanBuilder [nullable],
        chain_id: UInt64Builder,
    }
}

struct NativeTransfersBuilder {
    chain_id: u64,
    c: NativeTransferColumns,
}

/// What one row says beyond its block.
struct Row<'a> {
    kind: &'static str,
    transaction: Option<(u32, [u8; 32])>,
    log_index: Option<u32>,
    withdrawal_index: Option<u64>,
    from: Option<&'a [u8]>,
    to: Option<&'a [u8]>,
    value: U256,
    success: Option<bool>,
}

impl NativeTransfersBuilder {
    fn push(&mut self, b: &VerifiedBlock<'_>, index: &mut u32, r: Row<'_>) {
        let c = &mut self.c;
        c.block_number.append_value(b.number);
        c.block_hash.append_value(b.hash);
        c.timestamp.append_value(b.header.timestamp());
        c.transfer_index.append_value(*index);
        *index += 1;
        c.kind.append_value(r.kind);
        c.transaction_index
            .append_option(r.transaction.map(|t| t.0));
        c.transaction_hash.append_option(r.transaction.map(|t| t.1));
        c.log_index.append_option(r.log_index);
        c.withdrawal_index.append_option(r.withdrawal_index);
        c.from_address.append_option(r.from);
        c.to_address.append_option(r.to);
        c.value.append(Some(r.value));
        c.success.append_option(r.success);
        c.chain_id.append_value(self.chain_id);
    }
}

/// Whether transaction `tx`, which used `gas_used`, did not fail: its status from Byzantium on; before, `Some(true)`
/// when it used less than its limit (a failure consumed all of it), else unknown.
fn succeeded(outcome: Outcome<'_>, tx: &TxView<'_>, gas_used: u64) -> Option<bool> {
    match outcome {
        Outcome::Status(ok) => Some(ok),
        Outcome::PostState(_) => (gas_used < tx.gas_limit()).then_some(true),
    }
}

impl DatasetBuilder for NativeTransfersBuilder {
    fn add_block(&mut self, b: &VerifiedBlock<'_>) {
        let mut index = 0u32;
        let logs = b.logs();
        let mut at = 0usize;
        let mut prev_cumulative = 0u64;
        for (i, (tx, r)) in b.transactions.iter().zip(b.receipts).enumerate() {
            let cumulative = r.cumulative_gas_used();
            let gas_used = cumulative.saturating_sub(prev_cumulative);
            prev_cumulative = cumulative;
            // This transaction's EIP-7708 logs, in order.
            let start = at;
            while logs
                .get(at)
                .is_some_and(|l| l.transaction_index as usize == i)
            {
                at += 1;
            }
            let transfers = logs[start..at]
                .iter()
                .filter_map(|l| eth_transfer::eth_transfer(&l.log).map(|t| (l.log_index, t)));
            let mut transfers = transfers.peekable();
            let value = tx.value();
            let success = succeeded(r.outcome(), tx, gas_used);
            let tx_key = (i as u32, b.tx_hash(i));
            if !value.is_zero() && success != Some(false) {
                let sender = match b.senders.get(i) {
                    Some(Ok(s)) => Some(s),
                    _ => None,
                };
                let created = match (tx.to(), sender) {
                    (None, Some(s)) => Some(Address::from(*s).create(tx.nonce())),
                    _ => None,
                };
                let to: Option<&[u8]> =
                    tx.to().map(|t| &t[..]).or(created.as_ref().map(|a| &a[..]));
                // The transaction's own log comes before any other (EIP-7708): the first log, when it moves this
                // value to this recipient (and from this sender, when known).
                let own = transfers.next_if(|(li, t): &(u32, EthTransfer<'_>)| {
                    *li == logs[start].log_index
                        && t.value == value
                        && to.is_none_or(|to| to == t.to)
                        && sender.is_none_or(|s| s == t.from)
                });
                let (from, to) = match &own {
                    Some((_, t)) => (Some(&t.from[..]), Some(&t.to[..])),
                    None => (sender.map(|s| &s[..]), to),
                };
                self.push(
                    b,
                    &mut index,
                    Row {
                        kind: "transaction",
                        transaction: Some(tx_key),
                        log_index: own.map(|o| o.0),
                        withdrawal_index: None,
                        from,
                        to,
                        value,
                        success,
                    },
                );
            }
            for (log_index, t) in transfers {
                self.push(
                    b,
                    &mut index,
                    Row {
                        kind: "log",
                        transaction: Some(tx_key),
                        log_index: Some(log_index),
                        withdrawal_index: None,
                        from: Some(t.from),
                        to: Some(t.to),
                        value: t.value,
                        success: Some(true),
                    },
                );
            }
        }
        for w in b.withdrawals.iter().filter(|w| w.amount > 0) {
            self.push(
                b,
                &mut index,
                Row {
                    kind: "withdrawal",
                    transaction: None,
                    log_index: None,
                    withdrawal_index: Some(w.index),
                    from: None,
                    to: Some(&w.address),
                    value: U256::from(w.amount) * U256::from(1_000_000_000u64),
                    success: Some(true),
                },
            );
        }
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        self.c.finish_batch()
    }
}
