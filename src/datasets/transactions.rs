//! `transactions`: one row per transaction with its receipt's fields, decoded straight from the zero-copy
//! `TxView` into Arrow builders. era1 blocks and era execution payloads share one row writer; era files carry
//! no receipts, so their receipt columns are null.

use super::columns::{u256_fields, U256Columns};
use super::{Dataset, DatasetBuilder, DatasetError, ExportContext};
use crate::crypto::signer::{SenderError, Signer};
use crate::execution::receipt::{Outcome, ReceiptView};
use crate::execution::transaction::TxView;
use crate::formats::Need;
use crate::verify::era::VerifiedBeaconBlock;
use crate::verify::execution::VerifiedBlock;
use alloy_primitives::U256;
use arrow_array::builder::{
    ArrayBuilder, BinaryBuilder, BooleanBuilder, ListBuilder, StringBuilder, StructBuilder,
    UInt32Builder, UInt64Builder, UInt8Builder,
};
use arrow_array::ArrayRef;
use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use std::sync::{Arc, LazyLock};

/// The `transactions` dataset.
pub struct Transactions;

fn access_list_fields() -> Fields {
    Fields::from(vec![
        Field::new("address", DataType::Binary, true),
        Field::new(
            "storage_keys",
            DataType::List(Arc::new(Field::new("item", DataType::Binary, true))),
            true,
        ),
    ])
}

fn authorization_fields() -> Fields {
    Fields::from(vec![
        Field::new("chain_id", DataType::UInt64, true),
        Field::new("address", DataType::Binary, true),
        Field::new("nonce", DataType::UInt64, true),
        Field::new("y_parity", DataType::UInt8, true),
        Field::new("r", DataType::Binary, true),
        Field::new("s", DataType::Binary, true),
        Field::new("authority", DataType::Binary, true),
    ])
}

fn list_of(dt: DataType) -> DataType {
    DataType::List(Arc::new(Field::new("item", dt, true)))
}

static SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    let mut f = vec![
        Field::new("block_number", DataType::UInt64, false),
        Field::new("transaction_index", DataType::UInt32, false),
        Field::new("transaction_hash", DataType::Binary, false),
        Field::new("nonce", DataType::UInt64, false),
        Field::new("from_address", DataType::Binary, true),
        Field::new("sender_error", DataType::Utf8, true),
        Field::new("to_address", DataType::Binary, true),
    ];
    f.extend(u256_fields("value", false));
    f.extend([
        Field::new("input", DataType::Binary, false),
        Field::new("gas_limit", DataType::UInt64, false),
    ]);
    f.extend(u256_fields("gas_price", false));
    f.extend(u256_fields("max_priority_fee_per_gas", true));
    f.extend(u256_fields("max_fee_per_gas", true));
    f.extend([
        Field::new("transaction_type", DataType::UInt8, false),
        Field::new("chain_id", DataType::UInt64, false),
        Field::new("signed_chain_id", DataType::UInt64, true),
        Field::new(
            "access_list",
            list_of(DataType::Struct(access_list_fields())),
            true,
        ),
        Field::new("r", DataType::Binary, false),
        Field::new("s", DataType::Binary, false),
        Field::new("signature_v", DataType::UInt64, false),
        Field::new("y_parity", DataType::Boolean, true),
        Field::new("success", DataType::Boolean, true),
        Field::new("post_state_root", DataType::Binary, true),
        Field::new("gas_used", DataType::UInt64, true),
        Field::new("cumulative_gas_used", DataType::UInt64, true),
        Field::new("n_input_bytes", DataType::UInt32, false),
        Field::new("n_input_zero_bytes", DataType::UInt32, false),
        Field::new("n_input_nonzero_bytes", DataType::UInt32, false),
        Field::new("n_rlp_bytes", DataType::UInt32, false),
        Field::new("block_hash", DataType::Binary, false),
        Field::new("timestamp", DataType::UInt64, false),
    ]);
    f.extend(u256_fields("max_fee_per_blob_gas", true));
    f.extend([
        Field::new("blob_versioned_hashes", list_of(DataType::Binary), true),
        Field::new(
            "authorization_list",
            list_of(DataType::Struct(authorization_fields())),
            true,
        ),
    ]);
    Arc::new(Schema::new(f))
});

impl Dataset for Transactions {
    fn name(&self) -> &'static str {
        "transactions"
    }
    fn schema(&self) -> SchemaRef {
        SCHEMA.clone()
    }
    fn needs_receipts(&self) -> bool {
        true
    }
    fn sort_columns(&self) -> &'static [&'static str] {
        &["block_number", "transaction_index"]
    }
    fn dictionary_columns(&self) -> &'static [&'static str] {
        &["from_address", "to_address"]
    }
    fn needs(&self) -> Need {
        Need::Blocks
    }
    fn builder(&self, ctx: ExportContext) -> Box<dyn DatasetBuilder> {
        Box::new(TxBuilder::new(ctx.signer, ctx.chain_id))
    }
}

