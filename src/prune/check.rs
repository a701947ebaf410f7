//! `eraflow prune check DIR`: re-verifies a manifest directory before a node trusts it to delete data.
//!
//! Checks, streaming every file once: each listed file's size and sha256; entry counts against the totals;
//! `tx_hashes.bin` strictly increasing (sorted, no duplicates); `tx_locations.parquet` sorted by block then
//! index with indices 0, 1, 2... per block, blocks inside the covered ranges, per-source counts, and the same set
//! of hashes as `tx_hashes.bin` (a 256-bit sum fingerprint of both); `ranges.json` equal to what the manifest
//! implies; text lists equal to their binary twins; the manifest's own ranges, sources and totals consistent;
//! and no unlisted files in the directory.

use super::manifest::{self, covered, BlockRange, ListFile, Manifest, Ranges};
use alloy_primitives::U256;
use arrow_array::{Array, FixedSizeBinaryArray, UInt32Array, UInt64Array};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use sha2::Digest;
use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// One inconsistency: which file, what, expected against found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckIssue {
    /// File name inside the directory.
    pub file: String,
    /// What was checked.
    pub what: String,
    /// What the manifest (or the format) requires.
    pub expected: String,
    /// What the file holds.
    pub found: String,
}

impl std::fmt::Display for CheckIssue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {}: expected {}, found {}",
            self.file, self.what, self.expected, self.found
        )
    }
}

