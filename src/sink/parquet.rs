//! Parquet output: one file per (source archive, dataset), written under a temporary name, row group by row
//! group as chunks arrive, and renamed into place only when the source file verified.

use crate::util::fs::AtomicFile;
use arrow_array::RecordBatch;
use arrow_schema::{DataType, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::ZstdLevel;
use parquet::file::metadata::{KeyValue, SortingColumn};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use std::io::Write;
use std::path::{Path, PathBuf};

/// A Parquet codec.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compression {
    /// Zstandard at `compression_level` (1-22).
    #[default]
    Zstd,
    /// Snappy.
    Snappy,
    /// LZ4 (the raw block format Parquet calls `LZ4_RAW`).
    Lz4,
    /// Gzip at `compression_level` (0-9).
    Gzip,
    /// No compression.
    None,
}

impl Compression {
    /// Every codec, in the order help texts list them.
    pub const ALL: [Compression; 5] = [
        Compression::Zstd,
        Compression::Snappy,
        Compression::Lz4,
        Compression::Gzip,
        Compression::None,
    ];

    /// The config and command-line spelling.
    pub fn name(self) -> &'static str {
        match self {
            Compression::Zstd => "zstd",
            Compression::Snappy => "snappy",
            Compression::Lz4 => "lz4",
            Compression::Gzip => "gzip",
            Compression::None => "none",
        }
    }
}

impl std::fmt::Display for Compression {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Compression {
    type Err = SinkError;
    fn from_str(s: &str) -> Result<Self, SinkError> {
        if s == "uncompressed" {
            return Ok(Compression::None);
        }
        Compression::ALL
            .into_iter()
            .find(|c| c.name() == s)
            .ok_or_else(|| SinkError::UnknownCompression(s.to_string()))
    }
}

/// How Parquet files are encoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParquetOptions {
    /// The codec.
    pub compression: Compression,
    /// Level for zstd (1-22) and gzip (0-9); ignored by the others.
    pub compression_level: i32,
    /// Rows per row group.
    pub row_group_size: usize,
}

/// Why a Parquet file could not be written, or its options are unusable.
#[derive(Debug, thiserror::Error)]
pub enum SinkError {
    /// Creating, writing or committing `path` failed.
    #[error("{}", .path.display())]
    Write {
        /// The output's final name.
        path: PathBuf,
        /// The Parquet or I/O cause.
        #[source]
        source: parquet::errors::ParquetError,
    },
    /// Committing (fsync, rename) `path` failed.
    #[error("{}", .path.display())]
    Io {
        /// The output's final name.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A codec name that is none of [`Compression::ALL`].
    #[error("unknown compression '{0}' (zstd, snappy, lz4, gzip, none)")]
    UnknownCompression(String),
    /// A level outside the codec's range, or a zero row-group size.
    #[error("bad parquet option: {0}")]
    Options(String),
}

impl Default for ParquetOptions {
    /// The `[export]` codec, level and row-group size of `configs/default.toml` (the one place defaults live).
    fn default() -> Self {
        #[derive(serde::Deserialize)]
        struct Defaults {
            export: Export,
        }
        #[derive(serde::Deserialize)]
        struct Export {
            compression: String,
            compression_level: i32,
            row_group_size: usize,
        }
        let d: Defaults = toml::from_str(include_str!("../../configs/default.toml"))
            .expect("configs/default.toml is embedded and tested");
        ParquetOptions {
            compression: d.export.compression.parse().unwrap_or_default(),
            compression_level: d.export.compression_level,
            row_group_size: d.export.row_group_size,
        }
    }
}

impl ParquetOptions {
    /// Checks the level against the codec and the row-group size, so a bad option is refused before any work.
    pub fn validate(&self) -> Result<(), SinkError> {
        self.codec().map(|_| ())
    }

