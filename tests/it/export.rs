//! The export path: values against real chain data, determinism across thread counts, resume after damage,
//! failed files never exported, and synthetic archives round-tripping every transaction kind.

use crate::testdata;
use crate::util::{export_opts, files_in, read_parquet, snapshot};
use arrow_array::types::{Float64Type, UInt32Type, UInt64Type};
use arrow_array::{cast::AsArray, Array, RecordBatch};
use eraflow::export::export;
use eraflow::export::progress::Progress;
use eraflow::network::Network;
use std::path::{Path, PathBuf};

fn hex_col(b: &RecordBatch, name: &str, row: usize) -> Option<String> {
    let c = b.column_by_name(name).unwrap().as_binary::<i32>();
    (!c.is_null(row)).then(|| format!("0x{}", hex::encode(c.value(row))))
}

fn str_col(b: &RecordBatch, name: &str, row: usize) -> Option<String> {
    let c = b.column_by_name(name).unwrap().as_string::<i32>();
    (!c.is_null(row)).then(|| c.value(row).to_string())
}

fn u64_col(b: &RecordBatch, name: &str, row: usize) -> Option<u64> {
    let c = b.column_by_name(name).unwrap().as_primitive::<UInt64Type>();
    (!c.is_null(row)).then(|| c.value(row))
}

