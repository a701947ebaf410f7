//! Running stages over a set of input files, with progress, a summary and the JSON run report.

use super::export::{self, ExportOptions};
use super::report::{peak_rss_bytes, FileOutcome, Progress, RunReport, StageReport};
use crate::formats::era1::Era1File;
use crate::verify::{verify_archives, VerifyOptions};
use std::path::{Path, PathBuf};

/// A stage of a job.
#[derive(Clone)]
pub enum Stage {
    /// Verify every file (and chains across files).
    Verify(VerifyOptions),
    /// Verify and export to Parquet.
    Export(ExportOptions),
}

/// How a job ended, as a process exit code: 0 ok, 1 data or verification errors, 2 usage or I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    Ok,
    DataErrors,
    Usage,
}

impl From<ExitStatus> for u8 {
    fn from(s: ExitStatus) -> u8 {
        match s {
            ExitStatus::Ok => 0,
            ExitStatus::DataErrors => 1,
            ExitStatus::Usage => 2,
        }
    }
}

/// Blocks for the progress bar: era1 block counts, and the non-empty slots of era files.
fn total_blocks(files: &[PathBuf]) -> u64 {
    files
        .iter()
        .map(|p| match crate::inputs::ArchiveKind::of(p) {
            Some(crate::inputs::ArchiveKind::Era) => crate::formats::era::EraFile::open(p)
                .ok()
                .and_then(|f| {
                    f.block_index()
                        .map(|i| i.offsets.iter().flatten().count() as u64)
                })
                .unwrap_or(0),
            _ => Era1File::open(p).map(|f| f.block_count()).unwrap_or(0),
        })
        .sum()
}

/// Runs `stages` over `files`, prints a summary, writes the run report under `out`, returns the exit status.
pub fn run_stages(files: &[PathBuf], out: &Path, stages: &[Stage]) -> ExitStatus {
    let started_at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let t0 = std::time::Instant::now();
    let mut report = RunReport {
        eraflow_version: env!("CARGO_PKG_VERSION").into(),
        started_at,
        threads: rayon::current_num_threads(),
        inputs: files.iter().map(|p| p.display().to_string()).collect(),
        ..Default::default()
    };
    let blocks = total_blocks(files);
    let mut status = ExitStatus::Ok;
    for stage in stages {
        let (name, outcomes) = match stage {
            Stage::Verify(opts) => {
                let progress = Progress::new("verify", files.len(), blocks);
                let reports = verify_archives(files, opts);
                let outcomes: Vec<FileOutcome> = reports
                    .into_iter()
                    .map(|r| {
                        progress.advance(r.blocks, r.transactions);
                        let o = FileOutcome {
                            file: r.file,
                            ok: r.ok,
                            blocks: r.blocks,
                            transactions: r.transactions,
                            logs: r.logs,
                            bytes_in: r.file_size,
                            errors: r.errors,
                            ..Default::default()
                        };
                        progress.file_done(&o);
                        o
                    })
                    .collect();
                progress.finish();
                ("verify", (outcomes, progress.elapsed()))
            }
            Stage::Export(opts) => {
                let progress = Progress::new("export", files.len(), blocks);
                let r = export::export(files, opts, &progress);
                progress.finish();
                match r {
                    Ok(o) => ("export", (o, progress.elapsed())),
                    Err(e) => {
                        eprintln!("error: {e}");
                        return ExitStatus::Usage;
                    }
                }
            }
        };
        let (outcomes, secs) = outcomes;
        let stage_report = StageReport::new(name, secs, outcomes);
        print_summary(&stage_report);
        if stage_report.failed_files > 0 {
            status = ExitStatus::DataErrors;
        }
        report.stages.push(stage_report);
    }
    report.seconds = t0.elapsed().as_secs_f64();
    report.peak_rss_bytes = peak_rss_bytes();
    report.ok = status == ExitStatus::Ok;
    match report.save(out) {
        Ok(p) => eprintln!("run report: {}", p.display()),
        Err(e) => {
            eprintln!("error: writing the run report: {e}");
            return ExitStatus::Usage;
        }
    }
    status
}

fn print_summary(s: &StageReport) {
    let skipped = s.files.iter().filter(|f| f.skipped).count();
    println!(
        "{}: {} files ({} done, {} skipped as complete, {} failed), {} blocks, {} transactions in {:.2}s ({:.0} blocks/s, {:.1} MB/s)",
        s.stage,
        s.files.len(),
        s.files.len() - skipped - s.failed_files,
        skipped,
        s.failed_files,
        s.blocks,
        s.transactions,
        s.seconds,
        s.blocks_per_second,
        s.megabytes_per_second
    );
    for f in s.files.iter().filter(|f| !f.ok) {
        println!("  FAILED {}", f.file);
        for e in f.errors.iter().take(10) {
            println!("    {e}");
        }
    }
}
