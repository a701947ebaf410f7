//! Amsterdam, the execution fork beside Gloas (issue 44): 23-field headers decoded and hashed as an independent
//! implementation does (alloy-consensus 2.x's `Header`), a header of the wrong field count for its fork refused,
//! the gas rule of EIP-7778/8037, EIP-7708's ETH-transfer logs kept out of the token datasets and read into
//! `native_transfers` (both checked against eth-abi by tests/python), and ere files past Gloas checked against the
//! era files' bids.

use crate::testdata;
use crate::util::{report_errors, unpack_era};
use alloy_rlp::Decodable;
use eraflow::consensus::{Fork, SignedBeaconBlock, Spec};
use eraflow::datasets;
use eraflow::execution::header::{wrap_list, HeaderFields, HeaderView};
use eraflow::execution::receipt;
use eraflow::export::progress::Progress;
use eraflow::export::{export, ExportOptions};
use eraflow::formats::execution::{decompress, BlockDecoders};
use eraflow::formats::{EreProfile, ExecutionArchive};
use eraflow::network::Network;
use eraflow::synth::era::{bid_payload_header, BidPayload, EraSynthOptions, GENESIS_TIME};
use eraflow::verify::{verify_archives, VerifyOptions};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Era 250 of synthnet with Amsterdam from block `250 * 8192 + 16` (the preset's own fork is at `+ 4096`: a
/// small file crosses it here).
const ERA: u64 = 250;
const FORK_BLOCK: u64 = ERA * 8192 + 16;

fn amsterdam_net() -> Network {
    let mut n = Network::by_name("synthnet").unwrap();
    n.forks.amsterdam_time = Some(1_600_000_000 + 13 * FORK_BLOCK);
    n
}

/// A synthetic ere file of 48 blocks across Prague -> Amsterdam (tokens: receipts full of token events).
fn crossing(dir: &Path, tokens: bool) -> PathBuf {
    let mut o = eraflow::synth::era1::SynthOptions::new(amsterdam_net());
    (o.era, o.blocks, o.txs_per_block, o.tokens, o.seed) = (ERA, 48, 3, tokens, 5);
    eraflow::synth::ere::write(
        dir,
        &eraflow::synth::ere::EreSynthOptions {
            chain: o,
            profile: EreProfile {
                no_proofs: true,
                no_receipts: false,
            },
        },
    )
    .unwrap()
    .remove(0)
}

/// Every block's header RLP and its receipts' last cumulative gas.
fn headers(path: &Path) -> Vec<(Vec<u8>, u64)> {
    let file = ExecutionArchive::open(path).unwrap();
    let mut dec = BlockDecoders::default();
    (0..file.block_count())
        .map(|i| {
            let r = file.block(i).unwrap();
            let header = decompress(&mut dec.header, &r.header, path, r.number)
                .unwrap()
                .to_vec();
            let slim = decompress(
                &mut dec.receipts,
                r.receipts.as_ref().unwrap(),
                path,
                r.number,
            )
            .unwrap();
            let last = receipt::decode_slim_list(slim)
                .unwrap()
                .map(|x| x.unwrap().cumulative_gas_used())
                .last()
                .unwrap_or(0);
            (header, last)
        })
        .collect()
}

#[test]
fn alloy_decodes_and_hashes_every_amsterdam_header_as_eraflow_does() {
    let dir = tempfile::tempdir().unwrap();
    let ere = crossing(dir.path(), false);
    let (mut prague, mut amsterdam, mut above, mut below) = (0, 0, 0, 0);
    for (raw, last_cumulative) in headers(&ere) {
        let ours = HeaderView::decode(&raw).unwrap();
        let theirs = alloy_consensus::Header::decode(&mut &raw[..]).unwrap();
        assert_eq!(
            theirs.hash_slow().0,
            ours.hash().0,
            "block {}",
            ours.number()
        );
        assert_eq!(alloy_rlp::encode(&theirs), raw, "block {}", ours.number());
        assert_eq!(theirs.number, ours.number());
        assert_eq!(theirs.parent_hash.0, *ours.parent_hash());
        assert_eq!(theirs.gas_used, ours.gas_used());
        assert_eq!(theirs.gas_limit, ours.gas_limit());
        assert_eq!(theirs.timestamp, ours.timestamp());
        assert_eq!(theirs.logs_bloom.0 .0, *ours.logs_bloom());
        assert_eq!(theirs.receipts_root.0, *ours.receipts_root());
        assert_eq!(
            theirs.requests_hash.map(|h| h.0),
            ours.requests_hash().copied()
        );
        assert_eq!(
            theirs.block_access_list_hash.map(|h| h.0),
            ours.block_access_list_hash().copied()
        );
        assert_eq!(theirs.slot_number, ours.slot_number());
        match ours.number() >= FORK_BLOCK {
            true => {
                assert_eq!(ours.field_count(), 23);
                assert!(theirs.slot_number.is_some());
                amsterdam += 1;
                // EIP-7778/8037: the header's gas is no longer the receipts' sum, either way.
                above += usize::from(ours.gas_used() > last_cumulative);
                below += usize::from(ours.gas_used() < last_cumulative);
            }
            false => {
                assert_eq!(ours.field_count(), 21);
                assert_eq!(ours.gas_used(), last_cumulative);
                prague += 1;
            }
        }
    }
    assert_eq!((prague, amsterdam), (16, 32));
    assert!(above > 0 && below > 0, "{above} above, {below} below");
}

#[test]
fn a_header_of_the_wrong_field_count_for_its_fork_is_refused() {
    // 22 fields (the block access list hash without the slot number) is no fork's header.
    let h = HeaderFields {
        base_fee_per_gas: Some(alloy_primitives::U256::from(7u64)),
        withdrawals_root: Some(alloy_primitives::B256::ZERO),
        cancun: Some((0, 0, alloy_primitives::B256::ZERO)),
        requests_hash: Some(alloy_primitives::B256::ZERO),
        amsterdam: Some((alloy_primitives::B256::ZERO, 9)),
        ..Default::default()
    };
    let raw = h.encode();
    let list = alloy_rlp::Header::decode(&mut &raw[..]).unwrap();
    // Drop the last field (one byte: the slot number 9) and re-wrap.
    let payload = &raw[raw.len() - list.payload_length..raw.len() - 1];
    let e = HeaderView::decode(&wrap_list(payload))
        .unwrap_err()
        .to_string();
    assert!(e.contains("found 22"), "{e}");

    // 23 fields where the network has no Amsterdam, and 21 where it has: refused, naming block, fork and count.
    let dir = tempfile::tempdir().unwrap();
    let ere = crossing(dir.path(), false);
    let mut no_fork = amsterdam_net();
    no_fork.forks.amsterdam_time = None;
    let mut early = amsterdam_net();
    early.forks.amsterdam_time = Some(1_600_000_000 + 13 * (ERA * 8192));
    for (net, want, found) in [
        (
            no_fork,
            format!("expected 21 (the Prague header of block {FORK_BLOCK} at timestamp"),
            "on synthnet), found 23",
        ),
        (
            early,
            format!(
                "expected 23 (the Amsterdam header of block {} at timestamp",
                ERA * 8192
            ),
            "on synthnet), found 21",
        ),
    ] {
        let r = eraflow::verify::file(
            &ere,
            &VerifyOptions {
                network: Some(net),
                ..Default::default()
            },
        );
        let e = report_errors(&r);
        assert!(!r.ok && e.contains(&want) && e.contains(found), "{e}");
        assert!(e.contains("header field count"), "{e}");
    }
}

#[test]
fn an_amsterdam_ere_verifies_and_its_gas_is_checked_by_the_fork_rule() {
    let dir = tempfile::tempdir().unwrap();
    let ere = crossing(dir.path(), true);
    let opts = VerifyOptions {
        network: Some(amsterdam_net()),
        ..Default::default()
    };
    let r = eraflow::verify::file(&ere, &opts);
    assert!(r.ok, "{}", report_errors(&r));
    assert_eq!(r.header_field_counts.get("23"), Some(&32), "{r:?}");
}

fn native_oracle_available() -> bool {
    crate::skip::python_has(
        "polars, eth_abi, Crypto.Hash.keccak",
        "polars eth-abi pycryptodome",
        "ERAFLOW_REQUIRE_ETH_ABI",
        "native_transfers and EIP-7708 logs against eth-abi",
    )
}

/// Runs check_native_transfers.py over `out`.
fn check_native(out: &Path, expected: serde_json::Value) -> String {
    crate::util::python_ok(
        "check_native_transfers.py",
        &[out.to_str().unwrap(), &expected.to_string()],
    )
}

#[test]
fn eth_transfer_logs_are_native_transfers_never_tokens() {
    if !native_oracle_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ere = crossing(&dir.path().join("in"), true);
    let out = dir.path().join("out");
    let mut names = vec![
        "blocks",
        "transactions",
        "logs",
        "withdrawals",
        "native_transfers",
    ];
    names.extend(crate::tokens::TOKENS);
    let opts = ExportOptions {
        senders: true,
        network: Some(amsterdam_net()),
        ..ExportOptions::new(out.clone(), datasets::by_names(&names).unwrap())
    };
    let outcomes = export(std::slice::from_ref(&ere), &opts, &Progress::hidden()).unwrap();
    assert!(outcomes.iter().all(|o| o.ok), "{outcomes:?}");
    let eth_logs: u64 = outcomes
        .iter()
        .filter_map(|o| o.skipped_eth_transfer_logs.get("erc20_transfers"))
        .sum();
    assert!(eth_logs > 20, "{outcomes:?}");
    let mut lookalikes = BTreeMap::new();
    for (d, n) in outcomes.iter().flat_map(|o| &o.skipped_lookalikes) {
        *lookalikes.entry(d.clone()).or_insert(0u64) += n;
    }
    // The token rows are exactly eth-abi's decoding of the logs less SYSTEM_ADDRESS's.
    let expected = serde_json::json!({ "lookalikes": lookalikes, "contracts": false });
    let text = crate::util::python_ok(
        "check_tokens.py",
        &[out.to_str().unwrap(), &expected.to_string()],
    );
    assert_eq!(text.matches("ok: ").count(), 5, "{text}");
    let text = check_native(
        &out,
        serde_json::json!({
            "eth_transfer_logs": eth_logs,
            "min_rows": {"transaction": 10, "log": 10, "withdrawal": 10},
        }),
    );
    assert!(text.contains("ok: native_transfers"), "{text}");
    eprintln!("{text}");
}

#[test]
fn native_transfers_of_real_archives_are_their_values_and_withdrawals() {
    let Some(path) = testdata::file("era1/sepolia-00021-b8814b14.era1") else {
        return;
    };
    if !native_oracle_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let opts = ExportOptions {
        senders: true,
        ..ExportOptions::new(
            out.clone(),
            datasets::by_names(&["transactions", "logs", "native_transfers"]).unwrap(),
        )
    };
    let outcomes = export(&[path], &opts, &Progress::hidden()).unwrap();
    assert!(outcomes.iter().all(|o| o.ok), "{outcomes:?}");
    // 93 transactions, 27 of them failed creations: every other non-zero value is a row.
    let text = check_native(
        &out,
        serde_json::json!({ "eth_transfer_logs": 0, "min_rows": {"transaction": 1} }),
    );
    assert!(text.contains("ok: native_transfers"), "{text}");
    eprintln!("{text}");
}

/// synthnet with Gloas (and Amsterdam, at the same instant) in the middle of the first era wholly in Fulu, its
/// payloads numbered from a multiple of 8192 so one ere file holds them, and every execution fork before
/// Amsterdam from the start.
fn gloas_amsterdam_net() -> (Network, u64) {
    let mut net = Network::by_name("synthnet").unwrap();
    let era = EraSynthOptions::era_of_fork(&net, Fork::Fulu).unwrap();
    let gloas_slot = (era - 1) * 8192 + 4096;
    net.consensus.gloas_epoch = Some(gloas_slot / 32);
    net.first_pos_block = 123 * 8192 - 1;
    net.forks.shanghai_time = Some(0);
    net.forks.cancun_time = Some(0);
    net.forks.prague_time = Some(0);
    net.forks.amsterdam_time = Some(GENESIS_TIME + gloas_slot * net.consensus.seconds_per_slot);
    (net, era)
}

/// The execution blocks of synthetic era files in order: each payload's (before Gloas, as
/// [`crate::util::era_payload_blocks`] reads them), and each bid's whose payload the next block revealed (the
/// last block's bid is not known to be revealed: left out).
fn era_execution_blocks(era_files: &[PathBuf], net: &Network) -> Vec<(u64, HeaderFields, Vec<u8>)> {
    let mut payloads = crate::util::era_payload_blocks(era_files, net).into_iter();
    let mut out = Vec::new();
    let mut pending: Option<(u64, [u8; 32], BidPayload<'static>)> = None;
    let mut number = 0;
    for f in era_files {
        for (slot, bytes) in unpack_era(f).0 {
            let signed = SignedBeaconBlock::new(&bytes, Spec::at_slot(slot, net)).unwrap();
            let block = signed.message().unwrap();
            let body = block.body().unwrap();
            let Some(bid) = body.bid() else {
                let p = payloads.next().unwrap();
                number = p.0;
                out.push(p);
                continue;
            };
            let bid = bid.unwrap();
            if let Some((_, hash, mut p)) = pending.take() {
                if bid.parent_block_hash() == hash {
                    let requests = body.parent_execution_requests().unwrap().to_vec();
                    p.requests = Box::leak(requests.into_boxed_slice());
                    number += 1;
                    p.number = number;
                    let header = bid_payload_header(&p);
                    assert_eq!(eraflow::crypto::keccak::keccak256(header.encode()).0, hash);
                    let body = wrap_list(&[0xc0, 0xc0, 0xc0]);
                    out.push((number, header, body));
                }
            }
            pending = Some((
                slot,
                bid.block_hash(),
                BidPayload {
                    parent_hash: bid.parent_block_hash(),
                    parent_root: bid.parent_block_root(),
                    number: 0,
                    slot,
                    timestamp: GENESIS_TIME + slot * net.consensus.seconds_per_slot,
                    gas_limit: bid.gas_limit(),
                    prev_randao: bid.prev_randao(),
                    fee_recipient: bid.fee_recipient(),
                    requests: &[],
                },
            ));
        }
    }
    out
}

/// An ere file of the era files' execution blocks (payloads, then revealed bids), no receipts.
fn ere_of(
    era_files: &[PathBuf],
    net: &Network,
    out: &Path,
    edit_last: impl Fn(&mut HeaderFields),
) -> PathBuf {
    let blocks = era_execution_blocks(era_files, net);
    let bids = blocks.iter().filter(|b| b.1.amsterdam.is_some()).count();
    assert!(
        bids > 8 && blocks.len() > bids + 8,
        "{bids} of {}",
        blocks.len()
    );
    // Payload blocks chain by their own parent hashes; the first bid's builds on the last payload.
    crate::util::ere_of_blocks(blocks, &net.name, out, edit_last)
}

#[test]
fn ere_past_gloas_verifies_against_the_era_files_bids() {
    let (net, era) = gloas_amsterdam_net();
    let dir = tempfile::tempdir().unwrap();
    let mut o = EraSynthOptions::new(net.clone());
    (o.era, o.files, o.blocks, o.validators, o.txs_per_block) = (era, 2, 48, 64, 2);
    let eras = eraflow::synth::era::write(&dir.path().join("era"), &o).unwrap();
    let opts = VerifyOptions {
        network: Some(net.clone()),
        ..Default::default()
    };
    let same = ere_of(&eras, &net, &dir.path().join("same"), |_| {});
    let mut inputs = vec![same];
    inputs.extend(eras.iter().cloned());
    let reports = verify_archives(&inputs, &opts);
    for r in &reports {
        assert!(r.ok, "{}: {}", r.file, report_errors(r));
    }
    let x = &reports[0];
    assert!(
        x.header_field_counts.get("23").is_some_and(|n| *n > 8),
        "{x:?}"
    );
    let by_bids: Vec<&String> = x
        .cross_checked
        .iter()
        .filter(|c| c.contains("agree with the execution payload bids of"))
        .collect();
    assert_eq!(by_bids.len(), 2, "{:?}", x.cross_checked);
    assert!(
        x.cross_checked
            .iter()
            .any(|c| c.contains("agree with the execution payloads of")),
        "{:?}",
        x.cross_checked
    );
    for e in &reports[1..] {
        assert!(
            e.cross_checked
                .iter()
                .any(|c| c.contains("execution blocks of slots")),
            "{}: {:?}",
            e.file,
            e.cross_checked
        );
    }

    // The same blocks but the last: sound on its own, and refused against the bid that commits to another.
    let other = ere_of(&eras, &net, &dir.path().join("other"), |h| h.gas_limit += 1);
    let alone = eraflow::verify::file(&other, &opts);
    assert!(alone.ok, "{}", report_errors(&alone));
    let mut inputs = vec![other];
    inputs.extend(eras.iter().cloned());
    let reports = verify_archives(&inputs, &opts);
    let (x, last_era) = (&reports[0], &reports[2]);
    for r in [x, last_era] {
        let e = report_errors(r);
        assert!(
            !r.ok && e.contains("but the bid in") && e.contains("commits to"),
            "{}: {e}",
            r.file
        );
    }
}

/// Real mainnet blocks of every fork from Gray Glacier to Prague (Portal block data: header, body, slim
/// receipts; Shanghai on with their withdrawals), each written as a one-block ere file and read back through
/// verification with senders recovered: `native_transfers` is their transactions' non-zero values and their
/// withdrawals, row for row, as check_native_transfers.py derives them independently.
#[test]
fn native_transfers_of_real_mainnet_blocks_are_their_values_and_withdrawals() {
    let Some(dir) = testdata::dir("portal block data (real transfers and withdrawals)") else {
        return;
    };
    if !native_oracle_available() {
        return;
    }
    let mainnet = Network::by_name("mainnet").unwrap();
    let signer =
        eraflow::crypto::signer::init(eraflow::crypto::signer::SignatureAlgorithm::Secp256k1)
            .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let rows = crate::util::Rows {
        datasets: datasets::by_names(&["transactions", "logs", "withdrawals", "native_transfers"])
            .unwrap(),
        ctx: datasets::ExportContext {
            chain_id: mainnet.chain_id,
            signer: Some(signer),
        },
    };
    let opts = VerifyOptions {
        network: Some(mainnet.clone()),
        senders: true,
        ..Default::default()
    };
    let mut counts = BTreeMap::<&str, usize>::new();
    for (number, path) in crate::util::portal_block_files(&dir, tmp.path()) {
        let chunks = std::sync::Mutex::new(Vec::new());
        let report =
            eraflow::verify::file_with(&path, &opts, &rows, |c| chunks.lock().unwrap().push(c));
        assert_eq!(report.errors.len(), 1, "{number}: {:?}", report.errors);
        for builders in chunks.into_inner().unwrap() {
            for (d, b) in rows.datasets.iter().zip(builders) {
                let batch = b.finish();
                *counts.entry(d.name()).or_default() += batch.num_rows();
                crate::util::write_rows(&out, d.name(), number, &batch);
            }
        }
    }
    // Hundreds of real transfers, and the withdrawals of the Shanghai-on blocks.
    assert!(counts["native_transfers"] > 500, "{counts:?}");
    assert!(counts["withdrawals"] >= 16, "{counts:?}");
    let text = check_native(
        &out,
        serde_json::json!({ "eth_transfer_logs": 0, "min_rows": {"transaction": 100, "withdrawal": 16} }),
    );
    assert!(text.contains("ok: native_transfers"), "{text}");
    eprintln!("{counts:?}\n{text}");
}

/// Decoded events: a `Transfer` spec naming no contract takes no EIP-7708 log (counted instead); one naming
/// `SYSTEM_ADDRESS` takes exactly those.
#[test]
fn decoded_transfers_take_eth_transfer_logs_only_when_the_spec_names_the_system_address() {
    let dir = tempfile::tempdir().unwrap();
    let ere = crossing(&dir.path().join("in"), true);
    let sig = "Transfer(address indexed from, address indexed to, uint256 value)";
    let specs = vec![
        format!("any={sig}"),
        format!("eth={sig}@0xfffffffffffffffffffffffffffffffffffffffe"),
    ];
    let mut picked = datasets::by_names(&["erc20_transfers"]).unwrap();
    picked.extend(datasets::decoded::from_specs(&specs).unwrap());
    let opts = ExportOptions {
        network: Some(amsterdam_net()),
        ..ExportOptions::new(dir.path().join("out"), picked)
    };
    let outcomes = export(std::slice::from_ref(&ere), &opts, &Progress::hidden()).unwrap();
    assert!(outcomes.iter().all(|o| o.ok), "{outcomes:?}");
    let (rows, skipped) = (&outcomes[0].rows, &outcomes[0].skipped_eth_transfer_logs);
    let eth_logs = skipped["erc20_transfers"];
    assert!(eth_logs > 20, "{skipped:?}");
    // The spec without contracts sets aside the same logs erc20_transfers does, and finds its rows.
    assert_eq!(skipped.get("any"), Some(&eth_logs), "{skipped:?}");
    assert_eq!(rows["any"], rows["erc20_transfers"], "{rows:?}");
    // The spec of SYSTEM_ADDRESS has a row for each of them, and sets none aside.
    assert_eq!(rows["eth"], eth_logs, "{rows:?}");
    assert_eq!(skipped.get("eth"), None, "{skipped:?}");
}