#[test]
fn real_files_export_with_expected_values() {
    let Some(data) = testdata::dir("export of real era1 files") else {
        return;
    };
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(data.join("era1"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    inputs.sort();
    let out = tempfile::tempdir().unwrap();
    let outcomes = export(&inputs, &export_opts(out.path(), true), &Progress::hidden()).unwrap();
    assert!(
        outcomes.iter().all(|o| o.ok),
        "{:?}",
        outcomes.iter().map(|o| &o.errors).collect::<Vec<_>>()
    );

    let expected: serde_json::Value =
        serde_json::from_slice(&std::fs::read(data.join("expected/era1-summaries.json")).unwrap())
            .unwrap();
    for exp in expected.as_array().unwrap() {
        let network = exp["network"].as_str().unwrap();
        let (s, e) = (
            exp["start_block"].as_u64().unwrap(),
            exp["end_block"].as_u64().unwrap(),
        );
        let b = read_parquet(&out.path().join(format!(
            "blocks/network={network}/{network}__blocks__{s:08}_to_{e:08}.parquet"
        )));
        assert_eq!(b.num_rows() as u64, exp["block_count"].as_u64().unwrap());
        assert_eq!(u64_col(&b, "block_number", 0), Some(s));
        assert_eq!(
            hex_col(&b, "block_hash", 0).as_deref(),
            exp["first_block_hash"].as_str()
        );
        assert_eq!(
            hex_col(&b, "block_hash", b.num_rows() - 1).as_deref(),
            exp["last_block_hash"].as_str()
        );
        assert_eq!(
            str_col(&b, "total_difficulty_string", b.num_rows() - 1).as_deref(),
            exp["final_total_difficulty"].as_str()
        );
        let td_f64 = b
            .column_by_name("total_difficulty_f64")
            .unwrap()
            .as_primitive::<Float64Type>();
        let td: f64 = exp["final_total_difficulty"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!((td_f64.value(b.num_rows() - 1) - td).abs() <= td * 1e-15);
        let td_bin = hex_col(&b, "total_difficulty_binary", b.num_rows() - 1).unwrap();
        assert_eq!(
            alloy_primitives::U256::from_str_radix(&td_bin[2..], 16)
                .unwrap()
                .to_string(),
            exp["final_total_difficulty"].as_str().unwrap()
        );
        let uncles = out.path().join(format!(
            "uncles/network={network}/{network}__uncles__{s:08}_to_{e:08}.parquet"
        ));
        // No 0-row files: a source without ommers has no uncles file.
        let n_uncles = match uncles.exists() {
            true => read_parquet(&uncles).num_rows() as u64,
            false => 0,
        };
        assert_eq!(n_uncles, exp["ommer_count"].as_u64().unwrap());
        let uncle_counts = b
            .column_by_name("uncle_count")
            .unwrap()
            .as_primitive::<UInt32Type>();
        assert_eq!(
            uncle_counts.iter().map(|v| v.unwrap() as u64).sum::<u64>(),
            exp["ommer_count"].as_u64().unwrap()
        );
    }

    // Every column the CSV has, for all 93 transactions of sepolia-00021.
    let t =
        read_parquet(&out.path().join(
            "transactions/network=sepolia/sepolia__transactions__00172032_to_00180223.parquet",
        ));
    let csv =
        std::fs::read_to_string(data.join("expected/sepolia-00021-transactions.csv")).unwrap();
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(t.num_rows(), rows.len());
    // Base fee per block, for the effective gas price of EIP-1559 rows (the CSV has the signed fields only).
    let blocks = read_parquet(
        &out.path()
            .join("blocks/network=sepolia/sepolia__blocks__00172032_to_00180223.parquet"),
    );
    let base_fee: std::collections::HashMap<u64, u128> = (0..blocks.num_rows())
        .filter_map(|i| {
            let fee = str_col(&blocks, "base_fee_per_gas_string", i)?;
            Some((u64_col(&blocks, "block_number", i)?, fee.parse().ok()?))
        })
        .collect();
    // The opt-in raw bytes (every dataset is exported here): each hashes to the transaction's published hash,
    // and an independent RLP decoder (alloy-rlp) reads it as one whole transaction of its type.
    let raw = read_parquet(&out.path().join(
        "raw_transactions/network=sepolia/sepolia__raw_transactions__00172032_to_00180223.parquet",
    ));
    assert_eq!(raw.num_rows(), rows.len());
    let raw_bytes = raw
        .column_by_name("raw_transaction")
        .unwrap()
        .as_binary::<i32>();
    for (i, r) in rows.iter().enumerate() {
        let bytes = raw_bytes.value(i);
        assert_eq!(
            crate::util::hex0x(&alloy_primitives::keccak256(bytes).0),
            r[2],
            "raw transaction {i} does not hash to the published hash"
        );
        assert_eq!(hex_col(&raw, "transaction_hash", i).as_deref(), Some(r[2]));
        assert_eq!(
            u64_col(&raw, "block_number", i),
            Some(r[0].parse().unwrap())
        );
        assert_eq!(
            u64_col(&raw, "transaction_index", i),
            Some(r[1].parse().unwrap())
        );
        // A legacy transaction is an RLP list; a typed one its type byte, then one.
        let (ty, mut list) = match bytes[0] {
            0xc0.. => (0, bytes),
            t => (t, &bytes[1..]),
        };
        assert_eq!(ty.to_string(), r[3], "raw transaction {i}: type");
        let h = alloy_rlp::Header::decode(&mut list).unwrap();
        assert!(
            h.list && h.payload_length == list.len(),
            "raw transaction {i}: one whole RLP list"
        );
    }
    let ty = t
        .column_by_name("transaction_type")
        .unwrap()
        .as_primitive::<UInt32Type>();
    let idx = t
        .column_by_name("transaction_index")
        .unwrap()
        .as_primitive::<UInt64Type>();
    let success = t.column_by_name("success").unwrap().as_boolean();
    let n_input = t
        .column_by_name("n_input_bytes")
        .unwrap()
        .as_primitive::<UInt32Type>();
    let opt = |s: &str| (!s.is_empty()).then(|| s.to_string());
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(
            u64_col(&t, "block_number", i),
            Some(r[0].parse().unwrap()),
            "row {i}"
        );
        assert_eq!(idx.value(i).to_string(), r[1]);
        assert_eq!(hex_col(&t, "transaction_hash", i).as_deref(), Some(r[2]));
        assert_eq!(ty.value(i).to_string(), r[3]);
        assert_eq!(hex_col(&t, "from_address", i).as_deref(), Some(r[4]));
        assert_eq!(hex_col(&t, "to_address", i), opt(r[5]));
        assert_eq!(u64_col(&t, "nonce", i), Some(r[6].parse().unwrap()));
        assert_eq!(str_col(&t, "value_string", i).as_deref(), Some(r[7]));
        assert_eq!(u64_col(&t, "gas_limit", i), Some(r[8].parse().unwrap()));
        // As in cryo: `gas_price` is the price paid, the signed gas price or min(max_fee, base_fee + tip).
        let paid = match opt(r[9]) {
            Some(p) => p,
            None => {
                let (max, tip): (u128, u128) = (r[10].parse().unwrap(), r[11].parse().unwrap());
                let base = base_fee[&r[0].parse::<u64>().unwrap()];
                max.min(base + tip).to_string()
            }
        };
        // cryo's uint64 columns beside the exact triples: the same values (every real fee fits).
        assert_eq!(
            u64_col(&t, "gas_price", i).map(|v| v.to_string()),
            Some(paid.clone()),
            "row {i}"
        );
        assert_eq!(str_col(&t, "gas_price_string", i), Some(paid), "row {i}");
        assert_eq!(str_col(&t, "max_fee_per_gas_string", i), opt(r[10]));
        assert_eq!(
            u64_col(&t, "max_fee_per_gas", i).map(|v| v.to_string()),
            opt(r[10])
        );
        assert_eq!(
            str_col(&t, "max_priority_fee_per_gas_string", i),
            opt(r[11])
        );
        assert_eq!(
            u64_col(&t, "max_priority_fee_per_gas", i).map(|v| v.to_string()),
            opt(r[11])
        );
        assert_eq!(n_input.value(i).to_string(), r[12]);
        // `chain_id` is the network's on every row; the signed one (here EIP-155 or typed) is its own column.
        assert_eq!(u64_col(&t, "chain_id", i), Some(11_155_111));
        assert_eq!(
            u64_col(&t, "signed_chain_id", i),
            Some(r[13].parse().unwrap())
        );
        assert_eq!(success.value(i), r[14] == "1");
        assert_eq!(
            u64_col(&t, "cumulative_gas_used", i),
            Some(r[15].parse().unwrap())
        );
    }
}

fn synth(dir: &Path, blocks: u64, txs: u32) -> PathBuf {
    let mut o = eraflow::synth::era1::SynthOptions::new(Network::by_name("synthnet").unwrap());
    o.blocks = blocks;
    o.txs_per_block = txs;
    eraflow::synth::era1::write(dir, &o).unwrap().remove(0)
}

#[test]
fn byte_identical_whatever_the_thread_count_and_resumable() {
    let src = tempfile::tempdir().unwrap();
    let input = synth(src.path(), 1500, 3);
    let run = |threads: usize, out: &Path| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| {
                export(
                    std::slice::from_ref(&input),
                    &export_opts(out, true),
                    &Progress::hidden(),
                )
                .unwrap()
            })
    };
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    assert!(run(1, a.path())[0].ok);
    assert!(run(2, b.path())[0].ok);
    let reference = snapshot(a.path());
    assert_eq!(
        reference,
        snapshot(b.path()),
        "outputs differ between 1 and 2 threads"
    );

    // A rerun skips; damaging an output makes the rerun redo it, byte-identically.
    let again = run(2, b.path());
    assert!(again[0].skipped);
    let victim = b.path().join(
        &reference
            .iter()
            .find(|(p, _)| p.starts_with("logs"))
            .unwrap()
            .0,
    );
    let mut bytes = std::fs::read(&victim).unwrap();
    bytes[100] ^= 1;
    std::fs::write(&victim, &bytes).unwrap();
    let redo = run(2, b.path());
    assert!(!redo[0].skipped && redo[0].ok);
    assert_eq!(reference, snapshot(b.path()));
    std::fs::remove_file(&victim).unwrap();
    assert!(!run(1, b.path())[0].skipped);
    assert_eq!(reference, snapshot(b.path()));
    // A stale temporary from a killed run (a pid past any Linux pid) is cleaned, never mistaken for output.
    std::fs::write(
        b.path()
            .join("blocks/network=synthnet/.x.parquet.4194305-0.tmp"),
        b"junk",
    )
    .unwrap();
    assert!(run(1, b.path())[0].skipped);
    assert_eq!(reference, snapshot(b.path()));
}

