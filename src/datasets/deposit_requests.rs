//! `deposit_requests`: one row per Electra deposit request ([EIP-6110](https://eips.ethereum.org/EIPS/eip-6110))
//! in a beacon block's `execution_requests` (era files, Electra on): deposits read straight from the execution
//! layer's deposit contract logs, with the contract's deposit index.

use super::operations::{execution_requests, DepositDataColumns, KeyColumns};
use super::table::Columns;
use super::{DatasetBuilder, DatasetError};
use crate::verify::era::VerifiedBeaconBlock;
use arrow_array::builder::UInt64Builder;
use arrow_array::RecordBatch;

/// The `deposit_requests` dataset.
pub struct DepositRequests;

era_dataset!(DepositRequests, "deposit_requests", DepositRequestsColumns);

columns! {
    struct DepositRequestsColumns {
        key: KeyColumns [sort],
        data: DepositDataColumns [dictionary],
        deposit_index: UInt64Builder,
    }
}

impl DatasetBuilder for DepositRequestsColumns {
    fn add_beacon_block(&mut self, b: &VerifiedBeaconBlock<'_>) -> Result<(), DatasetError> {
        let requests = execution_requests(b, "deposit_requests")?;
        for (i, d) in requests.deposits.iter().enumerate() {
            self.key.append(b, i);
            self.data.append(&d.data());
            self.deposit_index.append_value(d.index());
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        self.finish_batch()
    }
}
