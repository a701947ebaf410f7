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

/// `[export] datasets` of [`DEFAULTS`]: what an export writes when no datasets are named. Every other dataset
/// of [`crate::datasets::ALL`] is opt-in.
pub fn default_datasets() -> Vec<String> {
    let defaults: toml::Table =
        toml::from_str(DEFAULTS).expect("configs/default.toml is embedded and tested");
    defaults["export"]["datasets"]
        .as_array()
        .expect("configs/default.toml: [export] datasets is a list")
        .iter()
        .filter_map(|v| v.as_str().map(String::from))
        .collect()
}

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
    /// `eraflow run` writes the output's report page (`OUT/_eraflow/report.html`, [`crate::report`]) at the end
    /// of every run.
    pub report: bool,
    /// `[synth]`: create the inputs first.
    pub synth: Option<SynthStage>,
    /// `[verify]`: verify every input, and chains across files.
    pub verify: Option<VerifyStage>,
    /// `[export]`: verify and export to Parquet.
    pub export: Option<ExportStage>,
    /// `[prune]`: build (and check) a prune manifest.
    pub prune: Option<PruneStage>,
    /// `[decode]`: events decoded into datasets of their own, exported with `[export]`'s.
    pub decode: Option<DecodeStage>,
}

/// `[decode]`: user events, each a dataset ([`crate::datasets::decoded`]).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DecodeStage {
    /// `[NAME=]SIGNATURE|FILE.json[@0xADDRESS,...]`: an event signature or a JSON ABI file (every event in it),
    /// optionally named and limited to contract addresses.
    #[serde(default)]
    pub events: Vec<String>,
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
    /// era1 and ere: receipts full of token events and their look-alikes instead of random logs.
    pub tokens: bool,
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
    /// Plain Parquet folders, or Delta Lake tables over the same files.
    #[serde(deserialize_with = "parsed")]
    pub table_format: crate::store::delta::TableFormat,
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
    /// A rolling window instead of an end: every block older than the last N epochs (EIP-4444 keeps 33024),
    /// counted back from the newest input block.
    pub keep_epochs: Option<u64>,
    /// A rolling window of the last N blocks instead of an end.
    pub keep_blocks: Option<u64>,
    /// Rebuild every list even where the earlier manifest at `out` could be extended.
    #[serde(default)]
    pub from_scratch: bool,
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
    /// Keys no stage knows (all of them at once, each with its line in the pipeline file and the nearest known
    /// key), so a file with three typos needs one run to fix, not three.
    #[error("{origin}: {} unknown key{}{}", .keys.len(), if .keys.len() == 1 { "" } else { "s" }, .keys.iter().map(|k| format!("\n  {k}")).collect::<String>())]
    UnknownKeys {
        /// The pipeline file, or `command line`.
        origin: String,
        /// One line per unknown key: where, which, and what was probably meant.
        keys: Vec<String>,
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

/// Keys whose value is a list of items that hold commas themselves (an event signature's parameters): `--set`
/// takes one item as a plain value, or several in TOML array syntax.
const ONE_ITEM_LIST_KEYS: [&str; 1] = ["decode.events"];

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
    // An ABI file in a decode spec (`[NAME=]FILE.json[@ADDRESSES]`) is the pipeline file's relative path too.
    if let Some(toml::Value::Array(specs)) = table
        .get_mut("decode")
        .and_then(|t| t.as_table_mut())
        .and_then(|t| t.get_mut("events"))
    {
        for spec in specs.iter_mut() {
            let Some(text) = spec.as_str() else { continue };
            let (name, rest) = match text.split_once('=') {
                Some((n, r)) if n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => {
                    (format!("{n}="), r)
                }
                _ => (String::new(), text),
            };
            let (body, at) = match rest.rsplit_once('@') {
                Some((b, a)) => (b, format!("@{a}")),
                None => (rest, String::new()),
            };
            if body.ends_with(".json") {
                let mut v = toml::Value::String(body.to_string());
                resolve_path(&mut v, dir);
                if let Some(p) = v.as_str() {
                    *spec = toml::Value::String(format!("{name}{p}{at}"));
                }
            }
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
    if ONE_ITEM_LIST_KEYS.contains(&key.trim()) && value.is_str() {
        value = toml::Value::Array(vec![value]);
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
    let text = layers
        .file
        .and_then(|p| std::fs::read_to_string(p).ok())
        .unwrap_or_default();
    let unknown = unknown_keys(&table, &text);
    if !unknown.is_empty() {
        return Err(ConfigError::UnknownKeys {
            origin,
            keys: unknown,
        });
    }
    toml::Value::Table(table)
        .try_into()
        .map_err(|source| ConfigError::Invalid { origin, source })
}

/// The field names serde expects of `T`: the one place the known keys are written is the structs above.
fn fields_of<'de, T: Deserialize<'de>>() -> &'static [&'static str] {
    use serde::de::{Error, Visitor};
    type Fail = serde::de::value::Error;
    /// A deserializer that only records the fields `T` asks for.
    struct Probe<'a>(&'a mut &'static [&'static str]);
    impl<'de> Deserializer<'de> for Probe<'_> {
        type Error = Fail;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Fail> {
            Err(Fail::custom("probe"))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Fail> {
            *self.0 = fields;
            Err(Fail::custom("probe"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
            unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
        }
    }
    let mut fields: &'static [&'static str] = &[];
    let _ = T::deserialize(Probe(&mut fields));
    fields
}

/// Every key of `table` no stage knows, as `line N: [stage] key (did you mean ...?)`; the line is the pipeline
/// file's (`text`), absent for a key from `--set`.
fn unknown_keys(table: &toml::Table, text: &str) -> Vec<String> {
    let top = fields_of::<PipelineConfig>();
    let stages: [(&str, &[&str]); 5] = [
        ("decode", fields_of::<DecodeStage>()),
        ("synth", fields_of::<SynthStage>()),
        ("verify", fields_of::<VerifyStage>()),
        ("export", fields_of::<ExportStage>()),
        ("prune", fields_of::<PruneStage>()),
    ];
    let mut out = Vec::new();
    let mut report = |section: Option<&str>, key: &str, known: &[&str]| {
        let mut hint = nearest(key, known).map(|k| format!(" (did you mean `{k}`?)"));
        if hint.is_none() {
            // A key of another table, written in the wrong one.
            let homes: Vec<String> = stages
                .iter()
                .filter(|(s, f)| Some(*s) != section && f.contains(&key))
                .map(|(s, _)| format!("[{s}]"))
                .chain((section.is_some() && top.contains(&key)).then(|| "the top level".into()))
                .collect();
            if !homes.is_empty() {
                hint = Some(format!(" (a key of {})", homes.join(" or ")));
            }
        }
        let at = line_of(text, section, key).map_or("--set: ".into(), |n| format!("line {n}: "));
        let name = section.map_or(format!("`{key}`"), |s| format!("`[{s}] {key}`"));
        out.push(format!("{at}{name}{}", hint.unwrap_or_default()));
    };
    for (k, v) in table {
        match stages.iter().find(|(s, _)| s == k) {
            Some((s, fields)) => {
                if let toml::Value::Table(t) = v {
                    for key in t.keys().filter(|key| !fields.contains(&key.as_str())) {
                        report(Some(s), key, fields);
                    }
                }
            }
            None if !top.contains(&k.as_str()) => report(None, k, top),
            None => {}
        }
    }
    out
}

/// The known key closest to `key` by edit distance, when close enough to be a typo.
fn nearest<'a>(key: &str, known: &[&'a str]) -> Option<&'a str> {
    fn distance(a: &str, b: &str) -> usize {
        let b: Vec<char> = b.chars().collect();
        let mut row: Vec<usize> = (0..=b.len()).collect();
        for (i, ca) in a.chars().enumerate() {
            let mut prev = row[0];
            row[0] = i + 1;
            for (j, cb) in b.iter().enumerate() {
                let cur = row[j + 1];
                row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
                prev = cur;
            }
        }
        row[b.len()]
    }
    known
        .iter()
        .map(|k| (distance(key, k), *k))
        .filter(|(d, k)| *d <= (k.len() / 3).max(1))
        .min()
        .map(|(_, k)| k)
}

