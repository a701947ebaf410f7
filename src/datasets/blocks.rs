//! `blocks`: one row per block, all header fields (post-merge ones nullable so one schema covers all of
//! history), total difficulty, counts and size. era1 blocks give their header as stored; era files give the
//! header rebuilt from each post-merge execution payload (whose keccak verification checked against the
//! payload's `block_hash`), so pre- and post-merge rows form one continuous table.

use super::columns::{FeeColumns, U256Columns};
use super::table::{Columns, Table};
use super::{Dataset, DatasetBuilder, DatasetError, ExportContext};
use crate::execution::header::Seal;
use crate::execution::transaction::TxView;
use crate::formats::Need;
use crate::verify::era::VerifiedBeaconBlock;
use crate::verify::execution::VerifiedBlock;
use arrow_array::builder::{BinaryBuilder, UInt32Builder, UInt64Builder};
use arrow_array::RecordBatch;

/// The `blocks` dataset.
pub struct Blocks;

impl Dataset for Blocks {
    fn name(&self) -> &'static str {
        "blocks"
    }
    fn table(&self) -> &'static Table {
        BlocksColumns::table()
    }
    fn needs(&self) -> Need {
        Need::Blocks
    }
    fn builder(&self, ctx: ExportContext) -> Box<dyn DatasetBuilder> {
        Box::new(BlocksBuilder {
            chain_id: ctx.chain_id,
            c: BlocksColumns::default(),
        })
    }
}

columns! {
    struct BlocksColumns {
        block_number: UInt64Builder [sort],
        block_hash: BinaryBuilder,
        parent_hash: BinaryBuilder,
        ommers_hash: BinaryBuilder,
        author: BinaryBuilder [dictionary],
        state_root: BinaryBuilder,
        transactions_root: BinaryBuilder,
        receipts_root: BinaryBuilder,
        logs_bloom: BinaryBuilder,
        difficulty: U256Columns,
        total_difficulty: U256Columns [nullable],
        gas_used: UInt64Builder,
        gas_limit: UInt64Builder,
        extra_data: BinaryBuilder,
        timestamp: UInt64Builder,
        /// Null for AuRa-sealed headers, whose seal is in `aura_step` and `aura_seal`.
        mix_hash: BinaryBuilder [nullable],
        nonce: BinaryBuilder [nullable],
        base_fee_per_gas: FeeColumns [nullable],
        transaction_count: UInt32Builder,
        uncle_count: UInt32Builder,
        size: UInt64Builder,
        chain_id: UInt64Builder,
        withdrawals_root: BinaryBuilder [nullable],
        blob_gas_used: UInt64Builder [nullable],
        excess_blob_gas: UInt64Builder [nullable],
        parent_beacon_block_root: BinaryBuilder [nullable],
        requests_hash: BinaryBuilder [nullable],
        /// EIP-7928, Amsterdam on: the hash of a block access list no archive carries.
        block_access_list_hash: BinaryBuilder [nullable],
        /// EIP-7843, Amsterdam on: the beacon slot the block was built for.
        slot_number: UInt64Builder [nullable],
        aura_step: UInt64Builder [nullable],
        aura_seal: BinaryBuilder [nullable],
    }
}

struct BlocksBuilder {
    /// The network's chain id, repeated on every row.
    chain_id: u64,
    c: BlocksColumns,
}

