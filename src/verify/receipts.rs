//! A block's receipts against its header: the receipts root, each receipt's bloom and the header's, cumulative
//! gas against `gas_used`, and each receipt's type and form against its transaction's kind and the fork
//! (pre-Byzantium state roots, then status codes). era1 files hold full receipts, whose stored blooms are
//! checked; ere files hold slim ones, which are rebuilt into full receipts (bloom computed from the logs) so the
//! same root, the same checks and the same views come out of both.

use super::execution::{kind_slot, rlp_error, Counts};
use super::{hex0x, mismatch};
use crate::execution::header::HeaderView;
use crate::execution::receipt::{self, Outcome, ReceiptView};
use crate::execution::transaction::TxKind;
use crate::execution::{bloom, rlp, trie};
use crate::formats::e2store::Record;
use crate::formats::execution::{decompress, is_slim_receipts};
use crate::formats::snappy::FramedDecoder;
use crate::formats::FormatError;
use crate::network::Network;
use std::path::Path;

/// Receipts: root, per-receipt bloom, header bloom, gas, receipt type and form. `record` holds full receipts
/// (era1) or slim ones (ere), which are rebuilt into `rebuilt`; `views` gets one view per receipt either way.
#[allow(clippy::too_many_arguments)]
pub(super) fn check_receipts<'d>(
    record: &Record<'_>,
    header_record: &Record<'_>,
    dec: &'d mut FramedDecoder,
    rebuilt: &'d mut Vec<u8>,
    path: &Path,
    number: u64,
    network: Option<&Network>,
    header: &HeaderView<'_>,
    kinds: &[TxKind],
    counts: &mut Counts,
    views: &mut Vec<ReceiptView<'d>>,
) -> Result<(), FormatError> {
    let roff = record.offset;
    let rlp_err = move |e: rlp::RlpError| rlp_error(e, roff, path, number);
    let located = |e: FormatError| e.in_file(path).in_block(number);
    let raw = decompress(dec, record, path, number)?;
    let mut block_bloom = [0u8; bloom::BLOOM_LEN];
    let mut last_gas = 0u64;
    let mut logs = 0u64;
    let mut n = 0usize;
    let byzantium = network.map(|net| net.is_byzantium(number));
    if is_slim_receipts(record.kind) {
        // Rebuild each full receipt from its slim fields and the bloom of its logs; views come after, once the
        // buffer is complete.
        rebuilt.clear();
        let mut spans: Vec<(usize, usize)> = Vec::with_capacity(kinds.len());
        for (idx, r) in receipt::decode_slim_list(raw).map_err(rlp_err)?.enumerate() {
            let r = r.map_err(rlp_err)?;
            last_gas = check_one(
                idx,
                kinds,
                r.tx_type(),
                r.outcome(),
                r.cumulative_gas_used(),
                last_gas,
                byzantium,
                counts,
            )
            .map_err(|e| located(e.into_mismatch(roff)))?;
            let (rb, nlogs) = receipt::logs_bloom(r.logs()).map_err(rlp_err)?;
            logs += nlogs;
            bloom::union(&mut block_bloom, &rb);
            let start = rebuilt.len();
            r.write_canonical(&rb, rebuilt);
            spans.push((start, rebuilt.len()));
            n += 1;
        }
        let rebuilt: &'d [u8] = rebuilt;
        for (start, end) in spans {
            views.push(ReceiptView::decode_canonical(&rebuilt[start..end]).map_err(rlp_err)?);
        }
    } else {
        for (idx, r) in receipt::decode_list(raw).map_err(rlp_err)?.enumerate() {
            let r = r.map_err(rlp_err)?;
            last_gas = check_one(
                idx,
                kinds,
                r.tx_type(),
                r.outcome(),
                r.cumulative_gas_used(),
                last_gas,
                byzantium,
                counts,
            )
            .map_err(|e| located(e.into_mismatch(roff)))?;
            let (rb, nlogs) = receipt::logs_bloom(r.logs()).map_err(rlp_err)?;
            logs += nlogs;
            if rb != *r.logs_bloom() {
                return Err(located(mismatch(
                    roff,
                    "receipt logs bloom",
                    format!("bloom of receipt {idx}'s logs"),
                    "a different bloom",
                )));
            }
            bloom::union(&mut block_bloom, &rb);
            views.push(r);
            n += 1;
        }
    }
    if n != kinds.len() {
        return Err(located(mismatch(roff, "receipt count", kinds.len(), n)));
    }
    let encodings: Vec<&[u8]> = views.iter().map(|v| v.canonical()).collect();
    let receipts_root = trie::ordered_root(&encodings);
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
            header_record.offset,
            "header logs bloom",
            "union of receipt blooms",
            "a different bloom",
        )));
    }
    if last_gas != header.gas_used() {
        return Err(located(mismatch(
            header_record.offset,
            "gas used",
            format!("{} (last cumulative gas)", last_gas),
            header.gas_used(),
        )));
    }
    counts.receipts += n as u64;
    counts.logs += logs;
    Ok(())
}

/// A failed check of one receipt, located by the caller.
struct ReceiptMismatch {
    what: &'static str,
    expected: String,
    found: String,
}

impl ReceiptMismatch {
    fn into_mismatch(self, offset: u64) -> FormatError {
        mismatch(offset, self.what, self.expected, self.found)
    }
}

/// The checks of one receipt that do not depend on its encoding: its type against its transaction's, its
/// cumulative gas non-decreasing, its form (state root or status) against the fork. Counts its form and returns
/// its cumulative gas.
#[allow(clippy::too_many_arguments)]
fn check_one(
    idx: usize,
    kinds: &[TxKind],
    tx_type: u8,
    outcome: Outcome<'_>,
    cumulative_gas: u64,
    last_gas: u64,
    byzantium: Option<bool>,
    counts: &mut Counts,
) -> Result<u64, ReceiptMismatch> {
    let Some(&kind) = kinds.get(idx) else {
        return Err(ReceiptMismatch {
            what: "receipt count",
            expected: kinds.len().to_string(),
            found: format!("more than {}", kinds.len()),
        });
    };
    if tx_type != kind.tx_type() {
        return Err(ReceiptMismatch {
            what: "receipt type",
            expected: format!("{} (transaction {idx})", kind.tx_type()),
            found: tx_type.to_string(),
        });
    }
    if cumulative_gas < last_gas {
        return Err(ReceiptMismatch {
            what: "cumulative gas (non-decreasing)",
            expected: format!(">= {last_gas}"),
            found: cumulative_gas.to_string(),
        });
    }
    let (form, name) = match outcome {
        Outcome::Status(_) => (0, "status"),
        Outcome::PostState(_) => (1, "post_state"),
    };
    if let Some(byzantium) = byzantium {
        let want = if byzantium { "status" } else { "post_state" };
        if name != want {
            return Err(ReceiptMismatch {
                what: "receipt form",
                expected: want.into(),
                found: name.into(),
            });
        }
    }
    counts.receipt_forms[kind_slot(kind)][form] += 1;
    Ok(cumulative_gas)
}
