//! Every real post-merge block's execution block hash is recomputed from its payload (header rebuilt with
//! transactions and withdrawals roots), and every transaction in it decodes: decoding proven against the chain.

use crate::testdata;
use eraflow::consensus::{BeaconBlock, Fork, SignedBeaconBlock};
use eraflow::execution::transaction::TxView;
use eraflow::verify::payload::recomputed_block_hash;

#[test]
fn real_payloads_hash_to_their_block_hash() {
    let Some(data) = testdata::dir("execution payload block hashes") else {
        return;
    };
    let expected: serde_json::Value =
        serde_json::from_slice(&std::fs::read(data.join("expected/ssz-roots.json")).unwrap())
            .unwrap();
    let mut checked = 0;
    for e in expected.as_array().unwrap() {
        let Some(x) = e.get("execution") else {
            continue;
        };
        let fork: Fork = e["fork"].as_str().unwrap().parse().unwrap();
        let bytes = std::fs::read(data.join("ssz").join(e["file"].as_str().unwrap())).unwrap();
        let signed;
        let block = if e["type"] == "SignedBeaconBlock" {
            signed =
                SignedBeaconBlock::new(&bytes, eraflow::consensus::Spec::mainnet(fork)).unwrap();
            signed.message().unwrap()
        } else {
            BeaconBlock::new(&bytes, eraflow::consensus::Spec::mainnet(fork)).unwrap()
        };
        let hash = recomputed_block_hash(&block).unwrap();
        assert_eq!(
            format!("0x{}", hex::encode(hash)),
            x["block_hash"].as_str().unwrap(),
            "{}",
            e["file"]
        );
        let payload = block.body().unwrap().execution_payload().unwrap().unwrap();
        let txs: Vec<&[u8]> = payload.transactions().unwrap().collect();
        assert_eq!(txs.len() as u64, x["transactions"].as_u64().unwrap());
        for t in txs {
            TxView::decode_canonical(t).unwrap_or_else(|err| panic!("{}: {err}", e["file"]));
        }
        checked += 1;
    }
    assert_eq!(checked, 12);
}

#[test]
fn a_changed_transaction_changes_the_hash() {
    let Some(p) = testdata::file("ssz/portal/19426587/block.ssz") else {
        return;
    };
    let mut bytes = std::fs::read(p).unwrap();
    let good = recomputed_block_hash(
        &BeaconBlock::new(&bytes, eraflow::consensus::Spec::mainnet(Fork::Deneb)).unwrap(),
    )
    .unwrap();
    // Flip the last byte of the block: inside the payload's last transaction or withdrawal.
    let n = bytes.len();
    bytes[n - 1] ^= 1;
    let bad = recomputed_block_hash(
        &BeaconBlock::new(&bytes, eraflow::consensus::Spec::mainnet(Fork::Deneb)).unwrap(),
    )
    .unwrap();
    assert_ne!(good, bad);
}
