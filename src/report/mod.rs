//! `eraflow report`: one self-contained HTML page of an output directory (local or an object-store prefix):
//! what it holds (coverage per network and archive kind, gaps and failed files), how its runs went (the last run
//! reports), the chain as charts aggregated from its Parquet (transactions, gas, transaction types, blob gas and
//! withdrawals per UTC day; validators and effective balance per era) and its datasets (rows, bytes, files, row
//! groups). No network and no JavaScript are needed to read it: charts are inline SVG.
//!
//! The page reads only what the output records: `_eraflow/manifest.json` (which sources, which files), the run
//! reports under `_eraflow/runs/`, and the Parquet files the manifest lists, in one streaming pass that decodes
//! only the columns a chart needs, row group by row group ([`aggregate`]). Only aggregates reach the page, never
//! rows, so its size depends on the days and eras covered, not on the rows. The same output gives the same bytes:
//! everything is sorted, and the only times shown are the run reports' own.
//!
//! Layers: `source` (reading an output, local or remote) <- `aggregate` (Parquet to per-day and per-era sums)
//! <- `charts` (SVG) <- `html` (the page). [`build`] and [`write()`] are the entry points; `eraflow run` calls
//! [`write()`] at the end of a run when the pipeline says `report = true`.

pub mod aggregate;
pub mod charts;
pub mod html;
pub mod runs;
pub mod source;

use crate::store::remote::RemoteError;
use crate::store::url::{Location, LocationError};
use std::path::{Path, PathBuf};

/// The page's place under an output: `OUT/_eraflow/report.html`.
pub const REPORT_REL: &str = "_eraflow/report.html";

/// How many run reports the page shows by default (the newest).
pub const DEFAULT_RUNS: usize = 20;

/// Why a report could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The output location does not parse.
    #[error(transparent)]
    Location(LocationError),
    /// The output directory does not exist.
    #[error("{}: no such output directory", .0.display())]
    NoOutput(PathBuf),
    /// The object store could not be read or written.
    #[error(transparent)]
    Remote(#[from] RemoteError),
    /// A local file could not be read or written.
    #[error("{}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

/// What to put on the page.
#[derive(Debug, Clone)]
pub struct ReportOptions {
    /// The newest run reports shown.
    pub runs: usize,
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions { runs: DEFAULT_RUNS }
    }
}

/// Where a page was written.
#[derive(Debug, Clone)]
pub struct Written {
    /// The page: a local path, or the redacted URL of the object.
    pub location: String,
    /// Its size in bytes.
    pub bytes: u64,
}

/// Parses an output location as every command does (`OUT` or `s3://bucket/prefix`).
pub fn location(out: &str) -> Result<Location, ReportError> {
    Location::parse(out).map_err(ReportError::Location)
}

/// The page of the output at `out`, as HTML.
pub fn build(out: &Location, opts: &ReportOptions) -> Result<String, ReportError> {
    let src = source::Output::open(out)?;
    let manifest = src.manifest()?;
    let runs = runs::load(&src, opts.runs)?;
    let chain = aggregate::aggregate(&src, manifest.get())?;
    Ok(html::page(&html::PageInput {
        title: out_name(out),
        manifest: &manifest,
        runs: &runs,
        chain: &chain,
    }))
}

/// Builds the page of `out` and writes it to `html` (a local file), or, when `None`, to
/// `OUT/_eraflow/report.html` (uploaded for an object-store output). Written to a temporary name, synced and
/// renamed (uploaded whole), so a reader never sees half a page.
pub fn write(
    out: &Location,
    html: Option<&Path>,
    opts: &ReportOptions,
) -> Result<Written, ReportError> {
    let page = build(out, opts)?;
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ReportError::Io { path, source }
    };
    let bytes = page.len() as u64;
    match (html, out) {
        (Some(p), _) => {
            crate::util::fs::write_atomic(p, page.as_bytes()).map_err(io(p))?;
            Ok(Written {
                location: p.display().to_string(),
                bytes,
            })
        }
        (None, _) => {
            let store = crate::store::output::OutputStore::at(out).map_err(source::report_error)?;
            let put = store.storage().put(REPORT_REL, page.into_bytes());
            put.map_err(source::report_error)?;
            Ok(Written {
                location: store.location(REPORT_REL),
                bytes,
            })
        }
    }
}

/// The output as the page names it: a local directory's path, or the redacted URL.
fn out_name(out: &Location) -> String {
    match out {
        Location::Local(p) => p.display().to_string(),
        Location::Remote(u) => u.redacted(),
    }
}
