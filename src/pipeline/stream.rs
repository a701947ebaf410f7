//! A job's inputs, local and remote, as one stream, and the one runner of the stages over it.
//!
//! Local inputs arrive first, as one batch that stays on disk the whole run: the verify stage checks them in
//! parallel (era files first), the export stage takes them one by one, and the checks across files read them
//! where they need to. Remote inputs (http(s) mirrors and files, object-store prefixes) then arrive one at a
//! time through a bounded cache: a prefetcher ([`crate::store::cache`]) fetches them ahead of the workers while
//! each goes once through every stage (verify, then export) and leaves the cache. Disk and memory then stay
//! bounded whatever the size of the mirror, and no file is fetched twice. Remote sources whose completion
//! records prove every dataset complete are skipped without fetching them (an export-only job without
//! `--overwrite`; a verify stage must read every file). `run`, `export`, `verify` and `prune` each have this
//! one runner, whatever their inputs are.

use super::job::{Job, JobError};
use super::report::{RunReport, StageReport};
use super::run::{outcome_of, Stage};
use super::shard::Shard;
use crate::export::progress::{FileOutcome, OutcomeError, Progress};
use crate::export::{ExportOptions, Exporter};
use crate::formats::Archive;
use crate::store::cache::{CacheOptions, Prefetcher};
use crate::store::fetch::{Downloads, FetchSettings, Remote, RemoteFile};
use crate::store::url::{Location, RemoteUrl};
use crate::util::memory::peak_rss_bytes;
use crate::verify::verify_one;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// A job's inputs: local files expanded (directories, globs), remote locations listed, the job's shard
/// applied to both by file name.
pub struct Inputs {
    /// Local files, in order.
    pub local: Vec<PathBuf>,
    remotes: Vec<Remote>,
    /// Remote files, each with the index of its store in `remotes`, in listing order.
    remote: Vec<(usize, RemoteFile)>,
}

impl Inputs {
    /// Expands and lists the job's inputs. A location that cannot be listed, or that lists a name that is not
    /// a plain era/era1 file name, fails the job; nothing is fetched yet.
    pub fn list(job: &Job) -> Result<Inputs, JobError> {
        Inputs::of(&job.inputs, job.shard, &job.fetch.settings())
    }

    /// [`Inputs::list`] for inputs given as strings (paths, directories, globs, URLs), a shard, and how
    /// remote locations are read. A signal ([`crate::util::interrupt`]) stops a listing under way.
    pub fn of(
        given: &[String],
        shard: Option<Shard>,
        settings: &FetchSettings,
    ) -> Result<Inputs, JobError> {
        let remote_urls: Vec<RemoteUrl> = given
            .iter()
            .filter_map(|i| match Location::parse(i) {
                Ok(Location::Remote(u)) => Some(u),
                _ => None,
            })
            .collect();
        let local: Vec<String> = given
            .iter()
            .filter(|i| !matches!(Location::parse(i), Ok(Location::Remote(_))))
            .cloned()
            .collect();
        let mut inputs = Inputs {
            // No local inputs must not mean "expand nothing" (an error for an empty input list).
            local: match !local.is_empty() || remote_urls.is_empty() {
                true => {
                    let files = crate::inputs::expand(&local)?;
                    match shard {
                        Some(s) => s.select(files),
                        None => files,
                    }
                }
                false => Vec::new(),
            },
            remotes: Vec::new(),
            remote: Vec::new(),
        };
        for u in remote_urls {
            let store = Remote::open(&u, settings).map_err(JobError::Fetch)?;
            let i = inputs.remotes.len();
            let stop = || crate::util::interrupt::requested().is_some();
            for f in store.list(&stop).map_err(JobError::Fetch)? {
                if shard.is_some_and(|s| !s.contains(Path::new(&f.name))) {
                    continue;
                }
                inputs.remote.push((i, f));
            }
            inputs.remotes.push(store);
        }
        Ok(inputs)
    }

    /// Every input as named in reports: local paths, then remote URLs (redacted). Their file names are the
    /// archive names, which is all a signer's network is chosen by.
    pub fn names(&self) -> Vec<PathBuf> {
        self.local
            .iter()
            .cloned()
            .chain(self.remote.iter().map(|(_, f)| PathBuf::from(&f.url)))
            .collect()
    }
}

