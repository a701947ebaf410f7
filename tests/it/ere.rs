//! ere files: every era kind (pre-merge, merge transition, post-merge) and profile, written by the project's own
//! writer and synthesiser; one verification and dataset path with era1 (the same blocks give the same rows byte
//! for byte), conversion both ways, prune across the merge, other clients' index layouts, and bad input named by
//! file, offset and what was expected.

use crate::testdata;
use crate::util::{ere_from_era_payloads, export_opts, files_in, read_parquet};
use eraflow::convert::{convert, ConvertOptions};
use eraflow::export::export;
use eraflow::export::progress::Progress;
use eraflow::formats::e2store::{write_record, E2StoreReader, RecordType};
use eraflow::formats::ere::EreFile;
use eraflow::formats::MappedArchive;
use eraflow::formats::{ArchiveName, EreProfile};
use eraflow::network::Network;
use eraflow::synth::era1::SynthOptions;
use eraflow::synth::ere::EreSynthOptions;
use eraflow::verify::report::FileReport;
use eraflow::verify::{verify_archives, VerifyOptions};
use std::path::{Path, PathBuf};

fn synthnet() -> Network {
    Network::by_name("synthnet").unwrap()
}

fn chain(era: u64, files: u64, blocks: u64) -> SynthOptions {
    SynthOptions {
        era,
        files,
        blocks,
        txs_per_block: 4,
        ..SynthOptions::new(synthnet())
    }
}

const NOPROOFS: EreProfile = EreProfile {
    no_proofs: true,
    no_receipts: false,
};

/// Synthetic ere files of synthnet.
fn synth_ere(dir: &Path, era: u64, files: u64, blocks: u64, profile: EreProfile) -> Vec<PathBuf> {
    eraflow::synth::ere::write(
        dir,
        &EreSynthOptions {
            chain: chain(era, files, blocks),
            profile,
        },
    )
    .unwrap()
}

fn verify(paths: &[PathBuf]) -> Vec<FileReport> {
    verify_archives(paths, &VerifyOptions::default())
}

fn errors(r: &FileReport) -> String {
    r.errors.iter().map(|e| e.to_string() + "\n").collect()
}

/// The rows of every dataset file under `out`, by (dataset, file name).
fn rows(out: &Path) -> Vec<(String, arrow_array::RecordBatch)> {
    files_in(out)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
        .map(|p| {
            let rel = p.strip_prefix(out).unwrap().display().to_string();
            (rel, read_parquet(&p))
        })
        .collect()
}

#[test]
fn an_era1_and_an_ere_file_of_the_same_blocks_export_identical_rows() {
    let a = tempfile::tempdir().unwrap();
    let era1 = eraflow::synth::era1::write(a.path(), &chain(0, 1, 600)).unwrap();
    let ere = synth_ere(a.path(), 0, 1, 600, NOPROOFS);
    let reports = verify(&[era1[0].clone(), ere[0].clone()]);
    assert!(reports.iter().all(|r| r.ok), "{reports:#?}");
    // Verified together, the two are compared block for block.
    for r in &reports {
        assert_eq!(r.cross_checked.len(), 1, "{r:#?}");
        assert!(r.cross_checked[0].starts_with("blocks 0..=599 agree with"));
    }
    assert_eq!(reports[0].accumulator_root, reports[1].accumulator_root);
    let (out1, out2) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    for (input, out) in [(&era1, &out1), (&ere, &out2)] {
        let o = export(input, &export_opts(out.path(), true), &Progress::hidden()).unwrap();
        assert!(o[0].ok, "{:?}", o[0].errors);
    }
    let (r1, r2) = (rows(out1.path()), rows(out2.path()));
    let names: Vec<&str> = r1.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        r2.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
        "the same output files"
    );
    for d in ["blocks", "transactions", "logs", "uncles"] {
        assert!(names.iter().any(|n| n.starts_with(d)), "{d}: {names:?}");
    }
    for ((name, b1), (_, b2)) in r1.iter().zip(&r2) {
        assert!(b1.num_rows() > 0, "{name}");
        // The files' key-value metadata name their sources; the rows and columns must be the same.
        assert_eq!(b1.schema().fields(), b2.schema().fields(), "{name}");
        assert_eq!(
            b1.columns(),
            b2.columns(),
            "{name}: rows differ between era1 and ere"
        );
    }
}

