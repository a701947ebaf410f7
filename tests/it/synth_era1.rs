//! Synthetic era1 archives: deterministic, verifiable, and a flipped byte anywhere is caught.

use eraflow::crypto::signer::{self, SignatureAlgorithm};
use eraflow::network::Network;
use eraflow::synth::era1::{write, SynthOptions};
use eraflow::verify::{file as verify_file, verify_archives as verify_files, VerifyOptions};

fn opts(network: &str, blocks: u64, txs: u32) -> SynthOptions {
    let mut o = SynthOptions::new(Network::by_name(network).unwrap());
    o.blocks = blocks;
    o.txs_per_block = txs;
    o
}

#[test]
fn same_seed_same_bytes_other_seed_other_bytes() {
    let (a, b, c) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    let o = opts("synthnet", 300, 3);
    let pa = write(a.path(), &o).unwrap();
    let pb = write(b.path(), &o).unwrap();
    assert_eq!(pa[0].file_name(), pb[0].file_name());
    assert_eq!(
        std::fs::read(&pa[0]).unwrap(),
        std::fs::read(&pb[0]).unwrap()
    );
    let mut o2 = o.clone();
    o2.seed = 2;
    let pc = write(c.path(), &o2).unwrap();
    assert_ne!(pa[0].file_name(), pc[0].file_name());
}

#[test]
fn full_era_verifies_with_every_kind_and_senders() {
    // One full era of synthnet crosses Byzantium (2048) and London (4096): every pre-merge kind appears.
    let d = tempfile::tempdir().unwrap();
    let paths = write(d.path(), &opts("synthnet", 8192, 2)).unwrap();
    signer::init(SignatureAlgorithm::Secp256k1).unwrap();
    let r = verify_file(
        &paths[0],
        &VerifyOptions {
            senders: true,
            ..Default::default()
        },
    );
    assert!(r.ok, "{:?}", r.errors);
    assert_eq!(r.blocks, 8192);
    assert_eq!(r.transactions, 8192 * 2);
    assert_eq!(r.senders_recovered, Some(8192 * 2));
    assert_eq!(r.sender_errors, Some(0));
    for kind in ["legacy_pre155", "legacy_eip155", "type1", "type2"] {
        assert!(
            r.tx_kinds.get(kind).copied().unwrap_or(0) > 0,
            "no {kind}: {:?}",
            r.tx_kinds
        );
    }
    for form in [
        "legacy/post_state",
        "legacy/status",
        "type1/status",
        "type2/status",
    ] {
        assert!(
            r.receipt_forms.get(form).copied().unwrap_or(0) > 0,
            "no {form}: {:?}",
            r.receipt_forms
        );
    }
    assert!(r.logs > 0 && r.ommers > 0);
    assert_eq!(r.header_field_counts.get("15"), Some(&4096));
    assert_eq!(r.header_field_counts.get("16"), Some(&4096));
}

#[test]
fn consecutive_files_chain() {
    let d = tempfile::tempdir().unwrap();
    let mut o = opts("synthnet", 8192, 0);
    o.era = 3;
    o.files = 2;
    let paths = write(d.path(), &o).unwrap();
    assert!(paths[0]
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .starts_with("synthnet-00003-"));
    let reports = verify_files(&paths, &VerifyOptions::default());
    assert!(
        reports.iter().all(|r| r.ok),
        "{:?}",
        reports.iter().map(|r| &r.errors).collect::<Vec<_>>()
    );
    assert_eq!(reports[1].first_block, Some(4 * 8192));
}

#[test]
fn a_flipped_byte_anywhere_is_caught() {
    let d = tempfile::tempdir().unwrap();
    let paths = write(d.path(), &opts("synthnet", 64, 3)).unwrap();
    let orig = std::fs::read(&paths[0]).unwrap();
    let victim = d.path().join("victim").join(paths[0].file_name().unwrap());
    std::fs::create_dir_all(victim.parent().unwrap()).unwrap();
    let original_content = decoded_records(&orig);
    // Every 53rd byte (co-prime with record sizes), so all record kinds and headers are hit.
    let mut missed = Vec::new();
    let mut benign = 0;
    for at in (0..orig.len()).step_by(53) {
        let mut bytes = orig.clone();
        bytes[at] ^= 0x10;
        std::fs::write(&victim, &bytes).unwrap();
        let r = verify_file(&victim, &VerifyOptions::default());
        if r.ok {
            // A flip inside snappy data can re-point a copy at identical bytes (runs of zeros in blooms): the
            // file then still means exactly the same blocks. Anything else undetected is a miss.
            if decoded_records(&bytes) == original_content {
                benign += 1;
            } else {
                missed.push(at);
            }
        }
    }
    assert!(
        missed.is_empty(),
        "flips that changed content went undetected at offsets {missed:?}"
    );
    assert!(
        benign < orig.len() / 53 / 10,
        "too many benign flips ({benign}): is the check looking at all records?"
    );
}

#[test]
fn too_many_blocks_or_past_the_merge_is_refused() {
    let d = tempfile::tempdir().unwrap();
    assert!(write(d.path(), &opts("synthnet", 9000, 1)).is_err());
    let mut o = opts("sepolia", 10, 1);
    o.era = 200; // block 1,638,400 is after Sepolia's merge (1,450,409)
    assert!(write(d.path(), &o)
        .unwrap_err()
        .to_string()
        .contains("pre-merge"));
}

/// Every record's type and decompressed data, in file order: what a file means, independent of compression.
fn decoded_records(bytes: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
    use eraflow::formats::e2store::{E2StoreReader, RecordType};
    let mut dec = eraflow::formats::snappy::FramedDecoder::new();
    E2StoreReader::new(bytes)
        .map(|r| {
            let r = r.unwrap();
            let compressed = [
                RecordType::COMPRESSED_HEADER,
                RecordType::COMPRESSED_BODY,
                RecordType::COMPRESSED_RECEIPTS,
            ];
            let data = if compressed.contains(&r.kind) {
                dec.decompress(r.data).unwrap().to_vec()
            } else {
                r.data.to_vec()
            };
            (r.kind.0.to_vec(), data)
        })
        .collect()
}
