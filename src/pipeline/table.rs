//! `eraflow table`: the upkeep of a Delta output's tables (`--table-format delta`) — `check` that each table's
//! log, its files and eraflow's completion records agree; `optimize` (compact a partition's small files into
//! bigger ones); `vacuum` (delete the files commits removed, once older than a retention).
//!
//! Compaction keeps the records true: the compacted file is written and published, the records of the sources
//! it holds are rewritten to name it, and only then does one commit remove the small files and add it. A crash
//! before the commit leaves records naming a file no commit added while the small files, still in the table,
//! hold the rows: no row is lost or doubled, `table check` names the records, and the next `table optimize`
//! compacts the same files under the same name and commits them.

use super::job::JobError;
use crate::sink::manifest::{self, CompletionRecord, OutputEntry};
use crate::sink::parquet::{FileLayout, ParquetOptions, ParquetSink};
use crate::store::delta::{add_action, in_table, now_ms, DeltaTables, Open, COMPACTED, PARTITION};
use crate::store::output::{staging_dir, OutputStore, StoreError};
use deltalake_core::kernel::transaction::{CommitBuilder, CommitProperties, TableReference};
use deltalake_core::kernel::{Action, Remove};
use deltalake_core::protocol::DeltaOperation;
use deltalake_core::DeltaTableError;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;

/// Files below this size are compacted by default; groups are filled up to it.
pub const DEFAULT_TARGET_BYTES: u64 = 128 << 20;

/// A table output opened: its store, tables, completion records and the datasets with a table.
struct TableOutput {
    store: OutputStore,
    tables: DeltaTables,
    records: Vec<CompletionRecord>,
    datasets: Vec<String>,
}

/// The table output at `out`, which must be an existing output with at least one Delta table: a usage error
/// otherwise (a plain Parquet output has nothing to check, optimize or vacuum, and saying "0 tables" would read
/// as a pass).
fn open(out: &str) -> Result<TableOutput, JobError> {
    let store = super::commands::existing_output(out, "table")?;
    let tables = store.tables()?;
    let records = store.all_records()?;
    let datasets = tabled(&tables, &records)?;
    if datasets.is_empty() {
        return Err(JobError::Invalid {
            key: "table",
            message: format!(
                "{}: not a table output: no dataset of it is a Delta table (`eraflow table` keeps the tables \
                 of an `export --table-format delta`; a plain Parquet output has none)",
                store.name()
            ),
        });
    }
    Ok(TableOutput {
        store,
        tables,
        records,
        datasets,
    })
}

/// The datasets with a table in the output: every dataset eraflow knows and every one its records name
/// (decoded events), those whose folder holds a Delta log.
fn tabled(tables: &DeltaTables, records: &[CompletionRecord]) -> Result<Vec<String>, JobError> {
    let mut names: Vec<String> = crate::datasets::ALL
        .iter()
        .map(|d| d.name().to_string())
        .chain(records.iter().map(|r| r.dataset.clone()))
        .collect();
    names.sort();
    names.dedup();
    let mut out = Vec::new();
    for n in names {
        if tables.table(&n).map_err(StoreError::from)?.is_some() {
            out.push(n);
        }
    }
    Ok(out)
}

/// What `eraflow table check` found in one table.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct TableVerdict {
    /// The dataset.
    pub dataset: String,
    /// The table's version.
    pub version: u64,
    /// Files in the table.
    pub files: usize,
    /// Files the log holds that the storage lacks, or holds at another size.
    pub missing_files: Vec<String>,
    /// Records naming a file the table does not hold (with the size recorded): `source: path`.
    pub unlisted_records: Vec<String>,
    /// Files the table holds that no record names (a commit whose record a crash kept from being written:
    /// the next export writes it).
    pub unrecorded_files: Vec<String>,
}

impl TableVerdict {
    /// Whether the log, the files and the records agree.
    pub fn ok(&self) -> bool {
        self.missing_files.is_empty()
            && self.unlisted_records.is_empty()
            && self.unrecorded_files.is_empty()
    }
}

