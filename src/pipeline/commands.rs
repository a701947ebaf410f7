//! One library call per command. The command line, the Python package and a Ray worker all call these with a
//! [`Job`] and get a typed report back; rendering it (text, JSON) is the caller's business.

use super::job::{set_threads, Job, JobError, SynthArchives, SynthJob, VerifyJob};
use super::report::RunReport;
use super::run::{begin_report, finish_run, Stage};
use super::runlock::RunLock;
use super::stream::{run_inputs, Inputs};
use crate::consensus::{self, Fork, Kind};
use crate::error::ExitStatus;
use crate::formats::MappedArchive;
use crate::formats::{ArchiveKind, ArchiveName, FormatError, FormatErrorKind};
use crate::network::Network;
use crate::prune::check::CheckSummary;
use crate::prune::PruneSummary;
use crate::store::output::{OutputCheck, OutputStore, StoreError};
use crate::store::url::{Location, Scheme};
use crate::synth::Synthesized;
use crate::verify::init_signer;
use crate::verify::report::FileReport;
use crate::verify::VerifyOptions;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// `eraflow synth`: writes the job's synthetic archives and returns their paths in order. `once` skips the
/// work when the directory already holds the files these exact options produce (a pipeline's synth stage).
pub fn synth(job: &SynthJob, once: bool) -> Result<Synthesized, JobError> {
    use crate::synth::{era, era1, ere};
    let made = |paths| Synthesized { paths, made: true };
    Ok(match (&job.archives, once) {
        (SynthArchives::Era1(o), false) => made(era1::write(&job.out, o)?),
        (SynthArchives::Era1(o), true) => era1::write_once(&job.out, o)?,
        (SynthArchives::Ere(o), false) => made(ere::write(&job.out, o)?),
        (SynthArchives::Ere(o), true) => ere::write_once(&job.out, o)?,
        (SynthArchives::Era(o), false) => made(era::write(&job.out, o)?),
        (SynthArchives::Era(o), true) => era::write_once(&job.out, o)?,
    })
}

/// `eraflow verify`: every input verified (era1 files chained by parent hash and total difficulty, era files
/// by boundary root and execution head); one report per file, era1 first, then era, each in input order.
pub fn verify(job: &Job) -> Result<Vec<FileReport>, JobError> {
    set_threads(job.threads)?;
    let inputs = Inputs::list(job)?;
    // Local paths and remote URLs: networks and anchors are chosen by file name only.
    let files = inputs.names();
    let (opts, algorithm) = match &job.verify {
        Some(v) => (with_anchors(v, &files)?, v.signature_algorithm),
        None => (
            VerifyOptions {
                network: job.network.clone(),
                checksum: false,
                senders: false,
                skip_receipts: false,
                signer: None,
                trusted_states: None,
                historical_summaries: None,
                accumulator: None,
            },
            None,
        ),
    };
    if opts.senders {
        init_signer(algorithm, job.signer_backend, opts.network.as_ref(), &files)?;
    }
    super::stream::verify_inputs(inputs, &opts, &cache_options(job))
}

