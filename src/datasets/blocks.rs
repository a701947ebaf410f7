//! `blocks`: one row per block, all header fields (post-merge ones nullable so one schema covers all of
//! history), total difficulty, counts and size. era1 blocks give their header as stored; era files give the
//! header rebuilt from each post-merge execution payload (whose keccak verification checked against the
//! payload's `block_hash`), so pre- and post-merge rows form one continuous table.

use super::columns::{u256_fields, U256Columns};
use super::{Dataset, DatasetBuilder, DatasetError, ExportContext};
use crate::execution::header::Seal;
use crate::execution::transaction::TxView;
use crate::formats::Need;
use crate::verify::era::VerifiedBeaconBlock;
use crate::verify::execution::VerifiedBlock;
use arrow_array::builder::{BinaryBuilder, UInt32Builder, UInt64Builder};
use arrow_array::ArrayRef;
use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use std::sync::{Arc, LazyLock};

/// The `blocks` dataset.
pub struct Blocks;

static SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    let b = |n: &str| Field::new(n, DataType::Binary, false);
    let mut f = vec![
        Field::new("block_number", DataType::UInt64, false),
        b("block_hash"),
        b("parent_hash"),
        b("ommers_hash"),
        b("author"),
        b("state_root"),
        b("transactions_root"),
        b("receipts_root"),
        b("logs_bloom"),
    ];
    f.extend(u256_fields("difficulty", false));
    f.extend(u256_fields("total_difficulty", true));
    f.extend([
        Field::new("gas_used", DataType::UInt64, false),
        Field::new("gas_limit", DataType::UInt64, false),
        b("extra_data"),
        Field::new("timestamp", DataType::UInt64, false),
        // Null for AuRa-sealed headers, whose seal is in `aura_step` and `aura_seal`.
        Field::new("mix_hash", DataType::Binary, true),
        Field::new("nonce", DataType::Binary, true),
    ]);
    f.extend(u256_fields("base_fee_per_gas", true));
    f.extend([
        Field::new("transaction_count", DataType::UInt32, false),
        Field::new("uncle_count", DataType::UInt32, false),
        Field::new("size", DataType::UInt64, false),
        Field::new("chain_id", DataType::UInt64, false),
        Field::new("withdrawals_root", DataType::Binary, true),
        Field::new("blob_gas_used", DataType::UInt64, true),
        Field::new("excess_blob_gas", DataType::UInt64, true),
        Field::new("parent_beacon_block_root", DataType::Binary, true),
        Field::new("requests_hash", DataType::Binary, true),
        Field::new("aura_step", DataType::UInt64, true),
        Field::new("aura_seal", DataType::Binary, true),
    ]);
    Arc::new(Schema::new(f))
});

impl Dataset for Blocks {
    fn name(&self) -> &'static str {
        "blocks"
    }
    fn schema(&self) -> SchemaRef {
        SCHEMA.clone()
    }
    fn needs_receipts(&self) -> bool {
        false
    }
    fn sort_columns(&self) -> &'static [&'static str] {
        &["block_number"]
    }
    fn dictionary_columns(&self) -> &'static [&'static str] {
        &["author"]
    }
    fn needs(&self) -> Need {
        Need::Blocks
    }
    fn builder(&self, ctx: ExportContext) -> Box<dyn DatasetBuilder> {
        Box::new(BlocksBuilder {
            chain_id: ctx.chain_id,
            ..Default::default()
        })
    }
}

#[derive(Default)]
struct BlocksBuilder {
    chain_id: u64,
    block_number: UInt64Builder,
    block_hash: BinaryBuilder,
    parent_hash: BinaryBuilder,
    ommers_hash: BinaryBuilder,
    author: BinaryBuilder,
    state_root: BinaryBuilder,
    transactions_root: BinaryBuilder,
    receipts_root: BinaryBuilder,
    logs_bloom: BinaryBuilder,
    difficulty: U256Columns,
    total_difficulty: U256Columns,
    gas_used: UInt64Builder,
    gas_limit: UInt64Builder,
    extra_data: BinaryBuilder,
    timestamp: UInt64Builder,
    mix_hash: BinaryBuilder,
    nonce: BinaryBuilder,
    aura_step: UInt64Builder,
    aura_seal: BinaryBuilder,
    base_fee_per_gas: U256Columns,
    transaction_count: UInt32Builder,
    uncle_count: UInt32Builder,
    size: UInt64Builder,
    chain_ids: UInt64Builder,
    withdrawals_root: BinaryBuilder,
    blob_gas_used: UInt64Builder,
    excess_blob_gas: UInt64Builder,
    parent_beacon_block_root: BinaryBuilder,
    requests_hash: BinaryBuilder,
}

