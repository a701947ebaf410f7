//! The integration tests: one binary (eraflow is linked once, not once per file), one module per area.
//!
//! Tests here run as parallel threads of one process, so they share its global state. The process-wide signer
//! of this binary is secp256k1: several tests call `signer::init(Secp256k1)`, and some assert that it is the
//! one installed and was built once. A test needing other process state (a signer never initialised, or
//! initialised by that test first, or another algorithm, or a counting global allocator) is a separate binary:
//! see the `[[test]]` entries in Cargo.toml.
//!
//! Shared pieces: `testdata` (the real archive files, skipped loudly when absent), `skip` (a skipped check,
//! said past libtest's capture and counted at the end), `util` (helpers several modules use) and `signer_common`
//! (transaction requests of every type); the separate binaries include the ones they need by path.

mod signer_common;
mod skip;
mod testdata;
mod util;

mod amsterdam;
mod analyst_readers;
mod bench;
mod bombs;
mod build_sharing;
mod canonical;
mod canonical_verify;
mod cli_exit;
mod cli_output;
mod consensus_crosscheck;
mod cryo_queries;
mod decode;
mod delta;
mod doc_commands;
mod era1_real;
mod era_state_link;
mod ere;
mod ere_proofs;
mod export;
mod export_era;
mod first_day;
mod formats_era;
mod fuzz_corpus;
mod gloas_era;
mod house_lines;
mod http_input;
mod inputs;
mod kill_resume;
mod locations;
mod memory;
mod mirror_faults;
mod networks;
mod noop_rerun;
mod payload_hash;
mod portal_blocks;
mod prune_real;
mod prune_synth;
mod prune_window;
mod remote_commands;
mod report;
mod report_browser;
#[cfg(feature = "s3")]
mod s3_output;
mod schedule;
mod scripts;
mod shard;
mod shared_output;
mod signer_backends;
mod signer_k256;
mod signer_sepolia;
mod ssz_crosscheck;
mod ssz_real;
mod state_anchor;
mod synth_era;
mod synth_era1;
mod tokens;
mod truncated;
mod verify_outputs;
