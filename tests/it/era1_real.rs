//! The era1 path against real chain data in `../shared/data` (skipped loudly when absent).

use crate::testdata;
use eraflow::execution::body::BodyView;
use eraflow::formats::era1::Era1File;
use eraflow::formats::execution::{self, BlockDecoders};
use eraflow::formats::MappedArchive;
use eraflow::verify::{file as verify_file, verify_archives as verify_files, VerifyOptions};
use std::path::{Path, PathBuf};

fn era1_files() -> Option<Vec<PathBuf>> {
    let dir = testdata::dir("real era1 files")?.join("era1");
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .ok()?
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    Some(v)
}

#[test]
fn real_files_verify_and_match_expected_summaries() {
    let Some(files) = era1_files() else { return };
    let Some(expected_path) = testdata::file("expected/era1-summaries.json") else {
        return;
    };
    let expected: serde_json::Value =
        serde_json::from_slice(&std::fs::read(expected_path).unwrap()).unwrap();
    let reports = verify_files(
        &files,
        &VerifyOptions {
            network: None,
            checksum: true,
            senders: false,
            skip_receipts: false,
            signer: None,
            trusted_states: None,
            historical_summaries: None,
            accumulator: None,
        },
    );
    assert_eq!(reports.len(), 4);
    for exp in expected.as_array().unwrap() {
        let name = exp["file"].as_str().unwrap();
        let r = reports
            .iter()
            .find(|r| r.file.ends_with(name))
            .unwrap_or_else(|| panic!("no report for {name}"));
        assert!(r.ok, "{name}: {:?}", r.errors);
        assert_eq!(r.network, exp["network"].as_str().unwrap());
        assert_eq!(r.era, exp["era"].as_u64());
        assert_eq!(r.first_block, exp["start_block"].as_u64());
        assert_eq!(r.last_block, exp["end_block"].as_u64());
        assert_eq!(r.blocks, exp["block_count"].as_u64().unwrap());
        assert_eq!(r.transactions, exp["tx_count"].as_u64().unwrap());
        assert_eq!(r.logs, exp["log_count"].as_u64().unwrap());
        assert_eq!(r.ommers, exp["ommer_count"].as_u64().unwrap());
        assert_eq!(r.file_size, exp["file_size"].as_u64().unwrap());
        assert_eq!(r.sha256.as_deref(), exp["sha256"].as_str());
        assert_eq!(
            r.accumulator_root.as_deref(),
            exp["accumulator_root"].as_str()
        );
        assert_eq!(
            r.first_block_hash.as_deref(),
            exp["first_block_hash"].as_str()
        );
        assert_eq!(
            r.last_block_hash.as_deref(),
            exp["last_block_hash"].as_str()
        );
        assert_eq!(
            r.initial_total_difficulty.as_deref(),
            exp["initial_total_difficulty"].as_str()
        );
        assert_eq!(
            r.final_total_difficulty.as_deref(),
            exp["final_total_difficulty"].as_str()
        );
        let kinds: serde_json::Value = serde_json::to_value(&r.tx_kinds).unwrap();
        assert_eq!(kinds, exp["tx_kinds"], "{name}");
        let forms: serde_json::Value = serde_json::to_value(&r.receipt_forms).unwrap();
        assert_eq!(forms, exp["receipt_forms"], "{name}");
        let fields: serde_json::Value = serde_json::to_value(&r.header_field_counts).unwrap();
        assert_eq!(fields, exp["header_field_counts"], "{name}");
    }
}

/// Every transaction hash of sepolia-00021, in block order, as keccak of the original bytes.
pub fn tx_hashes(path: &Path) -> Vec<(u64, String)> {
    let f = Era1File::open(path).unwrap();
    let mut dec = BlockDecoders::default();
    let mut out = Vec::new();
    for i in 0..f.block_count() {
        let t = f.block(i).unwrap();
        let raw = execution::decompress(&mut dec.body, &t.body, f.path(), t.number).unwrap();
        for enc in BodyView::decode(raw).unwrap().transaction_encodings() {
            out.push((
                t.number,
                format!(
                    "0x{}",
                    hex::encode(eraflow::crypto::keccak::keccak256(enc.unwrap()))
                ),
            ));
        }
    }
    out
}

