//! Delta Lake tables (`--table-format delta`): each dataset a Delta table at `OUT/<dataset>/`, partitioned by
//! `network`, whose data files are exactly the Parquet files a plain export writes (same names, same bytes). The
//! table log (`OUT/<dataset>/_delta_log/`) is what readers trust: a file is part of the table once a commit
//! adds it.
//!
//! - **Commits**: a source's file of a dataset is published first, then added to the table by one commit, then
//!   its completion record is written. A crash between publishing and committing leaves a file no commit names
//!   (rewritten identically and committed by the rerun); a crash between committing and the record makes the
//!   rerun publish the same bytes and find its commit already there: every commit carries the application
//!   transaction (`txn`) `eraflow:<source>:<file sha256 prefix>`, and a commit whose `txn` the table holds is
//!   not made again. Re-adding a path the table holds replaces that file's entry (the Delta protocol's rule), so
//!   even a repeated commit never doubles rows.
//! - **Many writers**: commits go through delta-rs's optimistic concurrency (a commit file put only if absent;
//!   on conflict the winner's commit is read and the append retried), on a local disk and on object stores
//!   with conditional puts (S3, GCS, Azure) alike.
//! - **Every dataset queryable**: the tables of a run's datasets that the output does not hold yet are created,
//!   with their schemas, before any source is read, so a table with no rows yet is an empty table, not a missing
//!   folder; an existing table's schema is checked (and evolved by added columns) when a source is first
//!   committed to it.
//!
//! Written on delta-rs (`deltalake-core`) without its DataFusion layer (a build several times eraflow's own):
//! data files come from eraflow's own Parquet writer, and the table gets them as `add` actions.

use super::runtime;
use arrow_schema::Schema;
use deltalake_core::kernel::engine::arrow_conversion::TryIntoKernel as _;
use deltalake_core::kernel::transaction::{CommitBuilder, CommitProperties, TableReference};
use deltalake_core::kernel::{Action, Add, DataType, StructField, StructType, Transaction};
use deltalake_core::logstore::logstore_factories;
use deltalake_core::protocol::{DeltaOperation, SaveMode};
use deltalake_core::{DeltaTable, DeltaTableBuilder, DeltaTableError, ObjectStore};
use std::collections::HashMap;
use std::future::IntoFuture as _;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use url::Url;

/// The partition column of every table (the `network=<name>` folders of a plain export).
pub const PARTITION: &str = "network";

/// How many commits a table's log takes between checkpoints (Spark's default): a reader, and every run that
/// loads the table, replays at most this many JSON commits after the last checkpoint, so a no-op rerun's reads
/// of a table stay bounded however many sources it holds.
pub const CHECKPOINT_INTERVAL: u64 = 10;

/// How an export's datasets are published.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "snake_case")]
pub enum TableFormat {
    /// A folder of Parquet files per dataset (read with a glob), eraflow's records beside them.
    #[default]
    Parquet,
    /// A Delta Lake table per dataset over the same files, each source added by one commit.
    Delta,
}

impl TableFormat {
    /// The name used on the command line and in pipeline files.
    pub fn name(self) -> &'static str {
        match self {
            TableFormat::Parquet => "parquet",
            TableFormat::Delta => "delta",
        }
    }
}

impl std::str::FromStr for TableFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "parquet" => Ok(TableFormat::Parquet),
            "delta" => Ok(TableFormat::Delta),
            other => Err(format!(
                "unknown table format {other:?} (expected \"parquet\" or \"delta\")"
            )),
        }
    }
}

/// Where the tables of an output live: the output directory, or an object store with the URL of the output
/// prefix (the store's root being the bucket's).
#[derive(Clone)]
pub enum TablesRoot {
    /// A local output directory (absolute).
    Local(PathBuf),
    /// An object-store output: the bucket's store and `scheme://bucket/prefix/`.
    Object(Arc<dyn ObjectStore>, Url),
}

impl std::fmt::Debug for TablesRoot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TablesRoot::Local(p) => write!(f, "Local({})", p.display()),
            TablesRoot::Object(_, u) => write!(f, "Object({u})"),
        }
    }
}

