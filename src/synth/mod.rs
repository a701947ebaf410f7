//! Deterministic synthetic archives: the fixtures that let a fresh clone test everything real files lack
//! (logs, EIP-2930, pre-EIP-155 signatures, post-state-root receipts), and the embedded default of the README's
//! main command.

pub mod era;
pub mod era1;
pub mod rng;
