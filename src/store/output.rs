//! The output protocol, written once over a [`Storage`] (a local directory, an object-store prefix): what many
//! writers share safely, the processes of one export or of several, on one machine or many.
//!
//! - **Completion records**: one small object per (source, dataset), `_eraflow/sources/<source>/<dataset>.json`
//!   ([`CompletionRecord`]), written after that dataset's output is published, with a conditional put (if
//!   absent, else if unchanged). A writer only ever writes its own sources' records, so none can lose another's.
//! - **Locks**: where the storage has them (a local disk), committing a source's outputs and records happens
//!   under the lock `source=<source>`, and completeness is checked again under it, so two writers of the same
//!   source do it once or twice, identically, and a record always describes the output committed with it;
//!   `manifest.json` is updated under the lock `manifest`. An object store has conditional puts instead.
//! - **The manifest**: `_eraflow/manifest.json` is the readable aggregate of the records, updated per source
//!   and rebuilt from all records at the end of every export. Where the storage is listed once per run, it
//!   keeps each record's version, so that a rerun takes the records it sums up from it instead of reading each.
//! - **Freshness proofs**: an output is proven unchanged by the version its record names (size and
//!   modification time, or ETag), or read back and hashed.

pub use super::error::{RemoteError, StoreError};
use super::local::LocalStorage;
use super::remote::ObjectStorage;
use super::storage::{bare_etag, check_name, Guard, Put, Storage, Version};
pub use super::storage::{OutputProof, META_DIR};
use super::url::{Location, RemoteUrl, Scheme};
use crate::sink::manifest::{CompletionRecord, Manifest};
use crate::util::fs as fsutil;
use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// A fresh local staging directory for the outputs of a remote output (unique per process and call).
pub fn staging_dir() -> PathBuf {
    static N: AtomicU64 = AtomicU64::new(0);
    std::env::temp_dir().join(format!(
        "eraflow-staging-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ))
}

/// Removes the staging directories (`<system temp>/eraflow-staging-<pid>-<n>`) of remote exports whose
/// process is no longer running: runs killed before they could remove their own (a finished run removes its
/// own). A live run's are kept.
pub fn remove_dead_staging() {
    let Ok(rd) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for e in rd.flatten() {
        let name = e.file_name();
        let pid = name
            .to_str()
            .and_then(|n| n.strip_prefix("eraflow-staging-"))
            .and_then(|rest| rest.split_once('-'))
            .and_then(|(pid, _)| pid.parse::<u32>().ok());
        // A real directory only (a symlink is not followed into).
        let dir = e.file_type().is_ok_and(|t| t.is_dir());
        if let Some(pid) = pid.filter(|&p| dir && !fsutil::process_alive(p)) {
            tracing::info!(dir = %e.path().display(), pid, "removing a dead run's staging directory");
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// How thoroughly a completion record is checked against the output it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// From metadata, as listed once per run: an object store's records and outputs from one LIST (and
    /// `manifest.json`), a local output's size and modification time.
    Listed,
    /// From metadata, asked now: the record read, the output HEADed (object store) or stat'ed (local).
    Fresh,
    /// The output read back whole and hashed.
    Full,
}

/// A completion record that proves its dataset complete, and how its output was proven unchanged.
#[derive(Debug, Clone)]
pub struct Proven {
    /// The record.
    pub record: CompletionRecord,
    /// How its output was proven.
    pub output: OutputProof,
}

/// Whether `r` says it was made from bytes with sha256 `sha256`, with `options`, at this schema version.
pub(crate) fn record_matches(r: &CompletionRecord, sha256: &str, options: &str) -> bool {
    r.sha256 == sha256
        && r.options == options
        && r.schema_version == crate::datasets::SCHEMA_VERSION
}

/// What re-reading one output against its completion record found (`eraflow verify --outputs`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum OutputCheck {
    /// Its size and sha256 are the recorded ones.
    Ok,
    /// The record names no output (a dataset that takes no rows from that kind of archive).
    NoOutput,
    /// The record names an output that is not there.
    Missing,
    /// The output's size is not the recorded one.
    Size {
        /// Recorded.
        expected: u64,
        /// Found.
        found: u64,
    },
    /// The output's bytes are not the recorded ones.
    Sha256 {
        /// Recorded.
        expected: String,
        /// Found.
        found: String,
    },
}

impl OutputCheck {
    /// Whether the output is the one its record describes (or there is none to be).
    pub fn ok(&self) -> bool {
        matches!(self, OutputCheck::Ok | OutputCheck::NoOutput)
    }
}

/// What proves a published output unchanged later.
#[derive(Debug, Clone, Default)]
pub struct Published {
    /// A local output's modification time (nanoseconds since the Unix epoch).
    pub mtime_ns: Option<u64>,
    /// An object-store output's ETag.
    pub etag: Option<String>,
}

/// How often a conditional update is retried when another writer got in between.
const ATTEMPTS: usize = 50;

fn manifest_rel() -> String {
    format!("{META_DIR}/manifest.json")
}

fn record_rel(source: &str, dataset: &str) -> String {
    format!("{META_DIR}/sources/{source}/{dataset}.json")
}

/// The JSON of `value`, saved at `rel` of `storage` (a failure is named by where it was to go).
fn json(
    storage: &dyn Storage,
    rel: &str,
    value: &impl serde::Serialize,
) -> Result<Vec<u8>, StoreError> {
    serde_json::to_vec_pretty(value).map_err(|e| StoreError::Local {
        path: storage.location(rel).into(),
        source: io::Error::other(e),
    })
}

/// A manifest as saved: stamped with this eraflow's version and schema.
fn manifest_bytes(storage: &dyn Storage, m: &Manifest) -> Result<Vec<u8>, StoreError> {
    let mut m = m.clone();
    m.eraflow_version = env!("CARGO_PKG_VERSION").into();
    m.schema_version = crate::datasets::SCHEMA_VERSION;
    json(storage, &manifest_rel(), &m)
}

/// The storage as listed once: its records' ETags, its other objects' sizes and versions, its manifest.
#[derive(Debug, Default)]
struct Index {
    /// ETag (bare) of every completion record, by (source, dataset).
    records: HashMap<(String, String), String>,
    /// Size and version of every other object, by key.
    objects: HashMap<String, (u64, Version)>,
    manifest: Option<Manifest>,
    /// The manifest sums up exactly the records listed, each with the ETag listed.
    current: bool,
}

/// What a listing says of a record.
enum Listed {
    /// There is none.
    Absent,
    /// There is one, and the manifest sums up that very version: here it is.
    Known(Box<CompletionRecord>),
    /// There is one the manifest does not sum up (or not that version): read it.
    Unknown,
}

impl Index {
    fn record(&self, source: &str, dataset: &str) -> Listed {
        let Some(tag) = self.records.get(&(source.to_string(), dataset.to_string())) else {
            return Listed::Absent;
        };
        let known = self
            .manifest
            .as_ref()
            .and_then(|m| m.sources.get(source))
            .filter(|e| {
                e.record_etags
                    .get(dataset)
                    .is_some_and(|t| bare_etag(t) == tag)
            })
            .and_then(|e| e.record(source, dataset));
        match known {
            Some(r) => Listed::Known(Box::new(r)),
            None => Listed::Unknown,
        }
    }
}

/// Where a job's outputs go: the output protocol over one [`Storage`] (outputs staged locally first when the
/// storage is not the local directory they are written in).
pub struct OutputStore {
    storage: Box<dyn Storage>,
    /// The storage as listed at the first completeness check of the run (listing storages only).
    index: Mutex<Option<Arc<Index>>>,
    /// Whether this run wrote a completion record.
    wrote: AtomicBool,
    /// `manifest.json` as [`OutputStore::with`] read it (`Some(None)`: there was none), taken by the first
    /// listing instead of reading it again.
    opened_manifest: Mutex<Option<Option<Manifest>>>,
}

impl std::fmt::Debug for OutputStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "OutputStore({:?})", self.storage)
    }
}

