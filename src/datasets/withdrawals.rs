//! `withdrawals`: one row per [EIP-4895](https://eips.ethereum.org/EIPS/eip-4895) withdrawal of a post-merge block
//! (Shanghai/Capella on), from an ere file's block body or an era file's execution payload; the header's
//! `withdrawals_root` (checked against the body, or through the payload's block hash) commits to every row.

use super::table::Columns;
use super::{DatasetBuilder, DatasetError};
use crate::execution::withdrawal::Withdrawal;
use crate::verify::era::VerifiedBeaconBlock;
use crate::verify::execution::VerifiedBlock;
use arrow_array::builder::{BinaryBuilder, UInt64Builder};
use arrow_array::RecordBatch;

/// The `withdrawals` dataset.
pub struct Withdrawals;

// Withdrawals started after the merge: never in era1 files.
dataset!(Withdrawals, "withdrawals", WithdrawalsColumns, Withdrawals);

columns! {
    struct WithdrawalsColumns {
        block_number: UInt64Builder [sort],
        block_hash: BinaryBuilder,
        timestamp: UInt64Builder,
        slot: UInt64Builder [nullable],
        withdrawal_index: UInt64Builder [sort],
        validator_index: UInt64Builder,
        address: BinaryBuilder [dictionary],
        amount_gwei: UInt64Builder,
    }
}

impl WithdrawalsColumns {
    /// The rows of one block's withdrawals, whichever archive kind gave them; `slot` only where the source
    /// knows it (an era file's beacon block; an ere file holds execution blocks alone).
    fn add_rows(&mut self, block: BlockKey<'_>, withdrawals: &[Withdrawal]) {
        for w in withdrawals {
            self.block_number.append_value(block.number);
            self.block_hash.append_value(block.hash);
            self.timestamp.append_value(block.timestamp);
            self.slot.append_option(block.slot);
            self.withdrawal_index.append_value(w.index);
            self.validator_index.append_value(w.validator_index);
            self.address.append_value(w.address);
            self.amount_gwei.append_value(w.amount);
        }
    }
}

/// What every row of one block's withdrawals repeats.
struct BlockKey<'a> {
    number: u64,
    hash: &'a [u8; 32],
    timestamp: u64,
    slot: Option<u64>,
}

impl DatasetBuilder for WithdrawalsColumns {
    fn add_block(&mut self, b: &VerifiedBlock<'_>) {
        if !b.withdrawals.is_empty() {
            let key = BlockKey {
                number: b.number,
                hash: &b.hash,
                timestamp: b.header.timestamp(),
                slot: None,
            };
            self.add_rows(key, b.withdrawals);
        }
    }

    fn add_beacon_block(&mut self, b: &VerifiedBeaconBlock<'_>) -> Result<(), DatasetError> {
        if let Some(x) = &b.execution {
            let key = BlockKey {
                number: x.header.number,
                hash: &x.block_hash.0,
                timestamp: x.header.timestamp,
                slot: Some(b.slot),
            };
            self.add_rows(key, x.withdrawals);
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        self.finish_batch()
    }
}
