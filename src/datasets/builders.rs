//! `builders`: one row per builder of a Gloas era file's BeaconState ([EIP-7732](https://eips.ethereum.org/EIPS/eip-7732)):
//! the registry of the builders whose bids blocks carry, with balances, every 8192 slots (era files, Gloas on).
//!
//! Opt-in like `validators` (it reads the state). A registry of builders is small (hundreds, not millions), so
//! all of it comes with the state's first chunk of validators.

use super::table::Columns;
use super::{DatasetBuilder, DatasetError};
use crate::verify::era::VerifiedState;
use arrow_array::builder::{BinaryBuilder, UInt64Builder, UInt8Builder};
use arrow_array::RecordBatch;
use std::ops::Range;

/// The `builders` dataset.
pub struct Builders;

// Era files only: their BeaconState.
dataset!(Builders, "builders", BuildersColumns, State);

columns! {
    struct BuildersColumns {
        slot: UInt64Builder [sort],
        era: UInt64Builder,
        builder_index: UInt64Builder [sort],
        pubkey: BinaryBuilder,
        version: UInt8Builder,
        execution_address: BinaryBuilder,
        balance: UInt64Builder,
        deposit_epoch: UInt64Builder [wide],
        withdrawable_epoch: UInt64Builder [wide],
    }
}

/// A little-endian u64 of a builder record at `at` (the state's lists were validated when it was hashed).
fn u64_at(b: &[u8], at: usize) -> u64 {
    crate::consensus::ssz::read_u64(b, at).unwrap_or_default()
}

impl DatasetBuilder for BuildersColumns {
    fn add_state(
        &mut self,
        s: &VerifiedState<'_>,
        range: Range<usize>,
    ) -> Result<(), DatasetError> {
        if range.start != 0 {
            return Ok(());
        }
        let builders = s
            .state
            .builders()
            .map_err(DatasetError::ssz("builders", s.slot, "builders"))?;
        for (i, b) in builders.iter().enumerate() {
            self.slot.append_value(s.slot);
            self.era.append_value(s.era);
            self.builder_index.append_value(i as u64);
            self.pubkey.append_value(b.get(..48).unwrap_or_default());
            self.version
                .append_value(b.get(48).copied().unwrap_or_default());
            self.execution_address
                .append_value(b.get(49..69).unwrap_or_default());
            self.balance.append_value(u64_at(b, 69));
            self.deposit_epoch.append_value(u64_at(b, 77));
            self.withdrawable_epoch.append_value(u64_at(b, 85));
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        self.finish_batch()
    }
}
