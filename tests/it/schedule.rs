//! `eraflow run` on a schedule: the output's run lock (runs never interleave; `--no-wait` exits 2 "in use"),
//! SIGTERM/SIGINT between files (status `interrupted`, exit 143/130, no temporaries, a rerun completes), the
//! run report's fields and names, and pipeline files' relative paths, `${VAR}` and `--set inputs=a,b`.

use crate::util::{eraflow, files_in, snapshot, synth_era1_files};
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// A pipeline exporting `inputs` into `out`, with senders.
fn pipeline(dir: &Path, inputs: &Path, out: &Path) -> PathBuf {
    let p = dir.join("scheduled.toml");
    std::fs::write(
        &p,
        format!(
            "name = \"scheduled\"\nthreads = 1\ninputs = [{:?}]\nout = {:?}\n\n[export]\ndatasets = [\"blocks\", \"transactions\", \"logs\"]\n",
            inputs, out
        ),
    )
    .unwrap();
    p
}

fn reports(out: &Path) -> Vec<(PathBuf, serde_json::Value)> {
    let dir = out.join("_eraflow").join("runs");
    files_in(&dir)
        .into_iter()
        .map(|p| {
            let v = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
            (p, v)
        })
        .collect()
}

fn export_files(r: &serde_json::Value) -> Vec<serde_json::Value> {
    r["stages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["stage"] == "export")
        .flat_map(|s| s["files"].as_array().unwrap().clone())
        .collect()
}

fn temporaries(out: &Path) -> Vec<PathBuf> {
    files_in(out)
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with(".tmp"))
        .collect()
}

fn wait_for(child: &mut Child, limit: Duration) -> std::process::ExitStatus {
    let t = Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        assert!(t.elapsed() < limit, "still running after {limit:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn signal(child: &Child, sig: &str) {
    let st = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
}

fn parquet_count(out: &Path) -> usize {
    if !out.exists() {
        return 0;
    }
    files_in(out)
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
        .count()
}

/// Waits until the run has committed a new output: it is mid-way, its signal handlers installed.
fn wait_new_output(out: &Path, child: &mut Child) {
    let before = parquet_count(out);
    let t = Instant::now();
    while parquet_count(out) <= before {
        assert!(child.try_wait().unwrap().is_none(), "run ended early");
        assert!(t.elapsed() < Duration::from_secs(120));
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn two_runs_started_together_do_not_interleave_and_no_wait_says_in_use() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = dir.path().join("in");
    let out = dir.path().join("out");
    synth_era1_files(&inputs, 4, 256);
    let p = pipeline(dir.path(), &inputs, &out);
    let mut a = eraflow().arg("run").arg(&p).spawn().unwrap();
    let mut b = eraflow().arg("run").arg(&p).spawn().unwrap();
    assert!(wait_for(&mut a, Duration::from_secs(300)).success());
    assert!(wait_for(&mut b, Duration::from_secs(300)).success());
    // Two reports (one per process, never overwritten), named <started>-<pid>.json: one run did every file,
    // the other, having waited for the lock, found them all complete.
    let rs = reports(&out);
    assert_eq!(rs.len(), 2, "{rs:?}");
    let mut done: Vec<(usize, usize)> = rs
        .iter()
        .map(|(path, r)| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            assert_eq!(
                name,
                format!("{}-{}.json", r["started"].as_str().unwrap(), r["pid"]),
            );
            let f = export_files(r);
            assert_eq!(f.len(), 4);
            (
                f.iter().filter(|f| f["skipped"] == false).count(),
                f.iter().filter(|f| f["skipped"] == true).count(),
            )
        })
        .collect();
    done.sort();
    assert_eq!(done, vec![(0, 4), (4, 0)], "the runs interleaved");

    // While the lock is held: --no-wait exits 2 "in use"; a waiting run waits, then finds the work done.
    let lock = std::fs::File::open(out.join("_eraflow/run.lock")).unwrap();
    lock.lock().unwrap();
    let o = eraflow()
        .args(["run", "--no-wait"])
        .arg(&p)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("in use"),
        "{o:?}"
    );
    let mut waiting = eraflow().arg("run").arg(&p).spawn().unwrap();
    std::thread::sleep(Duration::from_millis(700));
    assert!(
        waiting.try_wait().unwrap().is_none(),
        "ran while the lock was held"
    );
    drop(lock);
    assert!(wait_for(&mut waiting, Duration::from_secs(120)).success());
}