#[test]
fn a_file_that_fails_verification_is_never_exported() {
    let src = tempfile::tempdir().unwrap();
    let input = synth(src.path(), 200, 2);
    let mut bytes = std::fs::read(&input).unwrap();
    let n = bytes.len();
    bytes[n - 8 - 8 * 200 - 8 - 20] ^= 1; // inside the accumulator record
    std::fs::write(&input, &bytes).unwrap();
    let good_dir = tempfile::tempdir().unwrap();
    let good = synth(good_dir.path(), 100, 1);
    let out = tempfile::tempdir().unwrap();
    let o = export(
        &[input, good],
        &export_opts(out.path(), false),
        &Progress::hidden(),
    )
    .unwrap();
    assert!(
        !o[0].ok
            && o[0]
                .errors
                .iter()
                .any(|e| e.to_string().contains("accumulator")),
        "{:?}",
        o[0].errors
    );
    assert!(o[1].ok);
    let written: Vec<String> = files_in(out.path())
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    assert!(
        written.iter().all(|p| !p.contains("00000000_to_00000199")),
        "{written:?}"
    );
    assert!(written.iter().any(|p| p.contains("00000000_to_00000099")));
    assert!(written.iter().all(|p| !p.ends_with(".tmp")), "{written:?}");
}

#[test]
fn synthetic_kinds_round_trip() {
    // 8192 blocks of synthnet cross Byzantium and London: pre-155, 155, type 1 with access lists, type 2,
    // post-state and status receipts, logs with 0-4 topics.
    let src = tempfile::tempdir().unwrap();
    let input = synth(src.path(), 8192, 1);
    let out = tempfile::tempdir().unwrap();
    let o = export(
        std::slice::from_ref(&input),
        &export_opts(out.path(), true),
        &Progress::hidden(),
    )
    .unwrap();
    assert!(o[0].ok, "{:?}", o[0].errors);
    let t = read_parquet(&out.path().join(
        "transactions/network=synthnet/synthnet__transactions__00000000_to_00008191.parquet",
    ));
    assert_eq!(t.num_rows(), 8192);
    let ty = t
        .column_by_name("transaction_type")
        .unwrap()
        .as_primitive::<UInt32Type>();
    let v = t
        .column_by_name("signature_v")
        .unwrap()
        .as_primitive::<UInt64Type>();
    let al = t.column_by_name("access_list").unwrap().as_list::<i32>();
    let from = t.column_by_name("from_address").unwrap();
    assert_eq!(from.null_count(), 0, "every synthetic sender recovers");
    let mut seen = std::collections::BTreeSet::new();
    for i in 0..t.num_rows() {
        let kind = match (ty.value(i), v.value(i)) {
            (0, 27 | 28) => "pre155",
            (0, _) => "155",
            (1, _) => "type1",
            (2, _) => "type2",
            _ => "other",
        };
        seen.insert(kind);
        assert_eq!(
            al.is_null(i),
            ty.value(i) == 0,
            "access_list null exactly for legacy (row {i})"
        );
        let bn = u64_col(&t, "block_number", i).unwrap();
        let success = t.column_by_name("success").unwrap().as_boolean();
        assert_eq!(
            success.is_null(i),
            bn < 2048,
            "status from Byzantium (2048) on (row {i})"
        );
        assert_eq!(hex_col(&t, "post_state_root", i).is_some(), bn < 2048);
    }
    assert_eq!(
        seen.into_iter().collect::<Vec<_>>(),
        vec!["155", "pre155", "type1", "type2"]
    );
    // Senders are the generator's keys.
    let keys: std::collections::BTreeSet<String> = (0..16)
        .map(|k| {
            let key = eraflow::crypto::signer::test_key(1, k);
            let a = eraflow::crypto::signer::address_of(
                &key,
                eraflow::crypto::signer::SignatureAlgorithm::Secp256k1,
            )
            .unwrap();
            format!("0x{}", hex::encode(a))
        })
        .collect();
    for i in 0..t.num_rows() {
        assert!(keys.contains(&hex_col(&t, "from_address", i).unwrap()));
    }
    let logs = read_parquet(
        &out.path()
            .join("logs/network=synthnet/synthnet__logs__00000000_to_00008191.parquet"),
    );
    assert_eq!(logs.num_rows() as u64, o[0].logs);
    let topic3 = logs.column_by_name("topic3").unwrap();
    assert!(
        topic3.null_count() > 0 && topic3.null_count() < logs.num_rows(),
        "0-4 topics appear"
    );
}

