//! Standard output that goes away (issue 14, item 4): a reader that closes the pipe early ends nothing — the
//! exit code stays the one the work earned — and a stdout that cannot be written (`/dev/full`) is an I/O error
//! (2) with one clear message; never a panic (101), and the run report is written either way.

use crate::util::{eraflow, synth_era1};
use std::process::{Command, Stdio};

/// Runs `cmd` with its stdout a pipe whose reading end is closed before eraflow writes to it.
fn with_closed_stdout(cmd: &mut Command) -> (Option<i32>, String) {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn with_full_stdout(cmd: &mut Command) -> (Option<i32>, String) {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let o = cmd.stdout(full).output().unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn a_closed_pipe_ends_quietly_with_the_status_of_the_work() {
    let d = tempfile::tempdir().unwrap();
    let good = synth_era1(&d.path().join("good"), 300, 2);
    let p = good.to_str().unwrap();
    for args in [
        vec!["verify", p],
        vec!["verify", "--json", p],
        vec!["inspect", p],
    ] {
        let (c, err) = with_closed_stdout(eraflow().args(&args));
        assert_eq!(c, Some(0), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(!err.contains("Broken pipe"), "{args:?}: {err}");
    }
    // A failing file keeps its 1: the verdict is not lost with the output.
    let mut bytes = std::fs::read(&good).unwrap();
    let n = bytes.len();
    bytes[n - 8 - 8 * 300 - 8 - 20] ^= 1; // inside the accumulator
    let bad = d.path().join("bad").join(good.file_name().unwrap());
    std::fs::create_dir_all(bad.parent().unwrap()).unwrap();
    std::fs::write(&bad, &bytes).unwrap();
    let (c, err) = with_closed_stdout(eraflow().args(["verify", bad.to_str().unwrap()]));
    assert_eq!(c, Some(1), "{err}");
    // export: outputs and the run report are written before anything is printed.
    let out = d.path().join("out");
    let (c, err) =
        with_closed_stdout(eraflow().args(["export", "--out", out.to_str().unwrap(), p]));
    assert_eq!(c, Some(0), "{err}");
    assert_eq!(
        std::fs::read_dir(out.join("_eraflow/runs"))
            .unwrap()
            .count(),
        1
    );
}

#[test]
fn a_full_stdout_is_an_io_error_and_the_work_is_kept() {
    let d = tempfile::tempdir().unwrap();
    let input = synth_era1(&d.path().join("in"), 50, 2);
    let p = input.to_str().unwrap();
    for args in [
        vec!["verify", p],
        vec!["verify", "--json", p],
        vec!["inspect", p],
    ] {
        let (c, err) = with_full_stdout(eraflow().args(&args));
        assert_eq!(c, Some(2), "{args:?}: {err}");
        assert!(
            err.contains("writing to standard output") && err.contains("No space left on device"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    let out = d.path().join("out");
    let (c, err) = with_full_stdout(eraflow().args(["export", "--out", out.to_str().unwrap(), p]));
    assert_eq!(c, Some(2), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(
        std::fs::read_dir(out.join("_eraflow/runs"))
            .unwrap()
            .count(),
        1,
        "no run report"
    );
    assert!(out.join("_eraflow/manifest.json").exists());
}

/// Logs for a log collector (`--log-format json`: one JSON object per line), `--quiet` (warnings only), and a
/// machine-readable summary on stdout (`export --json`); `run --json` and `plan` into a closed pipe end
/// without a panic.
#[test]
fn logs_and_summaries_for_terminals_and_collectors() {
    let d = tempfile::tempdir().unwrap();
    let input = synth_era1(&d.path().join("in"), 32, 1);
    let export = |extra: &[&str], out: &str| {
        let (c, stdout, stderr) = crate::util::run(
            eraflow()
                .arg("export")
                .args(extra)
                .args(["--no-senders", "--out"])
                .arg(d.path().join(out))
                .arg(&input),
        );
        assert_eq!(c, Some(0), "{stderr}");
        (stdout, stderr)
    };
    let (_, logs) = export(&["--log-format", "json"], "a");
    let events: Vec<serde_json::Value> = logs
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert!(
        events
            .iter()
            .any(|e| e["level"] == "INFO" && e["message"] == "file done" && e["blocks"] == 32),
        "{logs}"
    );
    let (_, logs) = export(&["--quiet"], "b");
    assert!(!logs.contains("INFO"), "{logs}");
    let (summary, _) = export(&[], "c");
    assert!(summary.starts_with("export: 1 files"), "{summary}");
    let (json, _) = export(&["--json"], "d");
    let r: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    assert_eq!(
        (r["status"].as_str(), r["exit_code"].as_u64()),
        (Some("ok"), Some(0))
    );
    assert_eq!(r["stages"][0]["files"][0]["blocks"], 32);

    let pipeline = d.path().join("p.toml");
    std::fs::write(
        &pipeline,
        format!(
            "name = \"p\"\ninputs = [{:?}]\nout = {:?}\n[export]\nsenders = false\n",
            input.to_str().unwrap(),
            d.path().join("e").to_str().unwrap()
        ),
    )
    .unwrap();
    for args in [vec!["run", "--json"], vec!["plan"], vec!["plan", "--json"]] {
        let (c, err) = with_closed_stdout(eraflow().args(&args).arg(&pipeline));
        assert_eq!(c, Some(0), "{args:?}: {err}");
    }
}
