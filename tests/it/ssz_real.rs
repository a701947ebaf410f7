//! Real chain data: every state and block under `ssz/` against `expected/ssz-roots.json`, the phase0
//! consensus-spec-tests `ssz_static` vectors, portal headers-with-proof data against historical roots and
//! summaries, and the erigon sanity chains block by block against their post states.

use crate::testdata;
use eraflow::consensus::{self, ssz, types, BeaconState, Fork, Kind, SignedBeaconBlock};
use eraflow::network::Network;
use std::path::Path;

fn read(path: &Path) -> Vec<u8> {
    let raw = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if path.extension().is_some_and(|e| e == "ssz_snappy") {
        // erigon's files are raw (unframed) snappy blocks.
        snap::raw::Decoder::new()
            .decompress_vec(&raw)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    } else {
        raw
    }
}

fn hex32(s: &str) -> [u8; 32] {
    hex::decode(s.trim_start_matches("0x"))
        .unwrap()
        .try_into()
        .unwrap()
}

fn fork_name(s: &str) -> Fork {
    s.parse().unwrap()
}

#[test]
fn expected_roots_of_every_state_and_block() {
    let Some(root) = testdata::dir("expected/ssz-roots.json") else {
        return;
    };
    let text = std::fs::read_to_string(root.join("expected/ssz-roots.json")).unwrap();
    let entries: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    let mainnet = Network::by_name("mainnet").unwrap();
    let mut checked = 0;
    for e in &entries {
        let file = e["file"].as_str().unwrap();
        let bytes = read(&root.join("ssz").join(file));
        let fork = fork_name(e["fork"].as_str().unwrap());
        let want = hex32(e["root"].as_str().unwrap());
        let ty = e["type"].as_str().unwrap();
        match ty {
            "BeaconState" => {
                let st = BeaconState::new(&bytes, consensus::Spec::mainnet(fork)).unwrap();
                assert_eq!(
                    consensus::state_root(&bytes, consensus::Spec::mainnet(fork)).unwrap(),
                    want,
                    "{file}"
                );
                if let Some(slot) = e["slot"].as_u64() {
                    assert_eq!(st.slot(), slot, "{file}");
                }
            }
            "BeaconBlock" | "SignedBeaconBlock" => {
                let (block, kind) = if ty == "BeaconBlock" {
                    (
                        consensus::BeaconBlock::new(&bytes, consensus::Spec::mainnet(fork))
                            .unwrap(),
                        Kind::Block,
                    )
                } else {
                    let sb =
                        SignedBeaconBlock::new(&bytes, consensus::Spec::mainnet(fork)).unwrap();
                    assert_eq!(sb.root().unwrap(), want, "{file} signed root");
                    let m = sb.message().unwrap();
                    assert_eq!(
                        m.root().unwrap(),
                        hex32(e["message_root"].as_str().unwrap()),
                        "{file}"
                    );
                    assert_eq!(
                        consensus::signed_block_root(&bytes, consensus::Spec::mainnet(fork))
                            .unwrap(),
                        m.root().unwrap()
                    );
                    (m, Kind::SignedBlock)
                };
                if ty == "BeaconBlock" {
                    assert_eq!(
                        consensus::block_root(&bytes, consensus::Spec::mainnet(fork)).unwrap(),
                        want,
                        "{file}"
                    );
                }
                assert_eq!(block.slot(), e["slot"].as_u64().unwrap(), "{file}");
                assert_eq!(
                    consensus::infer_spec(&bytes, kind, &mainnet).unwrap().fork,
                    fork,
                    "{file}"
                );
                if let Some(x) = e.get("execution") {
                    let body = block.body().unwrap();
                    let p = body.execution_payload().unwrap().unwrap();
                    assert_eq!(
                        p.block_number(),
                        x["block_number"].as_u64().unwrap(),
                        "{file}"
                    );
                    assert_eq!(
                        p.block_hash(),
                        &hex32(x["block_hash"].as_str().unwrap())[..],
                        "{file}"
                    );
                    let txs: Vec<&[u8]> = p.transactions().unwrap().collect();
                    assert_eq!(
                        txs.len() as u64,
                        x["transactions"].as_u64().unwrap(),
                        "{file}"
                    );
                    assert!(
                        txs.iter().all(|t| !t.is_empty()),
                        "{file}: empty transaction"
                    );
                    if let Some(w) = x.get("withdrawals") {
                        assert_eq!(
                            p.withdrawals().unwrap().len() as u64,
                            w.as_u64().unwrap(),
                            "{file}"
                        );
                    }
                    assert_eq!(p.blob_gas_used().is_some(), fork >= Fork::Deneb);
                    assert!(p.gas_used() <= p.gas_limit());
                    assert_eq!(p.logs_bloom().len(), 256);
                    assert_eq!(p.fee_recipient().len(), 20);
                }
            }
            other => panic!("unexpected type {other}"),
        }
        checked += 1;
    }
    assert_eq!(checked, entries.len());
    eprintln!("checked {checked} expected roots");
}