/// `eraflow table check OUT`: for every table, each file its log holds is in the storage with the logged
/// size, each completion record's output is a file of the table with the recorded size, and each file of the
/// table is some record's output.
pub fn check(out: &str) -> Result<Vec<TableVerdict>, JobError> {
    let TableOutput {
        store,
        tables,
        records,
        datasets,
    } = open(out)?;
    let mut verdicts = Vec::new();
    for dataset in datasets {
        let (version, files) = tables
            .with_table(&dataset, async |t: &mut Open| {
                t.table.update_incremental(None).await?;
                t.refresh_files()?;
                Ok((t.table.version().unwrap_or(0), t.files.clone()))
            })
            .map_err(StoreError::from)?;
        let mut v = TableVerdict {
            dataset: dataset.clone(),
            version,
            files: files.len(),
            ..Default::default()
        };
        let mut named: HashSet<&str> = HashSet::new();
        for r in records.iter().filter(|r| r.dataset == dataset) {
            let Some(o) = &r.output else { continue };
            let path = in_table(&dataset, &o.path);
            named.insert(path);
            if files.get(path) != Some(&(o.bytes as i64)) {
                v.unlisted_records.push(format!("{}: {}", r.source, o.path));
            }
        }
        let mut paths: Vec<(&String, &i64)> = files.iter().collect();
        paths.sort();
        for (path, size) in paths {
            let rel = format!("{dataset}/{path}");
            match store.storage().head(&rel)? {
                Some(m) if m.size as i64 == *size => {}
                _ => v.missing_files.push(rel.clone()),
            }
            if !named.contains(path.as_str()) {
                v.unrecorded_files.push(rel);
            }
        }
        verdicts.push(v);
    }
    Ok(verdicts)
}

/// What `eraflow table vacuum` deleted (or would have).
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Vacuumed {
    /// The dataset.
    pub dataset: String,
    /// Files deleted (or, dry run, to be deleted).
    pub files: Vec<String>,
}

/// `eraflow table vacuum OUT --retain HOURS`: deletes the files that commits removed (compacted away) more than
/// `retain_hours` ago, from every table (delta-rs's lite vacuum: a file no commit ever added, as an export
/// under way has, is never touched).
pub fn vacuum(out: &str, retain_hours: u64, dry_run: bool) -> Result<Vec<Vacuumed>, JobError> {
    let TableOutput {
        tables, datasets, ..
    } = open(out)?;
    let mut done = Vec::new();
    for dataset in datasets {
        let files = tables
            .with_table(&dataset, async |t: &mut Open| {
                t.table.update_incremental(None).await?;
                let (table, metrics) = t
                    .table
                    .clone()
                    .vacuum()
                    .with_retention_period(chrono::Duration::hours(retain_hours as i64))
                    .with_enforce_retention_duration(false)
                    .with_dry_run(dry_run)
                    .await?;
                t.table = table;
                Ok(metrics.files_deleted)
            })
            .map_err(StoreError::from)?;
        done.push(Vacuumed { dataset, files });
    }
    Ok(done)
}

/// What `eraflow table optimize` did to one table.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Optimized {
    /// The dataset.
    pub dataset: String,
    /// Files compacted away.
    pub files_removed: usize,
    /// Compacted files written.
    pub files_added: usize,
    /// Rows rewritten.
    pub rows: u64,
    /// Bytes read.
    pub bytes_read: u64,
    /// Bytes written.
    pub bytes_written: u64,
}

/// `eraflow table optimize OUT`: in every table and partition, runs of consecutive (chain-ordered) files
/// smaller than `target_bytes` are rewritten as one file of their rows in the same order, with `parquet`'s
/// encoding and the dataset's layout.
pub fn optimize(
    out: &str,
    target_bytes: u64,
    parquet: &ParquetOptions,
) -> Result<Vec<Optimized>, JobError> {
    let TableOutput {
        store,
        tables,
        records,
        datasets,
    } = open(out)?;
    let local = match store.storage().tables_root() {
        Some(crate::store::delta::TablesRoot::Local(root)) => Some(root),
        _ => None,
    };
    let mut report = Vec::new();
    for dataset in datasets {
        let files = tables
            .with_table(&dataset, async |t: &mut Open| {
                t.table.update_incremental(None).await?;
                t.refresh_files()?;
                Ok(t.files.clone())
            })
            .map_err(StoreError::from)?;
        let mut done = Optimized {
            dataset: dataset.clone(),
            ..Default::default()
        };
        let c = Compaction {
            store: &store,
            tables: &tables,
            dataset: &dataset,
            local: local.as_deref(),
            parquet,
            records: &records,
        };
        for group in groups(&files, target_bytes) {
            let (rows, read, written) = c.run(&group)?;
            done.files_removed += group.len();
            done.files_added += 1;
            done.rows += rows;
            done.bytes_read += read;
            done.bytes_written += written;
        }
        report.push(done);
    }
    if report.iter().any(|r| r.files_added > 0) {
        store.rebuild_manifest()?;
    }
    Ok(report)
}

