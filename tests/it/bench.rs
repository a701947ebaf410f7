//! `eraflow bench` runs end to end on a tiny synthetic input: every stage and floor is measured (on both
//! secp256k1 backends, and on an era file) and every goal ratio is computed, so the command the README and
//! docs/performance.md quote keeps working.

use std::process::Command;

/// Runs `eraflow bench` on 16 blocks of 2 transactions (era files of 64 validators, a big state of 2,000),
/// once, from a temporary directory into `--dir bench` given relative to it (as a command line gives it: a
/// relative one once broke the Delta stages).
fn bench(extra: &[&str]) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_eraflow"))
        .current_dir(dir.path())
        .args([
            "bench",
            "--blocks",
            "16",
            "--txs-per-block",
            "2",
            "--validators",
            "64",
            "--state-validators",
            "2000",
            "--runs",
            "1",
        ])
        .args(["--dir", "bench"])
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "eraflow bench {extra:?}: {}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

#[test]
fn bench_runs_on_a_tiny_input() {
    let json: serde_json::Value = serde_json::from_slice(&bench(&["--json"]).stdout).unwrap();
    let lines = json["measurements"].as_array().expect("measurements");
    let names: Vec<&str> = lines.iter().map(|m| m["name"].as_str().unwrap()).collect();
    for want in [
        "floor: snappy decompression (all records)",
        "floor: raw libsecp256k1 recovery of every signature",
        "floor: raw k256 recovery of every signature",
        "decode + verify + senders (libsecp256k1), 1 thread",
        "decode + verify + senders (k256), 1 thread",
        "export with senders (libsecp256k1), 1 thread",
        "export with senders (k256), 1 thread",
        "export with senders (libsecp256k1), 2 threads",
        "floor: parquet encode of the same rows",
        "floor: sha256 of every block era verification hashes",
        "floor: sha256 + keccak of every message era verification hashes + snappy",
        "era verification (state root + blocks + payloads), 1 thread",
        "export of 8 era1 files from local disk, 1 thread",
        "export of 8 era1 files from local disk into new Delta tables (a commit per source and dataset), 1 thread",
        "floor: the same 1,000 files read and rewritten as one Parquet file",
        "table optimize: 1,000 small files of a Delta partition compacted into one, by one commit, 1 thread",
        "export of 8 era1 files from a loopback HTTP mirror, 1 thread",
        "export of 8 era1 files from a mirror at 20 MB/s per connection, 1 connection, 1 thread",
        "export of 8 era1 files from a mirror at 20 MB/s per connection, 4 connections, 1 thread",
        "prune manifest, 1 thread",
        "prune manifest, 2 threads",
        "floor: prune's hashing with the transactions root",
        "floor: keccak of every block ere verification hashes + snappy",
        "ere verification (receipts root with blooms rebuilt), 1 thread",
        "export from ere without senders, 1 thread",
        "export from ere with senders (libsecp256k1), 1 thread",
        "ere verification, default profile (every header proof checked), 1 thread",
        "era export (deneb) without the operation datasets, no senders, 1 thread",
        "era export (deneb) with the operation datasets, no senders, 1 thread",
        "era export (electra) with the operation datasets, no senders, 1 thread",
        "floor: parquet encode of the validators rows (built beforehand)",
        "validators dataset from the decoded state (registry -> rows -> parquet), 1 thread",
        "export of the state's era file with validators (verification included), 1 thread",
    ] {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }
    for m in lines {
        let s = m["seconds"].as_f64().unwrap();
        assert!(s.is_finite() && s > 0.0, "{m}");
        // Peak RSS per stage, where the kernel lets a process reset its high-water mark.
        if cfg!(target_os = "linux") {
            assert!(m["peak_rss_added_bytes"].is_u64(), "{m}");
        }
    }
    assert!(json["era_sha256_blocks"].as_u64().unwrap() > 0);
    assert!(json["ere_keccak_messages"].as_u64().unwrap() > 0);
    assert!(json["ere_keccak_bytes"].as_u64().unwrap() > 0);
    let ratios = json["ratios"].as_array().expect("ratios");
    let goals = ratios.iter().filter(|r| !r["goal"].is_null()).count();
    // Delta export and table optimize included, and the era verification's sha256 floor (issue 31).
    assert_eq!(goals, 17, "{ratios:?}");
    assert_eq!(json["consensus"]["state_validators"], 2000);
    assert!(json["remote_cache_max_bytes"].as_u64().unwrap() > 0);
    for r in ratios {
        assert!(r["value"].as_f64().unwrap().is_finite(), "{r}");
    }
    // The consensus lines alone.
    let only: serde_json::Value =
        serde_json::from_slice(&bench(&["--consensus", "--json"]).stdout).unwrap();
    assert_eq!(only["measurements"].as_array().unwrap().len(), 7);
    assert_eq!(only["ratios"].as_array().unwrap().len(), 3);
    let text = String::from_utf8(bench(&[]).stdout).unwrap();
    assert!(text.contains("validators: 2000 rows"), "{text}");
    assert!(text.contains("2 threads speed-up over 1"), "{text}");
    assert!(text.contains("load average"), "{text}");
    assert!(
        text.contains(
            "remote input (loopback HTTP mirror, prefetched, bounded cache) ÷ local files"
        ),
        "{text}"
    );
    if cfg!(target_os = "linux") {
        assert!(
            text.contains("peak RSS beyond the") && text.contains("prune manifest, 1 thread"),
            "{text}"
        );
    }
}
