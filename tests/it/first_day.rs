//! What a new user's first day found (issue 24), one test per finding: a full disk and occupied paths leave no
//! temporaries and still report; S3 errors name their cause once; prune names two networks as two networks and
//! an unreadable input as I/O; bounds and local-only commands are usage errors; synthetic era withdrawals look
//! real and `verify` checks them against the state's registry; withdrawals carry `timestamp` and `slot`; a block's
//! `size` is JSON-RPC's; a skipped check is visible and counted.

use crate::util::{eraflow, run, synth_era1};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Every file under `dir` whose name marks a temporary (`.<name>.<pid>-<n>.tmp`).
fn temporaries(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().ends_with(".tmp") {
                out.push(p);
            }
        }
    }
    out
}

/// A tmpfs of `kib` KiB mounted at a fresh folder, unmounted when dropped; `None` (a loud skip) where mounting
/// is not permitted (not root, or a container without CAP_SYS_ADMIN).
struct SmallDisk {
    dir: tempfile::TempDir,
}

impl SmallDisk {
    fn mount(kib: u32) -> Option<SmallDisk> {
        let dir = tempfile::tempdir().unwrap();
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={kib}k"), "tmpfs"])
            .arg(dir.path())
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            crate::skip::skip(
                "the full-disk export",
                "cannot mount a small tmpfs here (needs root with CAP_SYS_ADMIN)",
            );
            return None;
        }
        Some(SmallDisk { dir })
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg(self.dir.path())
            .output();
    }
}

/// A real ENOSPC: the export's output is on a 320 KiB tmpfs and its Parquet files do not fit. The export
/// exits 2 naming "No space left on device", leaves no temporary (partial Parquet, manifest, report) on the full
/// disk, and still writes its run report once the partial files are gone.
#[test]
fn a_full_disk_leaves_no_temporary_and_a_run_report() {
    let Some(disk) = SmallDisk::mount(320) else {
        return;
    };
    let src = tempfile::tempdir().unwrap();
    let input = synth_era1(src.path(), 2000, 8);
    let out = disk.dir.path().join("out");
    let (c, stdout, stderr) =
        run(eraflow().args(["export", "--quiet", "--out", s(&out), s(&input)]));
    let msg = format!("{stdout}{stderr}");
    assert_eq!(c, Some(2), "{msg}");
    assert!(msg.contains("No space left on device"), "{msg}");
    assert_eq!(temporaries(&out), Vec::<PathBuf>::new(), "{msg}");
    let reports: Vec<_> = std::fs::read_dir(out.join("_eraflow/runs"))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    assert_eq!(reports.len(), 1, "one run report: {reports:?}\n{msg}");
    let r: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&reports[0]).unwrap()).unwrap();
    assert_eq!(r["exit_code"], 2, "{r}");
}

/// An output path taken by a directory (a dataset's Parquet file name, `manifest.json`) fails the export, and the
/// temporary written for it is removed.
#[test]
fn occupied_output_paths_leave_no_temporary() {
    let d = tempfile::tempdir().unwrap();
    let input = synth_era1(&d.path().join("in"), 50, 2);
    for (case, occupy) in [
        (
            "a dataset file name",
            "blocks/network=synthnet/synthnet__blocks__00000000_to_00000049.parquet",
        ),
        ("manifest.json", "_eraflow/manifest.json"),
    ] {
        let out = d.path().join(format!("out-{}", case.len()));
        std::fs::create_dir_all(out.join(occupy)).unwrap();
        let (c, stdout, stderr) =
            run(eraflow().args(["export", "--quiet", "--out", s(&out), s(&input)]));
        let msg = format!("{stdout}{stderr}");
        assert_eq!(c, Some(2), "{case}: {msg}");
        assert!(msg.contains("Is a directory"), "{case}: {msg}");
        assert_eq!(temporaries(&out), Vec::<PathBuf>::new(), "{case}: {msg}");
    }
}

