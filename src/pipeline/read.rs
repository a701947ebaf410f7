//! Reading one dataset of one archive straight into Arrow batches, with no Parquet in between: what a notebook
//! wants (the Python package's `eraflow.read`). The file is verified in the same pass, exactly as `export`
//! verifies it, and nothing is returned unless the whole file verified.

use super::job::JobError;
use crate::datasets::Dataset;
use crate::export::{network_of, ExportChunk, ExportVisitor};
use crate::formats::{Archive, ArchiveKind};
use crate::network::Network;
use crate::verify::init_signer;
use crate::verify::report::FileReport;
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use std::path::Path;

/// One dataset of one verified archive.
#[derive(Debug)]
pub struct DatasetRead {
    /// The dataset's schema (every batch has it).
    pub schema: SchemaRef,
    /// The rows, in chain order, one batch per chunk of blocks that had rows.
    pub batches: Vec<RecordBatch>,
    /// The verification report of the file.
    pub report: FileReport,
}

/// Verifies `path` and returns `dataset`'s rows from it. `senders` recovers `from_address` (and EIP-7702
/// authorities) with the process signer; `network` forces a preset (default: from the file name).
pub fn read(
    path: &Path,
    dataset: &'static dyn Dataset,
    senders: bool,
    network: Option<&Network>,
) -> Result<DatasetRead, JobError> {
    let file = Archive::open(path)?;
    let kind = file.kind();
    if !kind.holds().has(dataset.needs()) {
        // The kinds that give it, in the order this message has always named them.
        let from = [ArchiveKind::Era1, ArchiveKind::Ere, ArchiveKind::Era]
            .into_iter()
            .filter(|k| k.holds().has(dataset.needs()))
            .map(|k| k.to_string())
            .collect::<Vec<_>>()
            .join(" and ");
        return Err(JobError::Invalid {
            key: "dataset",
            message: format!(
                "{}: {kind} files have no {} rows (it comes from {from})",
                path.display(),
                dataset.name(),
            ),
        });
    }
    let network = network_of(path, network).ok_or_else(|| JobError::Invalid {
        key: "network",
        message: format!(
            "{}: cannot tell the network from the file name; pass one",
            path.display()
        ),
    })?;
    // As export: a dataset without a sender column never touches the signer.
    let signer = match senders && dataset.uses_senders() {
        true => Some(init_signer(None, Default::default(), Some(&network), &[])?),
        false => None,
    };
    let datasets = [dataset];
    let (visitor, opts) =
        ExportVisitor::with_options(&datasets, &network, signer, dataset.needs_receipts());
    let mut batches = Vec::new();
    let mut dataset_error = None;
    let report = crate::verify::archive(&file, &opts, &visitor, |c: ExportChunk| {
        if let Some(e) = c.error {
            dataset_error.get_or_insert(e);
        }
        batches.extend(c.builders.into_iter().map(|b| b.finish()));
    });
    if let Some(e) = dataset_error {
        return Err(JobError::Dataset(e));
    }
    if !report.ok {
        return Err(JobError::Unverified {
            path: path.to_path_buf(),
            errors: report.errors,
        });
    }
    // Chunks without rows (runs of empty slots, blocks without logs) add nothing.
    batches.retain(|b| b.num_rows() > 0);
    Ok(DatasetRead {
        schema: dataset.schema(),
        batches,
        report,
    })
}