#[test]
fn sepolia_transaction_hashes_match_csv() {
    let Some(file) = testdata::file("era1/sepolia-00021-b8814b14.era1") else {
        return;
    };
    let Some(csv) = testdata::file("expected/sepolia-00021-transactions.csv") else {
        return;
    };
    let text = std::fs::read_to_string(csv).unwrap();
    let expected: Vec<(u64, String)> = text
        .lines()
        .skip(1)
        .map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            (c[0].parse().unwrap(), c[2].to_string())
        })
        .collect();
    assert_eq!(expected.len(), 93);
    assert_eq!(tx_hashes(&file), expected);
}

/// A writable copy of a real file in a temp dir, to corrupt.
fn copy_of(name: &str) -> Option<(tempfile::TempDir, PathBuf, Vec<u8>)> {
    let src = testdata::file(&format!("era1/{name}"))?;
    let dir = tempfile::tempdir().unwrap();
    let dst = dir.path().join(name);
    let bytes = std::fs::read(&src).unwrap();
    Some((dir, dst, bytes))
}

fn verify_bytes(path: &Path, bytes: &[u8]) -> eraflow::verify::report::FileReport {
    std::fs::write(path, bytes).unwrap();
    verify_file(path, &VerifyOptions::default())
}

fn assert_fails(r: &eraflow::verify::report::FileReport, needles: &[&str]) {
    assert!(!r.ok, "corruption not detected");
    let all = r
        .errors
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n");
    for n in needles {
        assert!(all.contains(n), "expected {n:?} in errors:\n{all}");
    }
}

#[test]
fn corruption_of_each_record_kind_is_located() {
    let Some((_d, path, orig)) = copy_of("sepolia-00021-b8814b14.era1") else {
        return;
    };
    let f = Era1File::open(&testdata::file("era1/sepolia-00021-b8814b14.era1").unwrap()).unwrap();
    // Block 174010 carries the first transaction: index 174010 - 172032 = 1978.
    let t = f.block(1978).unwrap();
    let path_s = path.display().to_string();
    let cases: Vec<(&str, u64, Vec<&str>)> = vec![
        ("header", t.header.offset + 8 + 20, vec!["snappy"]),
        ("body", t.body.offset + 8 + 30, vec!["block 174010"]),
        ("receipts", t.receipts.offset + 8 + 30, vec!["block 174010"]),
        (
            "total difficulty",
            t.total_difficulty.offset + 8,
            vec!["total difficulty", "block 174010"],
        ),
        (
            "accumulator",
            f.accumulator_offset() + 8 + 5,
            vec!["accumulator root"],
        ),
    ];
    for (what, at, needles) in cases {
        let mut bytes = orig.clone();
        bytes[at as usize] ^= 0x01;
        let r = verify_bytes(&path, &bytes);
        let mut n = needles.clone();
        n.push(&path_s);
        assert_fails(&r, &n);
        let _ = what;
    }
    // A header flip that survives snappy (uncompressed literal) still breaks the hash chain or accumulator;
    // flip a byte of the stored TD's high part instead, which must be caught by the TD sum.
    let mut bytes = orig.clone();
    bytes[(t.total_difficulty.offset + 8 + 20) as usize] ^= 0x80;
    assert_fails(&verify_bytes(&path, &bytes), &["total difficulty"]);
}

