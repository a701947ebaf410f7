//! A typed job: what `eraflow export`, `verify`, `prune`, `synth` and `run` (and the Python package, and a Ray
//! worker) hand the library. [`Job::load`] layers `configs/default.toml` < a pipeline file < `--set` < flags
//! ([`super::config`]) and resolves names into types once: the network preset, datasets, codecs, forks and the
//! signature algorithm. Everything after this point is typed.

use super::config::{
    self, ConfigError, ExportStage, Layers, PipelineConfig, PruneStage, SynthStage, VerifyStage,
};
use crate::crypto::signer::{SignatureAlgorithm, SignerBackend, SignerError};
use crate::error::ExitStatus;
use crate::export::ExportOptions;
use crate::formats::{ArchiveKind, EreProfile};
use crate::network::{Network, NetworkError};
use crate::prune::{OutputFormat, PruneOptions};
use crate::sink::parquet::{ParquetOptions, SinkError};
use crate::store::url::{Location, LocationError, RemoteUrl, Scheme};
use crate::synth::era::EraSynthOptions;
use crate::synth::era1::{SynthError, SynthOptions};
use crate::verify::VerifyOptions;
use std::path::{Path, PathBuf};

/// The most worker threads a job may ask for: far beyond any machine's cores, well short of the thread
/// count at which creating the pool itself takes minutes.
pub const MAX_THREADS: usize = 1024;

/// The most requests a job may keep open at once for remote inputs.
pub const MAX_DOWNLOADS: usize = 64;

/// The smallest hash-sort budget a job may set (64 KiB: 2,048 hashes per sorted run).
pub const MIN_PRUNE_MEMORY_BUDGET: usize = 64 << 10;

/// A job, resolved and typed.
#[derive(Clone)]
pub struct Job {
    /// The pipeline's (or command's) name.
    pub name: String,
    /// The network preset, when the job names one; `None`: each file's from its name.
    pub network: Option<Network>,
    /// Files, directories or glob patterns, expanded when the job runs (a synth stage may create them).
    pub inputs: Vec<String>,
    /// Output directory of the datasets and the run report (with `remote_out`: the local staging directory
    /// outputs are written to before they are uploaded).
    pub out: Option<PathBuf>,
    /// The object-store prefix outputs are published to, when `out` names one (`s3://`, `gs://`, `az://`).
    pub remote_out: Option<RemoteUrl>,
    /// Worker threads; 0 = all cores.
    pub threads: usize,
    /// Only this shard of the inputs ([`super::shard`]); `None`: all of them.
    pub shard: Option<super::shard::Shard>,
    /// What `run` does about the output's run lock ([`super::runlock`]).
    pub lock: super::runlock::LockMode,
    /// The secp256k1 implementation the process signer is built with when senders are recovered.
    pub signer_backend: SignerBackend,
    /// How remote inputs are fetched.
    pub fetch: FetchOptions,
    /// `run` writes the output's report page at the end ([`crate::report`]).
    pub report: bool,
    /// Create the inputs first.
    pub synth: Option<SynthJob>,
    /// Verify every input.
    pub verify: Option<VerifyJob>,
    /// Verify and export to Parquet.
    pub export: Option<ExportOptions>,
    /// Build a prune manifest.
    pub prune: Option<PruneJob>,
    /// Rewrite the inputs in the other execution layout (`eraflow convert`); the options' network is the job's.
    pub convert: Option<crate::convert::ConvertOptions>,
    /// Write the output's report page (`eraflow report`).
    pub page: Option<PageJob>,
}

/// `eraflow report`: where the output's page goes, and what it shows.
#[derive(Debug, Clone, Default)]
pub struct PageJob {
    /// A local file to write the page to; `None`: `OUT/_eraflow/report.html` (uploaded for an object-store
    /// output).
    pub html: Option<PathBuf>,
    /// What the page shows.
    pub options: crate::report::ReportOptions,
}

