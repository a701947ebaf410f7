//! Verification results kept in the output store, so a scheduled run does not verify unchanged archives again:
//! one small JSON file per archive content and set of checks, `OUT/_eraflow/verified/<sha256>.<key>.json`
//! (`key`: 8 hex digits of the checks and eraflow version), holding the passing report with the eraflow version
//! and the checks it passed. A file is taken from there only when its bytes hash to a
//! kept entry of this version and these checks; anything else (a changed file, another version, other checks,
//! an unreadable entry) is verified again. Only passing reports are kept: a failed file is always redone.
//!
//! A file's sha256 comes from the kept hashes of local inputs ([`crate::export::hash_cache`], `OUT/_eraflow/hashes`):
//! an input unchanged since it was hashed (same device, inode, size and times) is not read at all; any other
//! is hashed, and its hash kept once its bytes verified.

use crate::export::hash_cache::{HashCache, Stamp};
use crate::util::fs as fsutil;
use crate::verify::report::{EraLinks, FileReport};
use crate::verify::{ReportCache, VerifyOptions};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The folder under an output directory.
pub const DIR: &str = "_eraflow/verified";

#[derive(Serialize, Deserialize)]
struct Entry {
    eraflow_version: String,
    checks: String,
    report: FileReport,
    /// An era file's links to its neighbours (not part of the report's JSON).
    links: Option<EraLinks>,
}

/// The kept reports of one output directory, for one set of checks.
pub struct VerifyCache {
    dir: PathBuf,
    checks: String,
    /// Names this version's and these checks' entries beside others'.
    key: String,
    /// sha256 and stamp (before it was read) by path, from `get` (a miss), so `put` does not hash the file
    /// again and can keep its hash.
    hashes: Mutex<HashMap<PathBuf, (String, Option<Stamp>)>>,
    /// The inputs' kept hashes.
    kept: HashCache,
}

impl VerifyCache {
    /// The cache under the output directory `out`, for the checks `opts` runs per file.
    pub fn new(out: &Path, opts: &VerifyOptions) -> VerifyCache {
        let checks = checks(opts);
        let key = crate::crypto::sha256::sha256(
            format!("{};{checks}", env!("CARGO_PKG_VERSION")).as_bytes(),
        );
        VerifyCache {
            dir: out.join(DIR),
            key: hex::encode(&key[..4]),
            checks,
            hashes: Mutex::new(HashMap::new()),
            kept: HashCache::new(&out.join(crate::export::hash_cache::DIR)),
        }
    }

    fn entry_path(&self, sha: &str) -> PathBuf {
        self.dir.join(format!("{sha}.{}.json", self.key))
    }
}

/// What decides a file's own report besides its bytes: the checks asked for, the network forced, and the
/// historical summaries ere proofs are checked against.
fn checks(opts: &VerifyOptions) -> String {
    format!(
        "network={};senders={};skip_receipts={};checksum={};summaries={}",
        opts.network
            .as_ref()
            .map_or("(from the file name)", |n| &n.name),
        opts.senders,
        opts.skip_receipts,
        opts.checksum,
        opts.historical_summaries
            .as_ref()
            .map_or("none".to_string(), |s| format!(
                "{}:{}",
                s.state_slot(),
                hex::encode(s.root())
            ))
    )
}

/// The sha256 of the file at `path` (memory-mapped), or `None` when it cannot be read (it is then verified,
/// which reports why).
fn file_sha256(path: &Path) -> Option<String> {
    let f = std::fs::File::open(path).ok()?;
    // SAFETY: read-only map of an input; a file changed under it reads inconsistent bytes, which at worst give
    // a hash no entry has (the file is then verified, and that catches the change).
    let map = unsafe { memmap2::Mmap::map(&f) }.ok()?;
    Some(hex::encode(crate::crypto::sha256::sha256(&map)))
}

impl ReportCache for VerifyCache {
    fn get(&self, path: &Path) -> Option<FileReport> {
        let (sha, stamp) = match self.kept.get(path) {
            Some(sha) => (sha, None),
            None => {
                let stamp = Stamp::of_path(path);
                (file_sha256(path)?, stamp)
            }
        };
        let hit = std::fs::read(self.entry_path(&sha))
            .ok()
            .and_then(|b| serde_json::from_slice::<Entry>(&b).ok())
            .filter(|e| {
                e.eraflow_version == env!("CARGO_PKG_VERSION")
                    && e.checks == self.checks
                    && e.report.ok
            });
        let Some(e) = hit else {
            if let Ok(mut h) = self.hashes.lock() {
                h.insert(path.to_path_buf(), (sha, stamp));
            }
            return None;
        };
        // Bytes that passed these checks before: their hash is kept for the next run.
        if let Some(s) = &stamp {
            self.kept.put(path, s, &sha);
        }
        let mut r = e.report;
        r.file = path.display().to_string();
        r.from_cache = true;
        if let (Some(b), Some(links)) = (r.beacon.as_mut(), e.links) {
            b.links = links;
        }
        Some(r)
    }

    fn put(&self, path: &Path, report: &FileReport) {
        let kept = self.hashes.lock().ok().and_then(|mut h| h.remove(path));
        let sha = match kept {
            Some((sha, stamp)) => {
                // Verified, and unchanged since it was opened: its hash is kept for the next run.
                if let (Some(s), true) = (&stamp, report.ok) {
                    self.kept.put(path, s, &sha);
                }
                Some(sha)
            }
            None => file_sha256(path),
        };
        let Some(sha) = sha else {
            return;
        };
        let entry = Entry {
            eraflow_version: env!("CARGO_PKG_VERSION").to_string(),
            checks: self.checks.clone(),
            report: report.clone(),
            links: report.beacon.as_ref().map(|b| b.links.clone()),
        };
        // Best effort: a result that cannot be kept is verified again next time.
        let kept = std::fs::create_dir_all(&self.dir).and_then(|()| {
            let text = serde_json::to_vec(&entry).map_err(std::io::Error::other)?;
            fsutil::write_atomic(&self.entry_path(&sha), &text)
        });
        if let Err(e) = kept {
            tracing::warn!(file = %path.display(), error = %e, "could not keep the verification result");
        }
    }
}