    fn codec(&self) -> Result<parquet::basic::Compression, SinkError> {
        if self.row_group_size == 0 {
            return Err(SinkError::Options("row_group_size must be positive".into()));
        }
        Ok(match self.compression {
            Compression::Zstd => parquet::basic::Compression::ZSTD(
                ZstdLevel::try_new(self.compression_level).map_err(|e| {
                    SinkError::Options(format!(
                        "zstd compression_level {}: {e}",
                        self.compression_level
                    ))
                })?,
            ),
            Compression::Snappy => parquet::basic::Compression::SNAPPY,
            Compression::Lz4 => parquet::basic::Compression::LZ4_RAW,
            Compression::Gzip => parquet::basic::Compression::GZIP(
                u32::try_from(self.compression_level)
                    .ok()
                    .and_then(|l| parquet::basic::GzipLevel::try_new(l).ok())
                    .ok_or_else(|| {
                        SinkError::Options(format!(
                            "gzip compression_level {}: expected 0-9",
                            self.compression_level
                        ))
                    })?,
            ),
            Compression::None => parquet::basic::Compression::UNCOMPRESSED,
        })
    }

    /// Writer properties of a plain file (no declared order, no metadata): see [`ParquetOptions::layout_properties`].
    pub fn properties(&self, schema: &SchemaRef) -> Result<WriterProperties, SinkError> {
        self.layout_properties(&FileLayout::plain(schema.clone()))
    }

    /// Writer properties: the chosen codec; statistics (min/max, null counts) on every column chunk and page;
    /// dictionary encoding off for binary columns (hashes and calldata are high-entropy: a dictionary only
    /// costs time there) except the layout's repetitive ones (addresses, topics) under the light codecs, where
    /// it shrinks the column;
    /// the layout's sort order declared as `sorting_columns`; its key-value metadata.
    pub fn layout_properties(&self, layout: &FileLayout) -> Result<WriterProperties, SinkError> {
        let mut b = WriterProperties::builder()
            .set_compression(self.codec()?)
            .set_max_row_group_row_count(Some(self.row_group_size))
            .set_statistics_enabled(EnabledStatistics::Page)
            .set_created_by(format!("eraflow {}", env!("CARGO_PKG_VERSION")));
        // Measured on synthetic exports (docs/schema.md, "Parquet layout"): a dictionary shrinks repetitive
        // binary columns 0.75-0.20x under snappy, but zstd's window already catches the repeats (0.98-1.08x), so
        // zstd and gzip files keep every binary column plain.
        let dictionary = !matches!(self.compression, Compression::Zstd | Compression::Gzip);
        for f in layout.schema.fields() {
            let name = f.name().as_str();
            if matches!(f.data_type(), DataType::Binary)
                && !(dictionary && layout.dictionary_columns.contains(&name))
                && !layout.repeated_columns.contains(&name)
            {
                b = b.set_column_dictionary_enabled(f.name().as_str().into(), false);
            }
        }
        for name in layout.delta_columns {
            let col: parquet::schema::types::ColumnPath = (*name).into();
            b = b
                .set_column_dictionary_enabled(col.clone(), false)
                .set_column_encoding(col, parquet::basic::Encoding::DELTA_BINARY_PACKED);
        }
        if !layout.sort_columns.is_empty() {
            let sorting = layout
                .sort_columns
                .iter()
                .map(|name| {
                    leaf_index(&layout.schema, name)
                        .map(|column_idx| SortingColumn {
                            column_idx,
                            descending: false,
                            nulls_first: false,
                        })
                        .ok_or_else(|| {
                            SinkError::Options(format!(
                                "sort column '{name}' is not a top-level column"
                            ))
                        })
                })
                .collect::<Result<Vec<_>, _>>()?;
            b = b.set_sorting_columns(Some(sorting));
        }
        if !layout.metadata.is_empty() {
            let kv = layout
                .metadata
                .iter()
                .map(|(k, v)| KeyValue::new(k.clone(), v.clone()))
                .collect();
            b = b.set_key_value_metadata(Some(kv));
        }
        Ok(b.build())
    }
}

/// How a dataset's file is laid out beyond its codec: its schema, declared sort order, dictionary-encoded
/// columns and key-value metadata.
#[derive(Debug, Clone)]
pub struct FileLayout {
    /// The Arrow schema of every batch.
    pub schema: SchemaRef,
    /// Top-level columns the rows are sorted by, in order.
    pub sort_columns: &'static [&'static str],
    /// Binary columns to dictionary-encode.
    pub dictionary_columns: &'static [&'static str],
    /// Binary columns to dictionary-encode under every codec (long runs of repeated values).
    pub repeated_columns: &'static [&'static str],
    /// Integer columns to write `DELTA_BINARY_PACKED`, without a dictionary (steadily growing indices).
    pub delta_columns: &'static [&'static str],
    /// Key-value metadata written into the footer.
    pub metadata: Vec<(String, String)>,
}

