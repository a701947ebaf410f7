//! Export of era files (beacon chain): post-merge execution payloads feed the same `blocks` and `transactions`
//! datasets as era1, beside the era-only `withdrawals` and `beacon_blocks`; values agree with the verify report
//! and the generator's keys; outputs are byte-identical whatever the thread count, resumable, and never written
//! for a file that fails verification.

use crate::util::{export_opts, files_in, hex0x, read_parquet, snapshot};
use arrow_array::types::{UInt32Type, UInt64Type};
use arrow_array::{cast::AsArray, Array, RecordBatch, StructArray};
use eraflow::consensus::Fork;
use eraflow::crypto::signer::{self, SignatureAlgorithm};
use eraflow::export::export;
use eraflow::export::progress::{FileOutcome, Progress};
use eraflow::formats::MappedArchive;
use eraflow::network::Network;
use eraflow::sink::names::era_output_path;
use eraflow::synth::era::{write, EraSynthOptions};
use eraflow::verify::file as verify_file;
use eraflow::verify::VerifyOptions;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn synth(dir: &Path, fork: Fork, files: u64, blocks: u64) -> Vec<PathBuf> {
    let net = Network::by_name("synthnet").unwrap();
    let mut o = EraSynthOptions::new(net.clone());
    o.era = EraSynthOptions::era_of_fork(&net, fork).unwrap();
    o.files = files;
    o.blocks = blocks;
    o.validators = 64;
    o.txs_per_block = 5;
    write(dir, &o).unwrap()
}

fn out_file(out: &Path, dataset: &str, era_file: &Path) -> PathBuf {
    let name =
        eraflow::formats::ArchiveName::parse(era_file.file_name().unwrap().to_str().unwrap())
            .unwrap();
    out.join(era_output_path(dataset, "synthnet", name.era))
}

fn key_addresses() -> BTreeSet<Vec<u8>> {
    (0..16)
        .map(|i| {
            signer::address_of(&signer::test_key(1, i), SignatureAlgorithm::Secp256k1)
                .unwrap()
                .to_vec()
        })
        .collect()
}

fn ok(o: &[FileOutcome]) {
    for f in o {
        assert!(f.ok, "{}: {:?}", f.file, f.errors);
    }
}

