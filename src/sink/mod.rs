//! Output files: Parquet datasets, their names, and the manifest that makes reruns resume.

pub mod manifest;
pub mod names;
pub mod parquet;
pub mod portable;
