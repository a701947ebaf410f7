//! A block's receipts against its header: the receipts root, each receipt's bloom and the header's, cumulative
//! gas against `gas_used`, and each receipt's type and form against its transaction's kind and the fork
//! (pre-Byzantium state roots, then status codes). era1 files hold full receipts, whose stored blooms are
//! checked; ere files hold slim ones, which are rebuilt into full receipts (bloom computed from the logs) so the
//! same root, the same checks and the same views come out of both.

use super::tally::{kind_slot, rlp_error, Counts};
use super::{hex0x, mismatch};
use crate::execution::header::HeaderView;
use crate::execution::receipt::{self, Outcome, ReceiptFields, ReceiptView};
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
    let mut tally = Tally::default();
    let mut n = 0usize;
    let byzantium = network.map(|net| net.is_byzantium(number));
    if is_slim_receipts(record.kind) {
        // Rebuild each full receipt from its slim fields and the bloom of its logs; views come after, once the
        // buffer is complete.
        rebuilt.clear();
        let mut spans: Vec<(receipt::SlimReceipt<'d>, usize, usize)> =
            Vec::with_capacity(kinds.len());
        for (idx, r) in receipt::decode_slim_list(raw).map_err(rlp_err)?.enumerate() {
            let r = r.map_err(rlp_err)?;
            let rb = check_one(idx, kinds, &r, byzantium, &mut tally, counts)
                .map_err(|e| located(e.into_error(roff, rlp_err)))?;
            bloom::union(&mut block_bloom, &rb);
            let start = rebuilt.len();
            r.write_canonical(&rb, rebuilt);
            spans.push((r, start, rebuilt.len()));
            n += 1;
        }
        let rebuilt: &'d [u8] = rebuilt;
        for (slim, start, end) in spans {
            views.push(ReceiptView::of_rebuilt(&slim, &rebuilt[start..end]).map_err(rlp_err)?);
        }
    } else {
        for (idx, r) in receipt::decode_list(raw).map_err(rlp_err)?.enumerate() {
            let r = r.map_err(rlp_err)?;
            let rb = check_one(idx, kinds, &r, byzantium, &mut tally, counts)
                .map_err(|e| located(e.into_error(roff, rlp_err)))?;
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
    check_gas_used(header, tally.last_gas, n).map_err(|(expected, found)| {
        located(mismatch(header_record.offset, "gas used", expected, found))
    })?;
    counts.receipts += n as u64;
    counts.logs += tally.logs;
    Ok(())
}

/// The header's `gas_used` against its receipts, by the rule of the header's fork (`Err((expected, found))`).
///
/// Until Amsterdam it is the last receipt's cumulative gas, exactly. From Amsterdam on (a 23-field header) it is
/// the larger of the block's execution-gas and state-gas totals counted before refunds (EIP-7778, EIP-8037, as
/// execution-specs' `forks/amsterdam` and alloy-consensus 2.x's `Header::gas_used` define it), while receipts
/// still count charged gas after refunds: neither bounds the other, and the per-transaction gas that would
/// link them is in no archive. What still holds and is checked: no transactions use no gas, any transaction
/// uses some (every transaction pays its intrinsic gas, which refunds never undo in the block's count). Every
/// fork: `gas_used <= gas_limit` (EIP-8037 bounds each dimension by the limit, so their maximum too).
fn check_gas_used(
    header: &HeaderView<'_>,
    last_cumulative: u64,
    transactions: usize,
) -> Result<(), (String, String)> {
    let used = header.gas_used();
    if used > header.gas_limit() {
        return Err((
            format!("at most the gas limit, {}", header.gas_limit()),
            used.to_string(),
        ));
    }
    if header.slot_number().is_none() {
        if last_cumulative != used {
            return Err((
                format!("{last_cumulative} (last cumulative gas)"),
                used.to_string(),
            ));
        }
    } else if (transactions == 0) != (used == 0) {
        return Err((
            format!(
                "{} ({transactions} transactions; Amsterdam counts gas before refunds, EIP-7778/8037)",
                if transactions == 0 { "0" } else { "above 0" }
            ),
            used.to_string(),
        ));
    }
    Ok(())
}

/// What the receipts of a block add up to so far.
#[derive(Default)]
struct Tally {
    /// The previous receipt's cumulative gas.
    last_gas: u64,
    /// Logs so far.
    logs: u64,
}

/// A failed check of one receipt, located by the caller.
enum ReceiptMismatch {
    /// A field disagrees with the transaction, the fork or the previous receipt.
    Field {
        what: &'static str,
        expected: String,
        found: String,
    },
    /// A log did not decode.
    Rlp(rlp::RlpError),
}

impl ReceiptMismatch {
    fn into_error(
        self,
        offset: u64,
        rlp_err: impl Fn(rlp::RlpError) -> FormatError,
    ) -> FormatError {
        match self {
            ReceiptMismatch::Field {
                what,
                expected,
                found,
            } => mismatch(offset, what, expected, found),
            ReceiptMismatch::Rlp(e) => rlp_err(e),
        }
    }
}

/// The checks of one receipt that do not depend on its encoding: its type against its transaction's, its
/// cumulative gas non-decreasing, its form (state root or status) against the fork; its logs decode. Counts its
/// form and logs into `tally` and `counts`, and returns the bloom of its logs.
fn check_one(
    idx: usize,
    kinds: &[TxKind],
    receipt: &ReceiptFields<'_>,
    byzantium: Option<bool>,
    tally: &mut Tally,
    counts: &mut Counts,
) -> Result<[u8; bloom::BLOOM_LEN], ReceiptMismatch> {
    let field = |what: &'static str, expected: String, found: String| ReceiptMismatch::Field {
        what,
        expected,
        found,
    };
    let Some(&kind) = kinds.get(idx) else {
        return Err(field(
            "receipt count",
            kinds.len().to_string(),
            format!("more than {}", kinds.len()),
        ));
    };
    if receipt.tx_type() != kind.tx_type() {
        return Err(field(
            "receipt type",
            format!("{} (transaction {idx})", kind.tx_type()),
            receipt.tx_type().to_string(),
        ));
    }
    if receipt.cumulative_gas_used() < tally.last_gas {
        return Err(field(
            "cumulative gas (non-decreasing)",
            format!(">= {}", tally.last_gas),
            receipt.cumulative_gas_used().to_string(),
        ));
    }
    let (form, name) = match receipt.outcome() {
        Outcome::Status(_) => (0, "status"),
        Outcome::PostState(_) => (1, "post_state"),
    };
    if let Some(byzantium) = byzantium {
        let want = if byzantium { "status" } else { "post_state" };
        if name != want {
            return Err(field("receipt form", want.into(), name.into()));
        }
    }
    let (bloom, n) = receipt::logs_bloom(receipt.logs()).map_err(ReceiptMismatch::Rlp)?;
    counts.receipt_forms[kind_slot(kind)][form] += 1;
    tally.last_gas = receipt.cumulative_gas_used();
    tally.logs += n;
    Ok(bloom)
}

#[cfg(test)]
mod tests {
    use super::check_gas_used;
    use crate::execution::header::{HeaderFields, HeaderView};
    use alloy_primitives::{B256, U256};

    /// A Prague header (21 fields), or an Amsterdam one (23), of `gas_used` out of 30M.
    fn header(amsterdam: bool, gas_used: u64) -> Vec<u8> {
        HeaderFields {
            gas_limit: 30_000_000,
            gas_used,
            base_fee_per_gas: Some(U256::from(7u64)),
            withdrawals_root: Some(B256::ZERO),
            cancun: Some((0, 0, B256::ZERO)),
            requests_hash: Some(B256::ZERO),
            amsterdam: amsterdam.then_some((B256::ZERO, 1)),
            ..Default::default()
        }
        .encode()
    }

    fn check(
        amsterdam: bool,
        gas_used: u64,
        last: u64,
        txs: usize,
    ) -> Result<(), (String, String)> {
        check_gas_used(
            &HeaderView::decode(&header(amsterdam, gas_used)).unwrap(),
            last,
            txs,
        )
    }

    #[test]
    fn gas_used_follows_its_fork() {
        // Before Amsterdam: exactly the last receipt's cumulative gas.
        assert!(check(false, 50_000, 50_000, 2).is_ok());
        let e = check(false, 50_001, 50_000, 2).unwrap_err();
        assert_eq!(e, ("50000 (last cumulative gas)".into(), "50001".into()));
        // Amsterdam: above or below the receipts' sum (refunds, two dimensions), but never 0 with transactions
        // and never above 0 without.
        assert!(check(true, 60_000, 50_000, 2).is_ok());
        assert!(check(true, 40_000, 50_000, 2).is_ok());
        assert!(check(true, 0, 0, 0).is_ok());
        assert!(check(true, 0, 50_000, 2)
            .unwrap_err()
            .0
            .starts_with("above 0 (2 transactions"));
        assert!(check(true, 21_000, 0, 0)
            .unwrap_err()
            .0
            .starts_with("0 (0 transactions"));
        // Every fork: at most the gas limit.
        for amsterdam in [false, true] {
            let e = check(amsterdam, 30_000_001, 30_000_001, 1).unwrap_err();
            assert_eq!(e.0, "at most the gas limit, 30000000");
        }
    }
}
