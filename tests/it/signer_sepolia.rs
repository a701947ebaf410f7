//! Real data: the senders of all 93 transactions of sepolia-00021 equal
//! `expected/sepolia-00021-transactions.csv` (issue 3 acceptance), read through the era1 reader, the body
//! view and `TxView`, recovered in one batch by the process signer.

use eraflow::formats::MappedArchive;
use std::collections::HashMap;

use eraflow::crypto::signer::{self, SignatureAlgorithm};
use eraflow::execution::body::BodyView;
use eraflow::execution::transaction::TxView;
use eraflow::formats::era1::Era1File;
use eraflow::formats::execution::{decompress, BlockDecoders};

#[test]
fn sepolia_00021_senders_match_expected_csv() {
    let (Some(path), Some(csv)) = (
        crate::testdata::file("era1/sepolia-00021-b8814b14.era1"),
        crate::testdata::file("expected/sepolia-00021-transactions.csv"),
    ) else {
        return;
    };
    let csv = std::fs::read_to_string(csv).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (c_hash, c_from, c_type, c_nonce) = (col("hash"), col("from"), col("type"), col("nonce"));
    let expected: HashMap<String, (String, String, String)> = lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                f[c_hash].to_lowercase(),
                (
                    f[c_from].to_lowercase(),
                    f[c_type].to_string(),
                    f[c_nonce].to_string(),
                ),
            )
        })
        .collect();
    assert_eq!(expected.len(), 93);

    let signer = signer::init(SignatureAlgorithm::Secp256k1).unwrap();
    let file = Era1File::open(&path).unwrap();
    let mut dec = BlockDecoders::default();
    // Bodies are decompressed into reused buffers, so keep the canonical bytes of the few transactions.
    let mut canonical: Vec<Vec<u8>> = Vec::new();
    for i in 0..file.block_count() {
        let block = file.block(i).unwrap();
        let body = decompress(&mut dec.body, &block.body, file.path(), block.number).unwrap();
        let body = BodyView::decode(body).unwrap();
        for item in body.transactions() {
            let tx = TxView::decode(item.unwrap().raw).unwrap();
            canonical.push(tx.canonical().to_vec());
        }
    }
    assert_eq!(canonical.len(), 93);
    let txs: Vec<TxView> = canonical
        .iter()
        .map(|c| TxView::decode_canonical(c).unwrap())
        .collect();
    let mut senders = Vec::new();
    signer
        .recover_batch(&txs, &vec![true; txs.len()], &mut senders)
        .unwrap();
    for (tx, sender) in txs.iter().zip(&senders) {
        let hash = format!("0x{}", hex::encode(tx.hash()));
        let (from, ty, nonce) = expected
            .get(&hash)
            .unwrap_or_else(|| panic!("tx {hash} not in the expected CSV"));
        let sender = sender.unwrap();
        assert_eq!(
            &format!("0x{}", hex::encode(sender)),
            from,
            "sender of {hash}"
        );
        assert_eq!(&tx.tx_type().to_string(), ty, "type of {hash}");
        assert_eq!(&tx.nonce().to_string(), nonce, "nonce of {hash}");
    }
    assert_eq!(signer::initialisations(), 1);
}
