//! `raw_transactions` (opt-in): one row per transaction with its bytes as the chain holds them — the element of
//! an execution payload's `transactions` list (consensus-specs `Transaction`), which is the
//! [EIP-2718](https://eips.ethereum.org/EIPS/eip-2718) encoding an era1 or ere block body carries (a legacy
//! transaction's RLP list, or `type || rlp(fields)`) and the value `transaction_hash` hashes. What
//! `eth_getRawTransactionByHash` returns; what era-parser writes (in a column it calls `transaction_hash`).
//!
//! A dataset of its own rather than a column of `transactions`: the bytes are most of a transaction's size (an
//! export with them roughly doubles), so they are asked for by name, and `transactions` keeps one schema.
//! Rows join `transactions` on `(block_number, transaction_index)`.

use super::table::Columns;
use super::{DatasetBuilder, DatasetError};
use crate::execution::transaction::TxView;
use crate::verify::era::VerifiedBeaconBlock;
use crate::verify::execution::VerifiedBlock;
use arrow_array::builder::{BinaryBuilder, UInt64Builder};
use arrow_array::RecordBatch;

/// The `raw_transactions` dataset.
pub struct RawTransactions;

dataset!(
    RawTransactions,
    "raw_transactions",
    RawTransactionsColumns,
    Blocks
);

columns! {
    struct RawTransactionsColumns {
        block_number: UInt64Builder [sort],
        transaction_index: UInt64Builder [sort],
        transaction_hash: BinaryBuilder,
        block_hash: BinaryBuilder,
        raw_transaction: BinaryBuilder,
    }
}

impl RawTransactionsColumns {
    /// One block's rows: `hash(i)` is transaction `i`'s hash (shared with the other datasets of an execution
    /// block, computed once).
    fn add_rows(
        &mut self,
        number: u64,
        block_hash: &[u8; 32],
        transactions: &[TxView<'_>],
        hash: impl Fn(usize) -> [u8; 32],
    ) {
        for (i, tx) in transactions.iter().enumerate() {
            self.block_number.append_value(number);
            self.transaction_index.append_value(i as u64);
            self.transaction_hash.append_value(hash(i));
            self.block_hash.append_value(block_hash);
            // The canonical bytes are a slice of the verified (decompressed) record: the transactions root
            // commits to exactly these.
            self.raw_transaction.append_value(tx.canonical());
        }
    }
}

impl DatasetBuilder for RawTransactionsColumns {
    fn add_block(&mut self, b: &VerifiedBlock<'_>) {
        self.add_rows(b.number, &b.hash, b.transactions, |i| b.tx_hash(i));
    }

    fn add_beacon_block(&mut self, b: &VerifiedBeaconBlock<'_>) -> Result<(), DatasetError> {
        if let Some(x) = &b.execution {
            self.add_rows(x.header.number, &x.block_hash.0, x.transactions, |i| {
                x.transactions[i].hash().0
            });
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        self.finish_batch()
    }
}