struct TxBuilder {
    /// Recovers [EIP-7702](https://eips.ethereum.org/EIPS/eip-7702) authorities; `None` without senders.
    signer: Option<&'static Signer>,
    block_number: UInt64Builder,
    transaction_index: UInt32Builder,
    transaction_hash: BinaryBuilder,
    nonce: UInt64Builder,
    from_address: BinaryBuilder,
    sender_error: StringBuilder,
    to_address: BinaryBuilder,
    value: U256Columns,
    input: BinaryBuilder,
    gas_limit: UInt64Builder,
    gas_price: U256Columns,
    max_priority_fee_per_gas: U256Columns,
    max_fee_per_gas: U256Columns,
    transaction_type: UInt8Builder,
    /// The network's chain id, repeated on every row (as in cryo).
    network_chain_id: u64,
    chain_id: UInt64Builder,
    signed_chain_id: UInt64Builder,
    access_list: ListBuilder<StructBuilder>,
    r: BinaryBuilder,
    s: BinaryBuilder,
    signature_v: UInt64Builder,
    y_parity: BooleanBuilder,
    success: BooleanBuilder,
    post_state_root: BinaryBuilder,
    gas_used: UInt64Builder,
    cumulative_gas_used: UInt64Builder,
    n_input_bytes: UInt32Builder,
    n_input_zero_bytes: UInt32Builder,
    n_input_nonzero_bytes: UInt32Builder,
    n_rlp_bytes: UInt32Builder,
    block_hash: BinaryBuilder,
    timestamp: UInt64Builder,
    max_fee_per_blob_gas: U256Columns,
    blob_versioned_hashes: ListBuilder<BinaryBuilder>,
    authorization_list: ListBuilder<StructBuilder>,
}

impl TxBuilder {
    fn new(signer: Option<&'static Signer>, network_chain_id: u64) -> Self {
        let access_entry = StructBuilder::new(
            access_list_fields(),
            vec![
                Box::new(BinaryBuilder::new()) as Box<dyn ArrayBuilder>,
                Box::new(ListBuilder::new(BinaryBuilder::new())),
            ],
        );
        let auth_entry = StructBuilder::new(
            authorization_fields(),
            vec![
                Box::new(UInt64Builder::new()) as Box<dyn ArrayBuilder>,
                Box::new(BinaryBuilder::new()),
                Box::new(UInt64Builder::new()),
                Box::new(UInt8Builder::new()),
                Box::new(BinaryBuilder::new()),
                Box::new(BinaryBuilder::new()),
                Box::new(BinaryBuilder::new()),
            ],
        );
        TxBuilder {
            signer,
            block_number: Default::default(),
            transaction_index: Default::default(),
            transaction_hash: Default::default(),
            nonce: Default::default(),
            from_address: Default::default(),
            sender_error: Default::default(),
            to_address: Default::default(),
            value: Default::default(),
            input: Default::default(),
            gas_limit: Default::default(),
            gas_price: Default::default(),
            max_priority_fee_per_gas: Default::default(),
            max_fee_per_gas: Default::default(),
            transaction_type: Default::default(),
            network_chain_id,
            chain_id: Default::default(),
            signed_chain_id: Default::default(),
            access_list: ListBuilder::new(access_entry),
            r: Default::default(),
            s: Default::default(),
            signature_v: Default::default(),
            y_parity: Default::default(),
            success: Default::default(),
            post_state_root: Default::default(),
            gas_used: Default::default(),
            cumulative_gas_used: Default::default(),
            n_input_bytes: Default::default(),
            n_input_zero_bytes: Default::default(),
            n_input_nonzero_bytes: Default::default(),
            n_rlp_bytes: Default::default(),
            block_hash: Default::default(),
            timestamp: Default::default(),
            max_fee_per_blob_gas: Default::default(),
            blob_versioned_hashes: ListBuilder::new(BinaryBuilder::new()),
            authorization_list: ListBuilder::new(auth_entry),
        }
    }
}

/// Left-pads a minimal big-endian integer to 32 bytes (r and s are stored fixed-width for easy comparison).
fn pad32(b: &[u8]) -> [u8; 32] {
    let mut out = [0u8; 32];
    let n = b.len().min(32);
    out[32 - n..].copy_from_slice(&b[b.len() - n..]);
    out
}