/// The 1-based line of `key = ...` in `[section]` (or before any section) of a pipeline file's text.
fn line_of(text: &str, section: Option<&str>, key: &str) -> Option<usize> {
    let mut current: Option<String> = None;
    for (n, line) in text.lines().enumerate() {
        let t = line.trim();
        if let Some(h) = t.strip_prefix('[').and_then(|h| h.split(']').next()) {
            // A misspelt table (`[exprot]`) is a top-level key of its own.
            if section.is_none() && h.trim() == key {
                return Some(n + 1);
            }
            current = Some(h.trim().to_string());
            continue;
        }
        let Some((k, _)) = t.split_once('=') else {
            continue;
        };
        let k = k.trim().trim_matches('"');
        let here = current.as_deref() == section;
        // `export.compresion = ...` at the top level names the table in the key.
        let dotted = current.is_none()
            && section
                .is_some_and(|s| k.strip_prefix(s).and_then(|r| r.strip_prefix('.')) == Some(key));
        if (here && k == key) || dotted {
            return Some(n + 1);
        }
    }
    None
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
            "prune-rolling.toml",
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

    /// `--set decode.events=SIGNATURE` is one event (its commas are the signature's); TOML array syntax gives
    /// several.
    #[test]
    fn a_decode_event_set_keeps_its_commas() {
        let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("pipelines/sample.toml");
        let transfer = "Transfer(address indexed from, address indexed to, uint256 value)";
        let c = file(&sample, &[format!("decode.events={transfer}")]).unwrap();
        assert_eq!(c.decode.unwrap().events, [transfer]);
        let c = file(
            &sample,
            &[format!(
                "decode.events=['{transfer}', 'Sync(uint112 a, uint112 b)']"
            )],
        )
        .unwrap();
        assert_eq!(
            c.decode.unwrap().events,
            [transfer, "Sync(uint112 a, uint112 b)"]
        );
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

    #[test]
    fn every_unknown_key_is_named_at_once_with_its_line_and_a_guess() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("typos.toml");
        std::fs::write(
            &p,
            "name = \"t\"\ninputs = [\"a\"]\nout = \"o\"\ntreads = 2\n[export]\ncompresion = \"zstd\"\nsenders = true\n[verify]\nchecksum = true\nrow_group_size = 5\n",
        )
        .unwrap();
        let err = file(&p, &["export.overwrit=true".into()]).unwrap_err();
        let msg = crate::error::render(&err);
        assert!(msg.contains("4 unknown keys"), "{msg}");
        assert!(
            msg.contains("line 4: `treads` (did you mean `threads`?)"),
            "{msg}"
        );
        assert!(
            msg.contains("line 6: `[export] compresion` (did you mean `compression`?)"),
            "{msg}"
        );
        assert!(
            msg.contains("line 10: `[verify] row_group_size` (a key of [export])"),
            "{msg}"
        );
        assert!(
            msg.contains("--set: `[export] overwrit` (did you mean `overwrite`?)"),
            "{msg}"
        );
    }
}