impl DatasetBuilder for BlocksBuilder {
    fn add_block(&mut self, b: &VerifiedBlock<'_>) {
        let h = &b.header;
        self.block_number.append_value(b.number);
        self.block_hash.append_value(h.hash());
        self.parent_hash.append_value(h.parent_hash());
        self.ommers_hash.append_value(h.ommers_hash());
        self.author.append_value(h.beneficiary());
        self.state_root.append_value(h.state_root());
        self.transactions_root.append_value(h.transactions_root());
        self.receipts_root.append_value(h.receipts_root());
        self.logs_bloom.append_value(h.logs_bloom());
        self.difficulty.append(Some(h.difficulty()));
        self.total_difficulty.append(b.total_difficulty);
        self.gas_used.append_value(h.gas_used());
        self.gas_limit.append_value(h.gas_limit());
        self.extra_data.append_value(h.extra_data());
        self.timestamp.append_value(h.timestamp());
        match h.seal() {
            Seal::Ethash { mix_hash, nonce } => {
                self.mix_hash.append_value(mix_hash);
                self.nonce.append_value(nonce);
                self.aura_step.append_null();
                self.aura_seal.append_null();
            }
            Seal::Aura { step, signature } => {
                self.mix_hash.append_null();
                self.nonce.append_null();
                self.aura_step.append_value(step);
                self.aura_seal.append_value(signature);
            }
        }
        self.base_fee_per_gas.append(h.base_fee_per_gas());
        self.transaction_count
            .append_value(b.transactions.len() as u32);
        self.uncle_count
            .append_value(b.body.ommers().count() as u32);
        self.size
            .append_value(block_rlp_len(h.raw().len(), b.body.raw().len()) as u64);
        self.chain_ids.append_value(self.chain_id);
        self.withdrawals_root.append_option(h.withdrawals_root());
        self.blob_gas_used.append_option(h.blob_gas_used());
        self.excess_blob_gas.append_option(h.excess_blob_gas());
        self.parent_beacon_block_root
            .append_option(h.parent_beacon_block_root());
        self.requests_hash.append_option(h.requests_hash());
    }

    fn add_beacon_block(&mut self, b: &VerifiedBeaconBlock<'_>) -> Result<(), DatasetError> {
        // Beacon blocks before the merge carry no execution block: no row.
        let Some(x) = &b.execution else {
            return Ok(());
        };
        let h = x.header;
        let raw = h.encode();
        self.block_number.append_value(h.number);
        self.block_hash.append_value(x.block_hash);
        self.parent_hash.append_value(h.parent_hash);
        self.ommers_hash.append_value(h.ommers_hash);
        self.author.append_value(h.beneficiary);
        self.state_root.append_value(h.state_root);
        self.transactions_root.append_value(h.transactions_root);
        self.receipts_root.append_value(h.receipts_root);
        self.logs_bloom.append_value(h.logs_bloom.as_slice());
        self.difficulty.append(Some(h.difficulty));
        // Era files do not carry total difficulty; after the merge it is frozen at the terminal block's value,
        // which the last era1 row holds (docs/schema.md).
        self.total_difficulty.append(None);
        self.gas_used.append_value(h.gas_used);
        self.gas_limit.append_value(h.gas_limit);
        self.extra_data.append_value(h.extra_data.as_ref());
        self.timestamp.append_value(h.timestamp);
        // A payload's header: post-merge, never AuRa-sealed.
        self.mix_hash.append_value(h.mix_hash);
        self.nonce.append_value(h.nonce.as_slice());
        self.aura_step.append_null();
        self.aura_seal.append_null();
        self.base_fee_per_gas.append(h.base_fee_per_gas);
        self.transaction_count
            .append_value(x.transactions.len() as u32);
        self.uncle_count.append_value(0);
        let body = body_rlp_len(x.transactions, x.withdrawals, h.withdrawals_root.is_some());
        self.size
            .append_value(block_rlp_len(raw.len(), body) as u64);
        self.chain_ids.append_value(self.chain_id);
        self.withdrawals_root.append_option(h.withdrawals_root);
        self.blob_gas_used.append_option(h.cancun.map(|c| c.0));
        self.excess_blob_gas.append_option(h.cancun.map(|c| c.1));
        self.parent_beacon_block_root
            .append_option(h.cancun.map(|c| c.2));
        self.requests_hash.append_option(h.requests_hash);
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        let [d0, d1, d2] = std::mem::take(&mut self.difficulty).finish();
        let [t0, t1, t2] = std::mem::take(&mut self.total_difficulty).finish();
        let [b0, b1, b2] = std::mem::take(&mut self.base_fee_per_gas).finish();
        let s = &mut *self;
        let cols: Vec<ArrayRef> = vec![
            Arc::new(s.block_number.finish()),
            Arc::new(s.block_hash.finish()),
            Arc::new(s.parent_hash.finish()),
            Arc::new(s.ommers_hash.finish()),
            Arc::new(s.author.finish()),
            Arc::new(s.state_root.finish()),
            Arc::new(s.transactions_root.finish()),
            Arc::new(s.receipts_root.finish()),
            Arc::new(s.logs_bloom.finish()),
            d0,
            d1,
            d2,
            t0,
            t1,
            t2,
            Arc::new(s.gas_used.finish()),
            Arc::new(s.gas_limit.finish()),
            Arc::new(s.extra_data.finish()),
            Arc::new(s.timestamp.finish()),
            Arc::new(s.mix_hash.finish()),
            Arc::new(s.nonce.finish()),
            b0,
            b1,
            b2,
            Arc::new(s.transaction_count.finish()),
            Arc::new(s.uncle_count.finish()),
            Arc::new(s.size.finish()),
            Arc::new(s.chain_ids.finish()),
            Arc::new(s.withdrawals_root.finish()),
            Arc::new(s.blob_gas_used.finish()),
            Arc::new(s.excess_blob_gas.finish()),
            Arc::new(s.parent_beacon_block_root.finish()),
            Arc::new(s.requests_hash.finish()),
            Arc::new(s.aura_step.finish()),
            Arc::new(s.aura_seal.finish()),
        ];
        // Columns match SCHEMA by construction; a mismatch is a bug caught by the dataset tests.
        RecordBatch::try_new(SCHEMA.clone(), cols).expect("blocks columns match the schema")
    }
}

