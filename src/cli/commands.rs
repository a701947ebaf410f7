//! One function per subcommand: each layers its flags over the defaults into a [`Job`](eraflow::pipeline::Job),
//! calls the library once and prints the typed report it gets back. `main.rs` only parses and dispatches here.

use super::args::{
    BenchArgs, ConvertArgs, ExportArgs, InspectArgs, PlanArgs, PruneArgs, ReportArgs, RunArgs,
    StateRootArgs, SynthArgs, TableCommand, VerifyArgs,
};
use super::flags::Flags;
use super::output::Output;
use eraflow::error::ExitStatus;
use eraflow::pipeline::{self, JobError};
use std::path::Path;

/// `eraflow verify --outputs OUT`: every output an export's records name, read back and hashed.
fn verify_outputs(out: &str, json: bool, stdout: &mut Output) -> Result<ExitStatus, JobError> {
    let r = pipeline::verify_outputs(out)?;
    match json {
        true => {
            for v in &r.outputs {
                stdout.line(serde_json::to_string(v).unwrap_or_default());
            }
        }
        false => stdout.line(r.text()),
    }
    Ok(r.exit_status())
}

/// `eraflow verify`: archives, or (`--outputs`) an export's outputs.
pub fn verify(
    a: VerifyArgs,
    mut f: Flags,
    threads: Option<usize>,
    stdout: &mut Output,
) -> Result<ExitStatus, JobError> {
    if let Some(out) = &a.outputs {
        return verify_outputs(out, a.json, stdout);
    }
    let VerifyArgs {
        json,
        network,
        checksum,
        senders,
        signature_algorithm,
        trusted_states,
        historical_summaries,
        accumulator,
        canonical,
        shard,
        outputs: _,
        fetch,
        paths,
    } = a;
    f.str("shard", shard);
    fetch_flags(&mut f, fetch);
    f.str("verify.trusted_states", trusted_states);
    f.str("verify.historical_summaries", historical_summaries);
    f.str("verify.accumulator", accumulator);
    f.str("name", Some("verify"))
        .str("network", network)
        .list("inputs", &paths);
    f.stage("verify").switch("verify.checksum", checksum, true);
    f.switch("verify.senders", senders, true);
    f.str("verify.signature_algorithm", signature_algorithm);
    let reports = pipeline::verify(&f.job(threads, None, &[])?)?;
    let failed = reports.iter().filter(|r| !r.ok).count();
    for r in &reports {
        match json {
            true => stdout.line(serde_json::to_string(r).unwrap_or_default()),
            false => stdout.line(eraflow::verify::render::verify_lines(r)),
        }
    }
    if !json {
        let n = reports.len();
        stdout.line(format_args!(
            "{n} files, {} verified, {failed} failed",
            n - failed
        ));
    }
    if canonical {
        let summary = eraflow::verify::canonical::summarize(&reports);
        match json {
            true => stdout.line(
                serde_json::to_string(&serde_json::json!({ "canonical": summary }))
                    .unwrap_or_default(),
            ),
            false => stdout.line(eraflow::verify::render::canonical_text(&summary)),
        }
    }
    Ok(eraflow::verify::report::exit_status(&reports))
}

/// `eraflow synth`: deterministic synthetic archives.
pub fn synth(
    a: SynthArgs,
    mut f: Flags,
    threads: Option<usize>,
    stdout: &mut Output,
) -> Result<ExitStatus, JobError> {
    let SynthArgs {
        out,
        kind,
        profile,
        network,
        era,
        fork,
        files,
        blocks,
        validators,
        txs_per_block,
        seed,
        tokens,
    } = a;
    f.str("name", Some("synth")).str("network", network);
    f.path("synth.out", &out)
        .str("synth.kind", kind)
        .str("synth.profile", profile)
        .int("synth.era", era);
    f.str("synth.fork", fork)
        .int("synth.files", files)
        .int("synth.blocks", blocks);
    f.int("synth.validators", validators)
        .int("synth.txs_per_block", txs_per_block);
    f.int("synth.seed", seed)
        .switch("synth.tokens", tokens, true);
    let job = f.job(threads, None, &[])?;
    let synth = job
        .synth
        .as_ref()
        .expect("the synth flags enable the stage");
    for p in pipeline::synth(synth, false)?.paths {
        stdout.line(p.display());
    }
    Ok(ExitStatus::Ok)
}