/// A loopback server answering every request with 403, as a cloud's metadata service does to a machine with no
/// role (and as this sandbox does to 169.254.169.254). Serves until the test process ends.
fn forbidding_server() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut c in l.incoming().flatten() {
            let mut buf = [0u8; 4096];
            let _ = c.read(&mut buf);
            let _ = c.write_all(
                b"HTTP/1.1 403 Forbidden\r\nContent-Length: 9\r\nConnection: close\r\n\r\nForbidden",
            );
        }
    });
    port
}

/// `eraflow export --out s3://...` with the environment of `vars` (and no AWS credentials of the machine's).
fn export_to_s3(input: &Path, vars: &[(&str, String)]) -> (Option<i32>, String) {
    let mut cmd = eraflow();
    for (k, _) in std::env::vars() {
        if k.starts_with("AWS_") {
            cmd.env_remove(k);
        }
    }
    cmd.env("AWS_REGION", "us-east-1");
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let (c, stdout, stderr) =
        run(cmd.args(["export", "--quiet", "--out", "s3://lake/eth", s(input)]));
    (c, format!("{stdout}{stderr}"))
}

/// The two S3 causes the walk-through met, each named once for the whole run (not once per file) with what to
/// set, exit 2, and nothing of object_store's internals (no "builder error", no metadata-service URL dump per
/// file).
#[test]
#[cfg(feature = "s3")]
fn s3_errors_name_their_cause_once() {
    let d = tempfile::tempdir().unwrap();
    let inputs = crate::util::synth_era1_files(&d.path().join("in"), 2, 20);
    let dir = d.path().join("in");
    // A plain-http endpoint without AWS_ALLOW_HTTP: refused before any request (nothing listens there).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let endpoint = format!("http://127.0.0.1:{port}");
    let (c, msg) = export_to_s3(
        &dir,
        &[
            ("AWS_ENDPOINT_URL", endpoint.clone()),
            ("AWS_ACCESS_KEY_ID", "k".into()),
            ("AWS_SECRET_ACCESS_KEY", "s".into()),
        ],
    );
    assert_eq!(c, Some(2), "{msg}");
    assert_eq!(msg.matches("set AWS_ALLOW_HTTP=true").count(), 1, "{msg}");
    assert!(
        msg.contains(&endpoint) && !msg.contains("builder error"),
        "{msg}"
    );
    // No credentials anywhere: the metadata service (here a loopback one that says 403) is the last source.
    let metadata = format!("http://127.0.0.1:{}", forbidding_server());
    let (c, msg) = export_to_s3(
        &dir,
        &[
            ("AWS_ENDPOINT_URL", endpoint),
            ("AWS_ALLOW_HTTP", "true".into()),
            ("AWS_METADATA_ENDPOINT", metadata.clone()),
        ],
    );
    assert_eq!(c, Some(2), "{msg}");
    assert_eq!(msg.matches("no credentials found").count(), 1, "{msg}");
    assert!(
        msg.contains("AWS_ACCESS_KEY_ID") && msg.contains("403"),
        "{msg}"
    );
    for f in &inputs {
        let name = f.file_name().unwrap().to_str().unwrap();
        assert!(!msg.contains(name), "a per-file message for {name}: {msg}");
    }
}

/// A folder of two networks' files is two networks, not an overlap; exit 2 (the inputs are the user's choice).
#[test]
fn prune_names_two_networks_as_two_networks() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("in");
    for net in ["mainnet", "sepolia"] {
        let o = eraflow()
            .args(["synth", "--network", net, "--blocks", "8", "--out", s(&dir)])
            .output()
            .unwrap();
        assert!(o.status.success(), "{o:?}");
    }
    let out = d.path().join("manifest");
    let (c, stdout, stderr) = run(eraflow().args(["prune", "--out", s(&out), s(&dir)]));
    let msg = format!("{stdout}{stderr}");
    assert_eq!(c, Some(2), "{msg}");
    assert!(msg.contains("two networks (mainnet, sepolia)"), "{msg}");
    assert!(!msg.contains("overlap"), "{msg}");
}

