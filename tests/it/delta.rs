//! `--table-format delta`: every dataset a Delta table over the export's Parquet files, read by real readers
//! (the `deltalake` package, Polars, embedded ClickHouse) row for row as the plain export; reruns commit
//! nothing; a crash at any point, locally or into a loopback S3 server, then a rerun gives a clean run's tables
//! with no file twice; concurrent shards into one S3 prefix give one run's tables; `eraflow table` keeps them.
//!
//! The Python readers need `python3 -m pip install deltalake polars chdb` (`.ci/run` installs them and sets
//! ERAFLOW_REQUIRE_DELTA=1, which turns their absence from a loud skip into a failure); the S3 tests need moto.

use crate::s3_output::Moto;
use crate::util::{eraflow, run_ok, snapshot};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// The datasets these tests export: execution and consensus ones, unsigned and wide columns, one that takes
/// no rows from these archives (an empty table), nested lists and structs.
const DATASETS: &str =
    "blocks,transactions,logs,withdrawals,erc20_transfers,beacon_blocks,attestations,validators";

fn readers_available() -> bool {
    crate::skip::python_has(
        "deltalake, polars, chdb",
        "deltalake polars chdb",
        "ERAFLOW_REQUIRE_DELTA",
        "Delta table readers (deltalake, Polars, chdb)",
    )
}

/// Synthnet archives: era1 files from genesis and an Electra era file (withdrawals, operations, validators with
/// FAR_FUTURE_EPOCH).
fn inputs(dir: &Path, era1_files: u64) -> Vec<PathBuf> {
    let net = eraflow::network::Network::by_name("synthnet").unwrap();
    let mut o = eraflow::synth::era1::SynthOptions::new(net.clone());
    o.blocks = 200;
    o.txs_per_block = 2;
    o.files = era1_files;
    let mut v = eraflow::synth::era1::write(&dir.join("era1"), &o).unwrap();
    let mut e = eraflow::synth::era::EraSynthOptions::new(net.clone());
    e.era =
        eraflow::synth::era::EraSynthOptions::era_of_fork(&net, eraflow::consensus::Fork::Electra)
            .unwrap();
    e.blocks = 8;
    e.validators = 64;
    e.txs_per_block = 2;
    v.extend(eraflow::synth::era::write(&dir.join("era"), &e).unwrap());
    v
}

fn export_cmd(moto: Option<&Moto>, out: &str, inputs: &[PathBuf], delta: bool) -> Command {
    let mut c = eraflow();
    if let Some(m) = moto {
        m.env(&mut c);
    }
    c.args([
        "--threads",
        "1",
        "export",
        "--datasets",
        DATASETS,
        "--out",
        out,
    ]);
    if delta {
        c.args(["--table-format", "delta"]);
    }
    c.args(inputs);
    c
}

/// Each table's files as its log says (adds and removes replayed in version order), with their bytes: what a
/// reader of the table reads. `objects` is an output's listing (path relative to the output, bytes).
fn tables(objects: &[(PathBuf, Vec<u8>)]) -> Tables {
    let by_path: BTreeMap<String, &Vec<u8>> = objects
        .iter()
        .map(|(p, b)| (p.to_string_lossy().into_owned(), b))
        .collect();
    let mut out = BTreeMap::new();
    for ds in DATASETS.split(',') {
        let prefix = format!("{ds}/_delta_log/");
        let mut commits: Vec<(&String, &&Vec<u8>)> = by_path
            .iter()
            .filter(|(p, _)| p.starts_with(&prefix) && p.ends_with(".json"))
            .collect();
        commits.sort();
        assert!(!commits.is_empty(), "{ds}: no Delta log");
        // Replayed from every JSON commit (checkpoints only summarise them; none is expired here).
        assert!(
            by_path.contains_key(&format!("{prefix}00000000000000000000.json")),
            "{ds}: the first commit is gone"
        );
        let mut sizes: BTreeMap<String, u64> = BTreeMap::new();
        for (_, bytes) in commits {
            for line in std::str::from_utf8(bytes).unwrap().lines() {
                let action: serde_json::Value = serde_json::from_str(line).unwrap();
                if let Some(path) = action["add"]["path"].as_str() {
                    sizes.insert(path.to_string(), action["add"]["size"].as_u64().unwrap());
                }
                if let Some(path) = action["remove"]["path"].as_str() {
                    sizes.remove(path);
                }
            }
        }
        let mut files: BTreeMap<String, Vec<u8>> = BTreeMap::new();
        for (path, size) in sizes {
            let rel = format!("{ds}/{path}");
            let data = by_path
                .get(&rel)
                .unwrap_or_else(|| panic!("{rel}: in the table, not in the output"));
            assert_eq!(size, data.len() as u64, "{rel}: logged size");
            files.insert(path, data.to_vec());
        }
        out.insert(ds.to_string(), files);
    }
    out
}

