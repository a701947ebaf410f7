//! Jobs: typed job definitions layered from `configs/default.toml`, pipeline files, `--set` and flags
//! ([`config`], [`job`]); one library call per command ([`commands`]); reading a dataset straight into Arrow
//! ([`read`](mod@read)); the stage runner over local or fetched inputs ([`run`](mod@run), [`stream`]), run locks,
//! shards and run reports. The jobs' own work lives beside it: [`crate::export`], [`crate::convert`],
//! [`crate::verify`], [`crate::prune`].

pub mod commands;
pub mod config;
pub mod job;
pub mod read;
pub mod report;
pub mod run;
pub mod runlock;
pub mod shard;
pub mod stream;
pub mod table;
pub mod verify_cache;

pub use crate::error::ExitStatus;
pub use commands::{
    convert, export, inspect, plan, prune, prune_check, prune_rebuild_check, report, run,
    state_root, synth, verify, verify_outputs, OutputsReport, Plan, PlannedFile, PruneReport,
    RunOutcome, StateRootReport,
};
pub use job::{Job, JobError};
pub use read::{read, DatasetRead};
