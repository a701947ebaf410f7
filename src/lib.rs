//! eraflow: verify Ethereum chain archives (era1, era), export them to Parquet, and build prune manifests.
//!
//! Layers depend one way, left to right (a module uses only those on its left, and `util` and `error`, which
//! sit below everything):
//!
//! ```text
//! formats -> execution / consensus -> verify -> datasets -> sink / store -> export, convert, prune -> pipeline
//! (bytes)    (typed views, roots)     (checks)   (arrow)      (outputs)       (the jobs' work)         (jobs)
//!
//!   crypto (keccak, sha256, the one signature algorithm) and network (presets) serve the middle layers;
//!   canonical (trusted anchors, Portal header proofs) sits below verify, which reports on it;
//!   report (the output's HTML page) reads what sink and store wrote, and pipeline's `run` calls it;
//!   synth writes archives with the formats' writers; bench and the command line (main.rs) sit on top.
//! ```
//!
//! The command line is a thin layer over [`pipeline`]: a typed [`pipeline::Job`] (layered from
//! `configs/default.toml`, a pipeline file, `--set` overrides and flags) goes into one call per command, and a
//! typed report comes out.
//!
//! ```no_run
//! use eraflow::pipeline::{self, config::Layers, Job};
//! use std::path::Path;
//!
//! let job = Job::load(Layers {
//!     file: Some(Path::new("pipelines/sample.toml")),
//!     ..Default::default()
//! })?;
//! let outcome = pipeline::run(&job)?; // synth, verify, export, prune as configured
//! std::process::exit(outcome.exit_status().code().into());
//! # Ok::<(), eraflow::pipeline::JobError>(())
//! ```

pub mod bench;
pub mod canonical;
pub mod consensus;
pub mod convert;
pub mod crypto;
pub mod datasets;
pub mod error;
pub mod execution;
pub mod export;
pub mod formats;
#[doc(hidden)]
pub mod fuzzing;
pub mod inputs;
pub mod network;
pub mod pipeline;
pub mod prune;
pub mod report;
pub mod sink;
pub mod store;
pub mod synth;
pub mod util;
pub mod verify;
