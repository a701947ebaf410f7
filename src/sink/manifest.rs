//! What an output directory holds and from what: one [`CompletionRecord`] per (source, dataset) under
//! `OUT/_eraflow/sources/<source>/<dataset>.json`, written once that dataset's output is in place, and
//! `OUT/_eraflow/manifest.json`, the readable aggregate rebuilt from the records ([`Manifest::from_records`]).
//!
//! The records are what a rerun trusts: a source counts as complete for a dataset only when its record exists,
//! was made from the same source bytes with the same options, and its output is on disk with the recorded size
//! and sha256. One small record per (source, dataset) means writers never rewrite each other's entries, so
//! concurrent exports into one output directory lose nothing (see [`crate::store::output`]).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// One output file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutputEntry {
    /// The dataset's name (`blocks`, `transactions`, ...).
    pub dataset: String,
    /// Relative to the output directory.
    pub path: String,
    /// Rows written.
    pub rows: u64,
    /// File size in bytes; checked (with `sha256`) before a rerun skips the source.
    pub bytes: u64,
    /// Lower-case hex sha256 of the file as written.
    pub sha256: String,
    /// A local output's modification time as written (nanoseconds since the Unix epoch): with `bytes`, what
    /// proves it unchanged without reading it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mtime_ns: Option<u64>,
    /// An object-store output's ETag, as its upload returned it: what proves it unchanged without a GET.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub etag: Option<String>,
}

/// One source archive and everything made from it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceEntry {
    /// Lower-case hex sha256 of the source archive's bytes: a rerun redoes the source when it differs.
    pub sha256: String,
    /// `0x`-hex accumulator root the era1 verification computed; empty for era files (and for an era1 file whose
    /// verification did not get that far).
    pub accumulator_root: String,
    /// The network the source was verified as.
    pub network: String,
    /// First execution block of the source (era files: of its payloads, 0 when it has none).
    pub first_block: u64,
    /// Last execution block of the source (era files: of its payloads, 0 when it has none).
    pub last_block: u64,
    /// The datasets recorded complete for the source (those of its kind without rows have no output).
    #[serde(default)]
    pub datasets: Vec<String>,
    /// Every file written from the source, one per dataset that takes rows from its kind of archive.
    pub outputs: Vec<OutputEntry>,
    /// `era` for era files, `ere` for ere files; empty (and absent from the JSON) for era1, so manifests written
    /// before era export still load and era1 entries keep their shape.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kind: String,
    /// Era files: the slot range the outputs are named by (`first_block`/`last_block` are the execution block
    /// range of the file's payloads, 0 when it has none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slots: Option<(u64, u64)>,
    /// Era files: hash_tree_root of the era state every exported block was checked against.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_root: Option<String>,
    /// Execution files: whether every block was proven to be the canonical chain when exported (`true`), or not
    /// all could be (absent; see `canonical_by`): restrict queries to proven history with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canonical: Option<bool>,
    /// Blocks proven canonical, by anchor (`accumulator`, `historical_roots`, `historical_summaries@<slot>`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub canonical_by: BTreeMap<String, u64>,
    /// What each dataset was made with (its record's `options`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub options: BTreeMap<String, String>,
    /// An object-store output: the ETag of each dataset's completion record as this aggregate read it. A record
    /// listed with the same ETag is the one summed up here, so a rerun proves it without reading it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub record_etags: BTreeMap<String, String>,
}

impl SourceEntry {
    /// The completion record of `dataset` this entry sums up: every field a record has, as the records it was
    /// made from held them (see [`Manifest::from_records`]); `None` when the dataset is not among them.
    pub fn record(&self, source: &str, dataset: &str) -> Option<CompletionRecord> {
        if !self.datasets.iter().any(|d| d == dataset) {
            return None;
        }
        Some(CompletionRecord {
            source: source.into(),
            dataset: dataset.into(),
            sha256: self.sha256.clone(),
            options: self.options.get(dataset)?.clone(),
            // The options name the schema version; a record of another one has other options.
            schema_version: crate::datasets::SCHEMA_VERSION,
            network: self.network.clone(),
            kind: match self.kind.as_str() {
                "" => "era1".into(),
                k => k.into(),
            },
            first_block: self.first_block,
            last_block: self.last_block,
            slots: self.slots,
            state_root: self.state_root.clone(),
            accumulator_root: self.accumulator_root.clone(),
            output: self.outputs.iter().find(|o| o.dataset == dataset).cloned(),
            canonical: self.canonical,
            canonical_by: self.canonical_by.clone(),
        })
    }
}