/// Why a table could not be created, read or committed to.
#[derive(Debug, thiserror::Error)]
pub enum DeltaError {
    /// delta-rs refused or failed.
    #[error("Delta table {table}")]
    Table {
        /// The table's location.
        table: String,
        /// The cause.
        #[source]
        source: Box<DeltaTableError>,
    },
    /// The table holds another schema than this eraflow writes, not one it can evolve from.
    #[error(
        "Delta table {table}: its schema is not the one this eraflow writes ({why}); export this schema \
         version into a new output (not {out})"
    )]
    Schema {
        /// The table's location.
        table: String,
        /// The output it belongs to.
        out: String,
        /// What differs.
        why: String,
    },
    /// A source's rows of this dataset are in a file `eraflow table optimize` compacted: adding the source's new
    /// file would hold them twice.
    #[error(
        "Delta table {table}: the rows of {source_file} are in the compacted file {file}; re-exporting it with \
         other options would hold them twice (export into a new output to change options)"
    )]
    Compacted {
        /// The table's location.
        table: String,
        /// The source archive.
        source_file: String,
        /// The compacted file holding its rows.
        file: String,
    },
    /// The output's storage cannot hold Delta tables.
    #[error("{0}: Delta tables need a local directory or an s3://, gs:// or az:// output")]
    Unsupported(String),
    /// The runtime could not start.
    #[error("tokio runtime: {0}")]
    Runtime(std::io::Error),
}

/// A data file of one source, to be added to its dataset's table.
#[derive(Debug, Clone)]
pub struct AddedFile<'a> {
    /// The source archive's file name (the idempotence key's first half).
    pub source: &'a str,
    /// The file relative to the output (`<dataset>/network=<name>/<file>.parquet`).
    pub rel: &'a str,
    /// Its network (the partition value).
    pub network: &'a str,
    /// Bytes.
    pub bytes: u64,
    /// Rows.
    pub rows: u64,
    /// Hex sha256 of its bytes (the idempotence key's second half).
    pub sha256: &'a str,
}

/// The tables of one output, opened once per run; each table's state is kept and brought up to date at each
/// commit (only the commits made since are read).
pub struct DeltaTables {
    root: TablesRoot,
    out: String,
    rt: &'static tokio::runtime::Runtime,
    open: Mutex<HashMap<String, Arc<Mutex<Open>>>>,
    /// Tables whose schema this run has checked (or made).
    ensured: Mutex<std::collections::HashSet<String>>,
    /// Tables this run created: records of earlier runs name no file of theirs.
    created: Mutex<std::collections::HashSet<String>>,
}

/// A table as this run keeps it: its state, and its files (path within the table -> size) as of that state.
pub struct Open {
    /// The table and its loaded state.
    pub table: DeltaTable,
    /// The table's files.
    pub files: HashMap<String, i64>,
}

impl Open {
    /// Takes the table's files from its loaded state (in memory: the log is not read again).
    pub fn refresh_files(&mut self) -> Result<(), DeltaTableError> {
        let state = self.table.snapshot()?;
        self.files = state
            .snapshot()
            .try_log_data()?
            .into_iter()
            .map(|f| (f.path().into_owned(), f.size()))
            .collect();
        Ok(())
    }
}

impl std::fmt::Debug for DeltaTables {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DeltaTables({:?})", self.root)
    }
}

/// The log stores of object-store schemes: delta-rs's default one, whose commits are conditional puts (put if
/// absent), which S3, GCS and Azure all have; registered once per process.
fn register_schemes() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        // delta-rs keeps its default factory private; the one it registers for local files is it.
        let registry = logstore_factories();
        let default = Url::parse("file://")
            .ok()
            .and_then(|u| registry.get(&u).map(|f| f.value().clone()));
        let Some(factory) = default else {
            return;
        };
        for scheme in ["s3://", "gs://", "az://"] {
            if let Ok(u) = Url::parse(scheme) {
                registry.insert(u, factory.clone());
            }
        }
    });
}

/// What names a file `eraflow table optimize` wrote: `<network>__<dataset>__compacted_<id>.parquet`.
pub const COMPACTED: &str = "__compacted_";

/// The path within `dataset`'s table of the output file `rel` (`<dataset>/network=.../file.parquet`).
pub fn in_table<'a>(dataset: &str, rel: &'a str) -> &'a str {
    rel.strip_prefix(dataset)
        .and_then(|r| r.strip_prefix('/'))
        .unwrap_or(rel)
}

