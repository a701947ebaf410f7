//! Any event from an ABI (`--decode`, `[decode]`): eraflow's decoder against eth-abi (Python), an independent
//! one, on hand-written signatures and random logs eth-abi encoded (every parameter kind: addresses, small and
//! wide integers signed and unsigned, bool, fixed and dynamic bytes, strings, arrays, tuples, indexed hashes;
//! one event from a JSON ABI file) with look-alikes that must give no row and be counted, and on synthetic
//! archives full of token events and their look-alikes (`synth --tokens`); a bad spec is a usage error (exit 2)
//! naming it, before any work; a pipeline's `[decode]` table with an ABI file beside it; and a rerun redoes a
//! dataset whose definition changed, and nothing when none did.
//!
//! Needs `python3` with polars, eth-abi and pycryptodome (`.ci/run` installs them and sets
//! ERAFLOW_REQUIRE_ETH_ABI=1, which turns their absence from a loud skip into a failure).

use crate::util::{eraflow, snapshot};
use eraflow::datasets::{self, decoded};
use eraflow::export::progress::Progress;
use eraflow::export::{export, ExportOptions};
use eraflow::network::Network;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn oracle_available() -> bool {
    crate::skip::python_has(
        "polars, eth_abi, Crypto.Hash.keccak",
        "polars eth-abi pycryptodome",
        "ERAFLOW_REQUIRE_ETH_ABI",
        "decoded events against eth-abi",
    )
}

/// Runs tests/python/decode_events.py and returns its output (asserting it succeeded).
fn script(args: &[&str]) -> String {
    crate::util::python_ok("decode_events.py", args)
}

fn hex(s: &str) -> Vec<u8> {
    alloy_primitives::hex::decode(s).unwrap()
}

#[test]
fn decoded_events_equal_eth_abi_on_hand_written_signatures() {
    if !oracle_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    script(&["gen", d]);
    let cases: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("logs.json")).unwrap()).unwrap();
    let mut lookalikes = Vec::new();
    for (i, case) in cases.as_array().unwrap().iter().enumerate() {
        let logs: Vec<decoded::LooseLog> = case["logs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| decoded::LooseLog {
                address: hex(l["address"].as_str().unwrap()),
                topics: l["topics"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|t| alloy_primitives::B256::from_slice(&hex(t.as_str().unwrap())))
                    .collect(),
                data: hex(l["data"].as_str().unwrap()),
            })
            .collect();
        let spec = case["spec"].as_str().unwrap();
        let (batch, n) = decoded::decode_logs(spec, &logs).unwrap_or_else(|e| panic!("{e}"));
        lookalikes.push(n);
        let f = std::fs::File::create(dir.path().join(format!("{i}.parquet"))).unwrap();
        let mut w = parquet::arrow::ArrowWriter::try_new(f, batch.schema(), None).unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
    }
    std::fs::write(
        dir.path().join("lookalikes.json"),
        serde_json::to_string(&lookalikes).unwrap(),
    )
    .unwrap();
    let text = script(&["check", d]);
    assert_eq!(text.matches("ok: ").count(), 4, "{text}");
    eprintln!("{text}");
}

/// The token-archive events' specs, by dataset (from the oracle, which decodes with the same events).
fn archive_specs() -> BTreeMap<String, String> {
    serde_json::from_str(&script(&["specs"])).unwrap()
}

#[test]
fn decoded_events_equal_eth_abi_on_synthetic_token_archives() {
    if !oracle_available() {
        return;
    }
    let net = Network::by_name("synthnet").unwrap();
    let src = tempfile::tempdir().unwrap();
    let (era1, ere) = crate::util::token_archives(src.path(), 1200, 400);
    let specs: Vec<String> = archive_specs().into_values().collect();
    for (kind, inputs) in [("era1", era1), ("ere", ere)] {
        let out = tempfile::tempdir().unwrap();
        let mut picked = datasets::by_names(&["blocks", "logs"]).unwrap();
        picked.extend(decoded::from_specs(&specs).unwrap());
        let opts = ExportOptions::new(out.path().to_path_buf(), picked);
        let outcomes = export(&inputs, &opts, &Progress::hidden()).unwrap();
        assert!(outcomes.iter().all(|o| o.ok), "{outcomes:?}");
        let mut lookalikes = BTreeMap::<String, u64>::new();
        for (d, n) in outcomes.iter().flat_map(|o| &o.skipped_lookalikes) {
            *lookalikes.entry(d.clone()).or_insert(0) += n;
        }
        // The archive holds every token event and look-alikes of them.
        for d in ["event_Transfer", "nft_transfers", "event_TransferBatch"] {
            let rows: u64 = outcomes.iter().filter_map(|o| o.rows.get(d)).sum();
            assert!(rows > 0, "{kind}: no {d} rows");
            assert!(
                lookalikes.get(d).is_some_and(|n| *n > 0),
                "{kind}: {d}: {lookalikes:?}"
            );
        }
        let expected = serde_json::json!({ "lookalikes": lookalikes, "chain_id": net.chain_id });
        let text = script(&[
            "archive",
            out.path().to_str().unwrap(),
            &expected.to_string(),
        ]);
        assert_eq!(text.matches("ok: ").count(), 10, "{kind}: {text}");
        eprintln!("{kind}:\n{text}");
    }
}

