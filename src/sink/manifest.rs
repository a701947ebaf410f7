//! `OUT/_eraflow/manifest.json`: what a previous run wrote and from what, so a rerun skips outputs that are
//! provably complete and redoes anything missing, damaged, or made from a different input or with other
//! options. Written atomically after every source file, so a kill at any moment leaves a manifest that only
//! claims outputs that exist in full.

use crate::fsutil;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

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
    /// What the outputs were made with (datasets, senders, parquet options): a change redoes them.
    pub options: String,
    /// Every file written from the source, one per dataset that takes rows from its kind of archive.
    pub outputs: Vec<OutputEntry>,
    /// `era` for era files; empty (and absent from the JSON) for era1, so manifests written before era export
    /// still load and era1 entries keep their shape.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kind: String,
    /// Era files: the slot range the outputs are named by (`first_block`/`last_block` are the execution block
    /// range of the file's payloads, 0 when it has none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slots: Option<(u64, u64)>,
    /// Era files: hash_tree_root of the era state every exported block was checked against.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_root: Option<String>,
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

/// Where the manifest of an output directory lives.
pub fn path(out: &Path) -> PathBuf {
    out.join("_eraflow").join("manifest.json")
}

impl Manifest {
    /// Loads the manifest of `out`, or an empty one when there is none. A manifest that does not parse is
    /// treated as empty (everything is redone), never trusted.
    pub fn load(out: &Path) -> Manifest {
        std::fs::read(path(out))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }

    /// Writes the manifest atomically.
    pub fn save(&self, out: &Path) -> std::io::Result<()> {
        let mut m = self.clone();
        m.eraflow_version = env!("CARGO_PKG_VERSION").into();
        m.schema_version = crate::datasets::SCHEMA_VERSION;
        let text = serde_json::to_vec_pretty(&m).map_err(std::io::Error::other)?;
        fsutil::write_atomic(&path(out), &text)
    }

    /// True when `source` was exported from the same bytes with the same options and every output is on
    /// disk with the recorded size and checksum.
    pub fn is_complete(&self, out: &Path, source: &str, sha256: &str, options: &str) -> bool {
        let Some(e) = self.sources.get(source) else {
            return false;
        };
        if e.sha256 != sha256
            || e.options != options
            || self.schema_version != crate::datasets::SCHEMA_VERSION
        {
            return false;
        }
        e.outputs.iter().all(|o| {
            let p = out.join(&o.path);
            std::fs::metadata(&p).is_ok_and(|m| m.len() == o.bytes)
                && file_sha256(&p).is_some_and(|h| h == o.sha256)
        })
    }
}

/// Hex sha256 of a file, memory-mapped.
pub fn file_sha256(p: &Path) -> Option<String> {
    let f = std::fs::File::open(p).ok()?;
    if f.metadata().ok()?.len() == 0 {
        return Some(hex::encode(crate::crypto::sha256::sha256(&[])));
    }
    // SAFETY: read-only map of a file we do not modify while it is mapped.
    let map = unsafe { memmap2::Mmap::map(&f) }.ok()?;
    Some(hex::encode(crate::crypto::sha256::sha256(&map)))
}
