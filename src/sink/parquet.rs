//! Parquet output: one file per (source archive, dataset), written under a temporary name, row group by row
//! group as chunks arrive, and renamed into place only when the source file verified.

use crate::fsutil::AtomicFile;
use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use std::io::Write;
use std::path::{Path, PathBuf};

/// How Parquet files are encoded.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParquetOptions {
    /// `zstd` (default), `snappy`, `lz4`, `gzip` or `none`.
    pub compression: String,
    /// Level for zstd (1-22) and gzip (0-9).
    pub compression_level: i32,
    /// Rows per row group.
    pub row_group_size: usize,
}

impl Default for ParquetOptions {
    fn default() -> Self {
        ParquetOptions {
            compression: "zstd".into(),
            compression_level: 3,
            row_group_size: 100_000,
        }
    }
}

/// Why a Parquet file could not be written.
#[derive(Debug, thiserror::Error)]
pub enum SinkError {
    #[error("{path}: {message}")]
    Write { path: String, message: String },
    #[error("bad parquet option: {0}")]
    Options(String),
}

impl ParquetOptions {
    /// Writer properties: the chosen codec, column statistics on, and dictionary encoding off for binary
    /// columns (hashes, addresses, calldata are high-entropy; dictionaries only cost time there).
    pub fn properties(&self, schema: &SchemaRef) -> Result<WriterProperties, SinkError> {
        let compression = match self.compression.as_str() {
            "zstd" => Compression::ZSTD(
                ZstdLevel::try_new(self.compression_level)
                    .map_err(|e| SinkError::Options(e.to_string()))?,
            ),
            "snappy" => Compression::SNAPPY,
            "lz4" => Compression::LZ4_RAW,
            "gzip" => Compression::GZIP(
                parquet::basic::GzipLevel::try_new(self.compression_level as u32)
                    .map_err(|e| SinkError::Options(e.to_string()))?,
            ),
            "none" | "uncompressed" => Compression::UNCOMPRESSED,
            other => {
                return Err(SinkError::Options(format!(
                    "unknown compression '{other}' (zstd, snappy, lz4, gzip, none)"
                )))
            }
        };
        if self.row_group_size == 0 {
            return Err(SinkError::Options("row_group_size must be positive".into()));
        }
        let mut b = WriterProperties::builder()
            .set_compression(compression)
            .set_max_row_group_row_count(Some(self.row_group_size))
            .set_statistics_enabled(EnabledStatistics::Page)
            .set_created_by(format!("eraflow {}", env!("CARGO_PKG_VERSION")));
        for f in schema.fields() {
            if matches!(f.data_type(), arrow::datatypes::DataType::Binary) {
                b = b.set_column_dictionary_enabled(f.name().as_str().into(), false);
            }
        }
        Ok(b.build())
    }
}

/// A write error on `dest` carrying the underlying writer's message.
fn write_err<E: std::fmt::Display>(dest: &Path) -> impl FnOnce(E) -> SinkError + '_ {
    move |e| SinkError::Write {
        path: dest.display().to_string(),
        message: e.to_string(),
    }
}

/// A Parquet file being written: into an [`AtomicFile`] by default, or into any writer a caller wraps around
/// one (prune hashes its output while writing it).
pub struct ParquetSink<W: Write + Send = AtomicFile> {
    writer: ArrowWriter<W>,
    dest: PathBuf,
    rows: u64,
}

impl ParquetSink {
    /// Starts `dest` (temporary name until [`ParquetSink::commit`]).
    pub fn create(
        dest: &Path,
        schema: SchemaRef,
        opts: &ParquetOptions,
    ) -> Result<Self, SinkError> {
        let props = opts.properties(&schema)?;
        let file = AtomicFile::create(dest).map_err(write_err(dest))?;
        ParquetSink::with_properties(file, dest, schema, props)
    }

    /// Finishes the file, fsyncs it and renames it into place. Dropping a sink instead discards it.
    pub fn commit(self) -> Result<(PathBuf, u64), SinkError> {
        let dest = self.dest.clone();
        let (file, rows) = self.finish()?;
        file.commit().map_err(write_err(&dest))?;
        Ok((dest, rows))
    }
}

impl<W: Write + Send> ParquetSink<W> {
    /// Starts a Parquet file on `out` with explicit writer properties, for a file whose encoding is fixed by a
    /// format of its own rather than chosen through [`ParquetOptions`] (prune's `tx_locations.parquet`).
    /// `dest` names the file in errors.
    pub fn with_properties(
        out: W,
        dest: &Path,
        schema: SchemaRef,
        props: WriterProperties,
    ) -> Result<Self, SinkError> {
        let writer = ArrowWriter::try_new(out, schema, Some(props)).map_err(write_err(dest))?;
        Ok(ParquetSink {
            writer,
            dest: dest.to_path_buf(),
            rows: 0,
        })
    }

    /// Appends a batch; row groups are flushed as they fill.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<(), SinkError> {
        self.rows += batch.num_rows() as u64;
        self.writer.write(batch).map_err(write_err(&self.dest))
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Writes the footer and returns the underlying writer (not yet committed) and the row count, for a caller
    /// that finishes the file itself.
    pub fn finish(self) -> Result<(W, u64), SinkError> {
        let out = self.writer.into_inner().map_err(write_err(&self.dest))?;
        Ok((out, self.rows))
    }
}
