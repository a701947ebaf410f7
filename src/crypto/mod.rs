//! Hash functions and the process-wide signature algorithm.
//!
//! Everything cryptographic lives here so the middle layers (execution, consensus, verify) share one
//! implementation of each primitive and benchmarks measure exactly what the pipeline runs.

pub mod keccak;
pub mod sha256;
pub mod signer;
