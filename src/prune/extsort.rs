//! External merge sort of 32-byte hashes with a memory budget.
//!
//! Mainnet's pre-merge history holds ~1.7 billion transactions (~54 GB of hashes), far more than RAM, so the
//! sorted `tx_hashes.bin` is built the classic way: hashes accumulate in a buffer of at most `budget` bytes; a
//! full buffer is sorted and spilled as a run (a file of sorted 32-byte records); at the end every run plus the
//! in-memory remainder is k-way merged into the output. When there are more runs than [`MAX_FAN_IN`], groups of
//! runs are first merged into bigger runs, so open files and reader buffers stay bounded too.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::{self, File};
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// One sorted key: a 32-byte hash (compared as big-endian bytes, i.e. lexicographically).
pub type Hash32 = [u8; 32];

/// A hash's order as two big-endian integers: the same order as its bytes, compared without a `memcmp` call
/// per comparison (which showed in profiles of prune).
#[inline(always)]
fn sort_key(h: &Hash32) -> (u128, u128) {
    let (hi, lo) = h.split_at(16);
    (
        u128::from_be_bytes(hi.try_into().unwrap_or_default()),
        u128::from_be_bytes(lo.try_into().unwrap_or_default()),
    )
}

/// Most runs merged at once: bounds open files and reader buffers (`MAX_FAN_IN * READ_BUF` bytes).
pub const MAX_FAN_IN: usize = 64;

/// Read buffer per run during the merge.
const READ_BUF: usize = 64 * 1024;

/// Smallest buffer accepted, so a tiny test budget still makes progress (one hash per run).
const MIN_BUDGET: usize = 32;

/// Why sorting failed: spill files are I/O, and the one data error is a duplicate key.
#[derive(Debug, thiserror::Error)]
pub enum SortError {
    /// Writing or reading a spill file failed.
    #[error("external sort: {path}: {source}")]
    Io {
        /// The spill file or directory.
        path: String,
        /// The underlying error.
        source: io::Error,
    },
    /// A spill file ended in the middle of a record (disk trouble or tampering with the spill directory).
    #[error(
        "external sort: {path}: truncated run at byte {offset}: expected a multiple of 32 bytes"
    )]
    Truncated {
        /// The spill file.
        path: String,
        /// Where the partial record starts.
        offset: u64,
    },
    /// The same hash was pushed twice: a transaction hash must name one transaction.
    #[error("duplicate hash 0x{}: keys must be unique", hex::encode(.0))]
    Duplicate(Hash32),
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> SortError + '_ {
    move |source| SortError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Accumulates hashes and produces them in sorted order, spilling sorted runs to `spill_dir` when the buffer
/// would exceed the budget.
pub struct ExternalSorter {
    budget_entries: usize,
    buf: Vec<Hash32>,
    spill_dir: PathBuf,
    runs: Vec<PathBuf>,
    /// Sorted runs the caller owns (an earlier manifest's `tx_hashes.bin`): merged, never deleted.
    borrowed: Vec<PathBuf>,
    next_run: u64,
    pushed: u64,
}

/// What a finished sort did: for tests and the run report.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SortStats {
    /// Hashes sorted.
    pub entries: u64,
    /// Runs spilled to disk (0 when everything fit in the budget).
    pub runs_spilled: u64,
    /// Intermediate merge passes needed because runs exceeded [`MAX_FAN_IN`].
    pub merge_passes: u64,
}

impl ExternalSorter {
    /// A sorter keeping at most `budget_bytes` of hashes in memory (at least one), spilling into `spill_dir`
    /// (created on first spill; the caller owns and removes it).
    pub fn new(budget_bytes: usize, spill_dir: &Path) -> Self {
        let budget_entries = budget_bytes.max(MIN_BUDGET) / 32;
        ExternalSorter {
            budget_entries,
            // Grow on demand: a budget of gigabytes must not be reserved for a small input.
            buf: Vec::with_capacity(budget_entries.min(1 << 16)),
            spill_dir: spill_dir.to_path_buf(),
            runs: Vec::new(),
            borrowed: Vec::new(),
            next_run: 0,
            pushed: 0,
        }
    }