/// `eraflow export`: verify and export to Parquet.
pub fn export(
    a: ExportArgs,
    mut f: Flags,
    threads: Option<usize>,
    stdout: &mut Output,
) -> Result<ExitStatus, JobError> {
    let ExportArgs {
        out,
        datasets,
        decode,
        no_senders,
        network,
        overwrite,
        verify_outputs,
        clean_stale,
        compression,
        compression_level,
        row_group_size,
        table_format,
        fetch,
        shard,
        json,
        paths,
    } = a;
    f.str("shard", shard);
    fetch_flags(&mut f, fetch);
    f.str("name", Some("export"))
        .str("network", network)
        .list("inputs", &paths)
        .path("out", &out);
    f.stage("export")
        .switch("export.senders", no_senders, false);
    f.switch("export.overwrite", overwrite, true);
    f.switch("export.verify_outputs", verify_outputs, true);
    f.switch("export.clean_stale", clean_stale, true);
    if let Some(d) = &datasets {
        f.list("export.datasets", d);
    }
    if !decode.is_empty() {
        f.list("decode.events", &decode);
    }
    f.str("export.compression", compression)
        .int("export.compression_level", compression_level);
    f.int("export.row_group_size", row_group_size);
    f.str(
        "export.table_format",
        table_format.map(|t| t.name().to_string()),
    );
    let report = pipeline::export(&f.job(threads, None, &[])?)?;
    match json {
        true => stdout.line(serde_json::to_string(&report).unwrap_or_default()),
        false => print_run_report(stdout, &report),
    }
    Ok(report.exit_status())
}

/// `eraflow run PIPELINE`: a pipeline file's stages.
pub fn run(
    a: RunArgs,
    mut f: Flags,
    threads: Option<usize>,
    stdout: &mut Output,
) -> Result<ExitStatus, JobError> {
    let RunArgs {
        pipeline: file,
        sets,
        stages,
        no_wait,
        no_lock,
        json,
        shard,
    } = a;
    f.str("shard", shard);
    f.str("lock", no_wait.then_some("no-wait"))
        .str("lock", no_lock.then_some("none"));
    let mut job = f.job(threads, Some(&file), &sets)?;
    if let Some(names) = &stages {
        job.only_stages(names)?;
    }
    // The synth stage writes its archives before anything else shows: say so first, as it can take a while.
    if let (Some(s), false) = (&job.synth, json) {
        note!(
            "synth: making the synthetic archives in {} (skipped when already made with these options) ...",
            s.out.display()
        );
    }
    let outcome = pipeline::run(&job)?;
    if json {
        let r = outcome.report.as_ref();
        stdout.line(r.map_or("{}".into(), |r| {
            serde_json::to_string(r).unwrap_or_default()
        }));
        return Ok(outcome.exit_status());
    }
    if let Some(s) = &outcome.synthesized {
        let dir = job.synth.as_ref().map_or(Path::new(""), |s| &s.out);
        let took = outcome.synth_seconds.unwrap_or_default();
        match s.made {
            true => note!(
                "synth: {} files made in {} ({took:.1} s)",
                s.len(),
                dir.display()
            ),
            false => note!(
                "synth: {} files in {} already made with these options; none made",
                s.len(),
                dir.display()
            ),
        }
    }
    if let Some(r) = &outcome.report {
        print_run_report(stdout, r);
    }
    match &outcome.prune {
        Some(Ok(p)) => print_prune(stdout, p, None),
        Some(Err(e)) => note!("error: {}", eraflow::error::render(e)),
        None => {}
    }
    match &outcome.page {
        Some(Ok(w)) => note!("report: {}", w.location),
        Some(Err(e)) => note!("error: {}", eraflow::error::render(e)),
        None => {}
    }
    Ok(outcome.exit_status())
}

/// `eraflow plan PIPELINE`: the input files and their shard keys.
pub fn plan(
    a: PlanArgs,
    mut f: Flags,
    threads: Option<usize>,
    stdout: &mut Output,
) -> Result<ExitStatus, JobError> {
    let PlanArgs {
        pipeline: file,
        sets,
        shard,
        json,
    } = a;
    f.str("shard", shard);
    let p = pipeline::plan(&f.job(threads, Some(&file), &sets)?)?;
    match json {
        true => stdout.line(serde_json::to_string_pretty(&p).unwrap_or_default()),
        false => p.files.iter().for_each(|f| stdout.line(f.path.display())),
    }
    Ok(ExitStatus::Ok)
}