#[test]
fn era_files_export_blocks_transactions_withdrawals_and_beacon_blocks() {
    signer::init(SignatureAlgorithm::Secp256k1).unwrap();
    let src = tempfile::tempdir().unwrap();
    let mut inputs = synth(&src.path().join("electra"), Fork::Electra, 1, 12);
    inputs.extend(synth(&src.path().join("deneb"), Fork::Deneb, 1, 10));
    let out = tempfile::tempdir().unwrap();
    let outcomes = export(&inputs, &export_opts(out.path(), true), &Progress::hidden()).unwrap();
    ok(&outcomes);
    let keys = key_addresses();
    let mut kinds_seen = BTreeSet::new();
    for (input, outcome) in inputs.iter().zip(&outcomes) {
        let report = verify_file(input, &VerifyOptions::default());
        assert!(report.ok, "{:?}", report.errors);
        // Only era datasets were written: no logs or uncles files for an era file.
        let datasets: BTreeSet<&str> = outcome.rows.keys().map(|k| k.as_str()).collect();
        let era_datasets: BTreeSet<&str> = eraflow::datasets::ALL
            .iter()
            .filter(|d| eraflow::formats::ArchiveKind::Era.holds().has(d.needs()))
            .map(|d| d.name())
            .collect();
        assert_eq!(datasets, era_datasets);
        assert!(era_datasets.is_superset(&BTreeSet::from([
            "beacon_blocks",
            "blocks",
            "transactions",
            "withdrawals",
            "attestations",
            "validators"
        ])));

        let b = read_parquet(&out_file(out.path(), "blocks", input));
        let n = b.num_rows();
        assert_eq!(
            n as u64, report.blocks,
            "every synthetic beacon block has a payload"
        );
        let numbers = b
            .column_by_name("block_number")
            .unwrap()
            .as_primitive::<UInt64Type>();
        assert_eq!(Some(numbers.value(0)), report.first_block);
        assert_eq!(Some(numbers.value(n - 1)), report.last_block);
        assert!((1..n).all(|i| numbers.value(i) == numbers.value(i - 1) + 1));
        let hashes = b.column_by_name("block_hash").unwrap().as_binary::<i32>();
        let parents = b.column_by_name("parent_hash").unwrap().as_binary::<i32>();
        assert_eq!(Some(hex0x(hashes.value(0))), report.first_block_hash);
        assert_eq!(Some(hex0x(hashes.value(n - 1))), report.last_block_hash);
        assert!((1..n).all(|i| parents.value(i) == hashes.value(i - 1)));
        // Post-merge constants and the nullable columns of an era-sourced row.
        assert_eq!(
            b.column_by_name("total_difficulty_string")
                .unwrap()
                .null_count(),
            n
        );
        let diff = b
            .column_by_name("difficulty_string")
            .unwrap()
            .as_string::<i32>();
        assert!((0..n).all(|i| diff.value(i) == "0"));
        let uncles = b
            .column_by_name("uncle_count")
            .unwrap()
            .as_primitive::<UInt32Type>();
        assert!((0..n).all(|i| uncles.value(i) == 0));
        for c in [
            "withdrawals_root",
            "blob_gas_used",
            "excess_blob_gas",
            "parent_beacon_block_root",
        ] {
            assert_eq!(b.column_by_name(c).unwrap().null_count(), 0, "{c}");
        }
        let electra = input.starts_with(src.path().join("electra"));
        assert_eq!(
            b.column_by_name("requests_hash").unwrap().null_count(),
            if electra { 0 } else { n }
        );
        let size = b
            .column_by_name("size")
            .unwrap()
            .as_primitive::<UInt64Type>();
        assert!((0..n).all(|i| size.value(i) > 500));

        // Transactions: count, types, senders, receipts null, authorities.
        let t = read_parquet(&out_file(out.path(), "transactions", input));
        assert_eq!(t.num_rows() as u64, report.transactions);
        let tx_counts = b
            .column_by_name("transaction_count")
            .unwrap()
            .as_primitive::<UInt32Type>();
        assert_eq!(
            (0..n).map(|i| tx_counts.value(i) as usize).sum::<usize>(),
            t.num_rows()
        );
        let ty = t
            .column_by_name("transaction_type")
            .unwrap()
            .as_primitive::<UInt32Type>();
        kinds_seen.extend((0..t.num_rows()).map(|i| ty.value(i)));
        let from = t.column_by_name("from_address").unwrap().as_binary::<i32>();
        assert_eq!(from.null_count(), 0);
        assert!((0..t.num_rows()).all(|i| keys.contains(from.value(i))));
        for c in [
            "success",
            "post_state_root",
            "gas_used",
            "cumulative_gas_used",
        ] {
            assert_eq!(
                t.column_by_name(c).unwrap().null_count(),
                t.num_rows(),
                "{c}"
            );
        }
        let tx_block_hash = t.column_by_name("block_hash").unwrap().as_binary::<i32>();
        let block_hashes: BTreeSet<&[u8]> = (0..n).map(|i| hashes.value(i)).collect();
        assert!((0..t.num_rows()).all(|i| block_hashes.contains(tx_block_hash.value(i))));
        let blobs = t
            .column_by_name("blob_versioned_hashes")
            .unwrap()
            .as_list::<i32>();
        let auths = t
            .column_by_name("authorization_list")
            .unwrap()
            .as_list::<i32>();
        let mut authorities = 0;
        for i in 0..t.num_rows() {
            assert_eq!(blobs.is_null(i), ty.value(i) != 3, "row {i}");
            assert_eq!(auths.is_null(i), ty.value(i) != 4, "row {i}");
            if ty.value(i) == 4 {
                let list = auths.value(i);
                let s: &StructArray = list.as_struct();
                let a = s.column_by_name("authority").unwrap().as_binary::<i32>();
                assert!(!s.is_empty());
                for j in 0..s.len() {
                    assert!(!a.is_null(j), "authority recovered (row {i})");
                    assert!(keys.contains(a.value(j)), "authority is a generator key");
                    authorities += 1;
                }
            }
        }
        assert_eq!(authorities > 0, electra);

        // Withdrawals: consecutive global indices, in blocks of this file.
        let w = read_parquet(&out_file(out.path(), "withdrawals", input));
        let beacon = report.beacon.as_ref().unwrap();
        assert_eq!(w.num_rows() as u64, beacon.withdrawals);
        assert!(w.num_rows() > 0);
        let idx = w
            .column_by_name("withdrawal_index")
            .unwrap()
            .as_primitive::<UInt64Type>();
        assert!((1..w.num_rows()).all(|i| idx.value(i) == idx.value(i - 1) + 1));
        let wb = w.column_by_name("block_hash").unwrap().as_binary::<i32>();
        assert!((0..w.num_rows()).all(|i| block_hashes.contains(wb.value(i))));

        // Beacon blocks: one per block, with roots and the execution block each carries.
        let bb = read_parquet(&out_file(out.path(), "beacon_blocks", input));
        assert_eq!(bb.num_rows() as u64, report.blocks);
        for c in ["block_root", "parent_root", "state_root"] {
            let col = bb.column_by_name(c).unwrap().as_binary::<i32>();
            assert!((0..bb.num_rows()).all(|i| col.value(i).len() == 32 && col.value(i) != [0; 32]));
        }
        let roots = bb.column_by_name("block_root").unwrap().as_binary::<i32>();
        let parent_roots = bb.column_by_name("parent_root").unwrap().as_binary::<i32>();
        assert!((1..bb.num_rows()).all(|i| parent_roots.value(i) == roots.value(i - 1)));
        let eh = bb
            .column_by_name("execution_block_hash")
            .unwrap()
            .as_binary::<i32>();
        assert!((0..bb.num_rows()).all(|i| eh.value(i) == hashes.value(i)));
        let fork = bb.column_by_name("fork").unwrap().as_string::<i32>();
        let want = if electra { "electra" } else { "deneb" };
        assert!((0..bb.num_rows()).all(|i| fork.value(i) == want));
        let commitments = bb
            .column_by_name("blob_kzg_commitment_count")
            .unwrap()
            .as_primitive::<UInt32Type>();
        let blob_hashes: usize = (0..t.num_rows())
            .filter(|&i| !blobs.is_null(i))
            .map(|i| blobs.value(i).len())
            .sum();
        assert_eq!(
            (0..bb.num_rows())
                .map(|i| commitments.value(i) as usize)
                .sum::<usize>(),
            blob_hashes
        );
    }
    assert_eq!(kinds_seen, BTreeSet::from([0, 1, 2, 3, 4]));
}