/// The whole manifest. Keys are sorted so the file is deterministic.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// The eraflow version that last saved the manifest (informational).
    pub eraflow_version: String,
    /// [`crate::datasets::SCHEMA_VERSION`] when last saved; a different version makes every source redo.
    pub schema_version: u32,
    /// By source file name.
    pub sources: BTreeMap<String, SourceEntry>,
}

impl Manifest {
    /// The aggregate of completion records: one entry per source, its datasets and outputs in the order of
    /// [`crate::datasets::ALL`]. Records of a source made from other bytes than its first record's (the file
    /// changed between runs) are left out; a rerun redoes them.
    pub fn from_records(records: impl IntoIterator<Item = CompletionRecord>) -> Manifest {
        Manifest::from_stamped(records.into_iter().map(|r| (r, None)))
    }

    /// [`Manifest::from_records`] of records read with their ETag (an object store's), kept per dataset.
    pub fn from_stamped(
        records: impl IntoIterator<Item = (CompletionRecord, Option<String>)>,
    ) -> Manifest {
        let order = |d: &str| {
            crate::datasets::ALL
                .iter()
                .position(|x| x.name() == d)
                .unwrap_or(usize::MAX)
        };
        let mut records: Vec<(CompletionRecord, Option<String>)> = records.into_iter().collect();
        records.sort_by(|(a, _), (b, _)| {
            (a.source.as_str(), order(&a.dataset), a.dataset.as_str()).cmp(&(
                b.source.as_str(),
                order(&b.dataset),
                b.dataset.as_str(),
            ))
        });
        let mut m = Manifest {
            eraflow_version: env!("CARGO_PKG_VERSION").into(),
            schema_version: crate::datasets::SCHEMA_VERSION,
            sources: BTreeMap::new(),
        };
        for (r, etag) in records {
            let e = m
                .sources
                .entry(r.source.clone())
                .or_insert_with(|| SourceEntry {
                    sha256: r.sha256.clone(),
                    accumulator_root: r.accumulator_root.clone(),
                    network: r.network.clone(),
                    first_block: r.first_block,
                    last_block: r.last_block,
                    datasets: Vec::new(),
                    outputs: Vec::new(),
                    kind: if r.kind == "era1" {
                        String::new()
                    } else {
                        r.kind.clone()
                    },
                    slots: r.slots,
                    state_root: r.state_root.clone(),
                    canonical: r.canonical,
                    canonical_by: r.canonical_by.clone(),
                    options: BTreeMap::new(),
                    record_etags: BTreeMap::new(),
                });
            if e.sha256 != r.sha256 {
                continue;
            }
            e.options.insert(r.dataset.clone(), r.options);
            if let Some(t) = etag {
                e.record_etags.insert(r.dataset.clone(), t);
            }
            e.datasets.push(r.dataset);
            e.outputs.extend(r.output);
        }
        m
    }
}

/// That one dataset of one source is complete: `OUT/_eraflow/sources/<source>/<dataset>.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompletionRecord {
    /// The source archive's file name.
    pub source: String,
    /// The dataset.
    pub dataset: String,
    /// Lower-case hex sha256 of the source archive's bytes: a rerun redoes the dataset when it differs.
    pub sha256: String,
    /// What the output was made with (dataset, senders, Parquet options, schema version): a change redoes it.
    pub options: String,
    /// [`crate::datasets::SCHEMA_VERSION`] of the output.
    pub schema_version: u32,
    /// The network the source was verified as.
    pub network: String,
    /// `era1`, `ere` or `era`.
    pub kind: String,
    /// First execution block of the source (era files: of its payloads, 0 when it has none).
    pub first_block: u64,
    /// Last execution block of the source (era files: of its payloads, 0 when it has none).
    pub last_block: u64,
    /// Era files: the slot range the outputs are named by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slots: Option<(u64, u64)>,
    /// Era files: hash_tree_root of the era state every exported block was checked against.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_root: Option<String>,
    /// `0x`-hex accumulator root of an era1 file; empty for era files.
    pub accumulator_root: String,
    /// The output file; `None` when the dataset takes no rows from this kind of archive (era1 withdrawals).
    pub output: Option<OutputEntry>,
    /// Execution files: `true` when every block of the source was proven canonical at export.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canonical: Option<bool>,
    /// Blocks proven canonical, by anchor.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub canonical_by: BTreeMap<String, u64>,
}

/// Hex sha256 of a file, read through a 1 MiB buffer: an output is as big as its source's share of a dataset,
/// and a map of it would add its whole size to the process's peak RSS at commit time.
pub fn file_sha256(p: &Path) -> Option<String> {
    use sha2::Digest;
    use std::io::Read;
    let mut f = std::fs::File::open(p).ok()?;
    let mut sha = sha2::Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        match f.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => sha.update(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    Some(hex::encode(sha.finalize()))
}
