//! Receipts and logs as zero-copy views.
//!
//! A receipt is `[post_state_or_status, cumulative_gas_used, logs_bloom, logs]` (yellow paper §4.3.1);
//! before Byzantium the first field is the 32-byte intermediate state root, from Byzantium on ([EIP-658]) a
//! status byte (empty = 0 = failure, 0x01 = success). Typed receipts ([EIP-2718]) are `type || rlp(fields)`,
//! and appear in a receipt list as RLP strings, like typed transactions in a body.
//!
//! Yellow paper: <https://ethereum.github.io/yellowpaper/paper.pdf>.
//!
//! [EIP-658]: https://eips.ethereum.org/EIPS/eip-658
//! [EIP-2718]: https://eips.ethereum.org/EIPS/eip-2718

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
    /// [EIP-2718](https://eips.ethereum.org/EIPS/eip-2718) type (0 for legacy).
    pub fn tx_type(&self) -> u8 {
        self.tx_type
    }
    /// The first field: a post-transaction state root before Byzantium, a success flag from Byzantium on
    /// (which form a receipt uses is decided by its bytes, not by the block number).
    pub fn outcome(&self) -> Outcome<'a> {
        self.outcome
    }
    /// Gas used in the block up to and including this transaction; this transaction's own gas is the
    /// difference from the previous receipt's value.
    pub fn cumulative_gas_used(&self) -> u64 {
        self.cumulative_gas_used
    }
    /// The 2048-bit bloom of this receipt's log addresses and topics, as stored (not recomputed here).
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
    /// The contract that emitted the log.
    pub address: &'a [u8; 20],
    topics: &'a [u8],
    /// The log's non-indexed data (ABI-encoded by convention), borrowed from the receipt.
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

/// One log to encode (writer and synth side).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogFields {
    /// The emitting contract.
    pub address: [u8; 20],
    /// The indexed topics, in order (the EVM emits 0 to 4).
    pub topics: Vec<[u8; 32]>,
    /// The non-indexed data.
    pub data: Vec<u8>,
}

/// Encodes a receipt canonically (`type || rlp(fields)` for typed ones) and returns it with its logs bloom.
/// `outcome` is a 32-byte post-state root (pre-Byzantium) or a status.
pub fn encode_receipt(
    tx_type: u8,
    outcome: Outcome<'_>,
    cumulative_gas_used: u64,
    logs: &[LogFields],
) -> (Vec<u8>, [u8; 256]) {
    use alloy_rlp::Encodable;
    let mut bloom = [0u8; 256];
    let mut logs_payload = Vec::new();
    for log in logs {
        super::bloom::accrue(&mut bloom, &log.address);
        let mut topics = Vec::with_capacity(33 * log.topics.len());
        for t in &log.topics {
            super::bloom::accrue(&mut bloom, t);
            t.as_slice().encode(&mut topics);
        }
        let mut fields = Vec::new();
        log.address.as_slice().encode(&mut fields);
        fields.extend_from_slice(&super::header::wrap_list(&topics));
        log.data.as_slice().encode(&mut fields);
        logs_payload.extend_from_slice(&super::header::wrap_list(&fields));
    }
    let mut fields = Vec::with_capacity(300 + logs_payload.len());
    match outcome {
        Outcome::PostState(root) => root.as_slice().encode(&mut fields),
        Outcome::Status(ok) => (ok as u64).encode(&mut fields),
    }
    cumulative_gas_used.encode(&mut fields);
    bloom.as_slice().encode(&mut fields);
    fields.extend_from_slice(&super::header::wrap_list(&logs_payload));
    let mut out = Vec::with_capacity(fields.len() + 10);
    if tx_type != 0 {
        out.push(tx_type);
    }
    out.extend_from_slice(&super::header::wrap_list(&fields));
    (out, bloom)
}

/// Encodes a block's receipt list from canonical receipts (typed ones wrapped as RLP strings).
pub fn encode_list(canonical: &[Vec<u8>]) -> Vec<u8> {
    use alloy_rlp::Encodable;
    let mut payload = Vec::new();
    for r in canonical {
        if r.first().is_some_and(|&b| b >= 0xc0) {
            payload.extend_from_slice(r);
        } else {
            r.as_slice().encode(&mut payload);
        }
    }
    super::header::wrap_list(&payload)
}
