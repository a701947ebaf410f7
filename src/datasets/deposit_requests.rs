//! `deposit_requests`: one row per Electra deposit request ([EIP-6110](https://eips.ethereum.org/EIPS/eip-6110))
//! in a beacon block's `execution_requests` (era files, Electra on): deposits read straight from the execution
//! layer's deposit contract logs, with the contract's deposit index.

use super::operations::{execution_requests, KeyColumns};
use super::table::Columns;
use super::{DatasetBuilder, DatasetError};
use crate::verify::era::VerifiedBeaconBlock;
use arrow_array::builder::{BinaryBuilder, UInt64Builder};
use arrow_array::RecordBatch;

/// The `deposit_requests` dataset.
pub struct DepositRequests;

era_dataset!(DepositRequests, "deposit_requests", DepositRequestsColumns);

columns! {
    struct DepositRequestsColumns {
        key: KeyColumns [sort],
        pubkey: BinaryBuilder,
        withdrawal_credentials: BinaryBuilder [dictionary],
        amount_gwei: UInt64Builder,
        signature: BinaryBuilder,
        deposit_index: UInt64Builder,
    }
}

impl DatasetBuilder for DepositRequestsColumns {
    fn add_beacon_block(&mut self, b: &VerifiedBeaconBlock<'_>) -> Result<(), DatasetError> {
        let requests = execution_requests(b, "deposit_requests")?;
        for (i, d) in requests.deposits.iter().enumerate() {
            self.key.append(b, i);
            self.pubkey.append_value(d.pubkey());
            self.withdrawal_credentials
                .append_value(d.withdrawal_credentials());
            self.amount_gwei.append_value(d.amount());
            self.signature.append_value(d.signature());
            self.deposit_index.append_value(d.index());
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        self.finish_batch()
    }
}