#[test]
fn without_senders_from_and_authority_are_null() {
    let src = tempfile::tempdir().unwrap();
    let inputs = synth(src.path(), Fork::Electra, 1, 6);
    let out = tempfile::tempdir().unwrap();
    ok(&export(
        &inputs,
        &export_opts(out.path(), false),
        &Progress::hidden(),
    )
    .unwrap());
    let t = read_parquet(&out_file(out.path(), "transactions", &inputs[0]));
    assert_eq!(
        t.column_by_name("from_address").unwrap().null_count(),
        t.num_rows()
    );
    let auths = t
        .column_by_name("authorization_list")
        .unwrap()
        .as_list::<i32>();
    let mut seen = 0;
    for i in 0..t.num_rows() {
        if !auths.is_null(i) {
            let list = auths.value(i);
            let s: &StructArray = list.as_struct();
            let a = s.column_by_name("authority").unwrap();
            assert_eq!(a.null_count(), a.len());
            seen += 1;
        }
    }
    assert!(seen > 0);
}

#[test]
fn era_export_is_byte_identical_whatever_the_thread_count_and_resumable() {
    let src = tempfile::tempdir().unwrap();
    // Two chained files crossing capella -> deneb, with a pre-merge era before them in the same run.
    let net = Network::by_name("synthnet").unwrap();
    let mut o = EraSynthOptions::new(net.clone());
    o.era = EraSynthOptions::era_of_fork(&net, Fork::Capella).unwrap();
    o.files = 2;
    o.blocks = 300;
    o.validators = 64;
    o.txs_per_block = 3;
    let inputs = write(src.path(), &o).unwrap();
    let run = |threads: usize, out: &Path| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| export(&inputs, &export_opts(out, false), &Progress::hidden()).unwrap())
    };
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    ok(&run(1, a.path()));
    ok(&run(2, b.path()));
    let reference = snapshot(a.path());
    assert_eq!(
        reference,
        snapshot(b.path()),
        "outputs differ between 1 and 2 threads"
    );
    // Two era files, one output per dataset with rows, plus the manifest (beside the completion records and
    // lock files): the 4 execution and beacon_blocks datasets, the 7 operation datasets of capella blocks and
    // validators.
    let with_rows: usize = run(1, tempfile::tempdir().unwrap().path())
        .iter()
        .map(|o| o.rows.values().filter(|&&n| n > 0).count())
        .sum();
    assert!(with_rows >= 2 * 12, "{with_rows}");
    assert_eq!(
        reference
            .iter()
            .filter(|(p, _)| !p.starts_with("_eraflow/sources") && !p.starts_with("_eraflow/locks"))
            .count(),
        with_rows + 1,
        "{:?}",
        reference.iter().map(|r| &r.0).collect::<Vec<_>>()
    );

    // A rerun skips; a damaged output is redone byte-identically.
    let again = run(2, b.path());
    assert!(again.iter().all(|o| o.skipped && o.ok));
    let victim = b.path().join(
        &reference
            .iter()
            .find(|(p, _)| p.starts_with("withdrawals"))
            .unwrap()
            .0,
    );
    let mut bytes = std::fs::read(&victim).unwrap();
    bytes[100] ^= 1;
    std::fs::write(&victim, &bytes).unwrap();
    let redo = run(1, b.path());
    assert_eq!(redo.iter().filter(|o| o.skipped).count(), 1);
    ok(&redo);
    assert_eq!(reference, snapshot(b.path()));
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(b.path().join("_eraflow/manifest.json")).unwrap())
            .unwrap();
    for p in &inputs {
        let e = &manifest["sources"][p.file_name().unwrap().to_str().unwrap()];
        assert_eq!(e["kind"], "era");
        assert!(e["slots"].is_array());
        assert!(e["state_root"].as_str().unwrap().starts_with("0x"));
    }
}

