//! Atomic file output: write to a temporary name in the destination directory, fsync, rename. A crash or kill
//! at any moment leaves either the old file, no file, or the complete new file under the final name — never a
//! partial one. Every writer in eraflow (archives, Parquet, manifests, prune lists) goes through here.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Temporaries this process has started, so two in one process never share a name.
static TEMPORARIES: AtomicU64 = AtomicU64::new(0);

/// The process that owns a temporary file named `.<name>.<pid>-<n>.tmp` (or the older `.<name>.<pid>.tmp`);
/// `None` for any other name.
pub fn temporary_owner(file_name: &str) -> Option<u32> {
    let inner = file_name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let (_, last) = inner.rsplit_once('.')?;
    let pid = last.split_once('-').map_or(last, |(pid, _)| pid);
    pid.parse().ok()
}

/// Whether process `pid` may still be running on this machine: this process, or a `/proc/<pid>` that exists and
/// is not a zombie. Where `/proc` cannot tell, every process counts as alive (so nothing of a live writer is ever
/// removed). A writer killed with its parent (a lost Ray worker) stays a zombie until something reaps it, forever
/// under a container's PID 1 that does not reap: its temporaries are stale all the same.
pub fn process_alive(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return true;
    }
    let Ok(stat) = fs::read_to_string(proc.join(pid.to_string()).join("stat")) else {
        return false;
    };
    // `pid (comm) S ...`: the state follows the last ')', as comm may itself hold ')'.
    let state = stat
        .rsplit_once(')')
        .and_then(|(_, rest)| rest.trim_start().chars().next());
    !matches!(state, Some('Z' | 'X' | 'x'))
}

/// Bytes an [`AtomicFile`] gathers before a write call: a few system calls per MiB, and small beside the
/// memory of a run that has one file open per dataset (an era file's export has 19; 1 MiB each was 19 MiB).
const WRITE_BUFFER: usize = 64 << 10;

/// A file being written under a temporary name next to its final path.
pub struct AtomicFile {
    tmp: PathBuf,
    dest: PathBuf,
    writer: Option<BufWriter<File>>,
}

