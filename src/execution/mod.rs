//! Execution-layer data: zero-copy views over RLP-encoded chain data and what is derived from them.

pub mod transaction;
pub mod tx_request;
