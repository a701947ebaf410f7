//! What the decoded token-event datasets share (`erc20_transfers`, `erc721_transfers`, `erc1155_transfers`,
//! `erc20_approvals`, `approvals_for_all`): the event signatures they match, the key columns every row starts
//! with, the strict ABI word readers, and the builder that walks a block's logs and counts look-alikes.
//!
//! A log is an event's when its `topic0` is the event's signature hash; it gives rows only when it also has the
//! event's shape: its topic count, its data length (exact for static data), indexed addresses with zero padding,
//! booleans 0 or 1, and for ERC-1155 batches array offsets and lengths inside the data and as many values as ids.
//! Anything else with the signature is a look-alike: it gives no row and is counted in the run report
//! (`skipped_lookalikes`). The shapes are fixed, so they are read here word by word, without allocating, on the
//! export's hot path; events of user ABIs go through the ABI crates instead.

use super::table::{ColumnGroup, Columns, Roles, Spec};
use super::{DatasetBuilder, ExportContext};
use crate::execution::eth_transfer;
use crate::execution::receipt::LogView;
use crate::verify::execution::VerifiedBlock;
use alloy_primitives::{b256, U256};
use arrow_array::builder::{BinaryBuilder, UInt32Builder, UInt64Builder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field};

/// `keccak256("Transfer(address,address,uint256)")`: ERC-20 (value in data) and ERC-721 (token id indexed).
pub const TRANSFER: [u8; 32] = eth_transfer::TRANSFER_TOPIC;
/// `keccak256("Approval(address,address,uint256)")`.
pub const APPROVAL: [u8; 32] =
    b256!("8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925").0;
/// `keccak256("ApprovalForAll(address,address,bool)")` (ERC-721 and ERC-1155).
pub const APPROVAL_FOR_ALL: [u8; 32] =
    b256!("17307eab39ab6107e8899845ad3d59bd9653f200f220920489ca2b5937696c31").0;
/// `keccak256("TransferSingle(address,address,address,uint256,uint256)")` (ERC-1155).
pub const TRANSFER_SINGLE: [u8; 32] =
    b256!("c3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62").0;
/// `keccak256("TransferBatch(address,address,address,uint256[],uint256[])")` (ERC-1155).
pub const TRANSFER_BATCH: [u8; 32] =
    b256!("4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb").0;

/// Where a log sits, repeated on each of its rows.
pub struct LogKey {
    /// The block's number.
    pub block_number: u64,
    /// The block's hash.
    pub block_hash: [u8; 32],
    /// The block's timestamp (Unix seconds).
    pub timestamp: u64,
    /// The transaction's index in the block.
    pub transaction_index: u32,
    /// The log's index in the block (as on chain).
    pub log_index: u32,
    /// The transaction's hash.
    pub transaction_hash: [u8; 32],
    /// The network's chain id.
    pub chain_id: u64,
}

/// Builders of the key columns `block_number`, `block_hash`, `timestamp`, `transaction_index`, `log_index`,
/// `transaction_hash` (whatever the entry's name); `chain_id` is declared last in each list, as in cryo.
#[derive(Default)]
pub struct LogKeyColumns {
    block_number: UInt64Builder,
    block_hash: BinaryBuilder,
    timestamp: UInt64Builder,
    transaction_index: UInt32Builder,
    log_index: UInt32Builder,
    transaction_hash: BinaryBuilder,
}

impl LogKeyColumns {
    /// Appends the key of one row.
    pub fn append(&mut self, k: &LogKey) {
        self.block_number.append_value(k.block_number);
        self.block_hash.append_value(k.block_hash);
        self.timestamp.append_value(k.timestamp);
        self.transaction_index.append_value(k.transaction_index);
        self.log_index.append_value(k.log_index);
        self.transaction_hash.append_value(k.transaction_hash);
    }
}

impl ColumnGroup for LogKeyColumns {
    fn fields(_: &'static str, _: Spec) -> Vec<Field> {
        vec![
            Field::new("block_number", DataType::UInt64, false),
            Field::new("block_hash", DataType::Binary, false),
            Field::new("timestamp", DataType::UInt64, false),
            Field::new("transaction_index", DataType::UInt32, false),
            Field::new("log_index", DataType::UInt32, false),
            Field::new("transaction_hash", DataType::Binary, false),
        ]
    }

    /// `sort` orders by block, then log index (within a log, rows keep their order: ERC-1155 batches).
    fn roles(_: &'static str, spec: Spec, roles: &mut Roles) {
        if spec.sort {
            roles.sort.extend(["block_number", "log_index"]);
        }
    }

    fn finish_into(&mut self, out: &mut Vec<ArrayRef>) {
        self.block_number.finish_into(out);
        self.block_hash.finish_into(out);
        self.timestamp.finish_into(out);
        self.transaction_index.finish_into(out);
        self.log_index.finish_into(out);
        self.transaction_hash.finish_into(out);
    }
}

/// What one log gave a dataset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decoded {
    /// Not this dataset's (another event, or another dataset's shape of a shared signature).
    Other,
    /// Its rows were appended (none for an ERC-1155 batch of no ids).
    Rows,
    /// The dataset's signature without its shape: no row, counted.
    LookAlike,
}

