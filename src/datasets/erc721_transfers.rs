//! `erc721_transfers`: one row per ERC-721 `Transfer(address indexed from, address indexed to, uint256 indexed
//! tokenId)`: four topics and no data (cryo's shape and column names). A four-topic `Transfer` with data is
//! counted here as a look-alike; other topic counts are `erc20_transfers`' to decode or count.

use super::columns::U256Columns;
use super::events::{self, Decoded, EventColumns, LogKey, LogKeyColumns};
use crate::execution::receipt::LogView;
use arrow_array::builder::{BinaryBuilder, UInt64Builder};

/// The `erc721_transfers` dataset.
pub struct Erc721Transfers;

event_dataset!(Erc721Transfers, "erc721_transfers", Erc721TransferColumns);

columns! {
    struct Erc721TransferColumns {
        key: LogKeyColumns [sort],
        erc721: BinaryBuilder [dictionary],
        from_address: BinaryBuilder [dictionary],
        to_address: BinaryBuilder [dictionary],
        token_id: U256Columns,
        chain_id: UInt64Builder,
    }
}

impl EventColumns for Erc721TransferColumns {
    const TOPICS: &'static [[u8; 32]] = &[events::TRANSFER];

    fn add_log(&mut self, key: &LogKey, log: &LogView<'_>) -> Decoded {
        let Some([_, from, to, id]) = events::topics::<4>(log) else {
            return Decoded::Other;
        };
        let row = log
            .data
            .is_empty()
            .then(|| Some((events::address(from)?, events::address(to)?)))
            .flatten();
        let Some((from, to)) = row else {
            return Decoded::LookAlike;
        };
        self.key.append(key);
        self.erc721.append_value(log.address);
        self.from_address.append_value(from);
        self.to_address.append_value(to);
        self.token_id.append(Some(events::uint(id)));
        self.chain_id.append_value(key.chain_id);
        Decoded::Rows
    }
}
