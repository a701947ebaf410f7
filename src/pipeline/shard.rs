//! Stable sharding of a job's inputs: `--shard K/N` (or `shard = "K/N"` in a pipeline) keeps the files whose
//! [shard key](Shard::key) is `K` modulo `N`. N processes with K = 0..N-1 over the same inputs take every file
//! exactly once, and the assignment depends on nothing but the file's own name, so a file that appears later
//! never moves one that was already there (a Kubernetes Indexed Job, or a scheduled run per shard, keeps its
//! files from one run to the next).
//!
//! The key of a canonical archive name (`<network>-<era:05>-<hash8>.<era1|era>`) is its era number: shard K of
//! N holds eras K, K+N, K+2N, …, so neighbouring eras (of similar size) spread evenly over the shards. Any
//! other file name's key is the first 8 bytes (big-endian) of the sha256 of the file name — the name, not the
//! path, so moving a directory moves no file between shards.
//!
//! A shard holds no two consecutive eras (when N > 1), so the cross-file checks of `verify` (parent hash and
//! total difficulty across a file boundary) only run between files of the same shard; an unsharded verify
//! checks every boundary.

use crate::formats::ArchiveName;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// Shard `index` of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// K: which shard, `0..count`.
    pub index: u64,
    /// N: how many shards.
    pub count: u64,
}

/// A `--shard` value that is not `K/N` with `0 <= K < N`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("shard '{0}': expected K/N with 0 <= K < N (e.g. 0/4 .. 3/4)")]
pub struct BadShard(pub String);

impl FromStr for Shard {
    type Err = BadShard;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || BadShard(s.to_string());
        let (k, n) = s.trim().split_once('/').ok_or_else(bad)?;
        let index: u64 = k.trim().parse().map_err(|_| bad())?;
        let count: u64 = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl Shard {
    /// The shard key of a file: its era for a canonical archive name, else the first 8 bytes of the sha256
    /// of its file name.
    ///
    /// ```
    /// use eraflow::pipeline::shard::Shard;
    /// use std::path::Path;
    /// assert_eq!(Shard::key(Path::new("/a/mainnet-01234-abcdef01.era1")), 1234);
    /// let s: Shard = "2/4".parse().unwrap();
    /// assert!(s.contains(Path::new("mainnet-00006-abcdef01.era1")));
    /// assert!(!s.contains(Path::new("mainnet-00007-abcdef01.era1")));
    /// ```
    pub fn key(path: &Path) -> u64 {
        if let Some(n) = ArchiveName::of_path(path) {
            return n.era;
        }
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let h = crate::crypto::sha256::sha256(name.as_bytes());
        u64::from_be_bytes(h[..8].try_into().expect("8 bytes"))
    }

    /// Whether this shard takes `path`.
    pub fn contains(&self, path: &Path) -> bool {
        Shard::key(path) % self.count == self.index
    }

    /// The files of `files` this shard takes, in their order.
    pub fn select(&self, files: Vec<PathBuf>) -> Vec<PathBuf> {
        files.into_iter().filter(|p| self.contains(p)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_k_of_n_and_refuses_the_rest() {
        assert_eq!("3/4".parse::<Shard>(), Ok(Shard { index: 3, count: 4 }));
        assert_eq!("0/1".parse::<Shard>().unwrap().to_string(), "0/1");
        for bad in ["4/4", "1/0", "0/0", "-1/4", "a/4", "1", "", "1/2/3", "1/4x"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    #[test]
    fn every_file_lands_in_exactly_one_shard_and_never_moves() {
        let mut files: Vec<PathBuf> = (0..50)
            .map(|e| PathBuf::from(format!("d/mainnet-{e:05}-00112233.era1")))
            .collect();
        files.extend((0..20).map(|i| PathBuf::from(format!("d/odd-name-{i}.era1"))));
        for n in 1..=7u64 {
            let shards: Vec<Shard> = (0..n).map(|k| Shard { index: k, count: n }).collect();
            for f in &files {
                assert_eq!(shards.iter().filter(|s| s.contains(f)).count(), 1);
            }
            // Adding files later leaves the earlier ones where they were.
            let before: Vec<Vec<PathBuf>> =
                shards.iter().map(|s| s.select(files.clone())).collect();
            let mut more = files.clone();
            more.push(PathBuf::from("d/mainnet-00777-00112233.era1"));
            more.push(PathBuf::from("d/late.era1"));
            for (s, b) in shards.iter().zip(before) {
                let after = s.select(more.clone());
                assert!(b.iter().all(|f| after.contains(f)));
            }
        }
        // The key is the file name's, not the path's.
        assert_eq!(
            Shard::key(Path::new("/x/odd.era1")),
            Shard::key(Path::new("y/odd.era1"))
        );
    }
}