/// The path, relative to the output, of the first commit of `dataset`'s table (the one that creates it): the
/// table exists exactly when its log holds that file.
pub fn first_commit(dataset: &str) -> String {
    format!("{dataset}/_delta_log/00000000000000000000.json")
}

/// The idempotence key of a source's file: its `txn` application id.
pub fn app_id(source: &str, sha256: &str) -> String {
    format!("eraflow:{source}:{}", &sha256[..sha256.len().min(16)])
}

/// The table schema of a dataset: its columns, then the partition column.
pub fn table_schema(schema: &Schema) -> Result<StructType, DeltaTableError> {
    let columns: StructType = schema.try_into_kernel()?;
    let mut fields: Vec<StructField> = columns.fields().cloned().collect();
    fields.push(StructField::new(PARTITION, DataType::STRING, true));
    Ok(StructType::try_new(fields)?)
}

impl DeltaTables {
    /// The tables under `root`; `out` names the output in messages.
    pub fn new(root: TablesRoot, out: String) -> Result<DeltaTables, DeltaError> {
        register_schemes();
        Ok(DeltaTables {
            root,
            out,
            rt: runtime::runtime().map_err(DeltaError::Runtime)?,
            open: Mutex::new(HashMap::new()),
            ensured: Mutex::new(Default::default()),
            created: Mutex::new(Default::default()),
        })
    }

    /// The location of `dataset`'s table, for messages.
    pub fn location(&self, dataset: &str) -> String {
        match &self.root {
            TablesRoot::Local(p) => p.join(dataset).display().to_string(),
            TablesRoot::Object(_, u) => format!("{u}{dataset}"),
        }
    }

