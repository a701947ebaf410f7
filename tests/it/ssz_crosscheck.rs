//! Cross-check against an independent SSZ implementation: states and signed blocks of EVERY fork, taken out
//! of era files written by our own era writer (`synth::era`, as `eraflow synth --kind era --fork F`: blocks
//! chained into the state's `block_roots`, payloads with transactions of types 0-4), hashed here and by
//! Lodestar (`tests/crosscheck/check.mjs`, `@lodestar/types`). Skips loudly when node or the
//! npm packages are absent (`npm ci --prefix tests/crosscheck`).

use crate::util::unpack_era;
use eraflow::consensus::{self, Kind, ALL_FORKS};
use eraflow::network::Network;
use eraflow::synth::era::{write, EraSynthOptions};
use std::path::Path;
use std::process::Command;

#[test]
fn every_fork_matches_lodestar() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/crosscheck");
    let missing = !here.join("node_modules/@lodestar/types").exists();
    if missing && std::env::var_os("ERAFLOW_REQUIRE_CROSSCHECK").is_some() {
        panic!("ERAFLOW_REQUIRE_CROSSCHECK is set but tests/crosscheck/node_modules is missing (npm ci --prefix tests/crosscheck)");
    }
    if missing || Command::new("node").arg("--version").output().is_err() {
        eprintln!(
            "\n!!!!! SKIPPED SSZ cross-check: node or tests/crosscheck/node_modules missing (npm ci --prefix tests/crosscheck) !!!!!\n"
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    if let Some(keep) = std::env::var_os("ERAFLOW_CROSSCHECK_DIR") {
        // Debugging aid: also leave the objects in a directory of your choice.
        std::fs::create_dir_all(&keep).unwrap();
        eprintln!(
            "cross-check objects also written to {}",
            Path::new(&keep).display()
        );
    }
    let mut manifest = Vec::new();
    let net = Network::by_name("synthnet").unwrap();
    for fork in ALL_FORKS {
        for (validators, blocks, seed) in [(0usize, 1u64, 1u64), (70, 3, 2), (1000, 2, 3)] {
            let mut o = EraSynthOptions::new(net.clone());
            o.era = EraSynthOptions::era_of_fork(&net, fork).unwrap();
            (o.validators, o.blocks, o.seed) = (validators, blocks, seed);
            let era_dir = tempfile::tempdir().unwrap();
            let path = write(era_dir.path(), &o).unwrap().remove(0);
            let (blocks, state) = unpack_era(&path);
            let signed: Vec<Vec<u8>> = blocks.into_iter().map(|(_, b)| b).collect();
            let name = format!("{fork}-state-{validators}.ssz");
            std::fs::write(dir.path().join(&name), &state).unwrap();
            let root = consensus::state_root(&state, consensus::Spec::mainnet(fork)).unwrap();
            manifest.push(serde_json::json!({"file": name, "kind": "BeaconState", "fork": fork.name(), "root": format!("0x{}", hex::encode(root))}));
            for (i, b) in signed.iter().enumerate() {
                let name = format!("{fork}-signed-block-{validators}-{i}.ssz");
                std::fs::write(dir.path().join(&name), b).unwrap();
                let root = consensus::root_of(b, Kind::SignedBlock, consensus::Spec::mainnet(fork))
                    .unwrap();
                manifest.push(serde_json::json!({"file": name, "kind": "SignedBeaconBlock", "fork": fork.name(), "root": format!("0x{}", hex::encode(root))}));
                // The message alone, as a BeaconBlock.
                let msg =
                    consensus::SignedBeaconBlock::new(b, consensus::Spec::mainnet(fork)).unwrap();
                let mroot = msg.message().unwrap().root().unwrap();
                let name = format!("{fork}-block-{validators}-{i}.ssz");
                std::fs::write(dir.path().join(&name), &b[100..]).unwrap();
                manifest.push(serde_json::json!({"file": name, "kind": "BeaconBlock", "fork": fork.name(), "root": format!("0x{}", hex::encode(mroot))}));
            }
        }
    }
    std::fs::write(
        dir.path().join("manifest.json"),
        serde_json::to_vec_pretty(&manifest).unwrap(),
    )
    .unwrap();
    if let Some(keep) = std::env::var_os("ERAFLOW_CROSSCHECK_DIR") {
        for f in std::fs::read_dir(dir.path()).unwrap() {
            let f = f.unwrap().path();
            std::fs::copy(&f, Path::new(&keep).join(f.file_name().unwrap())).unwrap();
        }
    }
    let out = Command::new("node")
        .arg(here.join("check.mjs"))
        .arg(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    eprintln!("{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "Lodestar disagrees (see above)");
    assert!(
        text.contains(&format!("{} passed, 0 failed", manifest.len())),
        "{text}"
    );
}