    /// Adds one hash; may spill a sorted run.
    pub fn push(&mut self, h: Hash32) -> Result<(), SortError> {
        self.buf.push(h);
        self.pushed += 1;
        if self.buf.len() >= self.budget_entries {
            self.spill()?;
        }
        Ok(())
    }

    /// Adds a file of `entries` hashes already in strictly increasing order (an earlier manifest's
    /// `tx_hashes.bin`, checked sorted): merged with the rest at the end, read once, left in place.
    pub fn add_sorted_run(&mut self, path: &Path, entries: u64) {
        self.borrowed.push(path.to_path_buf());
        self.pushed += entries;
    }

    fn new_run_path(&mut self) -> Result<PathBuf, SortError> {
        fs::create_dir_all(&self.spill_dir).map_err(io_err(&self.spill_dir))?;
        let p = self.spill_dir.join(format!("run-{:06}.bin", self.next_run));
        self.next_run += 1;
        Ok(p)
    }

    fn spill(&mut self) -> Result<(), SortError> {
        if self.buf.is_empty() {
            return Ok(());
        }
        self.buf.sort_unstable_by_key(sort_key);
        let path = self.new_run_path()?;
        let f = File::create(&path).map_err(io_err(&path))?;
        let mut w = BufWriter::with_capacity(1 << 20, f);
        for h in &self.buf {
            w.write_all(h).map_err(io_err(&path))?;
        }
        w.flush().map_err(io_err(&path))?;
        self.buf.clear();
        self.runs.push(path);
        Ok(())
    }

    /// Sorts everything pushed and hands each hash, in strictly increasing order, to `out`. Fails on a
    /// duplicate. Spill files are deleted as they are consumed.
    pub fn finish(
        mut self,
        mut out: impl FnMut(&Hash32) -> io::Result<()>,
        out_name: &Path,
    ) -> Result<SortStats, SortError> {
        let mut stats = SortStats {
            entries: self.pushed,
            runs_spilled: self.runs.len() as u64,
            merge_passes: 0,
        };
        self.buf.sort_unstable_by_key(sort_key);
        // Reduce the runs until one merge can take them all (plus the borrowed runs and the in-memory remainder).
        while self.runs.len() + self.borrowed.len() + 1 > MAX_FAN_IN && self.runs.len() > 1 {
            let group: Vec<PathBuf> = self.runs.drain(..self.runs.len().min(MAX_FAN_IN)).collect();
            let path = self.new_run_path()?;
            let f = File::create(&path).map_err(io_err(&path))?;
            let mut w = BufWriter::with_capacity(1 << 20, f);
            merge(&group, &[], |h| w.write_all(h), &path)?;
            w.flush().map_err(io_err(&path))?;
            for g in &group {
                let _ = fs::remove_file(g);
            }
            self.runs.push(path);
            stats.merge_passes += 1;
        }
        let all: Vec<PathBuf> = self.runs.iter().chain(&self.borrowed).cloned().collect();
        merge(&all, &self.buf, &mut out, out_name)?;
        for r in &self.runs {
            let _ = fs::remove_file(r);
        }
        Ok(stats)
    }
}

/// A sorted source in the merge: a spill file or the in-memory remainder.
enum Source<'a> {
    File {
        path: &'a Path,
        reader: BufReader<File>,
        offset: u64,
    },
    Memory(std::slice::Iter<'a, Hash32>),
}