    fn err(&self, dataset: &str) -> impl Fn(DeltaTableError) -> DeltaError + '_ {
        let table = self.location(dataset);
        move |source| DeltaError::Table {
            table: table.clone(),
            source: Box::new(source),
        }
    }

    /// A builder of `dataset`'s table.
    fn builder(&self, dataset: &str) -> Result<DeltaTableBuilder, DeltaError> {
        let e = self.err(dataset);
        match &self.root {
            TablesRoot::Local(p) => {
                // A table's URL needs an absolute path; a root given relative (a library caller's, the
                // bench's `--dir`) is taken from the working directory.
                let dir = std::path::absolute(p.join(dataset))
                    .map_err(|err| e(DeltaTableError::from(err)))?;
                std::fs::create_dir_all(&dir).map_err(|err| e(DeltaTableError::from(err)))?;
                let url = Url::from_directory_path(&dir)
                    .map_err(|()| DeltaError::Unsupported(dir.display().to_string()))?;
                DeltaTableBuilder::from_url(url).map_err(e)
            }
            TablesRoot::Object(store, base) => {
                let url = base
                    .join(&format!("{dataset}/"))
                    .map_err(|_| DeltaError::Unsupported(base.to_string()))?;
                Ok(DeltaTableBuilder::from_url(url.clone())
                    .map_err(e)?
                    .with_storage_backend(store.clone(), url))
            }
        }
    }

    /// The table of `dataset` as kept by this run, loaded on first use; `None` when there is none yet.
    pub fn table(&self, dataset: &str) -> Result<Option<Arc<Mutex<Open>>>, DeltaError> {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(t) = open.get(dataset) {
            return Ok(Some(t.clone()));
        }
        let mut table = self.builder(dataset)?.build().map_err(self.err(dataset))?;
        // Asked first: loading a table that is not there logs an error from inside delta-rs.
        let exists = self.rt.block_on(table.verify_deltatable_existence());
        if !exists.map_err(self.err(dataset))? {
            return Ok(None);
        }
        match self.rt.block_on(table.load()) {
            Ok(()) => {}
            Err(DeltaTableError::NotATable(_)) => return Ok(None),
            Err(e) => return Err(self.err(dataset)(e)),
        }
        let mut open_table = Open {
            table,
            files: HashMap::new(),
        };
        open_table.refresh_files().map_err(self.err(dataset))?;
        let t = Arc::new(Mutex::new(open_table));
        open.insert(dataset.to_string(), t.clone());
        Ok(Some(t))
    }

    /// Makes sure `dataset`'s table exists with the schema `schema` (and the `network` partition): created when
    /// absent (by this writer or, concurrently, another: either's creation stands), a table of the same
    /// columns kept, one whose columns this schema extends evolved by a metadata commit, any other refused.
    pub fn ensure(&self, dataset: &str, schema: &Schema) -> Result<(), DeltaError> {
        let e = self.err(dataset);
        let wanted = table_schema(schema).map_err(&e)?;
        if self.table(dataset)?.is_none() {
            let log_store = self.builder(dataset)?.build_storage().map_err(&e)?;
            let create = deltalake_core::operations::create::CreateBuilder::new()
                .with_log_store(log_store)
                .with_table_name(dataset)
                .with_columns(wanted.fields().cloned())
                .with_partition_columns([PARTITION])
                .with_save_mode(SaveMode::Ignore)
                .with_configuration_property(
                    deltalake_core::TableProperty::CheckpointInterval,
                    Some(CHECKPOINT_INTERVAL.to_string()),
                )
                // Never retried as a later version: a second creation would be a second protocol and
                // metadata, which every concurrent append then conflicts with.
                .with_commit_properties(
                    app_metadata(CommitProperties::default()).with_max_retries(0),
                );
            match self.rt.block_on(create.into_future()) {
                Ok(_) => {
                    self.created
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .insert(dataset.to_string());
                }
                // Another writer created it first: theirs stands (checked below like any existing table).
                Err(err) => {
                    if self.table(dataset)?.is_none() {
                        return Err(e(err));
                    }
                }
            }
        }
        self.take_schema(dataset, &wanted)?;
        self.ensured
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(dataset.to_string());
        Ok(())
    }

    /// Brings `dataset`'s table to take rows of `wanted`: as it is when it does, by one commit adding the
    /// columns a newer schema version adds, refused otherwise.
    fn take_schema(&self, dataset: &str, wanted: &StructType) -> Result<(), DeltaError> {
        let e = self.err(dataset);
        let Some(table) = self.table(dataset)? else {
            return Err(e(DeltaTableError::NotATable(self.location(dataset))));
        };
        let mut open = table.lock().unwrap_or_else(PoisonError::into_inner);
        let have = open.table.snapshot().map_err(&e)?.schema();
        let refused = |why| DeltaError::Schema {
            table: self.location(dataset),
            out: self.out.clone(),
            why,
        };
        let added = evolution(&have, wanted).map_err(refused)?;
        if added.is_empty() {
            return Ok(());
        }
        // A newer schema version's added columns: one schema-change commit (rows of older files read as null).
        let names: Vec<String> = added.iter().map(|f| f.name().clone()).collect();
        tracing::info!(table = %self.location(dataset), columns = ?names, "adding columns to a Delta table");
        let add = open
            .table
            .clone()
            .add_columns()
            .with_fields(added)
            .with_commit_properties(app_metadata(CommitProperties::default()));
        let outcome = self.rt.block_on(add.into_future());
        // Another writer may have added them first: either way the table must now take the schema.
        self.rt
            .block_on(open.table.update_incremental(None))
            .and_then(|()| open.refresh_files())
            .map_err(&e)?;
        let have = open.table.snapshot().map_err(&e)?.schema();
        match evolution(&have, wanted) {
            Ok(left) if left.is_empty() => Ok(()),
            _ => match outcome {
                Err(err) => Err(e(err)),
                Ok(_) => Err(refused(schema_difference(&have, wanted))),
            },
        }
    }

    /// [`DeltaTables::ensure`], once per run and table: a table whose existence the output's listing showed
    /// is checked only when a source is first committed to it, so a no-op rerun reads no table.
    pub fn ensure_once(&self, dataset: &str, schema: &Schema) -> Result<(), DeltaError> {
        let done = self
            .ensured
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(dataset);
        match done {
            true => Ok(()),
            false => self.ensure(dataset, schema),
        }
    }

    /// Whether this run created `dataset`'s table (so that no earlier record names a file of it).
    pub fn created(&self, dataset: &str) -> bool {
        self.created
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(dataset)
    }

    /// Whether `dataset`'s table, as this run knows it, holds the file `rel` (relative to the output) with size
    /// `bytes`.
    pub fn holds(&self, dataset: &str, rel: &str, bytes: u64) -> Result<bool, DeltaError> {
        let Some(table) = self.table(dataset)? else {
            return Ok(false);
        };
        let table = table.lock().unwrap_or_else(PoisonError::into_inner);
        Ok(table.files.get(in_table(dataset, rel)) == Some(&(bytes as i64)))
    }

    /// Whether `dataset`'s table, as this run knows it, holds a file `eraflow table optimize` wrote.
    pub fn holds_compacted(&self, dataset: &str) -> Result<bool, DeltaError> {
        let Some(table) = self.table(dataset)? else {
            return Ok(false);
        };
        let table = table.lock().unwrap_or_else(PoisonError::into_inner);
        Ok(table.files.keys().any(|p| p.contains(COMPACTED)))
    }

    /// Runs `f` on `dataset`'s table (loaded), on the runtime.
    pub fn with_table<T>(
        &self,
        dataset: &str,
        f: impl AsyncFnOnce(&mut Open) -> Result<T, DeltaTableError>,
    ) -> Result<T, DeltaError> {
        let e = self.err(dataset);
        let Some(table) = self.table(dataset)? else {
            return Err(e(DeltaTableError::NotATable(self.location(dataset))));
        };
        let mut table = table.lock().unwrap_or_else(PoisonError::into_inner);
        self.rt.block_on(f(&mut table)).map_err(e)
    }

    /// Adds `file` to `dataset`'s table by one commit, unless the table already holds its commit (the same
    /// source and bytes). Returns whether a commit was made.
    pub fn add(&self, dataset: &str, file: &AddedFile<'_>) -> Result<bool, DeltaError> {
        let app = app_id(file.source, file.sha256);
        let rel = in_table(dataset, file.rel);
        self.with_table(dataset, async |open: &mut Open| {
            // Commits of other writers since this run last looked: a retried commit must see its own.
            let before = open.table.version();
            open.table.update_incremental(None).await?;
            if open.table.version() != before {
                // Others' commits: their files too.
                open.refresh_files()?;
            }
            let table = &open.table;
            let state = table.snapshot()?;
            // Its commit added this path: a table without it never had this commit (only `table optimize`
            // removes files, and a compacted source is never re-added). With it, the path may hold other
            // bytes (other options): the transaction id tells, from the log (read only then).
            if open.files.contains_key(rel)
                && state
                    .transaction_version(table.log_store().as_ref(), &app)
                    .await?
                    .is_some()
            {
                return Ok(false);
            }
            let add = add_action(rel, file.network, file.bytes, file.rows, true);
            let props = app_metadata(CommitProperties::default())
                .with_application_transaction(Transaction::new(&app, 0))
                .with_create_checkpoint(true);
            let done = CommitBuilder::from(props)
                .with_actions(vec![Action::Add(add)])
                .build(
                    Some(state as &dyn TableReference),
                    table.log_store(),
                    DeltaOperation::Write {
                        mode: SaveMode::Append,
                        partition_by: Some(vec![PARTITION.to_string()]),
                        predicate: None,
                    },
                )
                .await?;
            let version = done.version();
            let seen = open.table.version();
            open.table.update_incremental(Some(version)).await?;
            match seen.is_some_and(|v| v + 1 == version) {
                // Nobody committed in between: the files are the ones known plus this one.
                true => {
                    open.files.insert(rel.to_string(), file.bytes as i64);
                }
                false => open.refresh_files()?,
            }
            Ok(true)
        })
    }
}