#[test]
fn a_damaged_era_file_exports_nothing() {
    let src = tempfile::tempdir().unwrap();
    let input = synth(src.path(), Fork::Deneb, 1, 8).remove(0);
    let mut bytes = std::fs::read(&input).unwrap();
    // A byte in the middle of the block records: a snappy-framed block no longer decodes or verifies.
    let at = bytes.len() / 4;
    bytes[at] ^= 0x10;
    std::fs::write(&input, &bytes).unwrap();
    assert!(!verify_file(&input, &VerifyOptions::default()).ok);
    let out = tempfile::tempdir().unwrap();
    let o = export(
        std::slice::from_ref(&input),
        &export_opts(out.path(), false),
        &Progress::hidden(),
    )
    .unwrap();
    assert!(!o[0].ok && !o[0].errors.is_empty());
    let written: Vec<PathBuf> = files_in(out.path());
    assert!(
        written
            .iter()
            .all(|p| !p.to_string_lossy().ends_with(".parquet")),
        "{written:?}"
    );
    assert!(written
        .iter()
        .all(|p| !p.to_string_lossy().ends_with(".tmp")));
}

#[test]
fn era1_and_era_share_one_output_directory() {
    let src = tempfile::tempdir().unwrap();
    let mut o1 = eraflow::synth::era1::SynthOptions::new(Network::by_name("synthnet").unwrap());
    o1.blocks = 50;
    o1.txs_per_block = 1;
    let mut inputs = eraflow::synth::era1::write(&src.path().join("era1"), &o1).unwrap();
    inputs.extend(synth(&src.path().join("era"), Fork::Deneb, 1, 5));
    let out = tempfile::tempdir().unwrap();
    let outcomes = export(
        &inputs,
        &export_opts(out.path(), false),
        &Progress::hidden(),
    )
    .unwrap();
    ok(&outcomes);
    let era1: BTreeSet<&str> = outcomes[0].rows.keys().map(|k| k.as_str()).collect();
    assert_eq!(
        era1,
        BTreeSet::from_iter(
            [
                "blocks",
                "logs",
                "transactions",
                "uncles",
                "raw_transactions",
                "native_transfers"
            ]
            .into_iter()
            .chain(crate::tokens::TOKENS.iter().copied())
        )
    );
    // One schema for both: era1 and era block files concatenate.
    let blocks: Vec<RecordBatch> = files_in(&out.path().join("blocks"))
        .iter()
        .map(|p| read_parquet(p))
        .collect();
    assert_eq!(blocks.len(), 2);
    assert_eq!(blocks[0].schema().fields(), blocks[1].schema().fields());
    // era1 outputs sort before era outputs: lexical order is chain order.
    let names: Vec<PathBuf> = files_in(&out.path().join("blocks"));
    assert!(names[0]
        .to_string_lossy()
        .contains("__00000000_to_00000049"));
    assert!(names[1].to_string_lossy().contains("__era_"));
}

