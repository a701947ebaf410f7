//! The dataset seam, held by a test: a dataset that exists only here — one `columns!` list, its row code and a
//! `Dataset` impl, in this one file — goes through the real export stage (verification, the Parquet writer,
//! completion records, the manifest, the no-op rerun) and reads back as declared. Nothing else in the tree
//! knows it, which is what adding a dataset should cost.

use super::progress::Progress;
use super::{export, ExportOptions};
use crate::datasets::table::{columns, Columns, Table};
use crate::datasets::{Dataset, DatasetBuilder, ExportContext};
use crate::formats::Need;
use crate::verify::execution::VerifiedBlock;
use arrow_array::builder::{BinaryBuilder, UInt32Builder, UInt64Builder};
use arrow_array::{Array, RecordBatch, UInt64Array};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

/// `gas_by_block`: one row per block, its gas used and transaction count.
struct GasByBlock;

columns! {
    struct GasByBlockColumns {
        block_number: UInt64Builder [sort, delta],
        block_hash: BinaryBuilder,
        gas_used: UInt64Builder,
        n_transactions: UInt32Builder,
        total_difficulty_low: UInt64Builder [nullable],
    }
}

impl Dataset for GasByBlock {
    fn name(&self) -> &'static str {
        "gas_by_block"
    }
    fn table(&self) -> &'static Table {
        GasByBlockColumns::table()
    }
    fn needs(&self) -> Need {
        Need::Blocks
    }
    fn builder(&self, _: ExportContext) -> Box<dyn DatasetBuilder> {
        Box::<GasByBlockColumns>::default()
    }
}

impl DatasetBuilder for GasByBlockColumns {
    fn add_block(&mut self, b: &VerifiedBlock<'_>) {
        self.block_number.append_value(b.number);
        self.block_hash.append_value(b.hash);
        self.gas_used.append_value(b.header.gas_used());
        self.n_transactions
            .append_value(u32::try_from(b.transactions.len()).unwrap_or(u32::MAX));
        self.total_difficulty_low
            .append_option(b.total_difficulty.map(|td| td.as_limbs()[0]));
    }

    fn finish(mut self: Box<Self>) -> RecordBatch {
        self.finish_batch()
    }
}

static GAS_BY_BLOCK: GasByBlock = GasByBlock;

#[test]
fn a_dataset_declared_in_one_file_exports_through_the_real_stage() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = crate::synth::era1::SynthOptions::new(
        crate::network::Network::by_name("synthnet").unwrap(),
    );
    o.blocks = 96;
    o.txs_per_block = 2;
    let files = crate::synth::era1::write(&dir.path().join("in"), &o).unwrap();
    let opts = ExportOptions::new(dir.path().join("out"), vec![&GAS_BY_BLOCK]);
    let outcomes = export(&files, &opts, &Progress::hidden()).unwrap();
    assert!(outcomes.iter().all(|o| o.ok && !o.skipped), "{outcomes:?}");

    // The file is where every dataset's file goes, with the declared schema, and holds every block once.
    let parquet: Vec<_> = walk(&opts.out.join("gas_by_block"));
    assert_eq!(parquet.len(), 1, "{parquet:?}");
    let reader =
        ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(&parquet[0]).unwrap())
            .unwrap()
            .build()
            .unwrap();
    let batches: Vec<RecordBatch> = reader.map(Result::unwrap).collect();
    let declared = GasByBlockColumns::table().schema.clone();
    let names = |s: &arrow_schema::Schema| {
        s.fields()
            .iter()
            .map(|f| f.name().clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&batches[0].schema()), names(&declared));
    let numbers: Vec<u64> = batches
        .iter()
        .flat_map(|b| {
            let a = b.column(0).as_any().downcast_ref::<UInt64Array>().unwrap();
            (0..a.len()).map(|i| a.value(i)).collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(numbers, (0..96).collect::<Vec<u64>>());
    assert_eq!(GAS_BY_BLOCK.sort_columns(), ["block_number"]);
    assert_eq!(GAS_BY_BLOCK.delta_columns(), ["block_number"]);

    // Its completion record makes a rerun a no-op, as for any other dataset.
    let again = export(&files, &opts, &Progress::hidden()).unwrap();
    assert!(again.iter().all(|o| o.ok && o.skipped), "{again:?}");
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
        let p = e.path();
        match p.is_dir() {
            true => out.extend(walk(&p)),
            false if p.extension().is_some_and(|x| x == "parquet") => out.push(p),
            false => {}
        }
    }
    out
}
