//! Reading an output for its report: a local directory or an object-store prefix, through the same calls. Small
//! files (the manifest, run reports) are read whole; a Parquet file's footer alone for its row groups
//! (a range read when remote); the Parquet files the charts aggregate are read in place when local, and
//! downloaded one at a time per worker into a temporary file when remote (removed after use), so neither memory
//! nor disk holds more than a worker's current file.

use super::ReportError;
use crate::sink::manifest::Manifest;
use crate::store::output::META_DIR;
use crate::store::remote::RemoteOutput;
use crate::store::url::Location;
use parquet::file::metadata::{ParquetMetaData, ParquetMetaDataReader};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// An output being reported on.
pub enum Output {
    /// A local output directory.
    Local(PathBuf),
    /// An object-store prefix.
    Remote(Box<RemoteOutput>),
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
        match out {
            Location::Local(p) if p.is_dir() => Ok(Output::Local(p.clone())),
            Location::Local(p) => Err(ReportError::NoOutput(p.clone())),
            Location::Remote(u) => Ok(Output::Remote(Box::new(RemoteOutput::open(u)?))),
        }
    }

    /// The bytes at `rel`, `None` when absent.
    fn read(&self, rel: &str) -> Result<Option<Vec<u8>>, ReportError> {
        match self {
            Output::Local(root) => {
                let p = root.join(rel);
                match std::fs::read(&p) {
                    Ok(b) => Ok(Some(b)),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                    Err(source) => Err(ReportError::Io { path: p, source }),
                }
            }
            Output::Remote(r) => Ok(r.read(rel)?),
        }
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
        let rel = format!("{META_DIR}/runs");
        let mut names = match self {
            Output::Local(root) => {
                let dir = root.join(&rel);
                match std::fs::read_dir(&dir) {
                    Ok(rd) => rd
                        .flatten()
                        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                        .filter_map(|e| e.file_name().to_str().map(str::to_string))
                        .collect(),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
                    Err(source) => return Err(ReportError::Io { path: dir, source }),
                }
            }
            Output::Remote(r) => r.list_names(&rel)?,
        };
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
        match self {
            Output::Local(root) => {
                let f = std::fs::File::open(root.join(rel)).map_err(|e| e.to_string())?;
                ParquetMetaDataReader::new()
                    .parse_and_finish(&f)
                    .map_err(|e| e.to_string())
            }
            Output::Remote(r) => {
                let size = r.size(rel).map_err(|e| crate::error::render(&e))?;
                if size < 12 {
                    return Err(format!("{size} bytes: not a Parquet file"));
                }
                let tail = r
                    .read_range(rel, size - 8..size)
                    .map_err(|e| crate::error::render(&e))?;
                if tail.len() != 8 || &tail[4..] != b"PAR1" {
                    return Err("no Parquet footer".into());
                }
                let len = u64::from(u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]));
                if len + 8 > size {
                    return Err(format!("a footer of {len} bytes in a file of {size}"));
                }
                let meta = r
                    .read_range(rel, size - 8 - len..size - 8)
                    .map_err(|e| crate::error::render(&e))?;
                ParquetMetaDataReader::decode_metadata(&meta).map_err(|e| e.to_string())
            }
        }
    }

    /// Runs `f` on a local path holding the file at `rel`: the file itself when local, else a temporary download
    /// removed afterwards.
    pub fn with_local<T>(
        &self,
        rel: &str,
        f: impl FnOnce(&Path) -> Result<T, String>,
    ) -> Result<T, String> {
        match self {
            Output::Local(root) => f(&root.join(rel)),
            Output::Remote(r) => {
                static N: AtomicU64 = AtomicU64::new(0);
                let tmp = std::env::temp_dir().join(format!(
                    ".eraflow-report-{}-{}.parquet.tmp",
                    std::process::id(),
                    N.fetch_add(1, Ordering::Relaxed)
                ));
                let got = r
                    .download(rel, &tmp)
                    .map_err(|e| crate::error::render(&e))
                    .and_then(|()| f(&tmp));
                let _ = std::fs::remove_file(&tmp);
                got
            }
        }
    }
}