/// Bounds and local-only commands are usage errors (2) that say so, before any work.
#[test]
fn usage_errors_say_what_is_wrong() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("era");
    let (c, o, e) = run(eraflow().args([
        "synth",
        "--kind",
        "era",
        "--validators",
        "0",
        "--out",
        s(&out),
    ]));
    assert_eq!(c, Some(2), "{o}{e}");
    assert!(
        e.contains("synth.validators") && e.contains("at least 1 validator"),
        "{e}"
    );
    assert!(!out.exists() || std::fs::read_dir(&out).unwrap().count() == 0);
    let (c, o, e) = run(eraflow().args([
        "inspect",
        "https://mirror.example/mainnet-00001-a5364e9a.era1",
    ]));
    assert_eq!(c, Some(2), "{o}{e}");
    assert!(
        e.contains("reads a local file") && !e.contains("No such file"),
        "{e}"
    );
}

/// A rerun of a pipeline whose synth stage is already made says it made none.
#[test]
fn a_synth_rerun_says_it_made_nothing() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("p.toml");
    std::fs::write(
        &p,
        "name = \"p\"\ninputs = [\"in\"]\nout = \"out\"\n[synth]\nout = \"in\"\nfiles = 2\nblocks = 8\n[verify]\n",
    )
    .unwrap();
    let (c, _, first) = run(eraflow().args(["run", s(&p)]));
    assert_eq!(c, Some(0), "{first}");
    // Said before it starts, and timed when done (in the run report too).
    let (start, done) = (
        first.find("synth: making the synthetic archives in"),
        first.find("synth: 2 files made in"),
    );
    assert!(
        start.is_some_and(|a| done.is_some_and(|b| a < b)),
        "{first}"
    );
    assert!(first.contains(" s)"), "{first}");
    let runs = d.path().join("out/_eraflow/runs");
    let report = std::fs::read_dir(&runs)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
    assert!(report["synth_seconds"].as_f64().is_some(), "{report}");
    let (c, _, second) = run(eraflow().args(["run", s(&p)]));
    assert_eq!(c, Some(0), "{second}");
    assert!(
        second.contains("already made") && second.contains("none made"),
        "{second}"
    );
}

/// Synthetic era files withdraw from validators the state has, in amounts a real chain shows (a skim of under
/// an ether, now and then a 32-ether exit); the rows carry the block's timestamp and the beacon slot.
#[test]
fn synthetic_era_withdrawals_look_real_and_carry_slot_and_timestamp() {
    use arrow_array::types::UInt64Type;
    use arrow_array::{cast::AsArray, Array};
    let d = tempfile::tempdir().unwrap();
    let mut o = eraflow::synth::era::EraSynthOptions::new(
        eraflow::network::Network::by_name("synthnet").unwrap(),
    );
    o.era = eraflow::synth::era::era_to_synthesize(
        &o.network,
        None,
        Some(eraflow::consensus::Fork::Deneb),
    )
    .unwrap();
    o.blocks = 48;
    o.validators = 100;
    let input = eraflow::synth::era::write(&d.path().join("in"), &o)
        .unwrap()
        .remove(0);
    let out = d.path().join("out");
    let (c, so, se) = run(eraflow().args([
        "export",
        "--quiet",
        "--datasets",
        "withdrawals,beacon_blocks",
        "--out",
        s(&out),
        s(&input),
    ]));
    assert_eq!(c, Some(0), "{so}{se}");
    let file = crate::util::files_in(&out.join("withdrawals"))
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "parquet"))
        .expect("a withdrawals file");
    let w = crate::util::read_parquet(&file);
    assert!(w.num_rows() > 10, "{} withdrawals", w.num_rows());
    let col = |n: &str| {
        w.column_by_name(n)
            .unwrap()
            .as_primitive::<UInt64Type>()
            .clone()
    };
    let (validator, amount, slot, time) = (
        col("validator_index"),
        col("amount_gwei"),
        col("slot"),
        col("timestamp"),
    );
    // Slots are 12 s apart from genesis: the payload's timestamp less 12 s a slot is the same on every row.
    let genesis = time.value(0) - slot.value(0) * 12;
    for i in 0..w.num_rows() {
        assert!(validator.value(i) < 100, "validator {}", validator.value(i));
        let gwei = amount.value(i);
        assert!(
            (1_000_000..100_000_000).contains(&gwei)
                || (32_000_000_000..32_100_000_000).contains(&gwei),
            "amount {gwei} gwei"
        );
        assert!(!slot.is_null(i));
        assert_eq!(time.value(i), genesis + slot.value(i) * 12, "row {i}");
    }
}

