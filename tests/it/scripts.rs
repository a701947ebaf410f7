//! The bench scripts the docs quote figures from (docs/performance.md), run at a tiny size so a change that
//! breaks one is caught here rather than the next time someone measures: `scripts/bench-noop-rerun.sh` (a no-op
//! rerun's CPU time and its requests into S3) and `scripts/bench-report.sh` (the report page against DuckDB).

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
