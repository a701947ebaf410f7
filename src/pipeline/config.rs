//! What a job is made of, before it is resolved: the layered TOML of `configs/default.toml` < a pipeline file <
//! `--set key=value` < command-line flags, deserialised into typed stage tables (enums, not strings).
//!
//! Every default lives in `configs/default.toml` (embedded, so `eraflow` runs outside the source tree); this
//! module holds none of its own. [`super::job::Job`] resolves a [`PipelineConfig`] into what the library runs.

use crate::consensus::Fork;
use crate::crypto::signer::{SignatureAlgorithm, SignerBackend};
use crate::formats::ArchiveKind;
use crate::prune::OutputFormat;
use crate::sink::parquet::Compression;
use serde::{Deserialize, Deserializer};
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The defaults every job starts from.
pub const DEFAULTS: &str = include_str!("../../configs/default.toml");

/// A whole job after layering: top-level keys and one optional table per stage.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PipelineConfig {
    /// The job's name (a pipeline's `name`; the command's name for `eraflow export` and the like).
    pub name: String,
    /// Network preset name or preset `.toml`; absent: each file's network comes from its name.
    pub network: Option<String>,
    /// Files, directories, glob patterns or URLs.
    #[serde(default)]
    pub inputs: Vec<String>,
    /// Output location of the datasets and the run report: a local path or a URL (see [`crate::store::url`]).
    pub out: Option<String>,
    /// Worker threads; 0 = all cores.
    pub threads: usize,
    /// `"K/N"`: only the inputs of shard K of N ([`super::shard`]).
    #[serde(default, deserialize_with = "parsed_opt")]
    pub shard: Option<super::shard::Shard>,
    /// `run`'s output lock: `wait` for another run, `no-wait` (exit 2 when in use), or `none`.
    #[serde(deserialize_with = "parsed")]
    pub lock: super::runlock::LockMode,
    /// The secp256k1 implementation senders are recovered with (`libsecp256k1` or `k256`).
    #[serde(deserialize_with = "parsed")]
    pub signer_backend: SignerBackend,
    /// Where remote inputs are fetched to; empty: `<system temp>/eraflow-cache`.
    pub cache_dir: String,
    /// The most bytes remote inputs may take in the cache at once (downloads wait for room; a bigger file fails).
    pub cache_max_bytes: u64,
    /// Keep fetched files after use.
    pub keep_cache: bool,
    /// Requests open at once for remote inputs (files side by side, ranges of a big file).
    pub download_concurrency: usize,
    /// Seconds a remote request may send nothing before it is cut and retried.
    pub read_timeout: f64,
    /// `Name: value` headers sent with every request to an http(s) input (never printed).
    pub http_headers: Vec<String>,
    /// `[synth]`: create the inputs first.
    pub synth: Option<SynthStage>,
    /// `[verify]`: verify every input, and chains across files.
    pub verify: Option<VerifyStage>,
    /// `[export]`: verify and export to Parquet.
    pub export: Option<ExportStage>,
    /// `[prune]`: build (and check) a prune manifest.
    pub prune: Option<PruneStage>,
}

/// `[synth]`: deterministic synthetic archives.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SynthStage {
    /// Directory the files are written to.
    pub out: PathBuf,
    /// `era1`, `era` or `ere`.
    #[serde(deserialize_with = "parsed")]
    pub kind: ArchiveKind,
    /// ere files: which components to leave out, `noproofs` (default) or `noproofs-noreceipts`.
    #[serde(default)]
    pub profile: Option<String>,
    /// The network synthesised when the job names none at the top level.
    pub network: String,
    /// First era (era files: default the first era wholly in `fork`, else 1).
    pub era: Option<u64>,
    /// Era files: pick the first era whose blocks and state are all of this fork.
    #[serde(default, deserialize_with = "parsed_opt")]
    pub fork: Option<Fork>,
    /// Consecutive files.
    pub files: u64,
    /// Blocks per file; absent: `era1_blocks` (era1 and ere) or `era_blocks` by kind.
    pub blocks: Option<u64>,
    /// Blocks per era1 or ere file when `blocks` is absent.
    pub era1_blocks: u64,
    /// Blocks per era file when `blocks` is absent (the other slots stay empty).
    pub era_blocks: u64,
    /// Era files: validators per state.
    pub validators: usize,
    /// Transactions per block (era: per execution payload).
    pub txs_per_block: u32,
    /// The same seed gives byte-identical files.
    pub seed: u64,
}