#[test]
fn sigterm_and_sigint_stop_between_files_and_a_rerun_completes() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = dir.path().join("in");
    synth_era1_files(&inputs, 6, 1024);
    let reference = dir.path().join("reference");
    let st = eraflow()
        .args([
            "--threads",
            "1",
            "export",
            "--datasets",
            "blocks,transactions,logs",
            "--out",
        ])
        .arg(&reference)
        .arg(&inputs)
        .status()
        .unwrap();
    assert!(st.success());

    let out = dir.path().join("out");
    let p = pipeline(dir.path(), &inputs, &out);
    for (sig, code) in [("-TERM", 143), ("-INT", 130)] {
        let mut child = eraflow().arg("run").arg(&p).spawn().unwrap();
        wait_new_output(&out, &mut child);
        signal(&child, sig);
        let st = wait_for(&mut child, Duration::from_secs(120));
        assert_eq!(st.code(), Some(code), "{sig}");
        assert!(temporaries(&out).is_empty(), "{:?}", temporaries(&out));
        let (_, r) = reports(&out)
            .into_iter()
            .find(|(_, r)| r["pid"] == child.id())
            .expect("a report of the interrupted run");
        assert_eq!(r["status"], "interrupted", "{r}");
        assert_eq!(r["exit_code"], code);
        let files = export_files(&r);
        assert!(files.len() < 6, "took every file after {sig}: {files:?}");
        assert!(files.iter().all(|f| f["ok"] == true));
    }
    let o = eraflow().arg("run").arg(&p).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert_same_outputs(&out, &reference);
}

/// The outputs (datasets and manifest; no run reports or lock files) of `a` and `b` are byte-identical.
pub fn assert_same_outputs(a: &Path, b: &Path) {
    let outputs = |d: &Path| -> Vec<(PathBuf, Vec<u8>)> {
        snapshot(d)
            .into_iter()
            .filter(|(p, _)| p.extension().is_none_or(|e| e != "lock"))
            .collect()
    };
    let (x, y) = (outputs(a), outputs(b));
    let names = |v: &[(PathBuf, Vec<u8>)]| v.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>();
    assert_eq!(names(&x), names(&y));
    for ((p, u), (_, v)) in x.iter().zip(&y) {
        assert!(u == v, "{} differs", p.display());
    }
}

#[test]
fn run_report_fields() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = dir.path().join("in");
    let out = dir.path().join("out");
    synth_era1_files(&inputs, 2, 16);
    let p = pipeline(dir.path(), &inputs, &out);
    let o = eraflow().args(["run", "--json"]).arg(&p).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["name"], "scheduled");
    assert_eq!(r["status"], "ok");
    assert_eq!(r["exit_code"], 0);
    for k in ["started", "finished"] {
        let t = r[k].as_str().unwrap();
        // RFC 3339 UTC: 2026-12-01T13:09:21Z
        assert_eq!(t.len(), 20, "{t}");
        assert!(t.ends_with('Z') && &t[10..11] == "T", "{t}");
    }
    assert!(r["started"].as_str() <= r["finished"].as_str());
    let stage = &r["stages"][0];
    assert_eq!(stage["stage"], "export");
    assert!(stage["seconds"].as_f64().unwrap() > 0.0);
    assert_eq!(stage["files"].as_array().unwrap().len(), 2);
    assert_eq!(reports(&out).len(), 1);
}