/// Why the check could not run or failed.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// The directory to check does not exist or cannot be read (a usage or I/O error, exit 2).
    #[error("prune check: {}", .path.display())]
    Directory {
        /// The directory.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// The manifest exists but cannot be read (permissions, I/O: exit 2).
    #[error("prune check: {}", .path.display())]
    Unreadable {
        /// The manifest path.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// The manifest is missing from its directory, garbled or truncated: the check fails (exit 1), as for any
    /// other inconsistency.
    #[error("prune check: {path}: {message}")]
    Manifest {
        /// The manifest path.
        path: String,
        /// What is wrong with it.
        message: String,
    },
    /// The directory holds inconsistencies (all of them are listed, up to a bound).
    #[error("prune check: {} inconsistencies:\n  {}", .0.len(), .0.iter().map(|i| i.to_string()).collect::<Vec<_>>().join("\n  "))]
    Inconsistent(Vec<CheckIssue>),
}

/// What a passing check saw.
#[derive(Debug, Clone)]
pub struct CheckSummary {
    /// The manifest.
    pub manifest: Manifest,
    /// Files checked (including the manifest).
    pub files_checked: usize,
}

/// Issues listed before the rest are dropped (one corrupted file must not print a million lines).
const MAX_ISSUES: usize = 100;

struct Issues(Vec<CheckIssue>);

impl Issues {
    fn add(&mut self, file: &str, what: &str, expected: impl ToString, found: impl ToString) {
        if self.0.len() < MAX_ISSUES {
            self.0.push(CheckIssue {
                file: file.into(),
                what: what.into(),
                expected: expected.to_string(),
                found: found.to_string(),
            });
        }
    }
}

/// Checks the manifest directory `dir`; `Ok` only when everything is consistent.
pub fn check(dir: &Path) -> Result<CheckSummary, CheckError> {
    fs::read_dir(dir).map_err(|source| CheckError::Directory {
        path: dir.to_path_buf(),
        source,
    })?;
    let mpath = dir.join(manifest::MANIFEST);
    let text = fs::read(&mpath).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => CheckError::Manifest {
            path: mpath.display().to_string(),
            message: format!("expected a prune manifest, found no {}", manifest::MANIFEST),
        },
        _ => CheckError::Unreadable {
            path: mpath.clone(),
            source: e,
        },
    })?;
    let m: Manifest = serde_json::from_slice(&text).map_err(|e| CheckError::Manifest {
        path: mpath.display().to_string(),
        message: format!("not a prune manifest: {e}"),
    })?;
    let mut issues = Issues(Vec::new());
    if m.format_version != manifest::FORMAT_VERSION {
        issues.add(
            manifest::MANIFEST,
            "format_version",
            manifest::FORMAT_VERSION,
            &m.format_version,
        );
    }
    check_manifest_ranges(&m, &mut issues);

    // Every listed file exists with its size and checksum; every required file is listed; nothing unlisted.
    for required in [
        manifest::BLOCK_HASHES,
        manifest::TX_HASHES,
        manifest::TX_LOCATIONS,
        manifest::RANGES,
    ] {
        if !m.files.contains_key(required) {
            issues.add(
                manifest::MANIFEST,
                "files",
                format!("an entry for {required}"),
                "none",
            );
        }
    }
    for (name, rec) in &m.files {
        check_file_integrity(dir, name, rec, &mut issues);
    }
    match fs::read_dir(dir) {
        Ok(rd) => {
            for e in rd.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if name != manifest::MANIFEST && !m.files.contains_key(&name) {
                    issues.add(
                        &name,
                        "presence",
                        "only files listed in manifest.json",
                        "an unlisted file",
                    );
                }
            }
        }
        Err(e) => issues.add(".", "directory listing", "readable", e),
    }

    // Contents.
    if let Some(rec) = m.files.get(manifest::BLOCK_HASHES) {
        expect_entries(manifest::BLOCK_HASHES, rec, m.totals.blocks, &mut issues);
        expect_size(manifest::BLOCK_HASHES, rec, m.totals.blocks, &mut issues);
    }
    let mut tx_sum = None;
    if let Some(rec) = m.files.get(manifest::TX_HASHES) {
        expect_entries(manifest::TX_HASHES, rec, m.totals.transactions, &mut issues);
        expect_size(manifest::TX_HASHES, rec, m.totals.transactions, &mut issues);
        tx_sum = check_sorted(&dir.join(manifest::TX_HASHES), &mut issues);
    }
    if m.files.contains_key(manifest::TX_LOCATIONS) {
        check_locations(dir, &m, tx_sum, &mut issues);
    }
    if m.files.contains_key(manifest::RANGES) {
        let want = Ranges::new(&m.network, m.chain_id, covered(m.range, &m.gaps));
        match fs::read(dir.join(manifest::RANGES))
            .map_err(|e| e.to_string())
            .and_then(|b| serde_json::from_slice::<Ranges>(&b).map_err(|e| e.to_string()))
        {
            Ok(r) if r == want => {}
            Ok(r) => issues.add(
                manifest::RANGES,
                "ranges",
                serde_json::to_string(&want).unwrap_or_default(),
                serde_json::to_string(&r).unwrap_or_default(),
            ),
            Err(e) => issues.add(manifest::RANGES, "parse", "ranges JSON", e),
        }
    }
    for (txt, bin) in [
        (manifest::BLOCK_HASHES_TXT, manifest::BLOCK_HASHES),
        (manifest::TX_HASHES_TXT, manifest::TX_HASHES),
    ] {
        if let Some(rec) = m.files.get(txt) {
            let want = m.files.get(bin).map_or(0, |b| b.entries);
            expect_entries(txt, rec, want, &mut issues);
            check_text_twin(&dir.join(txt), &dir.join(bin), &mut issues);
        }
    }

    if issues.0.is_empty() {
        Ok(CheckSummary {
            files_checked: m.files.len() + 1,
            manifest: m,
        })
    } else {
        Err(CheckError::Inconsistent(issues.0))
    }
}

