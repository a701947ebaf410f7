//! `approvals_for_all`: one row per `ApprovalForAll(address indexed owner, address indexed operator, bool
//! approved)` (ERC-721 and ERC-1155 share it): three topics and one 32-byte word that is 0 or 1. Any other
//! `ApprovalForAll` is counted as a look-alike.

use super::events::{self, Decoded, EventColumns, LogKey, LogKeyColumns};
use crate::execution::receipt::LogView;
use arrow_array::builder::{BinaryBuilder, BooleanBuilder, UInt64Builder};

/// The `approvals_for_all` dataset.
pub struct ApprovalsForAll;

event_dataset!(ApprovalsForAll, "approvals_for_all", ApprovalForAllColumns);

columns! {
    struct ApprovalForAllColumns {
        key: LogKeyColumns [sort],
        contract_address: BinaryBuilder [dictionary],
        owner_address: BinaryBuilder [dictionary],
        operator: BinaryBuilder [dictionary],
        approved: BooleanBuilder,
        chain_id: UInt64Builder,
    }
}

impl EventColumns for ApprovalForAllColumns {
    const TOPICS: &'static [[u8; 32]] = &[events::APPROVAL_FOR_ALL];

    fn add_log(&mut self, key: &LogKey, log: &LogView<'_>) -> Decoded {
        let row = events::topics::<3>(log).and_then(|[_, owner, operator]| {
            let approved = events::boolean(log.data.try_into().ok()?)?;
            Some((
                events::address(owner)?,
                events::address(operator)?,
                approved,
            ))
        });
        let Some((owner, operator, approved)) = row else {
            return Decoded::LookAlike;
        };
        self.key.append(key);
        self.contract_address.append_value(log.address);
        self.owner_address.append_value(owner);
        self.operator.append_value(operator);
        self.approved.append_value(approved);
        self.chain_id.append_value(key.chain_id);
        Decoded::Rows
    }
}