/// `eraflow bench`: measured ratios, beside their floors.
pub fn bench(
    a: BenchArgs,
    threads: Option<usize>,
    stdout: &mut Output,
) -> Result<ExitStatus, JobError> {
    let BenchArgs {
        blocks,
        txs_per_block,
        validators,
        runs,
        dir,
        json,
        consensus,
        state_validators,
    } = a;
    let dir = dir.unwrap_or_else(|| {
        std::env::temp_dir().join(format!("eraflow-bench-{}", std::process::id()))
    });
    std::fs::create_dir_all(&dir).map_err(|source| JobError::Io {
        path: dir.clone(),
        source,
    })?;
    pipeline::job::set_threads(threads.unwrap_or(0))?;
    let opts = eraflow::bench::BenchOptions {
        blocks,
        txs_per_block,
        validators,
        runs: runs.max(1),
        state_validators,
        only_consensus: consensus,
    };
    // A bench that cannot measure is a usage or I/O failure; it is not a job's error.
    let report = match eraflow::bench::run(&dir, &opts) {
        Ok(r) => r,
        Err(e) => {
            note!("error: bench: {}", eraflow::error::render(&e));
            return Ok(ExitStatus::Usage);
        }
    };
    if json {
        stdout.line(serde_json::to_string_pretty(&report).unwrap_or_default())
    } else {
        eraflow::bench::print(&report)
    }
    Ok(ExitStatus::Ok)
}

/// `eraflow state-root`: a BeaconState's `hash_tree_root`.
pub fn state_root(
    a: StateRootArgs,
    mut f: Flags,
    threads: Option<usize>,
    stdout: &mut Output,
) -> Result<ExitStatus, JobError> {
    let StateRootArgs {
        file,
        fork,
        network,
    } = a;
    f.str("name", Some("state-root")).str("network", network);
    let job = f.job(threads, None, &[])?;
    pipeline::job::set_threads(job.threads)?;
    let fork = fork
        .map(|f| f.parse())
        .transpose()
        .map_err(|e| JobError::Invalid {
            key: "--fork",
            message: format!("{e}"),
        })?;
    let r = pipeline::state_root(&file, fork, job.network.as_ref())?;
    stdout.line(format_args!("0x{}", hex::encode(r.root)));
    note!(
        "{}: {:?} state at slot {}, {} validators, {} bytes; read {:.3}s, hash_tree_root {:.3}s on {} threads",
        file.display(), r.fork, r.slot, r.validators, r.bytes, r.read_seconds, r.hash_seconds,
        rayon::current_num_threads()
    );
    Ok(ExitStatus::Ok)
}

/// `eraflow convert`: verified execution archives rewritten in the other layout.
pub fn convert(
    a: ConvertArgs,
    mut f: Flags,
    threads: Option<usize>,
    stdout: &mut Output,
) -> Result<ExitStatus, JobError> {
    let ConvertArgs {
        to,
        out,
        profile,
        network,
        era_files,
        accumulator,
        paths,
    } = a;
    f.str("name", Some("convert"))
        .str("network", network)
        .list("inputs", &paths);
    let mut job = f.job(threads, None, &[])?;
    job.convert = Some(eraflow::convert::ConvertOptions {
        to: to.parse().map_err(|e| JobError::Invalid {
            key: "--to",
            message: format!("{e}"),
        })?,
        out,
        profile: profile
            .as_deref()
            .map(pipeline::job::parse_profile)
            .transpose()?,
        network: None,
        era_files: pipeline::job::era_files(&era_files)?,
        accumulator: accumulator
            .map(|p| pipeline::job::accumulator(&p))
            .transpose()?,
    });
    let converted = pipeline::convert(&job)?;
    for c in &converted {
        match &c.output {
            Some(p) => stdout.line(p.display()),
            None => stdout.line(eraflow::verify::render::verify_lines(&c.report)),
        }
    }
    Ok(eraflow::verify::report::exit_status(
        converted.iter().map(|c| &c.report),
    ))
}

/// `eraflow report OUT`: the output's page.
pub fn report(
    a: ReportArgs,
    mut f: Flags,
    threads: Option<usize>,
    stdout: &mut Output,
) -> Result<ExitStatus, JobError> {
    let ReportArgs { out, html, runs } = a;
    f.str("name", Some("report")).str("out", Some(out));
    let mut job = f.job(threads, None, &[])?;
    let mut page = pipeline::job::PageJob {
        html,
        ..Default::default()
    };
    page.options.runs = runs.unwrap_or(page.options.runs);
    job.page = Some(page);
    let w = pipeline::report(&job)?;
    stdout.line(&w.location);
    note!(
        "report: {} ({})",
        w.location,
        eraflow::report::html::bytes(w.bytes)
    );
    Ok(ExitStatus::Ok)
}

