//! era files end to end: the synthetic era writer makes files of every fork (and files crossing forks), and
//! `verify::era` accepts them and rejects every kind of damage with an error that names the file, offset and
//! slot. The real genesis era files verify against their published state roots.

use crate::util::{repack_era, unpack_era};
use eraflow::consensus::{Fork, ALL_FORKS};
use eraflow::formats::era::EraFile;
use eraflow::formats::MappedArchive;
use eraflow::network::Network;
use eraflow::synth::era::{write, EraSynthOptions};
use eraflow::verify::file as verify_file;
use eraflow::verify::report::FileReport;
use eraflow::verify::VerifyOptions;
use std::path::Path;

fn opts(era: u64, files: u64, blocks: u64) -> EraSynthOptions {
    let mut o = EraSynthOptions::new(Network::by_name("synthnet").unwrap());
    o.era = era;
    o.files = files;
    o.blocks = blocks;
    o.validators = 64;
    o.txs_per_block = 4;
    o
}

fn verify(p: &Path) -> FileReport {
    verify_file(p, &VerifyOptions::default())
}

fn assert_ok(r: &FileReport) {
    assert!(r.ok, "{}: {:#?}", r.file, r.errors);
}

fn assert_fails(r: &FileReport, needle: &str) {
    assert!(!r.ok, "{} verified but should not", r.file);
    assert!(
        r.errors.iter().any(|e| e.to_string().contains(needle)),
        "{}: expected an error containing '{needle}', got {:#?}",
        r.file,
        r.errors
    );
}

#[test]
fn every_fork_synthesizes_and_verifies() {
    let net = Network::by_name("synthnet").unwrap();
    for fork in ALL_FORKS {
        let d = tempfile::tempdir().unwrap();
        let era = EraSynthOptions::era_of_fork(&net, fork).unwrap();
        let paths = write(d.path(), &opts(era, 1, 24)).unwrap();
        let r = verify(&paths[0]);
        assert_ok(&r);
        let b = r.beacon.as_ref().unwrap();
        assert_eq!(b.state_fork, fork.name());
        assert_eq!(b.blocks_per_fork.get(fork.name()), Some(&24), "{fork}");
        assert_eq!(r.blocks, 24);
        assert_eq!(b.empty_slots, 8192 - 24);
        assert_eq!(b.validators, 64);
        if fork >= Fork::Bellatrix {
            assert_eq!(r.transactions, 24 * 4, "{fork}");
            assert!(r.first_block.unwrap() < r.last_block.unwrap());
            assert_eq!(r.last_block.unwrap() - r.first_block.unwrap(), 23);
        } else {
            assert_eq!(r.transactions, 0);
        }
        let kinds = |k: &str| r.tx_kinds.get(k).copied().unwrap_or(0);
        assert_eq!(kinds("type3") > 0, fork >= Fork::Deneb, "{fork}");
        assert_eq!(kinds("type4") > 0, fork >= Fork::Electra, "{fork}");
        if fork >= Fork::Capella {
            assert!(b.withdrawals > 0, "{fork}");
        }
    }
}

#[test]
fn consecutive_files_cross_forks_and_verify() {
    // Eras 3..=8 of synthnet: altair, altair->bellatrix, bellatrix, bellatrix->capella (historical_roots
    // freezes, summaries start), capella, capella->deneb.
    let d = tempfile::tempdir().unwrap();
    let paths = write(d.path(), &opts(3, 6, 16)).unwrap();
    assert_eq!(paths.len(), 6);
    let mut last_exec: Option<u64> = None;
    for p in &paths {
        let r = verify(p);
        assert_ok(&r);
        if let (Some(prev), Some(first)) = (last_exec, r.first_block) {
            assert_eq!(first, prev + 1, "execution numbers continue across files");
        }
        last_exec = r.last_block.or(last_exec);
    }
    for r in eraflow::verify::verify_archives(&paths, &VerifyOptions::default()) {
        assert_ok(&r);
    }
    // Era 6 from another chain (other seed) does not link to era 5 of this one.
    let mut other = opts(6, 1, 16);
    other.seed = 99;
    let foreign = write(&d.path().join("other"), &other).unwrap().remove(0);
    assert_ok(&verify(&foreign));
    let mixed = vec![paths[2].clone(), foreign];
    let reports = eraflow::verify::verify_archives(&mixed, &VerifyOptions::default());
    assert_ok(&reports[0]);
    assert_fails(&reports[1], "boundary block root");
    assert_fails(&reports[1], "execution chain");
    let crossing = verify(&paths[3]);
    let b = crossing.beacon.unwrap();
    assert_eq!(b.state_fork, "capella");
    assert_eq!(b.blocks_per_fork.get("bellatrix"), Some(&16));
}

