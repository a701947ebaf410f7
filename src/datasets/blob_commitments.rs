//! `blob_commitments`: one row per blob KZG commitment of a beacon block (era files, Deneb on), with its
//! versioned hash `0x01 || sha256(commitment)[1..]` ([EIP-4844](https://eips.ethereum.org/EIPS/eip-4844)), the
//! join key to `transactions.blob_versioned_hashes`. Verification checked that the block's blob transactions
//! carry exactly these hashes, in order.

use super::operations::{key_fields, KeyColumns, KEY_SORT};
use super::{DatasetBuilder, DatasetError};
use crate::verify::era::VerifiedBeaconBlock;
use crate::verify::payload::versioned_hash;
use arrow_array::builder::{BinaryBuilder, UInt64Builder};
use arrow_array::ArrayRef;
use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use std::sync::{Arc, LazyLock};

/// The `blob_commitments` dataset.
pub struct BlobCommitments;

static SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    let mut f = key_fields().to_vec();
    f.extend([
        Field::new("kzg_commitment", DataType::Binary, false),
        Field::new("versioned_hash", DataType::Binary, false),
        Field::new("execution_block_number", DataType::UInt64, true),
        Field::new("execution_block_hash", DataType::Binary, true),
    ]);
    Arc::new(Schema::new(f))
});

era_dataset!(BlobCommitments, "blob_commitments", BlobCommitmentsBuilder, sort: &KEY_SORT, dictionary: &[]);

#[derive(Default)]
struct BlobCommitmentsBuilder {
    key: KeyColumns,
    kzg_commitment: BinaryBuilder,
    versioned_hash: BinaryBuilder,
    execution_block_number: UInt64Builder,
    execution_block_hash: BinaryBuilder,
}

impl DatasetBuilder for BlobCommitmentsBuilder {
    fn add_beacon_block(&mut self, b: &VerifiedBeaconBlock<'_>) -> Result<(), DatasetError> {
        let err = || DatasetError::ssz("blob_commitments", b.slot, "blob_kzg_commitments");
        let list = b.body.blob_kzg_commitment_list().map_err(err())?;
        for (i, c) in list.iter().enumerate() {
            self.key.append(b, i);
            self.kzg_commitment.append_value(c);
            self.versioned_hash.append_value(versioned_hash(c));
            self.execution_block_number
                .append_option(b.execution.as_ref().map(|x| x.header.number));
            self.execution_block_hash
                .append_option(b.execution.as_ref().map(|x| x.block_hash));
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        let s = &mut *self;
        let mut cols: Vec<ArrayRef> = s.key.finish().to_vec();
        cols.extend([
            Arc::new(s.kzg_commitment.finish()) as ArrayRef,
            Arc::new(s.versioned_hash.finish()),
            Arc::new(s.execution_block_number.finish()),
            Arc::new(s.execution_block_hash.finish()),
        ]);
        // Columns match SCHEMA by construction; a mismatch is a bug caught by the dataset tests.
        RecordBatch::try_new(SCHEMA.clone(), cols)
            .expect("blob_commitments columns match the schema")
    }
}