/// Runs `stages` over `inputs` into `report` (see the module docs); `remote_out` is the object-store output
/// when there is one. Files that fail are in the report; an error means a stage could not run at all.
pub fn run_inputs(
    report: &mut RunReport,
    inputs: Inputs,
    cache: &CacheOptions,
    remote_out: Option<&RemoteUrl>,
    stages: &[Stage],
) -> Result<(), JobError> {
    Streamed::new(&inputs, remote_out, stages, true)?.run(report, inputs, cache, stages)
}

/// Exports `inputs` (local paths and remote URLs) into `opts.out` as `eraflow export` does, remote files
/// streamed through the cache, with no progress shown: for library callers (`eraflow bench`). One outcome
/// per input file.
pub fn export_inputs(
    inputs: &[String],
    opts: &ExportOptions,
    cache: &CacheOptions,
) -> Result<Vec<FileOutcome>, JobError> {
    let inputs = Inputs::of(inputs, None, &FetchSettings::default())?;
    let stages = [Stage::Export(opts.clone())];
    let mut report = RunReport::default();
    Streamed::new(&inputs, None, &stages, false)?.run(&mut report, inputs, cache, &stages)?;
    Ok(report.stages.pop().map(|s| s.files).unwrap_or_default())
}

/// `eraflow verify`: every file verified as it arrives (local files as one batch), then the checks across
/// files ([`crate::verify::link`]); one report per file, remote ones named by their URL, execution files first,
/// then era files, then those that could not be fetched (failed, naming why).
pub fn verify_inputs(
    inputs: Inputs,
    opts: &crate::verify::VerifyOptions,
    cache: &CacheOptions,
) -> Result<Vec<crate::verify::report::FileReport>, JobError> {
    use crate::verify::report::{FileReport, ReportError};
    let stages = [Stage::Verify(opts.clone(), None)];
    let mut s = Streamed::new(&inputs, None, &stages, false)?;
    s.stream(inputs, cache)?;
    let mut reports = s.link(opts);
    for f in &s.failed {
        let kind =
            crate::formats::ArchiveKind::of(Path::new(&f.file)).map_or("era1", |k| k.extension());
        let mut r = FileReport::failed(
            Path::new(&f.file),
            kind,
            ReportError::Check(crate::error::render(&f.errors[0])),
        );
        for e in &f.errors[1..] {
            r.error(ReportError::Check(crate::error::render(e)));
        }
        reports.push(r);
    }
    Ok(reports)
}

