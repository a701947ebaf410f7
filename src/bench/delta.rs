//! Delta table upkeep beside its floor: `eraflow table optimize` of 1,000 small files of one partition against
//! a plain Parquet rewrite of the same rows (the same files read, one file written with the same layout).

use super::names;
use crate::datasets::Dataset;
use crate::sink::parquet::{FileLayout, ParquetOptions, ParquetSink};
use crate::sink::portable;
use crate::store::delta::{add_action, DeltaTables, Open, TablesRoot};
use arrow_array::RecordBatch;
use deltalake_core::kernel::transaction::{CommitBuilder, CommitProperties, TableReference};
use deltalake_core::kernel::Action;
use deltalake_core::protocol::{DeltaOperation, SaveMode};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use std::path::{Path, PathBuf};

/// Small files in the partition.
pub(super) const FILES: usize = 1000;

/// The dataset the table holds.
const DATASET: &str = "transactions";

fn dataset() -> Result<&'static dyn Dataset, String> {
    Ok(crate::datasets::by_names(&[DATASET])?[0])
}

/// The layout of `DATASET`'s files in a Delta table.
fn layout() -> Result<FileLayout, String> {
    let d = dataset()?;
    Ok(FileLayout::of(d, portable::dataset_schema(d)))
}

/// An output at `dir/optimize` whose `transactions` table holds the rows of `batches` in [`FILES`] small files
/// of one partition, added by one commit; returns the output and the files.
pub(super) fn small_files_table(
    dir: &Path,
    batches: &[RecordBatch],
) -> Result<(PathBuf, Vec<PathBuf>), String> {
    let out = dir.join("optimize");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(out.join(crate::store::output::META_DIR)).map_err(|e| e.to_string())?;
    let layout = layout()?;
    let total: usize = batches.iter().map(|b| b.num_rows()).sum();
    let per_file = total.div_ceil(FILES).max(1);
    let partition = out.join(DATASET).join("network=synthnet");
    let (mut files, mut adds) = (Vec::new(), Vec::new());
    let mut pieces = batches.iter().flat_map(|b| {
        (0..b.num_rows())
            .step_by(per_file)
            .map(move |at| b.slice(at, per_file.min(b.num_rows() - at)))
    });
    let mut next = pieces.next();
    while next.is_some() && files.len() < FILES {
        let name = format!("synthnet__{DATASET}__small_{:04}.parquet", files.len());
        let path = partition.join(&name);
        let mut sink = ParquetSink::create_dataset(&path, &layout, &ParquetOptions::default())
            .map_err(|e| e.to_string())?
            .portable();
        let mut rows = 0u64;
        while let Some(b) = next.take() {
            rows += b.num_rows() as u64;
            sink.write(&b).map_err(|e| e.to_string())?;
            next = pieces.next();
            if rows as usize >= per_file {
                break;
            }
        }
        let (p, _) = sink.commit().map_err(|e| e.to_string())?;
        let bytes = std::fs::metadata(&p).map_err(|e| e.to_string())?.len();
        adds.push(Action::Add(add_action(
            &format!("network=synthnet/{name}"),
            "synthnet",
            bytes,
            rows,
            true,
        )));
        files.push(p);
    }
    let tables = DeltaTables::new(TablesRoot::Local(out.clone()), out.display().to_string())
        .map_err(|e| e.to_string())?;
    tables
        .ensure(DATASET, &layout.schema)
        .map_err(|e| e.to_string())?;
    tables
        .with_table(DATASET, async |t: &mut Open| {
            let state = t.table.snapshot()?;
            CommitBuilder::from(CommitProperties::default())
                .with_actions(adds)
                .build(
                    Some(state as &dyn TableReference),
                    t.table.log_store(),
                    DeltaOperation::Write {
                        mode: SaveMode::Append,
                        partition_by: None,
                        predicate: None,
                    },
                )
                .await?;
            Ok(())
        })
        .map_err(|e| e.to_string())?;
    Ok((out, files))
}

/// The floor: `files` read and rewritten as one Parquet file with the table's layout (what compaction does,
/// without the table).
pub(super) fn rewrite(files: &[PathBuf], dest: &Path) -> Result<(), String> {
    let mut sink = ParquetSink::create_dataset(dest, &layout()?, &ParquetOptions::default())
        .map_err(|e| e.to_string())?;
    for f in files {
        let bytes = std::fs::read(f).map_err(|e| e.to_string())?;
        let reader = ParquetRecordBatchReaderBuilder::try_new(bytes::Bytes::from(bytes))
            .and_then(|b| b.build())
            .map_err(|e| e.to_string())?;
        for b in reader {
            sink.write(&b.map_err(|e| e.to_string())?)
                .map_err(|e| e.to_string())?;
        }
    }
    sink.commit().map_err(|e| e.to_string())?;
    Ok(())
}

/// `eraflow table optimize` of the output at `out`: it must compact its `files` small files (at most [`FILES`];
/// fewer when the bench's file has fewer rows) into one.
pub(super) fn optimize(out: &Path, files: usize) -> Result<(), String> {
    let report = crate::pipeline::table::optimize(
        &out.display().to_string(),
        crate::pipeline::table::DEFAULT_TARGET_BYTES,
        &ParquetOptions::default(),
    )
    .map_err(|e| crate::error::render(&e))?;
    match report.iter().find(|r| r.dataset == DATASET) {
        Some(r) if files < 2 || (r.files_removed == files && r.files_added == 1) => Ok(()),
        other => Err(format!("{}: {other:?}", names::TABLE_OPTIMIZE)),
    }
}
