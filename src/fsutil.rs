//! Atomic file output: write to a temporary name in the destination directory, fsync, rename. A crash or kill
//! at any moment leaves either the old file, no file, or the complete new file under the final name — never a
//! partial one. Every writer in eraflow (archives, Parquet, manifests, prune lists) goes through here.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// A file being written under a temporary name next to its final path.
pub struct AtomicFile {
    tmp: PathBuf,
    dest: PathBuf,
    writer: Option<BufWriter<File>>,
}

impl AtomicFile {
    /// Starts writing `dest` (creating its directory). The temporary name is `.<name>.<pid>.tmp`, hidden and
    /// unique per process, so a stale one from a killed run is never mistaken for output.
    pub fn create(dest: &Path) -> io::Result<AtomicFile> {
        let dir = dest
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        fs::create_dir_all(dir)?;
        let name = dest.file_name().and_then(|n| n.to_str()).unwrap_or("out");
        let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
        let f = File::create(&tmp)?;
        Ok(AtomicFile {
            tmp,
            dest: dest.to_path_buf(),
            writer: Some(BufWriter::with_capacity(1 << 20, f)),
        })
    }

    /// The final path.
    pub fn dest(&self) -> &Path {
        &self.dest
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
        let f = w.into_inner().map_err(|e| e.into_error())?;
        f.sync_all()?;
        drop(f);
        fs::rename(&self.tmp, &self.dest)?;
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
}