fn table_check(moto: Option<&Moto>, out: &str) {
    let mut c = eraflow();
    if let Some(m) = moto {
        m.env(&mut c);
    }
    run_ok(c.args(["table", "check", out]), "eraflow table check");
}

#[test]
fn delta_tables_read_row_for_row_as_the_parquet_export_in_every_reader() {
    if !readers_available() {
        return;
    }
    let src = tempfile::tempdir().unwrap();
    let inputs = inputs(src.path(), 2);
    let (delta, plain) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let d = delta.path().to_str().unwrap();
    run_ok(&mut export_cmd(None, d, &inputs, true), "delta export");
    run_ok(
        &mut export_cmd(None, plain.path().to_str().unwrap(), &inputs, false),
        "plain export",
    );
    let got = crate::util::python_ok(
        "delta_readers.py",
        &[
            d,
            plain.path().to_str().unwrap(),
            "blocks",
            "transactions",
            "logs",
            "withdrawals",
            "erc20_transfers",
            "beacon_blocks",
            "attestations",
            "validators",
        ],
    );
    // The era file's withdrawals, and an empty table read as one (no rows, its schema).
    assert!(got.contains("erc20_transfers 0 rows, version 0"), "{got}");
    assert!(got.contains("chdb validators 64"), "{got}");
    // The analyst quickstart's questions in ClickHouse over the tables agree with Polars over the plain files.
    assert_eq!(got.matches("chdb quickstart:").count(), 3, "{got}");
    table_check(None, d);
    // The report page and `verify --outputs` work on a Delta output as on a plain one.
    run_ok(
        eraflow().args(["verify", "--outputs", d]),
        "verify --outputs",
    );
    run_ok(eraflow().args(["report", d]), "report");
}

#[test]
fn a_rerun_commits_nothing_and_a_commit_whose_record_was_lost_is_not_made_twice() {
    let src = tempfile::tempdir().unwrap();
    let inputs = inputs(src.path(), 2);
    let out = tempfile::tempdir().unwrap();
    let o = out.path().to_str().unwrap();
    run_ok(&mut export_cmd(None, o, &inputs, true), "export");
    let first = snapshot(out.path());
    let before = tables(&first);
    // Two era1 files and the era file's payloads.
    assert_eq!(before["blocks"].len(), 3);
    assert!(before["erc20_transfers"].is_empty(), "an empty table");
    let logs = |s: &[(PathBuf, Vec<u8>)]| {
        s.iter()
            .filter(|(p, _)| p.to_string_lossy().contains("_delta_log"))
            .count()
    };
    // A no-op rerun: no commit.
    let again = run_ok(&mut export_cmd(None, o, &inputs, true), "rerun");
    assert!(again.contains("0 done, 3 skipped"), "{again}");
    assert_eq!(logs(&snapshot(out.path())), logs(&first));
    // A crash between a source's commits and its records: the rerun exports it again, finds its commits by
    // their transaction ids, and commits nothing.
    let records = out.path().join("_eraflow/sources");
    let first_source = std::fs::read_dir(&records)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .min()
        .unwrap();
    std::fs::remove_dir_all(&first_source).unwrap();
    let redo = run_ok(&mut export_cmd(None, o, &inputs, true), "rerun");
    assert!(redo.contains("1 done, 2 skipped"), "{redo}");
    let after = snapshot(out.path());
    assert_eq!(logs(&after), logs(&first), "no new commit");
    assert_eq!(tables(&after), before);
    table_check(None, o);
    // A table whose log is lost is made again, and every source's file added to it again (the records of the
    // lost table prove nothing).
    std::fs::remove_dir_all(out.path().join("blocks/_delta_log")).unwrap();
    let remade = run_ok(
        &mut export_cmd(None, o, &inputs, true),
        "rerun after a lost log",
    );
    assert!(remade.contains("3 done, 0 skipped"), "{remade}");
    assert_eq!(tables(&snapshot(out.path())), before);
    table_check(None, o);
}

/// A table's files (path within it, bytes), by dataset.
type Tables = BTreeMap<String, BTreeMap<String, Vec<u8>>>;

