//! `contracts`: one row per successful top-level contract creation (a transaction with no `to`): the address
//! it created, `keccak256(rlp([sender, nonce]))[12:]`, its deployer (the recovered sender), and its init code's
//! hash and length. Contracts created by contracts (CREATE, CREATE2 inside a call) appear only in execution
//! traces, which archives do not hold.
//!
//! Success is the receipt's status from Byzantium on. Receipts before Byzantium hold a post-state root instead;
//! there a creation counts as successful when it used less gas than its limit: a failed creation (out of gas,
//! bad code, a throw) consumes all its gas, while a successful one refunds what is left.
//!
//! The deployer is the recovered sender, so the dataset needs senders: export refuses it with `--no-senders`
//! (`senders = false`). A creation whose sender does not recover gives no row.

use super::table::{Columns, Table};
use super::{Dataset, DatasetBuilder, ExportContext};
use crate::crypto::keccak::keccak256;
use crate::execution::receipt::Outcome;
use crate::formats::Need;
use crate::verify::execution::VerifiedBlock;
use alloy_primitives::Address;
use arrow_array::builder::{BinaryBuilder, UInt32Builder, UInt64Builder};
use arrow_array::RecordBatch;

/// The `contracts` dataset.
pub struct Contracts;

impl Dataset for Contracts {
    fn name(&self) -> &'static str {
        "contracts"
    }
    fn table(&self) -> &'static Table {
        ContractColumns::table()
    }
    fn needs(&self) -> Need {
        // Success needs the receipt (era files carry none).
        Need::Receipts
    }
    fn needs_receipts(&self) -> bool {
        true
    }
    fn needs_senders(&self) -> bool {
        true
    }
    fn builder(&self, ctx: ExportContext) -> Box<dyn DatasetBuilder> {
        Box::new(ContractsBuilder {
            chain_id: ctx.chain_id,
            c: ContractColumns::default(),
        })
    }
}

columns! {
    struct ContractColumns {
        block_number: UInt64Builder [sort],
        block_hash: BinaryBuilder,
        timestamp: UInt64Builder,
        transaction_index: UInt32Builder [sort],
        transaction_hash: BinaryBuilder,
        contract_address: BinaryBuilder,
        deployer: BinaryBuilder [dictionary],
        nonce: UInt64Builder,
        init_code_hash: BinaryBuilder,
        n_init_code_bytes: UInt32Builder,
        gas_used: UInt64Builder,
        chain_id: UInt64Builder,
    }
}

struct ContractsBuilder {
    chain_id: u64,
    c: ContractColumns,
}

impl DatasetBuilder for ContractsBuilder {
    fn add_block(&mut self, b: &VerifiedBlock<'_>) {
        let c = &mut self.c;
        let mut prev_cumulative = 0u64;
        let mut block_hash = None;
        for (i, (tx, r)) in b.transactions.iter().zip(b.receipts).enumerate() {
            let cumulative = r.cumulative_gas_used();
            let gas_used = cumulative.saturating_sub(prev_cumulative);
            prev_cumulative = cumulative;
            if tx.to().is_some() {
                continue;
            }
            let success = match r.outcome() {
                Outcome::Status(ok) => ok,
                // Before Byzantium: a failed creation consumes all its gas.
                Outcome::PostState(_) => gas_used < tx.gas_limit(),
            };
            let Some(Ok(sender)) = b.senders.get(i) else {
                continue;
            };
            if !success {
                continue;
            }
            let deployer = Address::from(*sender);
            let input = tx.input();
            c.block_number.append_value(b.number);
            c.block_hash.append_value(block_hash.get_or_insert(b.hash));
            c.timestamp.append_value(b.header.timestamp());
            c.transaction_index.append_value(i as u32);
            c.transaction_hash.append_value(b.tx_hash(i));
            c.contract_address.append_value(deployer.create(tx.nonce()));
            c.deployer.append_value(sender);
            c.nonce.append_value(tx.nonce());
            c.init_code_hash.append_value(keccak256(input));
            c.n_init_code_bytes.append_value(input.len() as u32);
            c.gas_used.append_value(gas_used);
            c.chain_id.append_value(self.chain_id);
        }
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        self.c.finish_batch()
    }
}