#[test]
fn pipeline_paths_are_the_files_and_variables_come_from_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let files = synth_era1_files(&dir.path().join("jobs/in"), 3, 16);
    std::fs::write(
        dir.path().join("jobs/p.toml"),
        "name = \"rel\"\ninputs = [\"in\"]\nout = \"${ERAFLOW_TEST_OUT_NAME}/x\"\n[export]\n",
    )
    .unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    // Run from another folder: `in` and `out` are the pipeline file's.
    let o = eraflow()
        .current_dir(elsewhere.path())
        .env("ERAFLOW_TEST_OUT_NAME", "out")
        .args(["run", "--json"])
        .arg(dir.path().join("jobs/p.toml"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert!(dir
        .path()
        .join("jobs/out/x/_eraflow/manifest.json")
        .exists());
    // An unset variable is a usage error naming it.
    let o = eraflow()
        .env_remove("ERAFLOW_TEST_OUT_NAME")
        .arg("run")
        .arg(dir.path().join("jobs/p.toml"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("ERAFLOW_TEST_OUT_NAME"));
    // --set inputs=a,b (the comma form), relative to the working directory like every command-line value.
    let o = eraflow()
        .current_dir(dir.path().join("jobs/in"))
        .env("ERAFLOW_TEST_OUT_NAME", "out2")
        .args(["run", "--json", "--set"])
        .arg(format!(
            "inputs={},{}",
            files[0].file_name().unwrap().to_string_lossy(),
            files[2].display()
        ))
        .arg(dir.path().join("jobs/p.toml"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["inputs"].as_array().unwrap().len(), 2, "{r}");
}

/// Whether `pid` has a handler for signal `sig` (Linux: the SigCgt mask of /proc/PID/status).
fn catches(pid: u32, sig: u32) -> bool {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigCgt:"))
        .and_then(|m| u64::from_str_radix(m.trim(), 16).ok())
        .is_some_and(|m| m & (1 << (sig - 1)) != 0)
}

#[test]
fn sigterm_stops_the_verify_stage_between_files() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = dir.path().join("in");
    let out = dir.path().join("out");
    synth_era1_files(&inputs, 6, 1024);
    let p = dir.path().join("verify.toml");
    std::fs::write(
        &p,
        format!(
            "name = \"v\"\nthreads = 1\ninputs = [{inputs:?}]\nout = {out:?}\n[verify]\nsenders = true\n"
        ),
    )
    .unwrap();
    let mut child = eraflow().arg("run").arg(&p).spawn().unwrap();
    let t = Instant::now();
    while !catches(child.id(), 15) {
        assert!(child.try_wait().unwrap().is_none() && t.elapsed() < Duration::from_secs(60));
        std::thread::sleep(Duration::from_millis(5));
    }
    // Into the stage (its first file takes about a second), though a stop before it starts is as good.
    std::thread::sleep(Duration::from_millis(300));
    signal(&child, "-TERM");
    assert_eq!(
        wait_for(&mut child, Duration::from_secs(120)).code(),
        Some(143)
    );
    let (_, r) = reports(&out).pop().expect("a run report");
    assert_eq!(r["status"], "interrupted");
    let verified = r["stages"]
        .as_array()
        .unwrap()
        .first()
        .map_or(0, |s| s["files"].as_array().unwrap().len());
    assert!(verified < 6, "verified every file after SIGTERM");
}

/// `eraflow run PIPELINE --json` with `sets`: (exit code, the verify stage's files as (file name, skipped, ok)).
fn verify_run(pipeline: &Path, sets: &[&str]) -> (Option<i32>, Vec<(String, bool, bool)>) {
    let mut cmd = eraflow();
    cmd.args(["run", "--json"]).arg(pipeline);
    for s in sets {
        cmd.args(["--set", s]);
    }
    let (c, out, err) = crate::util::run(&mut cmd);
    let r: serde_json::Value =
        serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    let files = r["stages"][0]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let name = Path::new(f["file"].as_str().unwrap());
            (
                name.file_name().unwrap().to_string_lossy().into_owned(),
                f["skipped"].as_bool().unwrap(),
                f["ok"].as_bool().unwrap(),
            )
        })
        .collect();
    (c, files)
}

