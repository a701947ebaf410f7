//! A local output directory as a [`Storage`]: writes are atomic (a temporary, fsync, rename), versions are
//! sizes and modification times, and locks are `flock`s on `_eraflow/locks/<name>.lock`. A conditional put
//! compares and renames under an `flock` of the key's folder, so two processes cannot both replace one version.
//!
//! A temporary file names its writer's process (`.<name>.<pid>-<n>.tmp`); only those of processes no longer
//! running are removed ([`LocalStorage::clean_stale_temporaries`]), never a live writer's.

use super::error::StoreError;
use super::storage::{check_name, META_DIR};
use super::storage::{Guard, Meta, Put, PutIf, Storage, Version};
use crate::sink::manifest::OutputEntry;
use crate::util::fs::{self as fsutil, FileLock};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// A local directory shared by concurrent writers.
#[derive(Debug, Clone)]
pub struct LocalStorage {
    root: PathBuf,
}

/// A file's modification time in nanoseconds since the Unix epoch.
fn mtime_ns(meta: &std::fs::Metadata) -> Option<u64> {
    let t = meta.modified().ok()?;
    let d = t.duration_since(std::time::UNIX_EPOCH).ok()?;
    u64::try_from(d.as_nanos()).ok()
}

fn version(meta: &std::fs::Metadata) -> Version {
    Version::Local {
        bytes: meta.len(),
        mtime_ns: mtime_ns(meta),
    }
}

fn meta(m: &std::fs::Metadata) -> Meta {
    Meta {
        size: m.len(),
        version: version(m),
        modified: m.modified().ok(),
    }
}

impl LocalStorage {
    /// The directory at `root`.
    pub fn new(root: &Path) -> LocalStorage {
        LocalStorage {
            root: root.to_path_buf(),
        }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    fn err(&self, rel: &str) -> impl Fn(io::Error) -> StoreError {
        let path = self.path(rel);
        move |source| StoreError::Local {
            path: path.clone(),
            source,
        }
    }

    /// `rel`'s metadata, `None` when there is none.
    fn stat(&self, rel: &str) -> Result<Option<std::fs::Metadata>, StoreError> {
        match std::fs::metadata(self.path(rel)) {
            Ok(m) => Ok(Some(m)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(self.err(rel)(e)),
        }
    }

    /// Writes `bytes` at `rel` when `ok` says of what is there now (its metadata) that it may be replaced: both
    /// under an `flock` of the folder, so that no other conditional put gets in between.
    fn put_when(
        &self,
        rel: &str,
        bytes: &[u8],
        ok: impl FnOnce(Option<&std::fs::Metadata>) -> bool,
    ) -> Result<Put, StoreError> {
        let p = self.path(rel);
        let dir = p.parent().unwrap_or(&self.root);
        let folder = std::fs::create_dir_all(dir)
            .and_then(|()| std::fs::File::open(dir))
            .and_then(|f| f.lock().map(|()| f))
            .map_err(|source| StoreError::Local {
                path: dir.to_path_buf(),
                source,
            })?;
        if !ok(self.stat(rel)?.as_ref()) {
            return Ok(Put::Conflict);
        }
        fsutil::write_atomic(&p, bytes).map_err(self.err(rel))?;
        drop(folder);
        Ok(Put::Done)
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

impl Storage for LocalStorage {
    fn name(&self) -> String {
        self.root.display().to_string()
    }

    fn tables_root(&self) -> Option<super::delta::TablesRoot> {
        let root = std::path::absolute(&self.root).ok()?;
        Some(super::delta::TablesRoot::Local(root))
    }

    fn location(&self, rel: &str) -> String {
        self.path(rel).display().to_string()
    }

    fn get(&self, rel: &str) -> Result<Option<(Vec<u8>, Version)>, StoreError> {
        let mut f = match std::fs::File::open(self.path(rel)) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(self.err(rel)(e)),
        };
        let m = f.metadata().map_err(self.err(rel))?;
        let mut b = Vec::with_capacity(usize::try_from(m.len()).unwrap_or(0));
        f.read_to_end(&mut b).map_err(self.err(rel))?;
        Ok(Some((b, version(&m))))
    }

    fn head(&self, rel: &str) -> Result<Option<Meta>, StoreError> {
        Ok(self.stat(rel)?.map(|m| meta(&m)))
    }

    fn stream(
        &self,
        rel: &str,
        chunk: &mut dyn FnMut(&[u8]) -> Result<(), StoreError>,
    ) -> Result<Option<Version>, StoreError> {
        let p = self.path(rel);
        let mut f = match std::fs::File::open(&p) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(self.err(rel)(e)),
        };
        let before = f.metadata().map_err(self.err(rel))?;
        // An output is as big as its source's share of a dataset: read through a buffer, never mapped whole.
        let mut buf = vec![0u8; 1 << 20];
        loop {
            match f.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => chunk(&buf[..n])?,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.err(rel)(e)),
            }
        }
        // The bytes read are the version stat'ed before only if nothing wrote the file meanwhile.
        let after = std::fs::metadata(&p).ok().and_then(|m| mtime_ns(&m));
        let mut v = version(&before);
        if let Version::Local { mtime_ns, .. } = &mut v {
            if after != *mtime_ns {
                *mtime_ns = None;
            }
        }
        Ok(Some(v))
    }