impl OutputStore {
    fn bare(storage: Box<dyn Storage>) -> OutputStore {
        OutputStore {
            storage,
            index: Mutex::new(None),
            wrote: AtomicBool::new(false),
            opened_manifest: Mutex::new(None),
        }
    }

    /// The protocol over `storage`. A listing storage (an object store) is read once now, before any work: one
    /// that cannot be used (no credentials, no bucket, refused) fails the job once with its cause, instead of
    /// every file failing with it. That read is `manifest.json`, kept for the run's listing.
    pub fn with(storage: Box<dyn Storage>) -> Result<OutputStore, StoreError> {
        let out = OutputStore::bare(storage);
        if out.storage.listing() {
            let m = out.read_manifest()?;
            *out.opened_manifest
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = Some(m);
        }
        Ok(out)
    }

    /// The local output directory at `root` (nothing read yet).
    pub fn local(root: &Path) -> OutputStore {
        OutputStore::bare(Box::new(LocalStorage::new(root)))
    }

    /// The object-store prefix `url`, configured from the environment, without a request: for a store the job
    /// has already used (its run report's upload).
    pub fn connect(url: &RemoteUrl) -> Result<OutputStore, StoreError> {
        Ok(OutputStore::bare(Box::new(ObjectStorage::connect(url)?)))
    }

