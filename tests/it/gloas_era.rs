//! Gloas (EIP-7732) era files: synthetic eras across a Fulu→Gloas fork verify with their bid chain, and damage
//! to a bid, a payload attestation, a progressive list's element or the state's record of the bid chain is
//! caught with the slot and field named.

use crate::util::{repack_era, unpack_era};
use eraflow::consensus::bid::ExecutionPayloadBid;
use eraflow::consensus::{BeaconState, Fork, SignedBeaconBlock, Spec};
use eraflow::network::Network;
use eraflow::synth::era::{write, EraSynthOptions};
use eraflow::verify::report::FileReport;
use eraflow::verify::VerifyOptions;
use std::path::{Path, PathBuf};

/// synthnet with Gloas in the middle of the first era wholly in Fulu (so that era holds both forks' blocks).
fn gloas_net() -> (Network, u64) {
    let mut net = Network::by_name("synthnet").unwrap();
    let era = EraSynthOptions::era_of_fork(&net, Fork::Fulu).unwrap();
    net.consensus.gloas_epoch = Some(((era - 1) * 8192 + 4096) / 32);
    (net, era)
}

/// synthnet's preset with `net`'s Gloas epoch, as a file the command line takes (`[consensus]` is its last
/// table).
fn net_file(dir: &Path, net: &Network) -> PathBuf {
    let p = dir.join("gloasnet.toml");
    let base = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/configs/networks/synthnet.toml"
    ))
    .unwrap();
    let epoch = net.consensus.gloas_epoch.unwrap();
    std::fs::write(&p, format!("{base}\ngloas_epoch = {epoch}\n")).unwrap();
    p
}

fn synth(dir: &Path, net: &Network, era: u64, files: u64) -> Vec<PathBuf> {
    let mut o = EraSynthOptions::new(net.clone());
    (o.era, o.files, o.blocks, o.validators, o.txs_per_block) = (era, files, 48, 64, 2);
    write(dir, &o).unwrap()
}

fn verify(p: &Path, net: &Network) -> FileReport {
    eraflow::verify::file(
        p,
        &VerifyOptions {
            network: Some(net.clone()),
            ..Default::default()
        },
    )
}