/// `[verify]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerifyStage {
    /// Recover every transaction's sender (the costliest check).
    pub senders: bool,
    /// Also compute each file's sha256.
    pub checksum: bool,
    /// The curve senders are recovered on; absent: the network's.
    #[serde(default, deserialize_with = "parsed_opt")]
    pub signature_algorithm: Option<SignatureAlgorithm>,
    /// Trusted `(slot, state root)` pairs era states are compared with: a file, or a beacon node's URL.
    #[serde(default)]
    pub trusted_states: Option<String>,
    /// A beacon state's `historical_summaries` for ere proofs of Capella and later blocks: an era file, or
    /// `PATH@SLOT` of their SSZ.
    #[serde(default)]
    pub historical_summaries: Option<String>,
    /// The network's own pre-merge accumulator (SSZ), for a network without an embedded one.
    #[serde(default)]
    pub accumulator: Option<String>,
}

/// `[export]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExportStage {
    /// Dataset names.
    pub datasets: Vec<String>,
    /// Recover senders (`from_address`).
    pub senders: bool,
    /// Redo outputs even when the manifest proves them complete.
    pub overwrite: bool,
    /// Prove complete sources by hashing every input and every output, not from their metadata.
    pub verify_outputs: bool,
    /// Remove Parquet files no completion record lists (else only named in the run report).
    pub clean_stale: bool,
    /// Parquet codec.
    #[serde(deserialize_with = "parsed")]
    pub compression: Compression,
    /// Codec level (zstd 1-22, gzip 0-9).
    pub compression_level: i32,
    /// Rows per row group.
    pub row_group_size: usize,
}

/// `[prune]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PruneStage {
    /// Manifest directory.
    pub out: PathBuf,
    /// `binary` (lists only) or `text` (also one 0x-hash per line).
    #[serde(deserialize_with = "parsed")]
    pub format: OutputFormat,
    /// Bytes of transaction hashes sorted in memory before a sorted run is spilled to disk.
    pub memory_budget: usize,
    /// Record blocks no input covers as gaps instead of refusing.
    pub allow_gaps: bool,
    /// First block (default: the first block of the inputs).
    pub from_block: Option<u64>,
    /// Exclusive end; only an explicit value may reach past the network's first proof-of-stake block.
    pub until_block: Option<u64>,
    /// Re-verify the written manifest (`eraflow prune check`).
    pub check: bool,
}

/// A value read from its TOML string through `FromStr`, so a bad spelling is an error naming the choices.
fn parsed<'de, D: Deserializer<'de>, T: FromStr>(d: D) -> Result<T, D::Error>
where
    T::Err: std::fmt::Display,
{
    String::deserialize(d)?
        .parse()
        .map_err(serde::de::Error::custom)
}

fn parsed_opt<'de, D: Deserializer<'de>, T: FromStr>(d: D) -> Result<Option<T>, D::Error>
where
    T::Err: std::fmt::Display,
{
    Option::<String>::deserialize(d)?
        .map(|s| s.parse().map_err(serde::de::Error::custom))
        .transpose()
}

/// Why a job's configuration could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The pipeline file could not be read.
    #[error("{path}")]
    Read {
        /// The pipeline file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A `--set` without `=` or with an empty or non-table key path.
    #[error("--set {0}: expected key=value (dotted keys reach into tables, e.g. export.compression=snappy)")]
    BadSet(String),
    /// A pipeline file names `${VAR}` and the environment has no such variable.
    #[error("{path}: ${{{var}}} is not set in the environment")]
    UnsetVar {
        /// The pipeline file.
        path: PathBuf,
        /// The variable.
        var: String,
    },
    /// The layered TOML does not parse or does not fit the job's shape.
    #[error("{origin}")]
    Invalid {
        /// The pipeline file, `configs/default.toml`, or `command line`.
        origin: String,
        /// What serde or the TOML parser said.
        #[source]
        source: toml::de::Error,
    },
}

/// Keys whose value is a list, which `--set` also takes comma-separated.
const LIST_KEYS: [&str; 2] = ["inputs", "export.datasets"];