impl AtomicFile {
    /// Starts writing `dest` (creating its directory). The temporary name is `.<name>.<pid>-<n>.tmp`, hidden and
    /// unique per process and file, so a stale one from a killed run is never mistaken for output, and a cleaner
    /// can tell a dead writer's temporaries ([`temporary_owner`], [`process_alive`]) from a live one's.
    pub fn create(dest: &Path) -> io::Result<AtomicFile> {
        let dir = dest
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        fs::create_dir_all(dir)?;
        let name = dest.file_name().and_then(|n| n.to_str()).unwrap_or("out");
        let n = TEMPORARIES.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".{name}.{}-{n}.tmp", std::process::id()));
        // Readable too: a download written at several offsets is hashed back from it.
        let f = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&tmp)?;
        Ok(AtomicFile {
            tmp,
            dest: dest.to_path_buf(),
            writer: Some(BufWriter::with_capacity(WRITE_BUFFER, f)),
        })
    }

    /// The final path.
    pub fn dest(&self) -> &Path {
        &self.dest
    }

    /// Empties the file to write it again from its first byte (a download that starts over).
    pub fn rewind(&mut self) -> io::Result<()> {
        use std::io::Seek;
        let w = self
            .writer
            .as_mut()
            .ok_or_else(|| io::Error::other("committed"))?;
        w.flush()?;
        w.get_mut().set_len(0)?;
        w.get_mut().rewind()?;
        Ok(())
    }

    /// The file itself, everything written so far flushed to it: for writes at given offsets (a download of
    /// several ranges at once), which bypass the buffer.
    pub fn positioned(&mut self) -> io::Result<&File> {
        let w = self
            .writer
            .as_mut()
            .ok_or_else(|| io::Error::other("committed"))?;
        w.flush()?;
        Ok(w.get_ref())
    }

    /// Flushes, fsyncs, renames into place and fsyncs the directory.
    pub fn commit(self) -> io::Result<()> {
        self.finish(true)
    }

    /// Like [`commit`](Self::commit) but leaves the directory unsynced: for files written into a staging
    /// directory that is itself synced once and renamed into place when complete (prune manifests), so the
    /// directory is not synced once per file.
    pub fn commit_staged(self) -> io::Result<()> {
        self.finish(false)
    }

    fn finish(mut self, sync_dir: bool) -> io::Result<()> {
        let w = self
            .writer
            .take()
            .ok_or_else(|| io::Error::other("already committed"))?;
        // Any failure from here on (the last buffer on a full disk, fsync, a rename onto a directory) removes
        // the temporary: nothing is left that no one will ever commit.
        let committed = w
            .into_inner()
            .map_err(|e| e.into_error())
            .and_then(|f| f.sync_all())
            .and_then(|()| fs::rename(&self.tmp, &self.dest));
        if let Err(e) = committed {
            let _ = fs::remove_file(&self.tmp);
            return Err(e);
        }
        if !sync_dir {
            return Ok(());
        }
        if let Some(dir) = self.dest.parent().filter(|d| !d.as_os_str().is_empty()) {
            // Persist the rename itself; not supported everywhere, so best effort.
            if let Ok(d) = File::open(dir) {
                let _ = d.sync_all();
            }
        }
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer
            .as_mut()
            .ok_or_else(|| io::Error::other("committed"))?
            .write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.writer
            .as_mut()
            .ok_or_else(|| io::Error::other("committed"))?
            .flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.writer.take().is_some() {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// Removes the temporaries (`.<name>.<pid>-<n>.tmp`, files or folders) of writers no longer running directly
/// under `dir`; a live writer's are kept.
pub fn remove_dead_temporaries(dir: &Path) {
    let Ok(rd) = fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let name = e.file_name();
        let owner = name.to_str().and_then(temporary_owner);
        if owner.is_none_or(process_alive) {
            continue;
        }
        match e.file_type() {
            Ok(t) if t.is_file() => {
                let _ = fs::remove_file(e.path());
            }
            // A real folder (a symlink is not followed into).
            Ok(t) if t.is_dir() => {
                let _ = fs::remove_dir_all(e.path());
            }
            _ => {}
        }
    }
}

/// An exclusive advisory lock (`flock`) on a lock file, held until dropped. Lock files are never removed (so
/// two writers can never lock two different files of one name).
pub struct FileLock {
    _file: File,
}

impl FileLock {
    /// Blocks until this process holds the lock of `path` (created, with its directory, when missing).
    pub fn acquire(path: &Path) -> io::Result<FileLock> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            fs::create_dir_all(dir)?;
        }
        let file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)?;
        file.lock()?;
        Ok(FileLock { _file: file })
    }
}

/// Writes `bytes` to `dest` atomically.
pub fn write_atomic(dest: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut f = AtomicFile::create(dest)?;
    f.write_all(bytes)?;
    f.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dropped_file_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("a.bin");
        {
            let mut f = AtomicFile::create(&dest).unwrap();
            f.write_all(b"partial").unwrap();
        }
        assert!(!dest.exists());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
        write_atomic(&dest, b"whole").unwrap();
        assert_eq!(fs::read(&dest).unwrap(), b"whole");
    }

    #[test]
    fn temporaries_name_their_owner() {
        let dir = tempfile::tempdir().unwrap();
        let f = AtomicFile::create(&dir.path().join("x.parquet")).unwrap();
        let name = fs::read_dir(dir.path()).unwrap().next().unwrap().unwrap();
        let name = name.file_name().into_string().unwrap();
        assert_eq!(temporary_owner(&name), Some(std::process::id()), "{name}");
        drop(f);
        assert_eq!(temporary_owner(".x.parquet.999.tmp"), Some(999));
        assert_eq!(temporary_owner(".x.parquet.12-3.tmp"), Some(12));
        assert_eq!(temporary_owner("x.parquet"), None);
        assert!(process_alive(std::process::id()));
        // Past the largest pid Linux hands out.
        assert!(!process_alive(4_194_305) || !Path::new("/proc/self").exists());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_zombie_writer_is_dead_a_running_one_alive() {
        let mut running = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        assert!(process_alive(running.id()));
        running.kill().unwrap();
        // Killed and not yet reaped: a zombie, as a writer killed with its Ray worker under a non-reaping PID 1.
        let stat = || fs::read_to_string(format!("/proc/{}/stat", running.id())).unwrap();
        for _ in 0..500 {
            if stat().contains(") Z") {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(stat().contains(") Z"), "{}", stat());
        assert!(!process_alive(running.id()));
        running.wait().unwrap();
        assert!(!process_alive(running.id()));
    }
}
