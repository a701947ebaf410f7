//! `transactions`: one row per transaction with its receipt's fields, decoded straight from the zero-copy
//! `TxView` into Arrow builders. era1 blocks and era execution payloads share one row writer; era files carry
//! no receipts, so their receipt columns are null.

use super::columns::{FeeColumns, U256Columns};
use super::table::{ColumnGroup, Columns, Spec, Table};
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
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Fields};
use std::sync::Arc;

/// The `transactions` dataset.
pub struct Transactions;

impl Dataset for Transactions {
    fn name(&self) -> &'static str {
        "transactions"
    }
    fn table(&self) -> &'static Table {
        TxColumns::table()
    }
    /// Each row's `success`, `post_state_root` and gas used come from its receipt.
    fn needs_receipts(&self) -> bool {
        true
    }
    /// `from_address` and `sender_error`, and each 7702 authorization's `authority`.
    fn uses_senders(&self) -> bool {
        true
    }
    fn needs(&self) -> Need {
        Need::Blocks
    }
    fn builder(&self, ctx: ExportContext) -> Box<dyn DatasetBuilder> {
        Box::new(TxBuilder {
            signer: ctx.signer,
            network_chain_id: ctx.chain_id,
            c: TxColumns::default(),
        })
    }
}

columns! {
    struct TxColumns {
        block_number: UInt64Builder [sort],
        transaction_index: UInt64Builder [sort],
        transaction_hash: BinaryBuilder,
        nonce: UInt64Builder,
        from_address: BinaryBuilder [nullable, dictionary],
        sender_error: StringBuilder [nullable],
        to_address: BinaryBuilder [nullable, dictionary],
        value: U256Columns,
        input: BinaryBuilder,
        gas_limit: UInt64Builder,
        gas_price: FeeColumns,
        max_priority_fee_per_gas: FeeColumns [nullable],
        max_fee_per_gas: FeeColumns [nullable],
        transaction_type: UInt32Builder,
        chain_id: UInt64Builder,
        signed_chain_id: UInt64Builder [nullable],
        access_list: AccessListColumn [nullable],
        r: BinaryBuilder,
        s: BinaryBuilder,
        signature_v: UInt64Builder,
        y_parity: BooleanBuilder [nullable],
        success: BooleanBuilder [nullable],
        post_state_root: BinaryBuilder [nullable],
        gas_used: UInt64Builder [nullable],
        cumulative_gas_used: UInt64Builder [nullable],
        n_input_bytes: UInt32Builder,
        n_input_zero_bytes: UInt32Builder,
        n_input_nonzero_bytes: UInt32Builder,
        n_rlp_bytes: UInt32Builder,
        block_hash: BinaryBuilder,
        timestamp: UInt64Builder,
        max_fee_per_blob_gas: U256Columns [nullable],
        blob_versioned_hashes: ListBuilder<BinaryBuilder> [nullable],
        authorization_list: AuthorizationListColumn [nullable],
    }
}

struct TxBuilder {
    /// Recovers [EIP-7702](https://eips.ethereum.org/EIPS/eip-7702) authorities; `None` without senders.
    signer: Option<&'static Signer>,
    /// The network's chain id, repeated on every row (as in cryo).
    network_chain_id: u64,
    c: TxColumns,
}

/// A `list<item>` type whose items may be null.
fn list_of(item: DataType) -> DataType {
    DataType::List(Arc::new(Field::new("item", item, true)))
}

/// The `access_list` column: per transaction (type 1 on), a list of `{address, storage_keys}`.
struct AccessListColumn(ListBuilder<StructBuilder>);

impl AccessListColumn {
    fn entry_fields() -> Fields {
        Fields::from(vec![
            Field::new("address", DataType::Binary, true),
            Field::new("storage_keys", list_of(DataType::Binary), true),
        ])
    }

    /// Appends `tx`'s access list (null for a legacy transaction, which has none).
    fn append(&mut self, tx: &TxView<'_>) {
        if tx.tx_type() == 0 {
            self.0.append_null();
            return;
        }
        for (addr, keys) in tx.access_list() {
            let entry = self.0.values();
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
        self.0.append(true);
    }
}

impl Default for AccessListColumn {
    fn default() -> Self {
        let entry = StructBuilder::new(
            Self::entry_fields(),
            vec![
                Box::new(BinaryBuilder::new()) as Box<dyn ArrayBuilder>,
                Box::new(ListBuilder::new(BinaryBuilder::new())),
            ],
        );
        AccessListColumn(ListBuilder::new(entry))
    }
}

impl ColumnGroup for AccessListColumn {
    fn fields(name: &'static str, spec: Spec) -> Vec<Field> {
        let entry = DataType::Struct(Self::entry_fields());
        vec![Field::new(name, list_of(entry), spec.nullable)]
    }