/// `verify` refuses an era file whose payload withdraws for a validator the state does not have, naming it.
#[test]
fn verify_checks_withdrawals_against_the_registry() {
    let d = tempfile::tempdir().unwrap();
    let mut o = eraflow::synth::era::EraSynthOptions::new(
        eraflow::network::Network::by_name("synthnet").unwrap(),
    );
    o.era = eraflow::synth::era::era_to_synthesize(
        &o.network,
        None,
        Some(eraflow::consensus::Fork::Capella),
    )
    .unwrap();
    o.blocks = 32;
    o.validators = 16;
    o.withdrawal_validators = Some(1_000_000);
    let input = eraflow::synth::era::write(d.path(), &o).unwrap().remove(0);
    let r = eraflow::verify::file(&input, &Default::default());
    assert!(
        !r.ok,
        "verified a file withdrawing for validators beyond 16"
    );
    let errors: Vec<String> = r.errors.iter().map(|e| e.to_string()).collect();
    assert!(
        errors
            .iter()
            .any(|e| e.contains("withdrawal validator_index") && e.contains("below 16")),
        "{errors:#?}"
    );
    // The same options with the state's own validators verify.
    o.withdrawal_validators = None;
    let good = eraflow::synth::era::write(&d.path().join("good"), &o)
        .unwrap()
        .remove(0);
    let r = eraflow::verify::file(&good, &Default::default());
    assert!(r.ok, "{:#?}", r.errors);
}

/// `blocks.size` is the block's RLP length, JSON-RPC's and cryo's `size`: mainnet block 1 is 537 bytes
/// (`eth_getBlockByNumber(1).size` = 0x219).
#[test]
fn block_size_is_json_rpc_size() {
    use arrow_array::cast::AsArray;
    use arrow_array::types::UInt64Type;
    let Some(f) = crate::testdata::file("era1/mainnet-00000-5ec1ffb8.era1") else {
        return;
    };
    let blocks = eraflow::datasets::by_names(&["blocks"]).unwrap()[0];
    let read = eraflow::pipeline::read(&f, blocks, false, None).unwrap();
    let b = &read.batches[0];
    let number = b
        .column_by_name("block_number")
        .unwrap()
        .as_primitive::<UInt64Type>();
    let size = b
        .column_by_name("size")
        .unwrap()
        .as_primitive::<UInt64Type>();
    let row = (0..b.num_rows()).find(|&i| number.value(i) == 1).unwrap();
    assert_eq!(size.value(row), 537);
}

/// A skipped check is visible in a normal run (not captured behind `ok`) and counted when the binary exits:
/// this test runs one real-data test of this binary with the data pointed away.
#[test]
fn skips_are_visible_and_counted_at_the_end() {
    if std::env::var_os("ERAFLOW_SKIP_PROBE").is_some() {
        return; // the inner run
    }
    let o = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["first_day::block_size_is_json_rpc_size", "--exact"])
        .env("ERAFLOW_TEST_DATA", "/nonexistent-eraflow-test-data")
        .env("ERAFLOW_SKIP_PROBE", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}{err}");
    assert!(
        err.contains("SKIPPED first_day::block_size_is_json_rpc_size: era1/mainnet-00000-5ec1ffb8.era1: real test data not found"),
        "{err}"
    );
    // The count comes last, after everything the run printed.
    let tail = err.trim_end().rsplit("!!!!! ").next().unwrap_or_default();
    assert!(
        tail.starts_with("1 check SKIPPED (not run, not passed)"),
        "stdout:\n{out}\nstderr:\n{err}"
    );
}
