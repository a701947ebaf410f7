//! The Python suite (`python/tests`: the package's API and command line, the Ray driver, the deploy manifests)
//! as part of `cargo test`, so one command runs every suite. A test binary of its own: cargo runs test binaries
//! one after another, so Ray's workers do not share the two cores with the `it` binary's threads. It runs against the binary this run built
//! (`ERAFLOW_BIN`) and the installed package (`pip install ./python`; rerun it after changing Rust code, as the
//! package is built by pip, not by cargo).
//!
//! Needs `python3` with `pytest`; without it the suite is skipped loudly (a failure under
//! `ERAFLOW_REQUIRE_PYTHON=1`, which `.ci/run` sets). Inside, each Python test skips loudly on its own missing
//! dependency (Ray, PyYAML, moto, the installed package), failing under the same `ERAFLOW_REQUIRE_*` variables;
//! pytest's skip summary is printed past the capture.

#[path = "it/skip.rs"]
mod skip;

use std::io::Write;
use std::path::Path;
use std::process::Command;

#[test]
fn python_suite() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let has_pytest = Command::new("python3")
        .args(["-c", "import pytest"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_pytest {
        if std::env::var_os("ERAFLOW_REQUIRE_PYTHON").is_some() {
            panic!("ERAFLOW_REQUIRE_PYTHON is set but python3 with pytest is missing (pip install pytest)");
        }
        skip::skip(
            "the Python suite (python/tests: API, command line, Ray, deploy)",
            "python3 with pytest not found (pip install pytest, and pip install './python[ray,test]')",
        );
        return;
    }
    // -rs lists every skip with its reason in the summary; the summary goes past libtest's capture below.
    let out = Command::new("python3")
        .args(["-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider"])
        .arg(repo.join("python/tests"))
        .env("ERAFLOW_BIN", env!("CARGO_BIN_EXE_eraflow"))
        .current_dir(repo)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The summary from pytest's last "short test summary" (or its last lines), straight to the terminal.
    let tail: Vec<&str> = stdout
        .lines()
        .rev()
        .take_while(|l| !l.starts_with("===="))
        .collect();
    let summary = stdout.rsplit_once("short test summary info").map_or_else(
        || tail.iter().rev().copied().collect::<Vec<_>>().join("\n"),
        |(_, s)| s.to_string(),
    );
    let _ = writeln!(std::io::stderr(), "\npython/tests: {}", summary.trim());
    for l in stdout.lines().filter(|l| l.starts_with("SKIPPED")) {
        skip::skip("python/tests", l.trim_start_matches("SKIPPED").trim());
    }
    // pytest: 0 passed, 1 failures, 5 no tests collected (a failure here: tests are expected).
    assert_eq!(
        out.status.code(),
        Some(0),
        "python/tests failed:\n{stdout}\n{stderr}"
    );
}
