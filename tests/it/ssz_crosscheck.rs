//! Cross-check against an independent SSZ implementation: states and signed blocks of EVERY fork, under both
//! presets (a mainnet-preset and a gnosis-preset network, Lodestar run with `LODESTAR_PRESET`), taken out
//! of era files written by our own era writer (`synth::era`, as `eraflow synth --kind era --fork F`: blocks
//! chained into the state's `block_roots`, payloads with transactions of types 0-4), hashed here and by
//! Lodestar (`tests/crosscheck/check.mjs`, `@lodestar/types`). Skips loudly when node or the
//! npm packages are absent (`npm ci --prefix tests/crosscheck`).

use crate::util::{lodestar, preset_network, unpack_era};
use eraflow::consensus::{self, Kind, Preset, Spec, ALL_FORKS};
use eraflow::synth::era::{write, EraSynthOptions};
use std::path::Path;
use std::process::Command;

#[test]
fn every_fork_matches_lodestar() {
    let Some(here) = lodestar("SSZ cross-check") else {
        return;
    };
    for preset in [Preset::Mainnet, Preset::Gnosis] {
        roots_match(&here, preset);
    }
}

/// Every fork's states and blocks of a `preset` network, hashed here and by Lodestar under that preset.
fn roots_match(here: &Path, preset: Preset) {
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
    let net = preset_network(preset);
    for fork in ALL_FORKS {
        let spec = Spec::new(fork, preset);
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
            let root = consensus::state_root(&state, spec).unwrap();
            manifest.push(serde_json::json!({"file": name, "kind": "BeaconState", "fork": fork.name(), "root": format!("0x{}", hex::encode(root))}));
            for (i, b) in signed.iter().enumerate() {
                let name = format!("{fork}-signed-block-{validators}-{i}.ssz");
                std::fs::write(dir.path().join(&name), b).unwrap();
                let root = consensus::root_of(b, Kind::SignedBlock, spec).unwrap();
                manifest.push(serde_json::json!({"file": name, "kind": "SignedBeaconBlock", "fork": fork.name(), "root": format!("0x{}", hex::encode(root))}));
                // The message alone, as a BeaconBlock.
                let msg = consensus::SignedBeaconBlock::new(b, spec).unwrap();
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
        .env("LODESTAR_PRESET", preset.name())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    eprintln!("{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        out.status.success(),
        "Lodestar ({preset} preset) disagrees (see above)"
    );
    assert!(
        text.contains(&format!("{} passed, 0 failed", manifest.len())),
        "{text}"
    );
}
