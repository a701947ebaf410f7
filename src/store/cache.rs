//! The bounded local cache remote inputs are fetched into, and the prefetcher that fills it ahead of the
//! workers.
//!
//! A coordinating thread takes the queued files in order: it asks each file's size (HEAD), reserves it
//! against `max_bytes` — waiting until the files still in use leave room, so the cache never holds more than
//! the limit whatever the size of the mirror; a file bigger than the whole limit fails alone at once — and
//! hands the download to a thread of its own, at most `downloads` at once ([`Remote::fetch`]; big files are
//! themselves fetched as several ranges, within the same number of connections). Files come back to the
//! caller in queue order as [`CachedFile`]s, which give their room back and (unless the cache is kept) remove
//! the file when dropped, i.e. as soon as the caller is done with it. At most `downloads` + [`AHEAD`] files
//! are fetched or waiting for the caller at a time.
//!
//! **Shared folders.** Processes may share one cache folder: each file has a lock, `.locks/<name>.lock`
//! (`flock`), held shared while a process uses the file and exclusively while one downloads it. A process
//! wanting a file another is downloading waits, then finds it there (a whole copy: the declared size and the
//! published sha256) and does not download it again. A process done with a file removes it only if it can
//! take the lock exclusively, i.e. when no other process still uses it. Temporaries of downloads whose
//! process died are removed when a prefetcher starts.
//!
//! **Stopping.** Every download stops within [`super::fetch::TICK`] when the prefetcher is dropped or the
//! interrupt flag it was given is set (SIGTERM, SIGINT), its partial file removed.

use super::fetch::{Downloads, FetchError, Remote, RemoteFile};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

/// Fetched files that may wait for the caller beyond the ones being downloaded: enough to ride out a slow
/// file on either side, few enough that an interrupted run wastes little.
pub const AHEAD: usize = 2;

/// The folder of the per-file locks, inside the cache folder.
pub const LOCKS: &str = ".locks";

/// Where and how much the cache holds.
#[derive(Debug, Clone)]
pub struct CacheOptions {
    /// The cache folder.
    pub dir: PathBuf,
    /// The most bytes the files being fetched, waiting and in use may take together (in this process).
    pub max_bytes: u64,
    /// Leave fetched files in the folder after use (they then no longer count against `max_bytes`).
    pub keep: bool,
    /// Requests open at once: files downloaded side by side, and ranges of a big file.
    pub downloads: usize,
}

/// A count waited on: bytes reserved in the cache, or downloads under way.
#[derive(Debug)]
struct Budget {
    max: u64,
    used: Mutex<u64>,
    freed: Condvar,
}

impl Budget {
    fn new(max: u64) -> Budget {
        Budget {
            max,
            used: Mutex::new(0),
            freed: Condvar::new(),
        }
    }

