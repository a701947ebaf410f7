//! `eraflow prune` on the real era1 files in `../shared/data` (skipped loudly when absent): the lists equal the
//! independently computed expectations, `prune check` passes, any flipped byte fails it, gaps are refused, a
//! range crossing the merge is refused without an explicit end.

use crate::testdata;
use crate::util::hex0x;
use eraflow::network::Network;
use eraflow::prune::check::{check, CheckError};
use eraflow::prune::manifest::{BlockRange, Manifest};
use eraflow::prune::{run, OutputFormat, PruneError, PruneOptions};
use std::path::{Path, PathBuf};

fn era1(name: &str) -> Option<PathBuf> {
    testdata::file(&format!("era1/{name}"))
}

fn expected() -> Option<Vec<serde_json::Value>> {
    let p = testdata::file("expected/era1-summaries.json")?;
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap();
    Some(v.as_array().unwrap().clone())
}

fn read_hashes(p: &Path) -> Vec<[u8; 32]> {
    let b = std::fs::read(p).unwrap();
    assert_eq!(b.len() % 32, 0);
    b.chunks_exact(32).map(|c| c.try_into().unwrap()).collect()
}

#[test]
fn each_real_file_matches_expected_hashes_and_checks() {
    let (Some(exp), Some(_)) = (expected(), testdata::dir("prune real files")) else {
        return;
    };
    for e in &exp {
        let name = e["file"].as_str().unwrap();
        let Some(path) = era1(name) else { return };
        let d = tempfile::tempdir().unwrap();
        let out = d.path().join("m");
        let s = run(&[path], &out, &PruneOptions::default()).unwrap();
        let m = &s.manifest;
        let (first, last) = (
            e["start_block"].as_u64().unwrap(),
            e["end_block"].as_u64().unwrap(),
        );
        assert_eq!(m.range, BlockRange { first, last }, "{name}");
        assert_eq!(m.totals.blocks, e["block_count"].as_u64().unwrap());
        assert_eq!(m.totals.transactions, e["tx_count"].as_u64().unwrap());
        assert_eq!(m.sources.len(), 1);
        let src = &m.sources[0];
        assert_eq!(src.name, name);
        assert_eq!(src.sha256, e["sha256"].as_str().unwrap());
        assert_eq!(src.size, e["file_size"].as_u64().unwrap());
        assert_eq!(
            src.accumulator_root,
            e["accumulator_root"].as_str().unwrap()
        );
        assert_eq!(m.network, e["network"].as_str().unwrap());
        assert!(m.gaps.is_empty());

        let blocks = read_hashes(&out.join("block_hashes.bin"));
        assert_eq!(blocks.len() as u64, last - first + 1);
        assert_eq!(hex0x(&blocks[0]), e["first_block_hash"].as_str().unwrap());
        assert_eq!(
            hex0x(blocks.last().unwrap()),
            e["last_block_hash"].as_str().unwrap()
        );
        let txs = read_hashes(&out.join("tx_hashes.bin"));
        assert_eq!(txs.len() as u64, m.totals.transactions);
        check(&out).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

/// (block, index, hash) rows of the expected CSV, in block order.
fn csv_rows() -> Option<Vec<(u64, u32, String)>> {
    let p = testdata::file("expected/sepolia-00021-transactions.csv")?;
    let text = std::fs::read_to_string(p).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |n: &str| header.iter().position(|h| *h == n).unwrap();
    let (b, i, h) = (col("block_number"), col("tx_index"), col("hash"));
    let mut rows: Vec<(u64, u32, String)> = lines
        .filter(|l| !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                f[b].parse().unwrap(),
                f[i].parse().unwrap(),
                f[h].to_string(),
            )
        })
        .collect();
    rows.sort();
    Some(rows)
}

fn parquet_rows(p: &Path) -> Vec<(u64, u32, String)> {
    use arrow_array::{Array, FixedSizeBinaryArray, UInt32Array, UInt64Array};
    let f = std::fs::File::open(p).unwrap();
    let r = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(f)
        .unwrap()
        .build()
        .unwrap();
    let mut out = Vec::new();
    for b in r {
        let b = b.unwrap();
        let h = b
            .column(0)
            .as_any()
            .downcast_ref::<FixedSizeBinaryArray>()
            .unwrap();
        let n = b.column(1).as_any().downcast_ref::<UInt64Array>().unwrap();
        let i = b.column(2).as_any().downcast_ref::<UInt32Array>().unwrap();
        for k in 0..b.num_rows() {
            out.push((n.value(k), i.value(k), hex0x(h.value(k))));
        }
        assert_eq!(h.null_count(), 0);
    }
    out
}

