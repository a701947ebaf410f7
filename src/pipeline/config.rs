//! Pipeline files (`eraflow run PIPELINE.toml`): inputs, network, output directory and the stages to run
//! (synth, verify, export, in that order when present), over defaults from `configs/default.toml` and
//! `--set key=value` overrides.

use serde::Deserialize;
use std::path::PathBuf;

/// The defaults every pipeline starts from (embedded, so `eraflow run` works outside the source tree).
pub const DEFAULTS: &str = include_str!("../../configs/default.toml");

/// A whole pipeline after defaults and overrides.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PipelineConfig {
    pub name: String,
    /// Network preset name or preset .toml.
    pub network: Option<String>,
    /// Files, directories or glob patterns.
    #[serde(default)]
    pub inputs: Vec<String>,
    pub out: PathBuf,
    #[serde(default)]
    pub threads: usize,
    pub synth: Option<SynthStage>,
    pub verify: Option<VerifyStage>,
    pub export: Option<ExportStage>,
    pub prune: Option<PruneStage>,
}

/// Build a prune manifest from the inputs (as `eraflow prune`), then check it (as `eraflow prune check`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PruneStage {
    /// Manifest directory.
    pub out: PathBuf,
    /// `binary` (lists only) or `text` (also one 0x-hash per line).
    #[serde(default = "binary")]
    pub format: String,
    /// Bytes of transaction hashes sorted in memory before a sorted run is spilled to disk.
    #[serde(default = "budget")]
    pub memory_budget: usize,
    #[serde(default)]
    pub allow_gaps: bool,
    pub from_block: Option<u64>,
    /// Exclusive; only an explicit value may reach past the network's first proof-of-stake block.
    pub until_block: Option<u64>,
    /// Re-verify the written manifest (`eraflow prune check`).
    #[serde(default = "yes")]
    pub check: bool,
}

fn binary() -> String {
    "binary".into()
}
fn budget() -> usize {
    256 << 20
}
fn yes() -> bool {
    true
}

/// Create the inputs with the synthetic generator first.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SynthStage {
    pub out: PathBuf,
    /// `era1` (default) or `era`.
    #[serde(default = "era1_kind")]
    pub kind: String,
    /// First era (era files: default the first era wholly in `fork`, else 1).
    pub era: Option<u64>,
    /// Era files: the fork to pick the era by.
    pub fork: Option<String>,
    #[serde(default = "one")]
    pub files: u64,
    /// Blocks per file (default 8192 for era1, 64 for era).
    pub blocks: Option<u64>,
    /// Era files: validators per state.
    #[serde(default = "validators")]
    pub validators: usize,
    #[serde(default = "four")]
    pub txs_per_block: u32,
    #[serde(default = "one")]
    pub seed: u64,
}

fn era1_kind() -> String {
    "era1".into()
}

fn validators() -> usize {
    256
}

fn one() -> u64 {
    1
}
fn four() -> u32 {
    4
}

/// Verify every input.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerifyStage {
    #[serde(default)]
    pub senders: bool,
}

/// Export to Parquet.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExportStage {
    pub datasets: Vec<String>,
    pub senders: bool,
    pub overwrite: bool,
    pub compression: String,
    pub compression_level: i32,
    pub row_group_size: usize,
}

/// Why a pipeline file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{path}: {message}")]
    Read { path: String, message: String },
    #[error("--set {0}: expected key=value (dotted keys reach into tables, e.g. export.compression=snappy)")]
    BadSet(String),
    #[error("{path}: {message}")]
    Invalid { path: String, message: String },
}

/// Merges `over` into `base`, tables recursively, other values replaced.
fn merge(base: &mut toml::Table, over: toml::Table) {
    for (k, v) in over {
        match (base.get_mut(&k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

/// Applies one `key=value` override; the value is read as TOML (`true`, `3`, `["a"]`) or else as a string.
fn apply_set(table: &mut toml::Table, set: &str) -> Result<(), ConfigError> {
    let (key, raw) = set
        .split_once('=')
        .ok_or_else(|| ConfigError::BadSet(set.into()))?;
    let value = toml::from_str::<toml::Table>(&format!("v = {raw}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.to_string()));
    let mut parts: Vec<&str> = key.trim().split('.').collect();
    let last = parts
        .pop()
        .filter(|k| !k.is_empty())
        .ok_or_else(|| ConfigError::BadSet(set.into()))?;
    let mut t = table;
    for p in parts {
        let entry = t
            .entry(p.to_string())
            .or_insert_with(|| toml::Value::Table(Default::default()));
        t = entry
            .as_table_mut()
            .ok_or_else(|| ConfigError::BadSet(set.into()))?;
    }
    t.insert(last.to_string(), value);
    Ok(())
}

/// Reads a pipeline file, fills stage options from the defaults, applies `--set` overrides and validates.
pub fn load(path: &std::path::Path, sets: &[String]) -> Result<PipelineConfig, ConfigError> {
    let p = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Read {
        path: p.clone(),
        message: e.to_string(),
    })?;
    let own: toml::Table = toml::from_str(&text).map_err(|e| ConfigError::Invalid {
        path: p.clone(),
        message: e.to_string(),
    })?;
    let defaults: toml::Table = toml::from_str(DEFAULTS).map_err(|e| ConfigError::Invalid {
        path: "configs/default.toml".into(),
        message: e.to_string(),
    })?;
    let mut table = toml::Table::new();
    // Defaults of a stage apply only when the pipeline (or --set) enables that stage.
    let mut stage_defaults = toml::Table::new();
    for (k, v) in defaults {
        match v {
            toml::Value::Table(_) => {
                stage_defaults.insert(k, v);
            }
            v => {
                table.insert(k, v);
            }
        }
    }
    merge(&mut table, own);
    for s in sets {
        apply_set(&mut table, s)?;
    }
    for (k, v) in stage_defaults {
        if let (Some(toml::Value::Table(stage)), toml::Value::Table(d)) =
            (table.get(&k).cloned(), v)
        {
            let mut merged = d;
            merge(&mut merged, stage);
            table.insert(k, toml::Value::Table(merged));
        }
    }
    toml::Value::Table(table)
        .try_into()
        .map_err(|e: toml::de::Error| ConfigError::Invalid {
            path: p,
            message: e.to_string(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_pipelines_load_with_defaults_and_overrides() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("pipelines");
        for name in [
            "sample.toml",
            "premerge-export.toml",
            "verify-archive.toml",
            "prune-premerge.toml",
            "sample-era.toml",
        ] {
            load(&root.join(name), &[]).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        let c = load(
            &root.join("sample.toml"),
            &[
                "export.compression=snappy".into(),
                "synth.files=3".into(),
                "out=/x".into(),
            ],
        )
        .unwrap();
        let e = c.export.unwrap();
        assert_eq!(
            (e.compression.as_str(), e.compression_level, e.senders),
            ("snappy", 3, true)
        );
        assert_eq!(c.synth.unwrap().files, 3);
        assert_eq!(c.out, PathBuf::from("/x"));
        assert!(load(&root.join("sample.toml"), &["export.nope=1".into()]).is_err());
        assert!(load(&root.join("sample.toml"), &["justakey".into()]).is_err());
        let v = load(&root.join("verify-archive.toml"), &[]).unwrap();
        assert!(v.export.is_none() && v.verify.is_some());
    }
}
