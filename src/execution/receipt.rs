//! Receipts and logs as zero-copy views.
//!
//! A receipt is `[post_state_or_status, cumulative_gas_used, logs_bloom, logs]` (yellow paper §4.3.1);
//! before Byzantium the first field is the 32-byte intermediate state root, from Byzantium on ([EIP-658]) a
//! status byte (empty = 0 = failure, 0x01 = success). Typed receipts ([EIP-2718]) are `type || rlp(fields)`,
//! and appear in a receipt list as RLP strings, like typed transactions in a body.
//!
//! ere files store *slim* receipts instead (go-ethereum's `SlimReceipt`): `[tx_type, post_state_or_status,
//! cumulative_gas_used, logs]`, one RLP list per receipt whatever its type, without the bloom, which is a function
//! of the logs. [`SlimReceipt::write_canonical`] rebuilds the full receipt from its fields' own encodings (no
//! re-encoding), so the receipts root comes out of the same trie code.
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

/// The fields a full and a slim receipt share, whatever their encoding; both views deref to them.
#[derive(Debug, Clone, Copy)]
pub struct ReceiptFields<'a> {
    tx_type: u8,
    outcome: Outcome<'a>,
    cumulative_gas_used: u64,
    logs: Item<'a>,
}

impl<'a> ReceiptFields<'a> {
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
    /// The logs, decoded lazily.
    pub fn logs(&self) -> impl Iterator<Item = Result<LogView<'a>, RlpError>> {
        ListIter::new(self.logs.payload, "log").map(|r| r.and_then(|it| LogView::decode(&it)))
    }
    /// The RLP encoding of the logs list, as stored.
    pub fn logs_rlp(&self) -> &'a [u8] {
        self.logs.raw
    }
}

/// One receipt.
#[derive(Debug, Clone, Copy)]
pub struct ReceiptView<'a> {
    canonical: &'a [u8],
    bloom: &'a [u8; 256],
    fields: ReceiptFields<'a>,
}

impl<'a> std::ops::Deref for ReceiptView<'a> {
    type Target = ReceiptFields<'a>;
    fn deref(&self) -> &ReceiptFields<'a> {
        &self.fields
    }
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
        let outcome = decode_outcome(&next("status")?)?;
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
            bloom,
            fields: ReceiptFields {
                tx_type,
                outcome,
                cumulative_gas_used,
                logs,
            },
        })
    }

    /// The view of the full receipt that [`SlimReceipt::write_canonical`] wrote from `slim` as `canonical`,
    /// without decoding it again: its fields are the slim receipt's (the same bytes, already checked), its bloom
    /// the 256 bytes written before the logs. Fails only if `canonical` is too short to be what was written.
    pub fn of_rebuilt(slim: &SlimReceipt<'a>, canonical: &'a [u8]) -> Result<Self, RlpError> {
        let logs = slim.logs_rlp().len();
        let bloom = canonical
            .len()
            .checked_sub(logs + 256)
            .and_then(|at| canonical.get(at..at + 256))
            .and_then(|b| <&[u8; 256]>::try_from(b).ok())
            .ok_or_else(|| {
                RlpError::new(
                    "receipt",
                    format!(
                        "a rebuilt receipt of {} bytes cannot hold a bloom and {logs} bytes of logs",
                        canonical.len()
                    ),
                )
            })?;
        Ok(ReceiptView {
            canonical,
            bloom,
            fields: slim.fields,
        })
    }

    /// Canonical encoding: the receipts-trie value.
    pub fn canonical(&self) -> &'a [u8] {
        self.canonical
    }
    /// The 2048-bit bloom of this receipt's log addresses and topics, as stored (not recomputed here).
    pub fn logs_bloom(&self) -> &'a [u8; 256] {
        self.bloom
    }
}

/// The first receipt field: empty (failure), 0x01 (success) or a 32-byte post-transaction state root.
fn decode_outcome<'a>(item: &Item<'a>) -> Result<Outcome<'a>, RlpError> {
    Ok(match rlp::string_payload(item, "status")? {
        [] => Outcome::Status(false),
        [1] => Outcome::Status(true),
        p if p.len() == 32 => Outcome::PostState(rlp::as_fixed::<32>(item, "post_state")?),
        p => {
            return Err(RlpError::new(
                "status",
                format!(
                    "expected empty, 0x01 or a 32-byte state root, found {} bytes",
                    p.len()
                ),
            ))
        }
    })
}

/// One slim receipt of an ere file: `[tx_type, post_state_or_status, cumulative_gas_used, logs]`.
#[derive(Debug, Clone, Copy)]
pub struct SlimReceipt<'a> {
    outcome_item: Item<'a>,
    gas_item: Item<'a>,
    fields: ReceiptFields<'a>,
}