/// The verify options of `v` with its trusted state roots loaded: from a file of `<slot> <root>` lines, or from
/// a beacon node (`http(s)://`), asked for the state slot of each era file among `files` (from its name).
fn with_trusted_states(v: &VerifyJob, files: &[PathBuf]) -> Result<VerifyOptions, JobError> {
    use crate::verify::anchor::TrustedStates;
    let mut opts = v.options.clone();
    let Some(location) = &v.trusted_states else {
        return Ok(opts);
    };
    let bad = |message: String| JobError::Invalid {
        key: "verify.trusted_states",
        message,
    };
    let trusted = match Location::parse(location).map_err(|e| bad(e.to_string()))? {
        Location::Local(path) => {
            let text = std::fs::read_to_string(&path).map_err(|source| JobError::Io {
                path: path.clone(),
                source,
            })?;
            TrustedStates::parse(&path.display().to_string(), &text)
                .map_err(|e| bad(e.to_string()))?
        }
        Location::Remote(url) if matches!(url.scheme(), Scheme::Http | Scheme::Https) => {
            let mut wanted: Vec<_> = files
                .iter()
                .filter_map(|p| ArchiveName::of_path(p))
                .filter(|n| n.holds().state)
                .map(|n| {
                    let slot = n.era.saturating_mul(crate::formats::era::SLOTS_PER_ERA);
                    // The job's network when it forces one, else the file name's preset.
                    let net = match &v.options.network {
                        Some(forced) => Some(forced.clone()),
                        None => Network::by_name(&n.network).ok(),
                    };
                    let name = net.as_ref().map_or(n.network, |x| x.name.clone());
                    let gvr = net.and_then(|x| {
                        crate::verify::anchor::parse_root(&x.consensus.genesis_validators_root)
                    });
                    (name, gvr, slot)
                })
                .collect();
            wanted.sort_unstable();
            wanted.dedup();
            crate::store::beacon::state_roots(&url, &wanted)
                .map_err(|e| JobError::Fetch(e.into()))?
        }
        Location::Remote(url) => {
            return Err(bad(format!(
                "{url}: a file or a beacon node's http(s):// URL, not {}",
                url.scheme().name()
            )))
        }
    };
    opts.trusted_states = Some(std::sync::Arc::new(trusted));
    Ok(opts)
}

/// [`with_trusted_states`], and the historical summaries `v` names loaded for the network of the job, else of
/// the first ere file among `files` (summaries belong to one network).
fn with_anchors(v: &VerifyJob, files: &[PathBuf]) -> Result<VerifyOptions, JobError> {
    let mut opts = with_trusted_states(v, files)?;
    if let Some(path) = &v.accumulator {
        opts.accumulator = Some(super::job::accumulator(Path::new(path))?);
    }
    let Some(spec) = &v.historical_summaries else {
        return Ok(opts);
    };
    let bad = |message: String| JobError::Invalid {
        key: "verify.historical_summaries",
        message,
    };
    let network = match &opts.network {
        Some(n) => n.clone(),
        None => {
            let name = files
                .iter()
                .filter_map(|p| ArchiveName::of_path(p))
                .find(|n| n.holds().execution_blocks)
                .map(|n| n.network)
                .ok_or_else(|| {
                    bad(format!(
                        "{spec}: which network's? pass --network (no ere or era1 file names one)"
                    ))
                })?;
            Network::by_name(&name)?
        }
    };
    let summaries = crate::verify::canonical::summaries_from_file(spec, &network).map_err(bad)?;
    opts.historical_summaries = Some(std::sync::Arc::new(summaries));
    Ok(opts)
}

/// `eraflow inspect`: one file verified with its sha256, for a human summary.
pub fn inspect(file: &Path, network: Option<&Network>) -> Result<FileReport, JobError> {
    use crate::store::url::Location;
    if let Ok(Location::Remote(u)) = Location::parse(&file.to_string_lossy()) {
        return Err(JobError::Invalid {
            key: "FILE",
            message: format!(
                "{u}: `eraflow inspect` reads a local file; fetch it first (or verify a mirror through \
                 `eraflow export` or an `eraflow run` pipeline, which stream remote inputs)"
            ),
        });
    }
    let meta = std::fs::metadata(file).map_err(|source| JobError::Io {
        path: file.to_path_buf(),
        source,
    })?;
    if meta.is_dir() {
        return Err(JobError::Invalid {
            key: "FILE",
            message: format!(
                "{} is a directory; inspect takes one archive file",
                file.display()
            ),
        });
    }
    let opts = VerifyOptions {
        senders: false,
        skip_receipts: false,
        network: network.cloned(),
        checksum: true,
        signer: None,
        trusted_states: None,
        historical_summaries: None,
        accumulator: None,
    };
    Ok(crate::verify::file(file, &opts))
}

