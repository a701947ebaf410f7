//! Jobs: typed job definitions layered from `configs/default.toml`, pipeline files, `--set` and flags
//! ([`config`], [`job`]); one library call per command ([`commands`]); reading a dataset straight into Arrow
//! ([`read`](mod@read)); the export stage, converting execution archives between layouts ([`convert`]) with the
//! header proofs of default-profile ere files ([`proofs`]), the stage runner, progress and run reports.

pub mod commands;
pub mod config;
pub mod convert;
pub mod export;
pub mod hash_cache;
pub mod interrupt;
pub mod job;
pub mod proofs;
pub mod read;
pub mod report;
pub mod run;
pub mod runlock;
pub mod shard;
pub mod stream;
pub mod verify_cache;

pub use commands::{
    export, inspect, plan, prune, prune_check, run, state_root, synth, verify, verify_outputs,
    OutputsReport, Plan, PlannedFile, PruneReport, RunOutcome, StateRootReport,
};
pub use job::{ExitStatus, Job, JobError};
pub use read::{read, DatasetRead};