#[test]
fn sepolia_21_tx_hashes_and_locations_equal_the_csv_and_text_twins() {
    let (Some(path), Some(rows)) = (era1("sepolia-00021-b8814b14.era1"), csv_rows()) else {
        return;
    };
    assert_eq!(rows.len(), 93);
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("m");
    let opts = PruneOptions {
        format: OutputFormat::Text,
        ..Default::default()
    };
    let s = run(&[path], &out, &opts).unwrap();
    assert_eq!(s.manifest.totals.transactions, 93);

    let mut want: Vec<String> = rows.iter().map(|r| r.2.clone()).collect();
    want.sort();
    let got: Vec<String> = read_hashes(&out.join("tx_hashes.bin"))
        .iter()
        .map(|h| hex0x(h))
        .collect();
    assert_eq!(got, want);
    assert_eq!(parquet_rows(&out.join("tx_locations.parquet")), rows);

    let txt = std::fs::read_to_string(out.join("tx_hashes.txt")).unwrap();
    assert_eq!(txt.lines().collect::<Vec<_>>(), want);
    let btxt = std::fs::read_to_string(out.join("block_hashes.txt")).unwrap();
    assert_eq!(btxt.lines().count(), 8192);
    check(&out).unwrap();
}

#[test]
fn two_contiguous_mainnet_files_chain_and_rerun_is_byte_identical() {
    let (Some(a), Some(b)) = (
        era1("mainnet-00000-5ec1ffb8.era1"),
        era1("mainnet-00001-a5364e9a.era1"),
    ) else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let (o1, o2) = (d.path().join("one"), d.path().join("two"));
    // Inputs in any order give the same manifest.
    let s = run(&[b.clone(), a.clone()], &o1, &PruneOptions::default()).unwrap();
    assert_eq!(s.manifest.totals.blocks, 16384);
    assert_eq!(s.manifest.sources.len(), 2);
    run(&[a.clone(), b.clone()], &o2, &PruneOptions::default()).unwrap();
    let names = |dir: &Path| {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    assert_eq!(names(&o1), names(&o2));
    assert_eq!(
        names(&o1),
        [
            "block_hashes.bin",
            "manifest.json",
            "ranges.json",
            "tx_hashes.bin",
            "tx_locations.parquet"
        ]
    );
    for n in names(&o1) {
        assert_eq!(
            std::fs::read(o1.join(&n)).unwrap(),
            std::fs::read(o2.join(&n)).unwrap(),
            "{n} differs between runs"
        );
    }
    // Rerunning into an existing manifest directory replaces it (still identical, nothing left behind).
    run(&[a, b], &o1, &PruneOptions::default()).unwrap();
    assert_eq!(names(&o1), names(&o2));
    let leftovers: Vec<_> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        leftovers.len(),
        2,
        "temporary directories left: {leftovers:?}"
    );
    check(&o1).unwrap();
}

#[test]
fn a_flipped_byte_in_any_listed_file_fails_check_naming_it() {
    let Some(path) = era1("sepolia-00021-b8814b14.era1") else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("m");
    let opts = PruneOptions {
        format: OutputFormat::Text,
        ..Default::default()
    };
    run(&[path], &out, &opts).unwrap();
    check(&out).unwrap();
    let manifest: Manifest =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    let mut names: Vec<String> = manifest.files.keys().cloned().collect();
    names.push("manifest.json".into());
    assert_eq!(names.len(), 7);
    for name in names {
        let p = out.join(&name);
        let orig = std::fs::read(&p).unwrap();
        for pos in [0, orig.len() / 2, orig.len() - 2] {
            let mut bad = orig.clone();
            bad[pos] ^= 0x01;
            std::fs::write(&p, &bad).unwrap();
            let err =
                check(&out).expect_err(&format!("{name} byte {pos} flipped but check passed"));
            let msg = err.to_string();
            if name != "manifest.json" {
                assert!(msg.contains(&name), "{name}: {msg}");
                assert!(matches!(err, CheckError::Inconsistent(_)), "{msg}");
            }
        }
        std::fs::write(&p, &orig).unwrap();
        check(&out).unwrap();
    }
    // A truncated list and a stray file are caught too.
    let p = out.join("tx_hashes.bin");
    let orig = std::fs::read(&p).unwrap();
    std::fs::write(&p, &orig[..orig.len() - 32]).unwrap();
    let msg = check(&out).unwrap_err().to_string();
    assert!(
        msg.contains("tx_hashes.bin") && msg.contains("file size"),
        "{msg}"
    );
    std::fs::write(&p, &orig).unwrap();
    std::fs::write(out.join("extra.bin"), b"x").unwrap();
    let msg = check(&out).unwrap_err().to_string();
    assert!(msg.contains("extra.bin"), "{msg}");
}

