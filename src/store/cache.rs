//! The bounded local cache remote inputs are fetched into, and the prefetcher that fills it ahead of the
//! workers.
//!
//! One background thread fetches the queued files in order ([`Remote::fetch`]) while the caller works on
//! earlier ones. Before a download starts, its declared size is reserved against `max_bytes`: the prefetcher
//! waits until the files still in use leave room, so the cache never holds more than the limit whatever the
//! size of the mirror; a file bigger than the whole limit fails alone at once. A fetched file comes back as a
//! [`CachedFile`], which gives its room back and (unless the cache is kept) removes the file when dropped,
//! i.e. as soon as the caller is done with it. At most [`AHEAD`] fetched files wait for the caller.

use super::fetch::{FetchError, Remote, RemoteFile};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;

/// Fetched files that may wait for the caller (besides the one being fetched and the one in use): enough to
/// ride out a slow file on either side, few enough that an interrupted run wastes little.
pub const AHEAD: usize = 2;

/// Where and how much the cache holds.
#[derive(Debug, Clone)]
pub struct CacheOptions {
    /// The cache folder.
    pub dir: PathBuf,
    /// The most bytes the files being fetched, waiting and in use may take together.
    pub max_bytes: u64,
    /// Leave fetched files in the folder after use (they then no longer count against `max_bytes`).
    pub keep: bool,
}

/// Bytes reserved in the cache, and the wake-up for a prefetcher waiting for room.
#[derive(Debug)]
struct Budget {
    max: u64,
    used: Mutex<u64>,
    freed: Condvar,
}

impl Budget {
    /// Waits until `n` more bytes fit, then reserves them; `false` when `stop` is set first.
    fn reserve(&self, n: u64, stop: &AtomicBool) -> bool {
        let mut used = self.used.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if stop.load(Ordering::Relaxed) {
                return false;
            }
            if used.saturating_add(n) <= self.max {
                *used += n;
                return true;
            }
            used = self
                .freed
                .wait(used)
                .unwrap_or_else(PoisonError::into_inner);
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

/// A fetched file in the cache: removed (unless the cache is kept) and its room given back when dropped.
#[derive(Debug)]
pub struct CachedFile {
    path: PathBuf,
    bytes: u64,
    keep: bool,
    budget: Arc<Budget>,
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
        if !self.keep {
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

/// Fetches queued remote files into the cache ahead of the caller, in queue order.
pub struct Prefetcher {
    rx: Option<Receiver<Fetched>>,
    stop: Arc<AtomicBool>,
    budget: Arc<Budget>,
    thread: Option<JoinHandle<()>>,
}

impl Prefetcher {
    /// Starts fetching `queue` (each file with the index of its store in `remotes`) into the cache; an error
    /// only when the system refuses a thread.
    pub fn start(
        remotes: Vec<Remote>,
        queue: Vec<(usize, RemoteFile)>,
        opts: &CacheOptions,
    ) -> std::io::Result<Prefetcher> {
        let stop = Arc::new(AtomicBool::new(false));
        let budget = Arc::new(Budget {
            max: opts.max_bytes,
            used: Mutex::new(0),
            freed: Condvar::new(),
        });
        let (tx, rx) = sync_channel(AHEAD);
        let (thread_stop, thread_budget, opts) = (stop.clone(), budget.clone(), opts.clone());
        let thread = std::thread::Builder::new()
            .name("eraflow-prefetch".into())
            .spawn(move || {
                for (i, file) in queue {
                    if thread_stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let Some(remote) = remotes.get(i) else {
                        continue;
                    };
                    let result = fetch_one(remote, &file, &opts, &thread_budget, &thread_stop);
                    if matches!(result, Err(FetchError::Stopped { .. })) {
                        return;
                    }
                    if tx.send(Fetched { file, result }).is_err() {
                        return; // the caller is gone
                    }
                }
            })?;
        Ok(Prefetcher {
            rx: Some(rx),
            stop,
            budget,
            thread: Some(thread),
        })
    }

    /// The next file in queue order, waiting for its download; `None` when the queue is done.
    pub fn next_file(&mut self) -> Option<Fetched> {
        self.rx.as_ref()?.recv().ok()
    }
}

impl Drop for Prefetcher {
    /// Stops fetching: a download in progress ends at its next chunk and leaves nothing in the cache; the
    /// files fetched but never taken are removed as they are dropped with the channel.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        self.budget.wake();
        // Dropping the receiver drops the waiting files (their Drop removes them) and fails the next send.
        drop(self.rx.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Reserves room for `file` (a file bigger than the whole cache fails at once), then fetches it.
fn fetch_one(
    remote: &Remote,
    file: &RemoteFile,
    opts: &CacheOptions,
    budget: &Arc<Budget>,
    stop: &AtomicBool,
) -> Result<CachedFile, FetchError> {
    let size = remote.size(file)?;
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
    // From here the reservation belongs to the CachedFile, or is given back on failure.
    match remote.fetch(file, size, &opts.dir, stop) {
        Ok(path) => Ok(CachedFile {
            path,
            bytes: size,
            keep: opts.keep,
            budget: budget.clone(),
        }),
        Err(e) => {
            budget.release(size);
            Err(e)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_waits_for_room_and_stops_when_asked() {
        let b = Arc::new(Budget {
            max: 10,
            used: Mutex::new(0),
            freed: Condvar::new(),
        });
        let stop = Arc::new(AtomicBool::new(false));
        assert!(b.reserve(6, &stop));
        let (b2, s2) = (b.clone(), stop.clone());
        let waiter = std::thread::spawn(move || b2.reserve(6, &s2));
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(!waiter.is_finished(), "6 + 6 > 10 must wait");
        b.release(6);
        assert!(waiter.join().unwrap());
        let (b3, s3) = (b.clone(), stop.clone());
        let waiter = std::thread::spawn(move || b3.reserve(6, &s3));
        std::thread::sleep(std::time::Duration::from_millis(50));
        stop.store(true, Ordering::Relaxed);
        b.wake();
        assert!(!waiter.join().unwrap());
    }
}