/// `eraflow export`: verify and export every input; the run report is written under the output directory.
pub fn export(job: &Job) -> Result<RunReport, JobError> {
    let opts = job.export.clone().ok_or_else(|| JobError::Invalid {
        key: "export",
        message: "the job has no export stage".into(),
    })?;
    set_threads(job.threads)?;
    let inputs = Inputs::list(job)?;
    let out = opts.out.clone();
    let mut report = begin_report(&job.name, job.shard.map(|s| s.to_string()), &inputs.names());
    let r = run_inputs(
        &mut report,
        inputs,
        &cache_options(job),
        job.remote_out.as_ref(),
        &[Stage::Export(opts)],
    );
    if let Err(e) = r {
        // The run report is still written (then the staging directory of a remote output removed).
        let _ = finish_run(&mut report, e.exit_status(), &out, job.remote_out.as_ref());
        return Err(e);
    }
    let status = report.exit_status();
    finish_run(&mut report, status, &out, job.remote_out.as_ref())?;
    Ok(report)
}

/// `eraflow convert`: every local input verified and rewritten in the job's other layout; one result per
/// input, in input order.
pub fn convert(job: &Job) -> Result<Vec<crate::convert::Converted>, JobError> {
    let mut opts = job.convert.clone().ok_or_else(|| JobError::Invalid {
        key: "convert",
        message: "the job has no convert stage".into(),
    })?;
    set_threads(job.threads)?;
    opts.network = job.network.clone();
    let files = job.local_files("convert")?;
    Ok(crate::convert::convert(&files, &opts))
}

/// `eraflow report`: the page of the job's output (a local directory or an object-store prefix), written
/// where the job's page says.
pub fn report(job: &Job) -> Result<crate::report::Written, JobError> {
    let page = job.page.clone().unwrap_or_default();
    set_threads(job.threads)?;
    let out = output_location(job).ok_or_else(|| JobError::Invalid {
        key: "out",
        message: "the report needs the output to read".into(),
    })?;
    Ok(crate::report::write(
        &out,
        page.html.as_deref(),
        &page.options,
    )?)
}

/// Where the job's outputs are: its object-store prefix, else its local directory.
fn output_location(job: &Job) -> Option<Location> {
    match (&job.remote_out, &job.out) {
        (Some(u), _) => Some(Location::Remote(u.clone())),
        (None, Some(p)) => Some(Location::Local(p.clone())),
        (None, None) => None,
    }
}

/// One input file of a [`Plan`].
#[derive(Debug, Clone, serde::Serialize)]
pub struct PlannedFile {
    /// The file: a local path, or a remote file's URL (without user-info or query string).
    pub path: PathBuf,
    /// `era1` or `era`, by extension.
    pub kind: Option<ArchiveKind>,
    /// The network its name names (canonical names only).
    pub network: Option<String>,
    /// The era its name names (canonical names only).
    pub era: Option<u64>,
    /// Its [shard key](super::shard::Shard::key): it belongs to shard `shard_key % N` of N.
    pub shard_key: u64,
}

/// What a job would work on: `eraflow plan`, which a distributed driver (the Ray package) splits into tasks.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Plan {
    /// The job's name.
    pub name: String,
    /// Its output: a local directory, or an object-store URL (redacted), as the pipeline names it.
    pub out: Option<String>,
    /// Its shard, when sharded.
    pub shard: Option<String>,
    /// Its stages, in the order they run.
    pub stages: Vec<&'static str>,
    /// The input files (of the shard), in order.
    pub files: Vec<PlannedFile>,
}