/// The tables of a clean local Delta run over `inputs`, and how long it took.
fn reference_tables(inputs: &[PathBuf]) -> (Tables, Duration) {
    let reference = tempfile::tempdir().unwrap();
    let started = std::time::Instant::now();
    run_ok(
        &mut export_cmd(None, reference.path().to_str().unwrap(), inputs, true),
        "reference",
    );
    let took = started.elapsed();
    (tables(&snapshot(reference.path())), took)
}

/// A Delta export into `out` killed (-9) after `delay`, then run again to its end.
fn killed_then_rerun(moto: Option<&Moto>, out: &str, inputs: &[PathBuf], delay: Duration) {
    let mut child = export_cmd(moto, out, inputs, true)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(delay);
    let _ = child.kill();
    let _ = child.wait();
    run_ok(
        &mut export_cmd(moto, out, inputs, true),
        "rerun after kill -9",
    );
}

/// Every table of `got` holds exactly the files, byte for byte, of `expected`'s (`what` names the run).
fn assert_same_tables(got: &Tables, expected: &Tables, what: &str) {
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>()
    );
    for (ds, files) in got {
        assert!(files == &expected[ds], "{what}: table {ds} differs");
    }
}

#[test]
fn killed_delta_exports_rerun_to_a_clean_runs_tables_locally() {
    let src = tempfile::tempdir().unwrap();
    let inputs = inputs(src.path(), 4);
    let (expected, clean) = reference_tables(&inputs);
    // 20 kill points spread over a clean run's length: before the tables exist, mid-file, between a file's
    // commits and its records, between files.
    let points = 20u32;
    for k in 0..points {
        let out = tempfile::tempdir().unwrap();
        let o = out.path().to_str().unwrap();
        killed_then_rerun(None, o, &inputs, clean * k / points);
        let got = tables(&snapshot(out.path()));
        assert_same_tables(
            &got,
            &expected,
            &format!("kill point {k}, against a clean run"),
        );
        table_check(None, o);
    }
}

#[test]
fn killed_delta_exports_into_s3_rerun_to_a_clean_runs_tables() {
    let Some(moto) = Moto::start() else { return };
    moto.bucket("delta-kill");
    let src = tempfile::tempdir().unwrap();
    let inputs = inputs(src.path(), 3);
    let (expected, _) = reference_tables(&inputs);
    let started = std::time::Instant::now();
    run_ok(
        &mut export_cmd(Some(&moto), "s3://delta-kill/clean", &inputs, true),
        "clean S3 run",
    );
    let clean = started.elapsed();
    let points = 20u32;
    for k in 0..points {
        let out = format!("s3://delta-kill/k{k}");
        let delay = clean * k / points + Duration::from_millis(20);
        killed_then_rerun(Some(&moto), &out, &inputs, delay);
        let got = tables(&moto.objects("delta-kill", &format!("k{k}")));
        let what = format!("kill point {k}, against a clean local run");
        assert_same_tables(&got, &expected, &what);
        table_check(Some(&moto), &out);
    }
}

