//! secp256r1 (private / permissioned networks): this test binary initialises the process signer with R1,
//! then runs the same sign-then-recover round trips as secp256k1, for every transaction type.

#[path = "it/signer_common.rs"]
mod signer_common;

use alloy_primitives::U256;
use eraflow::crypto::signer::{
    self, address_of, test_key, SenderError, SignatureAlgorithm, SignerBackend,
};
use eraflow::execution::transaction::TxView;
use signer_common::{requests, SEED};

const ALG: SignatureAlgorithm = SignatureAlgorithm::Secp256r1;
/// secp256r1 order n.
const N: &str = "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551";

#[test]
fn r1_round_trips_every_type_and_rejects_switching() {
    let signer = signer::init(ALG).unwrap();
    assert_eq!(signer.algorithm(), ALG);
    assert_eq!(signer.implementation(), "p256");
    // The secp256k1 backend choice does not apply to R1: asking with either is the same signer.
    for backend in [SignerBackend::K256, SignerBackend::Libsecp256k1] {
        assert!(std::ptr::eq(
            signer::init_with(ALG, backend).unwrap(),
            signer
        ));
    }
    let key = test_key(SEED, 1);
    let me = address_of(&key, ALG).unwrap();
    // The same key has a different address on the other curve.
    assert_ne!(me, address_of(&key, SignatureAlgorithm::Secp256k1).unwrap());
    for (name, req) in requests(ALG) {
        let canonical = req.sign_and_encode(&key, ALG).unwrap();
        assert_eq!(canonical, req.sign_and_encode(&key, ALG).unwrap(), "{name}");
        let tx = TxView::decode_canonical(&canonical).unwrap();
        assert_eq!(signer.recover_sender(&tx, true), Ok(me), "{name}");
        for (i, a) in tx.authorizations().enumerate() {
            assert_eq!(
                signer.recover_authority(&a),
                Ok(address_of(&test_key(SEED, 100 + i as u32), ALG).unwrap()),
                "{name}"
            );
        }
        // R1 has no EIP-2 low-s rule: the malleated twin (n - s, flipped parity) still recovers the sender.
        let (r, s) = (U256::from_be_slice(tx.r()), U256::from_be_slice(tx.s()));
        let n = U256::from_str_radix(N, 16).unwrap();
        let v = match tx.v() {
            27 => 28,
            28 => 27,
            0 => 1,
            1 => 0,
            v if (v - 35) % 2 == 0 => v + 1, // EIP-155: v = 35 + 2 * chain_id + parity
            v => v - 1,
        };
        let twin = req.encode_with_signature(v, r, n - s).unwrap();
        let twin = TxView::decode_canonical(&twin).unwrap();
        assert_eq!(signer.recover_sender(&twin, true), Ok(me), "{name} twin");
        // Range checks use the R1 order.
        let out = req.encode_with_signature(tx.v(), r, n).unwrap();
        assert_eq!(
            signer.recover_sender(&TxView::decode_canonical(&out).unwrap(), true),
            Err(SenderError::SOutOfRange)
        );
    }
    assert!(signer::init(SignatureAlgorithm::Secp256k1).is_err());
    assert_eq!(signer::initialisations(), 1);
}