fn errors(r: &FileReport) -> String {
    r.errors
        .iter()
        .map(|e| e.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Fails with an error containing `needle` (and `slot` when given).
fn assert_caught(r: &FileReport, needle: &str, slot: Option<u64>) {
    assert!(!r.ok, "{needle}: verified but should not");
    let e = errors(r);
    assert!(
        r.errors.iter().any(|x| {
            let x = x.to_string();
            x.contains(needle) && slot.is_none_or(|s| x.contains(&format!("slot {s}")))
        }),
        "expected '{needle}' (slot {slot:?}) in:\n{e}"
    );
}

/// Where `part` (a slice of `whole`) starts in it.
fn offset_in(whole: &[u8], part: &[u8]) -> usize {
    part.as_ptr() as usize - whole.as_ptr() as usize
}

#[test]
fn gloas_eras_verify_across_the_fork_with_their_bid_chain() {
    let (net, era) = gloas_net();
    let d = tempfile::tempdir().unwrap();
    let paths = synth(d.path(), &net, era, 3);
    // Deterministic.
    let again = synth(&d.path().join("again"), &net, era, 3);
    for (a, b) in paths.iter().zip(&again) {
        assert_eq!(std::fs::read(a).unwrap(), std::fs::read(b).unwrap());
    }
    for (k, p) in paths.iter().enumerate() {
        let r = verify(p, &net);
        assert!(r.ok, "{}: {}", r.file, errors(&r));
        let b = r.beacon.as_ref().unwrap();
        assert_eq!(b.state_fork, "gloas");
        let gloas_blocks = *b.blocks_per_fork.get("gloas").unwrap();
        let bids = b.bids.as_ref().unwrap();
        assert_eq!(bids.bids, gloas_blocks);
        assert!(bids.self_built > 0 && bids.self_built < bids.bids);
        assert!(bids.parents_withheld > 0, "{bids:?}");
        // Every parent is in the file except the first block's of an all-Gloas file.
        let unknown = bids.bids - bids.parents_revealed - bids.parents_withheld;
        assert_eq!(unknown, u64::from(k > 0), "{bids:?}");
        if k == 0 {
            // The transition era: Fulu blocks with payloads, then Gloas blocks with bids.
            assert!(*b.blocks_per_fork.get("fulu").unwrap() > 0);
            assert!(r.transactions > 0);
            assert_eq!(bids.availability_bits_checked, 4095);
        } else {
            assert_eq!(bids.availability_bits_checked, 8191);
            assert_eq!(r.transactions, 0);
        }
    }
    // `eraflow inspect` says what the bids showed.
    let out = crate::util::eraflow()
        .args(["inspect", "--network"])
        .arg(net_file(d.path(), &net))
        .arg(&paths[1])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("bids:              48 ("), "{text}");
    // Verified together, each file's first bid is judged against the previous file's last block: every
    // parent's payload status is known.
    let reports = eraflow::verify::verify_archives(
        &paths,
        &VerifyOptions {
            network: Some(net.clone()),
            ..Default::default()
        },
    );
    for r in &reports {
        assert!(r.ok, "{}: {}", r.file, errors(r));
        let bids = r.beacon.as_ref().unwrap().bids.as_ref().unwrap();
        assert_eq!(
            bids.parents_revealed + bids.parents_withheld,
            bids.bids,
            "{bids:?}"
        );
    }
}

#[test]
fn damage_to_the_bid_chain_is_caught_and_located() {
    let (net, era) = gloas_net();
    let d = tempfile::tempdir().unwrap();
    let src = synth(&d.path().join("src"), &net, era, 2).remove(1);
    let era = era + 1;
    let spec = Spec::at_slot(era * 8192 - 1, &net);
    assert_eq!(spec.fork, Fork::Gloas);
    let (blocks, state) = unpack_era(&src);
    assert_eq!(
        std::fs::read(repack_era(
            &d.path().join("same"),
            &src,
            era,
            &blocks,
            &state
        ))
        .unwrap(),
        std::fs::read(&src).unwrap()
    );
    let bid_of = |signed: &[u8]| -> (usize, bool, usize) {
        let b = SignedBeaconBlock::new(signed, spec).unwrap();
        let body = b.message().unwrap().body().unwrap();
        let bid: ExecutionPayloadBid = body.bid().unwrap().unwrap();
        let atts = body.payload_attestations().unwrap().len();
        (offset_in(signed, bid.bytes()), bid.self_built(), atts)
    };

    // A bid's parent_block_hash (its first field) changed: neither the parent's block hash nor what it built on.
    let mut b1 = blocks.clone();
    let (k, at) = (5, bid_of(&blocks[5].1).0);
    b1[k].1[at] ^= 1;
    let r = verify(
        &repack_era(&d.path().join("parent"), &src, era, &b1, &state),
        &net,
    );
    assert_caught(&r, "bid parent_block_hash", Some(blocks[k].0));

    // A bid for another slot (slot: after 4 x 32-byte roots/hashes, the 20-byte fee recipient and two u64s).
    let mut b2 = blocks.clone();
    b2[7].1[bid_of(&blocks[7].1).0 + 4 * 32 + 20 + 16] ^= 1;
    let r = verify(
        &repack_era(&d.path().join("slot"), &src, era, &b2, &state),
        &net,
    );
    assert_caught(&r, "bid slot", Some(blocks[7].0));

    // A self-built bid that pays a value.
    let k = (0..blocks.len()).find(|&k| bid_of(&blocks[k].1).1).unwrap();
    let mut b3 = blocks.clone();
    b3[k].1[bid_of(&blocks[k].1).0 + 4 * 32 + 20 + 24] = 1;
    let r = verify(
        &repack_era(&d.path().join("value"), &src, era, &b3, &state),
        &net,
    );
    assert_caught(&r, "self-built", Some(blocks[k].0));

    // A payload attestation for another slot (its data's slot, after 64 bytes of bits and the 32-byte root).
    let k = (0..blocks.len())
        .find(|&k| bid_of(&blocks[k].1).2 > 0)
        .unwrap();
    let signed = SignedBeaconBlock::new(&blocks[k].1, spec).unwrap();
    let body = signed.message().unwrap().body().unwrap();
    let first = body.payload_attestations().unwrap()[0].aggregation_bits();
    let at = offset_in(&blocks[k].1, first) + 64 + 32;
    let mut b4 = blocks.clone();
    b4[k].1[at] ^= 2;
    let r = verify(
        &repack_era(&d.path().join("ptc"), &src, era, &b4, &state),
        &net,
    );
    assert_caught(&r, "payload attestation data", Some(blocks[k].0));

    // A byte inside an element of a progressive list (the body's attestations): the block's root moves.
    let atts = body.attestation_list().unwrap();
    let at = offset_in(&blocks[k].1, atts[0].aggregation_bits());
    let mut b5 = blocks.clone();
    b5[k].1[at] ^= 0x40;
    let r = verify(
        &repack_era(&d.path().join("list"), &src, era, &b5, &state),
        &net,
    );
    assert_caught(&r, "block root (state.block_roots)", Some(blocks[k].0));

    // The state's record of the chain: an availability bit of a block's slot, the latest block hash.
    let view = BeaconState::new(&state, Spec::at_slot(era * 8192, &net)).unwrap();
    let bits = offset_in(
        &state,
        view.field("execution_payload_availability").unwrap(),
    );
    let hash = offset_in(&state, view.field("latest_block_hash").unwrap());
    let slot = blocks[10].0;
    let i = (slot % 8192) as usize;
    let mut s1 = state.clone();
    s1[bits + i / 8] ^= 1 << (i % 8);
    let r = verify(
        &repack_era(&d.path().join("bits"), &src, era, &blocks, &s1),
        &net,
    );
    assert_caught(&r, "execution_payload_availability", Some(slot));
    let mut s2 = state.clone();
    s2[hash] ^= 1;
    let r = verify(
        &repack_era(&d.path().join("hash"), &src, era, &blocks, &s2),
        &net,
    );
    assert_caught(&r, "state.latest_block_hash", None);
}

#[test]
fn a_fulu_era_read_as_gloas_fails_with_the_state_named() {
    let net = Network::by_name("synthnet").unwrap();
    let d = tempfile::tempdir().unwrap();
    let era = EraSynthOptions::era_of_fork(&net, Fork::Fulu).unwrap();
    let path = synth(d.path(), &net, era, 1).remove(0);
    // The same network with Gloas scheduled at the era's last epoch: the state does not decode as Gloas'.
    let mut gloas = net.clone();
    gloas.consensus.gloas_epoch = Some(era * 8192 / 32 - 1);
    let r = verify(&path, &gloas);
    assert!(!r.ok);
    assert!(errors(&r).contains("BeaconState"), "{}", errors(&r));
    // Scheduled after the era: the file verifies.
    let mut later = net.clone();
    later.consensus.gloas_epoch = Some(era * 8192 / 32 + 1);
    let r = verify(&path, &later);
    assert!(r.ok, "{}", errors(&r));
}