/// The commit metadata every eraflow commit carries.
fn app_metadata(props: CommitProperties) -> CommitProperties {
    props.with_metadata([(
        "eraflowVersion".to_string(),
        serde_json::Value::String(env!("CARGO_PKG_VERSION").to_string()),
    )])
}

/// The `add` action of a data file at `path` (within its table) of the partition `network`: its size, and its
/// row count as its statistics; `data_change` false for a rewrite of rows already in the table.
pub fn add_action(path: &str, network: &str, bytes: u64, rows: u64, data_change: bool) -> Add {
    Add {
        path: path.to_string(),
        partition_values: HashMap::from([(PARTITION.to_string(), Some(network.to_string()))]),
        size: bytes as i64,
        modification_time: now_ms(),
        data_change,
        stats: Some(format!("{{\"numRecords\":{rows}}}")),
        ..Default::default()
    }
}

/// Now, in milliseconds since the Unix epoch (the log's timestamps).
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// The columns a table of schema `have` must gain to take rows of schema `wanted` (nullable: the table's older
/// files have none), or why it cannot: a column gone, of another type, or null in `wanted` where the table
/// says never null.
pub fn evolution(have: &StructType, wanted: &StructType) -> Result<Vec<StructField>, String> {
    for h in have.fields() {
        let Some(w) = wanted.field(h.name()) else {
            return Err(format!("column {} is no longer written", h.name()));
        };
        if w.data_type() != h.data_type() {
            return Err(format!(
                "column {} is {} in the table, {} now",
                h.name(),
                h.data_type(),
                w.data_type()
            ));
        }
        if w.is_nullable() && !h.is_nullable() {
            return Err(format!(
                "column {} may now be null; the table says never",
                h.name()
            ));
        }
    }
    Ok(wanted
        .fields()
        .filter(|w| have.field(w.name()).is_none())
        .map(|w| StructField::new(w.name().clone(), w.data_type().clone(), true))
        .collect())
}