#[test]
fn real_era1_files_convert_to_ere_and_back_byte_for_byte() {
    let Some(dir) = testdata::dir("era1 -> ere -> era1") else {
        return;
    };
    let inputs: Vec<PathBuf> = [
        "mainnet-00000-5ec1ffb8.era1",
        "mainnet-00001-a5364e9a.era1",
        "sepolia-00021-b8814b14.era1",
    ]
    .iter()
    .map(|n| dir.join("era1").join(n))
    .collect();
    let tmp = tempfile::tempdir().unwrap();
    let to = |kind: &str, out: &Path| ConvertOptions {
        to: kind.parse().unwrap(),
        out: out.to_path_buf(),
        profile: Some(NOPROOFS),
        network: None,
        era_files: Vec::new(),
        accumulator: None,
    };
    let ere_dir = tmp.path().join("ere");
    let c = convert(&inputs, &to("ere", &ere_dir));
    let eres: Vec<PathBuf> = c
        .iter()
        .map(|c| {
            c.output
                .clone()
                .unwrap_or_else(|| panic!("{:#?}", c.report))
        })
        .collect();
    for (e, i) in eres.iter().zip(&inputs) {
        let name = ArchiveName::of_path(e).unwrap();
        let orig = ArchiveName::of_path(i).unwrap();
        assert_eq!((name.network, name.era), (orig.network, orig.era));
        assert_eq!(name.profile.name(), "noproofs");
    }
    // The ere files verify, with the era1 files' accumulator roots (every block is pre-merge), and agree with them.
    let mut all = inputs.clone();
    all.extend(eres.iter().cloned());
    let reports = verify(&all);
    assert!(reports.iter().all(|r| r.ok), "{reports:#?}");
    for i in 0..inputs.len() {
        assert_eq!(
            reports[i].accumulator_root,
            reports[i + inputs.len()].accumulator_root
        );
        assert_eq!(reports[i].cross_checked.len(), 1, "{:#?}", reports[i]);
    }
    // And back: byte for byte the files they came from.
    let back = convert(&eres, &to("era1", &tmp.path().join("back")));
    for (b, orig) in back.iter().zip(&inputs) {
        let b = b.output.as_ref().unwrap();
        assert_eq!(b.file_name(), orig.file_name());
        assert!(
            std::fs::read(b).unwrap() == std::fs::read(orig).unwrap(),
            "{} differs from {}",
            b.display(),
            orig.display()
        );
    }
}

