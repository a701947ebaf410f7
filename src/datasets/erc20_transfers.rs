//! `erc20_transfers`: one row per ERC-20 `Transfer(address indexed from, address indexed to, uint256 value)`:
//! three topics and 32 data bytes (cryo's shape and column names). A `Transfer` with four topics and no data is
//! an ERC-721 transfer (`erc721_transfers`); any other `Transfer` is counted here as a look-alike. From Amsterdam
//! on, [EIP-7708](https://eips.ethereum.org/EIPS/eip-7708) makes every ETH transfer emit a log of exactly this
//! shape from `SYSTEM_ADDRESS`: those are ETH, not a token, so they give no row here (`native_transfers` has
//! them) and are counted in the run report (`skipped_eth_transfer_logs`).

use super::columns::U256Columns;
use super::events::{self, Decoded, EventColumns, LogKey, LogKeyColumns};
use crate::execution::eth_transfer;
use crate::execution::receipt::LogView;
use arrow_array::builder::{BinaryBuilder, UInt64Builder};

/// The `erc20_transfers` dataset.
pub struct Erc20Transfers;

event_dataset!(Erc20Transfers, "erc20_transfers", Erc20TransferColumns);

columns! {
    struct Erc20TransferColumns {
        key: LogKeyColumns [sort],
        erc20: BinaryBuilder [dictionary],
        from_address: BinaryBuilder [dictionary],
        to_address: BinaryBuilder [dictionary],
        value: U256Columns,
        chain_id: UInt64Builder,
    }
}

impl EventColumns for Erc20TransferColumns {
    const TOPICS: &'static [[u8; 32]] = &[events::TRANSFER];

    fn add_log(&mut self, key: &LogKey, log: &LogView<'_>) -> Decoded {
        // Four topics is ERC-721's shape: that dataset decodes it or counts it.
        if log.topic_count() == 4 {
            return Decoded::Other;
        }
        let row = events::topics::<3>(log).and_then(|[_, from, to]| {
            let value: &[u8; 32] = log.data.try_into().ok()?;
            Some((events::address(from)?, events::address(to)?, value))
        });
        let Some((from, to, value)) = row else {
            return Decoded::LookAlike;
        };
        self.key.append(key);
        self.erc20.append_value(log.address);
        self.from_address.append_value(from);
        self.to_address.append_value(to);
        self.value.append(Some(events::uint(value)));
        self.chain_id.append_value(key.chain_id);
        Decoded::Rows
    }

    fn counts_system_log(log: &LogView<'_>) -> bool {
        eth_transfer::eth_transfer(log).is_some()
    }
}
