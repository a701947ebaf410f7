//! `builder_exit_requests`: one row per Gloas builder exit request
//! ([EIP-7732](https://eips.ethereum.org/EIPS/eip-7732)) a beacon block processes (era files, Gloas on): from its
//! `parent_execution_requests`, the requests of the parent's payload, present when that payload was revealed.

use super::operations::{execution_requests, KeyColumns};
use super::table::Columns;
use super::{DatasetBuilder, DatasetError};
use crate::verify::era::VerifiedBeaconBlock;
use arrow_array::builder::BinaryBuilder;
use arrow_array::RecordBatch;

/// The `builder_exit_requests` dataset.
pub struct BuilderExitRequests;

era_dataset!(
    BuilderExitRequests,
    "builder_exit_requests",
    BuilderExitRequestsColumns
);

columns! {
    struct BuilderExitRequestsColumns {
        key: KeyColumns [sort],
        source_address: BinaryBuilder [dictionary],
        pubkey: BinaryBuilder,
    }
}

impl DatasetBuilder for BuilderExitRequestsColumns {
    fn add_beacon_block(&mut self, b: &VerifiedBeaconBlock<'_>) -> Result<(), DatasetError> {
        let requests = execution_requests(b, "builder_exit_requests")?;
        for (i, e) in requests.builder_exits.iter().enumerate() {
            self.key.append(b, i);
            self.source_address.append_value(e.source_address());
            self.pubkey.append_value(e.pubkey());
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        self.finish_batch()
    }
}
