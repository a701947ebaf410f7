//! An output directory many writers share: the processes of one export or of several, on one machine.
//!
//! - **Completion records**: one small file per (source, dataset), `_eraflow/sources/<source>/<dataset>.json`
//!   ([`CompletionRecord`]), written atomically after that dataset's output is in place. A writer only ever
//!   writes its own sources' records, so none can lose another's entries.
//! - **Locks**: committing a source's outputs and records happens under an exclusive `flock` on
//!   `_eraflow/locks/source=<source>.lock`, and completeness is checked again under it, so two writers of the
//!   same source do it once or twice, identically, and a record always describes the output committed with it.
//!   `manifest.json` is updated under `_eraflow/locks/manifest.lock`.
//! - **The manifest**: `_eraflow/manifest.json` is the readable aggregate of the records, updated per source
//!   and rebuilt from all records at the end of every export.
//! - **Temporaries**: a temporary file names its writer's process (`.<name>.<pid>-<n>.tmp`); only those of
//!   processes no longer running are removed, never a live writer's.

use super::remote::{RemoteError, RemoteOutput};
use crate::sink::manifest::{self, CompletionRecord, Manifest};
use crate::util::fs::{self as fsutil, FileLock};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Why the output store could not record or publish something.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A local file (record, lock, manifest) could not be read or written.
    #[error("{}", .path.display())]
    Local {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// The object store refused or failed.
    #[error(transparent)]
    Remote(#[from] RemoteError),
}

/// Where a job's outputs go: a local directory, or an object-store prefix (outputs staged locally first).
#[derive(Debug)]
pub enum OutputStore {
    /// A local directory; outputs are written in place.
    Local(OutputDir),
    /// An object-store prefix; outputs are staged in a local directory and uploaded when complete.
    Remote(Box<RemoteOutput>),
}

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

/// How an output was proven unchanged since its completion record was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub enum OutputProof {
    /// There is no output (a dataset that takes no rows from the source).
    #[serde(rename = "none")]
    None,
    /// A local output's size and modification time, as recorded.
    #[serde(rename = "size+mtime")]
    SizeMtime,
    /// An object-store output's size and ETag (listed or HEADed), as its upload returned them.
    #[serde(rename = "etag")]
    Etag,
    /// Read back whole and hashed (`--verify-outputs`, or a record from before metadata was recorded).
    #[serde(rename = "sha256")]
    Sha256,
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

/// A file's modification time in nanoseconds since the Unix epoch.
pub fn mtime_ns(meta: &std::fs::Metadata) -> Option<u64> {
    let t = meta.modified().ok()?;
    let d = t.duration_since(std::time::UNIX_EPOCH).ok()?;
    u64::try_from(d.as_nanos()).ok()
}

impl OutputStore {
    /// The record of (`source`, `dataset`) when it proves the dataset complete, checked as `check` says.
    pub fn complete(
        &self,
        source: &str,
        dataset: &str,
        sha256: &str,
        options: &str,
        check: Check,
    ) -> Result<Option<Proven>, StoreError> {
        match self {
            OutputStore::Local(d) => Ok(d.complete(source, dataset, sha256, options, check)),
            OutputStore::Remote(r) => Ok(r.complete(source, dataset, sha256, options, check)?),
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
                let r = match self {
                    OutputStore::Local(d) => d.read_record(source, dataset),
                    OutputStore::Remote(r) => r.listed_record(source, dataset, check)?,
                };
                let Some(r) = r else { return Ok(None) };
                recorded = r.sha256;
                &recorded
            }
        };
        self.complete(source, dataset, sha, options, check)
    }

    /// The source's lock on a local disk (an object store relies on conditional puts instead).
    pub fn lock_source(&self, source: &str) -> Result<Option<FileLock>, StoreError> {
        match self {
            OutputStore::Local(d) => {
                d.lock_source(source)
                    .map(Some)
                    .map_err(|source_err| StoreError::Local {
                        path: d.source_lock_path(source),
                        source: source_err,
                    })
            }
            OutputStore::Remote(_) => Ok(None),
        }
    }

    /// Makes a committed output visible at `rel`: in place already for a local directory (its modification
    /// time returned); uploaded, and the staged file removed, for an object store (the ETag the upload
    /// returned). What a later run proves the output unchanged by.
    pub fn publish(&self, rel: &str, staged: &Path) -> Result<Published, StoreError> {
        match self {
            OutputStore::Local(_) => {
                let meta = std::fs::metadata(staged).map_err(|source| StoreError::Local {
                    path: staged.to_path_buf(),
                    source,
                })?;
                Ok(Published {
                    mtime_ns: mtime_ns(&meta),
                    etag: None,
                })
            }
            OutputStore::Remote(r) => {
                let etag = r.upload(rel, staged)?;
                let _ = std::fs::remove_file(staged);
                Ok(Published {
                    mtime_ns: None,
                    etag,
                })
            }
        }
    }

    /// Writes a completion record.
    pub fn write_record(&self, rec: &CompletionRecord) -> Result<(), StoreError> {
        match self {
            OutputStore::Local(d) => d.write_record(rec).map_err(|source| StoreError::Local {
                path: d.record_path(&rec.source, &rec.dataset),
                source,
            }),
            OutputStore::Remote(r) => Ok(r.write_record(rec)?),
        }
    }

    /// Puts `source`'s records into `manifest.json`.
    pub fn update_manifest(&self, source: &str) -> Result<(), StoreError> {
        match self {
            OutputStore::Local(d) => d.update_manifest(source).map_err(|e| StoreError::Local {
                path: manifest::path(d.root()),
                source: e,
            }),
            OutputStore::Remote(r) => Ok(r.update_manifest(Some(source))?),
        }
    }

    /// Rebuilds `manifest.json` from every record.
    pub fn rebuild_manifest(&self) -> Result<(), StoreError> {
        match self {
            OutputStore::Local(d) => {
                d.rebuild_manifest()
                    .map(|_| ())
                    .map_err(|e| StoreError::Local {
                        path: manifest::path(d.root()),
                        source: e,
                    })
            }
            OutputStore::Remote(r) => Ok(r.rebuild_manifest()?),
        }
    }
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

impl OutputStore {
    /// Every completion record, sorted by source and dataset.
    pub fn all_records(&self) -> Result<Vec<CompletionRecord>, StoreError> {
        let mut v = match self {
            OutputStore::Local(d) => d.records(),
            OutputStore::Remote(r) => r.records(None)?.into_iter().map(|(r, _)| r).collect(),
        };
        v.sort_by(|a, b| (&a.source, &a.dataset).cmp(&(&b.source, &b.dataset)));
        Ok(v)
    }

    /// Reads `r`'s output back whole (streamed through a buffer) and compares its size and sha256 with the
    /// record's: the check no metadata can stand in for.
    pub fn check_output(&self, r: &CompletionRecord) -> Result<OutputCheck, StoreError> {
        let Some(o) = &r.output else {
            return Ok(OutputCheck::NoOutput);
        };
        let found = match self {
            OutputStore::Local(d) => {
                let p = d.root().join(&o.path);
                match std::fs::metadata(&p) {
                    Err(e) if e.kind() == io::ErrorKind::NotFound => None,
                    Err(source) => return Err(StoreError::Local { path: p, source }),
                    Ok(m) if m.len() != o.bytes => Some((m.len(), String::new())),
                    Ok(m) => {
                        let sha = manifest::file_sha256(&p).ok_or_else(|| StoreError::Local {
                            path: p.clone(),
                            source: io::Error::other("could not be read"),
                        })?;
                        Some((m.len(), sha))
                    }
                }
            }
            OutputStore::Remote(store) => store.hash_object(&o.path)?.map(|h| (h.bytes, h.sha256)),
        };
        Ok(match found {
            None => OutputCheck::Missing,
            Some((bytes, _)) if bytes != o.bytes => OutputCheck::Size {
                expected: o.bytes,
                found: bytes,
            },
            Some((_, sha)) if sha != o.sha256 => OutputCheck::Sha256 {
                expected: o.sha256.clone(),
                found: sha,
            },
            Some(_) => OutputCheck::Ok,
        })
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

/// The directory under the output root where eraflow keeps its own files.
pub const META_DIR: &str = "_eraflow";

/// A local output directory shared by concurrent writers.
#[derive(Debug, Clone)]
pub struct OutputDir {
    root: PathBuf,
}

/// Why a source name cannot key a record: it would leave `_eraflow/sources/`.
fn check_name(name: &str) -> io::Result<()> {
    if name.is_empty()
        || name == "."
        || name == ".."
        || name.contains(['/', '\\', '\0'])
        || name.starts_with('.')
    {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("'{name}' is not a plain file name"),
        ));
    }
    Ok(())
}

impl OutputDir {
    /// The output directory at `root`.
    pub fn new(root: &Path) -> OutputDir {
        OutputDir {
            root: root.to_path_buf(),
        }
    }

    /// The root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn sources_dir(&self) -> PathBuf {
        self.root.join(META_DIR).join("sources")
    }

    /// Where the record of (`source`, `dataset`) lives.
    pub fn record_path(&self, source: &str, dataset: &str) -> PathBuf {
        self.sources_dir()
            .join(source)
            .join(format!("{dataset}.json"))
    }

    /// The record of (`source`, `dataset`), when one exists and parses and names what its path says.
    pub fn read_record(&self, source: &str, dataset: &str) -> Option<CompletionRecord> {
        check_name(source).ok()?;
        let bytes = std::fs::read(self.record_path(source, dataset)).ok()?;
        let r: CompletionRecord = serde_json::from_slice(&bytes).ok()?;
        (r.source == source && r.dataset == dataset).then_some(r)
    }

    /// Writes a record atomically (replacing an older one of the same source and dataset).
    pub fn write_record(&self, r: &CompletionRecord) -> io::Result<()> {
        check_name(&r.source)?;
        check_name(&r.dataset)?;
        let text = serde_json::to_vec_pretty(r).map_err(io::Error::other)?;
        fsutil::write_atomic(&self.record_path(&r.source, &r.dataset), &text)
    }

    /// Every record of `source`.
    pub fn source_records(&self, source: &str) -> Vec<CompletionRecord> {
        if check_name(source).is_err() {
            return Vec::new();
        }
        let Ok(rd) = std::fs::read_dir(self.sources_dir().join(source)) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for e in rd.flatten() {
            let name = e.file_name();
            let Some(dataset) = name.to_str().and_then(|n| n.strip_suffix(".json")) else {
                continue;
            };
            if dataset.starts_with('.') {
                continue;
            }
            out.extend(self.read_record(source, dataset));
        }
        out
    }

    /// Parquet files under the dataset folders `datasets` that no completion record lists (relative paths,
    /// sorted): left by a narrower rerun, an option change, or a record deleted by hand. Only files last
    /// written before `before` count, so an output another writer has just moved into place, whose record is
    /// written right after, is never taken for stale.
    pub fn unlisted_outputs<'a>(
        &self,
        datasets: impl IntoIterator<Item = &'a str>,
        before: std::time::SystemTime,
    ) -> Vec<String> {
        let listed: std::collections::BTreeSet<String> = self
            .records()
            .into_iter()
            .filter_map(|r| r.output.map(|o| o.path))
            .collect();
        let mut out = Vec::new();
        let mut stack: Vec<PathBuf> = datasets.into_iter().map(|d| self.root.join(d)).collect();
        while let Some(dir) = stack.pop() {
            let Ok(rd) = std::fs::read_dir(&dir) else {
                continue;
            };
            for e in rd.flatten() {
                let Ok(ft) = e.file_type() else { continue };
                let name = e.file_name();
                let name = name.to_string_lossy();
                if ft.is_dir() {
                    stack.push(e.path()); // a real folder (symlinks are not followed)
                } else if ft.is_file() && !name.starts_with('.') && name.ends_with(".parquet") {
                    let old = e
                        .metadata()
                        .and_then(|m| m.modified())
                        .is_ok_and(|t| t < before);
                    let rel = e.path();
                    let rel = rel.strip_prefix(&self.root).unwrap_or(&rel);
                    let rel = rel.to_string_lossy().replace('\\', "/");
                    if old && !listed.contains(&rel) {
                        out.push(rel);
                    }
                }
            }
        }
        out.sort();
        out
    }

    /// Every record in the directory.
    pub fn records(&self) -> Vec<CompletionRecord> {
        let Ok(rd) = std::fs::read_dir(self.sources_dir()) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for e in rd.flatten() {
            if let Some(source) = e.file_name().to_str() {
                out.extend(self.source_records(source));
            }
        }
        out
    }

    /// The record of (`source`, `dataset`) when it proves the dataset complete: made from source bytes with
    /// sha256 `sha256`, with `options`, at this schema version, and its output (if any) on disk with the
    /// recorded size and modification time, or (`Check::Full`, or a record without a modification time) with
    /// the recorded size and sha256. A record proven by its sha256 whose output's time differs from the one
    /// recorded (or was never recorded) gets the time the hash was taken at, so the next run needs no read.
    pub fn complete(
        &self,
        source: &str,
        dataset: &str,
        sha256: &str,
        options: &str,
        check: Check,
    ) -> Option<Proven> {
        let r = self.read_record(source, dataset)?;
        if !record_matches(&r, sha256, options) {
            return None;
        }
        let Some(o) = &r.output else {
            return Some(Proven {
                record: r,
                output: OutputProof::None,
            });
        };
        let p = self.root.join(&o.path);
        let before = std::fs::metadata(&p).ok().filter(|m| m.len() == o.bytes)?;
        let mtime = mtime_ns(&before);
        if check != Check::Full && o.mtime_ns.is_some() && o.mtime_ns == mtime {
            return Some(Proven {
                record: r,
                output: OutputProof::SizeMtime,
            });
        }
        if manifest::file_sha256(&p)? != o.sha256 {
            return None;
        }
        let after = std::fs::metadata(&p).ok().and_then(|m| mtime_ns(&m));
        if mtime.is_some() && after == mtime && o.mtime_ns != mtime {
            self.restamp(&r, mtime);
        }
        Some(Proven {
            record: r,
            output: OutputProof::Sha256,
        })
    }

    /// Records `mtime` in `r` (an output just proven by its hash), under the source's lock and only if the
    /// record is still `r`: best effort, as a record left as it was is only hashed again.
    fn restamp(&self, r: &CompletionRecord, mtime: Option<u64>) {
        let Ok(_lock) = self.lock_source(&r.source) else {
            return;
        };
        if self.read_record(&r.source, &r.dataset).as_ref() != Some(r) {
            return;
        }
        let mut new = r.clone();
        if let Some(o) = new.output.as_mut() {
            o.mtime_ns = mtime;
        }
        let _ = self.write_record(&new);
    }

    /// The lock file of a source.
    pub fn source_lock_path(&self, source: &str) -> PathBuf {
        self.root
            .join(META_DIR)
            .join("locks")
            .join(format!("source={source}.lock"))
    }

    /// Holds `source`'s lock until dropped: committing its outputs and records happens under it.
    pub fn lock_source(&self, source: &str) -> io::Result<FileLock> {
        check_name(source)?;
        FileLock::acquire(&self.source_lock_path(source))
    }

    fn lock_manifest(&self) -> io::Result<FileLock> {
        FileLock::acquire(&self.root.join(META_DIR).join("locks").join("manifest.lock"))
    }

    /// Puts `source`'s records into `manifest.json` (under the manifest lock; a manifest that is missing or
    /// does not parse is rebuilt from all records).
    pub fn update_manifest(&self, source: &str) -> io::Result<()> {
        let _lock = self.lock_manifest()?;
        let Some(mut m) = Manifest::load(&self.root) else {
            return Manifest::from_records(self.records()).save(&self.root);
        };
        let fresh = Manifest::from_records(self.source_records(source));
        m.sources.remove(source);
        m.sources.extend(fresh.sources);
        m.save(&self.root)
    }

    /// Rebuilds `manifest.json` from every record (under the manifest lock) and returns it.
    pub fn rebuild_manifest(&self) -> io::Result<Manifest> {
        let _lock = self.lock_manifest()?;
        let m = Manifest::from_records(self.records());
        m.save(&self.root)?;
        Ok(m)
    }

    /// Removes temporary files (`.<name>.<pid>-<n>.tmp`) of writers that are no longer running, under the
    /// given top-level directories (dataset folders, recursively) and `_eraflow/`. A live writer's are kept.
    pub fn clean_stale_temporaries<'a>(&self, dirs: impl IntoIterator<Item = &'a str>) {
        for d in dirs.into_iter().chain([META_DIR]) {
            if check_name(d).is_ok() {
                clean_dir(&self.root.join(d), 0);
            }
        }
    }
}