#[test]
fn genesis_era_and_determinism() {
    let d = tempfile::tempdir().unwrap();
    let a = write(&d.path().join("a"), &opts(0, 2, 8)).unwrap();
    let b = write(&d.path().join("b"), &opts(0, 2, 8)).unwrap();
    // era 0's name carries the genesis validators root of synthnet.
    assert!(
        a[0].to_str()
            .unwrap()
            .ends_with("synthnet-00000-5e7a11ce.era"),
        "{a:?}"
    );
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(std::fs::read(x).unwrap(), std::fs::read(y).unwrap());
        assert_ok(&verify(x));
    }
    assert!(EraFile::open(&a[0]).unwrap().block_index().is_none());
}

#[test]
fn real_genesis_era_files_verify() {
    for (name, root) in [
        ("era/mainnet-00000-4b363db9.era", "0x7e76880e"),
        ("era/sepolia-00000-d8ea171f.era", "0xfb9afe32"),
    ] {
        let Some(p) = crate::testdata::file(name) else {
            return;
        };
        let r = verify_file(
            &p,
            &VerifyOptions {
                checksum: true,
                ..Default::default()
            },
        );
        assert_ok(&r);
        let b = r.beacon.unwrap();
        assert!(b.state_root.starts_with(root), "{name}: {}", b.state_root);
        assert_eq!((b.state_slot, r.blocks), (0, 0));
        assert!(b.validators > 0);
    }
}

#[test]
fn senders_recover_with_the_process_signer() {
    eraflow::crypto::signer::init(eraflow::crypto::signer::SignatureAlgorithm::Secp256k1).unwrap();
    let net = Network::by_name("synthnet").unwrap();
    let d = tempfile::tempdir().unwrap();
    let era = EraSynthOptions::era_of_fork(&net, Fork::Electra).unwrap();
    let paths = write(d.path(), &opts(era, 1, 8)).unwrap();
    let r = verify_file(
        &paths[0],
        &VerifyOptions {
            senders: true,
            ..Default::default()
        },
    );
    assert_ok(&r);
    assert_eq!((r.senders_recovered, r.sender_errors), (Some(32), Some(0)));
}

