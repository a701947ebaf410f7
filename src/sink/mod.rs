//! Output files: Parquet datasets and the manifest that makes reruns resume.

pub mod manifest;
pub mod parquet;
