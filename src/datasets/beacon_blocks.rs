//! `beacon_blocks`: one row per beacon block of an era file (empty slots have none), with its roots (checked
//! against the era state), the execution block it carries after the merge, and the operation counts of its
//! body, so consensus-layer activity can be joined to execution rows by `execution_block_hash`.

use super::{Dataset, DatasetBuilder, DatasetError, ExportContext};
use crate::consensus::SszError;
use crate::formats::Need;
use crate::verify::era::VerifiedBeaconBlock;
use arrow_array::builder::{BinaryBuilder, StringBuilder, UInt32Builder, UInt64Builder};
use arrow_array::ArrayRef;
use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use std::sync::{Arc, LazyLock};

/// The `beacon_blocks` dataset.
pub struct BeaconBlocks;

/// The body's counted operation lists, in column order.
const COUNTS: [&str; 7] = [
    "attestation_count",
    "deposit_count",
    "voluntary_exit_count",
    "proposer_slashing_count",
    "attester_slashing_count",
    "bls_to_execution_change_count",
    "blob_kzg_commitment_count",
];

static SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    let mut f = vec![
        Field::new("slot", DataType::UInt64, false),
        Field::new("proposer_index", DataType::UInt64, false),
        Field::new("block_root", DataType::Binary, false),
        Field::new("parent_root", DataType::Binary, false),
        Field::new("state_root", DataType::Binary, false),
        Field::new("execution_block_number", DataType::UInt64, true),
        Field::new("execution_block_hash", DataType::Binary, true),
    ];
    f.extend(
        COUNTS
            .iter()
            .map(|n| Field::new(*n, DataType::UInt32, false)),
    );
    f.extend([
        Field::new("graffiti", DataType::Binary, false),
        Field::new("fork", DataType::Utf8, false),
    ]);
    Arc::new(Schema::new(f))
});

impl Dataset for BeaconBlocks {
    fn name(&self) -> &'static str {
        "beacon_blocks"
    }
    fn schema(&self) -> SchemaRef {
        SCHEMA.clone()
    }
    fn needs_receipts(&self) -> bool {
        false
    }
    /// Era files only: era1 files hold no beacon blocks.
    fn sort_columns(&self) -> &'static [&'static str] {
        &["slot"]
    }
    fn needs(&self) -> Need {
        Need::BeaconBlocks
    }
    fn builder(&self, _: ExportContext) -> Box<dyn DatasetBuilder> {
        Box::<BeaconBlocksBuilder>::default()
    }
}

#[derive(Default)]
struct BeaconBlocksBuilder {
    slot: UInt64Builder,
    proposer_index: UInt64Builder,
    block_root: BinaryBuilder,
    parent_root: BinaryBuilder,
    state_root: BinaryBuilder,
    execution_block_number: UInt64Builder,
    execution_block_hash: BinaryBuilder,
    counts: [UInt32Builder; 7],
    graffiti: BinaryBuilder,
    fork: StringBuilder,
}

impl DatasetBuilder for BeaconBlocksBuilder {
    fn add_beacon_block(&mut self, b: &VerifiedBeaconBlock<'_>) -> Result<(), DatasetError> {
        let err = |field: &'static str| {
            move |source: SszError| DatasetError::Ssz {
                dataset: "beacon_blocks",
                slot: b.slot,
                field,
                source,
            }
        };
        // Every fallible read happens before the first append, so a failure leaves no partial row.
        let body = b.body;
        let counts = [
            body.attestations().map_err(err("attestations"))?,
            body.deposits().map_err(err("deposits"))?,
            body.voluntary_exits().map_err(err("voluntary_exits"))?,
            body.proposer_slashings()
                .map_err(err("proposer_slashings"))?,
            body.attester_slashings()
                .map_err(err("attester_slashings"))?,
            body.bls_to_execution_changes()
                .map_err(err("bls_to_execution_changes"))?,
            body.blob_kzg_commitments()
                .map_err(err("blob_kzg_commitments"))?,
        ];
        self.slot.append_value(b.slot);
        self.proposer_index.append_value(b.block.proposer_index());
        self.block_root.append_value(b.root);
        self.parent_root.append_value(b.block.parent_root());
        self.state_root.append_value(b.block.state_root());
        self.execution_block_number
            .append_option(b.execution.as_ref().map(|x| x.header.number));
        self.execution_block_hash
            .append_option(b.execution.as_ref().map(|x| x.block_hash));
        for (col, n) in self.counts.iter_mut().zip(counts) {
            col.append_value(n as u32);
        }
        self.graffiti.append_value(body.graffiti());
        self.fork.append_value(b.block.fork().name());
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        let s = &mut *self;
        let mut cols: Vec<ArrayRef> = vec![
            Arc::new(s.slot.finish()),
            Arc::new(s.proposer_index.finish()),
            Arc::new(s.block_root.finish()),
            Arc::new(s.parent_root.finish()),
            Arc::new(s.state_root.finish()),
            Arc::new(s.execution_block_number.finish()),
            Arc::new(s.execution_block_hash.finish()),
        ];
        cols.extend(
            s.counts
                .iter_mut()
                .map(|c| Arc::new(c.finish()) as ArrayRef),
        );
        cols.push(Arc::new(s.graffiti.finish()));
        cols.push(Arc::new(s.fork.finish()));
        // Columns match SCHEMA by construction; a mismatch is a bug caught by the dataset tests.
        RecordBatch::try_new(SCHEMA.clone(), cols).expect("beacon_blocks columns match the schema")
    }
}