/// The block facts every transaction row repeats.
struct BlockInfo<'b> {
    number: u64,
    hash: [u8; 32],
    base_fee: Option<U256>,
    timestamp: u64,
    transactions: &'b [TxView<'b>],
    senders: &'b [Result<[u8; 20], SenderError>],
    /// Empty for era-sourced blocks (no receipts in era files): the receipt columns are then null.
    receipts: &'b [ReceiptView<'b>],
}

impl TxBuilder {
    fn add_rows(&mut self, b: BlockInfo<'_>) {
        let block_hash = b.hash;
        let base_fee = b.base_fee;
        let mut prev_cumulative = 0u64;
        for (i, tx) in b.transactions.iter().enumerate() {
            self.block_number.append_value(b.number);
            self.transaction_index.append_value(i as u32);
            self.transaction_hash.append_value(tx.hash());
            self.nonce.append_value(tx.nonce());
            match b.senders.get(i) {
                Some(Ok(addr)) => {
                    self.from_address.append_value(addr);
                    self.sender_error.append_null();
                }
                Some(Err(e)) => {
                    self.from_address.append_null();
                    self.sender_error.append_value(e.name());
                }
                None => {
                    self.from_address.append_null();
                    self.sender_error.append_null();
                }
            }
            self.to_address.append_option(tx.to());
            self.value.append(Some(tx.value()));
            let input = tx.input();
            self.input.append_value(input);
            self.gas_limit.append_value(tx.gas_limit());
            self.max_priority_fee_per_gas
                .append(tx.max_priority_fee_per_gas());
            self.max_fee_per_gas.append(tx.max_fee_per_gas());
            // EIP-1559: min(max_fee, base_fee + max_priority_fee); legacy and 2930 pay their gas price.
            let effective = match (
                tx.gas_price(),
                tx.max_fee_per_gas(),
                tx.max_priority_fee_per_gas(),
            ) {
                (Some(p), _, _) => p,
                (None, Some(max), Some(tip)) => {
                    max.min(base_fee.unwrap_or(U256::ZERO).saturating_add(tip))
                }
                _ => U256::ZERO,
            };
            // As in cryo (and the RPC's `gasPrice` of a mined transaction): the price actually paid per gas.
            self.gas_price.append(Some(effective));
            self.transaction_type.append_value(tx.tx_type());
            self.chain_id.append_value(self.network_chain_id);
            self.signed_chain_id.append_option(tx.chain_id());
            if tx.tx_type() >= 1 {
                for (addr, keys) in tx.access_list() {
                    let entry = self.access_list.values();
                    if let Some(f) = entry.field_builder::<BinaryBuilder>(0) {
                        f.append_value(addr);
                    }
                    if let Some(kb) = entry.field_builder::<ListBuilder<BinaryBuilder>>(1) {
                        for k in keys {
                            kb.values().append_value(k);
                        }
                        kb.append(true);
                    }
                    entry.append(true);
                }
                self.access_list.append(true);
            } else {
                self.access_list.append_null();
            }
            self.r.append_value(pad32(tx.r()));
            self.s.append_value(pad32(tx.s()));
            self.signature_v.append_value(tx.v());
            self.y_parity.append_option(tx.y_parity());
            match b.receipts.get(i) {
                Some(r) => {
                    match r.outcome() {
                        Outcome::Status(ok) => {
                            self.success.append_value(ok);
                            self.post_state_root.append_null();
                        }
                        Outcome::PostState(root) => {
                            self.success.append_null();
                            self.post_state_root.append_value(root);
                        }
                    }
                    let cumulative = r.cumulative_gas_used();
                    self.gas_used
                        .append_value(cumulative.saturating_sub(prev_cumulative));
                    self.cumulative_gas_used.append_value(cumulative);
                    prev_cumulative = cumulative;
                }
                None => {
                    self.success.append_null();
                    self.post_state_root.append_null();
                    self.gas_used.append_null();
                    self.cumulative_gas_used.append_null();
                }
            }
            let zeros = input.iter().filter(|&&x| x == 0).count() as u32;
            self.n_input_bytes.append_value(input.len() as u32);
            self.n_input_zero_bytes.append_value(zeros);
            self.n_input_nonzero_bytes
                .append_value(input.len() as u32 - zeros);
            self.n_rlp_bytes.append_value(tx.canonical().len() as u32);
            self.block_hash.append_value(block_hash);
            self.timestamp.append_value(b.timestamp);
            self.max_fee_per_blob_gas.append(tx.max_fee_per_blob_gas());
            if tx.tx_type() == 3 {
                for h in tx.blob_versioned_hashes() {
                    self.blob_versioned_hashes.values().append_value(h);
                }
                self.blob_versioned_hashes.append(true);
            } else {
                self.blob_versioned_hashes.append_null();
            }
            if tx.tx_type() == 4 {
                for a in tx.authorizations() {
                    let e = self.authorization_list.values();
                    let chain = (a.chain_id.len() <= 8)
                        .then(|| a.chain_id.iter().fold(0u64, |x, b| (x << 8) | *b as u64));
                    if let Some(f) = e.field_builder::<UInt64Builder>(0) {
                        f.append_option(chain);
                    }
                    if let Some(f) = e.field_builder::<BinaryBuilder>(1) {
                        f.append_value(a.address);
                    }
                    if let Some(f) = e.field_builder::<UInt64Builder>(2) {
                        f.append_value(a.nonce);
                    }
                    if let Some(f) = e.field_builder::<UInt8Builder>(3) {
                        f.append_value(a.y_parity);
                    }
                    if let Some(f) = e.field_builder::<BinaryBuilder>(4) {
                        f.append_value(pad32(a.r));
                    }
                    if let Some(f) = e.field_builder::<BinaryBuilder>(5) {
                        f.append_value(pad32(a.s));
                    }
                    // Recovered with the process signer when senders are exported; an authorization whose
                    // signature does not recover is skipped on chain (EIP-7702), so its authority stays null.
                    let authority = self.signer.and_then(|s| s.recover_authority(&a).ok());
                    if let Some(f) = e.field_builder::<BinaryBuilder>(6) {
                        f.append_option(authority);
                    }
                    e.append(true);
                }
                self.authorization_list.append(true);
            } else {
                self.authorization_list.append_null();
            }
        }
    }
}