/// The stale temporaries of one directory and its subdirectories (real ones only: symlinks are not followed).
fn clean_dir(dir: &Path, depth: usize) {
    if depth > 8 {
        return;
    }
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let Ok(t) = e.file_type() else { continue };
        if t.is_dir() {
            clean_dir(&e.path(), depth + 1);
        } else if t.is_file() {
            let name = e.file_name();
            let owner = name.to_str().and_then(fsutil::temporary_owner);
            if owner.is_some_and(|pid| !fsutil::process_alive(pid)) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sink::manifest::OutputEntry;

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

    #[test]
    fn records_prove_completeness_per_dataset() {
        let dir = tempfile::tempdir().unwrap();
        let o = OutputDir::new(dir.path());
        std::fs::create_dir_all(dir.path().join("blocks")).unwrap();
        std::fs::write(dir.path().join("blocks/a.parquet"), b"abc").unwrap();
        o.write_record(&record(
            "s.era1",
            "blocks",
            Some(("blocks/a.parquet", b"abc")),
        ))
        .unwrap();
        o.write_record(&record("s.era1", "withdrawals", None))
            .unwrap();
        assert!(o
            .complete("s.era1", "blocks", "ab", "o", Check::Listed)
            .is_some());
        assert!(o
            .complete("s.era1", "withdrawals", "ab", "o", Check::Listed)
            .is_some());
        assert!(o
            .complete("s.era1", "blocks", "cd", "o", Check::Listed)
            .is_none());
        assert!(o
            .complete("s.era1", "blocks", "ab", "other", Check::Listed)
            .is_none());
        assert!(o
            .complete("s.era1", "logs", "ab", "o", Check::Listed)
            .is_none());
        std::fs::write(dir.path().join("blocks/a.parquet"), b"abd").unwrap();
        assert!(o
            .complete("s.era1", "blocks", "ab", "o", Check::Listed)
            .is_none());
        let m = o.rebuild_manifest().unwrap();
        assert_eq!(m.sources["s.era1"].datasets, ["blocks", "withdrawals"]);
        assert_eq!(m.sources["s.era1"].outputs.len(), 1);
        assert!(o.write_record(&record("../x", "blocks", None)).is_err());
        assert!(o.write_record(&record("a/b", "blocks", None)).is_err());
        assert!(o.read_record("..", "blocks").is_none());
    }

    #[test]
    fn only_dead_writers_temporaries_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let o = OutputDir::new(dir.path());
        let nested = dir.path().join("blocks/network=x");
        std::fs::create_dir_all(&nested).unwrap();
        let mine = nested.join(format!(".a.parquet.{}-0.tmp", std::process::id()));
        let dead = nested.join(".a.parquet.4194305-0.tmp");
        let not_temp = nested.join("a.parquet");
        for p in [&mine, &dead, &not_temp] {
            std::fs::write(p, b"x").unwrap();
        }
        o.clean_stale_temporaries(["blocks"]);
        assert!(mine.exists() && not_temp.exists());
        assert_eq!(dead.exists(), !Path::new("/proc/self").exists());
    }
}
