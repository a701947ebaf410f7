//! `logs`: one row per log of every receipt. `log_index` counts within the block, as on chain.

use super::table::{Columns, Table};
use super::{Dataset, DatasetBuilder, ExportContext};
use crate::formats::Need;
use crate::verify::execution::{BlockLog, VerifiedBlock};
use arrow_array::builder::{BinaryBuilder, UInt32Builder, UInt64Builder};
use arrow_array::RecordBatch;

/// The `logs` dataset.
pub struct Logs;

impl Dataset for Logs {
    fn name(&self) -> &'static str {
        "logs"
    }
    fn table(&self) -> &'static Table {
        LogsColumns::table()
    }
    fn needs(&self) -> Need {
        // era files carry no receipts, so no logs.
        Need::Receipts
    }
    fn builder(&self, ctx: ExportContext) -> Box<dyn DatasetBuilder> {
        Box::new(LogsBuilder {
            chain_id: ctx.chain_id,
            c: LogsColumns::default(),
        })
    }
}

columns! {
    struct LogsColumns {
        block_number: UInt64Builder [sort],
        block_hash: BinaryBuilder,
        transaction_index: UInt32Builder,
        log_index: UInt32Builder [sort],
        transaction_hash: BinaryBuilder,
        address: BinaryBuilder [dictionary],
        topic0: BinaryBuilder [nullable, dictionary],
        topic1: BinaryBuilder [nullable, dictionary],
        topic2: BinaryBuilder [nullable, dictionary],
        topic3: BinaryBuilder [nullable, dictionary],
        data: BinaryBuilder,
        n_data_bytes: UInt32Builder,
        chain_id: UInt64Builder,
    }
}

struct LogsBuilder {
    /// The network's chain id, repeated on every row.
    chain_id: u64,
    c: LogsColumns,
}

impl DatasetBuilder for LogsBuilder {
    fn add_block(&mut self, b: &VerifiedBlock<'_>) {
        let c = &mut self.c;
        let block_hash = b.hash;
        for &BlockLog {
            transaction_index,
            log_index,
            log,
        } in b.logs()
        {
            c.block_number.append_value(b.number);
            c.block_hash.append_value(block_hash);
            c.transaction_index.append_value(transaction_index);
            c.log_index.append_value(log_index);
            c.transaction_hash
                .append_value(b.tx_hash(transaction_index as usize));
            c.address.append_value(log.address);
            let mut topics = log.topics();
            for col in [&mut c.topic0, &mut c.topic1, &mut c.topic2, &mut c.topic3] {
                col.append_option(topics.next());
            }
            c.data.append_value(log.data);
            c.n_data_bytes.append_value(log.data.len() as u32);
            c.chain_id.append_value(self.chain_id);
        }
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        self.c.finish_batch()
    }
}