    /// Waits until `n` more fit, then reserves them; `false` when `stop` says so first.
    fn reserve(&self, n: u64, stop: &dyn Fn() -> bool) -> bool {
        let mut used = self.used.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if stop() {
                return false;
            }
            if used.saturating_add(n) <= self.max {
                *used += n;
                return true;
            }
            // A timed wait: the interrupt flag is set by a signal handler, which cannot notify.
            used = self
                .freed
                .wait_timeout(used, Duration::from_millis(100))
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    fn release(&self, n: u64) {
        let mut used = self.used.lock().unwrap_or_else(PoisonError::into_inner);
        *used = used.saturating_sub(n);
        self.freed.notify_all();
    }

    fn wake(&self) {
        let _guard = self.used.lock().unwrap_or_else(PoisonError::into_inner);
        self.freed.notify_all();
    }
}

/// A fetched file in the cache: removed (unless the cache is kept, or another process still uses it) and its
/// room given back when dropped.
#[derive(Debug)]
pub struct CachedFile {
    path: PathBuf,
    bytes: u64,
    keep: bool,
    budget: Arc<Budget>,
    /// Its lock, held shared while the file is in use.
    lock: File,
}

impl CachedFile {
    /// The local file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Its size.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}

impl Drop for CachedFile {
    fn drop(&mut self) {
        // Exclusively only when no other process holds the file: the last one to use it removes it.
        if !self.keep && self.lock.try_lock().is_ok() {
            let _ = std::fs::remove_file(&self.path);
        }
        self.budget.release(self.bytes);
    }
}

/// One queued file, fetched or not.
#[derive(Debug)]
pub struct Fetched {
    /// The file as listed.
    pub file: RemoteFile,
    /// Its local copy, or why there is none.
    pub result: Result<CachedFile, FetchError>,
}

/// Fetches queued remote files into the cache ahead of the caller, handing them back in queue order.
pub struct Prefetcher {
    rx: Option<Receiver<Receiver<Fetched>>>,
    stop: Arc<AtomicBool>,
    budget: Arc<Budget>,
    slots: Arc<Budget>,
    thread: Option<JoinHandle<()>>,
}

impl Prefetcher {
    /// Starts fetching `queue` (each file with the index of its store in `remotes`) into the cache; downloads
    /// also stop when `interrupt` is set. An error only when the system refuses a thread.
    pub fn start(
        remotes: Arc<Vec<Remote>>,
        queue: Vec<(usize, RemoteFile)>,
        opts: &CacheOptions,
        interrupt: Option<Arc<AtomicBool>>,
    ) -> std::io::Result<Prefetcher> {
        let stop = Arc::new(AtomicBool::new(false));
        let budget = Arc::new(Budget::new(opts.max_bytes));
        let slots = Arc::new(Budget::new(opts.downloads.max(1) as u64));
        let downloads = opts.downloads.max(1);
        let (tx, rx) = sync_channel(downloads + AHEAD - 1);
        let flags: Vec<Arc<AtomicBool>> = std::iter::once(stop.clone()).chain(interrupt).collect();
        let dl = Arc::new(Downloads::new(downloads, flags));
        let (thread_budget, thread_slots, opts) = (budget.clone(), slots.clone(), opts.clone());
        // Downloads of processes that died mid-file left their temporaries here.
        crate::util::fs::remove_dead_temporaries(&opts.dir);
        let thread = std::thread::Builder::new()
            .name("eraflow-prefetch".into())
            .spawn(move || {
                let stopped = || dl.stopped();
                let mut workers = Vec::new();
                for (i, file) in queue {
                    if stopped() {
                        break;
                    }
                    let (slot, slot_rx) = sync_channel(1);
                    if tx.send(slot_rx).is_err() {
                        break; // the caller is gone
                    }
                    // Sizes are asked and room reserved in queue order, so the file the caller waits for
                    // never waits for room behind files it has not reached.
                    let reserved = remotes
                        .get(i)
                        .ok_or(())
                        .map(|remote| reserve(remote, &file, &opts, &thread_budget, &stopped));
                    let size = match reserved {
                        Err(()) => continue,
                        Ok(Err(FetchError::Stopped { .. })) => break,
                        Ok(Err(e)) => {
                            let _ = slot.send(Fetched {
                                file,
                                result: Err(e),
                            });
                            continue;
                        }
                        Ok(Ok(size)) => size,
                    };
                    if !thread_slots.reserve(1, &stopped) {
                        thread_budget.release(size);
                        break;
                    }
                    let (remotes, budget, slots, dl, opts) = (
                        remotes.clone(),
                        thread_budget.clone(),
                        thread_slots.clone(),
                        dl.clone(),
                        opts.clone(),
                    );
                    let worker = std::thread::Builder::new()
                        .name("eraflow-download".into())
                        .spawn(move || {
                            let result = fetch_one(&remotes[i], &file, size, &opts, &budget, &dl);
                            slots.release(1);
                            // A download the run stopped is no outcome: the caller sees the queue end.
                            if !matches!(result, Err(FetchError::Stopped { .. })) {
                                let _ = slot.send(Fetched { file, result });
                            }
                        });
                    match worker {
                        Ok(w) => workers.push(w),
                        Err(_) => {
                            thread_slots.release(1);
                            thread_budget.release(size);
                            break;
                        }
                    }
                }
                for w in workers {
                    let _ = w.join();
                }
            })?;
        Ok(Prefetcher {
            rx: Some(rx),
            stop,
            budget,
            slots,
            thread: Some(thread),
        })
    }

