//! The consensus datasets against an independent decoder: every operation dataset and `validators`, row for row
//! and value for value, against what Lodestar (`tests/crosscheck/rows.mjs`, `@lodestar/types`) reads from the
//! same bytes:
//! - synthetic era files of every fork to Gloas, under both presets (a mainnet-preset and a gnosis-preset
//!   network), as `eraflow export` writes them (the Parquet files read back), with `beacon_blocks`' Gloas bid
//!   columns (parent payload status included) as a table of their own;
//! - the real beacon blocks of the shared data (Portal blocks from Bellatrix to Deneb with their payloads, the
//!   trin block, the erigon sanity chains) and real states (mainnet and sepolia genesis, erigon's phase0 and
//!   capella states), through the dataset builders.
//!
//! Skips loudly without node or `tests/crosscheck/node_modules` (`npm ci --prefix tests/crosscheck`).

use crate::testdata;
use crate::util::{export_opts, lodestar, preset_network, read_parquet, unpack_era};
use arrow_array::cast::AsArray;
use arrow_array::types::{UInt16Type, UInt32Type, UInt64Type, UInt8Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;
use eraflow::consensus::registry::Registry;
use eraflow::consensus::{
    BeaconBlock, BeaconState, Fork, Preset, SignedBeaconBlock, Spec, KNOWN_FORKS,
};
use eraflow::datasets::{self, Dataset, ExportContext};
use eraflow::execution::transaction::TxView;
use eraflow::export::export;
use eraflow::export::progress::Progress;
use eraflow::synth::era::{write, EraSynthOptions};
use eraflow::verify::era::{VerifiedBeaconBlock, VerifiedPayload, VerifiedState};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// Rows per dataset, each row a JSON object of canonical cells.
type Rows = BTreeMap<String, Vec<Value>>;

/// The datasets checked here: the block operations and the registry.
fn consensus_datasets() -> Vec<&'static dyn Dataset> {
    let execution = ["blocks", "transactions", "withdrawals", "beacon_blocks"];
    datasets::ALL
        .iter()
        .copied()
        .filter(|d| !d.needs().is_execution() && !execution.contains(&d.name()))
        .collect()
}

/// `beacon_blocks`' Gloas columns, compared as a table of their own (`BIDS`): the rest of `beacon_blocks` is
/// execution-side and checked elsewhere.
const BID_COLUMNS: [&str; 15] = [
    "slot",
    "block_root",
    "bid_builder_index",
    "bid_self_built",
    "bid_value_gwei",
    "bid_execution_payment_gwei",
    "bid_block_hash",
    "bid_parent_block_hash",
    "bid_gas_limit",
    "bid_blob_kzg_commitments_root",
    "bid_execution_requests_root",
    "parent_payload_status",
    "payload_attestation_count",
    "blob_kzg_commitment_count",
    "fork",
];
const BIDS: &str = "beacon_blocks (Gloas bid columns)";
/// The payloads' transaction bytes (an execution dataset, compared for the synthetic eras, whose payloads carry
/// real transactions).
const RAW: &str = "raw_transactions";

/// One Parquet/Arrow cell as rows.mjs renders values.
fn cell(col: &ArrayRef, i: usize) -> Value {
    if col.is_null(i) {
        return Value::Null;
    }
    match col.data_type() {
        DataType::UInt8 => json!(col.as_primitive::<UInt8Type>().value(i).to_string()),
        DataType::UInt16 => json!(col.as_primitive::<UInt16Type>().value(i).to_string()),
        DataType::UInt32 => json!(col.as_primitive::<UInt32Type>().value(i).to_string()),
        DataType::UInt64 => json!(col.as_primitive::<UInt64Type>().value(i).to_string()),
        DataType::Boolean => json!(col.as_boolean().value(i)),
        DataType::Utf8 => json!(col.as_string::<i32>().value(i)),
        DataType::Binary => json!(format!(
            "0x{}",
            hex::encode(col.as_binary::<i32>().value(i))
        )),
        DataType::List(_) => {
            let items = col.as_list::<i32>().value(i);
            Value::Array((0..items.len()).map(|j| cell(&items, j)).collect())
        }
        other => panic!("no rendering for {other}"),
    }
}

