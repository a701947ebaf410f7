//! Transactions of every kind against known hashes, senders and malformed encodings.

use super::*;

#[test]
fn eip155_example_signing_hash() {
    // EIP-155 text: nonce 9, gas price 20 gwei, gas 21000, to 0x3535..., value 1 ether, empty data.
    let signed = hex::decode("f86c098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a76400008025a028ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276a067cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83").unwrap();
    let tx = TxView::decode(&signed).unwrap();
    assert_eq!(tx.kind(), TxKind::Legacy155);
    assert_eq!(tx.chain_id(), Some(1));
    assert_eq!(tx.nonce(), 9);
    assert_eq!(tx.gas_limit(), 21000);
    assert_eq!(tx.y_parity(), Some(false));
    assert_eq!(
        hex::encode(tx.signing_hash()),
        "daf5a779ae972f972197303d7b574746c7ef83eadac0f2791ad23db92e4c8e53"
    );
}

#[test]
fn list_header_lengths() {
    let mut b = [0u8; 9];
    assert_eq!(list_header(55, &mut b), 1);
    assert_eq!(b[0], 0xc0 + 55);
    assert_eq!(list_header(56, &mut b), 2);
    assert_eq!(&b[..2], &[0xf8, 56]);
    assert_eq!(list_header(0x1234, &mut b), 3);
    assert_eq!(&b[..3], &[0xf9, 0x12, 0x34]);
}
