//! `erc20_approvals`: one row per ERC-20 `Approval(address indexed owner, address indexed spender, uint256
//! value)`: three topics and 32 data bytes. An `Approval` with four topics and no data is ERC-721's (its token
//! id indexed), not an ERC-20 look-alike: it is neither decoded nor counted. Any other `Approval` is counted.

use super::columns::U256Columns;
use super::events::{self, Decoded, EventColumns, LogKey, LogKeyColumns};
use crate::execution::receipt::LogView;
use arrow_array::builder::{BinaryBuilder, UInt64Builder};

/// The `erc20_approvals` dataset.
pub struct Erc20Approvals;

event_dataset!(Erc20Approvals, "erc20_approvals", Erc20ApprovalColumns);

columns! {
    struct Erc20ApprovalColumns {
        key: LogKeyColumns [sort],
        erc20: BinaryBuilder [dictionary],
        owner_address: BinaryBuilder [dictionary],
        spender_address: BinaryBuilder [dictionary],
        value: U256Columns,
        chain_id: UInt64Builder,
    }
}

impl EventColumns for Erc20ApprovalColumns {
    const TOPICS: &'static [[u8; 32]] = &[events::APPROVAL];

    fn add_log(&mut self, key: &LogKey, log: &LogView<'_>) -> Decoded {
        if log.topic_count() == 4 && log.data.is_empty() {
            return Decoded::Other;
        }
        let row = events::topics::<3>(log).and_then(|[_, owner, spender]| {
            let value: &[u8; 32] = log.data.try_into().ok()?;
            Some((events::address(owner)?, events::address(spender)?, value))
        });
        let Some((owner, spender, value)) = row else {
            return Decoded::LookAlike;
        };
        self.key.append(key);
        self.erc20.append_value(log.address);
        self.owner_address.append_value(owner);
        self.spender_address.append_value(spender);
        self.value.append(Some(events::uint(value)));
        self.chain_id.append_value(key.chain_id);
        Decoded::Rows
    }
}