#[test]
fn sorted_but_tampered_list_with_fixed_checksums_still_fails() {
    // An attacker (or a bug) rewriting tx_hashes.bin AND its checksum in the manifest: order and the Parquet
    // fingerprint still catch it.
    let Some(path) = era1("sepolia-00021-b8814b14.era1") else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("m");
    run(&[path], &out, &PruneOptions::default()).unwrap();
    let p = out.join("tx_hashes.bin");
    let mut hashes = read_hashes(&p);
    hashes.swap(0, 1);
    let bytes: Vec<u8> = hashes.concat();
    std::fs::write(&p, &bytes).unwrap();
    let mpath = out.join("manifest.json");
    let mut m: Manifest = serde_json::from_slice(&std::fs::read(&mpath).unwrap()).unwrap();
    let rec = m.files.get_mut("tx_hashes.bin").unwrap();
    rec.sha256 = hex::encode(eraflow::crypto::sha256::sha256(&bytes));
    std::fs::write(&mpath, serde_json::to_vec_pretty(&m).unwrap()).unwrap();
    let msg = check(&out).unwrap_err().to_string();
    assert!(msg.contains("sort order"), "{msg}");

    // Replace one hash by another that keeps the order: the fingerprint differs from the Parquet file.
    hashes.swap(0, 1);
    hashes[0][31] ^= 1;
    hashes.sort();
    let bytes: Vec<u8> = hashes.concat();
    std::fs::write(&p, &bytes).unwrap();
    let rec = m.files.get_mut("tx_hashes.bin").unwrap();
    rec.sha256 = hex::encode(eraflow::crypto::sha256::sha256(&bytes));
    std::fs::write(&mpath, serde_json::to_vec_pretty(&m).unwrap()).unwrap();
    let msg = check(&out).unwrap_err().to_string();
    assert!(msg.contains("fingerprint"), "{msg}");
}

#[test]
fn gaps_are_refused_unless_allowed_and_then_recorded() {
    let (Some(a), Some(b)) = (
        era1("sepolia-00000-643a00f7.era1"),
        era1("sepolia-00021-b8814b14.era1"),
    ) else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("m");
    let e = run(&[a.clone(), b.clone()], &out, &PruneOptions::default()).unwrap_err();
    assert!(
        matches!(
            e,
            PruneError::Gap {
                first: 8192,
                last: 172031,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.is_data_error());
    assert!(!out.exists(), "no partial manifest");
    assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);

    // An explicit range that starts before the first file is a gap too.
    let e = run(
        std::slice::from_ref(&b),
        &out,
        &PruneOptions {
            from_block: Some(100),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            PruneError::Gap {
                first: 100,
                last: 172031,
                ..
            }
        ),
        "{e}"
    );

    let opts = PruneOptions {
        allow_gaps: true,
        ..Default::default()
    };
    let s = run(&[a, b], &out, &opts).unwrap();
    assert_eq!(
        s.manifest.gaps,
        vec![BlockRange {
            first: 8192,
            last: 172031
        }]
    );
    assert_eq!(s.manifest.totals.blocks, 2 * 8192);
    let ranges: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("ranges.json")).unwrap()).unwrap();
    assert_eq!(ranges["bodies"]["drop"].as_array().unwrap().len(), 2);
    assert_eq!(ranges["headers"]["drop"].as_array().unwrap().len(), 0);
    check(&out).unwrap();
}

/// A preset like sepolia whose merge falls inside sepolia-00021 (blocks 172032..=180223).
fn early_merge_sepolia(dir: &Path) -> Network {
    let text = Network::by_name("sepolia").unwrap();
    let toml = format!(
        r#"name = "sepolia"
chain_id = {chain_id}
genesis_hash = "{genesis}"
first_pos_block = 176000
signature_algorithm = "secp256k1"

[forks]
homestead = 0
spurious_dragon = 0
byzantium = 0
berlin = 0
london = 0

[consensus]
genesis_validators_root = "0x0000000000000000000000000000000000000000000000000000000000000000"
altair_epoch = 50
bellatrix_epoch = 100
capella_epoch = 56832
deneb_epoch = 132608
electra_epoch = 222464
fulu_epoch = 272640
"#,
        chain_id = text.chain_id,
        genesis = text.genesis_hash
    );
    let p = dir.join("early-merge.toml");
    std::fs::write(&p, toml).unwrap();
    Network::resolve(p.to_str().unwrap()).unwrap()
}

#[test]
fn a_range_crossing_the_merge_is_refused_without_an_explicit_end() {
    let Some(path) = era1("sepolia-00021-b8814b14.era1") else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let net = early_merge_sepolia(d.path());
    let out = d.path().join("m");
    let opts = PruneOptions {
        network: Some(net.clone()),
        ..Default::default()
    };
    let e = run(std::slice::from_ref(&path), &out, &opts).unwrap_err();
    assert!(
        matches!(
            e,
            PruneError::CrossesMerge {
                first_pos_block: 176000,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("--until-block"), "{e}");
    assert!(!out.exists());
    // --from-block alone is not enough: the end would still cross.
    let e = run(
        std::slice::from_ref(&path),
        &out,
        &PruneOptions {
            from_block: Some(172032),
            ..opts.clone()
        },
    )
    .unwrap_err();
    assert!(matches!(e, PruneError::CrossesMerge { .. }), "{e}");

    // Explicit ranges up to and past the merge are exercised on a real merge transition, the synthetic ere file
    // of synthnet's merge era (`ere::prune_up_to_and_past_the_merge`): this preset's merge falls inside mined
    // blocks, which verification now refuses past it (`ere::a_preset_merge_inside_mined_blocks_fails_them`).
}
