//! Jobs: the export stage, pipeline files, progress and run reports.

pub mod config;
pub mod export;
pub mod report;
pub mod run;