/// `eraflow plan`: runs the job's synth stage, if any (so that its inputs exist), and lists its input files
/// with their shard keys. Nothing is verified or written besides the synthetic inputs.
pub fn plan(job: &Job) -> Result<Plan, JobError> {
    if let Some(s) = &job.synth {
        synth(s, true)?;
    }
    // Remote inputs are listed (not fetched) as a run lists them, and named by their URL (without user-info
    // or query string): what a driver hands its tasks.
    let files = Inputs::list(job)?
        .names()
        .into_iter()
        .map(|path| {
            let name = ArchiveName::of_path(&path);
            PlannedFile {
                kind: ArchiveKind::of(&path),
                network: name.as_ref().map(|n| n.network.clone()),
                era: name.as_ref().map(|n| n.era),
                shard_key: super::shard::Shard::key(&path),
                path,
            }
        })
        .collect();
    Ok(Plan {
        name: job.name.clone(),
        out: match &job.remote_out {
            Some(u) => Some(u.redacted()),
            None => job.out.as_ref().map(|p| p.display().to_string()),
        },
        shard: job.shard.map(|s| s.to_string()),
        stages: job.stage_names(),
        files,
    })
}

/// The job's cache settings for remote inputs.
fn cache_options(job: &Job) -> crate::store::cache::CacheOptions {
    crate::store::cache::CacheOptions {
        dir: job.fetch.cache_dir.clone(),
        max_bytes: job.fetch.max_bytes,
        keep: job.fetch.keep,
        downloads: job.fetch.downloads,
    }
}

/// A prune manifest as built, and its re-verification when the job asks for it.
#[derive(Debug)]
pub struct PruneReport {
    /// What was written.
    pub summary: PruneSummary,
    /// `eraflow prune check` over it, when the job's `check` is set.
    pub check: Option<CheckSummary>,
}

/// `eraflow prune`: a manifest from verified inputs only (never touches the signer), then its check when the
/// job asks for it.
pub fn prune(job: &Job) -> Result<PruneReport, JobError> {
    let p = job.prune.as_ref().ok_or_else(|| JobError::Invalid {
        key: "prune",
        message: "the job has no prune stage".into(),
    })?;
    set_threads(job.threads)?;
    let inputs = Inputs::list(job)?;
    let summary = super::stream::prune_inputs(inputs, &p.out, &p.options, &cache_options(job))?;
    let check = if p.check {
        Some(prune_check(&p.out)?)
    } else {
        None
    };
    Ok(PruneReport { summary, check })
}

/// `eraflow prune check`: re-verifies a manifest directory.
pub fn prune_check(dir: &Path) -> Result<CheckSummary, JobError> {
    Ok(crate::prune::check::check(dir)?)
}

/// `eraflow prune check DIR --rebuild PATH...`: what [`prune_check`] checks, then the manifest of the same range
/// built from scratch over the job's inputs (beside `dir`, removed after) and compared list by list.
pub struct RebuildCheck {
    /// The directory's own check.
    pub check: CheckSummary,
    /// Where the two disagree (empty: the lists are byte-identical).
    pub differences: Vec<String>,
}