/// `eraflow prune` over its inputs: local files are read where they are; each remote file's index is read
/// from a skeleton (its first and last bytes at their offsets in a sparse file of its size, in the cache
/// folder) to plan the manifest, then the files the plan selects are fetched whole through the cache, in plan
/// order, as the build reaches them, and leave it once verified.
pub fn prune_inputs(
    inputs: Inputs,
    out: &Path,
    opts: &crate::prune::PruneOptions,
    cache: &CacheOptions,
) -> Result<crate::prune::PruneSummary, JobError> {
    let mut source = FetchedInputs {
        skeletons: std::collections::HashMap::new(),
        remotes: None,
        cache: cache.clone(),
        prefetch: None,
    };
    if inputs.remote.is_empty() {
        // Nothing to fetch: no cache folder is made.
        return Ok(crate::prune::run_from(
            &inputs.local,
            out,
            opts,
            &mut source,
        )?);
    }
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| JobError::Io { path, source }
    };
    std::fs::create_dir_all(&cache.dir).map_err(io(&cache.dir))?;
    crate::util::fs::remove_dead_temporaries(&cache.dir);
    // Named as a temporary of this process: removed by a later run if this one is killed.
    let dir = cache
        .dir
        .join(format!(".skeletons.{}-0.tmp", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(io(&dir))?;
    let result = (|| {
        let dl = Downloads::new(1, vec![crate::util::interrupt::flag()]);
        let mut paths = inputs.local.clone();
        for (i, f) in inputs.remote {
            let p = dir.join(&f.name);
            inputs.remotes[i]
                .skeleton(&f, &p, &dl)
                .map_err(JobError::Fetch)?;
            paths.push(p.clone());
            source.skeletons.insert(p, (i, f));
        }
        source.remotes = Some(Arc::new(inputs.remotes));
        Ok(crate::prune::run_from(&paths, out, opts, &mut source)?)
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// The full copies of a prune's remote inputs, fetched in plan order.
struct FetchedInputs {
    /// The remote file each skeleton stands for, with the index of its store in `remotes`.
    skeletons: std::collections::HashMap<PathBuf, (usize, RemoteFile)>,
    /// Shared by each queue [`crate::prune::InputSource::planned`] starts.
    remotes: Option<Arc<Vec<Remote>>>,
    cache: CacheOptions,
    prefetch: Option<Prefetcher>,
}

impl crate::prune::InputSource for FetchedInputs {
    fn planned(&mut self, paths: &[PathBuf]) -> Result<(), crate::prune::PruneError> {
        // Only the selected remote files, in the order the build takes them; a new queue replaces the last
        // (whose downloads stop when it is dropped).
        let Some(remotes) = self.remotes.clone() else {
            return Ok(()); // local inputs only
        };
        self.prefetch = None;
        let queue: Vec<(usize, RemoteFile)> = paths
            .iter()
            .filter_map(|p| self.skeletons.get(p).cloned())
            .collect();
        let prefetch = Prefetcher::start(
            remotes,
            queue,
            &self.cache,
            Some(crate::util::interrupt::flag()),
        )
        .map_err(|source| crate::prune::PruneError::Io {
            path: self.cache.dir.display().to_string(),
            source,
        })?;
        self.prefetch = Some(prefetch);
        Ok(())
    }

    fn open(&mut self, path: &Path) -> Result<crate::prune::Held, crate::prune::PruneError> {
        let Some((_, want)) = self.skeletons.get(path) else {
            return Ok(crate::prune::Held::local(path));
        };
        let failed = |e: String| crate::prune::PruneError::Unverified {
            file: want.name.clone(),
            errors: vec![crate::verify::report::ReportError::Check(e)],
        };
        let fetched = self
            .prefetch
            .as_mut()
            .and_then(Prefetcher::next_file)
            .ok_or_else(|| failed(format!("{}: fetch stopped: the run is ending", want.url)))?;
        if fetched.file.name != want.name {
            return Err(failed(format!(
                "{}: fetched out of plan order ({} came)",
                want.url, fetched.file.name
            )));
        }
        match fetched.result {
            Ok(local) => {
                let path = local.path().to_path_buf();
                Ok(crate::prune::Held::guarded(&path, Box::new(local)))
            }
            Err(e) => Err(failed(crate::error::render(&e))),
        }
    }
}

/// The stages of a run, and what they produced so far.
struct Streamed<'a> {
    verify: Option<&'a crate::verify::VerifyOptions>,
    /// The output directory whose kept reports spare local files a second verification.
    verify_cache: Option<&'a Path>,
    exporter: Option<Exporter<'a>>,
    export: Option<&'a ExportOptions>,
    /// Whether outputs go to an object store (a local output's files no record lists are reported at the end).
    remote_out: bool,
    started: std::time::SystemTime,
    verify_progress: Progress,
    export_progress: Progress,
    verified: Vec<crate::verify::Verified>,
    exported: Vec<FileOutcome>,
    /// Inputs that failed before any stage could see them (not fetched, or not proven complete).
    failed: Vec<FileOutcome>,
    /// A fetched file's cache path and its URL: reports name the URL.
    urls: Vec<(String, String)>,
    /// The local inputs: on disk until the end, so the checks across files can read them.
    on_disk: std::collections::HashSet<String>,
    verify_seconds: f64,
    export_seconds: f64,
}

impl<'a> Streamed<'a> {
    fn new(
        inputs: &Inputs,
        remote_out: Option<&RemoteUrl>,
        stages: &'a [Stage],
        show: bool,
    ) -> Result<Streamed<'a>, JobError> {
        let (verify, verify_cache) = stages
            .iter()
            .find_map(|s| match s {
                Stage::Verify(o, cache) => Some((Some(o), cache.as_deref())),
                Stage::Export(_) => None,
            })
            .unwrap_or((None, None));
        let export = stages.iter().find_map(|s| match s {
            Stage::Export(o) => Some(o),
            Stage::Verify(..) => None,
        });
        let names = inputs.names();
        let started = std::time::SystemTime::now();
        let exporter = export
            .map(|o| Exporter::new(o, remote_out, &names))
            .transpose()?;
        // Blocks of remote files are counted as they arrive.
        let files = names.len();
        let local_blocks: u64 = inputs
            .local
            .iter()
            .map(|p| Archive::open(p).map_or(0, |a| a.block_count()))
            .sum();
        let bar = |stage: &str, shown: bool| match shown && show {
            true => Progress::new(stage, files, local_blocks),
            false => Progress::hidden(),
        };
        Ok(Streamed {
            verify,
            verify_cache,
            verify_progress: bar("verify", verify.is_some()),
            export_progress: bar("export", exporter.is_some()),
            exporter,
            export,
            remote_out: remote_out.is_some(),
            started,
            verified: Vec::new(),
            exported: Vec::new(),
            failed: Vec::new(),
            urls: Vec::new(),
            on_disk: Default::default(),
            verify_seconds: 0.0,
            export_seconds: 0.0,
        })
    }

    fn stop_requested() -> bool {
        crate::util::interrupt::requested().is_some()
    }

    /// Every stage over the local inputs: verified together (in parallel, with the output's kept reports),
    /// then exported one by one.
    fn local(&mut self, paths: &[PathBuf]) {
        self.on_disk
            .extend(paths.iter().map(|p| p.display().to_string()));
        if let Some(opts) = self.verify {
            let t = Instant::now();
            let stop = Self::stop_requested;
            let kept = self
                .verify_cache
                .map(|out| super::verify_cache::VerifyCache::new(out, opts));
            let cache = kept.as_ref().map(|c| c as &dyn crate::verify::ReportCache);
            let verified = crate::verify::verify_batch(paths, opts, &stop, cache);
            self.verify_seconds += t.elapsed().as_secs_f64();
            for (r, _) in &verified {
                self.verify_progress.advance(r.blocks, r.transactions);
                self.verify_progress.file_done(&outcome_of(r.clone()));
            }
            self.verified.extend(verified);
        }
        if let Some(x) = &self.exporter {
            let t = Instant::now();
            for p in paths {
                if Self::stop_requested() {
                    break; // a signal asked the run to stop: no new file
                }
                let o = x.file(p, &self.export_progress);
                self.export_progress.file_done(&o);
                self.exported.push(o);
            }
            self.export_seconds += t.elapsed().as_secs_f64();
        }
    }

    /// Every stage over one remote file fetched into the cache, named by `url`.
    fn fetched(&mut self, path: &Path, url: &str) {
        if let Some(opts) = self.verify {
            let t = Instant::now();
            let (r, parent) = verify_one(path, opts);
            self.verify_seconds += t.elapsed().as_secs_f64();
            self.verify_progress.advance(r.blocks, r.transactions);
            let mut o = outcome_of(r.clone());
            o.file = url.to_string();
            self.verify_progress.file_done(&o);
            self.verified.push((r, parent));
        }
        if let Some(x) = &self.exporter {
            let t = Instant::now();
            let mut o = x.fetched_file(path, &self.export_progress);
            self.export_seconds += t.elapsed().as_secs_f64();
            o.file = url.to_string();
            self.export_progress.file_done(&o);
            self.exported.push(o);
        }
        self.urls
            .push((path.display().to_string(), url.to_string()));
    }

    fn failed(&mut self, url: &str, error: OutcomeError) {
        let o = FileOutcome {
            file: url.to_string(),
            errors: vec![error],
            ..Default::default()
        };
        self.export_progress.file_done(&o);
        self.failed.push(o);
    }

    fn run(
        mut self,
        report: &mut RunReport,
        inputs: Inputs,
        cache: &CacheOptions,
        stages: &[Stage],
    ) -> Result<(), JobError> {
        let t0 = Instant::now();
        self.stream(inputs, cache)?;
        self.finish(report, stages, t0)
    }

    /// The local inputs, then the remote ones as they arrive in the cache (sources already complete skipped
    /// without fetching), through every stage.
    fn stream(&mut self, inputs: Inputs, cache: &CacheOptions) -> Result<(), JobError> {
        self.local(&inputs.local);
        // Sources already complete are skipped before anything is fetched.
        let mut queue = Vec::with_capacity(inputs.remote.len());
        for (i, f) in inputs.remote {
            let skip = match (&self.exporter, self.verify) {
                (Some(x), None) => x.complete_by_name(&f.name, f.sha256.as_deref()),
                _ => Ok(None),
            };
            match skip {
                Ok(Some(mut o)) => {
                    o.file = f.url.clone();
                    self.export_progress.file_done(&o);
                    self.exported.push(o);
                }
                Ok(None) => queue.push((i, f)),
                Err(e) => self.failed(&f.url, OutcomeError::Store(Arc::new(e))),
            }
        }
        if !queue.is_empty() && !Self::stop_requested() {
            // A signal stops the downloads at once, not only between files.
            let interrupt = Some(crate::util::interrupt::flag());
            let mut prefetch = Prefetcher::start(Arc::new(inputs.remotes), queue, cache, interrupt)
                .map_err(|source| JobError::Io {
                    path: cache.dir.clone(),
                    source,
                })?;
            while let Some(fetched) = prefetch.next_file() {
                if Self::stop_requested() {
                    break;
                }
                match fetched.result {
                    Ok(local) => {
                        let blocks = Archive::open(local.path()).map_or(0, |a| a.block_count());
                        self.verify_progress.add_total(blocks);
                        self.export_progress.add_total(blocks);
                        self.fetched(local.path(), &fetched.file.url);
                        // `local` is dropped here: removed from the cache (unless kept), its room given back.
                    }
                    Err(e) => self.failed(&fetched.file.url, OutcomeError::Fetch(Arc::new(e))),
                }
            }
        }
        self.verify_progress.finish();
        self.export_progress.finish();
        Ok(())
    }

    /// The checks across every verified file, fetched files named by their URL (in what the checks say too).
    fn link(
        &mut self,
        opts: &crate::verify::VerifyOptions,
    ) -> Vec<crate::verify::report::FileReport> {
        let mut verified = std::mem::take(&mut self.verified);
        for (r, _) in &mut verified {
            if let Some((_, u)) = self.urls.iter().find(|(p, _)| *p == r.file) {
                r.file = u.clone();
            }
        }
        let on_disk = |f: &str| self.on_disk.contains(f);
        crate::verify::link(verified, opts, &on_disk)
    }

    /// The stages' reports into `report`, after the manifest is rebuilt.
    fn finish(
        mut self,
        report: &mut RunReport,
        stages: &[Stage],
        t0: Instant,
    ) -> Result<(), JobError> {
        let mut stale = None;
        if let Some(x) = self.exporter.take() {
            x.finish()?;
            if let (Some(opts), false) = (self.export, self.remote_out) {
                stale = Some(crate::export::stale_outputs(opts, self.started));
            }
        }
        let verified = match self.verify {
            Some(opts) => self.link(opts),
            None => Vec::new(),
        };
        for stage in stages {
            let (name, seconds, mut outcomes) = match stage {
                Stage::Verify(..) => (
                    "verify",
                    self.verify_seconds,
                    verified.iter().cloned().map(outcome_of).collect(),
                ),
                Stage::Export(_) => (
                    "export",
                    self.export_seconds,
                    std::mem::take(&mut self.exported),
                ),
            };
            outcomes.extend(self.failed.iter().cloned());
            let mut stage = StageReport::new(name, seconds, outcomes);
            if name == "export" {
                if let Some((paths, removed)) = stale.take() {
                    (stage.stale_outputs, stage.stale_removed) = (paths, removed);
                }
            }
            report.stages.push(stage);
        }
        report.signal = crate::util::interrupt::requested();
        report.seconds = t0.elapsed().as_secs_f64();
        report.peak_rss_bytes = peak_rss_bytes();
        report.ok = report.signal.is_none() && report.stages.iter().all(|s| s.failed_files == 0);
        Ok(())
    }
}
