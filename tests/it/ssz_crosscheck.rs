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

mod progressive {
    //! Progressive SSZ (EIP-7916, EIP-7495) and Gloas' progressive containers, hashed here and by
    //! @chainsafe/ssz / @lodestar/types (`tests/crosscheck/progressive.mjs`).
    use eraflow::consensus::ssz::{Container, Field, Ty};
    use eraflow::consensus::types::{
        mainnet, ATTESTATION_GLOAS, ATTESTER_SLASHING_GLOAS, BUILDER, BYTES32,
        EXECUTION_PAYLOAD_BID, EXECUTION_REQUESTS_GLOAS, PAYLOAD_ATTESTATION,
        SIGNED_EXECUTION_PAYLOAD_BID, U64, U8,
    };

    static BOOL: Ty = Ty::Bool;
    static FIXED: Container = Container::new(
        "Fixed",
        &[
            Field {
                name: "a",
                ty: &U64,
            },
            Field {
                name: "b",
                ty: &BYTES32,
            },
            Field {
                name: "c",
                ty: &BOOL,
            },
        ],
    );
    static PLIST_U64: Ty = Ty::ProgressiveList(&U64, 1000);
    static PBYTES: Ty = Ty::ProgressiveList(&U8, 5000);
    static BITLIST: Ty = Ty::Bitlist(300);
    static SPARSE: Container = Container::progressive(
        "Sparse",
        &[
            Field {
                name: "a",
                ty: &U64,
            },
            Field {
                name: "b",
                ty: &PLIST_U64,
            },
            Field {
                name: "c",
                ty: &BITLIST,
            },
            Field {
                name: "d",
                ty: &BYTES32,
            },
        ],
        &[1, 0, 0, 1, 0, 1, 0, 0, 1],
    );
    static TYPES: [(&str, Ty); 17] = [
        ("plist_u64", Ty::ProgressiveList(&U64, 1000)),
        ("plist_u8", Ty::ProgressiveList(&U8, 5000)),
        ("pbitlist", Ty::ProgressiveBitlist(5000)),
        ("plist_bytes32", Ty::ProgressiveList(&BYTES32, 1000)),
        (
            "plist_container",
            Ty::ProgressiveList(&Ty::Container(&FIXED), 200),
        ),
        ("plist_var", Ty::ProgressiveList(&PBYTES, 50)),
        ("pcontainer_sparse", Ty::Container(&SPARSE)),
        (
            "gloas.PayloadAttestation",
            Ty::Container(&PAYLOAD_ATTESTATION),
        ),
        (
            "gloas.ExecutionPayloadBid",
            Ty::Container(&EXECUTION_PAYLOAD_BID),
        ),
        (
            "gloas.SignedExecutionPayloadBid",
            Ty::Container(&SIGNED_EXECUTION_PAYLOAD_BID),
        ),
        ("gloas.Builder", Ty::Container(&BUILDER)),
        ("gloas.Attestation", Ty::Container(&ATTESTATION_GLOAS)),
        (
            "gloas.AttesterSlashing",
            Ty::Container(&ATTESTER_SLASHING_GLOAS),
        ),
        (
            "gloas.ExecutionRequests",
            Ty::Container(&EXECUTION_REQUESTS_GLOAS),
        ),
        (
            "gloas.BeaconBlockBody",
            Ty::Container(&mainnet::BEACON_BLOCK_BODY_GLOAS),
        ),
        (
            "gloas.SignedBeaconBlock",
            Ty::Container(&mainnet::SIGNED_BEACON_BLOCK_GLOAS),
        ),
        (
            "gloas.BeaconState",
            Ty::Container(&mainnet::BEACON_STATE_GLOAS),
        ),
    ];

