//! Writing the manifest's files while blocks are verified, each hashed (sha256) as it is written so no
//! output is read back: the block hash lists, `tx_locations.parquet` (through [`crate::sink::parquet`]), the
//! sorted transaction hash lists and the JSON files.

use super::error::{io_at, PruneError};
use super::extsort::{ExternalSorter, Hash32, SortStats};
use super::manifest::{self, ListFile, Ranges};
use super::options::{OutputFormat, PruneOptions};
use crate::sink::parquet::{ParquetSink, SinkError};
use crate::util::fs::AtomicFile;
use arrow_array::builder::{ArrayBuilder, FixedSizeBinaryBuilder, UInt32Builder, UInt64Builder};
use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Schema};
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use sha2::Digest;
use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Rows per Parquet batch and row group: bounds the writer's buffer (~3 MB) whatever the input size.
const PARQUET_ROWS: usize = 64 * 1024;

/// Where the hash sort spills its runs, inside the staging directory; removed once the sort is done.
const SPILL_DIR: &str = ".spill";

/// A writer that hashes and counts everything it passes through, so no output is read back for its sha256.
struct Hashing<W: Write> {
    inner: W,
    sha: sha2::Sha256,
    bytes: u64,
}

impl<W: Write> Hashing<W> {
    fn new(inner: W) -> Self {
        Hashing {
            inner,
            sha: sha2::Sha256::new(),
            bytes: 0,
        }
    }
    fn finish(self, entries: u64) -> (W, ListFile) {
        let rec = ListFile {
            sha256: hex::encode(self.sha.finalize()),
            bytes: self.bytes,
            entries,
        };
        (self.inner, rec)
    }
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.sha.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// A list file being written atomically with its checksum.
struct ListWriter {
    out: Hashing<AtomicFile>,
    entries: u64,
}

impl ListWriter {
    fn create(path: &Path) -> Result<Self, PruneError> {
        Ok(ListWriter {
            out: Hashing::new(AtomicFile::create(path).map_err(io_at(path))?),
            entries: 0,
        })
    }
    fn hash(&mut self, h: &Hash32) -> io::Result<()> {
        self.entries += 1;
        self.out.write_all(h)
    }
    fn hex_line(&mut self, h: &Hash32) -> io::Result<()> {
        self.entries += 1;
        let mut line = [0u8; 67];
        line[..2].copy_from_slice(b"0x");
        // Cannot fail: the buffer is exactly 64 bytes.
        let _ = hex::encode_to_slice(h, &mut line[2..66]);
        line[66] = b'\n';
        self.out.write_all(&line)
    }
    fn commit(self) -> Result<ListFile, PruneError> {
        let (f, rec) = self.out.finish(self.entries);
        let dest = f.dest().to_path_buf();
        f.commit_staged().map_err(io_at(&dest))?;
        Ok(rec)
    }
}

/// The Parquet schema of `tx_locations.parquet`.
pub fn tx_locations_schema() -> Arc<Schema> {
    Arc::new(Schema::new(vec![
        Field::new("transaction_hash", DataType::FixedSizeBinary(32), false),
        Field::new("block_number", DataType::UInt64, false),
        Field::new("transaction_index", DataType::UInt32, false),
    ]))
}

/// The writer properties of `tx_locations.parquet`. They are part of its format: any change changes the file's
/// bytes, so its sha256 in every manifest. Hashes are incompressible and unique: no dictionary, no compression.
/// Numbers compress well. `created_by` and statistics stay the library's defaults.
fn tx_locations_properties() -> WriterProperties {
    WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_max_row_group_row_count(Some(PARQUET_ROWS))
        .set_column_dictionary_enabled("transaction_hash".into(), false)
        .set_column_compression("transaction_hash".into(), Compression::UNCOMPRESSED)
        .build()
}

/// `tx_locations.parquet`, written in bounded batches.
struct LocationsWriter {
    path: PathBuf,
    sink: ParquetSink<Hashing<AtomicFile>>,
    hashes: FixedSizeBinaryBuilder,
    blocks: UInt64Builder,
    indices: UInt32Builder,
}

impl LocationsWriter {
    fn create(path: &Path) -> Result<Self, PruneError> {
        let f = AtomicFile::create(path).map_err(io_at(path))?;
        let sink = ParquetSink::with_properties(
            Hashing::new(f),
            path,
            tx_locations_schema(),
            tx_locations_properties(),
        )
        .map_err(sink_err(path))?;
        Ok(LocationsWriter {
            path: path.to_path_buf(),
            sink,
            hashes: FixedSizeBinaryBuilder::with_capacity(PARQUET_ROWS, 32),
            blocks: UInt64Builder::with_capacity(PARQUET_ROWS),
            indices: UInt32Builder::with_capacity(PARQUET_ROWS),
        })
    }

    fn push(&mut self, hash: &Hash32, block: u64, index: u32) -> Result<(), PruneError> {
        self.hashes
            .append_value(hash)
            .map_err(|e| parquet_err(&self.path, e))?;
        self.blocks.append_value(block);
        self.indices.append_value(index);
        if self.blocks.len() >= PARQUET_ROWS {
            self.flush_batch()?;
        }
        Ok(())
    }