impl Source<'_> {
    fn next(&mut self) -> Result<Option<Hash32>, SortError> {
        match self {
            Source::Memory(it) => Ok(it.next().copied()),
            Source::File {
                path,
                reader,
                offset,
            } => {
                let mut h = [0u8; 32];
                let mut filled = 0;
                while filled < 32 {
                    let n = reader.read(&mut h[filled..]).map_err(io_err(path))?;
                    if n == 0 {
                        break;
                    }
                    filled += n;
                }
                match filled {
                    0 => Ok(None),
                    32 => {
                        *offset += 32;
                        Ok(Some(h))
                    }
                    _ => Err(SortError::Truncated {
                        path: path.display().to_string(),
                        offset: *offset,
                    }),
                }
            }
        }
    }
}

/// k-way merge of sorted runs and a sorted slice into `out`, refusing duplicates. `out_name` names the
/// destination in I/O errors.
fn merge(
    runs: &[PathBuf],
    mem: &[Hash32],
    mut out: impl FnMut(&Hash32) -> io::Result<()>,
    out_name: &Path,
) -> Result<(), SortError> {
    if runs.is_empty() {
        // Everything fit in memory: the sorted slice is the output, in the order the heap would give it,
        // without a heap operation per hash.
        let mut last: Option<&Hash32> = None;
        for h in mem {
            if last == Some(h) {
                return Err(SortError::Duplicate(*h));
            }
            out(h).map_err(io_err(out_name))?;
            last = Some(h);
        }
        return Ok(());
    }
    let mut sources: Vec<Source<'_>> = Vec::with_capacity(runs.len() + 1);
    for p in runs {
        let f = File::open(p).map_err(io_err(p))?;
        sources.push(Source::File {
            path: p,
            reader: BufReader::with_capacity(READ_BUF, f),
            offset: 0,
        });
    }
    sources.push(Source::Memory(mem.iter()));
    let mut heap: BinaryHeap<Reverse<(Hash32, usize)>> = BinaryHeap::with_capacity(sources.len());
    for (i, s) in sources.iter_mut().enumerate() {
        if let Some(h) = s.next()? {
            heap.push(Reverse((h, i)));
        }
    }
    let mut last: Option<Hash32> = None;
    while let Some(Reverse((h, i))) = heap.pop() {
        if last == Some(h) {
            return Err(SortError::Duplicate(h));
        }
        out(&h).map_err(io_err(out_name))?;
        last = Some(h);
        if let Some(next) = sources[i].next()? {
            heap.push(Reverse((next, i)));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hashes(n: u64) -> Vec<Hash32> {
        (0..n)
            .map(|i| crate::crypto::keccak::keccak256(i.to_be_bytes()).0)
            .collect()
    }

    fn sort_with(budget: usize, input: &[Hash32]) -> (Vec<Hash32>, SortStats) {
        let dir = tempfile::tempdir().unwrap();
        let mut s = ExternalSorter::new(budget, &dir.path().join("spill"));
        for h in input {
            s.push(*h).unwrap();
        }
        let mut out = Vec::new();
        let stats = s
            .finish(
                |h| {
                    out.push(*h);
                    Ok(())
                },
                Path::new("out"),
            )
            .unwrap();
        (out, stats)
    }

    #[test]
    fn spilled_equals_in_memory_with_multi_pass_merge() {
        let input = hashes(5000);
        let mut want = input.clone();
        want.sort();
        let (mem, s0) = sort_with(1 << 30, &input);
        assert_eq!(mem, want);
        assert_eq!(s0.runs_spilled, 0);
        // 10 hashes per run: 500 runs, more than MAX_FAN_IN, so intermediate passes happen.
        let (spilled, s1) = sort_with(320, &input);
        assert_eq!(spilled, want);
        assert_eq!(s1.runs_spilled, 500);
        assert!(s1.merge_passes > 0);
    }

    #[test]
    fn duplicates_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = ExternalSorter::new(64, dir.path());
        for h in [[1u8; 32], [2u8; 32], [1u8; 32]] {
            s.push(h).unwrap();
        }
        let e = s.finish(|_| Ok(()), Path::new("out")).unwrap_err();
        assert!(matches!(e, SortError::Duplicate(h) if h == [1u8; 32]));
    }
}
