//! `withdrawal_requests`: one row per Electra execution-layer withdrawal or exit request
//! ([EIP-7002](https://eips.ethereum.org/EIPS/eip-7002)) in a beacon block's `execution_requests` (era files,
//! Electra on); `amount_gwei` 0 asks for a full exit.

use super::operations::{execution_requests, KeyColumns};
use super::table::Columns;
use super::{DatasetBuilder, DatasetError};
use crate::verify::era::VerifiedBeaconBlock;
use arrow_array::builder::{BinaryBuilder, UInt64Builder};
use arrow_array::RecordBatch;

/// The `withdrawal_requests` dataset.
pub struct WithdrawalRequests;

era_dataset!(
    WithdrawalRequests,
    "withdrawal_requests",
    WithdrawalRequestsColumns
);

columns! {
    struct WithdrawalRequestsColumns {
        key: KeyColumns [sort],
        source_address: BinaryBuilder [dictionary],
        validator_pubkey: BinaryBuilder,
        amount_gwei: UInt64Builder,
    }
}

impl DatasetBuilder for WithdrawalRequestsColumns {
    fn add_beacon_block(&mut self, b: &VerifiedBeaconBlock<'_>) -> Result<(), DatasetError> {
        let requests = execution_requests(b, "withdrawal_requests")?;
        for (i, w) in requests.withdrawals.iter().enumerate() {
            self.key.append(b, i);
            self.source_address.append_value(w.source_address());
            self.validator_pubkey.append_value(w.validator_pubkey());
            self.amount_gwei.append_value(w.amount());
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        self.finish_batch()
    }
}