#[test]
fn structural_damage_gives_clear_errors() {
    let Some((_d, path, orig)) = copy_of("mainnet-00001-a5364e9a.era1") else {
        return;
    };
    // Truncation at many points: never a panic, always an error.
    for cut in [
        0usize,
        4,
        8,
        100,
        orig.len() / 2,
        orig.len() - 9,
        orig.len() - 1,
    ] {
        let r = verify_bytes(&path, &orig[..cut]);
        assert!(!r.ok, "truncated at {cut} verified");
    }
    // Garbage.
    let garbage: Vec<u8> = (0..100_000u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    assert!(!verify_bytes(&path, &garbage).ok);
    // Index entry pointing outside the file.
    let mut bytes = orig.clone();
    let n = bytes.len();
    let entry = n - 8 - 8 * 8192 + 8 * 10; // entry 10
    bytes[entry..entry + 8].copy_from_slice(&(1i64 << 40).to_le_bytes());
    assert_fails(
        &verify_bytes(&path, &bytes),
        &["entry 10", "outside the block records"],
    );
    // Index entry pointing at the wrong record.
    let mut bytes = orig.clone();
    let v = i64::from_le_bytes(bytes[entry..entry + 8].try_into().unwrap()) + 8;
    bytes[entry..entry + 8].copy_from_slice(&v.to_le_bytes());
    assert_fails(&verify_bytes(&path, &bytes), &["block 8202"]);
    // Non-zero reserved bytes in the first block's header record.
    let mut bytes = orig.clone();
    bytes[8 + 6] = 1;
    assert_fails(
        &verify_bytes(&path, &bytes),
        &["reserved bytes", "at byte offset 8"],
    );
    // Huge declared length.
    let mut bytes = orig.clone();
    bytes[8 + 2..8 + 6].copy_from_slice(&u32::MAX.to_le_bytes());
    assert_fails(&verify_bytes(&path, &bytes), &["exceeds the cap"]);
}

#[test]
fn wrong_file_name_is_reported() {
    let Some((d, _path, orig)) = copy_of("mainnet-00001-a5364e9a.era1") else {
        return;
    };
    let bad_hash = d.path().join("mainnet-00001-deadbeef.era1");
    assert_fails(
        &verify_bytes(&bad_hash, &orig),
        &["file name hash", "a5364e9a", "deadbeef"],
    );
    let bad_era = d.path().join("mainnet-00007-a5364e9a.era1");
    assert_fails(&verify_bytes(&bad_era, &orig), &["era in file name"]);
    let not_canonical = d.path().join("whatever.era1");
    assert_fails(&verify_bytes(&not_canonical, &orig), &["file name"]);
}

#[test]
fn gap_free_consecutive_files_chain_and_broken_chain_is_caught() {
    let Some(files) = era1_files() else { return };
    let mainnet: Vec<PathBuf> = files
        .iter()
        .filter(|p| p.to_string_lossy().contains("mainnet"))
        .cloned()
        .collect();
    let reports = verify_files(&mainnet, &VerifyOptions::default());
    assert!(reports.iter().all(|r| r.ok));
    // Verifying era 1 as if it followed a different era 0 (sepolia's, renamed) breaks the boundary checks.
    let d = tempfile::tempdir().unwrap();
    let fake0 = d.path().join("mainnet-00000-643a00f7.era1");
    std::fs::copy(
        files
            .iter()
            .find(|p| p.to_string_lossy().contains("sepolia-00000"))
            .unwrap(),
        &fake0,
    )
    .unwrap();
    let r = verify_files(&[fake0, mainnet[1].clone()], &VerifyOptions::default());
    assert!(
        !r[0].ok,
        "sepolia genesis under a mainnet name must fail the genesis check"
    );
    assert!(
        r[1].errors
            .iter()
            .any(|e| e.to_string().contains("parent hash")),
        "{:?}",
        r[1].errors
    );
}

#[test]
fn sepolia_senders_match_csv() {
    use eraflow::crypto::signer::{self, SignatureAlgorithm};
    use eraflow::execution::transaction::TxView;
    let Some(file) = testdata::file("era1/sepolia-00021-b8814b14.era1") else {
        return;
    };
    let Some(csv) = testdata::file("expected/sepolia-00021-transactions.csv") else {
        return;
    };
    let text = std::fs::read_to_string(csv).unwrap();
    let expected: Vec<(String, String)> = text
        .lines()
        .skip(1)
        .map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            (c[2].to_string(), c[4].to_string())
        })
        .collect();
    let s = signer::init(SignatureAlgorithm::Secp256k1).unwrap();
    let f = Era1File::open(&file).unwrap();
    let mut dec = BlockDecoders::default();
    let mut got = Vec::new();
    for i in 0..f.block_count() {
        let t = f.block(i).unwrap();
        let raw = execution::decompress(&mut dec.body, &t.body, f.path(), t.number).unwrap();
        for item in BodyView::decode(raw).unwrap().transactions() {
            let tx = TxView::decode(item.unwrap().raw).unwrap();
            let from = s.recover_sender(&tx, true).unwrap();
            got.push((
                format!("0x{}", hex::encode(tx.hash())),
                format!("0x{}", hex::encode(from)),
            ));
        }
    }
    assert_eq!(got, expected);
    // The same through `verify --senders`.
    let r = verify_file(
        &file,
        &VerifyOptions {
            senders: true,
            ..Default::default()
        },
    );
    assert!(r.ok, "{:?}", r.errors);
    assert_eq!((r.senders_recovered, r.sender_errors), (Some(93), Some(0)));
}