    /// The output of an export: the local directory `out`, or the object-store prefix `remote` (its outputs
    /// staged in `out`). What dead writers left is removed first: temporaries under the folders `dirs` and
    /// `_eraflow/` of a local output, staging directories of a remote one. Other exports may be writing now;
    /// theirs are kept.
    pub fn open(
        out: &Path,
        remote: Option<&RemoteUrl>,
        dirs: &[&str],
    ) -> Result<OutputStore, StoreError> {
        match remote {
            None => {
                let local = LocalStorage::new(out);
                local.clean_stale_temporaries(dirs.iter().copied());
                Ok(OutputStore::bare(Box::new(local)))
            }
            Some(u) => {
                // What killed runs staged is never uploaded: gone with its process.
                remove_dead_staging();
                let out = OutputStore::with(Box::new(ObjectStorage::connect(u)?))?;
                // Their multipart uploads in flight, though, stay billed until aborted. A store that refuses
                // (no permission to abort) costs money, not outputs: said, and the run goes on.
                if let Err(e) = out.storage.abort_dead_uploads() {
                    tracing::warn!(
                        "{}: could not abort the incomplete multipart uploads of dead runs: {}",
                        u.redacted(),
                        crate::error::render(&e)
                    );
                }
                Ok(out)
            }
        }
    }

    /// The output at `loc`, to read: a local directory must exist, a remote prefix must answer.
    pub fn at(loc: &Location) -> Result<OutputStore, StoreError> {
        match loc {
            Location::Local(p) if p.is_dir() => Ok(OutputStore::local(p)),
            Location::Local(p) => Err(StoreError::NoDirectory(p.clone())),
            Location::Remote(u) => OutputStore::with(Box::new(ObjectStorage::connect(u)?)),
        }
    }

    /// [`OutputStore::at`] for an output that must exist as one: a local directory with an `_eraflow` folder,
    /// or an object-store prefix (http(s) locations are [`StoreError::NotAnOutput`], as are other folders).
    pub fn existing(loc: &Location) -> Result<OutputStore, StoreError> {
        match loc {
            Location::Local(p) if !p.join(META_DIR).is_dir() => {
                Err(StoreError::NotAnOutput(format!(
                    "{}: not an eraflow output (no {META_DIR} folder)",
                    p.display()
                )))
            }
            Location::Remote(u) if matches!(u.scheme(), Scheme::Http | Scheme::Https) => {
                Err(StoreError::NotAnOutput(format!(
                    "{u}: outputs live in a local directory or an object store"
                )))
            }
            _ => OutputStore::at(loc),
        }
    }

    /// The Delta tables of this output's datasets (`--table-format delta`).
    pub fn tables(&self) -> Result<super::delta::DeltaTables, StoreError> {
        let root = self.storage.tables_root().ok_or_else(|| {
            StoreError::from(super::delta::DeltaError::Unsupported(self.storage.name()))
        })?;
        Ok(super::delta::DeltaTables::new(root, self.storage.name())?)
    }

    /// The storage underneath.
    pub fn storage(&self) -> &dyn Storage {
        self.storage.as_ref()
    }

    /// The output as a user names it: a directory's path, or a redacted URL.
    pub fn name(&self) -> String {
        self.storage.name()
    }

    /// Where `rel` is: a path, or a redacted URL.
    pub fn location(&self, rel: &str) -> String {
        self.storage.location(rel)
    }

    fn read_manifest(&self) -> Result<Option<Manifest>, StoreError> {
        Ok(self
            .storage
            .get(&manifest_rel())?
            .and_then(|(b, _)| serde_json::from_slice::<Manifest>(&b).ok()))
    }

    /// The record of (`source`, `dataset`), when one exists, parses and names what its key says.
    pub fn read_record(
        &self,
        source: &str,
        dataset: &str,
    ) -> Result<Option<CompletionRecord>, StoreError> {
        Ok(self.read_versioned(source, dataset)?.map(|(r, _)| r))
    }

    /// [`OutputStore::read_record`], with the record's version.
    fn read_versioned(
        &self,
        source: &str,
        dataset: &str,
    ) -> Result<Option<(CompletionRecord, Version)>, StoreError> {
        if check_name(source).is_err() || check_name(dataset).is_err() {
            return Ok(None);
        }
        Ok(self
            .storage
            .get(&record_rel(source, dataset))?
            .and_then(|(b, v)| Some((serde_json::from_slice::<CompletionRecord>(&b).ok()?, v)))
            .filter(|(r, _)| r.source == source && r.dataset == dataset))
    }

    /// Every record of `source`, or of every source when `None`, with its version.
    fn records(
        &self,
        source: Option<&str>,
    ) -> Result<Vec<(CompletionRecord, Version)>, StoreError> {
        let dir = match source {
            Some(s) if check_name(s).is_err() => return Ok(Vec::new()),
            Some(s) => format!("{META_DIR}/sources/{s}/"),
            None => format!("{META_DIR}/sources/"),
        };
        let mut keys: Vec<String> = self
            .storage
            .list(&dir)?
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        keys.sort();
        let mut out = Vec::new();
        for k in keys {
            let Some((s, dataset)) = k
                .strip_prefix(&format!("{META_DIR}/sources/"))
                .and_then(|r| r.strip_suffix(".json"))
                .and_then(|r| r.split_once('/'))
            else {
                continue;
            };
            if !dataset.contains('/') {
                out.extend(self.read_versioned(s, dataset)?);
            }
        }
        Ok(out)
    }

