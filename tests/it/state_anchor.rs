//! Era states anchored to trusted roots (issue 14, "era state, honestly"): a trusted list or a beacon node's
//! answers anchor a state directly, an anchored next state anchors the one before it through an empty first
//! slot, a differing trusted root fails the file, and every era report says whether and how its state was
//! anchored (`verify --json` and the text output).

use crate::http_input::Mirror;
use crate::util::{eraflow, run};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn synth_chain(dir: &Path) -> Vec<PathBuf> {
    let (c, _, err) = run(eraflow()
        .args(["synth", "--kind", "era", "--files", "3", "--blocks", "4"])
        .args(["--validators", "4", "--out", dir.to_str().unwrap()]));
    assert_eq!(c, Some(0), "{err}");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

/// `verify --json` of `files` with `--trusted-states` when given: (exit code, reports, stderr).
fn verify_json(files: &[PathBuf], trusted: Option<&str>) -> (Option<i32>, Vec<Value>, String) {
    let mut cmd = eraflow();
    cmd.args(["verify", "--json"]);
    if let Some(t) = trusted {
        cmd.args(["--trusted-states", t]);
    }
    let (c, out, err) = run(cmd.args(files));
    let reports = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (c, reports, err)
}

fn anchor(r: &Value) -> (bool, Option<&str>) {
    let a = &r["beacon"]["state_anchor"];
    (a["anchored"].as_bool().unwrap(), a["by"].as_str())
}

#[test]
fn trusted_roots_anchor_states_directly_and_through_empty_slot_links() {
    let d = tempfile::tempdir().unwrap();
    let files = synth_chain(&d.path().join("in"));
    let (c, reports, _) = verify_json(&files, None);
    assert_eq!(c, Some(0));
    assert!(
        reports.iter().all(|r| anchor(r) == (false, None)),
        "{reports:?}"
    );
    let root = |i: usize| {
        reports[i]["beacon"]["state_root"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let slot = |i: usize| reports[i]["beacon"]["state_slot"].as_u64().unwrap();

    // The newest state trusted: the two before it are anchored through their links.
    let trusted = d.path().join("trusted.txt");
    std::fs::write(
        &trusted,
        format!("# newest\nsynthnet {} {}\n", slot(2), root(2)),
    )
    .unwrap();
    let (c, got, _) = verify_json(&files, trusted.to_str());
    assert_eq!(c, Some(0));
    let kinds: Vec<_> = got.iter().map(anchor).collect();
    assert_eq!(
        kinds,
        [
            (true, Some("linked")),
            (true, Some("linked")),
            (true, Some("trusted"))
        ]
    );
    // The text output says it too.
    let (_, text, _) = run(eraflow()
        .args(["verify", "--trusted-states", trusted.to_str().unwrap()])
        .args(&files));
    assert_eq!(text.matches("state: anchored").count(), 3, "{text}");

    // The middle state trusted: only the first is anchored besides it; the last is not.
    std::fs::write(&trusted, format!("{} {}\n", slot(1), root(1))).unwrap();
    let (_, got, _) = verify_json(&files, trusted.to_str());
    let kinds: Vec<_> = got.iter().map(anchor).collect();
    assert_eq!(
        kinds,
        [
            (true, Some("linked")),
            (true, Some("trusted")),
            (false, None)
        ]
    );
    assert!(
        got[2]["beacon"]["state_anchor"]["source"]
            .as_str()
            .unwrap()
            .contains(&format!("no root for slot {}", slot(2))),
        "{}",
        got[2]
    );

    // A trusted root that differs fails that file (exit 1), naming both roots; a broken file anchors nothing.
    let wrong = format!("0x{}", "11".repeat(32));
    std::fs::write(&trusted, format!("{} {wrong}\n", slot(2))).unwrap();
    let (c, got, _) = verify_json(&files, trusted.to_str());
    assert_eq!(c, Some(1));
    let errors = got[2]["errors"].to_string();
    assert!(
        errors.contains(&wrong) && errors.contains(&root(2)),
        "{errors}"
    );
    assert!(got.iter().all(|r| !anchor(r).0), "{got:?}");

    // Another network's line does not apply; an unreadable list is a usage error naming the line.
    std::fs::write(&trusted, format!("sepolia {} {wrong}\n", slot(2))).unwrap();
    assert_eq!(verify_json(&files, trusted.to_str()).0, Some(0));
    std::fs::write(&trusted, format!("{} 0x1234\n", slot(2))).unwrap();
    let (c, _, err) = verify_json(&files, trusted.to_str());
    assert_eq!(c, Some(2), "{err}");
    assert!(
        err.contains("trusted.txt:1") && err.contains("0x1234"),
        "{err}"
    );
}

#[test]
fn the_real_mainnet_genesis_state_is_anchored_by_its_published_root() {
    let Some(era) = crate::testdata::file("era/mainnet-00000-4b363db9.era") else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let trusted = d.path().join("t.csv");
    // The mainnet genesis state root, as published (beacon API `states/genesis/root`).
    std::fs::write(
        &trusted,
        "mainnet,0,0x7e76880eb67bbdc86250aa578958e9d0675e64e714337855204fb5abaaf82c2b\n",
    )
    .unwrap();
    let (c, got, err) = verify_json(&[era], trusted.to_str());
    assert_eq!(c, Some(0), "{err}");
    assert_eq!(anchor(&got[0]), (true, Some("trusted")));
}

/// A beacon node's REST answers as static files (`eth/v1/beacon/...`), served over loopback.
fn beacon_tree(dir: &Path, gvr: &str, roots: &[(u64, &str)], blocks_at: &[u64]) {
    let b = dir.join("eth/v1/beacon");
    std::fs::create_dir_all(b.join("headers")).unwrap();
    std::fs::write(
        b.join("genesis"),
        format!(r#"{{"data":{{"genesis_time":"0","genesis_validators_root":"{gvr}","genesis_fork_version":"0x00000000"}}}}"#),
    )
    .unwrap();
    for (slot, root) in roots {
        let s = b.join(format!("states/{slot}"));
        std::fs::create_dir_all(&s).unwrap();
        std::fs::write(
            s.join("root"),
            format!(
                r#"{{"execution_optimistic":false,"finalized":true,"data":{{"root":"{root}"}}}}"#
            ),
        )
        .unwrap();
    }
    for slot in blocks_at {
        std::fs::write(b.join(format!("headers/{slot}")), r#"{"data":{}}"#).unwrap();
    }
}

#[test]
fn a_beacon_node_anchors_states_of_its_own_network_at_empty_slots() {
    let d = tempfile::tempdir().unwrap();
    let files = synth_chain(&d.path().join("in"));
    let (_, reports, _) = verify_json(&files, None);
    let root = |i: usize| {
        reports[i]["beacon"]["state_root"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let slot = |i: usize| reports[i]["beacon"]["state_slot"].as_u64().unwrap();
    let synthnet_gvr = "0x5e7a11ce0000000000000000000000000000000000000000000000000000e4a5";
    let node = d.path().join("node");
    // Era 2's slot holds a block on this node: its API state is after it, so it is not taken.
    beacon_tree(
        &node,
        synthnet_gvr,
        &[
            (slot(0), &root(0)),
            (slot(1), &format!("0x{}", "22".repeat(32))),
        ],
        &[slot(1)],
    );
    let Some(m) = Mirror::start(&node, None) else {
        return;
    };
    let (c, got, err) = verify_json(&files, Some(&m.url()));
    assert_eq!(c, Some(0), "{err}");
    let kinds: Vec<_> = got.iter().map(anchor).collect();
    assert_eq!(
        kinds,
        [(true, Some("trusted")), (false, None), (false, None)]
    );
    let why = |i: usize| got[i]["beacon"]["state_anchor"]["source"].to_string();
    assert!(why(1).contains("has a block"), "{}", why(1));
    assert!(
        why(2).contains(&format!("no state for slot {}", slot(2))),
        "{}",
        why(2)
    );

    // A node of another network anchors nothing and fails nothing.
    let other = d.path().join("other");
    beacon_tree(
        &other,
        &format!("0x{}", "33".repeat(32)),
        &[(slot(0), &root(0))],
        &[],
    );
    let Some(m) = Mirror::start(&other, None) else {
        return;
    };
    let (c, got, _) = verify_json(&files, Some(&m.url()));
    assert_eq!(c, Some(0));
    assert!(got.iter().all(|r| !anchor(r).0));
    assert!(got[0]["beacon"]["state_anchor"]["source"]
        .to_string()
        .contains("another network"));
}