/// The manifest against itself: sources tile the range with the gaps, counts add up.
fn check_manifest_ranges(m: &Manifest, issues: &mut Issues) {
    let f = manifest::MANIFEST;
    if m.range.first > m.range.last {
        issues.add(
            f,
            "range",
            "first <= last",
            format!("{}..={}", m.range.first, m.range.last),
        );
        return;
    }
    // Pieces: included source ranges and gaps, in order, must tile the range exactly.
    let mut pieces: Vec<(BlockRange, String)> = m
        .sources
        .iter()
        .map(|s| (s.included, s.name.clone()))
        .chain(m.gaps.iter().map(|g| (*g, "gap".to_string())))
        .collect();
    pieces.sort_by_key(|p| p.0.first);
    let mut next = m.range.first;
    for (r, what) in &pieces {
        if r.first != next || r.last < r.first {
            issues.add(
                f,
                "block ranges (sources and gaps tile the range)",
                format!("{what} to start at block {next}"),
                format!("{}..={}", r.first, r.last),
            );
        }
        next = r.last.saturating_add(1);
    }
    if next != m.range.last.saturating_add(1) {
        issues.add(
            f,
            "block ranges (sources and gaps tile the range)",
            format!("coverage up to block {}", m.range.last),
            format!("coverage up to block {}", next.saturating_sub(1)),
        );
    }
    for s in &m.sources {
        if s.included.first < s.file_blocks.first || s.included.last > s.file_blocks.last {
            issues.add(
                f,
                "source included range",
                format!("inside {}..={}", s.file_blocks.first, s.file_blocks.last),
                format!("{}..={} ({})", s.included.first, s.included.last, s.name),
            );
        }
        if s.blocks != s.included.len() {
            issues.add(
                f,
                "source block count",
                s.included.len(),
                format!("{} ({})", s.blocks, s.name),
            );
        }
    }
    let blocks: u64 = m.sources.iter().map(|s| s.blocks).sum();
    let txs: u64 = m.sources.iter().map(|s| s.transactions).sum();
    let bytes: u64 = m.sources.iter().map(|s| s.size).sum();
    if blocks != m.totals.blocks {
        issues.add(
            f,
            "totals.blocks (sum over sources)",
            blocks,
            m.totals.blocks,
        );
    }
    if txs != m.totals.transactions {
        issues.add(
            f,
            "totals.transactions (sum over sources)",
            txs,
            m.totals.transactions,
        );
    }
    if bytes != m.totals.archive_bytes {
        issues.add(
            f,
            "totals.archive_bytes (sum over sources)",
            bytes,
            m.totals.archive_bytes,
        );
    }
}

fn expect_entries(name: &str, rec: &ListFile, want: u64, issues: &mut Issues) {
    if rec.entries != want {
        issues.add(name, "entries (manifest)", want, rec.entries);
    }
}

fn expect_size(name: &str, rec: &ListFile, entries: u64, issues: &mut Issues) {
    let want = entries.saturating_mul(32);
    if rec.bytes != want {
        issues.add(name, "bytes (32 per entry, manifest)", want, rec.bytes);
    }
}

/// Size on disk and sha256 against the manifest.
fn check_file_integrity(dir: &Path, name: &str, rec: &ListFile, issues: &mut Issues) {
    let path = dir.join(name);
    let result = (|| -> io::Result<(u64, String)> {
        let mut f = File::open(&path)?;
        let mut sha = sha2::Sha256::new();
        let mut buf = vec![0u8; 1 << 20];
        let mut n = 0u64;
        loop {
            let k = f.read(&mut buf)?;
            if k == 0 {
                break;
            }
            sha.update(&buf[..k]);
            n += k as u64;
        }
        Ok((n, hex::encode(sha.finalize())))
    })();
    match result {
        Ok((size, sha)) => {
            if size != rec.bytes {
                issues.add(name, "file size", rec.bytes, size);
            }
            if sha != rec.sha256 {
                issues.add(name, "sha256", &rec.sha256, sha);
            }
        }
        Err(e) => issues.add(name, "readable file", "present", e),
    }
}

