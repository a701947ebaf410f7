//! An era1 block's receipts against its header: the receipts root, each receipt's bloom and the header's,
//! cumulative gas against `gas_used`, and each receipt's type and form against its transaction's kind and the
//! fork (pre-Byzantium state roots, then status codes).

use super::era1::{rlp_error, Counts};
use super::{hex0x, mismatch};
use crate::execution::header::HeaderView;
use crate::execution::receipt::{self, Outcome, ReceiptView};
use crate::execution::{bloom, rlp, trie};
use crate::formats::era1;
use crate::formats::FormatError;
use crate::network::Network;
use std::path::Path;

/// Receipts: root, per-receipt bloom, header bloom, gas, receipt type and form.
#[allow(clippy::too_many_arguments)]
pub(super) fn check_receipts<'d>(
    t: &era1::BlockTuple<'_>,
    dec: &'d mut crate::formats::snappy::FramedDecoder,
    path: &Path,
    number: u64,
    network: Option<&Network>,
    header: &HeaderView<'_>,
    kinds: &[&'static str],
    counts: &mut Counts,
    views: &mut Vec<ReceiptView<'d>>,
) -> Result<(), FormatError> {
    let rlp_err = |offset: u64| move |e: rlp::RlpError| rlp_error(e, offset, path, number);
    let located = |e: FormatError| e.in_file(path).in_block(number);
    let receipts_raw = era1::decompress(dec, &t.receipts, path, number)?;
    let mut receipt_encodings: Vec<&[u8]> = Vec::with_capacity(kinds.len());
    let mut block_bloom = [0u8; bloom::BLOOM_LEN];
    let mut last_gas = 0u64;
    let mut logs = 0u64;
    let roff = t.receipts.offset;
    for (idx, r) in receipt::decode_list(receipts_raw)
        .map_err(rlp_err(roff))?
        .enumerate()
    {
        let r = r.map_err(rlp_err(roff))?;
        let kind = kinds.get(idx).copied().unwrap_or("missing");
        let ty = if kind.starts_with("legacy") {
            0
        } else {
            kind.as_bytes().get(4).map_or(255, |b| b - b'0')
        };
        if r.tx_type() != ty {
            return Err(located(mismatch(
                roff,
                "receipt type",
                format!("{ty} (transaction {idx})"),
                r.tx_type(),
            )));
        }
        if r.cumulative_gas_used() < last_gas {
            return Err(located(mismatch(
                roff,
                "cumulative gas (non-decreasing)",
                format!(">= {last_gas}"),
                r.cumulative_gas_used(),
            )));
        }
        last_gas = r.cumulative_gas_used();
        let form = match r.outcome() {
            Outcome::Status(_) => "status",
            Outcome::PostState(_) => "post_state",
        };
        if let Some(net) = network {
            let want = if net.is_byzantium(number) {
                "status"
            } else {
                "post_state"
            };
            if form != want {
                return Err(located(mismatch(roff, "receipt form", want, form)));
            }
        }
        let label = if kind.starts_with("legacy") {
            "legacy"
        } else {
            kind
        };
        *counts
            .receipt_forms
            .entry(format!("{label}/{form}"))
            .or_default() += 1;
        let mut rb = [0u8; bloom::BLOOM_LEN];
        for log in r.logs() {
            let log = log.map_err(rlp_err(roff))?;
            bloom::accrue(&mut rb, log.address);
            for topic in log.topics() {
                bloom::accrue(&mut rb, topic);
            }
            logs += 1;
        }
        if rb != *r.logs_bloom() {
            return Err(located(mismatch(
                roff,
                "receipt logs bloom",
                format!("bloom of receipt {idx}'s logs"),
                "a different bloom",
            )));
        }
        bloom::union(&mut block_bloom, &rb);
        receipt_encodings.push(r.canonical());
        views.push(r);
    }
    if receipt_encodings.len() != kinds.len() {
        return Err(located(mismatch(
            roff,
            "receipt count",
            kinds.len(),
            receipt_encodings.len(),
        )));
    }
    let receipts_root = trie::ordered_root(&receipt_encodings);
    if receipts_root.0 != *header.receipts_root() {
        return Err(located(mismatch(
            roff,
            "receipts root",
            hex0x(header.receipts_root()),
            hex0x(&receipts_root.0),
        )));
    }
    if block_bloom != *header.logs_bloom() {
        return Err(located(mismatch(
            t.header.offset,
            "header logs bloom",
            "union of receipt blooms",
            "a different bloom",
        )));
    }
    if last_gas != header.gas_used() {
        return Err(located(mismatch(
            t.header.offset,
            "gas used",
            format!("{} (last cumulative gas)", last_gas),
            header.gas_used(),
        )));
    }

    counts.receipts += receipt_encodings.len() as u64;
    counts.logs += logs;
    Ok(())
}