impl FileLayout {
    /// A file with no declared order, no dictionary-encoded binary column and no metadata.
    pub fn plain(schema: SchemaRef) -> FileLayout {
        FileLayout {
            schema,
            sort_columns: &[],
            dictionary_columns: &[],
            repeated_columns: &[],
            delta_columns: &[],
            metadata: Vec::new(),
        }
    }

    /// A file of `dataset` whose batches have `schema` (its own, or its portable one): the dataset's encoding
    /// roles, no metadata.
    pub fn of(dataset: &dyn crate::datasets::Dataset, schema: SchemaRef) -> FileLayout {
        FileLayout {
            schema,
            sort_columns: dataset.sort_columns(),
            dictionary_columns: dataset.dictionary_columns(),
            repeated_columns: dataset.repeated_columns(),
            delta_columns: dataset.delta_columns(),
            metadata: Vec::new(),
        }
    }
}

/// The Parquet leaf-column index of top-level column `name` (nested columns before it count one leaf each).
fn leaf_index(schema: &SchemaRef, name: &str) -> Option<i32> {
    fn leaves(dt: &DataType) -> usize {
        match dt {
            DataType::Struct(fields) => fields.iter().map(|f| leaves(f.data_type())).sum(),
            DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _) => {
                leaves(f.data_type())
            }
            DataType::Map(f, _) => leaves(f.data_type()),
            _ => 1,
        }
    }
    let mut idx = 0usize;
    for f in schema.fields() {
        if f.name() == name {
            return i32::try_from(idx).ok();
        }
        idx += leaves(f.data_type());
    }
    None
}

/// A Parquet file being written: into an [`AtomicFile`] by default, or into any writer a caller wraps around
/// one (prune hashes its output while writing it).
pub struct ParquetSink<W: Write + Send = AtomicFile> {
    writer: ArrowWriter<W>,
    dest: PathBuf,
    rows: u64,
    /// Batches come in their dataset's own types and are cast to the file's portable ones
    /// ([`super::portable`]).
    portable: bool,
    /// The file's schema.
    schema: SchemaRef,
}

impl ParquetSink {
    /// Starts `dest` (temporary name until [`ParquetSink::commit`]).
    pub fn create(
        dest: &Path,
        schema: SchemaRef,
        opts: &ParquetOptions,
    ) -> Result<Self, SinkError> {
        let props = opts.properties(&schema)?;
        ParquetSink::create_with(dest, schema, props)
    }

    /// Starts `dest` laid out as `layout` (temporary name until [`ParquetSink::commit`]).
    pub fn create_dataset(
        dest: &Path,
        layout: &FileLayout,
        opts: &ParquetOptions,
    ) -> Result<Self, SinkError> {
        let props = opts.layout_properties(layout)?;
        ParquetSink::create_with(dest, layout.schema.clone(), props)
    }

    /// Starts `dest` with explicit writer properties (temporary name until [`ParquetSink::commit`]).
    pub fn create_with(
        dest: &Path,
        schema: SchemaRef,
        props: WriterProperties,
    ) -> Result<Self, SinkError> {
        let file = AtomicFile::create(dest).map_err(|source| SinkError::Io {
            path: dest.to_path_buf(),
            source,
        })?;
        ParquetSink::with_properties(file, dest, schema, props)
    }

    /// Finishes the file, fsyncs it and renames it into place. Dropping a sink instead discards it.
    pub fn commit(self) -> Result<(PathBuf, u64), SinkError> {
        let dest = self.dest.clone();
        let (file, rows) = self.finish()?;
        file.commit().map_err(|source| SinkError::Io {
            path: dest.clone(),
            source,
        })?;
        Ok((dest, rows))
    }
}