/// [`RebuildCheck`] of `dir` over `job`'s inputs.
pub fn prune_rebuild_check(job: &Job, dir: &Path) -> Result<RebuildCheck, JobError> {
    let check = prune_check(dir)?;
    set_threads(job.threads)?;
    let m = &check.manifest;
    let network = Network::by_name(&m.network)
        .map_err(|e| JobError::Prune(crate::prune::PruneError::Preset(e)))?;
    let opts = crate::prune::extend::scratch_options(m, network);
    let base = dir
        .file_name()
        .map_or("prune".into(), |n| n.to_string_lossy().into_owned());
    // Beside `dir` (same disk); what a killed check left there is removed once its process is gone.
    let prefix = format!(".{base}.rebuild-");
    if let Ok(rd) = std::fs::read_dir(dir.parent().unwrap_or(Path::new("."))) {
        for e in rd.flatten() {
            let pid = e
                .file_name()
                .to_str()
                .and_then(|n| n.strip_prefix(&prefix)?.parse::<u32>().ok());
            if pid.is_some_and(|p| !crate::util::fs::process_alive(p)) {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
    let scratch = dir.with_file_name(format!("{prefix}{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    let built =
        super::stream::prune_inputs(Inputs::list(job)?, &scratch, &opts, &cache_options(job));
    let _ = std::fs::remove_dir_all(&scratch);
    let differences = crate::prune::extend::differences(m, &built?.manifest);
    Ok(RebuildCheck { check, differences })
}

/// One completion record's output, read back (`eraflow verify --outputs`).
#[derive(Debug, Clone, serde::Serialize)]
pub struct OutputVerdict {
    /// The source archive's file name.
    pub source: String,
    /// The dataset.
    pub dataset: String,
    /// The output's path under the output root, as recorded.
    pub path: Option<String>,
    /// What reading it back found.
    #[serde(flatten)]
    pub check: OutputCheck,
}

/// `eraflow verify --outputs`: every completion record of an output, its output read back and hashed.
#[derive(Debug, Clone, serde::Serialize)]
pub struct OutputsReport {
    /// The output root or URL (redacted).
    pub out: String,
    /// Records read.
    pub records: usize,
    /// Outputs whose size or bytes are not the recorded ones, or that are gone.
    pub failed: usize,
    /// Bytes read back.
    pub bytes_read: u64,
    /// One verdict per record, sorted by source and dataset.
    pub outputs: Vec<OutputVerdict>,
}

impl OutputsReport {
    /// The human summary: each output that failed, with what was expected and found, then the counts.
    pub fn text(&self) -> String {
        let mut lines: Vec<String> = Vec::new();
        for v in self.outputs.iter().filter(|v| !v.check.ok()) {
            let what = match &v.check {
                OutputCheck::Missing => "missing".to_string(),
                OutputCheck::Size { expected, found } => {
                    format!("size {found} bytes, recorded {expected}")
                }
                OutputCheck::Sha256 { expected, found } => {
                    format!("sha256 {found}, recorded {expected}")
                }
                OutputCheck::Ok | OutputCheck::NoOutput => continue,
            };
            let path = v.path.as_deref().unwrap_or("-");
            lines.push(format!(
                "FAILED {}/{path} ({} of {}): {what}",
                self.out, v.dataset, v.source
            ));
        }
        lines.push(format!(
            "{}: {} records, {} outputs read back ({} bytes), {} failed",
            self.out,
            self.records,
            self.outputs
                .iter()
                .filter(|v| v.check == OutputCheck::Ok)
                .count(),
            self.bytes_read,
            self.failed
        ));
        lines.join("\n")
    }

    /// 1 when any output differs from its record.
    pub fn exit_status(&self) -> ExitStatus {
        match self.failed {
            0 => ExitStatus::Ok,
            _ => ExitStatus::DataErrors,
        }
    }
}

/// The output store of `out` (a directory or an object-store prefix), which must hold an eraflow output; a
/// location that does not is a usage error of the flag `key`.
pub(crate) fn existing_output(out: &str, key: &'static str) -> Result<OutputStore, JobError> {
    let loc = Location::parse(out).map_err(|source| JobError::Location { key, source })?;
    OutputStore::existing(&loc).map_err(|e| match e {
        StoreError::NotAnOutput(message) => JobError::Invalid { key, message },
        e => e.into(),
    })
}

/// `eraflow verify --outputs OUT`: reads back every output a completion record of `out` (a local directory or
/// an object-store prefix) names and checks its size and sha256 against the record — the full check a
/// scheduled rerun proves from metadata instead (sizes, modification times, ETags). Outputs are hashed in
/// parallel, streamed (never whole in memory).
pub fn verify_outputs(out: &str) -> Result<OutputsReport, JobError> {
    use rayon::prelude::*;
    let store = existing_output(out, "outputs")?;
    let shown = store.name();
    let records = store.all_records()?;
    let outputs = records
        .par_iter()
        .map(|r| {
            Ok(OutputVerdict {
                source: r.source.clone(),
                dataset: r.dataset.clone(),
                path: r.output.as_ref().map(|o| o.path.clone()),
                check: store.check_output(r)?,
            })
        })
        .collect::<Result<Vec<_>, StoreError>>()?;
    let bytes_read = records
        .iter()
        .zip(&outputs)
        .filter(|(_, v)| v.check == OutputCheck::Ok)
        .filter_map(|(r, _)| r.output.as_ref().map(|o| o.bytes))
        .sum();
    Ok(OutputsReport {
        out: shown,
        records: records.len(),
        failed: outputs.iter().filter(|v| !v.check.ok()).count(),
        bytes_read,
        outputs,
    })
}

/// What `eraflow run` did, stage by stage.
#[derive(Debug, Default)]
pub struct RunOutcome {
    /// The files the synth stage wrote (or found already written: `made` says which).
    pub synthesized: Option<Synthesized>,
    /// Wall-clock seconds the synth stage took (also in the run report).
    pub synth_seconds: Option<f64>,
    /// The verify and export stages' report (absent when the job has neither).
    pub report: Option<RunReport>,
    /// The prune stage, which runs last; its failure does not undo the other stages.
    pub prune: Option<Result<PruneReport, JobError>>,
    /// The report page (`report = true`), written after the run report so that it shows this run; its failure
    /// does not undo the stages either.
    pub page: Option<Result<crate::report::Written, JobError>>,
}

impl RunOutcome {
    /// The worst of the stages: 2 for a prune that could not run, 1 for any failed file or check.
    pub fn exit_status(&self) -> ExitStatus {
        let stages = self
            .report
            .as_ref()
            .map_or(ExitStatus::Ok, |r| r.exit_status());
        let prune = match &self.prune {
            Some(Err(e)) => e.exit_status(),
            _ => ExitStatus::Ok,
        };
        let page = match &self.page {
            Some(Err(e)) => e.exit_status(),
            _ => ExitStatus::Ok,
        };
        stages.max(prune).max(page)
    }
}

/// The output's report page when the job asks for it (`report = true`): `OUT/_eraflow/report.html`, uploaded
/// beside the outputs of an object-store output.
fn write_page(job: &Job) -> Option<Result<crate::report::Written, JobError>> {
    if !job.report {
        return None;
    }
    let out = output_location(job)?;
    Some(crate::report::write(&out, None, &Default::default()).map_err(JobError::from))
}

/// `eraflow run`: the job's stages in order — synth, verify, export, prune — under the output's run lock
/// ([`super::runlock`]), stopping between files when a signal asks ([`crate::util::interrupt`]). The run report
/// (`OUT/_eraflow/runs/<started>-<pid>.json`) records every stage and the run's exit code.
pub fn run(job: &Job) -> Result<RunOutcome, JobError> {
    set_threads(job.threads)?;
    if job.verify.is_none() && job.export.is_none() && job.prune.is_none() {
        return Err(JobError::Invalid {
            key: "stages",
            message: format!(
                "{}: no stages (add [verify], [export] or [prune])",
                job.name
            ),
        });
    }
    let _lock = match &job.out {
        Some(out) => RunLock::acquire(out, job.shard, job.lock)?,
        None => None,
    };
    let mut outcome = RunOutcome::default();
    if let Some(s) = &job.synth {
        let t = Instant::now();
        outcome.synthesized = Some(synth(s, true)?);
        outcome.synth_seconds = Some(t.elapsed().as_secs_f64());
    }
    let inputs = Inputs::list(job)?;
    // Local paths and remote URLs: a signer's network is chosen by file name only.
    let files = inputs.names();
    let mut report = begin_report(&job.name, job.shard.map(|s| s.to_string()), &files);
    report.synth_seconds = outcome.synth_seconds;
    let mut stages = Vec::new();
    if let Some(v) = &job.verify {
        if v.options.senders {
            init_signer(
                v.signature_algorithm,
                job.signer_backend,
                v.options.network.as_ref(),
                &files,
            )?;
        }
        // Results are kept in a local output (a remote one's local folder is only staging).
        let cache = match &job.remote_out {
            None => job.out.clone(),
            Some(_) => None,
        };
        stages.push(Stage::Verify(with_anchors(v, &files)?, cache));
    }
    if let Some(e) = &job.export {
        stages.push(Stage::Export(e.clone()));
    }
    if !stages.is_empty() {
        job.out()?;
        let r = run_inputs(
            &mut report,
            inputs,
            &cache_options(job),
            job.remote_out.as_ref(),
            &stages,
        );
        if let Err(e) = r {
            // The run report is still written (then the staging directory of a remote output removed).
            let _ = finish_run(
                &mut report,
                e.exit_status(),
                job.out()?,
                job.remote_out.as_ref(),
            );
            // The page still shows the run that failed; the run's own error is the one returned.
            let _ = write_page(job);
            return Err(e);
        }
    }
    if job.prune.is_some() && crate::util::interrupt::requested().is_none() {
        outcome.prune = Some(prune(job));
    }
    report.signal = crate::util::interrupt::requested();
    if let Some(out) = &job.out {
        outcome.report = Some(report);
        let status = outcome.exit_status();
        if let Some(r) = outcome.report.as_mut() {
            finish_run(r, status, out, job.remote_out.as_ref())?;
        }
    }
    outcome.page = write_page(job);
    Ok(outcome)
}

/// The hash_tree_root of a BeaconState, with what it took.
#[derive(Debug, Clone)]
pub struct StateRootReport {
    /// The root.
    pub root: [u8; 32],
    /// The state's fork (given, or inferred from its slot).
    pub fork: Fork,
    /// The state's slot.
    pub slot: u64,
    /// Validators in its registry.
    pub validators: usize,
    /// Serialized size.
    pub bytes: usize,
    /// Seconds to map, find and decompress the state.
    pub read_seconds: f64,
    /// Seconds of hash_tree_root.
    pub hash_seconds: f64,
}

/// `eraflow state-root`: the state of an era file, or a raw `.ssz` / `.ssz_snappy` state. The fork is
/// `fork`, else inferred from the state's slot and the network (`network`, else the era file's, else mainnet).
pub fn state_root(
    file: &Path,
    fork: Option<Fork>,
    network: Option<&Network>,
) -> Result<StateRootReport, JobError> {
    let name = file
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let net = match network {
        Some(n) => n.clone(),
        None => {
            let named = ArchiveName::parse_as(ArchiveKind::Era, name).ok();
            Network::resolve(named.as_ref().map_or("mainnet", |n| n.network.as_str()))?
        }
    };
    let io = |source| JobError::Io {
        path: file.to_path_buf(),
        source,
    };
    let ssz_err = |source| JobError::Ssz {
        path: file.to_path_buf(),
        source,
    };
    let t0 = Instant::now();
    let mut dec = crate::formats::era::state_decoder();
    let era;
    let owned: Vec<u8>;
    let ssz: &[u8] = if crate::formats::Holds::of_path(file).state {
        era = crate::formats::era::EraFile::open(file)?;
        let rec = era.state_record()?;
        dec.decompress(rec.data)
            .map_err(|k| FormatError::at(rec.offset, k).in_file(file))?
    } else {
        let data = std::fs::read(file).map_err(io)?;
        owned = if name.ends_with(".ssz_snappy") {
            snap::raw::Decoder::new()
                .decompress_vec(&data)
                .map_err(|e| {
                    FormatError::at(0, FormatErrorKind::Snappy(format!("raw snappy: {e}")))
                        .in_file(file)
                })?
        } else {
            data
        };
        &owned
    };
    let read_seconds = t0.elapsed().as_secs_f64();
    let spec = match fork {
        Some(f) => consensus::Spec::new(f, net.preset()),
        None => consensus::infer_spec(ssz, Kind::State, &net).map_err(ssz_err)?,
    };
    let fork = spec.fork;
    let t1 = Instant::now();
    let state = consensus::BeaconState::new(ssz, spec).map_err(ssz_err)?;
    let root = state.root().map_err(ssz_err)?;
    Ok(StateRootReport {
        root,
        fork,
        slot: state.slot(),
        validators: state.validator_count().unwrap_or(0),
        bytes: ssz.len(),
        read_seconds,
        hash_seconds: t1.elapsed().as_secs_f64(),
    })
}