    fn flush_batch(&mut self) -> Result<(), PruneError> {
        if self.blocks.is_empty() {
            return Ok(());
        }
        let batch = RecordBatch::try_new(
            tx_locations_schema(),
            vec![
                Arc::new(self.hashes.finish()),
                Arc::new(self.blocks.finish()),
                Arc::new(self.indices.finish()),
            ],
        )
        .map_err(|e| parquet_err(&self.path, e))?;
        self.sink.write(&batch).map_err(sink_err(&self.path))
    }

    fn commit(mut self) -> Result<ListFile, PruneError> {
        self.flush_batch()?;
        let (hashing, rows) = self.sink.finish().map_err(sink_err(&self.path))?;
        let (f, rec) = hashing.finish(rows);
        f.commit_staged().map_err(io_at(&self.path))?;
        Ok(rec)
    }
}

fn parquet_err(path: &Path, source: arrow_schema::ArrowError) -> PruneError {
    PruneError::Arrow {
        path: path.display().to_string(),
        source,
    }
}

fn sink_err(_path: &Path) -> impl FnOnce(SinkError) -> PruneError {
    PruneError::Parquet
}

/// What one chunk of verified blocks contributes: hashes of blocks in range, their transactions, and the parent
/// hash of the file's first block (to chain files).
pub(super) struct ChunkOut {
    /// Parent hash of the file's first block, when this chunk holds it.
    pub(super) first_parent: Option<Hash32>,
    /// (number, hash) of each block in range, in order.
    pub(super) blocks: Vec<(u64, Hash32)>,
    /// (hash, block number, index in block) of each of their transactions, in order.
    pub(super) txs: Vec<(Hash32, u64, u32)>,
}

/// The lists written while files are verified, owned by the writer thread.
pub(super) struct Lists {
    dir: PathBuf,
    format: OutputFormat,
    block_hashes: ListWriter,
    block_txt: Option<ListWriter>,
    locations: LocationsWriter,
    sorter: ExternalSorter,
}

impl Lists {
    /// Starts every list in `dir` (the staging directory).
    pub(super) fn create(dir: &Path, opts: &PruneOptions) -> Result<Lists, PruneError> {
        Ok(Lists {
            dir: dir.to_path_buf(),
            format: opts.format,
            block_hashes: ListWriter::create(&dir.join(manifest::BLOCK_HASHES))?,
            block_txt: match opts.format {
                OutputFormat::Text => {
                    Some(ListWriter::create(&dir.join(manifest::BLOCK_HASHES_TXT))?)
                }
                OutputFormat::Binary => None,
            },
            locations: LocationsWriter::create(&dir.join(manifest::TX_LOCATIONS))?,
            sorter: ExternalSorter::new(opts.memory_budget, &dir.join(SPILL_DIR)),
        })
    }

    /// Starts the lists with those of an earlier manifest in `prior` (checked by [`super::check::check`]), which
    /// the new one extends: its block hash lists are copied, its locations re-encoded row by row (so row groups
    /// fall where a build from scratch puts them: the file is byte-identical), and its sorted transaction hashes
    /// (`tx_entries` of them) are merged with the new ones at the end, read in place.
    pub(super) fn seed(&mut self, prior: &Path, tx_entries: u64) -> Result<(), PruneError> {
        copy_list(
            &prior.join(manifest::BLOCK_HASHES),
            &mut self.block_hashes,
            32,
        )?;
        if let Some(t) = self.block_txt.as_mut() {
            copy_list(&prior.join(manifest::BLOCK_HASHES_TXT), t, 67)?;
        }
        let path = prior.join(manifest::TX_LOCATIONS);
        let f = fs::File::open(&path).map_err(io_at(&path))?;
        let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(f)
            .and_then(|b| b.with_batch_size(PARQUET_ROWS).build())
            .map_err(|e| PruneError::Io {
                path: path.display().to_string(),
                source: io::Error::other(e),
            })?;
        let wrong = |what: &str| PruneError::Io {
            path: path.display().to_string(),
            source: io::Error::other(format!("expected column {what}")),
        };
        for batch in reader {
            let batch = batch.map_err(|e| parquet_err(&path, e))?;
            let column = |i: usize| batch.column(i).as_any();
            let hashes = column(0)
                .downcast_ref::<arrow_array::FixedSizeBinaryArray>()
                .filter(|a| a.value_length() == 32)
                .ok_or_else(|| wrong("transaction_hash as 32-byte values"))?;
            let blocks = column(1)
                .downcast_ref::<arrow_array::UInt64Array>()
                .ok_or_else(|| wrong("block_number as u64"))?;
            let indices = column(2)
                .downcast_ref::<arrow_array::UInt32Array>()
                .ok_or_else(|| wrong("transaction_index as u32"))?;
            for r in 0..batch.num_rows() {
                let h: &Hash32 = hashes
                    .value(r)
                    .try_into()
                    .map_err(|_| wrong("transaction_hash as 32-byte values"))?;
                self.locations.push(h, blocks.value(r), indices.value(r))?;
            }
        }
        self.sorter
            .add_sorted_run(&prior.join(manifest::TX_HASHES), tx_entries);
        Ok(())
    }