    #[test]
    fn progressive_types_match_chainsafe_ssz_and_lodestar() {
        let Some(here) = crate::util::lodestar("progressive SSZ cross-check") else {
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let mut manifest = Vec::new();
        for (name, ty) in &TYPES {
            // Lengths across the progressive tree's subtree edges (1, 5, 21, 85, 341 chunks).
            for (seed, max_list) in [
                (1u64, 0u64),
                (2, 1),
                (3, 4),
                (4, 6),
                (5, 30),
                (6, 90),
                (7, 400),
            ] {
                let bytes = eraflow::consensus::synth::value(ty, seed, max_list);
                let root = eraflow::consensus::ssz::hash_tree_root(ty, &bytes)
                    .unwrap_or_else(|e| panic!("{name} seed {seed}: {e}"));
                // The recording walker agrees with the immediate one.
                let mut forest = eraflow::consensus::merkle::Forest::new();
                let v = eraflow::consensus::ssz::defer_root(&mut forest, ty, &bytes).unwrap();
                forest.evaluate();
                assert_eq!(forest.get(v), Some(root), "{name} seed {seed}");
                let file = format!("{}-{seed}.ssz", name.replace('.', "-"));
                std::fs::write(dir.path().join(&file), &bytes).unwrap();
                manifest.push(serde_json::json!({"file": file, "type": name, "root": format!("0x{}", hex::encode(root))}));
            }
        }
        // A Gloas state big enough for the validators' progressive tree to reach its 65,536-leaf subtree and be
        // hashed in parallel batches (the registry's specialised path).
        manifest.push(gloas_state(dir.path(), 90_000));
        lodestar_agrees(&here, dir.path(), &manifest);
    }

    /// A mainnet-preset Gloas state of `validators` written into `dir`, with eraflow's root: its manifest entry.
    fn gloas_state(dir: &std::path::Path, validators: usize) -> serde_json::Value {
        let spec = eraflow::consensus::Spec::mainnet(eraflow::consensus::Fork::Gloas);
        let state = eraflow::consensus::synth::state(spec, validators, 8);
        let root = eraflow::consensus::state_root(&state, spec).unwrap();
        let file = format!("gloas-state-{validators}.ssz");
        std::fs::write(dir.join(&file), &state).unwrap();
        serde_json::json!({"file": file, "type": "gloas.BeaconState", "root": format!("0x{}", hex::encode(root))})
    }

    /// progressive.mjs over `manifest` (written into `dir`): every object's root equals eraflow's.
    fn lodestar_agrees(
        here: &std::path::Path,
        dir: &std::path::Path,
        manifest: &[serde_json::Value],
    ) {
        std::fs::write(
            dir.join("manifest.json"),
            serde_json::to_vec(manifest).unwrap(),
        )
        .unwrap();
        // A state of a million validators as a tree-backed view needs more than node's default heap.
        let out = std::process::Command::new("node")
            .arg("--max-old-space-size=16384")
            .arg(here.join("progressive.mjs"))
            .arg(dir)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            text.contains(&format!("{} passed, 0 failed", manifest.len())),
            "{text}"
        );
    }

    /// The size: a Gloas state of 1,000,000 validators (~250 MB of SSZ) has Lodestar's root. 44 s and a
    /// 1.6 GB process here (2026-12-03), too much for every CI run, so run by hand:
    /// `cargo test --test it -- --ignored a_million_validator` (`ERAFLOW_GLOAS_VALIDATORS` sets another count).
    #[test]
    #[ignore]
    fn a_million_validator_gloas_state_matches_lodestar() {
        let Some(here) = crate::util::lodestar("a million-validator Gloas state") else {
            return;
        };
        let validators = std::env::var("ERAFLOW_GLOAS_VALIDATORS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(1_000_000);
        let dir = tempfile::tempdir().unwrap();
        let entry = gloas_state(dir.path(), validators);
        lodestar_agrees(&here, dir.path(), &[entry]);
    }
}

/// `eraflow state-root` of a Gloas state (a sepolia one by its slot, and by `--fork gloas`): the root of the
/// progressive state, whose schema the test above checks against Lodestar.
#[test]
fn state_root_reads_gloas_states() {
    use eraflow::consensus::ssz::Ty;
    use eraflow::consensus::types::mainnet::BEACON_STATE_GLOAS;
    static STATE: Ty = Ty::Container(&BEACON_STATE_GLOAS);
    let mut state = consensus::synth::value(&STATE, 11, 300);
    // The slot (after genesis_time and genesis_validators_root): sepolia's first Gloas slot, plus one era.
    let slot = 353_024u64 * 32 + 8192;
    state[40..48].copy_from_slice(&slot.to_le_bytes());
    let root = consensus::ssz::hash_tree_root(&STATE, &state).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("state.ssz");
    std::fs::write(&file, &state).unwrap();
    let run = |args: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_eraflow"))
            .arg("state-root")
            .args(args)
            .arg(&file)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let want = format!("0x{}", hex::encode(root));
    for args in [&["--network", "sepolia"][..], &["--fork", "gloas"][..]] {
        let out = run(args);
        assert!(out.contains(&want), "{args:?}: {out} (want {want})");
    }
    // The same bytes read as Fulu (the fork before) do not parse or give another root.
    let o = Command::new(env!("CARGO_BIN_EXE_eraflow"))
        .args(["state-root", "--fork", "fulu"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&o.stdout).contains(&want));
}
