//! `erc1155_transfers`: one row per token id moved by an ERC-1155 `TransferSingle(address indexed operator,
//! address indexed from, address indexed to, uint256 id, uint256 value)` (four topics, 64 data bytes;
//! `batch_index` null) or `TransferBatch(address indexed operator, address indexed from, address indexed to,
//! uint256[] ids, uint256[] values)` (four topics, the two arrays ABI-encoded; one row per id, `batch_index` its
//! position). A batch whose offsets or lengths point outside its data, or whose arrays differ in length, gives no
//! row and is counted as a look-alike, as is any other log with either signature.

use super::columns::U256Columns;
use super::events::{self, Decoded, EventColumns, LogKey, LogKeyColumns};
use crate::execution::receipt::LogView;
use arrow_array::builder::{BinaryBuilder, UInt32Builder, UInt64Builder};

/// The `erc1155_transfers` dataset.
pub struct Erc1155Transfers;

event_dataset!(
    Erc1155Transfers,
    "erc1155_transfers",
    Erc1155TransferColumns
);

columns! {
    struct Erc1155TransferColumns {
        key: LogKeyColumns [sort],
        batch_index: UInt32Builder [nullable, sort],
        erc1155: BinaryBuilder [dictionary],
        operator: BinaryBuilder [dictionary],
        from_address: BinaryBuilder [dictionary],
        to_address: BinaryBuilder [dictionary],
        token_id: U256Columns,
        value: U256Columns,
        chain_id: UInt64Builder,
    }
}

impl Erc1155TransferColumns {
    fn row(&mut self, key: &LogKey, log: &LogView<'_>, parties: [&[u8; 20]; 3], item: Item<'_>) {
        let [operator, from, to] = parties;
        self.key.append(key);
        self.batch_index.append_option(item.batch_index);
        self.erc1155.append_value(log.address);
        self.operator.append_value(operator);
        self.from_address.append_value(from);
        self.to_address.append_value(to);
        self.token_id.append(Some(events::uint(item.id)));
        self.value.append(Some(events::uint(item.value)));
        self.chain_id.append_value(key.chain_id);
    }
}

/// One id moved and its amount.
struct Item<'a> {
    batch_index: Option<u32>,
    id: &'a [u8; 32],
    value: &'a [u8; 32],
}

impl EventColumns for Erc1155TransferColumns {
    const TOPICS: &'static [[u8; 32]] = &[events::TRANSFER_SINGLE, events::TRANSFER_BATCH];

    fn add_log(&mut self, key: &LogKey, log: &LogView<'_>) -> Decoded {
        let Some([topic0, operator, from, to]) = events::topics::<4>(log) else {
            return Decoded::LookAlike;
        };
        let parties = (|| {
            Some([
                events::address(operator)?,
                events::address(from)?,
                events::address(to)?,
            ])
        })();
        let Some(parties) = parties else {
            return Decoded::LookAlike;
        };
        let data = log.data;
        if *topic0 == events::TRANSFER_SINGLE {
            let (Some(id), Some(value), 64) =
                (events::word(data, 0), events::word(data, 32), data.len())
            else {
                return Decoded::LookAlike;
            };
            let item = Item {
                batch_index: None,
                id,
                value,
            };
            self.row(key, log, parties, item);
            return Decoded::Rows;
        }
        // Both arrays are checked whole before any row is appended: a look-alike gives none.
        let arrays = events::uint_array(data, 0).zip(events::uint_array(data, 32));
        let Some(((ids, n), (values, n_values))) = arrays else {
            return Decoded::LookAlike;
        };
        if n != n_values || u32::try_from(n).is_err() {
            return Decoded::LookAlike;
        }
        // uint_array checked both lie inside the data.
        let (Some(ids), Some(values)) = (
            data.get(ids..ids + 32 * n),
            data.get(values..values + 32 * n),
        ) else {
            return Decoded::LookAlike;
        };
        let items = ids
            .as_chunks::<32>()
            .0
            .iter()
            .zip(values.as_chunks::<32>().0);
        for (i, (id, value)) in items.enumerate() {
            let item = Item {
                batch_index: Some(i as u32),
                id,
                value,
            };
            self.row(key, log, parties, item);
        }
        Decoded::Rows
    }
}
