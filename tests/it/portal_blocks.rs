//! Real mainnet blocks on both sides of every fork from Gray Glacier to Prague (`portal/block_data/`, Portal's
//! block content: header, body and the block's slim receipts `[type, status, cumulative gas, logs]`), each written
//! as a one-block ere file with the project's writer and verified through the one execution block path: the
//! transactions, withdrawals and receipts roots (full receipts rebuilt from the slim ones, blooms and all), the
//! logs bloom, gas used, blob gas and the header's fields for its fork must come out of eraflow's own code exactly
//! as the real headers commit to them.

use crate::testdata;
use eraflow::execution::header::HeaderView;
use eraflow::formats::ere::{EreBlock, EreWriter};
use eraflow::formats::MappedArchive;
use eraflow::network::Network;
use eraflow::verify::file as verify_file;
use eraflow::verify::VerifyOptions;
use std::path::Path;

/// The blocks, with what each exercises.
const BLOCKS: &[(u64, &str)] = &[
    (14764013, "Gray Glacier, London receipts of types 0 and 2"),
    (15537393, "the last proof-of-work block"),
    (15537394, "the first proof-of-stake block"),
    (15547621, "Bellatrix"),
    (17034869, "the last block before Shanghai"),
    (17034870, "the first Shanghai block: withdrawals"),
    (17062257, "Shanghai"),
    (19426586, "the last block before Cancun"),
    (
        19426587,
        "the first Cancun block: blob gas, parent beacon root",
    ),
    (22162263, "Cancun, blob transactions"),
    (22431084, "Prague: requests hash, set-code transactions"),
];

/// `key: 0x...` lines of a block-data file.
fn field(text: &str, key: &str) -> Vec<u8> {
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))
        .unwrap_or_else(|| panic!("no {key}"));
    hex::decode(line.trim().trim_start_matches("0x")).unwrap()
}

#[test]
fn real_blocks_roots_come_out_exact_from_slim_receipts() {
    let Some(dir) = testdata::dir("portal block data") else {
        return;
    };
    let mainnet = Network::by_name("mainnet").unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let opts = VerifyOptions {
        network: Some(mainnet.clone()),
        ..Default::default()
    };
    for &(number, what) in BLOCKS {
        let text = std::fs::read_to_string(
            dir.join(format!("portal/block_data/block-data-{number}.yaml")),
        )
        .unwrap();
        let (header, body, receipts) = (
            field(&text, "header"),
            field(&text, "body"),
            field(&text, "receipts"),
        );
        let h = HeaderView::decode(&header).unwrap();
        assert_eq!(h.number(), number);
        let out = tmp.path().join(number.to_string());
        let mut w = EreWriter::create(&out, "mainnet").unwrap();
        // One block, no total difficulty (the real chain's is not in the data): the per-block checks are all
        // there is to see.
        w.add_block(&EreBlock {
            number,
            header: &header,
            body: &body,
            slim_receipts: Some(&receipts),
            total_difficulty: None,
            pre_merge: false,
            proof: None,
        })
        .unwrap();
        let path = w.finish().unwrap();
        assert_eq!(
            path.file_name().unwrap().to_str().unwrap(),
            format!(
                "mainnet-{:05}-{}-noproofs.ere",
                number / 8192,
                hex::encode(&h.hash()[..4])
            )
        );
        let r = verify_file(&path, &opts);
        // A lone block does not start its era: that, and only that, is what a one-block file gets wrong.
        let errors: Vec<String> = r.errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(errors.len(), 1, "block {number} ({what}): {errors:#?}");
        assert!(
            errors[0].contains("first block: expected a multiple of 8192"),
            "block {number} ({what}): {errors:#?}"
        );
        assert_eq!(
            r.receipts, r.transactions,
            "block {number}: every receipt decoded"
        );
        assert_eq!(r.last_block_hash, Some(crate::util::hex0x(&h.hash().0)));
        let merged = number >= mainnet.first_pos_block;
        assert_eq!(r.ere.as_ref().unwrap().pre_merge_blocks, u64::from(!merged));
        // Shanghai's first block has an empty withdrawals list; the later ones 16 each.
        if h.withdrawals_root()
            .is_some_and(|w| *w != eraflow::execution::trie::EMPTY_ROOT.0)
        {
            assert_eq!(r.withdrawals, 16, "block {number}: withdrawals decoded");
        }
        if number >= 19426587 {
            assert_eq!(
                h.field_count(),
                if number >= 22431084 { 21 } else { 20 },
                "block {number}"
            );
        }
        let types: Vec<&String> = r.tx_kinds.keys().collect();
        if number == 22162263 {
            assert!(types.iter().any(|t| *t == "type3"), "{types:?}");
        }
        check_one_flip(&path, &opts, number);
    }
}

/// A block's slim receipts with one cumulative-gas value changed no longer give the header's receipts root: the
/// root is really rebuilt from the slim fields.
fn check_one_flip(path: &Path, opts: &VerifyOptions, number: u64) {
    use eraflow::formats::ere::EreFile;
    use eraflow::formats::execution::{decompress, BlockDecoders};
    let f = EreFile::open(path).unwrap();
    let b = f.block(0).unwrap();
    let mut dec = BlockDecoders::default();
    let header = decompress(&mut dec.header, &b.header, path, number)
        .unwrap()
        .to_vec();
    let body = decompress(&mut dec.body, &b.body, path, number)
        .unwrap()
        .to_vec();
    let receipts = decompress(&mut dec.receipts, &b.receipts.unwrap(), path, number)
        .unwrap()
        .to_vec();
    if receipts.len() < 8 {
        return; // no receipts to change
    }
    // The cumulative gas of the first receipt is its third field: flip the lowest bit of its last byte.
    use eraflow::execution::rlp;
    let list = rlp::single_list(&receipts, "receipts").unwrap();
    let mut rest = list.payload;
    let first = rlp::next_item(&mut rest, "receipt").unwrap();
    let mut fields = first.payload;
    for _ in 0..2 {
        rlp::next_item(&mut fields, "field").unwrap();
    }
    let gas = rlp::next_item(&mut fields, "gas").unwrap();
    let gas_end = gas.payload.as_ptr() as usize + gas.payload.len() - receipts.as_ptr() as usize;
    let mut changed = receipts.clone();
    changed[gas_end - 1] ^= 1;
    let dir = path.parent().unwrap().join("flipped");
    let mut w = EreWriter::create(&dir, "mainnet").unwrap();
    w.add_block(&EreBlock {
        number,
        header: &header,
        body: &body,
        slim_receipts: Some(&changed),
        total_difficulty: None,
        pre_merge: false,
        proof: None,
    })
    .unwrap();
    let p = w.finish().unwrap();
    let r = verify_file(&p, opts);
    let all: String = r.errors.iter().map(|e| e.to_string() + "\n").collect();
    assert!(
        all.contains("receipts root") || all.contains("cumulative gas"),
        "block {number}: {all}"
    );
}