/// Length of an RLP header for a string or list of `len` payload bytes.
fn rlp_header_len(len: usize) -> usize {
    if len < 56 {
        1
    } else {
        1 + (usize::BITS - len.leading_zeros()).div_ceil(8) as usize
    }
}

/// The JSON-RPC `size` of a block (what cryo and block explorers show): the length of the block's RLP,
/// `[header, transactions, ommers, (withdrawals)]`, from the lengths of the header RLP and the body RLP (the same
/// items in a list of their own), so computed, not encoded.
fn block_rlp_len(header_len: usize, body_len: usize) -> usize {
    // The body's payload: its length less its own list header (1 to 9 bytes).
    let body_payload = (1..=9)
        .map(|h| body_len.saturating_sub(h))
        .find(|&p| rlp_header_len(p) + p == body_len)
        .unwrap_or(body_len);
    let payload = header_len + body_payload;
    rlp_header_len(payload) + payload
}

/// Length of the RLP encoding of an unsigned integer.
fn rlp_u64_len(v: u64) -> usize {
    if v < 0x80 {
        1
    } else {
        1 + (u64::BITS - v.leading_zeros()).div_ceil(8) as usize
    }
}

/// Length of the block body RLP an execution client stores for a post-merge block: `[transactions, ommers
/// (always empty), withdrawals (Shanghai on)]`, where a typed transaction is a byte string of its envelope and a
/// legacy one its RLP list. Computed, not encoded, so `size` ([`block_rlp_len`]) means the same as for era1 rows
/// without copying every transaction.
fn body_rlp_len(
    txs: &[TxView<'_>],
    withdrawals: &[crate::consensus::Withdrawal],
    shanghai: bool,
) -> usize {
    let txs_payload: usize = txs
        .iter()
        .map(|t| {
            let c = t.canonical().len();
            if t.tx_type() == 0 {
                c
            } else {
                rlp_header_len(c) + c
            }
        })
        .sum();
    let mut payload = rlp_header_len(txs_payload) + txs_payload + 1;
    if shanghai {
        let w_payload: usize = withdrawals
            .iter()
            .map(|w| {
                let p = rlp_u64_len(w.index)
                    + rlp_u64_len(w.validator_index)
                    + 21
                    + rlp_u64_len(w.amount);
                rlp_header_len(p) + p
            })
            .sum();
        payload += rlp_header_len(w_payload) + w_payload;
    }
    rlp_header_len(payload) + payload
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_rlp::Encodable;

    #[test]
    fn rlp_lengths_match_alloy() {
        for v in [0u64, 1, 0x7f, 0x80, 0xff, 0x100, u64::MAX] {
            assert_eq!(rlp_u64_len(v), v.length(), "{v}");
        }
        for len in [0usize, 1, 55, 56, 255, 256, 65535, 65536] {
            let mut out = Vec::new();
            alloy_rlp::Header {
                list: true,
                payload_length: len,
            }
            .encode(&mut out);
            assert_eq!(rlp_header_len(len), out.len(), "{len}");
        }
        // An empty post-Shanghai body: [[], [], []].
        assert_eq!(body_rlp_len(&[], &[], true), 4);
        assert_eq!(body_rlp_len(&[], &[], false), 3);
        // Mainnet block 1: a 532-byte header and an empty body make the 537 bytes JSON-RPC reports (0x219).
        assert_eq!(block_rlp_len(532, 3), 537);
        // A block list past 65535 bytes: header 600, body payload 70000 (list header 4 bytes each).
        assert_eq!(block_rlp_len(600, 70_004), 4 + 600 + 70_000);
    }
}
