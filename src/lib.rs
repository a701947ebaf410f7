//! eraflow: verify Ethereum chain archives (era1, era), export them to Parquet, and build prune manifests.
//!
//! Layers depend one way, left to right:
//!
//! ```text
//! formats -> execution / consensus -> verify -> datasets -> sink -> pipeline -> cli (main.rs)
//! (bytes)    (typed views, roots)     (checks)   (arrow)      (files)  (jobs)
//!                crypto (keccak, sha256, the one signature algorithm) serves the middle layers
//! ```

pub mod bench;
pub mod consensus;
pub mod crypto;
pub mod datasets;
pub mod execution;
pub mod formats;
pub mod fsutil;
pub mod inputs;
pub mod network;
pub mod pipeline;
pub mod prune;
pub mod sink;
pub mod synth;
pub mod verify;
