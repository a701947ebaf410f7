//! `eraflow bench` runs end to end on a tiny synthetic input: every stage and floor is measured and printed,
//! so the command the README and docs/performance.md quote keeps working.

use std::process::Command;

/// Runs `eraflow bench` on 16 blocks of 2 transactions, once, in a temporary directory.
fn bench(extra: &[&str]) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_eraflow"))
        .args([
            "bench",
            "--blocks",
            "16",
            "--txs-per-block",
            "2",
            "--runs",
            "1",
        ])
        .arg("--dir")
        .arg(dir.path())
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
    let lines = json.as_array().expect("a list of measurements");
    let names: Vec<&str> = lines.iter().map(|m| m["name"].as_str().unwrap()).collect();
    for want in [
        "floor: snappy decompression (all records)",
        "decode + verify + senders, 1 thread",
        "export with senders, 2 threads",
        "floor: parquet encode of the same rows",
    ] {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }
    for m in lines {
        let s = m["seconds"].as_f64().unwrap();
        assert!(s.is_finite() && s > 0.0, "{m}");
    }
    let text = String::from_utf8(bench(&[]).stdout).unwrap();
    assert!(text.contains("2-thread speed-up"), "{text}");
}
