//! The bench scripts the docs quote figures from (docs/performance.md), run at a tiny size so a change that
//! breaks one is caught here rather than the next time someone measures: `scripts/bench-noop-rerun.sh` (a no-op
//! rerun's CPU time and its requests into S3), `scripts/bench-report.sh` (the report page against DuckDB) and
//! `scripts/rehearse.py` (the full-history rehearsal and its projection).

use crate::util::run_ok;
use std::path::Path;
use std::process::Command;

fn script(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scripts")
        .join(name)
}

#[test]
fn the_no_op_rerun_bench_runs_and_proves_reruns_from_metadata() {
    let work = tempfile::tempdir().unwrap();
    let text = run_ok(
        Command::new("bash")
            .arg(script("bench-noop-rerun.sh"))
            .arg(env!("CARGO_BIN_EXE_eraflow"))
            .arg(work.path())
            .env("FILES", "2")
            .env("BIG_BLOCKS", "64")
            .env("BIG_TXS", "2"),
        "bench-noop-rerun.sh",
    );
    for set in ["small", "big"] {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{set}: 2 archives")))
            .unwrap_or_else(|| panic!("no {set} line: {text}"));
        assert!(
            line.contains("no-op rerun") && line.contains("[('stat', 'size+mtime')]"),
            "{line}"
        );
    }
    // The S3 part runs when moto's server is installed (as in CI).
    let moto = Command::new("moto_server")
        .arg("--help")
        .output()
        .is_ok_and(|o| o.status.success());
    if moto {
        for set in ["small", "big"] {
            let line = text
                .lines()
                .find(|l| l.starts_with(&format!("{set} into S3 (moto)")))
                .unwrap_or_else(|| panic!("no {set} S3 line: {text}"));
            assert!(line.contains("0 GETs of a Parquet object"), "{line}");
        }
    } else if std::env::var_os("ERAFLOW_REQUIRE_S3").is_some() {
        panic!("ERAFLOW_REQUIRE_S3 is set but moto_server is not installed");
    } else {
        crate::skip::skip(
            "bench-noop-rerun.sh's S3 lines",
            "moto_server not found (pip install 'moto[server]')",
        );
    }
}

#[test]
fn the_report_bench_runs_and_prints_its_ratio() {
    if !crate::report::duckdb_available() {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let text = run_ok(
        Command::new("bash")
            .arg(script("bench-report.sh"))
            .args(["2", "20000"])
            .arg(work.path())
            .env("ERAFLOW_BIN", env!("CARGO_BIN_EXE_eraflow"))
            .env("RUNS", "1"),
        "bench-report.sh",
    );
    let ratio = text
        .lines()
        .find_map(|l| l.strip_prefix("ratio:"))
        .unwrap_or_else(|| panic!("no ratio: {text}"));
    let value: f64 = ratio
        .trim()
        .split('x')
        .next()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{ratio}"));
    assert!(value.is_finite() && value > 0.0, "{ratio}");
}

/// The rehearsal at its tiny size: every kind's dense and light file measured through every stage, the
/// projection over mainnet's file counts, and the scale-out (shards and, where Ray is installed, 2 Ray workers).
#[test]
fn the_rehearsal_measures_every_kind_and_projects_mainnet() {
    let work = tempfile::tempdir().unwrap();
    let json = work.path().join("rehearsal.json");
    let text = run_ok(
        Command::new("python3")
            .arg(script("rehearse.py"))
            .args(["--bin", env!("CARGO_BIN_EXE_eraflow"), "--size", "tiny"])
            .args(["--scale-out", "--as-of", "2026-12-03"])
            .arg("--work")
            .arg(work.path().join("work"))
            .arg("--json")
            .arg(&json),
        "rehearse.py",
    );
    assert!(text.contains("core-hours"), "{text}");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let positive = |v: &serde_json::Value, what: &str| {
        let x = v.as_f64().unwrap_or_else(|| panic!("{what}: {v}"));
        assert!(x.is_finite() && x > 0.0, "{what}: {x}");
        x
    };
    for kind in ["era1", "ere", "era"] {
        for density in ["dense", "light"] {
            let f = &r["measured"][kind][density];
            let stages = f["stages"].as_object().unwrap();
            // serde_json's maps iterate in key order.
            let expect: &[&str] = if kind == "era" {
                &["export", "verify"]
            } else {
                &["export", "prune", "verify"]
            };
            assert_eq!(
                stages.keys().map(String::as_str).collect::<Vec<_>>(),
                expect,
                "{kind} {density}"
            );
            for (stage, s) in stages {
                positive(&s["rss_mib"], &format!("{kind} {density} {stage} rss"));
                assert!(s["cpu"].as_f64().unwrap() >= 0.0);
            }
            positive(
                &f["stages"]["export"]["bytes_out"],
                &format!("{kind} {density} export bytes"),
            );
        }
        // The dense file holds ten times the light one's transactions.
        assert_eq!(
            r["measured"][kind]["dense"]["txs"].as_u64().unwrap(),
            10 * r["measured"][kind]["light"]["txs"].as_u64().unwrap()
        );
    }
    // Mainnet's file counts on the given date: era1 is fixed by the merge block; the others grow with time.
    let files = &r["projection"]["files"];
    assert_eq!(files["era1"], 1897);
    assert_eq!(files["era"], 1928);
    assert!((1330..1350).contains(&files["ere_past_merge"].as_u64().unwrap()));
    let hours = r["projection"]["core_hours"].as_object().unwrap();
    assert_eq!(hours.len(), 8, "{hours:?}");
    for (k, v) in hours {
        positive(v, k);
    }
    let so = &r["scale_out"];
    positive(&so["single process"]["cpu_per_file"], "single process");
    positive(&so["2 concurrent shards"]["cpu_per_file"], "shards");
    if so["ray"].is_string() {
        if std::env::var_os("ERAFLOW_REQUIRE_RAY").is_some() {
            panic!(
                "ERAFLOW_REQUIRE_RAY is set but the rehearsal found no Ray: {}",
                so["ray"]
            );
        }
        crate::skip::skip(
            "the rehearsal's Ray scale-out",
            "ray is not installed (pip install ray)",
        );
    } else {
        positive(&so["2 Ray workers"]["cpu_per_file"], "ray");
        assert!(so["2 Ray workers"]["tasks"].as_u64().unwrap() >= 1);
    }
}