    /// Every completion record, sorted by source and dataset.
    pub fn all_records(&self) -> Result<Vec<CompletionRecord>, StoreError> {
        let mut v: Vec<CompletionRecord> =
            self.records(None)?.into_iter().map(|(r, _)| r).collect();
        v.sort_by(|a, b| (&a.source, &a.dataset).cmp(&(&b.source, &b.dataset)));
        Ok(v)
    }

    /// Puts `bytes` at `rel` if nothing is there, else replaces what is there when it is still the version read
    /// (`bytes` decides, from the current bytes, that nothing needs writing).
    fn put_conditional(
        &self,
        rel: &str,
        mut bytes: impl FnMut(Option<&[u8]>) -> Result<Option<Vec<u8>>, StoreError>,
    ) -> Result<(), StoreError> {
        for _ in 0..ATTEMPTS {
            let current = self.storage.get(rel)?;
            let Some(new) = bytes(current.as_ref().map(|(b, _)| b.as_slice()))? else {
                return Ok(());
            };
            let put = match current {
                None => self.storage.put_if_absent(rel, new)?,
                Some((_, v)) => self.storage.put_if_match(rel, new, &v)?,
            };
            if put == Put::Done {
                return Ok(());
            }
        }
        Err(StoreError::Contended {
            location: self.storage.location(rel),
            attempts: ATTEMPTS,
        })
    }

    /// Writes a completion record: put-if-absent, or a replace of an older record by version.
    pub fn write_record(&self, r: &CompletionRecord) -> Result<(), StoreError> {
        let rel = record_rel(&r.source, &r.dataset);
        for name in [&r.source, &r.dataset] {
            check_name(name).map_err(|source| StoreError::Local {
                path: PathBuf::from(self.storage.location(&rel)),
                source,
            })?;
        }
        let text = json(self.storage(), &rel, r)?;
        self.wrote.store(true, Ordering::Relaxed);
        self.put_conditional(&rel, |cur| {
            Ok((cur != Some(text.as_slice())).then(|| text.clone()))
        })
    }

    /// The source's lock, where the storage has locks (an object store relies on conditional puts instead).
    pub fn lock_source(&self, source: &str) -> Result<Option<Guard>, StoreError> {
        let name = format!("source={source}");
        check_name(source).map_err(|e| StoreError::Local {
            path: PathBuf::from(
                self.storage
                    .location(&format!("{META_DIR}/locks/{name}.lock")),
            ),
            source: e,
        })?;
        self.storage.lock(&name)
    }

    /// Makes a committed output visible at `rel` (in place already for a local directory; uploaded, and the
    /// staged file removed, for an object store) and returns what a later run proves it unchanged by: its
    /// modification time, or the ETag the upload returned.
    pub fn publish(&self, rel: &str, staged: &Path) -> Result<Published, StoreError> {
        Ok(match self.storage.publish(rel, staged)? {
            Version::Local { mtime_ns, .. } => Published {
                mtime_ns,
                etag: None,
            },
            Version::Object { e_tag, .. } => Published {
                mtime_ns: None,
                etag: e_tag,
            },
        })
    }

    /// Puts `source`'s records into `manifest.json` (or rebuilds it from every record when `source` is `None`
    /// or there is no manifest that parses), under the manifest's lock where there is one and by version, so
    /// that no writer's update is lost.
    fn merge_manifest(&self, source: Option<&str>) -> Result<(), StoreError> {
        let _lock = self.storage.lock("manifest")?;
        let stamped = |v: Vec<(CompletionRecord, Version)>| {
            Manifest::from_stamped(v.into_iter().map(|(r, v)| (r, v.tag())))
        };
        let fresh = source
            .map(|s| self.records(Some(s)).map(stamped))
            .transpose()?;
        self.put_conditional(&manifest_rel(), |cur| {
            let current = cur.and_then(|b| serde_json::from_slice::<Manifest>(b).ok());
            let m = match (&fresh, current, source) {
                (Some(f), Some(mut m), Some(s)) => {
                    m.sources.remove(s);
                    m.sources.extend(f.sources.clone());
                    m
                }
                // A whole rebuild lists the records after reading the version it replaces.
                _ => stamped(self.records(None)?),
            };
            manifest_bytes(self.storage(), &m).map(Some)
        })
    }

    /// Puts `source`'s records into `manifest.json`.
    pub fn update_manifest(&self, source: &str) -> Result<(), StoreError> {
        self.merge_manifest(Some(source))
    }

    /// Rebuilds `manifest.json` from every record, unless this run wrote no record and the manifest it listed
    /// at its start summed up exactly the records listed then (a rerun with nothing new into a listing
    /// storage: reading every record back would cost a request per record).
    pub fn rebuild_manifest(&self) -> Result<(), StoreError> {
        let current = self
            .index
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .is_some_and(|i| i.current);
        if current && !self.wrote.load(Ordering::Relaxed) {
            return Ok(());
        }
        self.merge_manifest(None)
    }