/// A scheduled run does not verify unchanged archives again: results are kept by file sha256, eraflow version
/// and checks in `OUT/_eraflow/verified/`; a changed file, other checks or a new file are verified; the checks
/// between files (era1 chain, era links and the state anchors they carry) still run over kept reports.
#[test]
fn verification_results_are_kept_by_content_and_checks() {
    let d = tempfile::tempdir().unwrap();
    let inputs = d.path().join("in");
    // Whole eras (8192 blocks), so the two era1 files are consecutive and chained.
    let (c, _, err) = crate::util::run(
        eraflow()
            .args([
                "synth",
                "--files",
                "2",
                "--blocks",
                "8192",
                "--txs-per-block",
                "0",
            ])
            .arg("--out")
            .arg(&inputs),
    );
    assert_eq!(c, Some(0), "{err}");
    let era1 = files_in(&inputs);
    let (c, _, err) = crate::util::run(
        eraflow()
            .args(["synth", "--kind", "era", "--files", "2"])
            .args([
                "--blocks",
                "4",
                "--validators",
                "4",
                "--out",
                inputs.to_str().unwrap(),
            ]),
    );
    assert_eq!(c, Some(0), "{err}");
    let out = d.path().join("out");
    let p = d.path().join("verify.toml");
    std::fs::write(
        &p,
        format!(
            "name = \"nightly\"\ninputs = [{inputs:?}]\nout = {out:?}\n\n[verify]\nsenders = false\n"
        ),
    )
    .unwrap();
    let (c, first) = verify_run(&p, &[]);
    assert_eq!(c, Some(0));
    assert_eq!(first.len(), 4);
    assert!(first.iter().all(|f| !f.1 && f.2), "{first:?}");
    assert_eq!(files_in(&out.join("_eraflow/verified")).len(), 4);
    let (c, second) = verify_run(&p, &[]);
    assert_eq!(c, Some(0));
    assert!(second.iter().all(|f| f.1 && f.2), "{second:?}");

    // Kept era reports still carry their links: a trusted root for the second era's state anchors the first
    // through the empty-slot link, both reports taken from the kept results.
    let era: Vec<PathBuf> = files_in(&inputs)
        .into_iter()
        .filter(|f| f.extension().is_some_and(|e| e == "era"))
        .collect();
    let mut opts = eraflow::verify::VerifyOptions::default();
    let cache = eraflow::pipeline::verify_cache::VerifyCache::new(&out, &opts);
    let fresh = eraflow::verify::verify_archives(&era, &opts);
    let last = fresh[1].beacon.as_ref().unwrap();
    let trusted = eraflow::verify::anchor::TrustedStates::parse(
        "t",
        &format!("{} {}", last.state_slot, last.state_root),
    )
    .unwrap();
    opts.trusted_states = Some(std::sync::Arc::new(trusted));
    let kept = eraflow::verify::verify_archives_cached(&era, &opts, &|| false, &cache);
    assert!(kept.iter().all(|r| r.from_cache && r.ok), "{kept:?}");
    let by: Vec<_> = kept
        .iter()
        .map(|r| r.beacon.as_ref().unwrap().state_anchor.by.clone())
        .collect();
    use eraflow::verify::report::AnchorKind;
    assert_eq!(by, [Some(AnchorKind::Linked), Some(AnchorKind::Trusted)]);

    // Other checks: verified again (and kept under their own key).
    let (c, senders) = verify_run(&p, &["verify.senders=true"]);
    assert_eq!(c, Some(0));
    assert!(senders.iter().all(|f| !f.1 && f.2), "{senders:?}");

    // A changed file is verified again (and fails); the others stay kept.
    let victim = &era1[1];
    let original = std::fs::read(victim).unwrap();
    let mut bytes = original.clone();
    let at = bytes.len() / 2;
    bytes[at] ^= 0x40;
    std::fs::write(victim, &bytes).unwrap();
    let (c, changed) = verify_run(&p, &[]);
    assert_eq!(c, Some(1));
    let name = victim.file_name().unwrap().to_string_lossy().into_owned();
    for (f, skipped, ok) in &changed {
        assert_eq!((*skipped, *ok), (f != &name, f != &name), "{changed:?}");
    }
    std::fs::write(victim, &original).unwrap();
    assert_eq!(verify_run(&p, &[]).0, Some(0));

    // Kept reports that no longer link fail the check between them: era 0 of another chain (a transaction a
    // block), verified alone and kept, beside the kept era 1 of this chain.
    let other = d.path().join("other");
    let (c, _, err) = crate::util::run(
        eraflow()
            .args(["synth", "--blocks", "8192", "--txs-per-block", "1", "--out"])
            .arg(&other),
    );
    assert_eq!(c, Some(0), "{err}");
    let stranger = files_in(&other).remove(0);
    std::fs::remove_file(&era1[0]).unwrap();
    std::fs::rename(&stranger, inputs.join(stranger.file_name().unwrap())).unwrap();
    let (c, _) = verify_run(&p, &[]);
    assert_eq!(c, Some(1));
    let (c, linked) = verify_run(&p, &[]);
    assert_eq!(c, Some(1), "{linked:?}");
    assert!(linked.iter().all(|(_, skipped, _)| *skipped), "{linked:?}");
    assert!(
        linked.iter().any(|(f, _, ok)| f == &name && !*ok),
        "{linked:?}"
    );
}
