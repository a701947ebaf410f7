//! The sha256 of local inputs kept by file identity, so that an unchanged input is never hashed twice: one
//! small JSON file per file, `<dir>/<device>-<inode>.json`, holding the size, modification and change times
//! the file had when it was hashed, and the hash. Kept beside the verification cache (`OUT/_eraflow/hashes`
//! for a local output; `<cache dir>/.hashes` for an object-store one, as device and inode only mean something
//! on this machine).
//!
//! A kept hash is used only when the file still has that device, inode, size, modification time and change
//! time. The change time cannot be set by anyone (writing, renaming over, `touch -d`, a restored backup all
//! set it to now), so a file rewritten in place is hashed again even when its size and modification time are
//! put back. A hash is kept only when the file's stamp was the same before and after it was read (a file
//! written meanwhile is not kept), and only for bytes that verified. Entries of files that are gone stay (a
//! few hundred bytes each) until the folder is removed.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Under a local output directory.
pub const DIR: &str = "_eraflow/hashes";

/// Under the cache folder of a job writing to an object store.
pub const CACHE_DIR: &str = ".hashes";

/// What identifies a file's contents without reading them: where it is on disk, its size and its times.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    /// The device holding it.
    pub dev: u64,
    /// Its inode there.
    pub ino: u64,
    /// Its size.
    pub size: u64,
    /// Modification time, nanoseconds since the Unix epoch.
    pub mtime_ns: i128,
    /// Status change time (any write, rename or metadata change), nanoseconds since the Unix epoch.
    pub ctime_ns: i128,
}

impl Stamp {
    /// The stamp of `meta`; `None` where the platform has no inode and change time.
    #[cfg(unix)]
    pub fn of(meta: &std::fs::Metadata) -> Option<Stamp> {
        use std::os::unix::fs::MetadataExt;
        meta.is_file().then(|| Stamp {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
            ctime_ns: i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec()),
        })
    }

    /// The stamp of `meta`; `None` where the platform has no inode and change time.
    #[cfg(not(unix))]
    pub fn of(_: &std::fs::Metadata) -> Option<Stamp> {
        None
    }

    /// The stamp of the file at `path` now.
    pub fn of_path(path: &Path) -> Option<Stamp> {
        Stamp::of(&std::fs::metadata(path).ok()?)
    }
}

#[derive(Serialize, Deserialize)]
struct Entry {
    stamp: Stamp,
    sha256: String,
}

/// How an input's sha256 was had.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum InputProof {
    /// Kept for this very file (device, inode, size, times): nothing read.
    #[serde(rename = "stat")]
    Stat,
    /// Read and hashed.
    #[serde(rename = "sha256")]
    Hashed,
    /// A remote file not fetched: the sha256 its mirror publishes.
    #[serde(rename = "published")]
    Published,
    /// A remote file not fetched, whose mirror publishes none: its name (an archive's name carries its root),
    /// against the sha256 its records name.
    #[serde(rename = "name")]
    Name,
}

/// The kept hashes of one folder.
#[derive(Debug, Clone)]
pub struct HashCache {
    dir: PathBuf,
}

impl HashCache {
    /// The hashes kept in `dir`.
    pub fn new(dir: &Path) -> HashCache {
        HashCache {
            dir: dir.to_path_buf(),
        }
    }

    fn entry_path(&self, s: &Stamp) -> PathBuf {
        self.dir.join(format!("{}-{}.json", s.dev, s.ino))
    }

    /// The sha256 kept for the file at `path`, when it still has the stamp it was hashed with.
    pub fn get(&self, path: &Path) -> Option<String> {
        let now = Stamp::of_path(path)?;
        let e: Entry = serde_json::from_slice(&std::fs::read(self.entry_path(&now)).ok()?).ok()?;
        (e.stamp == now).then_some(e.sha256)
    }

    /// Keeps `sha256` for the file at `path`, hashed while it had `stamp`, if it still has it (best effort: a
    /// hash not kept is only computed again).
    pub fn put(&self, path: &Path, stamp: &Stamp, sha256: &str) {
        if Stamp::of_path(path).as_ref() != Some(stamp) {
            return;
        }
        let e = Entry {
            stamp: stamp.clone(),
            sha256: sha256.to_string(),
        };
        let kept = std::fs::create_dir_all(&self.dir).and_then(|()| {
            let text = serde_json::to_vec(&e).map_err(std::io::Error::other)?;
            crate::util::fs::write_atomic(&self.entry_path(stamp), &text)
        });
        if let Err(e) = kept {
            tracing::warn!(file = %path.display(), error = %e, "could not keep the input's sha256");
        }
    }

    /// The sha256 of the file at `path`: kept, else read (through a buffer) and kept when the file did not
    /// change while it was read. `None` when it cannot be read.
    pub fn sha256(&self, path: &Path) -> Option<(String, InputProof)> {
        if let Some(sha) = self.get(path) {
            return Some((sha, InputProof::Stat));
        }
        let before = Stamp::of_path(path);
        let sha = crate::sink::manifest::file_sha256(path)?;
        if let Some(s) = before {
            self.put(path, &s, &sha);
        }
        Some((sha, InputProof::Hashed))
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_kept_hash_holds_until_the_file_changes_whatever_is_put_back() {
        let dir = tempfile::tempdir().unwrap();
        let cache = HashCache::new(&dir.path().join("hashes"));
        let f = dir.path().join("a.era1");
        std::fs::write(&f, b"one").unwrap();
        let (sha, how) = cache.sha256(&f).unwrap();
        assert_eq!(how, InputProof::Hashed);
        assert_eq!(cache.sha256(&f).unwrap(), (sha.clone(), InputProof::Stat));
        // Rewritten in place with the same size, its modification time put back: the change time moved.
        let mtime = std::fs::metadata(&f).unwrap().modified().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&f, b"two").unwrap();
        std::fs::File::options()
            .write(true)
            .open(&f)
            .unwrap()
            .set_modified(mtime)
            .unwrap();
        assert_eq!(cache.get(&f), None);
        let (again, how) = cache.sha256(&f).unwrap();
        assert_eq!(how, InputProof::Hashed);
        assert_ne!(again, sha);
        // A stamp that is no longer the file's is not kept.
        let stale = Stamp::of_path(&f).map(|mut s| {
            s.size += 1;
            s
        });
        let other = dir.path().join("b.era1");
        std::fs::write(&other, b"x").unwrap();
        cache.put(&other, &stale.unwrap(), "00");
        assert_eq!(cache.get(&other), None);
    }
}