    /// The storage's objects, its records' versions and `manifest.json`: listed once per run (one LIST request
    /// per 1,000 objects in an object store, and one GET), what a rerun proves every complete source with.
    fn index(&self) -> Result<Arc<Index>, StoreError> {
        let mut slot = self.index.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(i) = slot.as_ref() {
            return Ok(i.clone());
        }
        let records_dir = format!("{META_DIR}/sources/");
        let mut index = Index::default();
        for (rel, meta) in self.storage.list("")? {
            let record = rel
                .strip_prefix(&records_dir)
                .and_then(|r| r.strip_suffix(".json"))
                .and_then(|r| r.split_once('/'));
            match record {
                Some((source, dataset)) if !dataset.contains('/') => {
                    let tag = meta.version.tag().unwrap_or_default();
                    index.records.insert(
                        (source.to_string(), dataset.to_string()),
                        bare_etag(&tag).to_string(),
                    );
                }
                _ => {
                    index.objects.insert(rel, (meta.size, meta.version));
                }
            }
        }
        // Read when the store was opened, before the listing: a record another writer adds in between is then
        // listed but not summed up, so it is read (`Listed::Unknown`), never taken from a stale manifest.
        let opened = self
            .opened_manifest
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        index.manifest = match opened {
            Some(m) => m,
            None => self.read_manifest()?,
        };
        index.current = index.manifest.as_ref().is_some_and(|m| {
            let summed: usize = m.sources.values().map(|e| e.record_etags.len()).sum();
            summed == index.records.len()
                && index.records.iter().all(|((source, dataset), tag)| {
                    m.sources
                        .get(source)
                        .and_then(|e| e.record_etags.get(dataset))
                        .is_some_and(|t| bare_etag(t) == tag)
                })
        });
        let index = Arc::new(index);
        *slot = Some(index.clone());
        Ok(index)
    }

    /// The record of (`source`, `dataset`): from this run's listing when `check` allows, the storage is listed
    /// and the listing can tell, else read.
    fn listed_record(
        &self,
        source: &str,
        dataset: &str,
        check: Check,
    ) -> Result<Option<CompletionRecord>, StoreError> {
        if check == Check::Listed && self.storage.listing() {
            match self.index()?.record(source, dataset) {
                Listed::Absent => return Ok(None),
                Listed::Known(r) => return Ok(Some(*r)),
                Listed::Unknown => {}
            }
        }
        self.read_record(source, dataset)
    }

    /// Whether `rel` exists, as this run's listing shows it; `None` where the storage is not listed once per run
    /// (a local directory: asking is cheap there).
    pub fn listed(&self, rel: &str) -> Result<Option<bool>, StoreError> {
        match self.storage.listing() {
            true => Ok(Some(self.index()?.objects.contains_key(rel))),
            false => Ok(None),
        }
    }

    /// [`OutputStore::complete`] for a source known by name only (a remote file not fetched): against
    /// `sha256` when given, else against the sha256 its record names.
    pub fn complete_by_name(
        &self,
        source: &str,
        dataset: &str,
        sha256: Option<&str>,
        options: &str,
        check: Check,
    ) -> Result<Option<Proven>, StoreError> {
        let recorded;
        let sha = match sha256 {
            Some(s) => s,
            None => {
                let Some(r) = self.listed_record(source, dataset, check)? else {
                    return Ok(None);
                };
                recorded = r.sha256;
                &recorded
            }
        };
        self.complete(source, dataset, sha, options, check)
    }

    /// The record of (`source`, `dataset`) when it proves the dataset complete: made from source bytes with
    /// sha256 `sha256`, with `options`, at this schema version, and its output (if any) unchanged: by the
    /// version its record names (size and modification time, or ETag; as listed once per run for
    /// `Check::Listed` on a listing storage, the record then taken from `manifest.json` when it sums up the
    /// record version listed; asked now otherwise), or read back and hashed (`Check::Full`, a record without a
    /// version, or a local output whose modification time differs). A record proven by its hash gets the
    /// version of the bytes hashed, so the next run needs no read.
    pub fn complete(
        &self,
        source: &str,
        dataset: &str,
        sha256: &str,
        options: &str,
        check: Check,
    ) -> Result<Option<Proven>, StoreError> {
        if check == Check::Listed && self.storage.listing() {
            if let Some(proven) = self.complete_listed(source, dataset, sha256, options)? {
                return Ok(proven);
            }
        }
        let Some((r, tag)) = self.read_versioned(source, dataset)? else {
            return Ok(None);
        };
        if !record_matches(&r, sha256, options) {
            return Ok(None);
        }
        let Some(o) = &r.output else {
            return Ok(Some(Proven {
                record: r,
                output: OutputProof::None,
            }));
        };
        let recorded = self.storage.recorded(o);
        if check != Check::Full && recorded.known() {
            let Some(m) = self.storage.head(&o.path)?.filter(|m| m.size == o.bytes) else {
                return Ok(None);
            };
            if m.version.proves(&recorded) {
                return Ok(Some(Proven {
                    record: r,
                    output: recorded.proof(),
                }));
            }
            if recorded.mismatch_is_final() {
                return Ok(None);
            }
        }
        // Streamed: an output is as big as its source's share of a dataset, never held whole.
        let Some((bytes, sha, found)) = self.hash(&o.path)? else {
            return Ok(None);
        };
        if bytes != o.bytes || sha != o.sha256 {
            return Ok(None);
        }
        if found.known() && !found.proves(&recorded) {
            self.restamp(&r, &found, &tag);
        }
        Ok(Some(Proven {
            record: r,
            output: OutputProof::Sha256,
        }))
    }