/// Streams `tx_hashes.bin`: strictly increasing, whole records. Returns the 256-bit wrapping sum of the
/// hashes (a set fingerprint to compare with the Parquet file), or `None` when unreadable.
fn check_sorted(path: &Path, issues: &mut Issues) -> Option<U256> {
    let name = manifest::TX_HASHES;
    let f = match File::open(path) {
        Ok(f) => f,
        Err(_) => return None, // already reported by the integrity check
    };
    let mut r = BufReader::with_capacity(1 << 20, f);
    let mut prev: Option<[u8; 32]> = None;
    let mut sum = U256::ZERO;
    let mut i = 0u64;
    loop {
        let mut h = [0u8; 32];
        match read_full(&mut r, &mut h) {
            Ok(0) => break,
            Ok(32) => {}
            Ok(k) => {
                issues.add(
                    name,
                    "record",
                    format!("32 bytes at offset {}", i * 32),
                    format!("{k} bytes"),
                );
                return None;
            }
            Err(e) => {
                issues.add(name, "read", format!("record at offset {}", i * 32), e);
                return None;
            }
        }
        if let Some(p) = prev {
            if h <= p {
                issues.add(
                    name,
                    if h == p {
                        "duplicate hash"
                    } else {
                        "sort order (strictly increasing)"
                    },
                    format!("entry {i} (offset {}) > 0x{}", i * 32, hex::encode(p)),
                    format!("0x{}", hex::encode(h)),
                );
                return None;
            }
        }
        sum = sum.wrapping_add(U256::from_be_bytes(h));
        prev = Some(h);
        i += 1;
    }
    Some(sum)
}

fn read_full(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        let k = r.read(&mut buf[filled..])?;
        if k == 0 {
            break;
        }
        filled += k;
    }
    Ok(filled)
}