impl DatasetBuilder for BlocksBuilder {
    fn add_block(&mut self, b: &VerifiedBlock<'_>) {
        let c = &mut self.c;
        let h = &b.header;
        c.block_number.append_value(b.number);
        c.block_hash.append_value(h.hash());
        c.parent_hash.append_value(h.parent_hash());
        c.ommers_hash.append_value(h.ommers_hash());
        c.author.append_value(h.beneficiary());
        c.state_root.append_value(h.state_root());
        c.transactions_root.append_value(h.transactions_root());
        c.receipts_root.append_value(h.receipts_root());
        c.logs_bloom.append_value(h.logs_bloom());
        c.difficulty.append(Some(h.difficulty()));
        c.total_difficulty.append(b.total_difficulty);
        c.gas_used.append_value(h.gas_used());
        c.gas_limit.append_value(h.gas_limit());
        c.extra_data.append_value(h.extra_data());
        c.timestamp.append_value(h.timestamp());
        match h.seal() {
            Seal::Ethash { mix_hash, nonce } => {
                c.mix_hash.append_value(mix_hash);
                c.nonce.append_value(nonce);
                c.aura_step.append_null();
                c.aura_seal.append_null();
            }
            Seal::Aura { step, signature } => {
                c.mix_hash.append_null();
                c.nonce.append_null();
                c.aura_step.append_value(step);
                c.aura_seal.append_value(signature);
            }
        }
        c.base_fee_per_gas.append(h.base_fee_per_gas());
        c.transaction_count
            .append_value(b.transactions.len() as u32);
        c.uncle_count.append_value(b.body.ommers().count() as u32);
        c.size
            .append_value(block_rlp_len(h.raw().len(), b.body.raw().len()) as u64);
        c.chain_id.append_value(self.chain_id);
        c.withdrawals_root.append_option(h.withdrawals_root());
        c.blob_gas_used.append_option(h.blob_gas_used());
        c.excess_blob_gas.append_option(h.excess_blob_gas());
        c.parent_beacon_block_root
            .append_option(h.parent_beacon_block_root());
        c.requests_hash.append_option(h.requests_hash());
        c.block_access_list_hash
            .append_option(h.block_access_list_hash());
        c.slot_number.append_option(h.slot_number());
    }

    fn add_beacon_block(&mut self, b: &VerifiedBeaconBlock<'_>) -> Result<(), DatasetError> {
        // Beacon blocks before the merge carry no execution block: no row.
        let Some(x) = &b.execution else {
            return Ok(());
        };
        let h = x.header;
        let c = &mut self.c;
        let raw = h.encode();
        c.block_number.append_value(h.number);
        c.block_hash.append_value(x.block_hash);
        c.parent_hash.append_value(h.parent_hash);
        c.ommers_hash.append_value(h.ommers_hash);
        c.author.append_value(h.beneficiary);
        c.state_root.append_value(h.state_root);
        c.transactions_root.append_value(h.transactions_root);
        c.receipts_root.append_value(h.receipts_root);
        c.logs_bloom.append_value(h.logs_bloom.as_slice());
        c.difficulty.append(Some(h.difficulty));
        // Era files do not carry total difficulty; after the merge it is frozen at the terminal block's value,
        // which the last era1 row holds (docs/schema.md).
        c.total_difficulty.append(None);
        c.gas_used.append_value(h.gas_used);
        c.gas_limit.append_value(h.gas_limit);
        c.extra_data.append_value(h.extra_data.as_ref());
        c.timestamp.append_value(h.timestamp);
        // A payload's header: post-merge, never AuRa-sealed.
        c.mix_hash.append_value(h.mix_hash);
        c.nonce.append_value(h.nonce.as_slice());
        c.aura_step.append_null();
        c.aura_seal.append_null();
        c.base_fee_per_gas.append(h.base_fee_per_gas);
        c.transaction_count
            .append_value(x.transactions.len() as u32);
        c.uncle_count.append_value(0);
        let body = body_rlp_len(x.transactions, x.withdrawals, h.withdrawals_root.is_some());
        c.size.append_value(block_rlp_len(raw.len(), body) as u64);
        c.chain_id.append_value(self.chain_id);
        c.withdrawals_root.append_option(h.withdrawals_root);
        c.blob_gas_used.append_option(h.cancun.map(|v| v.0));
        c.excess_blob_gas.append_option(h.cancun.map(|v| v.1));
        c.parent_beacon_block_root
            .append_option(h.cancun.map(|v| v.2));
        c.requests_hash.append_option(h.requests_hash);
        // Payloads stop at Gloas, whose bids carry no header: no payload has the Amsterdam fields.
        c.block_access_list_hash
            .append_option(h.amsterdam.map(|a| a.0));
        c.slot_number.append_option(h.amsterdam.map(|a| a.1));
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        self.c.finish_batch()
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