    /// Appends one verified chunk (already checked to be the next blocks in order).
    pub(super) fn add(&mut self, chunk: &ChunkOut) -> Result<(), PruneError> {
        let bpath = self.dir.join(manifest::BLOCK_HASHES);
        for (_, h) in &chunk.blocks {
            self.block_hashes.hash(h).map_err(io_at(&bpath))?;
            if let Some(t) = self.block_txt.as_mut() {
                t.hex_line(h).map_err(io_at(&bpath))?;
            }
        }
        for (h, b, i) in &chunk.txs {
            self.locations.push(h, *b, *i)?;
            self.sorter.push(*h)?;
        }
        Ok(())
    }

    /// Finishes every list and writes `ranges.json`, returning each file's integrity record by name.
    ///
    /// The finished lists are committed (each an fsync) on helper threads while the transaction hashes are
    /// sorted and written.
    pub(super) fn finish(
        self,
        ranges: &Ranges,
    ) -> Result<(BTreeMap<String, ListFile>, SortStats), PruneError> {
        let Lists {
            dir,
            format,
            block_hashes,
            block_txt,
            locations,
            sorter,
        } = self;
        let dir = dir.as_path();
        let ranges_path = dir.join(manifest::RANGES);
        let spill_dir = dir.join(SPILL_DIR);
        let tx_path = dir.join(manifest::TX_HASHES);
        // Commit the finished lists (each an fsync) while the transaction hashes are sorted and written.
        std::thread::scope(|s| -> Result<_, PruneError> {
            let blocks = s.spawn(
                move || -> Result<Vec<(&'static str, ListFile)>, PruneError> {
                    let mut v = vec![(manifest::BLOCK_HASHES, block_hashes.commit()?)];
                    if let Some(t) = block_txt {
                        v.push((manifest::BLOCK_HASHES_TXT, t.commit()?));
                    }
                    Ok(v)
                },
            );
            let locs = s.spawn(move || locations.commit());
            let rng = s.spawn(|| write_json(&ranges_path, ranges));

            let mut tx_bin = ListWriter::create(&tx_path)?;
            let mut tx_txt = match format {
                OutputFormat::Text => Some(ListWriter::create(&dir.join(manifest::TX_HASHES_TXT))?),
                OutputFormat::Binary => None,
            };
            let sort = sorter.finish(
                |h| {
                    tx_bin.hash(h)?;
                    if let Some(t) = tx_txt.as_mut() {
                        t.hex_line(h)?;
                    }
                    Ok(())
                },
                &tx_path,
            );
            let tx_files = sort.map_err(PruneError::from).and_then(|sort| {
                // Absent when nothing spilled.
                let _ = fs::remove_dir_all(&spill_dir);
                let mut v = vec![(manifest::TX_HASHES, tx_bin.commit()?)];
                if let Some(t) = tx_txt {
                    v.push((manifest::TX_HASHES_TXT, t.commit()?));
                }
                Ok((v, sort))
            });
            let panicked = |what: &str| PruneError::Io {
                path: dir.display().to_string(),
                source: io::Error::other(format!("{what} thread panicked")),
            };
            let blocks = blocks.join().map_err(|_| panicked("block list"))?;
            let locs = locs.join().map_err(|_| panicked("locations"))?;
            let rng = rng.join().map_err(|_| panicked("ranges"))?;
            let (tx_files, sort) = tx_files?;
            let mut files = BTreeMap::new();
            for (name, rec) in blocks?.into_iter().chain(tx_files) {
                files.insert(name.to_string(), rec);
            }
            files.insert(manifest::TX_LOCATIONS.to_string(), locs?);
            files.insert(manifest::RANGES.to_string(), rng?);
            Ok((files, sort))
        })
    }
}

/// Copies the list file `from` (entries of `entry` bytes each) into `to`.
fn copy_list(from: &Path, to: &mut ListWriter, entry: u64) -> Result<(), PruneError> {
    let mut f = io::BufReader::with_capacity(1 << 20, fs::File::open(from).map_err(io_at(from))?);
    let copied = io::copy(&mut f, &mut to.out).map_err(io_at(from))?;
    to.entries += copied / entry;
    Ok(())
}

/// Writes pretty JSON plus a newline atomically into the staging directory (synced once when the directory is
/// installed) and returns its integrity record.
pub(super) fn write_json<T: serde::Serialize>(
    path: &Path,
    value: &T,
) -> Result<ListFile, PruneError> {
    let mut bytes = serde_json::to_vec_pretty(value).map_err(|e| PruneError::Io {
        path: path.display().to_string(),
        source: io::Error::other(e),
    })?;
    bytes.push(b'\n');
    let mut f = AtomicFile::create(path).map_err(io_at(path))?;
    f.write_all(&bytes).map_err(io_at(path))?;
    f.commit_staged().map_err(io_at(path))?;
    Ok(ListFile {
        sha256: hex::encode(crate::crypto::sha256::sha256(&bytes)),
        bytes: bytes.len() as u64,
        entries: 0,
    })
}