#[test]
fn merge_transition_and_post_merge_eras_verify_and_export_receipts_and_logs() {
    let dir = tempfile::tempdir().unwrap();
    // Era 122 crosses the merge (block 1,000,000), Shanghai, Cancun and Prague; era 123 is all Prague.
    let files = synth_ere(dir.path(), 122, 2, 8192, NOPROOFS);
    let reports = verify(&files);
    let (t, p) = (&reports[0], &reports[1]);
    assert!(t.ok && p.ok, "{}{}", errors(t), errors(p));
    let ere = t.ere.as_ref().unwrap();
    assert_eq!(ere.pre_merge_blocks, 1_000_000 - 999_424);
    assert_eq!(ere.profile, "noproofs");
    assert_eq!(p.ere.as_ref().unwrap().pre_merge_blocks, 0);
    for fields in ["16", "17", "20", "21"] {
        assert!(t.header_field_counts.contains_key(fields), "{t:#?}");
    }
    for k in [
        "legacy_pre155",
        "legacy_eip155",
        "type1",
        "type2",
        "type3",
        "type4",
    ] {
        assert!(p.tx_kinds.get(k).is_some_and(|n| *n > 0), "{k}: {p:#?}");
    }
    assert_eq!(p.receipts, p.transactions);
    assert!(t.withdrawals > 0 && p.withdrawals > 0);
    // Total difficulty and the accumulator over the transition's pre-merge blocks; none after.
    assert!(t.accumulator_root.is_some() && t.final_total_difficulty.is_some());
    assert!(p.accumulator_root.is_none() && p.final_total_difficulty.is_none());
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);

    let out = tempfile::tempdir().unwrap();
    let o = export(&files, &export_opts(out.path(), true), &Progress::hidden()).unwrap();
    assert!(o.iter().all(|o| o.ok), "{o:?}");
    let get = |dataset: &str, report: &FileReport| {
        let name = format!(
            "{:08}_to_{:08}",
            report.first_block.unwrap(),
            report.last_block.unwrap()
        );
        let p = files_in(&out.path().join(dataset))
            .into_iter()
            .find(|p| p.to_string_lossy().contains(&name))
            .unwrap_or_else(|| panic!("{dataset} {name}"));
        read_parquet(&p)
    };
    for (file, report) in reports.iter().enumerate() {
        let txs = get("transactions", report);
        assert_eq!(txs.num_rows() as u64, report.transactions);
        // Senders of every transaction type, types 3 and 4 included, with the one process signer.
        for col in ["from_address", "gas_used", "success", "cumulative_gas_used"] {
            let c = txs.column_by_name(col).unwrap();
            assert_eq!(
                c.null_count(),
                0,
                "file {file}: {col} from the slim receipts"
            );
        }
        assert_eq!(
            get("logs", report).num_rows() as u64,
            report.logs,
            "file {file}"
        );
        assert_eq!(
            get("withdrawals", report).num_rows() as u64,
            report.withdrawals
        );
        let blocks = get("blocks", report);
        let td = blocks.column_by_name("total_difficulty_string").unwrap();
        // The transition era carries a total difficulty on every block (the final one after the merge).
        assert_eq!(
            td.null_count(),
            if file == 0 { 0 } else { blocks.num_rows() }
        );
    }
}

#[test]
fn the_noreceipts_profile_verifies_what_it_holds_and_exports_no_receipt_fields() {
    let dir = tempfile::tempdir().unwrap();
    let files = synth_ere(
        dir.path(),
        123,
        1,
        64,
        EreProfile {
            no_proofs: true,
            no_receipts: true,
        },
    );
    assert!(files[0]
        .to_string_lossy()
        .ends_with("-noproofs-noreceipts.ere"));
    let r = &verify(&files)[0];
    assert!(r.ok, "{}", errors(r));
    assert_eq!(r.receipts, 0);
    assert!(
        r.warnings.iter().any(|w| w.contains("receipts root")),
        "{:?}",
        r.warnings
    );
    let out = tempfile::tempdir().unwrap();
    let o = export(&files, &export_opts(out.path(), false), &Progress::hidden()).unwrap();
    assert!(o[0].ok, "{:?}", o[0].errors);
    assert_eq!(o[0].rows.get("logs"), Some(&0));
    let txs = read_parquet(
        &files_in(&out.path().join("transactions"))
            .into_iter()
            .find(|p| p.extension().is_some_and(|e| e == "parquet"))
            .unwrap(),
    );
    assert_eq!(
        txs.column_by_name("gas_used").unwrap().null_count(),
        txs.num_rows()
    );
}

/// The records of an ere file, as (type, data), in file order; and its index's start and component count.
fn records(path: &Path) -> Vec<(RecordType, Vec<u8>)> {
    let bytes = std::fs::read(path).unwrap();
    E2StoreReader::new(&bytes)
        .map(|r| {
            let r = r.unwrap();
            (r.kind, r.data.to_vec())
        })
        .collect()
}