/// How remote inputs are fetched into the local cache.
#[derive(Debug, Clone)]
pub struct FetchOptions {
    /// The cache folder.
    pub cache_dir: PathBuf,
    /// The most bytes fetched files may take in the cache at once (a bigger file fails alone).
    pub max_bytes: u64,
    /// Keep fetched files after use.
    pub keep: bool,
    /// Requests open at once: files downloaded side by side, and ranges of a big file.
    pub downloads: usize,
    /// A request or body that sends nothing for this long is cut and retried.
    pub read_timeout: std::time::Duration,
    /// Headers sent with every request to an http(s) input.
    pub http_headers: Vec<crate::store::http::HttpHeader>,
}

impl FetchOptions {
    /// How remote locations are read.
    pub fn settings(&self) -> crate::store::fetch::FetchSettings {
        crate::store::fetch::FetchSettings {
            read_timeout: self.read_timeout,
            http_headers: self.http_headers.clone(),
        }
    }
}

/// The `[synth]` stage: where, and what.
#[derive(Debug, Clone)]
pub struct SynthJob {
    /// Directory the files are written to.
    pub out: PathBuf,
    /// era1, ere or era files and their options.
    pub archives: SynthArchives,
}

/// What a synth stage makes.
#[derive(Debug, Clone)]
pub enum SynthArchives {
    /// Pre-merge execution archives.
    Era1(SynthOptions),
    /// Beacon-chain archives.
    Era(EraSynthOptions),
    /// Execution archives of any era (pre-merge, merge-transition, post-merge).
    Ere(crate::synth::ere::EreSynthOptions),
}

/// The `[verify]` stage.
#[derive(Debug, Clone)]
pub struct VerifyJob {
    /// What to check.
    pub options: VerifyOptions,
    /// The curve to recover senders on; `None`: the network's (or the first file's network's).
    pub signature_algorithm: Option<SignatureAlgorithm>,
    /// Where trusted era state roots come from (a file, or a beacon node's `http(s)://` URL); loaded by
    /// [`crate::pipeline::commands`] once the files are known, into `options.trusted_states`.
    pub trusted_states: Option<String>,
    /// Where the historical summaries for ere proofs come from (an era file, or `PATH@SLOT` of their SSZ);
    /// loaded by [`crate::pipeline::commands`] into `options.historical_summaries`.
    pub historical_summaries: Option<String>,
    /// The network's own accumulator file (SSZ); loaded by [`crate::pipeline::commands`] into
    /// `options.accumulator`.
    pub accumulator: Option<String>,
}

/// The `[prune]` stage.
#[derive(Debug, Clone)]
pub struct PruneJob {
    /// Manifest directory.
    pub out: PathBuf,
    /// What goes into the manifest.
    pub options: PruneOptions,
    /// Re-verify the written manifest.
    pub check: bool,
}