fn batch_rows(b: &RecordBatch) -> Vec<Value> {
    (0..b.num_rows())
        .map(|i| {
            let mut row = Map::new();
            for (f, col) in b.schema().fields().iter().zip(b.columns()) {
                row.insert(f.name().clone(), cell(col, i));
            }
            Value::Object(row)
        })
        .collect()
}

struct Case {
    id: String,
    blocks: Vec<Value>,
    states: Vec<Value>,
    rows: Rows,
}

/// Synthetic era files of every fork of `preset`, exported, with their blocks and state unpacked into `dir`.
fn synthetic_cases(preset: Preset, dir: &Path) -> Vec<Case> {
    let net = preset_network(preset);
    let mut cases = Vec::new();
    // Gloas scheduled four eras after Fulu, so an era of each fork exists.
    let mut net = net;
    net.consensus.gloas_epoch =
        Some(net.consensus.fulu_epoch + 4 * 8192 / net.consensus.preset.slots_per_epoch());
    for fork in KNOWN_FORKS {
        let id = format!("{}-{fork}", net.name);
        let src = dir.join(format!("{id}-src"));
        let mut o = EraSynthOptions::new(net.clone());
        o.era = EraSynthOptions::era_of_fork(&net, fork).unwrap();
        (o.blocks, o.validators, o.txs_per_block) = (5, 40, 2);
        let path = write(&src, &o).unwrap().remove(0);
        let out = dir.join(format!("{id}-out"));
        let mut opts = export_opts(&out, false);
        opts.datasets = consensus_datasets();
        opts.datasets.push(&datasets::beacon_blocks::BeaconBlocks);
        // The payloads' transaction bytes too: synth's payloads carry real transactions.
        opts.datasets
            .push(&datasets::raw_transactions::RawTransactions);
        opts.network = Some(net.clone());
        let outcome = export(std::slice::from_ref(&path), &opts, &Progress::hidden()).unwrap();
        assert!(outcome[0].ok, "{id}: {:?}", outcome[0].errors);
        let mut rows = Rows::new();
        for rel in &outcome[0].outputs {
            let dataset = rel.split('/').next().unwrap().to_string();
            let batch_rows = batch_rows(&read_parquet(&out.join(rel)));
            if dataset == "beacon_blocks" {
                // Only the Gloas bid's columns, compared as their own table.
                let bids: Vec<Value> = batch_rows
                    .into_iter()
                    .filter(|r| !r["bid_builder_index"].is_null())
                    .map(|r| {
                        let mut m = Map::new();
                        for k in BID_COLUMNS {
                            m.insert(k.to_string(), r[k].clone());
                        }
                        Value::Object(m)
                    })
                    .collect();
                if !bids.is_empty() {
                    rows.insert(BIDS.into(), bids);
                }
                continue;
            }
            rows.insert(dataset, batch_rows);
        }
        let (blocks, state) = unpack_era(&path);
        let mut block_entries = Vec::new();
        for (slot, bytes) in blocks {
            let file = format!("{id}-block-{slot}.ssz");
            std::fs::write(dir.join(&file), &bytes).unwrap();
            let f = Fork::at_slot(slot, &net);
            block_entries.push(json!({"file": file, "fork": f.name(), "signed": true, "payload_transactions": true}));
        }
        let file = format!("{id}-state.ssz");
        std::fs::write(dir.join(&file), &state).unwrap();
        let state_fork = Fork::at_slot(o.era * 8192, &net);
        cases.push(Case {
            id,
            blocks: block_entries,
            states: vec![json!({"file": file, "fork": state_fork.name(), "era": o.era})],
            rows,
        });
    }
    cases
}

