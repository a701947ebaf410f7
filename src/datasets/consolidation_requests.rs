//! `consolidation_requests`: one row per Electra consolidation request
//! ([EIP-7251](https://eips.ethereum.org/EIPS/eip-7251)) in a beacon block's `execution_requests` (era files,
//! Electra on): the source validator's balance moves to the target's (or, source = target, the validator
//! switches to compounding credentials).

use super::operations::{execution_requests, KeyColumns};
use super::table::Columns;
use super::{DatasetBuilder, DatasetError};
use crate::verify::era::VerifiedBeaconBlock;
use arrow_array::builder::BinaryBuilder;
use arrow_array::RecordBatch;

/// The `consolidation_requests` dataset.
pub struct ConsolidationRequests;

era_dataset!(
    ConsolidationRequests,
    "consolidation_requests",
    ConsolidationRequestsColumns
);

columns! {
    struct ConsolidationRequestsColumns {
        key: KeyColumns [sort],
        source_address: BinaryBuilder [dictionary],
        source_pubkey: BinaryBuilder,
        target_pubkey: BinaryBuilder,
    }
}

impl DatasetBuilder for ConsolidationRequestsColumns {
    fn add_beacon_block(&mut self, b: &VerifiedBeaconBlock<'_>) -> Result<(), DatasetError> {
        let requests = execution_requests(b, "consolidation_requests")?;
        for (i, c) in requests.consolidations.iter().enumerate() {
            self.key.append(b, i);
            self.source_address.append_value(c.source_address());
            self.source_pubkey.append_value(c.source_pubkey());
            self.target_pubkey.append_value(c.target_pubkey());
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        self.finish_batch()
    }
}