#[test]
fn four_concurrent_shards_into_one_s3_prefix_give_one_runs_tables() {
    let Some(moto) = Moto::start() else { return };
    moto.bucket("delta-shards");
    let src = tempfile::tempdir().unwrap();
    let inputs = inputs(src.path(), 7);
    let (expected, _) = reference_tables(&inputs);
    let children: Vec<_> = (0..4)
        .map(|k| {
            let mut c = export_cmd(Some(&moto), "s3://delta-shards/t", &inputs, true);
            c.args(["--shard", &format!("{k}/4")])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let o = c.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let objects = moto.objects("delta-shards", "t");
    assert_same_tables(&tables(&objects), &expected, "4 shards, against one run");
    // Every source's file is added once: one commit per (source, dataset) with rows, plus each table's
    // creation (made by one writer; the others found it).
    let commits = objects
        .iter()
        .filter(|(p, _)| {
            p.starts_with("blocks/_delta_log") && p.to_string_lossy().ends_with(".json")
        })
        .count();
    assert_eq!(commits, 1 + expected["blocks"].len());
    table_check(Some(&moto), "s3://delta-shards/t");
}

#[test]
fn optimize_compacts_and_vacuum_deletes_while_reruns_and_records_stay_true() {
    let src = tempfile::tempdir().unwrap();
    let inputs = inputs(src.path(), 5);
    let out = tempfile::tempdir().unwrap();
    let o = out.path().to_str().unwrap();
    run_ok(&mut export_cmd(None, o, &inputs, true), "export");
    let before = tables(&snapshot(out.path()));
    // Five era1 files and the era file's payloads, all small: one group.
    assert_eq!(before["blocks"].len(), 6);
    let said = run_ok(eraflow().args(["table", "optimize", o]), "optimize");
    assert!(said.contains("blocks: 6 files compacted into 1"), "{said}");
    let after = tables(&snapshot(out.path()));
    assert_eq!(after["blocks"].len(), 1);
    // The era file's table had one file: nothing to compact.
    assert_eq!(after["beacon_blocks"], before["beacon_blocks"]);
    table_check(None, o);
    run_ok(
        eraflow().args(["verify", "--outputs", o]),
        "verify --outputs",
    );
    // A rerun proves every source complete by the compacted files.
    let again = run_ok(&mut export_cmd(None, o, &inputs, true), "rerun");
    assert!(again.contains("0 done, 6 skipped"), "{again}");
    // Vacuum: the compacted-away files go, the table's stay.
    let dry = run_ok(
        eraflow().args(["table", "vacuum", o, "--retain", "0", "--dry-run"]),
        "vacuum --dry-run",
    );
    assert!(dry.contains("blocks: 6 files to delete"), "{dry}");
    run_ok(
        eraflow().args(["table", "vacuum", o, "--retain", "0"]),
        "vacuum",
    );
    let parquet_files = |ds: &str| {
        crate::util::files_in(&out.path().join(ds))
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
            .filter(|p| !p.to_string_lossy().contains("_delta_log"))
            .count()
    };
    assert_eq!(parquet_files("blocks"), 1);
    assert_eq!(tables(&snapshot(out.path())), after);
    table_check(None, o);
    // Other options would re-add the compacted sources' rows beside the compacted file: refused, by name.
    let mut c = export_cmd(None, o, &inputs, true);
    c.args(["--compression", "snappy"]);
    let (code, _, err) = crate::util::run(&mut c);
    // A usage error: the options, not the data.
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("are in the compacted file"), "{err}");
    assert_eq!(tables(&snapshot(out.path()))["blocks"], after["blocks"]);
}

#[test]
fn a_damaged_table_fails_table_check_naming_what_disagrees() {
    let src = tempfile::tempdir().unwrap();
    let inputs = inputs(src.path(), 1);
    let out = tempfile::tempdir().unwrap();
    let o = out.path().to_str().unwrap();
    run_ok(&mut export_cmd(None, o, &inputs, true), "export");
    let file = crate::util::files_in(&out.path().join("blocks"))
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "parquet"))
        .unwrap();
    std::fs::remove_file(&file).unwrap();
    let (code, stdout, _) = crate::util::run(eraflow().args(["table", "check", o]));
    assert_eq!(code, Some(1), "{stdout}");
    assert!(stdout.contains("FAIL blocks"), "{stdout}");
    assert!(
        stdout.contains("in the log, not in the storage"),
        "{stdout}"
    );
}

#[test]
fn a_no_op_rerun_into_s3_reads_metadata_only_and_commits_nothing() {
    let logs = tempfile::tempdir().unwrap();
    let log = logs.path().join("moto.log");
    let Some(moto) = Moto::start_logging(Some(&log)) else {
        return;
    };
    moto.bucket("delta-noop");
    let src = tempfile::tempdir().unwrap();
    let inputs = inputs(src.path(), 3);
    let out = "s3://delta-noop/daily";
    run_ok(&mut export_cmd(Some(&moto), out, &inputs, true), "export");
    let requests = |from: usize| crate::s3_output::logged_requests(&log, from);
    let before = requests(0).len();
    let again = run_ok(&mut export_cmd(Some(&moto), out, &inputs, true), "rerun");
    assert!(again.contains("0 done, 4 skipped"), "{again}");
    let during = requests(before);
    assert!(
        !during
            .iter()
            .any(|l| l.contains("\"GET ") && l.contains(".parquet")),
        "a Parquet object was read back: {during:#?}"
    );
    // Nothing written but the run report: no commit, no record, no data.
    let writes: Vec<&String> = during
        .iter()
        .filter(|l| l.contains("\"PUT ") || l.contains("\"POST ") || l.contains("\"DELETE "))
        .filter(|l| !l.contains("/_eraflow/runs/") && !l.contains("/_eraflow/locks/"))
        .collect();
    assert!(writes.is_empty(), "{writes:#?}");
    // As a plain output's: at most 2 requests per source; no table is read (the listing shows each exists).
    eprintln!(
        "no-op Delta rerun into S3: {} requests ({} sources)",
        during.len(),
        inputs.len()
    );
    assert!(
        during.len() <= 2 * inputs.len(),
        "{} requests: {during:#?}",
        during.len()
    );
    assert!(
        !during.iter().any(|l| l.contains("_delta_log")),
        "{during:#?}"
    );
}
