//! Parquet output: one file per (source archive, dataset), written under a temporary name, row group by row
//! group as chunks arrive, and renamed into place only when the source file verified.

use crate::fsutil::AtomicFile;
use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
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

/// A Parquet file being written.
pub struct ParquetSink {
    writer: ArrowWriter<AtomicFile>,
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
        let err = |m: String| SinkError::Write {
            path: dest.display().to_string(),
            message: m,
        };
        let props = opts.properties(&schema)?;
        let file = AtomicFile::create(dest).map_err(|e| err(e.to_string()))?;
        let writer =
            ArrowWriter::try_new(file, schema, Some(props)).map_err(|e| err(e.to_string()))?;
        Ok(ParquetSink {
            writer,
            dest: dest.to_path_buf(),
            rows: 0,
        })
    }

    /// Appends a batch; row groups are flushed as they fill.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<(), SinkError> {
        self.rows += batch.num_rows() as u64;
        self.writer.write(batch).map_err(|e| SinkError::Write {
            path: self.dest.display().to_string(),
            message: e.to_string(),
        })
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Finishes the file, fsyncs it and renames it into place. Dropping a sink instead discards it.
    pub fn commit(self) -> Result<(PathBuf, u64), SinkError> {
        let err = |m: String| SinkError::Write {
            path: self.dest.display().to_string(),
            message: m,
        };
        let file = self.writer.into_inner().map_err(|e| err(e.to_string()))?;
        file.commit().map_err(|e| err(e.to_string()))?;
        Ok((self.dest, self.rows))
    }
}