    fn list(&self, prefix: &str) -> Result<Vec<(String, Meta)>, StoreError> {
        let mut out = Vec::new();
        let mut stack = vec![self.path(prefix)];
        while let Some(dir) = stack.pop() {
            let rd = match std::fs::read_dir(&dir) {
                Ok(rd) => rd,
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(source) => return Err(StoreError::Local { path: dir, source }),
            };
            for e in rd.flatten() {
                let Ok(ft) = e.file_type() else { continue };
                if ft.is_dir() {
                    stack.push(e.path()); // a real folder (symlinks are not followed)
                } else if ft.is_file() {
                    let Ok(m) = e.metadata() else { continue };
                    let p = e.path();
                    let rel = p.strip_prefix(&self.root).unwrap_or(&p);
                    out.push((rel.to_string_lossy().replace('\\', "/"), meta(&m)));
                }
            }
        }
        Ok(out)
    }

    fn put_if(&self, rel: &str, bytes: Vec<u8>, cond: PutIf<'_>) -> Result<Put, StoreError> {
        // An unconditional put needs no lock: the atomic rename alone keeps readers from a half-written file.
        if let PutIf::Any = cond {
            fsutil::write_atomic(&self.path(rel), &bytes).map_err(self.err(rel))?;
            return Ok(Put::Done);
        }
        self.put_when(rel, &bytes, |cur| cond.allows(cur.map(version).as_ref()))
    }

    fn publish(&self, rel: &str, staged: &Path) -> Result<Version, StoreError> {
        let dest = self.path(rel);
        if staged != dest {
            if let Some(dir) = dest.parent() {
                std::fs::create_dir_all(dir).map_err(self.err(rel))?;
            }
            std::fs::rename(staged, &dest).map_err(self.err(rel))?;
        }
        let m = std::fs::metadata(&dest).map_err(self.err(rel))?;
        Ok(version(&m))
    }

    fn delete(&self, rel: &str) -> Result<(), StoreError> {
        match std::fs::remove_file(self.path(rel)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(self.err(rel)(e)),
            _ => Ok(()),
        }
    }

    fn lock(&self, name: &str) -> Result<Option<Guard>, StoreError> {
        let rel = format!("{META_DIR}/locks/{name}.lock");
        let l = FileLock::acquire(&self.path(&rel)).map_err(self.err(&rel))?;
        Ok(Some(Box::new(l)))
    }

    fn recorded(&self, o: &OutputEntry) -> Version {
        Version::Local {
            bytes: o.bytes,
            mtime_ns: o.mtime_ns,
        }
    }

    fn listing(&self) -> bool {
        false
    }

    fn local_path(&self, rel: &str) -> Option<PathBuf> {
        Some(self.path(rel))
    }
}