/// Writes `records` (without the index) and a dynamic block index over them whose per-block entries list the
/// components in `order`, as another client might.
fn write_with_index(
    path: &Path,
    records: &[(RecordType, Vec<u8>)],
    start: u64,
    order: &[RecordType],
) {
    let mut out = Vec::new();
    let mut positions: Vec<(RecordType, u64)> = Vec::new();
    for (kind, data) in records {
        positions.push((*kind, out.len() as u64));
        write_record(&mut out, *kind, data);
    }
    let index_pos = out.len() as i64;
    let per: Vec<Vec<u64>> = order
        .iter()
        .map(|k| {
            positions
                .iter()
                .filter(|(t, _)| t == k)
                .map(|(_, p)| *p)
                .collect()
        })
        .collect();
    let count = per[0].len();
    let mut index = start.to_le_bytes().to_vec();
    for i in 0..count {
        for c in &per {
            index.extend_from_slice(&(c[i] as i64 - index_pos).to_le_bytes());
        }
    }
    index.extend_from_slice(&(order.len() as u64).to_le_bytes());
    index.extend_from_slice(&(count as u64).to_le_bytes());
    write_record(&mut out, RecordType::DYNAMIC_BLOCK_INDEX, &index);
    std::fs::write(path, out).unwrap();
}

#[test]
fn index_layouts_of_other_clients_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let file = synth_ere(dir.path(), 0, 1, 16, NOPROOFS).remove(0);
    let recs = records(&file);
    let body: Vec<(RecordType, Vec<u8>)> = recs
        .iter()
        .filter(|(k, _)| *k != RecordType::DYNAMIC_BLOCK_INDEX)
        .cloned()
        .collect();
    let (h, b, r, td) = (
        RecordType::COMPRESSED_HEADER,
        RecordType::COMPRESSED_BODY,
        RecordType::COMPRESSED_SLIM_RECEIPTS,
        RecordType::TOTAL_DIFFICULTY,
    );
    let name = file.file_name().unwrap();
    // Entries in another order (total difficulty before receipts), as an index that names its components by the
    // records they point at must allow.
    let swapped = dir.path().join("swapped").join(name);
    std::fs::create_dir_all(swapped.parent().unwrap()).unwrap();
    write_with_index(&swapped, &body, 0, &[h, b, td, r]);
    // Interleaved: each block's records together, in block tuples (nimbus's reader walks files this way).
    let interleaved = dir.path().join("interleaved").join(name);
    std::fs::create_dir_all(interleaved.parent().unwrap()).unwrap();
    let mut tuples = vec![body[0].clone()];
    let of = |k: RecordType| body.iter().filter(move |(t, _)| *t == k).cloned();
    let (hs, bs, rs, tds): (Vec<_>, Vec<_>, Vec<_>, Vec<_>) = (
        of(h).collect(),
        of(b).collect(),
        of(r).collect(),
        of(td).collect(),
    );
    for i in 0..hs.len() {
        tuples.extend([hs[i].clone(), bs[i].clone(), rs[i].clone(), tds[i].clone()]);
    }
    tuples.extend(
        body.iter()
            .filter(|(k, _)| *k == RecordType::ACCUMULATOR)
            .cloned(),
    );
    write_with_index(&interleaved, &tuples, 0, &[h, b, r, td]);
    let reference = verify(std::slice::from_ref(&file)).remove(0);
    for p in [&swapped, &interleaved] {
        let f = EreFile::open(p).unwrap();
        assert_eq!(f.profile(), NOPROOFS);
        let r = verify(std::slice::from_ref(p)).remove(0);
        assert!(r.ok, "{}: {}", p.display(), errors(&r));
        assert_eq!(r.last_block_hash, reference.last_block_hash);
        assert_eq!(r.accumulator_root, reference.accumulator_root);
        assert_eq!(r.logs, reference.logs);
    }
}