#[test]
fn a_bad_spec_is_a_usage_error_naming_it() {
    let out = tempfile::tempdir().unwrap();
    let missing = out.path().join("missing.json");
    let bad_abi = out.path().join("bad.json");
    std::fs::write(&bad_abi, "[{\"type\": \"event\", \"name\": 3}]").unwrap();
    let no_events = out.path().join("none.json");
    std::fs::write(&no_events, "[]").unwrap();
    for (spec, says) in [
        (
            "Swap(address indexed sender, uint257 amount)".to_string(),
            "uint257",
        ),
        ("Swap(address sender".to_string(), "not an event signature"),
        (missing.display().to_string(), "missing.json"),
        (bad_abi.display().to_string(), "not a JSON ABI"),
        (no_events.display().to_string(), "no events"),
        ("Transfer(address from)@0x12".to_string(), "not 20 bytes"),
        (
            "Transfer(address from)@0xzz00000000000000000000000000000000000000".to_string(),
            "not 20 bytes",
        ),
        ("blocks=Transfer(address from)".to_string(), "taken"),
        (
            "E(uint8 indexed a, uint8 indexed b, uint8 indexed c, uint8 indexed d)".to_string(),
            "at most 4 topics",
        ),
    ] {
        let run = eraflow()
            .args(["export", "--out"])
            .arg(out.path().join("out"))
            .args(["--decode", &spec, "no-such-input.era1"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{spec}: {err}");
        assert!(
            err.contains(&format!("decode '{spec}'")) && err.contains(says),
            "{spec}: {err}"
        );
        assert!(!out.path().join("out").exists(), "{spec}: work started");
    }
}

/// Types nested far past any real ABI (800 array dimensions; 40 levels of tuple components, each an array of 30
/// dimensions) overflowed a worker's stack (exit 134) once the export started, wherever the spec came from: now
/// a usage error naming the spec, in a signature and in an ABI file alike, before any work. 32 levels still
/// export.
#[test]
fn types_nested_past_any_abi_are_a_usage_error_naming_the_spec() {
    let out = tempfile::tempdir().unwrap();
    let input = crate::util::synth_era1_files(&out.path().join("in"), 1, 20);
    let arrays = format!("uint8{}", "[]".repeat(800));
    let flat_abi = out.path().join("arrays.json");
    std::fs::write(
        &flat_abi,
        serde_json::json!([{"type": "event", "name": "E", "anonymous": false, "inputs": [
            {"name": "x", "type": arrays, "indexed": false}]}])
        .to_string(),
    )
    .unwrap();
    // 40 levels of components stay inside serde_json's own recursion limit; their arrays make them 1240 deep.
    let mut param = serde_json::json!({"name": "leaf", "type": "uint8"});
    for _ in 0..40 {
        param = serde_json::json!({"name": "t", "type": format!("tuple{}", "[]".repeat(30)),
            "components": [param]});
    }
    param["indexed"] = serde_json::json!(false);
    let nested_abi = out.path().join("components.json");
    std::fs::write(
        &nested_abi,
        serde_json::json!([{"type": "event", "name": "E", "anonymous": false, "inputs": [param]}])
            .to_string(),
    )
    .unwrap();
    for (spec, says) in [
        (format!("E({arrays} x)"), "nests 800 levels"),
        (flat_abi.display().to_string(), "nests 800 levels"),
        (nested_abi.display().to_string(), "nests 1240 levels"),
    ] {
        let run = eraflow()
            .args(["export", "--out"])
            .arg(out.path().join("out"))
            .args(["-q", "--datasets", "logs", "--decode", &spec])
            .arg(&input[0])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&run.stderr);
        let shown: String = spec.chars().take(60).collect();
        assert_eq!(run.status.code(), Some(2), "{shown}: {err}");
        assert!(
            err.contains(&format!("decode '{spec}'")) && err.contains(says),
            "{shown}: {err}"
        );
        assert!(!out.path().join("out").exists(), "{shown}: work started");
    }
    // The limit itself is a spec like any other.
    let deepest = format!("E(uint8{} x)", "[]".repeat(32));
    let run = eraflow()
        .args(["export", "--out"])
        .arg(out.path().join("out"))
        .args(["-q", "--datasets", "logs", "--decode", &deepest])
        .arg(&input[0])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0), "{run:?}");
}