impl DatasetBuilder for TxBuilder {
    fn add_block(&mut self, b: &VerifiedBlock<'_>) {
        self.add_rows(BlockInfo {
            number: b.number,
            hash: b.header.hash().0,
            base_fee: b.header.base_fee_per_gas(),
            timestamp: b.header.timestamp(),
            transactions: b.transactions,
            senders: b.senders,
            receipts: b.receipts,
        });
    }

    fn add_beacon_block(&mut self, b: &VerifiedBeaconBlock<'_>) -> Result<(), DatasetError> {
        if let Some(x) = &b.execution {
            self.add_rows(BlockInfo {
                number: x.header.number,
                hash: x.block_hash.0,
                base_fee: x.header.base_fee_per_gas,
                timestamp: x.header.timestamp,
                transactions: x.transactions,
                senders: x.senders,
                receipts: &[],
            });
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        let s = &mut *self;
        let [v0, v1, v2] = std::mem::take(&mut s.value).finish();
        let [g0, g1, g2] = std::mem::take(&mut s.gas_price).finish();
        let [p0, p1, p2] = std::mem::take(&mut s.max_priority_fee_per_gas).finish();
        let [m0, m1, m2] = std::mem::take(&mut s.max_fee_per_gas).finish();
        let [x0, x1, x2] = std::mem::take(&mut s.max_fee_per_blob_gas).finish();
        let cols: Vec<ArrayRef> = vec![
            Arc::new(s.block_number.finish()),
            Arc::new(s.transaction_index.finish()),
            Arc::new(s.transaction_hash.finish()),
            Arc::new(s.nonce.finish()),
            Arc::new(s.from_address.finish()),
            Arc::new(s.sender_error.finish()),
            Arc::new(s.to_address.finish()),
            v0,
            v1,
            v2,
            Arc::new(s.input.finish()),
            Arc::new(s.gas_limit.finish()),
            g0,
            g1,
            g2,
            p0,
            p1,
            p2,
            m0,
            m1,
            m2,
            Arc::new(s.transaction_type.finish()),
            Arc::new(s.chain_id.finish()),
            Arc::new(s.signed_chain_id.finish()),
            Arc::new(s.access_list.finish()),
            Arc::new(s.r.finish()),
            Arc::new(s.s.finish()),
            Arc::new(s.signature_v.finish()),
            Arc::new(s.y_parity.finish()),
            Arc::new(s.success.finish()),
            Arc::new(s.post_state_root.finish()),
            Arc::new(s.gas_used.finish()),
            Arc::new(s.cumulative_gas_used.finish()),
            Arc::new(s.n_input_bytes.finish()),
            Arc::new(s.n_input_zero_bytes.finish()),
            Arc::new(s.n_input_nonzero_bytes.finish()),
            Arc::new(s.n_rlp_bytes.finish()),
            Arc::new(s.block_hash.finish()),
            Arc::new(s.timestamp.finish()),
            x0,
            x1,
            x2,
            Arc::new(s.blob_versioned_hashes.finish()),
            Arc::new(s.authorization_list.finish()),
        ];
        RecordBatch::try_new(SCHEMA.clone(), cols).expect("transactions columns match the schema")
    }
}