/// The encoded bytes an open row group may reach before it is written (see [`ParquetSink::write`]).
pub const ROW_GROUP_MAX_BYTES: usize = 16 << 20;

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
        let writer = ArrowWriter::try_new(out, schema.clone(), Some(props)).map_err(|source| {
            SinkError::Write {
                path: dest.to_path_buf(),
                source,
            }
        })?;
        Ok(ParquetSink {
            writer,
            dest: dest.to_path_buf(),
            rows: 0,
            portable: false,
            schema,
        })
    }

    /// A sink whose file has the portable types of its batches' ([`super::portable::portable_schema`]): each
    /// batch is cast on its way in.
    pub fn portable(mut self) -> Self {
        self.portable = true;
        self
    }

    /// Appends a batch; row groups are flushed as they fill.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<(), SinkError> {
        let cast;
        let batch = match self.portable {
            false => batch,
            true => {
                cast = super::portable::portable_batch(batch, &self.schema).map_err(|e| {
                    SinkError::Write {
                        path: self.dest.clone(),
                        source: e.into(),
                    }
                })?;
                &cast
            }
        };
        self.rows += batch.num_rows() as u64;
        let err = |source| SinkError::Write {
            path: self.dest.clone(),
            source,
        };
        self.writer.write(batch).map_err(err)?;
        // A row group also ends at a size: a dataset whose rows are few but wide (an era's deposits, 8192
        // blocks' worth under the row count) would otherwise hold its whole file in memory until the end.
        // Batches end where the file's chunks do, never where the thread count puts them, so the groups'
        // bounds stay the same whatever the parallelism.
        if self.writer.in_progress_size() >= ROW_GROUP_MAX_BYTES {
            self.writer.flush().map_err(err)?;
        }
        Ok(())
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Writes the footer and returns the underlying writer (not yet committed) and the row count, for a caller
    /// that finishes the file itself.
    pub fn finish(self) -> Result<(W, u64), SinkError> {
        let out = self
            .writer
            .into_inner()
            .map_err(|source| SinkError::Write {
                path: self.dest.clone(),
                source,
            })?;
        Ok((out, self.rows))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::BinaryArray;
    use arrow_schema::{Field, Schema};
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use std::sync::Arc;

    /// Few rows, each wide: under a row count no file reaches, the open row group still ends at
    /// [`ROW_GROUP_MAX_BYTES`] instead of holding the whole file in memory.
    #[test]
    fn a_row_group_ends_at_its_byte_size() {
        let d = tempfile::tempdir().unwrap();
        let dest = d.path().join("wide.parquet");
        let schema: SchemaRef = Arc::new(Schema::new(vec![Field::new(
            "blob",
            DataType::Binary,
            false,
        )]));
        let props = WriterProperties::builder()
            .set_max_row_group_row_count(Some(1 << 30))
            .set_dictionary_enabled(false)
            .build();
        let mut sink = ParquetSink::create_with(&dest, schema.clone(), props).unwrap();
        // 40 batches of 256 rows of 4 KiB that do not compress: 40 MiB.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let batch_bytes = 256 * 4096;
        for _ in 0..40 {
            let rows: Vec<Vec<u8>> = (0..256)
                .map(|_| {
                    (0..4096)
                        .map(|_| {
                            x ^= x << 13;
                            x ^= x >> 7;
                            x ^= x << 17;
                            x as u8
                        })
                        .collect()
                })
                .collect();
            let col = BinaryArray::from_iter_values(rows.iter());
            let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(col)]).unwrap();
            sink.write(&batch).unwrap();
        }
        sink.commit().unwrap();
        let reader = SerializedFileReader::new(std::fs::File::open(&dest).unwrap()).unwrap();
        let meta = reader.metadata();
        assert!(
            meta.num_row_groups() >= 2,
            "{} row groups",
            meta.num_row_groups()
        );
        let rows: i64 = meta.row_groups().iter().map(|g| g.num_rows()).sum();
        assert_eq!(rows, 40 * 256);
        for g in meta.row_groups() {
            assert!(
                (g.total_byte_size() as usize) < ROW_GROUP_MAX_BYTES + 2 * batch_bytes,
                "a row group of {} bytes",
                g.total_byte_size()
            );
        }
    }
}