#[test]
fn consensus_spec_tests_phase0_ssz_static() {
    let Some(dir) = testdata::file("ssz/spec-tests-v1.0.0/mainnet/phase0/ssz_static") else {
        return;
    };
    let mut checked = 0;
    for ty_dir in std::fs::read_dir(&dir).unwrap() {
        let ty_dir = ty_dir.unwrap().path();
        let name = ty_dir.file_name().unwrap().to_str().unwrap().to_string();
        let schema: &'static ssz::Container = match name.as_str() {
            "BeaconState" => &types::mainnet::BEACON_STATE_PHASE0,
            "BeaconBlock" => &types::mainnet::BEACON_BLOCK_PHASE0,
            "SignedBeaconBlock" => &types::mainnet::SIGNED_BEACON_BLOCK_PHASE0,
            other => panic!("no schema mapped for {other}"),
        };
        for suite in std::fs::read_dir(&ty_dir).unwrap() {
            for case in std::fs::read_dir(suite.unwrap().path()).unwrap() {
                let case = case.unwrap().path();
                let bytes = std::fs::read(case.join("serialized.ssz")).unwrap();
                let yaml = std::fs::read_to_string(case.join("roots.yaml")).unwrap();
                let hexroot = yaml.split('\'').nth(1).unwrap();
                let got = ssz::container_root(schema, &bytes).unwrap();
                assert_eq!(
                    hex::encode(got),
                    hexroot.trim_start_matches("0x"),
                    "{}",
                    case.display()
                );
                checked += 1;
            }
        }
    }
    // The shared data holds 5 cases of each of the 3 types (not the full 138-vector suite).
    assert!(checked >= 15, "only {checked} vectors found");
    eprintln!("checked {checked} ssz_static vectors");
}