/// The groups of small files to compact: per partition, in path (chain) order, consecutive files below
/// `target` filled up to it; only groups of two files or more.
fn groups(files: &HashMap<String, i64>, target: u64) -> Vec<Vec<(String, u64)>> {
    let mut by_partition: BTreeMap<&str, Vec<(&String, u64)>> = BTreeMap::new();
    for (path, size) in files {
        let partition = path.rsplit_once('/').map_or("", |(dir, _)| dir);
        by_partition
            .entry(partition)
            .or_default()
            .push((path, *size as u64));
    }
    let mut out = Vec::new();
    for (_, mut list) in by_partition {
        list.sort();
        let mut group: Vec<(String, u64)> = Vec::new();
        let mut bytes = 0u64;
        let flush = |group: &mut Vec<(String, u64)>, out: &mut Vec<Vec<(String, u64)>>| {
            if group.len() >= 2 {
                out.push(std::mem::take(group));
            }
            group.clear();
        };
        for (path, size) in list {
            if size >= target {
                flush(&mut group, &mut out);
                bytes = 0;
                continue;
            }
            if bytes + size > target {
                flush(&mut group, &mut out);
                bytes = 0;
            }
            bytes += size;
            group.push((path.clone(), size));
        }
        flush(&mut group, &mut out);
    }
    out
}

/// One group of a table's files being compacted.
struct Compaction<'a> {
    store: &'a OutputStore,
    tables: &'a DeltaTables,
    dataset: &'a str,
    /// The output directory of a local output (written in place); `None`: staged, then uploaded.
    local: Option<&'a std::path::Path>,
    parquet: &'a ParquetOptions,
    records: &'a [CompletionRecord],
}

