//! Stage names, shared by the measurements and the ratios computed from them.

pub const SNAPPY: &str = "floor: snappy decompression (all records)";
pub const KECCAK: &str = "floor: keccak256 of the decompressed bytes";
pub const RAW_LIBSECP: &str = "floor: raw libsecp256k1 recovery of every signature";
pub const RAW_K256: &str = "floor: raw k256 recovery of every signature";
pub const VERIFY: &str = "decode + verify, 1 thread";
pub const EXPORT_NO_SENDERS: &str = "export without senders, 1 thread";
pub const PRUNE_1: &str = "prune manifest, 1 thread";
pub const PRUNE_2: &str = "prune manifest, 2 threads";
pub const PRUNE_FLOOR: &str = "floor: prune's hashing with the transactions root";
pub const PARQUET: &str = "floor: parquet encode of the same rows";
pub const ERA_FLOOR: &str = "floor: sha256 of every block era verification hashes";
pub const ERA_FLOOR_ALL: &str =
    "floor: sha256 + keccak of every message era verification hashes + snappy";
pub const ERA_1: &str = "era verification (state root + blocks + payloads), 1 thread";
pub const ERA_2: &str = "era verification (state root + blocks + payloads), 2 threads";
pub const SET_LOCAL: &str = "export of 8 era1 files from local disk, 1 thread";
pub const TABLE_OPTIMIZE: &str =
    "table optimize: 1,000 small files of a Delta partition compacted into one, by one commit, 1 thread";
pub const OPTIMIZE_FLOOR: &str =
    "floor: the same 1,000 files read and rewritten as one Parquet file";
pub const SET_DELTA: &str =
    "export of 8 era1 files from local disk into new Delta tables (a commit per source and dataset), 1 thread";
pub const SET_HTTP: &str = "export of 8 era1 files from a loopback HTTP mirror, 1 thread";
pub const SET_SLOW_1: &str =
    "export of 8 era1 files from a mirror at 20 MB/s per connection, 1 connection, 1 thread";
pub const SET_SLOW_4: &str =
    "export of 8 era1 files from a mirror at 20 MB/s per connection, 4 connections, 1 thread";
pub const ERE_FLOOR: &str = "floor: keccak of every block ere verification hashes + snappy";
pub const ERE_VERIFY: &str = "ere verification (receipts root with blooms rebuilt), 1 thread";
pub const ERE_EXPORT_NO_SENDERS: &str = "export from ere without senders, 1 thread";
pub const ERE_VERIFY_PROOFS: &str =
    "ere verification, default profile (every header proof checked), 1 thread";

pub const VALIDATORS_FLOOR: &str =
    "floor: parquet encode of the validators rows (built beforehand)";
pub const VALIDATORS: &str =
    "validators dataset from the decoded state (registry -> rows -> parquet), 1 thread";
pub const VALIDATORS_EXPORT: &str =
    "export of the state's era file with validators (verification included), 1 thread";

pub fn era_export_operations(fork: &str, with: bool) -> String {
    let w = if with { "with" } else { "without" };
    format!("era export ({fork}) {w} the operation datasets, no senders, 1 thread")
}

pub fn ere_export_senders(backend: &str) -> String {
    format!("export from ere with senders ({backend}), 1 thread")
}

pub fn signer_alone(backend: &str) -> String {
    format!("signer alone, decode + recover ({backend}), 1 thread")
}

pub fn verify_senders(backend: &str) -> String {
    format!("decode + verify + senders ({backend}), 1 thread")
}

pub fn export_senders(backend: &str, threads: usize) -> String {
    let t = if threads == 1 { "thread" } else { "threads" };
    format!("export with senders ({backend}), {threads} {t}")
}
