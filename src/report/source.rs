//! Reading an output for its report: a local directory or an object-store prefix, through the same calls. Small
//! files (the manifest, run reports) are read whole; a Parquet file's footer alone for its row groups
//! (a range read when remote); the Parquet files the charts aggregate are read in place when local, and
//! downloaded one at a time per worker into a temporary file when remote (removed after use), so neither memory
//! nor disk holds more than a worker's current file.

use super::ReportError;
use crate::sink::manifest::Manifest;
use crate::store::output::{OutputStore, StoreError, META_DIR};
use crate::store::url::Location;
use parquet::file::metadata::{ParquetMetaData, ParquetMetaDataReader};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// An output being reported on: a local directory or an object-store prefix, read through its storage.
pub struct Output {
    store: OutputStore,
}

/// A storage error as the report says it: a file that could not be read, the object store's own error, or
/// (for a local directory) there being none.
pub(super) fn report_error(e: StoreError) -> ReportError {
    match e {
        StoreError::Local { path, source } => ReportError::Io { path, source },
        StoreError::Remote(e) => ReportError::Remote(e),
        StoreError::NoDirectory(p) => ReportError::NoOutput(p),
        e => ReportError::Io {
            path: e.to_string().into(),
            source: std::io::Error::other("unreadable"),
        },
    }
}

/// What `_eraflow/manifest.json` gave.
#[derive(Debug, Clone)]
pub enum ManifestRead {
    /// There is none: nothing was exported yet.
    Missing,
    /// It exists but does not parse (the reason).
    Unreadable(String),
    /// The manifest.
    Read(Manifest),
}

impl ManifestRead {
    /// The manifest, when there is one.
    pub fn get(&self) -> Option<&Manifest> {
        match self {
            ManifestRead::Read(m) => Some(m),
            _ => None,
        }
    }
}

impl Output {
    /// The output at `out`; a local directory must exist, a remote prefix must be readable.
    pub fn open(out: &Location) -> Result<Output, ReportError> {
        Ok(Output {
            store: OutputStore::at(out).map_err(report_error)?,
        })
    }

    /// The bytes at `rel`, `None` when absent.
    fn read(&self, rel: &str) -> Result<Option<Vec<u8>>, ReportError> {
        let got = self.store.storage().get(rel).map_err(report_error)?;
        Ok(got.map(|(b, _)| b))
    }

    /// `_eraflow/manifest.json`.
    pub fn manifest(&self) -> Result<ManifestRead, ReportError> {
        Ok(match self.read(&format!("{META_DIR}/manifest.json"))? {
            None => ManifestRead::Missing,
            Some(b) => match serde_json::from_slice::<Manifest>(&b) {
                Ok(m) => ManifestRead::Read(m),
                Err(e) => ManifestRead::Unreadable(e.to_string()),
            },
        })
    }

    /// The run reports' file names (`<started>-<pid>.json`), sorted: oldest first.
    pub fn run_names(&self) -> Result<Vec<String>, ReportError> {
        let dir = format!("{META_DIR}/runs/");
        let listed = self.store.storage().list(&dir).map_err(report_error)?;
        let mut names: Vec<String> = listed
            .into_iter()
            .filter_map(|(k, _)| k.strip_prefix(&dir).map(str::to_string))
            .filter(|n| !n.contains('/'))
            .collect();
        // Temporaries (`.<name>.<pid>-<n>.tmp`) and anything else are not reports.
        names.retain(|n| n.ends_with(".json") && !n.starts_with('.'));
        names.sort();
        Ok(names)
    }

    /// The bytes of the run report `name`.
    pub fn run_report(&self, name: &str) -> Result<Option<Vec<u8>>, ReportError> {
        self.read(&format!("{META_DIR}/runs/{name}"))
    }

    /// The footer of the Parquet file at `rel` (a range read of its end when remote), or why not.
    pub fn footer(&self, rel: &str) -> Result<ParquetMetaData, String> {
        let storage = self.store.storage();
        if let Some(p) = storage.local_path(rel) {
            let f = std::fs::File::open(p).map_err(|e| e.to_string())?;
            return ParquetMetaDataReader::new()
                .parse_and_finish(&f)
                .map_err(|e| e.to_string());
        }
        let said = |e: StoreError| crate::error::render(&e);
        let size = match storage.head(rel).map_err(said)? {
            Some(m) => m.size,
            None => return Err(format!("{}: not found", storage.location(rel))),
        };
        if size < 12 {
            return Err(format!("{size} bytes: not a Parquet file"));
        }
        let tail = storage.get_range(rel, size - 8..size).map_err(said)?;
        if tail.len() != 8 || &tail[4..] != b"PAR1" {
            return Err("no Parquet footer".into());
        }
        let len = u64::from(u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]));
        if len + 8 > size {
            return Err(format!("a footer of {len} bytes in a file of {size}"));
        }
        let meta = storage
            .get_range(rel, size - 8 - len..size - 8)
            .map_err(said)?;
        ParquetMetaDataReader::decode_metadata(&meta).map_err(|e| e.to_string())
    }

    /// Runs `f` on a local path holding the file at `rel`: the file itself when local, else a temporary download
    /// (streamed, never whole in memory) removed afterwards.
    pub fn with_local<T>(
        &self,
        rel: &str,
        f: impl FnOnce(&Path) -> Result<T, String>,
    ) -> Result<T, String> {
        let storage = self.store.storage();
        if let Some(p) = storage.local_path(rel) {
            return f(&p);
        }
        static N: AtomicU64 = AtomicU64::new(0);
        let tmp = std::env::temp_dir().join(format!(
            ".eraflow-report-{}-{}.parquet.tmp",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let got = download(storage, rel, &tmp).and_then(|()| f(&tmp));
        let _ = std::fs::remove_file(&tmp);
        got
    }
}

/// Streams `rel` into the local file `local` (created or truncated), one response chunk at a time.
fn download(
    storage: &dyn crate::store::storage::Storage,
    rel: &str,
    local: &Path,
) -> Result<(), String> {
    use std::io::Write;
    let io = |source| StoreError::Local {
        path: local.to_path_buf(),
        source,
    };
    let said = |e: StoreError| crate::error::render(&e);
    let mut f = std::io::BufWriter::new(std::fs::File::create(local).map_err(io).map_err(said)?);
    let found = storage
        .stream(rel, &mut |part| f.write_all(part).map_err(io))
        .map_err(said)?;
    if found.is_none() {
        return Err(format!("{}: not found", storage.location(rel)));
    }
    f.flush().map_err(io).map_err(said)
}