    /// [`OutputStore::complete`] from this run's listing: `None` when the listing cannot tell (a record the
    /// manifest does not sum up, or one without a recorded version), else what it tells.
    fn complete_listed(
        &self,
        source: &str,
        dataset: &str,
        sha256: &str,
        options: &str,
    ) -> Result<Option<Option<Proven>>, StoreError> {
        let index = self.index()?;
        let r = match index.record(source, dataset) {
            Listed::Absent => return Ok(Some(None)),
            Listed::Unknown => return Ok(None),
            Listed::Known(r) => *r,
        };
        if !record_matches(&r, sha256, options) {
            return Ok(Some(None));
        }
        let Some(o) = &r.output else {
            return Ok(Some(Some(Proven {
                record: r,
                output: OutputProof::None,
            })));
        };
        let recorded = self.storage.recorded(o);
        match index.objects.get(&o.path) {
            Some((size, found)) if *size == o.bytes && found.proves(&recorded) => {
                let output = recorded.proof();
                Ok(Some(Some(Proven { record: r, output })))
            }
            // No version recorded (an older record): proven by its hash.
            Some(_) if !recorded.known() => Ok(None),
            _ => Ok(Some(None)),
        }
    }

    /// The size, sha256 and version of the object at `rel`, read as a stream; `None` when there is none.
    fn hash(&self, rel: &str) -> Result<Option<(u64, String, Version)>, StoreError> {
        use sha2::Digest;
        let (mut sha, mut bytes) = (sha2::Sha256::new(), 0u64);
        let found = self.storage.stream(rel, &mut |chunk| {
            bytes += chunk.len() as u64;
            sha.update(chunk);
            Ok(())
        })?;
        Ok(found.map(|v| (bytes, hex::encode(sha.finalize()), v)))
    }

    /// Records `found` (the version of the output bytes just hashed) in `r`, only if the record is still the
    /// version `tag`: best effort, as a record left as it was is only hashed again.
    fn restamp(&self, r: &CompletionRecord, found: &Version, tag: &Version) {
        let mut new = r.clone();
        if let Some(o) = new.output.as_mut() {
            found.stamp(o);
        }
        let Ok(text) = serde_json::to_vec_pretty(&new) else {
            return;
        };
        let rel = record_rel(&r.source, &r.dataset);
        if let Ok(Put::Done) = self.storage.put_if_match(&rel, text, tag) {
            self.wrote.store(true, Ordering::Relaxed);
        }
    }

    /// Reads `r`'s output back whole (streamed through a buffer) and compares its size and sha256 with the
    /// record's: the check no metadata can stand in for.
    pub fn check_output(&self, r: &CompletionRecord) -> Result<OutputCheck, StoreError> {
        let Some(o) = &r.output else {
            return Ok(OutputCheck::NoOutput);
        };
        Ok(match self.hash(&o.path)? {
            None => OutputCheck::Missing,
            Some((bytes, _, _)) if bytes != o.bytes => OutputCheck::Size {
                expected: o.bytes,
                found: bytes,
            },
            Some((_, sha, _)) if sha != o.sha256 => OutputCheck::Sha256 {
                expected: o.sha256.clone(),
                found: sha,
            },
            Some(_) => OutputCheck::Ok,
        })
    }