impl Compaction<'_> {
    /// Compacts `group` (paths within the table, sizes): rows, bytes read, bytes written.
    fn run(&self, group: &[(String, u64)]) -> Result<(u64, u64, u64), JobError> {
        use sha2::Digest;
        let dataset = self.dataset;
        let partition = group[0].0.rsplit_once('/').map_or("", |(d, _)| d);
        let network = partition
            .strip_prefix(&format!("{PARTITION}="))
            .unwrap_or(partition)
            .to_string();
        // Named by what it holds: the same group compacts to the same name.
        let mut h = sha2::Sha256::new();
        for (p, _) in group {
            h.update(p.as_bytes());
            h.update(b"\n");
        }
        let id = hex::encode(&h.finalize()[..8]);
        let name = format!("{network}__{dataset}{COMPACTED}{id}.parquet");
        let file = format!("{partition}/{name}");
        let rel = format!("{dataset}/{file}");
        let dest: PathBuf = match self.local {
            Some(root) => root.join(&rel),
            None => staging_dir().join(&rel),
        };
        let mut sink: Option<ParquetSink> = None;
        let (mut rows, mut read) = (0u64, 0u64);
        for (path, _) in group {
            let src = format!("{dataset}/{path}");
            let Some((bytes, _)) = self.store.storage().get(&src)? else {
                return Err(JobError::Invalid {
                    key: "table",
                    message: format!(
                        "{}: in the table's log but not in the storage (run `eraflow table check`)",
                        self.store.location(&src)
                    ),
                });
            };
            read += bytes.len() as u64;
            let parquet_err = |e: parquet::errors::ParquetError| JobError::Invalid {
                key: "table",
                message: format!("{}: {e}", self.store.location(&src)),
            };
            let reader = ParquetRecordBatchReaderBuilder::try_new(bytes::Bytes::from(bytes))
                .map_err(parquet_err)?
                .build()
                .map_err(parquet_err)?;
            for batch in reader {
                let batch = batch.map_err(|e| parquet_err(e.into()))?;
                let s = match &mut sink {
                    Some(s) => s,
                    None => sink.insert(self.sink(&dest, batch.schema(), &network, group)?),
                };
                rows += batch.num_rows() as u64;
                s.write(&batch).map_err(JobError::Parquet)?;
            }
        }
        let Some(sink) = sink else {
            return Ok((0, read, 0));
        };
        let (path, _) = sink.commit().map_err(JobError::Parquet)?;
        let written = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        let sha256 = manifest::file_sha256(&path).unwrap_or_default();
        let published = self.store.publish(&rel, &path)?;
        // The records of the sources it holds name it before the commit makes it the table's.
        let compacted: HashSet<&str> = group.iter().map(|(p, _)| p.as_str()).collect();
        for r in self.records.iter().filter(|r| r.dataset == dataset) {
            let Some(o) = &r.output else { continue };
            if !compacted.contains(in_table(dataset, &o.path)) {
                continue;
            }
            let mut new = r.clone();
            new.output = Some(OutputEntry {
                dataset: dataset.to_string(),
                path: rel.clone(),
                rows: o.rows,
                bytes: written,
                sha256: sha256.clone(),
                mtime_ns: published.mtime_ns,
                etag: published.etag.clone(),
            });
            self.store.write_record(&new)?;
        }
        let now = now_ms();
        let mut actions: Vec<Action> = group
            .iter()
            .map(|(p, size)| {
                Action::Remove(Remove {
                    path: p.clone(),
                    data_change: false,
                    deletion_timestamp: Some(now),
                    extended_file_metadata: Some(true),
                    partition_values: Some(HashMap::from([(
                        PARTITION.to_string(),
                        Some(network.clone()),
                    )])),
                    size: Some(*size as i64),
                    ..Default::default()
                })
            })
            .collect();
        actions.push(Action::Add(add_action(
            &file, &network, written, rows, false,
        )));
        let target = group.iter().map(|(_, s)| *s).sum::<u64>() as i64;
        self.tables
            .with_table(dataset, async |t: &mut Open| {
                t.table.update_incremental(None).await?;
                let state = t.table.snapshot()?;
                let done = CommitBuilder::from(CommitProperties::default())
                    .with_actions(actions)
                    .build(
                        Some(state as &dyn TableReference),
                        t.table.log_store(),
                        DeltaOperation::Optimize {
                            predicate: None,
                            target_size: target,
                        },
                    )
                    .await?;
                t.table.update_incremental(Some(done.version())).await?;
                t.refresh_files()?;
                Ok::<_, DeltaTableError>(())
            })
            .map_err(StoreError::from)?;
        Ok((rows, read, written))
    }

    /// The sink of the compacted file: the dataset's layout where eraflow knows it (a decoded event's: plain),
    /// its rows' portable schema as read.
    fn sink(
        &self,
        dest: &std::path::Path,
        schema: arrow_schema::SchemaRef,
        network: &str,
        group: &[(String, u64)],
    ) -> Result<ParquetSink, JobError> {
        let mut layout = match crate::datasets::ALL
            .iter()
            .find(|d| d.name() == self.dataset)
        {
            Some(d) => FileLayout::of(*d, schema),
            None => FileLayout::plain(schema),
        };
        layout.metadata = vec![
            ("eraflow.version".into(), env!("CARGO_PKG_VERSION").into()),
            (
                "eraflow.schema_version".into(),
                crate::datasets::SCHEMA_VERSION.to_string(),
            ),
            ("eraflow.dataset".into(), self.dataset.into()),
            ("eraflow.network".into(), network.into()),
            (
                "eraflow.compacted_from".into(),
                group
                    .iter()
                    .map(|(p, _)| p.rsplit('/').next().unwrap_or(p))
                    .collect::<Vec<_>>()
                    .join(","),
            ),
        ];
        ParquetSink::create_dataset(dest, &layout, self.parquet).map_err(JobError::Parquet)
    }
}
