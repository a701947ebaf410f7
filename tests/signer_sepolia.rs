//! Real data: the senders of all 93 transactions of sepolia-00021 equal
//! `expected/sepolia-00021-transactions.csv` (issue 3 acceptance).
//!
//! Until the era1 reader (`eraflow::formats::era1::Era1File`) lands, this test walks the file with a tiny
//! test-only e2store + framed-snappy loop; switch it to `Era1File` once that exists.

use std::collections::HashMap;

use alloy_rlp::Header;
use eraflow::crypto::signer::{self, SignatureAlgorithm};
use eraflow::execution::transaction::TxView;

/// Splits an RLP list payload into its items (each with its header).
fn items(mut buf: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    while !buf.is_empty() {
        let start = buf;
        let h = Header::decode(&mut buf).expect("item header");
        let len = start.len() - buf.len() + h.payload_length;
        out.push(&start[..len]);
        buf = &start[len..];
    }
    out
}

#[test]
fn sepolia_00021_senders_match_expected_csv() {
    let (Some(era1), Some(csv)) = (
        eraflow::testdata::file("era1/sepolia-00021-b8814b14.era1"),
        eraflow::testdata::file("expected/sepolia-00021-transactions.csv"),
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
    let data = std::fs::read(era1).unwrap();
    let mut pos = 0;
    let mut matched = 0;
    let mut seen = 0;
    while pos + 8 <= data.len() {
        let ty = [data[pos], data[pos + 1]];
        let len = u32::from_le_bytes(data[pos + 2..pos + 6].try_into().unwrap()) as usize;
        let body = &data[pos + 8..pos + 8 + len];
        pos += 8 + len;
        if ty != [0x04, 0x00] {
            continue; // only CompressedBody records
        }
        let mut rlp = Vec::new();
        std::io::Read::read_to_end(&mut snap::read::FrameDecoder::new(body), &mut rlp).unwrap();
        let mut b = &rlp[..];
        let outer = Header::decode(&mut b).unwrap();
        assert!(outer.list);
        let mut b = &b[..outer.payload_length];
        let txs = Header::decode(&mut b).unwrap();
        for item in items(&b[..txs.payload_length]) {
            seen += 1;
            let tx = TxView::decode(item).unwrap();
            let hash = format!("0x{}", hex::encode(tx.hash()));
            let (from, ty, nonce) = expected
                .get(&hash)
                .unwrap_or_else(|| panic!("tx {hash} not in the expected CSV"));
            let sender = signer.recover_sender(&tx, true).unwrap();
            assert_eq!(
                &format!("0x{}", hex::encode(sender)),
                from,
                "sender of {hash}"
            );
            assert_eq!(&tx.tx_type().to_string(), ty, "type of {hash}");
            assert_eq!(&tx.nonce().to_string(), nonce, "nonce of {hash}");
            matched += 1;
        }
    }
    assert_eq!(seen, 93);
    assert_eq!(matched, 93);
}