/// Verifies `path` and returns its one report's errors, checking each names the file and an offset.
fn failing(path: &Path) -> String {
    let r = verify(&[path.to_path_buf()]).remove(0);
    assert!(!r.ok, "{} verified", path.display());
    let all = errors(&r);
    for e in &r.errors {
        let s = e.to_string();
        assert!(
            s.contains(path.file_name().unwrap().to_str().unwrap()),
            "names the file: {s}"
        );
    }
    all
}

#[test]
fn bad_ere_input_is_named_not_panicked() {
    let dir = tempfile::tempdir().unwrap();
    let file = synth_ere(dir.path(), 0, 1, 32, NOPROOFS).remove(0);
    let good = std::fs::read(&file).unwrap();
    let name = file.file_name().unwrap().to_str().unwrap().to_string();
    let bad_dir = dir.path().join("bad");
    std::fs::create_dir_all(&bad_dir).unwrap();
    let write = |bytes: &[u8]| {
        let p = bad_dir.join(&name);
        std::fs::write(&p, bytes).unwrap();
        p
    };
    let n = good.len();
    let index = EreFile::open(&file).unwrap().index().clone();

    // Truncated: the index's counts are no longer where they should be.
    let e = failing(&write(&good[..n - 1]));
    assert!(e.contains("at byte offset"), "{e}");

    // Component counts outside 2..=5.
    for cc in [1u64, 6] {
        let mut b = good.clone();
        b[n - 16..n - 8].copy_from_slice(&cc.to_le_bytes());
        let e = failing(&write(&b));
        assert!(e.contains("component count must be 2..=5"), "{e}");
        assert!(e.contains(&format!("found {cc}")), "{e}");
    }

    // An index entry pointing outside the block records (block 5's body entry).
    let entry =
        |block: u64, slot: u64| (index.record_offset + 16 + 8 * (block * 4 + slot)) as usize;
    let mut b = good.clone();
    let before_the_file = -(index.record_offset as i64) - 8;
    b[entry(5, 1)..entry(5, 1) + 8].copy_from_slice(&before_the_file.to_le_bytes());
    let e = failing(&write(&b));
    assert!(
        e.contains("(block 5)") && e.contains("outside the block records"),
        "{e}"
    );

    // An entry pointing at a record of the wrong type: block 3's header entry at its body.
    let mut b = good.clone();
    let body_entry: [u8; 8] = b[entry(3, 1)..entry(3, 1) + 8].try_into().unwrap();
    b[entry(3, 0)..entry(3, 0) + 8].copy_from_slice(&body_entry);
    let e = failing(&write(&b));
    assert!(
        e.contains("(block 3)")
            && e.contains("expected a CompressedHeader record, found type CompressedBody"),
        "{e}"
    );

    // Slim receipts with one entry too few for the block's transactions.
    let recs = records(&file);
    let mut edited = recs.clone();
    let slot = recs
        .iter()
        .position(|(k, _)| *k == RecordType::COMPRESSED_SLIM_RECEIPTS)
        .unwrap();
    let mut dec = eraflow::formats::snappy::FramedDecoder::new();
    let raw = dec.decompress(&recs[slot].1).unwrap().to_vec();
    let list = eraflow::execution::rlp::single_list(&raw, "t").unwrap();
    let mut rest = list.payload;
    eraflow::execution::rlp::next_item(&mut rest, "t").unwrap(); // drop the first receipt
    let shorter = eraflow::execution::header::wrap_list(rest);
    edited[slot].1 = eraflow::formats::snappy::compress_framed(&shorter);
    let p = bad_dir.join(&name);
    let recs_no_index: Vec<_> = edited
        .iter()
        .filter(|(k, _)| *k != RecordType::DYNAMIC_BLOCK_INDEX)
        .cloned()
        .collect();
    write_with_index(
        &p,
        &recs_no_index,
        0,
        &[
            RecordType::COMPRESSED_HEADER,
            RecordType::COMPRESSED_BODY,
            RecordType::COMPRESSED_SLIM_RECEIPTS,
            RecordType::TOTAL_DIFFICULTY,
        ],
    );
    let e = failing(&p);
    assert!(
        e.contains("(block 0)") && (e.contains("receipt count") || e.contains("receipt type")),
        "{e}"
    );

    // Reordered records: the first two bodies swapped in place, the index left as it was, so the second body
    // record no longer starts where the index says.
    let mut swapped: Vec<_> = recs
        .iter()
        .filter(|(k, _)| *k != RecordType::DYNAMIC_BLOCK_INDEX)
        .cloned()
        .collect();
    let bodies: Vec<usize> = swapped
        .iter()
        .enumerate()
        .filter(|(_, (k, _))| *k == RecordType::COMPRESSED_BODY)
        .map(|(i, _)| i)
        .collect();
    assert_ne!(swapped[bodies[0]].1.len(), swapped[bodies[1]].1.len());
    swapped.swap(bodies[0], bodies[1]);
    let mut b = good.clone();
    let mut pos = 0usize;
    for (k, d) in &swapped {
        let mut one = Vec::new();
        write_record(&mut one, *k, d);
        b[pos..pos + one.len()].copy_from_slice(&one);
        pos += one.len();
    }
    let e = failing(&write(&b));
    assert!(
        e.contains("CompressedBody record #1 is here, but the index says"),
        "{e}"
    );

    // A name whose profile contradicts the records present, and one whose era is not the file's.
    let renamed = bad_dir.join(name.replace("-noproofs", ""));
    std::fs::write(&renamed, &good).unwrap();
    let e = failing(&renamed);
    assert!(e.contains("profile in file name: expected noproofs"), "{e}");
    std::fs::remove_file(&renamed).unwrap();
    let legacy = bad_dir.join(name.replace("-00000-", "-00005-").replace(".ere", ".erae"));
    std::fs::write(&legacy, &good).unwrap();
    let e = failing(&legacy);
    assert!(e.contains("era in file name: expected 0, found 5"), "{e}");

    // Nothing of the good file changed: it still verifies.
    assert!(verify(std::slice::from_ref(&file))[0].ok);
}

