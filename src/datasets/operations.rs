//! What the block-operation datasets share: their key columns and the item lists they read.
//!
//! Each operation dataset (`attestations`, `deposits`, `deposit_requests`, `withdrawal_requests`,
//! `consolidation_requests`, `voluntary_exits`, `proposer_slashings`, `attester_slashings`,
//! `bls_to_execution_changes`, `blob_commitments`) has one row per item of a verified beacon block, and starts
//! with the same three columns: `slot`, `block_root` (the block's verified root, join key to `beacon_blocks`)
//! and `index_in_block` (the item's position in its body list), and is sorted by them: the group
//! [`KeyColumns`], declared `key: KeyColumns [sort]` first in each column list. `sync_aggregates` has one
//! row per block (a block has one aggregate), so it has no `index_in_block`.

use super::table::{ColumnGroup, Roles, Spec};
use super::DatasetError;
use crate::consensus::operations::{DepositData, ExecutionRequests};
use crate::verify::era::VerifiedBeaconBlock;
use arrow_array::builder::{BinaryBuilder, UInt32Builder, UInt64Builder};
use arrow_array::ArrayRef;
use arrow_schema::{DataType, Field};

/// Builders of the key columns `slot`, `block_root` and `index_in_block` (whatever the entry's name).
#[derive(Default)]
pub struct KeyColumns {
    slot: UInt64Builder,
    block_root: BinaryBuilder,
    index_in_block: UInt32Builder,
}

impl KeyColumns {
    /// Appends the key of item `index` of block `b`.
    pub fn append(&mut self, b: &VerifiedBeaconBlock<'_>, index: usize) {
        self.slot.append_value(b.slot);
        self.block_root.append_value(b.root);
        self.index_in_block.append_value(index as u32);
    }
}

impl ColumnGroup for KeyColumns {
    fn fields(_: &'static str, _: Spec) -> Vec<Field> {
        vec![
            Field::new("slot", DataType::UInt64, false),
            Field::new("block_root", DataType::Binary, false),
            Field::new("index_in_block", DataType::UInt32, false),
        ]
    }

    /// `sort` orders by slot, then index in the block; `dictionary` and `repeated` apply to `block_root`.
    fn roles(_: &'static str, spec: Spec, roles: &mut Roles) {
        if spec.sort {
            roles.sort.extend(["slot", "index_in_block"]);
        }
        if spec.dictionary {
            roles.dictionary.push("block_root");
        }
        if spec.repeated {
            roles.repeated.push("block_root");
        }
    }

    fn finish_into(&mut self, out: &mut Vec<ArrayRef>) {
        self.slot.finish_into(out);
        self.block_root.finish_into(out);
        self.index_in_block.finish_into(out);
    }
}

/// Builders of a deposit's data columns `pubkey`, `withdrawal_credentials`, `amount_gwei` and `signature`, shared
/// by `deposits` (the Eth1 bridge) and `deposit_requests` (Electra), whose rows carry the same `DepositData`.
#[derive(Default)]
pub struct DepositDataColumns {
    pubkey: BinaryBuilder,
    withdrawal_credentials: BinaryBuilder,
    amount_gwei: UInt64Builder,
    signature: BinaryBuilder,
}

impl DepositDataColumns {
    /// Appends the data of one deposit.
    pub fn append(&mut self, d: &DepositData<'_>) {
        self.pubkey.append_value(d.pubkey());
        self.withdrawal_credentials
            .append_value(d.withdrawal_credentials());
        self.amount_gwei.append_value(d.amount());
        self.signature.append_value(d.signature());
    }
}

impl ColumnGroup for DepositDataColumns {
    fn fields(_: &'static str, _: Spec) -> Vec<Field> {
        vec![
            Field::new("pubkey", DataType::Binary, false),
            Field::new("withdrawal_credentials", DataType::Binary, false),
            Field::new("amount_gwei", DataType::UInt64, false),
            Field::new("signature", DataType::Binary, false),
        ]
    }

    /// `dictionary` applies to `withdrawal_credentials` (an operator's deposits share one).
    fn roles(_: &'static str, spec: Spec, roles: &mut Roles) {
        if spec.dictionary {
            roles.dictionary.push("withdrawal_credentials");
        }
    }

    fn finish_into(&mut self, out: &mut Vec<ArrayRef>) {
        self.pubkey.finish_into(out);
        self.withdrawal_credentials.finish_into(out);
        self.amount_gwei.finish_into(out);
        self.signature.finish_into(out);
    }
}

/// The Electra execution requests of block `b` (empty lists before Electra), read for `dataset`'s rows.
pub fn execution_requests<'a>(
    b: &VerifiedBeaconBlock<'a>,
    dataset: &'static str,
) -> Result<ExecutionRequests<'a>, DatasetError> {
    let requests = b
        .body
        .execution_request_lists()
        .unwrap_or(Ok(Default::default()));
    requests.map_err(DatasetError::ssz(dataset, b.slot, "execution_requests"))
}
