//! `eraflow verify` and canonical history: the real mainnet era1 files (and their ere conversions) are proven
//! canonical by the EIP-7643 accumulator, a well-made fake claiming to be mainnet fails naming expected and
//! found, a network without an accumulator says so, and `--canonical` sums up a set.

use crate::testdata;
use crate::util::{eraflow, run};
use eraflow::formats::MappedArchive;

fn json_lines(stdout: &str) -> Vec<serde_json::Value> {
    stdout
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn real_mainnet_era1_files_are_canonical_and_sepolia_has_no_accumulator() {
    let Some(data) = testdata::dir("canonical era1 files") else {
        return;
    };
    let era1 = data.join("era1");
    let (code, out, err) = run(eraflow()
        .args(["verify", "--json", "--canonical"])
        .arg(&era1));
    assert_eq!(code, Some(0), "{out}{err}");
    let lines = json_lines(&out);
    let files: Vec<&serde_json::Value> = lines.iter().filter(|l| l.get("file").is_some()).collect();
    assert_eq!(files.len(), 4);
    for f in files {
        let name = f["file"].as_str().unwrap();
        if name.contains("mainnet-") {
            assert_eq!(f["canonical"], true, "{f}");
            assert_eq!(f["canonical_detail"]["proven"]["accumulator"], 8192, "{f}");
        } else {
            assert!(f["canonical"].is_null(), "{f}");
            let reason = f["canonical_detail"]["reason"].as_str().unwrap();
            assert!(
                reason.contains("no accumulator for network sepolia"),
                "{reason}"
            );
        }
    }
    let summary = &lines.last().unwrap()["canonical"]["networks"];
    let mainnet = summary
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["network"] == "mainnet")
        .unwrap();
    assert_eq!(mainnet["proven"], serde_json::json!([[0, 1]]));
    assert_eq!(mainnet["missing"], serde_json::json!([[2, 1896]]));
    // And in words.
    let (_, text, _) = run(eraflow().args(["verify", "--canonical"]).arg(&era1));
    assert!(
        text.contains("canonical: yes, every block (accumulator: 8192)"),
        "{text}"
    );
    assert!(text.contains("eras proven:   0-1"), "{text}");
}

#[test]
fn a_consistent_chain_claiming_to_be_mainnet_is_not_canonical() {
    // A synthetic era 3 with mainnet's fork rules: every block, root and total difficulty is consistent, so it
    // verifies as a file, but its accumulator root is not mainnet's for era 3.
    let dir = tempfile::tempdir().unwrap();
    let mut o = eraflow::synth::era1::SynthOptions::new(
        eraflow::network::Network::by_name("mainnet").unwrap(),
    );
    (o.era, o.blocks, o.txs_per_block) = (3, 16, 0);
    let file = eraflow::synth::era1::write(dir.path(), &o)
        .unwrap()
        .remove(0);
    let (code, out, err) = run(eraflow().args(["verify", "--json"]).arg(&file));
    assert_eq!(code, Some(1), "{out}{err}");
    let r = &json_lines(&out)[0];
    assert_eq!(r["canonical"], false, "{r}");
    let errors = r["errors"].to_string();
    assert!(
        errors.contains("not mainnet's canonical history: era 3") && errors.contains("expected"),
        "{errors}"
    );
}

#[test]
fn the_manifest_and_run_report_say_which_sources_are_proven() {
    let Some(data) = testdata::dir("canonical in the manifest") else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let (code, stdout, err) = run(eraflow()
        .args([
            "export",
            "--json",
            "--no-senders",
            "--datasets",
            "blocks",
            "--out",
        ])
        .arg(out.path())
        .arg(data.join("era1/mainnet-00000-5ec1ffb8.era1"))
        .arg(data.join("era1/sepolia-00000-643a00f7.era1")));
    assert_eq!(code, Some(0), "{stdout}{err}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let files = report["stages"][0]["files"].as_array().unwrap();
    assert_eq!(files[0]["canonical"], true, "{}", files[0]);
    assert!(files[1].get("canonical").is_none(), "{}", files[1]);
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("_eraflow/manifest.json")).unwrap())
            .unwrap();
    let m = &manifest["sources"]["mainnet-00000-5ec1ffb8.era1"];
    assert_eq!(m["canonical"], true, "{m}");
    assert_eq!(m["canonical_by"]["accumulator"], 8192, "{m}");
    let s = &manifest["sources"]["sepolia-00000-643a00f7.era1"];
    assert!(s.get("canonical").is_none(), "{s}");
}

#[test]
fn a_private_network_brings_its_own_accumulator() {
    // synthnet has no embedded accumulator: with its own (the roots of its eras, as a frozen
    // HistoricalHashesAccumulator's SSZ), its era1 files are canonical and convert to default-profile ere files
    // whose every proof verifies; without it, nothing can be proven.
    let dir = tempfile::tempdir().unwrap();
    let era1 = crate::util::synth_era1_files(dir.path(), 2, 64);
    let roots: Vec<[u8; 32]> = era1
        .iter()
        .map(|p| {
            *eraflow::formats::era1::Era1File::open(p)
                .unwrap()
                .accumulator_root()
        })
        .collect();
    let acc = dir.path().join("synthnet-accumulator.ssz");
    std::fs::write(&acc, eraflow::canonical::EpochRoots(roots).to_ssz()).unwrap();
    let (code, out, err) = run(eraflow()
        .args(["verify", "--json", "--accumulator"])
        .arg(&acc)
        .args(&era1));
    assert_eq!(code, Some(0), "{out}{err}");
    for r in json_lines(&out) {
        assert_eq!(r["canonical"], true, "{r}");
    }
    let ere_dir = dir.path().join("ere");
    let (code, out, err) = run(eraflow()
        .args([
            "convert",
            "--to",
            "ere",
            "--profile",
            "default",
            "--accumulator",
        ])
        .arg(&acc)
        .arg("--out")
        .arg(&ere_dir)
        .args(&era1));
    assert_eq!(code, Some(0), "{out}{err}");
    let eres: Vec<&str> = out.lines().collect();
    assert_eq!(eres.len(), 2, "{out}");
    assert!(eres.iter().all(|e| !e.contains("noproofs")), "{out}");
    let (code, out, err) = run(eraflow()
        .args(["verify", "--json", "--accumulator"])
        .arg(&acc)
        .args(&eres));
    assert_eq!(code, Some(0), "{out}{err}");
    for r in json_lines(&out) {
        assert_eq!(r["canonical"], true, "{r}");
        assert_eq!(r["ere"]["proof_types"]["0"], 64, "{r}");
        assert_eq!(r["canonical_detail"]["proven"]["accumulator"], 64, "{r}");
    }
    // Without the accumulator: not proven, and why.
    let (code, out, _) = run(eraflow().args(["verify", "--json"]).args(&eres));
    assert_eq!(code, Some(0));
    for r in json_lines(&out) {
        assert!(r["canonical"].is_null(), "{r}");
        let why = r["canonical_detail"]["reason"].as_str().unwrap();
        assert!(why.contains("no accumulator for network synthnet"), "{why}");
    }
}