    fn finish_into(&mut self, out: &mut Vec<ArrayRef>) {
        out.push(Arc::new(self.0.finish()));
    }
}

/// The `authorization_list` column: per type-4 transaction
/// ([EIP-7702](https://eips.ethereum.org/EIPS/eip-7702)), its signed authorizations and their recovered
/// authorities.
struct AuthorizationListColumn(ListBuilder<StructBuilder>);

impl AuthorizationListColumn {
    fn entry_fields() -> Fields {
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

    /// Appends `tx`'s authorizations (null unless it is of type 4), recovering authorities with `signer`.
    fn append(&mut self, tx: &TxView<'_>, signer: Option<&Signer>) {
        if tx.tx_type() != 4 {
            self.0.append_null();
            return;
        }
        for a in tx.authorizations() {
            let e = self.0.values();
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
            let authority = signer.and_then(|s| s.recover_authority(&a).ok());
            if let Some(f) = e.field_builder::<BinaryBuilder>(6) {
                f.append_option(authority);
            }
            e.append(true);
        }
        self.0.append(true);
    }
}

impl Default for AuthorizationListColumn {
    fn default() -> Self {
        let entry = StructBuilder::new(
            Self::entry_fields(),
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
        AuthorizationListColumn(ListBuilder::new(entry))
    }
}

impl ColumnGroup for AuthorizationListColumn {
    fn fields(name: &'static str, spec: Spec) -> Vec<Field> {
        let entry = DataType::Struct(Self::entry_fields());
        vec![Field::new(name, list_of(entry), spec.nullable)]
    }

    fn finish_into(&mut self, out: &mut Vec<ArrayRef>) {
        out.push(Arc::new(self.0.finish()));
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
    /// The hash of transaction `i` (an execution block's are shared by its datasets).
    tx_hash: &'b dyn Fn(usize) -> [u8; 32],
    senders: &'b [Result<[u8; 20], SenderError>],
    /// Empty for era-sourced blocks (no receipts in era files): the receipt columns are then null.
    receipts: &'b [ReceiptView<'b>],
}

impl TxBuilder {
    fn add_rows(&mut self, b: BlockInfo<'_>) {
        let block_hash = b.hash;
        let base_fee = b.base_fee;
        let mut prev_cumulative = 0u64;
        let c = &mut self.c;
        for (i, tx) in b.transactions.iter().enumerate() {
            c.block_number.append_value(b.number);
            c.transaction_index.append_value(i as u64);
            c.transaction_hash.append_value((b.tx_hash)(i));
            c.nonce.append_value(tx.nonce());
            match b.senders.get(i) {
                Some(Ok(addr)) => {
                    c.from_address.append_value(addr);
                    c.sender_error.append_null();
                }
                Some(Err(e)) => {
                    c.from_address.append_null();
                    c.sender_error.append_value(e.name());
                }
                None => {
                    c.from_address.append_null();
                    c.sender_error.append_null();
                }
            }
            c.to_address.append_option(tx.to());
            c.value.append(Some(tx.value()));
            let input = tx.input();
            c.input.append_value(input);
            c.gas_limit.append_value(tx.gas_limit());
            c.max_priority_fee_per_gas
                .append(tx.max_priority_fee_per_gas());
            c.max_fee_per_gas.append(tx.max_fee_per_gas());
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
            c.gas_price.append(Some(effective));
            c.transaction_type.append_value(u32::from(tx.tx_type()));
            c.chain_id.append_value(self.network_chain_id);
            c.signed_chain_id.append_option(tx.chain_id());
            c.access_list.append(tx);
            c.r.append_value(pad32(tx.r()));
            c.s.append_value(pad32(tx.s()));
            c.signature_v.append_value(tx.v());
            c.y_parity.append_option(tx.y_parity());
            match b.receipts.get(i) {
                Some(r) => {
                    match r.outcome() {
                        Outcome::Status(ok) => {
                            c.success.append_value(ok);
                            c.post_state_root.append_null();
                        }
                        Outcome::PostState(root) => {
                            c.success.append_null();
                            c.post_state_root.append_value(root);
                        }
                    }
                    let cumulative = r.cumulative_gas_used();
                    c.gas_used
                        .append_value(cumulative.saturating_sub(prev_cumulative));
                    c.cumulative_gas_used.append_value(cumulative);
                    prev_cumulative = cumulative;
                }
                None => {
                    c.success.append_null();
                    c.post_state_root.append_null();
                    c.gas_used.append_null();
                    c.cumulative_gas_used.append_null();
                }
            }
            let zeros = input.iter().filter(|&&x| x == 0).count() as u32;
            c.n_input_bytes.append_value(input.len() as u32);
            c.n_input_zero_bytes.append_value(zeros);
            c.n_input_nonzero_bytes
                .append_value(input.len() as u32 - zeros);
            c.n_rlp_bytes.append_value(tx.canonical().len() as u32);
            c.block_hash.append_value(block_hash);
            c.timestamp.append_value(b.timestamp);
            c.max_fee_per_blob_gas.append(tx.max_fee_per_blob_gas());
            if tx.tx_type() == 3 {
                for h in tx.blob_versioned_hashes() {
                    c.blob_versioned_hashes.values().append_value(h);
                }
                c.blob_versioned_hashes.append(true);
            } else {
                c.blob_versioned_hashes.append_null();
            }
            c.authorization_list.append(tx, self.signer);
        }
    }
}

impl DatasetBuilder for TxBuilder {
    fn add_block(&mut self, b: &VerifiedBlock<'_>) {
        self.add_rows(BlockInfo {
            number: b.number,
            hash: b.hash,
            base_fee: b.header.base_fee_per_gas(),
            timestamp: b.header.timestamp(),
            transactions: b.transactions,
            tx_hash: &|i| b.tx_hash(i),
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
                tx_hash: &|i| x.transactions[i].hash().0,
                senders: x.senders,
                receipts: &[],
            });
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        self.c.finish_batch()
    }
}