#[test]
fn damage_is_caught_and_located() {
    let net = Network::by_name("synthnet").unwrap();
    let d = tempfile::tempdir().unwrap();
    let era = EraSynthOptions::era_of_fork(&net, Fork::Deneb).unwrap();
    let src = write(&d.path().join("src"), &opts(era, 1, 12))
        .unwrap()
        .remove(0);
    let (blocks, state) = unpack_era(&src);
    let repacked = repack_era(&d.path().join("same"), &src, era, &blocks, &state);
    assert_eq!(
        std::fs::read(&repacked).unwrap(),
        std::fs::read(&src).unwrap()
    );

    // A block's graffiti changed: its root no longer matches state.block_roots.
    let mut b2 = blocks.clone();
    let slot = b2[3].0;
    let n = b2[3].1.len();
    // graffiti sits at message(100) + 84 (slot, proposer, parent, state, body offset) + 96 (randao) + 72
    // (eth1_data).
    b2[3].1[100 + 84 + 96 + 72] ^= 1;
    assert_eq!(b2[3].1.len(), n);
    let p = repack_era(&d.path().join("graffiti"), &src, era, &b2, &state);
    let r = verify(&p);
    assert_fails(&r, "block root (state.block_roots)");
    assert!(
        r.errors
            .iter()
            .any(|e| e.to_string().contains(&format!("(slot {slot})"))),
        "{:#?}",
        r.errors
    );

    // A block dropped from the file: its slot looks empty but the state says otherwise.
    let mut b3 = blocks.clone();
    b3.remove(5);
    assert_fails(
        &verify(&repack_era(
            &d.path().join("dropped"),
            &src,
            era,
            &b3,
            &state,
        )),
        "the previous slot's",
    );

    // The last block dropped: the state's latest_block_header no longer matches.
    let mut b4 = blocks.clone();
    b4.pop();
    assert_fails(
        &verify(&repack_era(&d.path().join("last"), &src, era, &b4, &state)),
        "latest_block_header",
    );

    // A payload's transaction altered (same length): the recomputed execution block hash differs.
    let mut b5 = blocks.clone();
    let tx_at = find_tx_byte(&b5[2].1);
    b5[2].1[tx_at] ^= 0x01;
    assert_fails(
        &verify(&repack_era(&d.path().join("tx"), &src, era, &b5, &state)),
        "execution block hash",
    );

    // The state's block_roots altered at an empty slot: empty-slot rule and the historical summary both fail.
    let mut s2 = state.clone();
    let empty = (blocks[0].0 + 1) % 8192;
    let at = 8 + 32 + 8 + 16 + 112 + 32 * empty as usize;
    s2[at] ^= 0x80;
    let r = verify(&repack_era(
        &d.path().join("roots"),
        &src,
        era,
        &blocks,
        &s2,
    ));
    assert_fails(&r, "last historical summary");
    assert_fails(&r, "empty slot");

    // Wrong hash in the name.
    let bad_name = d
        .path()
        .join("renamed")
        .join(format!("synthnet-{era:05}-00000000.era"));
    std::fs::create_dir_all(bad_name.parent().unwrap()).unwrap();
    std::fs::copy(&src, &bad_name).unwrap();
    assert_fails(&verify(&bad_name), "file name hash");

    // Verified as another network: the genesis validators root gives it away.
    let r = verify_file(
        &src,
        &VerifyOptions {
            network: Some(Network::by_name("mainnet").unwrap()),
            ..Default::default()
        },
    );
    assert!(!r.ok);

    // Truncations and byte flips never panic and always fail.
    let bytes = std::fs::read(&src).unwrap();
    let t = d.path().join("cut").join(src.file_name().unwrap());
    std::fs::create_dir_all(t.parent().unwrap()).unwrap();
    for cut in [0, 8, 100, bytes.len() / 2, bytes.len() - 9, bytes.len() - 1] {
        std::fs::write(&t, &bytes[..cut]).unwrap();
        assert!(!verify(&t).ok, "cut at {cut}");
    }
    let (mut caught, mut benign) = (0, 0);
    for at in (0..bytes.len()).step_by(bytes.len() / 97) {
        let mut b = bytes.clone();
        b[at] ^= 0x10;
        std::fs::write(&t, &b).unwrap();
        if verify(&t).ok {
            // Only acceptable when the flip did not change what the file holds (a snappy back-reference
            // re-pointed at identical bytes).
            assert_eq!(
                unpack_era(&t),
                (blocks.clone(), state.clone()),
                "flip at {at} went unnoticed"
            );
            benign += 1;
        } else {
            caught += 1;
        }
    }
    assert!(caught > 90, "caught {caught}, benign {benign}");
}

/// An offset inside the first transaction of a signed block's payload (a byte of its calldata region).
fn find_tx_byte(signed: &[u8]) -> usize {
    use eraflow::consensus::SignedBeaconBlock;
    let b = SignedBeaconBlock::new(signed, eraflow::consensus::Spec::mainnet(Fork::Deneb)).unwrap();
    let m = b.message().unwrap();
    let body = m.body().unwrap();
    let p = body.execution_payload().unwrap().unwrap();
    let tx = p.transactions().unwrap().next().unwrap();
    let base = signed.as_ptr() as usize;
    tx.as_ptr() as usize - base + tx.len() - 70
}

/// `eraflow state-root FILE` prints the era state's `hash_tree_root`, the root verification computed and the
/// library's `state_root` call gives, on one line.
#[test]
fn the_state_root_command_prints_the_verified_root() {
    let dir = tempfile::tempdir().unwrap();
    let files = write(dir.path(), &opts(3, 1, 4)).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_eraflow"))
        .args(["state-root"])
        .arg(&files[0])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed = String::from_utf8(out.stdout).unwrap();
    let r = eraflow::pipeline::state_root(&files[0], None, None).unwrap();
    assert_eq!(printed.trim(), format!("0x{}", hex::encode(r.root)));
    let report = verify(&files[0]);
    assert_ok(&report);
    let beacon = serde_json::to_value(&report).unwrap()["beacon"]["state_root"].clone();
    assert_eq!(beacon.as_str(), Some(printed.trim()));
}