/// The rows the dataset builders give for real blocks and states (not in era files: verification's per-block
/// checks need the era's state, so the blocks are handed to the builders as verified ones).
fn builder_rows(blocks: &[(Spec, Vec<u8>, bool)], states: &[(Spec, Vec<u8>)]) -> Rows {
    let ctx = ExportContext {
        chain_id: 1,
        signer: None,
    };
    let mut rows = Rows::new();
    for d in consensus_datasets() {
        let mut b = d.builder(ctx);
        for (spec, bytes, signed) in blocks {
            let block = if *signed {
                SignedBeaconBlock::new(bytes, *spec)
                    .unwrap()
                    .message()
                    .unwrap()
            } else {
                BeaconBlock::new(bytes, *spec).unwrap()
            };
            let body = block.body().unwrap();
            let payload = body
                .execution_payload()
                .map(|p| p.unwrap())
                .filter(|p| p.block_hash().iter().any(|&x| x != 0));
            let header = payload
                .as_ref()
                .map(|_| eraflow::verify::payload::header_from_payload(&block).unwrap());
            // The sanity chains' payloads carry made-up transactions: the consensus datasets read none.
            let txs: Vec<TxView<'_>> = Vec::new();
            let withdrawals = payload
                .as_ref()
                .map_or(Vec::new(), |p| p.withdrawals().unwrap());
            let execution = match (&payload, &header) {
                (Some(p), Some(h)) => Some(VerifiedPayload {
                    payload: p,
                    header: h,
                    block_hash: p.block_hash().try_into().unwrap(),
                    transactions: &txs,
                    senders: &[],
                    withdrawals: &withdrawals,
                }),
                _ => None,
            };
            let v = VerifiedBeaconBlock {
                slot: block.slot(),
                root: block.root().unwrap(),
                block: &block,
                body: &body,
                execution,
                parent_payload_revealed: None,
                signature: &[],
                sizes: (0, bytes.len() as u64),
            };
            b.add_beacon_block(&v).unwrap();
        }
        for (spec, bytes) in states {
            let state = BeaconState::new(bytes, *spec).unwrap();
            let registry = Registry::new(&state).unwrap();
            let v = VerifiedState {
                slot: state.slot(),
                era: state.slot() / 8192,
                root: state.root().unwrap(),
                state: &state,
                registry: &registry,
            };
            // Two chunks, as export streams them.
            let half = registry.len() / 2;
            b.add_state(&v, 0..half).unwrap();
            b.add_state(&v, half..registry.len()).unwrap();
        }
        let batch = b.finish();
        if batch.num_rows() > 0 {
            rows.insert(d.name().to_string(), batch_rows(&batch));
        }
    }
    rows
}

/// The real blocks and states of the shared data, as one case (mainnet preset), or `None` without the data.
fn real_case(dir: &Path) -> Option<Case> {
    let root = testdata::dir("real beacon blocks for the consensus datasets' cross-check")?;
    let ssz_dir = root.join("ssz");
    let snappy = |p: &Path| {
        snap::raw::Decoder::new()
            .decompress_vec(&std::fs::read(p).unwrap())
            .unwrap()
    };
    let mut blocks: Vec<(Spec, Vec<u8>, bool, String)> = Vec::new();
    let text = std::fs::read_to_string(root.join("expected/ssz-roots.json")).unwrap();
    let entries: Vec<Value> = serde_json::from_str(&text).unwrap();
    let mut states: Vec<(Spec, Vec<u8>, String)> = Vec::new();
    for e in &entries {
        let file = e["file"].as_str().unwrap();
        let fork: Fork = e["fork"].as_str().unwrap().parse().unwrap();
        let path = ssz_dir.join(file);
        let bytes = if file.ends_with(".ssz_snappy") {
            snappy(&path)
        } else {
            std::fs::read(&path).unwrap()
        };
        match e["type"].as_str().unwrap() {
            "BeaconBlock" => blocks.push((Spec::mainnet(fork), bytes, false, file.into())),
            "SignedBeaconBlock" => blocks.push((Spec::mainnet(fork), bytes, true, file.into())),
            // Random u64s above 2^53 would not survive Lodestar's JavaScript numbers.
            "BeaconState" if !file.contains("random") => {
                states.push((Spec::mainnet(fork), bytes, file.into()))
            }
            _ => {}
        }
    }
    for (chain, fork) in [
        ("chain-phase0", Fork::Phase0),
        ("chain-bellatrix", Fork::Bellatrix),
        ("chain-capella", Fork::Capella),
    ] {
        for n in 0..100 {
            let p = ssz_dir.join(format!("erigon/{chain}/blocks_{n}.ssz_snappy"));
            if p.exists() {
                blocks.push((
                    Spec::mainnet(fork),
                    snappy(&p),
                    true,
                    format!("{chain}-{n}"),
                ));
            }
        }
    }
    let mut block_entries = Vec::new();
    for (i, (spec, bytes, signed, _)) in blocks.iter().enumerate() {
        let file = format!("real-block-{i}.ssz");
        std::fs::write(dir.join(&file), bytes).unwrap();
        block_entries.push(json!({"file": file, "fork": spec.fork.name(), "signed": signed}));
    }
    let mut state_entries = Vec::new();
    for (i, (spec, bytes, _)) in states.iter().enumerate() {
        let file = format!("real-state-{i}.ssz");
        std::fs::write(dir.join(&file), bytes).unwrap();
        let slot = BeaconState::new(bytes, *spec).unwrap().slot();
        state_entries.push(json!({"file": file, "fork": spec.fork.name(), "era": slot / 8192}));
    }
    let rows = builder_rows(
        &blocks
            .iter()
            .map(|(s, b, signed, _)| (*s, b.clone(), *signed))
            .collect::<Vec<_>>(),
        &states
            .iter()
            .map(|(s, b, _)| (*s, b.clone()))
            .collect::<Vec<_>>(),
    );
    Some(Case {
        id: "real".into(),
        blocks: block_entries,
        states: state_entries,
        rows,
    })
}