/// `eraflow inspect FILE`: one archive summarised.
pub fn inspect(
    a: InspectArgs,
    mut f: Flags,
    threads: Option<usize>,
    stdout: &mut Output,
) -> Result<ExitStatus, JobError> {
    let InspectArgs { file, network } = a;
    f.str("name", Some("inspect")).str("network", network);
    let job = f.job(threads, None, &[])?;
    let r = pipeline::inspect(&file, job.network.as_ref())?;
    stdout.line(eraflow::verify::render::inspect_text(&r));
    Ok(r.exit_status())
}

/// `eraflow prune check DIR [--rebuild PATH...]`.
pub fn prune_check(
    dir: &Path,
    rebuild: Vec<String>,
    fetch: super::args::FetchArgs,
    mut f: Flags,
    threads: Option<usize>,
    stdout: &mut Output,
) -> Result<ExitStatus, JobError> {
    if rebuild.is_empty() {
        let s = pipeline::prune_check(dir)?;
        print_check(stdout, dir, &s);
        return Ok(ExitStatus::Ok);
    }
    fetch_flags(&mut f, fetch);
    f.str("name", Some("prune-check")).list("inputs", &rebuild);
    f.path("prune.out", dir);
    f.set("prune.check", toml::Value::Boolean(false));
    let r = pipeline::prune_rebuild_check(&f.job(threads, None, &[])?, dir)?;
    print_check(stdout, dir, &r.check);
    if r.differences.is_empty() {
        stdout.line(format_args!(
            "OK   {}  equals a manifest built from scratch over the same inputs (every list byte-identical)",
            dir.display()
        ));
        return Ok(ExitStatus::Ok);
    }
    for d in &r.differences {
        stdout.line(format_args!("DIFF {}  {d}", dir.display()));
    }
    Ok(ExitStatus::DataErrors)
}

/// `eraflow prune`: build a manifest.
pub fn prune(
    a: PruneArgs,
    mut f: Flags,
    threads: Option<usize>,
    stdout: &mut Output,
) -> Result<ExitStatus, JobError> {
    let started = std::time::Instant::now();
    f.str("shard", a.shard);
    fetch_flags(&mut f, a.fetch);
    f.str("name", Some("prune"))
        .str("network", a.network)
        .list("inputs", &a.paths);
    if let Some(out) = &a.out {
        f.path("prune.out", out);
    }
    f.int("prune.from_block", a.from_block)
        .int("prune.until_block", a.until_block)
        .int("prune.keep_epochs", a.keep_epochs)
        .int("prune.keep_blocks", a.keep_blocks);
    f.switch("prune.allow_gaps", a.allow_gaps, true)
        .switch("prune.from_scratch", a.from_scratch, true)
        .str("prune.format", a.format);
    f.int("prune.memory_budget", a.memory_budget);
    // `eraflow prune check` is its own command; building does not re-read what it wrote.
    f.set("prune.check", toml::Value::Boolean(false));
    let report = pipeline::prune(&f.job(threads, None, &[])?)?;
    print_prune(stdout, &report, Some(started));
    Ok(ExitStatus::Ok)
}

/// The flags of how remote inputs are fetched.
fn fetch_flags(f: &mut Flags, a: super::args::FetchArgs) {
    f.str(
        "cache_dir",
        a.cache_dir.map(|p| p.to_string_lossy().into_owned()),
    )
    .int("cache_max_bytes", a.cache_max_bytes)
    .switch("keep_cache", a.keep_cache, true)
    .int("download_concurrency", a.download_concurrency);
    if let Some(t) = a.read_timeout {
        f.set("read_timeout", toml::Value::Float(t));
    }
    if !a.http_headers.is_empty() {
        f.list("http_headers", &a.http_headers);
    }
}

fn print_run_report(out: &mut Output, r: &pipeline::report::RunReport) {
    for s in &r.stages {
        out.line(s);
    }
    if let Some(p) = &r.path {
        note!("run report: {}", p.display());
    }
}