    /// The next file in queue order, waiting for its download; `None` when the queue is done (or the
    /// downloads were stopped).
    pub fn next_file(&mut self) -> Option<Fetched> {
        self.rx.as_ref()?.recv().ok()?.recv().ok()
    }
}

impl Drop for Prefetcher {
    /// Stops fetching: downloads in progress end within a tick and leave nothing in the cache; the files
    /// fetched but never taken are removed as they are dropped with the channel.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        self.budget.wake();
        self.slots.wake();
        // Dropping the receiver drops the waiting files (their Drop removes them) and fails the next send.
        drop(self.rx.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Asks `file`'s size and reserves room for it (a file bigger than the whole cache fails at once).
fn reserve(
    remote: &Remote,
    file: &RemoteFile,
    opts: &CacheOptions,
    budget: &Budget,
    stop: &dyn Fn() -> bool,
) -> Result<u64, FetchError> {
    let size = remote.size(file, stop)?;
    if size > opts.max_bytes {
        return Err(FetchError::TooBig {
            url: file.url.clone(),
            size,
            limit: opts.max_bytes,
        });
    }
    if !budget.reserve(size, stop) {
        return Err(FetchError::Stopped {
            url: file.url.clone(),
        });
    }
    Ok(size)
}

/// Fetches `file` (its `size` bytes reserved) into the cache, or takes the copy another process fetched; the
/// reservation belongs to the [`CachedFile`], or is given back on failure.
fn fetch_one(
    remote: &Remote,
    file: &RemoteFile,
    size: u64,
    opts: &CacheOptions,
    budget: &Arc<Budget>,
    dl: &Downloads,
) -> Result<CachedFile, FetchError> {
    match obtain(remote, file, size, &opts.dir, dl) {
        Ok((path, lock)) => Ok(CachedFile {
            path,
            bytes: size,
            keep: opts.keep,
            budget: budget.clone(),
            lock,
        }),
        Err(e) => {
            budget.release(size);
            Err(e)
        }
    }
}

/// The file in the cache under its lock, held shared: downloaded under the exclusive lock unless a whole
/// copy is there already (another process's, or kept).
fn obtain(
    remote: &Remote,
    file: &RemoteFile,
    size: u64,
    dir: &Path,
    dl: &Downloads,
) -> Result<(PathBuf, File), FetchError> {
    let cache = |path: &Path, source| FetchError::Cache {
        path: path.to_path_buf(),
        source,
    };
    let dest = dir.join(&file.name);
    let lock_path = dir.join(LOCKS).join(format!("{}.lock", file.name));
    std::fs::create_dir_all(dir.join(LOCKS)).map_err(|e| cache(dir, e))?;
    // Waits for the lock (shared or exclusive), giving up when the run stops.
    let wait = |lock: &File, exclusive: bool| loop {
        let r = match exclusive {
            true => lock.try_lock(),
            false => lock.try_lock_shared(),
        };
        match r {
            Ok(()) => return Ok(()),
            Err(std::fs::TryLockError::WouldBlock) if !dl.stopped() => {
                std::thread::sleep(super::fetch::TICK)
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(FetchError::Stopped {
                    url: file.url.clone(),
                })
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(cache(&lock_path, e)),
        }
    };
    loop {
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| cache(&lock_path, e))?;
        // Shared to look: a whole copy found under it is used (no holder removes it); a process downloading
        // the file holds it exclusively, so this waits for its download.
        wait(&lock, false)?;
        if whole_copy(&dest, size, file.sha256.as_deref()) {
            return Ok((dest, lock));
        }
        // Exclusive to download, once no other process uses a copy.
        lock.unlock().map_err(|e| cache(&lock_path, e))?;
        wait(&lock, true)?;
        if !whole_copy(&dest, size, file.sha256.as_deref()) {
            // Not there, or not this file's bytes (an older copy of a name the mirror republished).
            let _ = std::fs::remove_file(&dest);
            remote.fetch(file, size, &dest, dl)?;
        }
        let inode = inode_of(&dest);
        // Shared from here: others may use the file too, none may remove it.
        lock.lock_shared().map_err(|e| cache(&lock_path, e))?;
        // Changing a lock's kind is not atomic: another process may have removed the file in between.
        if inode.is_some() && inode == inode_of(&dest) {
            return Ok((dest, lock));
        }
    }
}

/// Whether `path` holds `size` bytes hashing to `sha256` (when published).
fn whole_copy(path: &Path, size: u64, sha256: Option<&str>) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() == size)
        && sha256.is_none_or(|want| {
            crate::sink::manifest::file_sha256(path).is_some_and(|got| got == want)
        })
}

#[cfg(unix)]
fn inode_of(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn inode_of(path: &Path) -> Option<(u64, u64)> {
    std::fs::metadata(path).ok().map(|m| (m.len(), 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_waits_for_room_and_stops_when_asked() {
        let b = Arc::new(Budget::new(10));
        let stop = Arc::new(AtomicBool::new(false));
        let s = stop.clone();
        assert!(b.reserve(6, &move || s.load(Ordering::Relaxed)));
        let (b2, s2) = (b.clone(), stop.clone());
        let waiter = std::thread::spawn(move || b2.reserve(6, &move || s2.load(Ordering::Relaxed)));
        std::thread::sleep(Duration::from_millis(50));
        assert!(!waiter.is_finished(), "6 + 6 > 10 must wait");
        b.release(6);
        assert!(waiter.join().unwrap());
        let (b3, s3) = (b.clone(), stop.clone());
        let waiter = std::thread::spawn(move || b3.reserve(6, &move || s3.load(Ordering::Relaxed)));
        std::thread::sleep(Duration::from_millis(50));
        // No wake: a signal handler sets the flag without notifying; the timed wait hears it.
        stop.store(true, Ordering::Relaxed);
        assert!(!waiter.join().unwrap());
    }
}