impl<'a> std::ops::Deref for SlimReceipt<'a> {
    type Target = ReceiptFields<'a>;
    fn deref(&self) -> &ReceiptFields<'a> {
        &self.fields
    }
}

impl<'a> SlimReceipt<'a> {
    /// Decodes one element of a slim receipt list.
    pub fn decode(item: &Item<'a>) -> Result<Self, RlpError> {
        if !item.is_list {
            return Err(RlpError::new(
                "slim receipt",
                "expected a list, found a string",
            ));
        }
        let mut it = ListIter::new(item.payload, "slim receipt field");
        let mut next = |name: &str| {
            it.next()
                .ok_or_else(|| RlpError::new("slim receipt", format!("missing field {name}")))?
        };
        let ty = rlp::as_u64(&next("tx_type")?, "tx_type")?;
        // A typed receipt's type is its first byte, below the RLP list prefixes (EIP-2718).
        let tx_type = u8::try_from(ty)
            .ok()
            .filter(|t| *t <= 0x7f)
            .ok_or_else(|| RlpError::new("tx_type", format!("expected 0 to 127, found {ty}")))?;
        let outcome_item = next("status")?;
        let outcome = decode_outcome(&outcome_item)?;
        let gas_item = next("cumulative_gas_used")?;
        let cumulative_gas_used = rlp::as_u64(&gas_item, "cumulative_gas_used")?;
        let logs = next("logs")?;
        if !logs.is_list {
            return Err(RlpError::new("logs", "expected a list, found a string"));
        }
        if it.next().is_some() {
            return Err(RlpError::new("slim receipt", "more than 4 fields"));
        }
        Ok(SlimReceipt {
            outcome_item,
            gas_item,
            fields: ReceiptFields {
                tx_type,
                outcome,
                cumulative_gas_used,
                logs,
            },
        })
    }

    /// Appends the canonical encoding of the full receipt (the receipts-trie value) with `bloom` (which must be
    /// the bloom of [`logs`](ReceiptFields::logs)): the fields are copied as stored, so the bytes are exactly those a
    /// full receipt list would hold.
    pub fn write_canonical(&self, bloom: &[u8; 256], out: &mut Vec<u8>) {
        const BLOOM_PREFIX: [u8; 3] = [0xb9, 0x01, 0x00]; // an RLP string of 256 bytes
        let payload = self.outcome_item.raw.len()
            + self.gas_item.raw.len()
            + BLOOM_PREFIX.len()
            + bloom.len()
            + self.logs_rlp().len();
        if self.tx_type() != 0 {
            out.push(self.tx_type());
        }
        alloy_rlp::Header {
            list: true,
            payload_length: payload,
        }
        .encode(out);
        out.extend_from_slice(self.outcome_item.raw);
        out.extend_from_slice(self.gas_item.raw);
        out.extend_from_slice(&BLOOM_PREFIX);
        out.extend_from_slice(bloom);
        out.extend_from_slice(self.logs_rlp());
    }
}

/// Iterates the slim receipts of a block's list (the ere `CompressedSlimReceipts` payload).
pub fn decode_slim_list(
    raw: &[u8],
) -> Result<impl Iterator<Item = Result<SlimReceipt<'_>, RlpError>>, RlpError> {
    let list = rlp::single_list(raw, "slim receipt list")?;
    Ok(ListIter::new(list.payload, "slim receipt")
        .map(|r| r.and_then(|it| SlimReceipt::decode(&it))))
}