    /// Parquet files under the dataset folders `datasets` that no completion record lists (keys, sorted): left
    /// by a narrower rerun, an option change, or a record deleted by hand. Only files last written before
    /// `before` count, so an output another writer has just published, whose record is written right after, is
    /// never taken for stale. None when the records cannot be listed (nothing is stale that might be listed).
    pub fn unlisted_outputs<'a>(
        &self,
        datasets: impl IntoIterator<Item = &'a str>,
        before: std::time::SystemTime,
    ) -> Vec<String> {
        let Ok(records) = self.records(None) else {
            return Vec::new();
        };
        let listed: std::collections::BTreeSet<String> = records
            .into_iter()
            .filter_map(|(r, _)| r.output.map(|o| o.path))
            .collect();
        let mut out = Vec::new();
        for d in datasets {
            for (rel, meta) in self.storage.list(&format!("{d}/")).unwrap_or_default() {
                let name = rel.rsplit('/').next().unwrap_or(&rel);
                let parquet = !name.starts_with('.') && name.ends_with(".parquet");
                let old = meta.modified.is_some_and(|t| t < before);
                if parquet && old && !listed.contains(&rel) {
                    out.push(rel);
                }
            }
        }
        out.sort();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sink::manifest::OutputEntry;
    use crate::store::memory::MemStorage;
    use crate::store::storage::Storage;

    fn record(source: &str, dataset: &str, out: Option<(&str, &[u8])>) -> CompletionRecord {
        CompletionRecord {
            source: source.into(),
            dataset: dataset.into(),
            sha256: "ab".into(),
            options: "o".into(),
            schema_version: crate::datasets::SCHEMA_VERSION,
            network: "synthnet".into(),
            kind: "era1".into(),
            first_block: 0,
            last_block: 9,
            slots: None,
            state_root: None,
            accumulator_root: String::new(),
            output: out.map(|(p, b)| OutputEntry {
                dataset: dataset.into(),
                path: p.into(),
                rows: 1,
                bytes: b.len() as u64,
                sha256: hex::encode(crate::crypto::sha256::sha256(b)),
                mtime_ns: None,
                etag: None,
            }),
            canonical: None,
            canonical_by: Default::default(),
        }
    }

    fn manifest_of(store: &OutputStore) -> Manifest {
        let b = store.storage().get(&manifest_rel()).unwrap().unwrap().0;
        serde_json::from_slice(&b).unwrap()
    }

    #[test]
    fn records_prove_completeness_per_dataset() {
        let dir = tempfile::tempdir().unwrap();
        let o = OutputStore::local(dir.path());
        std::fs::create_dir_all(dir.path().join("blocks")).unwrap();
        std::fs::write(dir.path().join("blocks/a.parquet"), b"abc").unwrap();
        let blocks = record("s.era1", "blocks", Some(("blocks/a.parquet", b"abc")));
        o.write_record(&blocks).unwrap();
        o.write_record(&record("s.era1", "withdrawals", None))
            .unwrap();
        let complete = |dataset: &str, sha: &str, options: &str| {
            o.complete("s.era1", dataset, sha, options, Check::Listed)
                .unwrap()
                .map(|p| p.output)
        };
        // No modification time recorded: proven by its hash, and stamped with its time for the next run.
        assert_eq!(complete("blocks", "ab", "o"), Some(OutputProof::Sha256));
        assert_eq!(complete("blocks", "ab", "o"), Some(OutputProof::SizeMtime));
        assert_eq!(complete("withdrawals", "ab", "o"), Some(OutputProof::None));
        assert_eq!(complete("blocks", "cd", "o"), None);
        assert_eq!(complete("blocks", "ab", "other"), None);
        assert_eq!(complete("logs", "ab", "o"), None);
        std::fs::write(dir.path().join("blocks/a.parquet"), b"abd").unwrap();
        assert_eq!(complete("blocks", "ab", "o"), None);
        o.rebuild_manifest().unwrap();
        let m = manifest_of(&o);
        assert_eq!(m.sources["s.era1"].datasets, ["blocks", "withdrawals"]);
        assert_eq!(m.sources["s.era1"].outputs.len(), 1);
        assert!(m.sources["s.era1"].record_etags.is_empty());
        assert!(o.write_record(&record("../x", "blocks", None)).is_err());
        assert!(o.write_record(&record("a/b", "blocks", None)).is_err());
        assert!(o.read_record("..", "blocks").unwrap().is_none());
        assert!(matches!(
            o.check_output(&blocks).unwrap(),
            OutputCheck::Sha256 { .. }
        ));
    }

    #[test]
    fn only_dead_writers_temporaries_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let nested = dir.path().join("blocks/network=x");
        std::fs::create_dir_all(&nested).unwrap();
        let mine = nested.join(format!(".a.parquet.{}-0.tmp", std::process::id()));
        let dead = nested.join(".a.parquet.4194305-0.tmp");
        let not_temp = nested.join("a.parquet");
        for p in [&mine, &dead, &not_temp] {
            std::fs::write(p, b"x").unwrap();
        }
        OutputStore::open(dir.path(), None, &["blocks"]).unwrap();
        assert!(mine.exists() && not_temp.exists());
        assert_eq!(dead.exists(), !Path::new("/proc/self").exists());
    }

    /// Publishes `bytes` at `rel` and records it, as an export commits one dataset of a source.
    fn commit(store: &OutputStore, source: &str, dataset: &str, rel: &str, bytes: &[u8]) {
        let staged = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(staged.path(), bytes).unwrap();
        let p = store.publish(rel, staged.path()).unwrap();
        let mut r = record(source, dataset, Some((rel, bytes)));
        if let Some(o) = r.output.as_mut() {
            (o.mtime_ns, o.etag) = (p.mtime_ns, p.etag);
        }
        store.write_record(&r).unwrap();
        store.update_manifest(source).unwrap();
    }

    #[test]
    fn a_third_storage_drives_the_protocol_and_a_rerun_costs_two_calls() {
        let mem = MemStorage::default();
        let first = OutputStore::with(Box::new(mem.clone())).unwrap();
        commit(&first, "a.era1", "blocks", "blocks/a.parquet", b"rows of a");
        commit(&first, "b.era1", "blocks", "blocks/b.parquet", b"rows of b");
        first.rebuild_manifest().unwrap();
        let m = manifest_of(&first);
        assert_eq!(m.sources.len(), 2);
        assert_eq!(m.sources["a.era1"].record_etags.len(), 1);
        // A rerun: the manifest read at open, one listing, every record taken from the manifest, and no
        // manifest rewritten.
        let before = mem.calls.load(Ordering::Relaxed);
        let rerun = OutputStore::with(Box::new(mem.clone())).unwrap();
        for s in ["a.era1", "b.era1"] {
            let p = rerun
                .complete(s, "blocks", "ab", "o", Check::Listed)
                .unwrap();
            assert_eq!(p.map(|p| p.output), Some(OutputProof::Etag));
        }
        rerun.rebuild_manifest().unwrap();
        assert_eq!(mem.calls.load(Ordering::Relaxed) - before, 2);
        // A range read of a storage without its own is cut from the stream.
        assert_eq!(mem.get_range("blocks/a.parquet", 2..7).unwrap(), b"ws of");
        assert!(mem.get_range("blocks/none.parquet", 0..1).is_err());
        assert_eq!(
            rerun
                .check_output(&rerun.read_record("a.era1", "blocks").unwrap().unwrap())
                .unwrap(),
            OutputCheck::Ok
        );
    }

    #[test]
    fn a_lost_manifest_is_rebuilt_and_stale_records_prove_nothing() {
        let mem = MemStorage::default();
        let first = OutputStore::with(Box::new(mem.clone())).unwrap();
        commit(&first, "a.era1", "blocks", "blocks/a.parquet", b"rows of a");
        let kept = mem.bytes(&manifest_rel()).unwrap();
        mem.delete(&manifest_rel()).unwrap();
        let rerun = OutputStore::with(Box::new(mem.clone())).unwrap();
        let p = rerun.complete("a.era1", "blocks", "ab", "o", Check::Listed);
        assert_eq!(p.unwrap().map(|p| p.output), Some(OutputProof::Etag));
        rerun.rebuild_manifest().unwrap();
        assert_eq!(mem.bytes(&manifest_rel()).unwrap(), kept);
        // Other options, other source bytes: not complete.
        let stale = |s: &str, o: &str| rerun.complete("a.era1", "blocks", s, o, Check::Fresh);
        assert!(stale("ab", "other").unwrap().is_none());
        assert!(stale("cd", "o").unwrap().is_none());
        // The output written again (same bytes, a new ETag): changed, unless read back whole.
        mem.overwrite("blocks/a.parquet", b"rows of a");
        assert!(stale("ab", "o").unwrap().is_none());
        let full = rerun.complete("a.era1", "blocks", "ab", "o", Check::Full);
        assert_eq!(full.unwrap().map(|p| p.output), Some(OutputProof::Sha256));
        // ... which stamps the record with the new ETag.
        assert_eq!(
            stale("ab", "o").unwrap().map(|p| p.output),
            Some(OutputProof::Etag)
        );
        mem.overwrite("blocks/a.parquet", b"other rows");
        let full = rerun.complete("a.era1", "blocks", "ab", "o", Check::Full);
        assert!(full.unwrap().is_none());
    }

    #[test]
    fn a_concurrent_writer_loses_nothing() {
        let mem = MemStorage::default();
        let one = OutputStore::with(Box::new(mem.clone())).unwrap();
        let two = OutputStore::with(Box::new(mem.clone())).unwrap();
        commit(&one, "a.era1", "blocks", "blocks/a.parquet", b"rows of a");
        // Another writer's manifest lands between this one's read and its put: the put is refused, and redone
        // over the other's.
        let mut theirs = manifest_of(&one);
        let b = record("b.era1", "blocks", None);
        theirs
            .sources
            .extend(Manifest::from_records([b.clone()]).sources);
        two.write_record(&b).unwrap();
        mem.race(&manifest_rel(), &manifest_bytes(&mem, &theirs).unwrap());
        commit(&one, "c.era1", "blocks", "blocks/c.parquet", b"rows of c");
        let m = manifest_of(&one);
        assert_eq!(
            m.sources.keys().collect::<Vec<_>>(),
            ["a.era1", "b.era1", "c.era1"]
        );
        // Writers on threads, each its own sources: every one in the manifest.
        std::thread::scope(|s| {
            for (w, store) in [&one, &two].into_iter().enumerate() {
                s.spawn(move || {
                    for i in 0..8 {
                        let src = format!("w{w}-{i}.era1");
                        store.write_record(&record(&src, "blocks", None)).unwrap();
                        store.update_manifest(&src).unwrap();
                    }
                });
            }
        });
        assert_eq!(manifest_of(&two).sources.len(), 3 + 16);
        assert_eq!(two.all_records().unwrap().len(), 3 + 16);
    }
}