#[test]
fn prune_up_to_and_past_the_merge() {
    use eraflow::prune::{run, PruneError, PruneOptions};
    let dir = tempfile::tempdir().unwrap();
    // 1024 blocks of synthnet's merge era: 999,424 to 1,000,447, the merge at 1,000,000.
    let files = synth_ere(dir.path(), 122, 1, 1024, NOPROOFS);
    let out = dir.path().join("manifest");
    let e = run(&files, &out, &PruneOptions::default()).unwrap_err();
    assert!(matches!(e, PruneError::CrossesMerge { .. }), "{e}");
    assert!(!out.exists());
    let s = run(
        &files,
        &out,
        &PruneOptions {
            until_block: Some(1_000_000),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(
        (s.manifest.range.first, s.manifest.range.last),
        (999_424, 999_999)
    );
    assert_eq!(s.manifest.totals.blocks, 576);
    eraflow::prune::check::check(&out).unwrap();
    // Explicitly past the merge: post-merge history too (a rolling window, or a later fork's first block).
    let s = run(
        &files,
        &out,
        &PruneOptions {
            until_block: Some(1_000_448),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(s.manifest.totals.blocks, 1024);
    assert_eq!(s.manifest.totals.transactions, 4096);
    eraflow::prune::check::check(&out).unwrap();
}

#[test]
fn a_preset_merge_inside_mined_blocks_fails_them() {
    let dir = tempfile::tempdir().unwrap();
    let file = eraflow::synth::era1::write(dir.path(), &chain(0, 1, 64))
        .unwrap()
        .remove(0);
    let mut net = synthnet();
    net.first_pos_block = 32;
    let r = eraflow::verify::file(
        &file,
        &VerifyOptions {
            network: Some(net),
            ..Default::default()
        },
    );
    let e = errors(&r);
    assert!(
        e.contains("(block 32): proof-of-stake header (at or after the merge block): expected difficulty 0 and nonce 0"),
        "{e}"
    );
}

#[test]
fn an_export_given_era1_and_ere_files_of_one_era_writes_each_block_once() {
    let dir = tempfile::tempdir().unwrap();
    let era1 = eraflow::synth::era1::write(dir.path(), &chain(0, 1, 64))
        .unwrap()
        .remove(0);
    let ere = synth_ere(dir.path(), 0, 1, 64, NOPROOFS).remove(0);
    let out = tempfile::tempdir().unwrap();
    let o = export(
        &[era1.clone(), ere.clone()],
        &export_opts(out.path(), false),
        &Progress::hidden(),
    )
    .unwrap();
    assert!(o.iter().all(|o| o.ok), "{o:?}");
    // The ere file (it has receipts) gives the rows; the era1 file of the same blocks is not read.
    assert_eq!(
        o[0].same_blocks_as.as_deref(),
        ere.file_name().unwrap().to_str()
    );
    assert!(o[0].outputs.is_empty() && o[1].outputs.len() >= 4);
    let blocks: Vec<PathBuf> = files_in(&out.path().join("blocks"));
    assert_eq!(blocks.len(), 1, "{blocks:?}");
    assert_eq!(read_parquet(&blocks[0]).num_rows(), 64);
}

#[test]
fn ere_blocks_are_compared_with_the_payloads_of_era_files() {
    use eraflow::consensus::Fork;
    use eraflow::synth::era::{era_to_synthesize, EraSynthOptions};
    // A synthnet whose merge puts an Electra era's first payload at the start of an execution era (block
    // 123 * 8192), with every post-merge execution fork active from the start: payloads and ere blocks then line
    // up file for file.
    let mut net = synthnet();
    net.first_pos_block = 123 * 8192 - 1;
    net.forks.shanghai_time = Some(0);
    net.forks.cancun_time = Some(0);
    net.forks.prague_time = Some(0);
    let dir = tempfile::tempdir().unwrap();
    let era = era_to_synthesize(&net, None, Some(Fork::Electra)).unwrap();
    let era_file = eraflow::synth::era::write(
        &dir.path().join("era"),
        &EraSynthOptions {
            era,
            blocks: 64,
            validators: 64,
            ..EraSynthOptions::new(net.clone())
        },
    )
    .unwrap()
    .remove(0);
    let opts = VerifyOptions {
        network: Some(net.clone()),
        ..Default::default()
    };
    let same = ere_from_era_payloads(
        std::slice::from_ref(&era_file),
        &net,
        &dir.path().join("same"),
        |_| {},
    );
    let reports = verify_archives(&[same.clone(), era_file.clone()], &opts);
    let (x, e) = (&reports[0], &reports[1]);
    assert!(x.ok && e.ok, "{}{}", errors(x), errors(e));
    assert!(x.first_block.unwrap().is_multiple_of(8192));
    assert_eq!((x.first_block, x.last_block), (e.first_block, e.last_block));
    assert!(
        x.cross_checked[0].contains("agree with the execution payloads of"),
        "{:?}",
        x.cross_checked
    );
    assert!(
        e.cross_checked[0].contains("agree with"),
        "{:?}",
        e.cross_checked
    );

    // The same blocks but the last: each file is sound on its own, and the two disagree.
    let other = ere_from_era_payloads(
        std::slice::from_ref(&era_file),
        &net,
        &dir.path().join("other"),
        |h| h.gas_limit += 1,
    );
    let alone = verify_archives(std::slice::from_ref(&other), &opts);
    assert!(alone[0].ok, "{}", errors(&alone[0]));
    let reports = verify_archives(&[other, era_file], &opts);
    for r in &reports {
        let e = errors(r);
        assert!(
            !r.ok
                && e.contains("but the execution payload in")
                && e.contains(&format!("block {}:", r.last_block.unwrap())),
            "{e}"
        );
    }
}