fn print_prune(out: &mut Output, p: &pipeline::PruneReport, started: Option<std::time::Instant>) {
    let (s, m) = (&p.summary, &p.summary.manifest);
    let reference = m.window.as_ref().map(|w| w.reference_file.as_str());
    for f in s.skipped.iter().filter(|f| Some(f.as_str()) != reference) {
        note!("note: {f} holds no block of the range; not read");
    }
    if let Some(w) = &m.window {
        let kept = w.window().map_or("the window".into(), |w| w.describe());
        note!(
            "note: the node keeps {kept} from block {}: counted back from block {} of {} (verified)",
            w.first_kept_block,
            w.reference_block,
            w.reference_file
        );
    }
    if let Some(last) = s.extended {
        note!("note: extended the earlier manifest (through block {last}): only later blocks were read");
    }
    note!(
        "note: read {} archive(s){}{}",
        s.read.len(),
        if s.read.is_empty() { "" } else { ": " },
        s.read.join(", ")
    );
    let took = started.map_or(String::new(), |t| {
        format!(", {:.1}s", t.elapsed().as_secs_f64())
    });
    // The process's peak so far (Linux): what a prune worker needs, beside the archive pages it maps.
    let rss = eraflow::util::memory::peak_rss_bytes().map_or(String::new(), |b| {
        format!(", peak RSS {:.1} MiB", b as f64 / (1u64 << 20) as f64)
    });
    out.line(format_args!(
        "OK   {}  {} blocks {}..={}  {} transactions  {} sources  {} gaps  ({} sort runs spilled{took}{rss})",
        s.out.display(), m.totals.blocks, m.range.first, m.range.last, m.totals.transactions,
        m.sources.len(), m.gaps.len(), s.sort.runs_spilled,
    ));
    if let Some(c) = &p.check {
        print_check(out, &s.out, c);
    }
}

fn print_check(out: &mut Output, dir: &Path, s: &eraflow::prune::check::CheckSummary) {
    out.line(format_args!(
        "OK   {}  {} files consistent: {} blocks, {} transactions",
        dir.display(),
        s.files_checked,
        s.manifest.totals.blocks,
        s.manifest.totals.transactions
    ));
}

/// `eraflow table check|optimize|vacuum OUT`: the upkeep of a Delta output's tables.
pub fn table(command: TableCommand, stdout: &mut Output) -> Result<ExitStatus, JobError> {
    use eraflow::pipeline::table;
    match command {
        TableCommand::Check { out, json } => {
            let verdicts = table::check(&out)?;
            for v in &verdicts {
                match json {
                    true => stdout.line(serde_json::to_string(v).unwrap_or_default()),
                    false => {
                        let word = if v.ok() { "OK  " } else { "FAIL" };
                        stdout.line(format_args!(
                            "{word} {}  version {}, {} files",
                            v.dataset, v.version, v.files
                        ));
                        for f in &v.missing_files {
                            stdout.line(format_args!("     in the log, not in the storage: {f}"));
                        }
                        for r in &v.unlisted_records {
                            stdout.line(format_args!("     a record's file not in the table: {r}"));
                        }
                        for f in &v.unrecorded_files {
                            stdout.line(format_args!(
                                "     in the table, named by no record (the next export records it): {f}"
                            ));
                        }
                    }
                }
            }
            let failed = verdicts.iter().filter(|v| !v.ok()).count();
            note!("table check: {} tables, {failed} failed", verdicts.len());
            Ok(match failed {
                0 => ExitStatus::Ok,
                _ => ExitStatus::DataErrors,
            })
        }
        TableCommand::Optimize {
            out,
            target_mb,
            compression,
            json,
        } => {
            let mut parquet = eraflow::sink::parquet::ParquetOptions::default();
            if let Some(c) = compression {
                parquet.compression = c.parse().map_err(JobError::Parquet)?;
            }
            let target = target_mb.map_or(table::DEFAULT_TARGET_BYTES, |m| m << 20);
            for r in table::optimize(&out, target, &parquet)? {
                match json {
                    true => stdout.line(serde_json::to_string(&r).unwrap_or_default()),
                    false => stdout.line(format_args!(
                        "{}: {} files compacted into {} ({} rows, {} bytes read, {} written)",
                        r.dataset,
                        r.files_removed,
                        r.files_added,
                        r.rows,
                        r.bytes_read,
                        r.bytes_written
                    )),
                }
            }
            Ok(ExitStatus::Ok)
        }
        TableCommand::Vacuum {
            out,
            retain,
            dry_run,
            json,
        } => {
            for r in table::vacuum(&out, retain.unwrap_or(168), dry_run)? {
                match json {
                    true => stdout.line(serde_json::to_string(&r).unwrap_or_default()),
                    false => stdout.line(format_args!(
                        "{}: {} files {}",
                        r.dataset,
                        r.files.len(),
                        if dry_run { "to delete" } else { "deleted" }
                    )),
                }
            }
            Ok(ExitStatus::Ok)
        }
    }
}
