//! Where data lives: a local path or an object-store URL ([`url`]), and the output store that many writers
//! share safely ([`output`]: per-(source, dataset) completion records, locks, the manifest aggregate, freshness
//! proofs), written once over a [`storage::Storage`]: a local directory ([`local`]) or an object store
//! ([`remote`]).
//!
//! The core (verification, datasets, the Parquet sink) stays on `&Path` and memory maps; this layer decides
//! what a location is and how finished work is recorded.

pub mod beacon;
pub mod cache;
pub mod delta;
pub mod error;
pub mod fetch;
pub mod http;
pub mod local;
#[cfg(test)]
pub(crate) mod memory;
pub mod output;
pub mod remote;
pub mod runtime;
pub mod storage;
pub mod tls;
pub mod url;