/// Streams `tx_locations.parquet`: schema, order, per-block indices, ranges, per-source counts, hash set.
fn check_locations(dir: &Path, m: &Manifest, tx_sum: Option<U256>, issues: &mut Issues) {
    let name = manifest::TX_LOCATIONS;
    let path: PathBuf = dir.join(name);
    let reader = File::open(&path)
        .map_err(|e| e.to_string())
        .and_then(|f| ParquetRecordBatchReaderBuilder::try_new(f).map_err(|e| e.to_string()))
        .and_then(|b| {
            b.with_batch_size(64 * 1024)
                .build()
                .map_err(|e| e.to_string())
        });
    let reader = match reader {
        Ok(r) => r,
        Err(e) => {
            issues.add(name, "parquet file", "readable", e);
            return;
        }
    };
    let want_schema = super::tx_locations_schema();
    let ranges = covered(m.range, &m.gaps);
    let mut per_source = vec![0u64; m.sources.len()];
    // Sources by first included block (the manifest lists them so; sorting keeps a tampered order harmless).
    let mut order: Vec<usize> = (0..m.sources.len()).collect();
    order.sort_by_key(|&k| m.sources[k].included.first);
    let (mut rc, mut sc) = (0usize, 0usize);
    let mut rows = 0u64;
    let mut prev: Option<(u64, u32)> = None;
    let mut sum = U256::ZERO;
    for batch in reader {
        let batch = match batch {
            Ok(b) => b,
            Err(e) => {
                issues.add(name, "row batch", "decodable", e);
                return;
            }
        };
        if batch.schema().fields() != want_schema.fields() {
            issues.add(
                name,
                "schema",
                format!("{:?}", want_schema.fields()),
                format!("{:?}", batch.schema().fields()),
            );
            return;
        }
        let cols = (
            batch
                .column(0)
                .as_any()
                .downcast_ref::<FixedSizeBinaryArray>(),
            batch.column(1).as_any().downcast_ref::<UInt64Array>(),
            batch.column(2).as_any().downcast_ref::<UInt32Array>(),
        );
        let (Some(hashes), Some(blocks), Some(idx)) = cols else {
            issues.add(
                name,
                "column types",
                "fixed_size_binary(32), uint64, uint32",
                "other types",
            );
            return;
        };
        if hashes.null_count() + blocks.null_count() + idx.null_count() > 0 {
            issues.add(name, "nulls", "none", "some");
            return;
        }
        for r in 0..batch.num_rows() {
            let (b, i) = (blocks.value(r), idx.value(r));
            let ok_order = match prev {
                None => i == 0,
                Some((pb, pi)) => (b == pb && i == pi.wrapping_add(1)) || (b > pb && i == 0),
            };
            if !ok_order {
                issues.add(
                    name,
                    "order (by block, indices 0,1,2.. per block)",
                    format!("after {prev:?}: same block with the next index, or a later block with index 0"),
                    format!("row {rows}: block {b} index {i}"),
                );
                return;
            }
            prev = Some((b, i));
            // Rows are in block order (checked above), so both lookups advance a cursor: O(rows + sources).
            while ranges.get(rc).is_some_and(|rg| rg.last < b) {
                rc += 1;
            }
            if ranges.get(rc).is_none_or(|rg| rg.first > b) {
                issues.add(
                    name,
                    "block number in a covered range",
                    format!("{ranges:?}"),
                    format!("row {rows}: block {b}"),
                );
                return;
            }
            while order
                .get(sc)
                .is_some_and(|&k| m.sources[k].included.last < b)
            {
                sc += 1;
            }
            if let Some(&k) = order.get(sc) {
                if m.sources[k].included.first <= b {
                    per_source[k] += 1;
                }
            }
            let h: [u8; 32] = match hashes.value(r).try_into() {
                Ok(h) => h,
                Err(_) => {
                    issues.add(name, "hash width", 32, hashes.value(r).len());
                    return;
                }
            };
            sum = sum.wrapping_add(U256::from_be_bytes(h));
            rows += 1;
        }
    }
    if rows != m.totals.transactions {
        issues.add(name, "rows", m.totals.transactions, rows);
    }
    if let Some(rec) = m.files.get(name) {
        expect_entries(name, rec, rows, issues);
    }
    for (s, n) in m.sources.iter().zip(&per_source) {
        if *n != s.transactions {
            issues.add(
                name,
                &format!("rows in blocks of {}", s.name),
                s.transactions,
                n,
            );
        }
    }
    if let Some(t) = tx_sum {
        if t != sum {
            issues.add(
                name,
                "hash set (256-bit sum fingerprint) equal to tx_hashes.bin",
                format!("{t:#x}"),
                format!("{sum:#x}"),
            );
        }
    }
}

/// A text list equals its binary twin line by line.
fn check_text_twin(txt: &Path, bin: &Path, issues: &mut Issues) {
    let name = txt
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (Ok(t), Ok(b)) = (File::open(txt), File::open(bin)) else {
        return; // reported by the integrity check
    };
    let mut lines = BufReader::with_capacity(1 << 20, t).lines();
    let mut b = BufReader::with_capacity(1 << 20, b);
    let mut i = 0u64;
    loop {
        let mut h = [0u8; 32];
        let got = read_full(&mut b, &mut h).unwrap_or(0);
        let line = lines.next();
        match (got, line) {
            (0, None) => break,
            (32, Some(Ok(l))) => {
                let want = format!("0x{}", hex::encode(h));
                if l != want {
                    issues.add(&name, &format!("line {}", i + 1), want, l);
                    return;
                }
            }
            (_, l) => {
                issues.add(
                    &name,
                    &format!("line {}", i + 1),
                    if got == 32 {
                        "a line (binary twin has more entries)"
                    } else {
                        "end of file (binary twin ends)"
                    },
                    match l {
                        Some(Ok(l)) => l,
                        Some(Err(e)) => e.to_string(),
                        None => "end of file".into(),
                    },
                );
                return;
            }
        }
        i += 1;
    }
}
