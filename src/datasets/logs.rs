//! `logs`: one row per log of every receipt. `log_index` counts within the block, as on chain.

use super::{Dataset, DatasetBuilder, ExportContext};
use crate::formats::Need;
use crate::verify::execution::VerifiedBlock;
use arrow_array::builder::{BinaryBuilder, UInt32Builder, UInt64Builder};
use arrow_array::ArrayRef;
use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use std::sync::{Arc, LazyLock};

/// The `logs` dataset.
pub struct Logs;

static SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        Field::new("block_number", DataType::UInt64, false),
        Field::new("block_hash", DataType::Binary, false),
        Field::new("transaction_index", DataType::UInt32, false),
        Field::new("log_index", DataType::UInt32, false),
        Field::new("transaction_hash", DataType::Binary, false),
        Field::new("address", DataType::Binary, false),
        Field::new("topic0", DataType::Binary, true),
        Field::new("topic1", DataType::Binary, true),
        Field::new("topic2", DataType::Binary, true),
        Field::new("topic3", DataType::Binary, true),
        Field::new("data", DataType::Binary, false),
        Field::new("n_data_bytes", DataType::UInt32, false),
        Field::new("chain_id", DataType::UInt64, false),
    ]))
});

impl Dataset for Logs {
    fn name(&self) -> &'static str {
        "logs"
    }
    fn schema(&self) -> SchemaRef {
        SCHEMA.clone()
    }
    fn sort_columns(&self) -> &'static [&'static str] {
        &["block_number", "log_index"]
    }
    fn dictionary_columns(&self) -> &'static [&'static str] {
        &["address", "topic0", "topic1", "topic2", "topic3"]
    }
    fn needs(&self) -> Need {
        // era files carry no receipts, so no logs.
        Need::Receipts
    }
    fn needs_receipts(&self) -> bool {
        true
    }
    fn builder(&self, ctx: ExportContext) -> Box<dyn DatasetBuilder> {
        Box::new(LogsBuilder {
            chain_id: ctx.chain_id,
            ..Default::default()
        })
    }
}

#[derive(Default)]
struct LogsBuilder {
    chain_id: u64,
    block_number: UInt64Builder,
    block_hash: BinaryBuilder,
    transaction_index: UInt32Builder,
    log_index: UInt32Builder,
    transaction_hash: BinaryBuilder,
    address: BinaryBuilder,
    topics: [BinaryBuilder; 4],
    data: BinaryBuilder,
    n_data_bytes: UInt32Builder,
    chain_ids: UInt64Builder,
}

impl DatasetBuilder for LogsBuilder {
    fn add_block(&mut self, b: &VerifiedBlock<'_>) {
        let block_hash = b.header.hash();
        let mut log_index = 0u32;
        for (ti, (r, tx)) in b.receipts.iter().zip(b.transactions).enumerate() {
            let mut tx_hash = None;
            for log in r.logs().flatten() {
                let h = *tx_hash.get_or_insert_with(|| tx.hash());
                self.block_number.append_value(b.number);
                self.block_hash.append_value(block_hash);
                self.transaction_index.append_value(ti as u32);
                self.log_index.append_value(log_index);
                self.transaction_hash.append_value(h);
                self.address.append_value(log.address);
                let mut topics = log.topics();
                for col in &mut self.topics {
                    col.append_option(topics.next());
                }
                self.data.append_value(log.data);
                self.n_data_bytes.append_value(log.data.len() as u32);
                self.chain_ids.append_value(self.chain_id);
                log_index += 1;
            }
        }
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        let s = &mut *self;
        let [t0, t1, t2, t3] = &mut s.topics;
        let cols: Vec<ArrayRef> = vec![
            Arc::new(s.block_number.finish()),
            Arc::new(s.block_hash.finish()),
            Arc::new(s.transaction_index.finish()),
            Arc::new(s.log_index.finish()),
            Arc::new(s.transaction_hash.finish()),
            Arc::new(s.address.finish()),
            Arc::new(t0.finish()),
            Arc::new(t1.finish()),
            Arc::new(t2.finish()),
            Arc::new(t3.finish()),
            Arc::new(s.data.finish()),
            Arc::new(s.n_data_bytes.finish()),
            Arc::new(s.chain_ids.finish()),
        ];
        RecordBatch::try_new(SCHEMA.clone(), cols).expect("logs columns match the schema")
    }
}
