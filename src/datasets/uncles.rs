//! `uncles`: one row per ommer header included in a block.

use super::columns::{u256_fields, U256Columns};
use super::{Dataset, DatasetBuilder, ExportContext};
use crate::execution::header::HeaderView;
use crate::formats::Need;
use crate::verify::execution::VerifiedBlock;
use arrow_array::builder::{BinaryBuilder, UInt32Builder, UInt64Builder};
use arrow_array::ArrayRef;
use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use std::sync::{Arc, LazyLock};

/// The `uncles` dataset.
pub struct Uncles;

static SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    let mut f = vec![
        Field::new("block_number", DataType::UInt64, false),
        Field::new("uncle_index", DataType::UInt32, false),
        Field::new("uncle_hash", DataType::Binary, false),
        Field::new("author", DataType::Binary, false),
        Field::new("number", DataType::UInt64, false),
    ];
    f.extend(u256_fields("difficulty", false));
    f.extend([
        Field::new("gas_used", DataType::UInt64, false),
        Field::new("gas_limit", DataType::UInt64, false),
        Field::new("timestamp", DataType::UInt64, false),
    ]);
    Arc::new(Schema::new(f))
});

impl Dataset for Uncles {
    fn name(&self) -> &'static str {
        "uncles"
    }
    fn schema(&self) -> SchemaRef {
        SCHEMA.clone()
    }
    /// era1 only: era files carry no receipts (so no logs) and post-merge blocks have no ommers.
    fn sort_columns(&self) -> &'static [&'static str] {
        &["block_number", "uncle_index"]
    }
    fn dictionary_columns(&self) -> &'static [&'static str] {
        &["author"]
    }
    fn needs(&self) -> Need {
        // Post-merge blocks (era payloads) have no ommers.
        Need::Ommers
    }
    fn needs_receipts(&self) -> bool {
        false
    }
    fn builder(&self, _: ExportContext) -> Box<dyn DatasetBuilder> {
        Box::<UnclesBuilder>::default()
    }
}

#[derive(Default)]
struct UnclesBuilder {
    block_number: UInt64Builder,
    uncle_index: UInt32Builder,
    uncle_hash: BinaryBuilder,
    author: BinaryBuilder,
    number: UInt64Builder,
    difficulty: U256Columns,
    gas_used: UInt64Builder,
    gas_limit: UInt64Builder,
    timestamp: UInt64Builder,
}

impl DatasetBuilder for UnclesBuilder {
    fn add_block(&mut self, b: &VerifiedBlock<'_>) {
        for (i, item) in b.body.ommers().enumerate() {
            // Verification decoded every ommer header already; a failure here cannot happen for a verified block.
            let Ok(h) = item
                .map_err(|_| ())
                .and_then(|it| HeaderView::decode(it.raw).map_err(|_| ()))
            else {
                continue;
            };
            self.block_number.append_value(b.number);
            self.uncle_index.append_value(i as u32);
            self.uncle_hash.append_value(h.hash());
            self.author.append_value(h.beneficiary());
            self.number.append_value(h.number());
            self.difficulty.append(Some(h.difficulty()));
            self.gas_used.append_value(h.gas_used());
            self.gas_limit.append_value(h.gas_limit());
            self.timestamp.append_value(h.timestamp());
        }
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        let [d0, d1, d2] = std::mem::take(&mut self.difficulty).finish();
        let s = &mut *self;
        let cols: Vec<ArrayRef> = vec![
            Arc::new(s.block_number.finish()),
            Arc::new(s.uncle_index.finish()),
            Arc::new(s.uncle_hash.finish()),
            Arc::new(s.author.finish()),
            Arc::new(s.number.finish()),
            d0,
            d1,
            d2,
            Arc::new(s.gas_used.finish()),
            Arc::new(s.gas_limit.finish()),
            Arc::new(s.timestamp.finish()),
        ];
        RecordBatch::try_new(SCHEMA.clone(), cols).expect("uncles columns match the schema")
    }
}