#[test]
fn outputs_declare_their_order_and_origin_and_networks_stay_apart() {
    let src = tempfile::tempdir().unwrap();
    let input = synth(src.path(), 300, 2);
    let name = input.file_name().unwrap().to_string_lossy().into_owned();
    let out = tempfile::tempdir().unwrap();
    let o = export(
        std::slice::from_ref(&input),
        &export_opts(out.path(), false),
        &Progress::hidden(),
    )
    .unwrap();
    assert!(o[0].ok, "{:?}", o[0].errors);
    let sha = hex::encode(eraflow::crypto::sha256::sha256(
        &std::fs::read(&input).unwrap(),
    ));
    for (dataset, sort) in [
        ("blocks", vec![0]),
        ("transactions", vec![0, 1]),
        ("logs", vec![0, 3]),
    ] {
        let files = files_in(&out.path().join(dataset).join("network=synthnet"));
        assert_eq!(files.len(), 1, "{dataset}: {files:?}");
        let reader = parquet::file::reader::SerializedFileReader::new(
            std::fs::File::open(&files[0]).unwrap(),
        )
        .unwrap();
        let meta = parquet::file::reader::FileReader::metadata(&reader);
        let kv: std::collections::BTreeMap<String, String> = meta
            .file_metadata()
            .key_value_metadata()
            .unwrap()
            .iter()
            .map(|k| (k.key.clone(), k.value.clone().unwrap_or_default()))
            .collect();
        assert_eq!(
            kv["eraflow.source"], name,
            "{dataset}: the file name, not its path"
        );
        assert_eq!(kv["eraflow.source_sha256"], sha);
        assert_eq!(kv["eraflow.network"], "synthnet");
        assert_eq!(kv["eraflow.dataset"], dataset);
        assert_eq!(
            kv["eraflow.schema_version"],
            eraflow::datasets::SCHEMA_VERSION.to_string()
        );
        let declared: Vec<i32> = meta
            .row_group(0)
            .sorting_columns()
            .unwrap()
            .iter()
            .map(|c| c.column_idx)
            .collect();
        assert_eq!(declared, sort, "{dataset}");
    }
    // A forced network that contradicts the file name is one clear error, not a cascade of decoding errors.
    let out2 = tempfile::tempdir().unwrap();
    let mut opts = export_opts(out2.path(), false);
    opts.network = Some(Network::by_name("sepolia").unwrap());
    let o = export(std::slice::from_ref(&input), &opts, &Progress::hidden()).unwrap();
    assert!(!o[0].ok);
    assert_eq!(o[0].errors.len(), 1, "{:?}", o[0].errors);
    let e = o[0].errors[0].to_string();
    assert!(
        e.contains("names network 'synthnet'") && e.contains("forces network 'sepolia'"),
        "{e}"
    );
    assert!(files_in(out2.path())
        .iter()
        .all(|p| !p.to_string_lossy().ends_with(".parquet")));
}

/// Senders are recovered only for datasets with a column for them: files of a secp256k1 network and of a
/// secp256r1 one export together as `blocks` and `logs` (the signer is never touched), while `transactions`
/// still refuses the file whose curve is not the process signer's.
#[test]
fn datasets_without_a_sender_column_never_touch_the_signer() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    let r1 = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/networks/synthnet-r1.toml");
    for network in [Path::new("synthnet"), r1.as_path()] {
        crate::util::run_ok(
            crate::util::eraflow()
                .args(["synth", "-q", "--blocks", "16", "--network"])
                .arg(network)
                .arg("--out")
                .arg(&input),
            "synth",
        );
    }
    let export = |datasets: &str, out: &str| {
        crate::util::eraflow()
            .args(["export", "-q", "--datasets", datasets, "--out"])
            .arg(dir.path().join(out))
            .arg(&input)
            .output()
            .unwrap()
    };
    let o = export("blocks,logs", "no-senders-needed");
    assert!(o.status.success(), "{o:?}");
    assert_eq!(
        files_in(&dir.path().join("no-senders-needed/blocks")).len(),
        2
    );
    let o = export("transactions", "senders-needed");
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("signs with secp256r1, but this process recovers senders with secp256k1"),
        "{err}"
    );
}