/// A pipeline file with a `[decode]` table naming `abi/erc20.json` beside it, exporting `inputs` to `out`.
fn decode_pipeline(dir: &Path, inputs: &Path, out: &Path, events: &str) -> PathBuf {
    std::fs::create_dir_all(dir.join("abi")).unwrap();
    std::fs::write(
        dir.join("abi/erc20.json"),
        serde_json::json!([
            {"type": "event", "name": "Transfer", "anonymous": false, "inputs": [
                {"name": "from", "type": "address", "indexed": true},
                {"name": "to", "type": "address", "indexed": true},
                {"name": "value", "type": "uint256", "indexed": false}]},
            {"type": "event", "name": "Approval", "anonymous": false, "inputs": [
                {"name": "owner", "type": "address", "indexed": true},
                {"name": "spender", "type": "address", "indexed": true},
                {"name": "value", "type": "uint256", "indexed": false}]},
            {"type": "function", "name": "totalSupply", "inputs": [], "outputs": [
                {"name": "", "type": "uint256"}], "stateMutability": "view"}
        ])
        .to_string(),
    )
    .unwrap();
    let p = dir.join("decode.toml");
    std::fs::write(
        &p,
        format!(
            "name = \"decode\"\nthreads = 1\ninputs = [{inputs:?}]\nout = {out:?}\n\n[export]\n\
             datasets = [\"blocks\"]\nsenders = false\n\n[decode]\nevents = [{events}]\n"
        ),
    )
    .unwrap();
    p
}

fn run_pipeline(p: &Path, cwd: &Path) -> serde_json::Value {
    let o = eraflow()
        .current_dir(cwd)
        .args(["run", "--json"])
        .arg(p)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    serde_json::from_slice(&o.stdout).unwrap()
}

/// (file skipped, rows per dataset) of each file of a run report's export stage.
fn files(report: &serde_json::Value) -> Vec<(bool, serde_json::Value)> {
    report["stages"][0]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["skipped"].as_bool().unwrap(), f["rows"].clone()))
        .collect()
}

#[test]
fn a_pipeline_decode_table_reads_its_abi_beside_it_and_reruns_only_on_a_changed_definition() {
    let dir = tempfile::tempdir().unwrap();
    let net = Network::by_name("synthnet").unwrap();
    let mut o = eraflow::synth::era1::SynthOptions::new(net);
    (o.files, o.blocks, o.txs_per_block, o.tokens) = (2, 64, 2, true);
    let inputs = dir.path().join("in");
    eraflow::synth::era1::write(&inputs, &o).unwrap();
    let out = dir.path().join("out");
    let jobs = dir.path().join("jobs");
    // Relative: the pipeline file's folder, not the working directory's.
    let abi = "\"erc20=abi/erc20.json\"";
    let p = decode_pipeline(&jobs, &inputs, &out, abi);
    let elsewhere = tempfile::tempdir().unwrap();
    let first = run_pipeline(&p, elsewhere.path());
    let done = files(&first);
    assert!(done.iter().all(|(skipped, _)| !skipped), "{first}");
    for (_, rows) in &done {
        for d in ["blocks", "erc20_Transfer", "erc20_Approval"] {
            assert!(rows[d].as_u64().is_some_and(|n| n > 0), "{d}: {rows}");
        }
    }
    assert!(
        first["stages"][0]["skipped_lookalikes"]["erc20_Transfer"]
            .as_u64()
            .is_some_and(|n| n > 0),
        "{first}"
    );
    let before = snapshot(&out);

    // Unchanged: a no-op.
    let again = run_pipeline(&p, elsewhere.path());
    assert!(files(&again).iter().all(|(skipped, _)| *skipped), "{again}");
    assert_eq!(snapshot(&out), before);

    // Limited to one contract (both of the file's events): a changed definition redoes those datasets' files
    // (only), with fewer rows.
    let limited = "\"erc20=abi/erc20.json@0xe100000000000000000000000000000000000001\"";
    decode_pipeline(&jobs, &inputs, &out, limited);
    let changed = run_pipeline(&p, elsewhere.path());
    let redone = files(&changed);
    assert!(redone.iter().all(|(skipped, _)| !skipped), "{changed}");
    for ((_, a), (_, b)) in done.iter().zip(&redone) {
        let (all, one) = (a["erc20_Transfer"].as_u64(), b["erc20_Transfer"].as_u64());
        assert!(one < all, "{a} {b}");
        assert!(b["blocks"].is_null(), "{b}");
    }
    let again = run_pipeline(&p, elsewhere.path());
    assert!(files(&again).iter().all(|(skipped, _)| *skipped), "{again}");

    // The same spec through `eraflow export --decode`: the same definition, so nothing to redo.
    let exported = eraflow()
        .args([
            "--threads",
            "1",
            "export",
            "--no-senders",
            "--json",
            "--datasets",
            "blocks",
        ])
        .arg("--out")
        .arg(&out)
        .arg("--decode")
        .arg(format!(
            "erc20={}@0xe100000000000000000000000000000000000001",
            jobs.join("abi/erc20.json").display()
        ))
        .arg(&inputs)
        .output()
        .unwrap();
    assert_eq!(exported.status.code(), Some(0), "{exported:?}");
    let r: serde_json::Value = serde_json::from_slice(&exported.stdout).unwrap();
    assert!(files(&r).iter().all(|(skipped, _)| *skipped), "{r}");
}
