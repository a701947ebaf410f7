//! `builder_deposit_requests`: one row per Gloas builder deposit request
//! ([EIP-7732](https://eips.ethereum.org/EIPS/eip-7732)) a beacon block processes (era files, Gloas on): from its
//! `parent_execution_requests`, the requests of the parent's payload, present when that payload was revealed.

use super::operations::{execution_requests, DepositDataColumns, KeyColumns};
use super::table::Columns;
use super::{DatasetBuilder, DatasetError};
use crate::verify::era::VerifiedBeaconBlock;
use arrow_array::RecordBatch;

/// The `builder_deposit_requests` dataset.
pub struct BuilderDepositRequests;

era_dataset!(
    BuilderDepositRequests,
    "builder_deposit_requests",
    BuilderDepositRequestsColumns
);

columns! {
    struct BuilderDepositRequestsColumns {
        key: KeyColumns [sort],
        data: DepositDataColumns [dictionary],
    }
}

impl DatasetBuilder for BuilderDepositRequestsColumns {
    fn add_beacon_block(&mut self, b: &VerifiedBeaconBlock<'_>) -> Result<(), DatasetError> {
        let requests = execution_requests(b, "builder_deposit_requests")?;
        for (i, d) in requests.builder_deposits.iter().enumerate() {
            self.key.append(b, i);
            self.data.append(&d.data());
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        self.finish_batch()
    }
}