/// Keys of a pipeline file that hold local paths, resolved against the file's own folder.
const PATH_KEYS: [(&str, &str); 7] = [
    ("", "inputs"),
    ("", "out"),
    ("synth", "out"),
    ("prune", "out"),
    ("verify", "trusted_states"),
    ("verify", "historical_summaries"),
    ("verify", "accumulator"),
];

/// Replaces every `${VAR}` in the file's strings by the environment's value; an unset variable is an error.
fn expand_env(v: &mut toml::Value, path: &Path) -> Result<(), ConfigError> {
    match v {
        toml::Value::String(s) if s.contains("${") => {
            let mut out = String::with_capacity(s.len());
            let mut rest = s.as_str();
            while let Some(i) = rest.find("${") {
                let Some(end) = rest[i + 2..].find('}') else {
                    break;
                };
                out.push_str(&rest[..i]);
                let var = &rest[i + 2..i + 2 + end];
                let value = std::env::var(var).map_err(|_| ConfigError::UnsetVar {
                    path: path.to_path_buf(),
                    var: var.to_string(),
                })?;
                out.push_str(&value);
                rest = &rest[i + 3 + end..];
            }
            out.push_str(rest);
            *s = out;
        }
        toml::Value::Array(a) => {
            for x in a {
                expand_env(x, path)?;
            }
        }
        toml::Value::Table(t) => {
            for (_, x) in t.iter_mut() {
                expand_env(x, path)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// A relative local path (or glob) of a pipeline file, joined to the file's folder; absolute paths and URLs
/// (`scheme://`) are kept.
fn resolve_path(v: &mut toml::Value, dir: &Path) {
    match v {
        toml::Value::String(s) if !s.contains("://") && Path::new(s.as_str()).is_relative() => {
            // Lexically: `pipelines/../out` is `out`, whether or not it exists yet.
            let mut p = PathBuf::new();
            for c in dir.join(s.as_str()).components() {
                match c {
                    std::path::Component::ParentDir if p.file_name().is_some() => {
                        p.pop();
                    }
                    std::path::Component::CurDir => {}
                    c => p.push(c),
                }
            }
            *s = p.to_string_lossy().into_owned();
        }
        toml::Value::Array(a) => a.iter_mut().for_each(|x| resolve_path(x, dir)),
        _ => {}
    }
}

/// Resolves a pipeline file's path keys (`inputs`, `out`, `synth.out`, `prune.out`, and `network` when it
/// names a preset `.toml`) against `dir`.
fn resolve_paths(table: &mut toml::Table, dir: &Path) {
    for (stage, key) in PATH_KEYS {
        let t = if stage.is_empty() {
            Some(&mut *table)
        } else {
            table.get_mut(stage).and_then(|t| t.as_table_mut())
        };
        if let Some(v) = t.and_then(|t| t.get_mut(key)) {
            resolve_path(v, dir);
        }
    }
    if let Some(v) = table.get_mut("network") {
        if v.as_str().is_some_and(|s| s.ends_with(".toml")) {
            resolve_path(v, dir);
        }
    }
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
    let mut value = toml::from_str::<toml::Table>(&format!("v = {raw}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.to_string()));
    // Lists also take the comma form: `--set inputs=/a,/b` (TOML array syntax for names holding a comma).
    if LIST_KEYS.contains(&key.trim()) {
        if let toml::Value::String(s) = &value {
            value = toml::Value::Array(
                s.split(',')
                    .filter(|p| !p.is_empty())
                    .map(|p| toml::Value::String(p.to_string()))
                    .collect(),
            );
        }
    }
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

/// Where a job's keys come from, lowest precedence first after the defaults.
#[derive(Debug, Default, Clone)]
pub struct Layers<'a> {
    /// A pipeline file.
    pub file: Option<&'a Path>,
    /// `--set key=value` overrides, applied in order.
    pub sets: &'a [String],
    /// Command-line flags that were given (absent flags leave the layers below alone).
    pub flags: toml::Table,
}

/// Layers defaults < pipeline file < `--set` < flags into one table and deserialises it. A stage's defaults
/// apply only when some layer enables that stage.
pub fn load(layers: Layers<'_>) -> Result<PipelineConfig, ConfigError> {
    let defaults: toml::Table =
        toml::from_str(DEFAULTS).map_err(|source| ConfigError::Invalid {
            origin: "configs/default.toml".into(),
            source,
        })?;
    let mut table = toml::Table::new();
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
    let origin = match layers.file {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
                path: path.to_path_buf(),
                source,
            })?;
            let own: toml::Table =
                toml::from_str(&text).map_err(|source| ConfigError::Invalid {
                    origin: path.display().to_string(),
                    source,
                })?;
            let mut own = toml::Value::Table(own);
            expand_env(&mut own, path)?;
            let toml::Value::Table(mut own) = own else {
                unreachable!("a table stays a table")
            };
            // Relative paths in a pipeline file are the file's, wherever it is run from.
            let dir = std::path::absolute(path)
                .ok()
                .and_then(|p| p.parent().map(Path::to_path_buf))
                .unwrap_or_default();
            resolve_paths(&mut own, &dir);
            merge(&mut table, own);
            path.display().to_string()
        }
        None => "command line".to_string(),
    };
    for s in layers.sets {
        apply_set(&mut table, s)?;
    }
    merge(&mut table, layers.flags);
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
        .map_err(|source| ConfigError::Invalid { origin, source })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &Path, sets: &[String]) -> Result<PipelineConfig, ConfigError> {
        load(Layers {
            file: Some(path),
            sets,
            ..Default::default()
        })
    }

    #[test]
    fn shipped_pipelines_load_with_defaults_and_overrides() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("pipelines");
        for name in [
            "sample.toml",
            "premerge-export.toml",
            "verify-archive.toml",
            "prune-premerge.toml",
            "sample-era.toml",
            "export-to-bucket.toml",
            "mirror-to-bucket.toml",
        ] {
            file(&root.join(name), &[]).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        let c = file(
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
            (e.compression, e.compression_level, e.senders),
            (Compression::Snappy, 3, true)
        );
        assert_eq!(c.synth.unwrap().files, 3);
        assert_eq!(c.out.as_deref(), Some("/x"));
        assert!(file(&root.join("sample.toml"), &["export.nope=1".into()]).is_err());
        assert!(file(&root.join("sample.toml"), &["justakey".into()]).is_err());
        assert!(file(
            &root.join("sample.toml"),
            &["export.compression=bogus".into()]
        )
        .is_err());
        let v = file(&root.join("verify-archive.toml"), &[]).unwrap();
        assert!(v.export.is_none() && v.verify.is_some());
    }

    #[test]
    fn signer_backend_defaults_to_libsecp256k1_and_is_checked() {
        use crate::crypto::signer::SignerBackend;
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("pipelines");
        let sample = root.join("sample.toml");
        assert_eq!(
            file(&sample, &[]).unwrap().signer_backend,
            SignerBackend::Libsecp256k1
        );
        assert_eq!(
            file(&sample, &["signer_backend=k256".into()])
                .unwrap()
                .signer_backend,
            SignerBackend::K256
        );
        let err = file(&sample, &["signer_backend=openssl".into()]).unwrap_err();
        let msg = crate::error::render(&err);
        assert!(msg.contains("expected libsecp256k1 or k256"), "{msg}");
    }

    #[test]
    fn flags_override_sets_which_override_the_file() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("pipelines");
        let mut flags = toml::Table::new();
        let mut export = toml::Table::new();
        export.insert("compression_level".into(), toml::Value::Integer(7));
        flags.insert("export".into(), toml::Value::Table(export));
        let c = load(Layers {
            file: Some(&root.join("sample.toml")),
            sets: &["export.compression_level=5".into(), "threads=3".into()],
            flags,
        })
        .unwrap();
        assert_eq!(c.export.unwrap().compression_level, 7);
        assert_eq!(c.threads, 3);
        // A command-line job with no file: defaults only where a stage is enabled.
        let mut flags = toml::Table::new();
        flags.insert("name".into(), "export".into());
        flags.insert("export".into(), toml::Value::Table(Default::default()));
        let c = load(Layers {
            flags,
            ..Default::default()
        })
        .unwrap();
        assert!(c.prune.is_none() && c.verify.is_none());
        let e = c.export.unwrap();
        assert_eq!(
            (e.compression, e.row_group_size),
            (Compression::Zstd, 100_000)
        );
    }
}