/// Pre-capella eras: `historical_roots[era] = hash_tree_root(HistoricalBatch)` and the block's root is in the
/// batch's `block_roots[slot % 8192]`. Capella eras: `historical_summaries[era - 758].block_summary_root =
/// hash_tree_root(block_roots)`.
#[test]
fn portal_blocks_are_in_their_era_accumulators() {
    let Some(root) = testdata::dir("ssz/portal") else {
        return;
    };
    let mainnet = Network::by_name("mainnet").unwrap();
    let hroots = read(&root.join("ssz/trin/historical_roots.ssz"));
    let hr_root = ssz::hash_tree_root(&types::HISTORICAL_ROOTS, &hroots).unwrap();
    assert_eq!(hroots.len(), 758 * 32);
    // The root of historical_roots must not depend on how we walk it: compare with hashing the leaves 1 by 1.
    let summaries = read(&root.join("ssz/trin/pectra_historical_summaries.ssz"));
    ssz::hash_tree_root(&types::HISTORICAL_SUMMARIES, &summaries).unwrap();
    let mut checked = 0;
    for entry in std::fs::read_dir(root.join("ssz/portal")).unwrap() {
        let dir = entry.unwrap().path();
        if !dir.join("block.ssz").exists() {
            continue;
        }
        let bytes = read(&dir.join("block.ssz"));
        let fork = consensus::infer_spec(&bytes, Kind::Block, &mainnet)
            .unwrap()
            .fork;
        let block = consensus::BeaconBlock::new(&bytes, consensus::Spec::mainnet(fork)).unwrap();
        let broot = block.root().unwrap();
        let slot = block.slot();
        let era = (slot / 8192) as usize;
        let idx = (slot % 8192) as usize;
        if dir.join("historical_batch.ssz").exists() {
            let batch = read(&dir.join("historical_batch.ssz"));
            assert_eq!(&batch[idx * 32..idx * 32 + 32], &broot, "{}", dir.display());
            let batch_root = ssz::container_root(&types::HISTORICAL_BATCH, &batch).unwrap();
            assert_eq!(
                &hroots[era * 32..era * 32 + 32],
                &batch_root,
                "{}: historical_roots[{era}]",
                dir.display()
            );
        } else {
            let roots = read(&dir.join("block_roots.ssz"));
            assert_eq!(&roots[idx * 32..idx * 32 + 32], &broot, "{}", dir.display());
            let summary_root = ssz::hash_tree_root(&types::ROOTS_VECTOR, &roots).unwrap();
            let i = era - 758;
            assert_eq!(
                &summaries[i * 64..i * 64 + 32],
                &summary_root,
                "{}: historical_summaries[{i}]",
                dir.display()
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 11);
    eprintln!(
        "checked {checked} portal blocks; historical_roots root {}",
        hex::encode(hr_root)
    );
}

/// erigon sanity chains: every block's root is recorded in the post state (`block_roots`, or the
/// `latest_block_header` for the last one), parent roots chain, and the last block commits to the post state.
#[test]
fn sanity_chains_verify_block_by_block() {
    let Some(root) = testdata::dir("ssz/erigon") else {
        return;
    };
    for (name, fork) in [
        ("chain-phase0", Fork::Phase0),
        ("chain-bellatrix", Fork::Bellatrix),
        ("chain-capella", Fork::Capella),
    ] {
        let dir = root.join("ssz/erigon").join(name);
        let pre_bytes = read(&dir.join("pre.ssz_snappy"));
        let post_bytes = read(&dir.join("post.ssz_snappy"));
        let pre = BeaconState::new(&pre_bytes, consensus::Spec::mainnet(fork)).unwrap();
        let post = BeaconState::new(&post_bytes, consensus::Spec::mainnet(fork)).unwrap();
        let pre_root = pre.root().unwrap();
        let post_root = post.root().unwrap();
        let mut n = 0;
        while dir.join(format!("blocks_{n}.ssz_snappy")).exists() {
            n += 1;
        }
        assert!(n > 0, "{name}: no blocks");
        // The pre state's latest header, completed with the pre state's root, is the first block's parent.
        let mut h = pre.latest_block_header();
        if h.state_root == [0u8; 32] {
            h.state_root = pre_root;
        }
        let mut parent = h.root();
        for i in 0..n {
            let bytes = read(&dir.join(format!("blocks_{i}.ssz_snappy")));
            let sb = SignedBeaconBlock::new(&bytes, consensus::Spec::mainnet(fork)).unwrap();
            let b = sb.message().unwrap();
            let r = b.root().unwrap();
            assert_eq!(b.parent_root(), parent, "{name} block {i}: parent root");
            if b.slot() < post.slot() {
                assert_eq!(
                    post.block_root(b.slot() as usize).unwrap(),
                    r,
                    "{name} block {i}: block_roots"
                );
            }
            if i == n - 1 {
                assert_eq!(b.state_root(), post_root, "{name}: last block's state_root");
                let mut h = post.latest_block_header();
                assert_eq!(h.slot, b.slot());
                h.state_root = b.state_root();
                assert_eq!(h.root(), r, "{name}: latest_block_header");
            } else {
                // An intermediate post-block state root is in the post state's state_roots at the block's slot.
                assert_eq!(
                    post.state_root(b.slot() as usize).unwrap(),
                    b.state_root(),
                    "{name} block {i}: state_roots"
                );
            }
            parent = r;
        }
        eprintln!("{name}: {n} blocks verified");
    }
}

#[test]
fn state_accessors_on_real_states() {
    let Some(p) = testdata::file("ssz/genesis/mainnet-genesis.ssz") else {
        return;
    };
    let bytes = read(&p);
    let mainnet = Network::by_name("mainnet").unwrap();
    assert_eq!(
        consensus::infer_spec(&bytes, Kind::State, &mainnet)
            .unwrap()
            .fork,
        Fork::Phase0
    );
    let st = BeaconState::new(&bytes, consensus::Spec::mainnet(Fork::Phase0)).unwrap();
    assert_eq!(
        hex::encode(st.genesis_validators_root()),
        mainnet
            .consensus
            .genesis_validators_root
            .trim_start_matches("0x")
    );
    assert_eq!(st.slot(), 0);
    assert_eq!(st.genesis_time(), 1606824023);
    assert_eq!(st.validator_count().unwrap(), 21063);
    assert!(st.historical_roots().unwrap().is_empty());
    assert!(st.historical_summaries().unwrap().is_empty());
    let Some(p) = testdata::file("ssz/erigon/capella-state.ssz_snappy") else {
        return;
    };
    let bytes = read(&p);
    let st = BeaconState::new(&bytes, consensus::Spec::mainnet(Fork::Capella)).unwrap();
    assert!(st.latest_block_header().slot <= st.slot());
}

/// Truncated or corrupted real objects must give errors, never panics.
#[test]
fn corrupted_real_objects_give_errors() {
    let Some(p) = testdata::file("ssz/portal/19426587/block.ssz") else {
        return;
    };
    let block = read(&p);
    for cut in (0..block.len()).step_by(97).chain([block.len() - 1]) {
        let r = consensus::block_root(&block[..cut], consensus::Spec::mainnet(Fork::Deneb));
        assert!(r.is_err(), "truncated at {cut} accepted");
    }
    // Corrupt every byte of the fixed parts (block 84 bytes + body 392 bytes) one at a time: any outcome
    // but a panic is fine, and offset bytes must be caught.
    for i in 0..500.min(block.len()) {
        let mut b = block.clone();
        b[i] ^= 0xff;
        let _ = consensus::block_root(&b, consensus::Spec::mainnet(Fork::Deneb));
    }
    let mut b = block.clone();
    b[80] = b[80].wrapping_add(1); // body offset (bytes 80..84) off by one
    let e = consensus::block_root(&b, consensus::Spec::mainnet(Fork::Deneb)).unwrap_err();
    assert!(e.to_string().contains("offset"), "{e}");

    let Some(p) = testdata::file("ssz/erigon/capella-state.ssz_snappy") else {
        return;
    };
    let state = read(&p);
    for cut in [0, 39, 48, 1000, 2_687_000, state.len() / 2, state.len() - 1] {
        if cut < state.len() {
            assert!(
                consensus::state_root(&state[..cut], consensus::Spec::mainnet(Fork::Capella))
                    .is_err(),
                "state cut at {cut}"
            );
        }
    }
    // The same bytes read as the wrong fork are rejected by offsets, not mis-hashed silently.
    assert!(consensus::state_root(&state, consensus::Spec::mainnet(Fork::Deneb)).is_err());
}
