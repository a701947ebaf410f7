//! Receipts and logs as zero-copy views.
//!
//! A receipt is `[post_state_or_status, cumulative_gas_used, logs_bloom, logs]` (yellow paper §4.3.1);
//! before Byzantium the first field is the 32-byte intermediate state root, from Byzantium on (EIP-658) a status
//! byte (empty = 0 = failure, 0x01 = success). Typed receipts (EIP-2718) are `type || rlp(fields)`, and appear in
//! a receipt list as RLP strings, like typed transactions in a body.

use super::rlp::{self, envelope_canonical, Item, ListIter, RlpError};

/// What a receipt says about the transaction's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome<'a> {
    /// Pre-Byzantium: the state root after the transaction.
    PostState(&'a [u8; 32]),
    /// Byzantium on: whether the transaction succeeded.
    Status(bool),
}

/// One receipt.
#[derive(Debug, Clone, Copy)]
pub struct ReceiptView<'a> {
    canonical: &'a [u8],
    tx_type: u8,
    outcome: Outcome<'a>,
    cumulative_gas_used: u64,
    bloom: &'a [u8; 256],
    logs: Item<'a>,
}

impl<'a> ReceiptView<'a> {
    /// Decodes one element of a receipt list (a list for legacy receipts, a string for typed ones).
    pub fn decode_item(item: &Item<'a>) -> Result<Self, RlpError> {
        Self::decode_canonical(envelope_canonical(item))
    }

    /// Decodes a receipt from its canonical encoding (the receipts-trie value).
    pub fn decode_canonical(canonical: &'a [u8]) -> Result<Self, RlpError> {
        let (tx_type, body) = match canonical.first() {
            None => return Err(RlpError::new("receipt", "empty encoding")),
            Some(&b) if b >= 0xc0 => (0u8, canonical),
            Some(&t) if t <= 0x7f => (t, &canonical[1..]),
            Some(&b) => {
                return Err(RlpError::new(
                    "receipt",
                    format!("expected a list or a type byte, found {b:#04x}"),
                ))
            }
        };
        let list = rlp::single_list(body, "receipt")?;
        let mut it = ListIter::new(list.payload, "receipt field");
        let mut next = |name: &str| {
            it.next()
                .ok_or_else(|| RlpError::new("receipt", format!("missing field {name}")))?
        };
        let first = next("status")?;
        let outcome = match rlp::string_payload(&first, "status")? {
            [] => Outcome::Status(false),
            [1] => Outcome::Status(true),
            p if p.len() == 32 => Outcome::PostState(rlp::as_fixed::<32>(&first, "post_state")?),
            p => {
                return Err(RlpError::new(
                    "status",
                    format!(
                        "expected empty, 0x01 or a 32-byte state root, found {} bytes",
                        p.len()
                    ),
                ))
            }
        };
        let cumulative_gas_used =
            rlp::as_u64(&next("cumulative_gas_used")?, "cumulative_gas_used")?;
        let bloom = rlp::as_fixed::<256>(&next("logs_bloom")?, "logs_bloom")?;
        let logs = next("logs")?;
        if !logs.is_list {
            return Err(RlpError::new("logs", "expected a list, found a string"));
        }
        if it.next().is_some() {
            return Err(RlpError::new("receipt", "more than 4 fields"));
        }
        Ok(ReceiptView {
            canonical,
            tx_type,
            outcome,
            cumulative_gas_used,
            bloom,
            logs,
        })
    }

    /// Canonical encoding: the receipts-trie value.
    pub fn canonical(&self) -> &'a [u8] {
        self.canonical
    }
    /// EIP-2718 type (0 for legacy).
    pub fn tx_type(&self) -> u8 {
        self.tx_type
    }
    pub fn outcome(&self) -> Outcome<'a> {
        self.outcome
    }
    pub fn cumulative_gas_used(&self) -> u64 {
        self.cumulative_gas_used
    }
    pub fn logs_bloom(&self) -> &'a [u8; 256] {
        self.bloom
    }
    /// The logs, decoded lazily.
    pub fn logs(&self) -> impl Iterator<Item = Result<LogView<'a>, RlpError>> {
        ListIter::new(self.logs.payload, "log").map(|r| r.and_then(|it| LogView::decode(&it)))
    }
}

/// One log: `[address, [topic, ...], data]`.
#[derive(Debug, Clone, Copy)]
pub struct LogView<'a> {
    pub address: &'a [u8; 20],
    topics: &'a [u8],
    pub data: &'a [u8],
}

impl<'a> LogView<'a> {
    fn decode(item: &Item<'a>) -> Result<Self, RlpError> {
        if !item.is_list {
            return Err(RlpError::new("log", "expected a list, found a string"));
        }
        let mut it = ListIter::new(item.payload, "log field");
        let mut next = |name: &str| {
            it.next()
                .ok_or_else(|| RlpError::new("log", format!("missing {name}")))?
        };
        let address = rlp::as_fixed::<20>(&next("address")?, "log address")?;
        let topics = next("topics")?;
        if !topics.is_list || topics.payload.len() % 33 != 0 {
            return Err(RlpError::new(
                "log topics",
                "expected a list of 32-byte topics",
            ));
        }
        for t in ListIter::new(topics.payload, "topic") {
            rlp::as_fixed::<32>(&t?, "topic")?;
        }
        let data = rlp::string_payload(&next("data")?, "log data")?;
        if it.next().is_some() {
            return Err(RlpError::new("log", "more than 3 fields"));
        }
        Ok(LogView {
            address,
            topics: topics.payload,
            data,
        })
    }

    /// The topics (each 32 bytes; at most 4 in valid EVM output, not enforced here).
    pub fn topics(&self) -> impl Iterator<Item = &'a [u8; 32]> {
        // Each topic is 0xa0 followed by 32 bytes, validated in `decode`.
        self.topics
            .as_chunks::<33>()
            .0
            .iter()
            .filter_map(|c| c.last_chunk::<32>())
    }

    /// Number of topics.
    pub fn topic_count(&self) -> usize {
        self.topics.len() / 33
    }
}

/// Iterates the receipts of a block's receipt list (the era1 `CompressedReceipts` payload).
pub fn decode_list(
    raw: &[u8],
) -> Result<impl Iterator<Item = Result<ReceiptView<'_>, RlpError>>, RlpError> {
    let list = rlp::single_list(raw, "receipt list")?;
    Ok(ListIter::new(list.payload, "receipt")
        .map(|r| r.and_then(|it| ReceiptView::decode_item(&it))))
}