/// Runs rows.mjs over `cases` in `dir` under `preset` and compares; returns rows compared per dataset.
fn compare(here: &Path, dir: &Path, preset: Preset, cases: &[Case]) -> BTreeMap<String, usize> {
    let manifest: Vec<Value> = cases
        .iter()
        .map(|c| json!({"id": c.id, "blocks": c.blocks, "states": c.states}))
        .collect();
    std::fs::write(
        dir.join("cases.json"),
        serde_json::to_vec(&manifest).unwrap(),
    )
    .unwrap();
    let out = Command::new("node")
        .arg(here.join("rows.mjs"))
        .arg(dir)
        .env("LODESTAR_PRESET", preset.name())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "rows.mjs failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs: BTreeMap<String, Rows> =
        serde_json::from_slice(&std::fs::read(dir.join("lodestar-rows.json")).unwrap()).unwrap();
    let mut compared = BTreeMap::new();
    for c in cases {
        let empty = Rows::new();
        let lodestar = theirs.get(&c.id).unwrap_or(&empty);
        let names = consensus_datasets()
            .iter()
            .map(|d| d.name())
            .chain([BIDS, RAW])
            .collect::<Vec<_>>();
        for name in names {
            let ours = c.rows.get(name).map_or(&[][..], |v| v.as_slice());
            let them = lodestar.get(name).map_or(&[][..], |v| v.as_slice());
            assert_eq!(
                ours.len(),
                them.len(),
                "{}: {} rows here, {} from Lodestar",
                c.id,
                ours.len(),
                them.len()
            );
            for (i, (a, b)) in ours.iter().zip(them).enumerate() {
                assert_eq!(a, b, "{} {name} row {i} differs from Lodestar's", c.id);
            }
            *compared.entry(name.to_string()).or_default() += ours.len();
        }
    }
    compared
}

#[test]
fn consensus_datasets_match_lodestar() {
    let Some(here) = lodestar("consensus datasets' cross-check") else {
        return;
    };
    for preset in [Preset::Mainnet, Preset::Gnosis] {
        let dir = tempfile::tempdir().unwrap();
        let mut cases = synthetic_cases(preset, dir.path());
        if preset == Preset::Mainnet {
            cases.extend(real_case(dir.path()));
        }
        let compared = compare(&here, dir.path(), preset, &cases);
        eprintln!("{preset}: rows compared with Lodestar: {compared:?}");
        // Every dataset had rows to compare: synthetic blocks carry every operation of their fork.
        for name in consensus_datasets()
            .iter()
            .map(|d| d.name())
            .chain([BIDS, RAW])
        {
            assert!(
                compared.get(name).is_some_and(|&n| n > 0),
                "{preset}: no {name} rows compared",
            );
        }
    }
}