/// The column list of one event dataset: which signatures it reads, and how a log becomes its rows.
pub trait EventColumns: Columns {
    /// The `topic0`s of its events; other logs are not looked at (their transaction is not even hashed).
    const TOPICS: &'static [[u8; 32]];
    /// Appends the rows of `log` (whose topic0 is one of [`Self::TOPICS`]), all columns or none.
    fn add_log(&mut self, key: &LogKey, log: &LogView<'_>) -> Decoded;
    /// Whether a log of `SYSTEM_ADDRESS` with one of [`Self::TOPICS`], which is never a row, is counted here as
    /// one the dataset would otherwise have mistaken for its event (EIP-7708's ETH transfers in
    /// `erc20_transfers`).
    fn counts_system_log(_log: &LogView<'_>) -> bool {
        false
    }
}

/// The builder of an event dataset: walks each block's logs, hands its events' to the columns, and counts
/// look-alikes.
pub struct EventBuilder<C> {
    chain_id: u64,
    c: C,
    lookalikes: u64,
    eth_transfer_logs: u64,
}

impl<C: EventColumns> EventBuilder<C> {
    /// A builder for one chunk.
    pub fn new(ctx: ExportContext) -> Self {
        EventBuilder {
            chain_id: ctx.chain_id,
            c: C::default(),
            lookalikes: 0,
            eth_transfer_logs: 0,
        }
    }
}

impl<C: EventColumns> DatasetBuilder for EventBuilder<C> {
    fn add_block(&mut self, b: &VerifiedBlock<'_>) {
        for l in b.logs() {
            let Some(topic0) = l.log.topics().next() else {
                continue;
            };
            if !C::TOPICS.contains(topic0) {
                continue;
            }
            // The protocol's own logs (EIP-7708's ETH transfers, Amsterdam on) are never a token's: no contract
            // can emit from SYSTEM_ADDRESS.
            if eth_transfer::is_system_log(&l.log) {
                if C::counts_system_log(&l.log) {
                    self.eth_transfer_logs += 1;
                }
                continue;
            }
            let key = LogKey {
                block_number: b.number,
                block_hash: b.hash,
                timestamp: b.header.timestamp(),
                transaction_index: l.transaction_index,
                log_index: l.log_index,
                transaction_hash: b.tx_hash(l.transaction_index as usize),
                chain_id: self.chain_id,
            };
            if self.c.add_log(&key, &l.log) == Decoded::LookAlike {
                self.lookalikes += 1;
            }
        }
    }

    fn lookalikes(&self) -> u64 {
        self.lookalikes
    }

    fn eth_transfer_logs(&self) -> u64 {
        self.eth_transfer_logs
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        self.c.finish_batch()
    }
}

/// `event_dataset!(Type, "name", Columns)`: the [`Dataset`](super::Dataset) impl of a decoded-event dataset
/// (rows from receipts: era1 and ere files), built by [`EventBuilder`] over `Columns`.
macro_rules! event_dataset {
    ($ty:ident, $name:literal, $columns:ty) => {
        impl $crate::datasets::Dataset for $ty {
            fn name(&self) -> &'static str {
                $name
            }
            fn table(&self) -> &'static $crate::datasets::table::Table {
                <$columns as $crate::datasets::table::Columns>::table()
            }
            fn needs_receipts(&self) -> bool {
                true
            }
            /// Logs are in receipts (era files carry none).
            fn needs(&self) -> $crate::formats::Need {
                $crate::formats::Need::Receipts
            }
            fn builder(
                &self,
                ctx: $crate::datasets::ExportContext,
            ) -> Box<dyn $crate::datasets::DatasetBuilder> {
                Box::new($crate::datasets::events::EventBuilder::<$columns>::new(ctx))
            }
        }
    };
}

/// The topics of `log` as an array when it has exactly `N`.
pub fn topics<'a, const N: usize>(log: &LogView<'a>) -> Option<[&'a [u8; 32]; N]> {
    if log.topic_count() != N {
        return None;
    }
    let mut it = log.topics();
    Some(std::array::from_fn(|_| it.next().unwrap_or(&[0; 32])))
}

/// An ABI address word: the low 20 bytes, when the 12 high ones are zero (the ABI's padding).
pub fn address(word: &[u8; 32]) -> Option<&[u8; 20]> {
    let (pad, addr) = word.split_at(12);
    pad.iter()
        .all(|&b| b == 0)
        .then(|| addr.try_into().ok())
        .flatten()
}

/// The ABI word at byte `at` of `data`, when all of it is there.
pub fn word(data: &[u8], at: usize) -> Option<&[u8; 32]> {
    data.get(at..at.checked_add(32)?)?.try_into().ok()
}

/// A word as a uint256.
pub fn uint(word: &[u8; 32]) -> U256 {
    U256::from_be_bytes(*word)
}

/// An ABI bool word: 0 or 1, nothing else.
pub fn boolean(word: &[u8; 32]) -> Option<bool> {
    match uint(word) {
        v if v == U256::ZERO => Some(false),
        v if v == U256::from(1u8) => Some(true),
        _ => None,
    }
}

/// The dynamic `uint256[]` whose offset word is at `head` of `data`: the byte where its items start and their
/// count, when the offset, the length word and every item lie inside `data`.
pub fn uint_array(data: &[u8], head: usize) -> Option<(usize, usize)> {
    let offset = usize::try_from(uint(word(data, head)?)).ok()?;
    let len = usize::try_from(uint(word(data, offset)?)).ok()?;
    let start = offset + 32;
    let end = len.checked_mul(32)?.checked_add(start)?;
    (end <= data.len()).then_some((start, len))
}
