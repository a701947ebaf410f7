//! Execution-layer data as zero-copy RLP views: headers, bodies, transactions, receipts (full and slim), logs and
//! withdrawals, plus the roots that commit to them (ordered tries, the logs bloom, the era1 accumulator).

pub mod accumulator;
pub mod bloom;
pub mod body;
pub mod eth_transfer;
pub mod header;
pub mod receipt;
pub mod rlp;
pub mod transaction;
pub mod trie;
pub mod tx_request;
pub mod withdrawal;