/// Encodes a block's slim receipt list from its full receipts (the ere writer's side of era1 -> ere).
pub fn encode_slim_list<'a>(receipts: impl IntoIterator<Item = ReceiptView<'a>>) -> Vec<u8> {
    use alloy_rlp::Encodable;
    let mut payload = Vec::new();
    let mut fields = Vec::new();
    for r in receipts {
        fields.clear();
        u64::from(r.tx_type()).encode(&mut fields);
        match r.outcome() {
            Outcome::PostState(root) => root.as_slice().encode(&mut fields),
            Outcome::Status(ok) => u64::from(ok).encode(&mut fields),
        }
        r.cumulative_gas_used().encode(&mut fields);
        fields.extend_from_slice(r.logs_rlp());
        payload.extend_from_slice(&super::header::wrap_list(&fields));
    }
    super::header::wrap_list(&payload)
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

/// The bloom of a receipt's logs: each log's address and topics accrued (yellow paper §4.3.1).
pub fn logs_bloom<'a>(
    logs: impl Iterator<Item = Result<LogView<'a>, RlpError>>,
) -> Result<([u8; 256], u64), RlpError> {
    let mut bloom = [0u8; 256];
    let mut n = 0u64;
    for log in logs {
        let log = log?;
        super::bloom::accrue(&mut bloom, log.address);
        for topic in log.topics() {
            super::bloom::accrue(&mut bloom, topic);
        }
        n += 1;
    }
    Ok((bloom, n))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A full receipt of every type and outcome, slimmed and rebuilt, comes back byte for byte.
    #[test]
    fn slim_receipts_rebuild_the_full_ones() {
        let logs = vec![
            LogFields {
                address: [1; 20],
                topics: vec![[2; 32], [3; 32]],
                data: vec![4; 70],
            },
            LogFields {
                address: [5; 20],
                topics: vec![],
                data: vec![],
            },
        ];
        let root = [9u8; 32];
        let full: Vec<(Vec<u8>, [u8; 256])> = vec![
            encode_receipt(0, Outcome::PostState(&root), 21_000, &logs),
            encode_receipt(0, Outcome::Status(false), 42_000, &[]),
            encode_receipt(1, Outcome::Status(true), 63_000, &logs[..1]),
            encode_receipt(2, Outcome::Status(true), 1 << 40, &logs),
            encode_receipt(3, Outcome::Status(false), (1 << 40) + 1, &[]),
            encode_receipt(4, Outcome::Status(true), (1 << 40) + 2, &logs[1..]),
        ];
        let canonical: Vec<Vec<u8>> = full.iter().map(|(c, _)| c.clone()).collect();
        let list = encode_list(&canonical);
        let views: Vec<ReceiptView<'_>> = decode_list(&list).unwrap().map(Result::unwrap).collect();
        let slim = encode_slim_list(views.iter().copied());
        let mut out = Vec::new();
        for (i, r) in decode_slim_list(&slim).unwrap().enumerate() {
            let r = r.unwrap();
            let (bloom, _) = logs_bloom(r.logs()).unwrap();
            assert_eq!(bloom, full[i].1, "receipt {i}'s bloom");
            out.clear();
            r.write_canonical(&bloom, &mut out);
            assert_eq!(out, canonical[i], "receipt {i}");
            assert_eq!(r.tx_type(), views[i].tx_type());
            // The view made without decoding again is the decoded one.
            let made = ReceiptView::of_rebuilt(&r, &out).unwrap();
            let decoded = ReceiptView::decode_canonical(&out).unwrap();
            assert_eq!(made.canonical(), decoded.canonical(), "receipt {i}");
            assert_eq!(made.logs_bloom(), decoded.logs_bloom(), "receipt {i}");
            assert_eq!(made.tx_type(), decoded.tx_type(), "receipt {i}");
            assert_eq!(made.outcome(), decoded.outcome(), "receipt {i}");
            assert_eq!(
                made.cumulative_gas_used(),
                decoded.cumulative_gas_used(),
                "receipt {i}"
            );
            assert_eq!(made.logs_rlp(), decoded.logs_rlp(), "receipt {i}");
            let short = &out[..r.logs_rlp().len() + 255];
            assert!(ReceiptView::of_rebuilt(&r, short).is_err(), "receipt {i}");
        }
        // Slim receipts are smaller by the blooms (and the typed envelopes' string headers).
        assert!(
            slim.len() + 6 * 256 < list.len() + 16,
            "{} vs {}",
            slim.len(),
            list.len()
        );
    }

    #[test]
    fn slim_receipt_errors() {
        use alloy_rlp::Encodable;
        let enc = |fields: &[&[u8]]| super::super::header::wrap_list(&fields.concat());
        let mut ty = Vec::new();
        200u64.encode(&mut ty);
        let bad_type = enc(&[&ty, &[0x01], &[0x80], &[0xc0]]);
        let item = rlp::next_item(&mut &bad_type[..], "t").unwrap();
        assert!(SlimReceipt::decode(&item)
            .unwrap_err()
            .to_string()
            .contains("0 to 127"));
        let short = enc(&[&[0x02], &[0x01], &[0x80]]);
        let item = rlp::next_item(&mut &short[..], "t").unwrap();
        assert!(SlimReceipt::decode(&item)
            .unwrap_err()
            .to_string()
            .contains("missing field logs"));
        let bad_status = enc(&[&[0x02], &[0x82, 1, 2], &[0x80], &[0xc0]]);
        let item = rlp::next_item(&mut &bad_status[..], "t").unwrap();
        assert!(SlimReceipt::decode(&item).is_err());
    }
}