/// Why a job could not be set up or run. Its exit status is [`JobError::exit_status`].
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    /// The configuration layers do not parse or fit.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// An option's value is unusable (named by its key, e.g. `export.row_group_size`).
    #[error("{key}: {message}")]
    Invalid {
        /// The config key or flag.
        key: &'static str,
        /// What is wrong with it.
        message: String,
    },
    /// A Parquet option is unusable.
    #[error("export")]
    Parquet(#[source] SinkError),
    /// The network preset cannot be had.
    #[error(transparent)]
    Network(#[from] NetworkError),
    /// The output store could not be used.
    #[error(transparent)]
    Store(#[from] crate::store::output::StoreError),
    /// A location (`out`, an input, a stage's `out`) is neither a local path nor a URL of a known scheme.
    #[error("{key}")]
    Location {
        /// The config key or flag.
        key: &'static str,
        /// Why.
        #[source]
        source: LocationError,
    },
    /// Remote inputs cannot be listed.
    #[error(transparent)]
    Fetch(crate::store::fetch::FetchError),
    /// The inputs cannot be listed.
    #[error(transparent)]
    Inputs(#[from] crate::inputs::InputError),
    /// The signature algorithm cannot be set up.
    #[error("signature algorithm")]
    Signer(#[from] SignerError),
    /// Synthesis failed.
    #[error(transparent)]
    Synth(#[from] SynthError),
    /// The export could not start.
    #[error("export")]
    Export(#[from] crate::export::ExportError),
    /// No prune manifest was written.
    #[error(transparent)]
    Prune(#[from] crate::prune::PruneError),
    /// A prune manifest is unreadable or inconsistent.
    #[error(transparent)]
    PruneCheck(#[from] crate::prune::check::CheckError),
    /// An archive could not be opened or its framing is broken.
    #[error(transparent)]
    Format(#[from] crate::formats::FormatError),
    /// A file could not be read or written.
    #[error("{}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// Bytes that are not the SSZ object they should be.
    #[error("{}", .path.display())]
    Ssz {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: crate::consensus::SszError,
    },
    /// An archive did not verify, so nothing read from it is returned.
    #[error("{} did not verify: {}", .path.display(), .errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Unverified {
        /// The archive.
        path: PathBuf,
        /// Why (bounded, as in the verify report).
        errors: Vec<crate::verify::report::ReportError>,
    },
    /// A dataset could not be built from a verified block.
    #[error(transparent)]
    Dataset(#[from] crate::datasets::DatasetError),
    /// The output's run lock is held by another run (and the job said not to wait) or cannot be taken.
    #[error(transparent)]
    Lock(#[from] super::runlock::LockError),
    /// The report page could not be made or written.
    #[error("report")]
    Report(#[from] crate::report::ReportError),
    /// The worker pool cannot be built.
    #[error("threads = {threads}")]
    Threads {
        /// The count asked for.
        threads: usize,
        /// The cause.
        #[source]
        source: rayon::ThreadPoolBuildError,
    },
}

impl JobError {
    /// 1 when the data is at fault (a file that does not verify, an inconsistent manifest), else 2.
    pub fn exit_status(&self) -> ExitStatus {
        use crate::prune::check::CheckError;
        match self {
            JobError::Format(e) if e.is_io() => ExitStatus::Usage,
            JobError::Prune(e) if e.is_data_error() => ExitStatus::DataErrors,
            JobError::PruneCheck(CheckError::Directory { .. } | CheckError::Unreadable { .. }) => {
                ExitStatus::Usage
            }
            // A listing a signal stopped: the run was interrupted, not refused.
            JobError::Fetch(crate::store::fetch::FetchError::Stopped { .. }) => {
                ExitStatus::Interrupted(
                    crate::util::interrupt::requested().unwrap_or(crate::util::interrupt::SIGTERM)
                        as u8,
                )
            }
            JobError::PruneCheck(_)
            | JobError::Format(_)
            | JobError::Ssz { .. }
            | JobError::Unverified { .. }
            | JobError::Dataset(_) => ExitStatus::DataErrors,
            _ => ExitStatus::Usage,
        }
    }
}

/// The era files among `paths` (files, directories or globs; directories may hold other archives too): a usage
/// error when there are none.
pub fn era_files(paths: &[String]) -> Result<Vec<PathBuf>, JobError> {
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    let invalid = |message: String| JobError::Invalid {
        key: "--era-files",
        message,
    };
    let era: Vec<PathBuf> = crate::inputs::expand(paths)
        .map_err(|e| invalid(e.to_string()))?
        .into_iter()
        .filter(|p| crate::formats::Holds::of_path(p).state)
        .collect();
    if era.is_empty() {
        return Err(invalid(format!("no .era files in {}", paths.join(" "))));
    }
    Ok(era)
}

/// A network's own accumulator from the SSZ of a frozen `HistoricalHashesAccumulator` at `path`.
pub fn accumulator(path: &Path) -> Result<std::sync::Arc<crate::canonical::EpochRoots>, JobError> {
    let bytes = std::fs::read(path).map_err(|source| JobError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    crate::canonical::EpochRoots::from_ssz(&bytes)
        .map(std::sync::Arc::new)
        .map_err(|e| JobError::Invalid {
            key: "accumulator",
            message: format!("{}: {e}", path.display()),
        })
}

/// An ere profile by name (see [`EreProfile`]'s `FromStr`), as the option `key` gave it.
pub fn parse_profile(name: &str) -> Result<EreProfile, JobError> {
    name.parse().map_err(|message| JobError::Invalid {
        key: "profile",
        message,
    })
}

/// A location that must be a local path: `file://` URLs become their path; an object-store URL is refused,
/// and so is anything that is neither.
fn local_location(key: &'static str, s: &str) -> Result<PathBuf, JobError> {
    match Location::parse(s).map_err(|source| JobError::Location { key, source })? {
        Location::Local(p) => Ok(p),
        Location::Remote(u) => Err(invalid(
            key,
            format!("{u}: must be a local path ({} is not)", u.scheme().name()),
        )),
    }
}

fn invalid(key: &'static str, message: impl std::fmt::Display) -> JobError {
    JobError::Invalid {
        key,
        message: message.to_string(),
    }
}

/// The output location: a local directory, or an object-store URL with the local directory outputs are staged
/// in before they are uploaded. An http(s) URL is refused (it is an input only).
fn resolve_out(out: Option<&str>) -> Result<(Option<PathBuf>, Option<RemoteUrl>), JobError> {
    match out.map(Location::parse).transpose() {
        Err(source) => Err(JobError::Location { key: "out", source }),
        Ok(None) => Ok((None, None)),
        Ok(Some(Location::Local(p))) => Ok((Some(p), None)),
        Ok(Some(Location::Remote(u))) => match u.scheme() {
            Scheme::Http | Scheme::Https => Err(invalid(
                "out",
                format!("{u}: http(s) locations are inputs only"),
            )),
            // Outputs are staged locally, then uploaded.
            _ => Ok((Some(crate::store::output::staging_dir()), Some(u))),
        },
    }
}

/// The inputs, each checked as a location: local ones as given (a glob stays a glob) unless a `file://` URL
/// named them, remote ones kept to be listed and fetched when the job runs.
fn resolve_inputs(inputs: &[String]) -> Result<Vec<String>, JobError> {
    inputs
        .iter()
        .map(|i| {
            match Location::parse(i).map_err(|source| JobError::Location {
                key: "inputs",
                source,
            })? {
                // As given (a glob stays a glob), unless it was a file:// URL.
                Location::Local(p) => Ok(match p.to_str() {
                    Some(s) if s == i => i.clone(),
                    _ => p.to_string_lossy().into_owned(),
                }),
                // Listed and fetched when the job runs.
                Location::Remote(_) => Ok(i.clone()),
            }
        })
        .collect()
}

/// The synth stage: its network (the job's, else its own), the options of its archive kind, checked.
fn resolve_synth(s: SynthStage, network: Option<&Network>) -> Result<SynthJob, JobError> {
    let net = match network {
        Some(n) => n.clone(),
        None => Network::resolve(&s.network)?,
    };
    if s.kind != ArchiveKind::Era && s.fork.is_some() {
        return Err(invalid("synth.fork", "applies to kind = \"era\" only"));
    }
    if s.kind != ArchiveKind::Ere && s.profile.is_some() {
        return Err(invalid("synth.profile", "applies to kind = \"ere\" only"));
    }
    if s.files == 0 {
        return Err(invalid("synth.files", "expected at least 1, found 0"));
    }
    if s.tokens && s.kind == ArchiveKind::Era {
        return Err(invalid(
            "synth.tokens",
            "applies to kind = \"era1\" and \"ere\" only (era files carry no receipts)",
        ));
    }
    if s.kind == ArchiveKind::Era && s.validators == 0 {
        return Err(invalid(
            "synth.validators",
            "an era file's state needs at least 1 validator, found 0",
        ));
    }
    let chain = SynthOptions {
        network: net.clone(),
        era: s.era.unwrap_or(0),
        files: s.files,
        blocks: s.blocks.unwrap_or(s.era1_blocks),
        txs_per_block: s.txs_per_block,
        seed: s.seed,
        tokens: s.tokens,
    };
    let archives = match s.kind {
        ArchiveKind::Era1 => SynthArchives::Era1(chain),
        ArchiveKind::Ere => {
            let profile = s
                .profile
                .as_deref()
                .map(parse_profile)
                .transpose()
                .map_err(|e| match e {
                    JobError::Invalid { message, .. } => invalid("synth.profile", message),
                    e => e,
                })?
                // Synthetic ere files carry no proofs (synth::ere says why).
                .unwrap_or(EreProfile {
                    no_proofs: true,
                    no_receipts: false,
                });
            SynthArchives::Ere(crate::synth::ere::EreSynthOptions { chain, profile })
        }
        ArchiveKind::Era => SynthArchives::Era(EraSynthOptions {
            era: crate::synth::era::era_to_synthesize(&net, s.era, s.fork)?,
            network: net,
            files: s.files,
            blocks: s.blocks.unwrap_or(s.era_blocks),
            validators: s.validators,
            withdrawal_validators: None,
            txs_per_block: s.txs_per_block,
            seed: s.seed,
        }),
    };
    Ok(SynthJob {
        out: local_location("synth.out", &s.out.to_string_lossy())?,
        archives,
    })
}

/// The verify stage: its options (the signer and trusted roots are set when the job runs, from the names kept).
fn resolve_verify(v: VerifyStage, network: Option<&Network>) -> VerifyJob {
    VerifyJob {
        options: VerifyOptions {
            network: network.cloned(),
            checksum: v.checksum,
            senders: v.senders,
            skip_receipts: false,
            signer: None,
            trusted_states: None,
            historical_summaries: None,
            accumulator: None,
        },
        signature_algorithm: v.signature_algorithm,
        trusted_states: v.trusted_states,
        historical_summaries: v.historical_summaries,
        accumulator: v.accumulator,
    }
}

/// The export stage: datasets by name, Parquet options checked, into `out` (`remote`: a staging directory of a
/// remote output), its input-hash cache placed.
fn resolve_export(
    e: ExportStage,
    out: Option<&PathBuf>,
    remote: bool,
    cache_dir: &Path,
    signer_backend: SignerBackend,
    network: Option<&Network>,
) -> Result<ExportOptions, JobError> {
    let datasets =
        crate::datasets::by_names(&e.datasets).map_err(|m| invalid("export.datasets", m))?;
    let parquet = ParquetOptions {
        compression: e.compression,
        compression_level: e.compression_level,
        row_group_size: e.row_group_size,
    };
    parquet.validate().map_err(JobError::Parquet)?;
    let out = out
        .cloned()
        .ok_or_else(|| invalid("out", "an export needs an output directory"))?;
    // Kept beside the verification cache: in a local output, else in this machine's cache folder
    // (a remote output's local folder is only staging; devices and inodes are this machine's).
    let input_hashes = if remote {
        cache_dir.join(crate::export::hash_cache::CACHE_DIR)
    } else {
        out.join(crate::export::hash_cache::DIR)
    };
    Ok(ExportOptions {
        out,
        datasets,
        senders: e.senders,
        signer_backend,
        signer: None,
        network: network.cloned(),
        overwrite: e.overwrite,
        verify_outputs: e.verify_outputs,
        input_hashes: Some(input_hashes),
        clean_stale: e.clean_stale,
        parquet,
        table_format: e.table_format,
    })
}

/// The prune stage: its output and options, the memory budget checked.
fn resolve_prune(p: PruneStage, network: Option<&Network>) -> Result<PruneJob, JobError> {
    // Below this every few hashes would be spilled as a run of their own.
    if p.memory_budget < MIN_PRUNE_MEMORY_BUDGET {
        return Err(invalid(
            "prune.memory_budget",
            format!(
                "{} bytes: at least {MIN_PRUNE_MEMORY_BUDGET}",
                p.memory_budget
            ),
        ));
    }
    let window = match (p.keep_epochs, p.keep_blocks, p.until_block) {
        (Some(_), Some(_), _) => {
            return Err(invalid(
                "prune.keep_epochs",
                "and prune.keep_blocks both set: one window",
            ))
        }
        (Some(_), _, Some(_)) | (_, Some(_), Some(_)) => return Err(invalid(
            "prune.until_block",
            "and a window (prune.keep_epochs or prune.keep_blocks) both end the range: one of them",
        )),
        (Some(0), _, _) => {
            return Err(invalid(
                "prune.keep_epochs",
                "0: a window keeps at least 1 epoch",
            ))
        }
        (_, Some(0), _) => {
            return Err(invalid(
                "prune.keep_blocks",
                "0: a window keeps at least 1 block",
            ))
        }
        (Some(n), None, None) => Some(crate::prune::Window::Epochs(n)),
        (None, Some(n), None) => Some(crate::prune::Window::Blocks(n)),
        (None, None, _) => None,
    };
    Ok(PruneJob {
        out: local_location("prune.out", &p.out.to_string_lossy())?,
        options: PruneOptions {
            network: network.cloned(),
            from_block: p.from_block,
            until_block: p.until_block,
            window,
            allow_gaps: p.allow_gaps,
            format: p.format,
            memory_budget: p.memory_budget,
            from_scratch: p.from_scratch,
        },
        check: p.check,
    })
}

/// Requests kept open at once for remote inputs: 1 to [`MAX_DOWNLOADS`].
fn resolve_downloads(n: usize) -> Result<usize, JobError> {
    match n {
        0 => Err(invalid("download_concurrency", "at least 1")),
        n if n > MAX_DOWNLOADS => Err(invalid(
            "download_concurrency",
            format!("{n} is more than {MAX_DOWNLOADS}"),
        )),
        n => Ok(n),
    }
}

/// The read timeout of remote inputs, in seconds: more than 0, at most a day.
fn resolve_read_timeout(t: f64) -> Result<std::time::Duration, JobError> {
    match t {
        t if t.is_finite() && t > 0.0 && t <= 86_400.0 => Ok(std::time::Duration::from_secs_f64(t)),
        t => Err(invalid(
            "read_timeout",
            format!("{t}: seconds, more than 0 and at most a day"),
        )),
    }
}

impl Job {
    /// Layers defaults < `layers.file` < `layers.sets` < `layers.flags` and resolves the result.
    pub fn load(layers: Layers<'_>) -> Result<Job, JobError> {
        Job::resolve(config::load(layers)?)
    }

    /// Resolves names into types and checks every value, so a bad option fails before any work. The checks run
    /// in this order (threads, network, locations, stages, remote inputs), so the first bad value reported is
    /// always the same one.
    pub fn resolve(cfg: PipelineConfig) -> Result<Job, JobError> {
        if cfg.threads > MAX_THREADS {
            return Err(invalid(
                "threads",
                format!("{} is more than {MAX_THREADS}", cfg.threads),
            ));
        }
        let network = cfg.network.as_deref().map(Network::resolve).transpose()?;
        let (out, remote_out) = resolve_out(cfg.out.as_deref())?;
        let inputs = resolve_inputs(&cfg.inputs)?;
        let cache_dir = match cfg.cache_dir.as_str() {
            "" => std::env::temp_dir().join("eraflow-cache"),
            d => local_location("cache_dir", d)?,
        };
        let synth = cfg
            .synth
            .map(|s| resolve_synth(s, network.as_ref()))
            .transpose()?;
        let verify = cfg.verify.map(|v| resolve_verify(v, network.as_ref()));
        let export = cfg
            .export
            .map(|e| {
                let remote = remote_out.is_some();
                resolve_export(
                    e,
                    out.as_ref(),
                    remote,
                    &cache_dir,
                    cfg.signer_backend,
                    network.as_ref(),
                )
            })
            .transpose()?;
        // Decoded events join the export's datasets; a bad spec fails here, before any work.
        let export = match (export, cfg.decode) {
            (Some(mut e), Some(d)) => {
                let decoded = crate::datasets::decoded::from_specs(&d.events)
                    .map_err(|e| invalid("decode.events", e.to_string()))?;
                e.datasets.extend(decoded);
                Some(e)
            }
            (None, Some(d)) if !d.events.is_empty() => {
                return Err(invalid(
                    "decode",
                    "decoded events are exported: the job needs an [export] stage",
                ))
            }
            (e, _) => e,
        };
        let prune = cfg
            .prune
            .map(|p| resolve_prune(p, network.as_ref()))
            .transpose()?;
        // A window is counted back from the newest archive of ALL the inputs: shards would each count from their
        // own newest file and cut at different blocks.
        if let (Some(p), Some(shard)) = (&prune, &cfg.shard) {
            if let Some(w) = p.options.window {
                return Err(invalid(
                    "shard",
                    format!(
                        "{shard}: a rolling prune ({}) is counted back from the newest of all the inputs, which \
                         a shard does not see; run it unsharded (prune verifies lightly: one process reads \
                         mainnet's history in hours)",
                        w.describe()
                    ),
                ));
            }
        }
        let fetch = FetchOptions {
            cache_dir,
            max_bytes: cfg.cache_max_bytes,
            keep: cfg.keep_cache,
            downloads: resolve_downloads(cfg.download_concurrency)?,
            read_timeout: resolve_read_timeout(cfg.read_timeout)?,
            http_headers: cfg
                .http_headers
                .iter()
                .map(|h| h.parse().map_err(|m| invalid("http_headers", m)))
                .collect::<Result<_, _>>()?,
        };
        Ok(Job {
            name: cfg.name,
            network,
            inputs,
            out,
            remote_out,
            threads: cfg.threads,
            shard: cfg.shard,
            lock: cfg.lock,
            signer_backend: cfg.signer_backend,
            fetch,
            report: cfg.report,
            synth,
            verify,
            export,
            prune,
            convert: None,
            page: None,
        })
    }

    /// The input files: the inputs expanded (files, directories, globs), then only those of the job's shard.
    /// A shard may hold no file (more shards than files): that is an empty list, not an error.
    pub fn files(&self) -> Result<Vec<PathBuf>, JobError> {
        let local: Vec<String> = self
            .inputs
            .iter()
            .filter(|i| !matches!(Location::parse(i), Ok(Location::Remote(_))))
            .cloned()
            .collect();
        let files = crate::inputs::expand(&local)?;
        Ok(match &self.shard {
            Some(s) => s.select(files),
            None => files,
        })
    }

    /// [`Job::files`] for a command that reads local files only (`convert`): a remote input is a usage error
    /// naming it and what streams it instead, never an empty input list.
    pub fn local_files(&self, command: &str) -> Result<Vec<PathBuf>, JobError> {
        if let Some(u) = self.inputs.iter().find_map(|i| match Location::parse(i) {
            Ok(Location::Remote(u)) => Some(u),
            _ => None,
        }) {
            return Err(invalid(
                "inputs",
                format!(
                    "{u}: `eraflow {command}` reads local files; remote inputs stream through `eraflow export`, \
                     `verify`, `prune` or an `eraflow run` pipeline"
                ),
            ));
        }
        self.files()
    }

    /// Keeps only the named stages (`synth`, `verify`, `export`, `prune`) of the job: a Ray task runs
    /// `verify,export` over its files, its driver `prune` once at the end.
    pub fn only_stages(&mut self, names: &[String]) -> Result<(), JobError> {
        for n in names {
            if !["synth", "verify", "export", "prune"].contains(&n.as_str()) {
                return Err(invalid(
                    "--stages",
                    format!("'{n}': synth, verify, export or prune"),
                ));
            }
        }
        let keep = |n: &str| names.iter().any(|s| s == n);
        if !keep("synth") {
            self.synth = None;
        }
        if !keep("verify") {
            self.verify = None;
        }
        if !keep("export") {
            self.export = None;
        }
        if !keep("prune") {
            self.prune = None;
        }
        Ok(())
    }

    /// The stages the job has, in the order they run.
    pub fn stage_names(&self) -> Vec<&'static str> {
        [
            ("synth", self.synth.is_some()),
            ("verify", self.verify.is_some()),
            ("export", self.export.is_some()),
            ("prune", self.prune.is_some()),
        ]
        .into_iter()
        .filter_map(|(n, on)| on.then_some(n))
        .collect()
    }

    /// The output directory, which stages that write need.
    pub fn out(&self) -> Result<&Path, JobError> {
        self.out
            .as_deref()
            .ok_or_else(|| invalid("out", "this job writes a run report and needs `out`"))
    }
}

/// The prune list format by name (for callers holding a string).
pub fn prune_format(name: &str) -> Result<OutputFormat, JobError> {
    name.parse().map_err(|m| invalid("prune.format", m))
}

/// Sets the worker count of the process-wide pool (0 = all cores). The first call wins; a later one asking
/// for the count the pool already has is harmless, any other is an error (a process has one pool).
pub fn set_threads(threads: usize) -> Result<(), JobError> {
    if threads == 0 {
        return Ok(());
    }
    if threads > MAX_THREADS {
        return Err(invalid(
            "threads",
            format!("{threads} is more than {MAX_THREADS}"),
        ));
    }
    match rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global()
    {
        Ok(()) => Ok(()),
        // Already built (by an earlier job in this process): fine when it has the count asked for.
        Err(_) if rayon::current_num_threads() == threads => Ok(()),
        Err(source) => Err(JobError::Threads { threads, source }),
    }
}