/// What differs between a table's schema and the wanted one, briefly.
fn schema_difference(have: &StructType, wanted: &StructType) -> String {
    let names = |s: &StructType| s.fields().map(|f| f.name().clone()).collect::<Vec<_>>();
    let (h, w) = (names(have), names(wanted));
    let missing: Vec<&String> = w.iter().filter(|n| !h.contains(n)).collect();
    let extra: Vec<&String> = h.iter().filter(|n| !w.contains(n)).collect();
    match (missing.is_empty(), extra.is_empty()) {
        (true, true) => "a column's type or nullability differs".into(),
        _ => format!("columns it lacks: {missing:?}; columns it has beyond: {extra:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_schema::{DataType as A, Field};

    fn schema(fields: &[(&str, A, bool)]) -> Schema {
        Schema::new(
            fields
                .iter()
                .map(|(n, t, null)| Field::new(*n, t.clone(), *null))
                .collect::<Vec<_>>(),
        )
    }

    #[test]
    fn a_relative_local_root_holds_tables() {
        // `cargo test` runs in the package's directory: a root relative to it.
        std::fs::create_dir_all("target").unwrap();
        let dir = tempfile::tempdir_in("target").unwrap();
        let cwd = std::env::current_dir().unwrap();
        let rel = dir.path().strip_prefix(&cwd).unwrap().to_path_buf();
        assert!(rel.is_relative());
        let tables =
            DeltaTables::new(TablesRoot::Local(rel.clone()), rel.display().to_string()).unwrap();
        let v1 = schema(&[("block_number", A::Int64, false)]);
        tables.ensure("blocks", &v1).unwrap();
        assert!(tables.table("blocks").unwrap().is_some());
        assert!(dir.path().join("blocks/_delta_log").is_dir());
    }

    #[test]
    fn a_newer_schema_adds_its_columns_and_an_incompatible_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let tables = DeltaTables::new(
            TablesRoot::Local(dir.path().to_path_buf()),
            dir.path().display().to_string(),
        )
        .unwrap();
        let v1 = schema(&[("block_number", A::Int64, false)]);
        tables.ensure("blocks", &v1).unwrap();
        // Again: nothing to do.
        tables.ensure("blocks", &v1).unwrap();
        let v2 = schema(&[
            ("block_number", A::Int64, false),
            ("signature", A::Binary, false),
        ]);
        tables.ensure("blocks", &v2).unwrap();
        let have = tables
            .with_table("blocks", async |t: &mut Open| {
                Ok(t.table.snapshot()?.schema())
            })
            .unwrap();
        let added = have.field("signature").unwrap();
        assert!(added.is_nullable(), "older files have no such column");
        // The evolved table takes v2's rows from now on (and v1 tables elsewhere are untouched).
        tables.ensure("blocks", &v2).unwrap();
        assert!(evolution(&have, &table_schema(&v2).unwrap())
            .unwrap()
            .is_empty());
        // A column's type changed, or a column gone: refused, naming it.
        let retyped = schema(&[
            ("block_number", A::Utf8, false),
            ("signature", A::Binary, false),
        ]);
        let err = tables.ensure("blocks", &retyped).unwrap_err().to_string();
        assert!(
            err.contains("column block_number is long in the table"),
            "{err}"
        );
        let err = tables.ensure("blocks", &v1).unwrap_err().to_string();
        assert!(
            err.contains("column signature is no longer written"),
            "{err}"
        );
        assert!(
            err.contains("export this schema version into a new output"),
            "{err}"
        );
    }
}