#[test]
fn real_genesis_era_file_exports_no_blocks_but_its_registry() {
    let Some(p) = crate::testdata::file("era/mainnet-00000-4b363db9.era") else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let o = export(
        std::slice::from_ref(&p),
        &export_opts(out.path(), false),
        &Progress::hidden(),
    )
    .unwrap();
    ok(&o);
    assert_eq!(o[0].rows.get("blocks"), Some(&0));
    assert_eq!(o[0].rows.get("beacon_blocks"), Some(&0));
    // No 0-row files (#13): the genesis era has no blocks, so no file; the manifest still records the source
    // complete, so a rerun skips it.
    assert!(!out
        .path()
        .join(
            "blocks/network=mainnet/mainnet__blocks__era_00000__slots_00000000_to_00000000.parquet"
        )
        .exists());
    // Only the registry of the real genesis state: 21,063 validators of 32 ETH each, whose balances sum to the
    // state's own total.
    assert_eq!(o[0].outputs.len(), 1, "{:?}", o[0].outputs);
    assert!(o[0].outputs[0].starts_with("validators/"));
    let v = read_parquet(&out.path().join(&o[0].outputs[0]));
    assert_eq!(v.num_rows(), 21063);
    let col = |n: &str| {
        v.column_by_name(n)
            .unwrap()
            .as_primitive::<UInt64Type>()
            .clone()
    };
    let (balance, effective, index) = (
        col("balance"),
        col("effective_balance"),
        col("validator_index"),
    );
    assert!((0..v.num_rows()).all(|i| index.value(i) == i as u64));
    assert!(effective.iter().all(|e| e == Some(32_000_000_000)));
    let file = eraflow::formats::era::EraFile::open(&p).unwrap();
    let state_bytes = eraflow::formats::snappy::FramedDecoder::new()
        .decompress(file.state_record().unwrap().data)
        .unwrap()
        .to_vec();
    let spec = eraflow::consensus::Spec::mainnet(Fork::Phase0);
    let state = eraflow::consensus::BeaconState::new(&state_bytes, spec).unwrap();
    let total = eraflow::consensus::registry::Registry::new(&state)
        .unwrap()
        .total_balance();
    assert_eq!(
        balance.iter().map(|b| b.unwrap() as u128).sum::<u128>(),
        total
    );
    // Some genesis deposits exceeded 32 ETH: the balances say so, the effective balances cap them.
    assert!(total > 21063 * 32_000_000_000);
    let again = export(
        std::slice::from_ref(&p),
        &export_opts(out.path(), false),
        &Progress::hidden(),
    )
    .unwrap();
    assert!(again[0].skipped && again[0].ok);
}

#[test]
fn validators_stream_in_chunks_into_row_groups_and_sum_to_the_state() {
    let net = Network::by_name("synthnet").unwrap();
    let src = tempfile::tempdir().unwrap();
    let mut o = EraSynthOptions::new(net.clone());
    o.era = EraSynthOptions::era_of_fork(&net, Fork::Electra).unwrap();
    // More validators than one export chunk (32,768) and than one row group.
    (o.blocks, o.validators, o.txs_per_block) = (2, 70_000, 1);
    let path = write(src.path(), &o).unwrap().remove(0);
    let out = tempfile::tempdir().unwrap();
    let mut opts = export_opts(out.path(), false);
    opts.datasets = eraflow::datasets::by_names(&["validators"]).unwrap();
    opts.parquet.row_group_size = 20_000;
    let outcome = export(std::slice::from_ref(&path), &opts, &Progress::hidden()).unwrap();
    ok(&outcome);
    let file = out.path().join(&outcome[0].outputs[0]);
    let meta = parquet::file::reader::FileReader::metadata(
        &parquet::file::serialized_reader::SerializedFileReader::new(
            std::fs::File::open(&file).unwrap(),
        )
        .unwrap(),
    )
    .clone();
    assert_eq!(meta.num_row_groups(), 4);
    let index_col = meta.row_group(0).column(2);
    assert_eq!(index_col.column_path().string(), "validator_index");
    assert!(
        index_col
            .encodings()
            .any(|e| e == parquet::basic::Encoding::DELTA_BINARY_PACKED),
        "{:?}",
        index_col.encodings().collect::<Vec<_>>()
    );
    let v = read_parquet(&file);
    assert_eq!(v.num_rows(), 70_000);
    let index = v
        .column_by_name("validator_index")
        .unwrap()
        .as_primitive::<UInt64Type>();
    assert!((0..70_000).all(|i| index.value(i) == i as u64));
    let (_, state) = crate::util::unpack_era(&path);
    let spec = eraflow::consensus::Spec::at_slot(o.era * 8192, &net);
    let view = eraflow::consensus::BeaconState::new(&state, spec).unwrap();
    let total = eraflow::consensus::registry::Registry::new(&view)
        .unwrap()
        .total_balance();
    let balance = v
        .column_by_name("balance")
        .unwrap()
        .as_primitive::<UInt64Type>();
    assert_eq!(
        balance.iter().map(|b| b.unwrap() as u128).sum::<u128>(),
        total
    );
    // Electra: the queue counts are there (zero or more), never null.
    assert_eq!(
        v.column_by_name("pending_deposit_count")
            .unwrap()
            .null_count(),
        0
    );
}
