//! secp256k1 (the default): known vectors from the EIP text and real chains, sign-then-recover round trips
//! for every transaction type, every recovery error kind, and malformed-input decoding without panics.

use crate::signer_common::{requests, SEED};
use alloy_primitives::U256;
use eraflow::crypto::signer::{
    self, address_of, test_key, SenderError, SignatureAlgorithm, Signer, SignerError,
};
use eraflow::execution::transaction::{TxError, TxKind, TxView};
use eraflow::execution::tx_request::TxRequest;

const ALG: SignatureAlgorithm = SignatureAlgorithm::Secp256k1;
/// secp256k1 order n.
const N: &str = "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141";

fn k1() -> &'static Signer {
    signer::init(ALG).unwrap()
}

fn h(s: &str) -> Vec<u8> {
    hex::decode(s.trim_start_matches("0x")).unwrap()
}

fn addr(s: &str) -> [u8; 20] {
    h(s).try_into().unwrap()
}

fn u(s: &str) -> U256 {
    U256::from_str_radix(s, 16).unwrap()
}

#[test]
fn eip155_example_from_the_eip_text() {
    let raw = h("f86c098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a76400008025a028ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276a067cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83");
    let tx = TxView::decode(&raw).unwrap();
    assert_eq!(tx.kind(), TxKind::Legacy155);
    assert_eq!(tx.chain_id(), Some(1));
    assert_eq!(tx.v(), 37);
    assert_eq!(tx.gas_price(), Some(U256::from(20_000_000_000u64)));
    assert_eq!(tx.value(), U256::from(10u64.pow(18)));
    assert_eq!(tx.to(), Some(&[0x35; 20]));
    assert_eq!(
        hex::encode(tx.signing_hash()),
        "daf5a779ae972f972197303d7b574746c7ef83eadac0f2791ad23db92e4c8e53"
    );
    assert_eq!(
        k1().recover_sender(&tx, true),
        Ok(addr("9d8a62f656a8d1615c1294fd71e9cfb3e4855a4f"))
    );
}

#[test]
fn mainnet_eip1559_raw() {
    // Mainnet tx 0x86718885c4b4218c6af87d3d0b0d83e3cc465df2a05c048aa4db9f1a6f9de91f (vector used by reth).
    let raw = h("02f872018307910d808507204d2cb1827d0094388c818ca8b9251b393131c08a736a67ccb19297880320d04823e2701c80c001a0cf024f4815304df2867a1a74e9d2707b6abda0337d2d54a4438d453f4160f190a07ac0e6b3bc9395b5b9c8b9e6d77204a236577a5b18467b9175c01de4faa208d9");
    let tx = TxView::decode_canonical(&raw).unwrap();
    assert_eq!(tx.kind(), TxKind::Eip1559);
    assert_eq!(tx.chain_id(), Some(1));
    assert_eq!(
        hex::encode(tx.hash()),
        "86718885c4b4218c6af87d3d0b0d83e3cc465df2a05c048aa4db9f1a6f9de91f"
    );
    assert_eq!(
        k1().recover_sender(&tx, true),
        Ok(addr("95222290DD7278Aa3Ddd389Cc1E1d165CC4BAfe5"))
    );
    // The same transaction as a body item (RLP string wrapping type || rlp) decodes to the same view.
    let item = TxRequest::body_item(&raw);
    let tx2 = TxView::decode(&item).unwrap();
    assert_eq!(tx2.canonical(), &raw[..]);
    assert_eq!(tx2.hash(), tx.hash());
}

#[test]
fn mainnet_eip1559_from_fields_through_the_encoder() {
    // Mainnet tx 0x0ec0b6a2df4d87424e5f6ad2a654e27aaeb7dac20ae9e8385cc09087ad532ee0 (alloy / reth examples),
    // given as fields: checks TxRequest's encoding byte for byte (the hash) and the signing hash (the sender).
    let req = TxRequest {
        tx_type: 2,
        chain_id: 1,
        nonce: 0x42,
        gas_limit: 44386,
        to: Some(addr("6069a6c32cf691f5982febae4faf8a6f3ab2f0f6")),
        value: U256::ZERO,
        input: h("a22cb4650000000000000000000000005eee75727d804a2b13038928d36f8b188945a57a0000000000000000000000000000000000000000000000000000000000000000"),
        max_fee_per_gas: U256::from(0x4a817c800u64),
        max_priority_fee_per_gas: U256::from(0x3b9aca00u64),
        ..Default::default()
    };
    let raw = req
        .encode_with_signature(
            0,
            u("840cfc572845f5786e702984c2a582528cad4b49b2a10b9db1be7fca90058565"),
            u("25e7109ceb98168d95b09b18bbf6b685130e0562f233877d492b94eee0c5b6d1"),
        )
        .unwrap();
    let tx = TxView::decode_canonical(&raw).unwrap();
    assert_eq!(
        hex::encode(tx.hash()),
        "0ec0b6a2df4d87424e5f6ad2a654e27aaeb7dac20ae9e8385cc09087ad532ee0"
    );
    assert_eq!(tx.signing_hash(), req.signing_hash().unwrap());
    assert_eq!(
        k1().recover_sender(&tx, true),
        Ok(addr("dd6b8b3dc6b7ad97db52f08a275ff4483e024cea"))
    );
}

#[test]
fn sepolia_eip4844_raw() {
    // Sepolia tx 0x9a22ccb0029bc8b0ddd073be1a1d923b7ae2b2ea52100bae0db4424f9107e9c0 (vector used by reth).
    let raw = h("03f9011d83aa36a7820fa28477359400852e90edd0008252089411e9ca82a3a762b4b5bd264d4173a242e7a770648080c08504a817c800f8a5a0012ec3d6f66766bedb002a190126b3549fce0047de0d4c25cffce0dc1c57921aa00152d8e24762ff22b1cfd9f8c0683786a7ca63ba49973818b3d1e9512cd2cec4a0013b98c6c83e066d5b14af2b85199e3d4fc7d1e778dd53130d180f5077e2d1c7a001148b495d6e859114e670ca54fb6e2657f0cbae5b08063605093a4b3dc9f8f1a0011ac212f13c5dff2b2c6b600a79635103d6f580a4221079951181b25c7e654901a0c8de4cced43169f9aa3d36506363b2d2c44f6c49fc1fd91ea114c86f3757077ea01e11fdd0d1934eda0492606ee0bb80a7bf8f35cc5f86ec60fe5031ba48bfd544");
    let tx = TxView::decode_canonical(&raw).unwrap();
    assert_eq!(tx.kind(), TxKind::Eip4844);
    assert_eq!(tx.chain_id(), Some(11_155_111));
    assert_eq!(
        hex::encode(tx.hash()),
        "9a22ccb0029bc8b0ddd073be1a1d923b7ae2b2ea52100bae0db4424f9107e9c0"
    );
    assert_eq!(
        tx.to(),
        Some(&addr("11E9CA82A3a762b4B5bd264d4173a242e7a77064"))
    );
    let blobs: Vec<String> = tx.blob_versioned_hashes().map(hex::encode).collect();
    assert_eq!(blobs.len(), 5);
    assert_eq!(
        blobs[0],
        "012ec3d6f66766bedb002a190126b3549fce0047de0d4c25cffce0dc1c57921a"
    );
    assert_eq!(
        blobs[4],
        "011ac212f13c5dff2b2c6b600a79635103d6f580a4221079951181b25c7e6549"
    );
    assert_eq!(
        tx.max_fee_per_blob_gas(),
        Some(U256::from(20_000_000_000u64))
    );
    assert_eq!(
        k1().recover_sender(&tx, true),
        Ok(addr("A83C816D4f9b2783761a22BA6FADB0eB0606D7B2"))
    );
}

#[test]
fn rinkeby_eip155_raw_hash() {
    // Chain 4 legacy transaction, hash 0xa517b206... (vector used by reth).
    let raw = h("f86b02843b9aca00830186a094d3e8763675e4c425df46cc3b5c0f6cbdac39604687038d7ea4c68000802ba00eb96ca19e8a77102767a41fc85a36afd5c61ccb09911cec5d3e86e193d9c5aea03a456401896b1b6055311536bf00a718568c744d8c1f9df59879e8350220ca18");
    let tx = TxView::decode(&raw).unwrap();
    assert_eq!(tx.kind(), TxKind::Legacy155);
    assert_eq!(tx.chain_id(), Some(4));
    assert_eq!(tx.nonce(), 2);
    assert_eq!(tx.gas_limit(), 100_000);
    assert_eq!(tx.value(), U256::from(1_000_000_000_000_000u64));
    assert_eq!(tx.y_parity(), Some(false));
    assert_eq!(
        hex::encode(tx.hash()),
        "a517b206d2223278f860ea017d3626cacad4f52ff51030dc9a96b432f17f8d34"
    );
    assert!(k1().recover_sender(&tx, true).is_ok());
}

#[test]
fn pre_homestead_high_s_recovers_only_before_homestead() {
    // Mainnet block 46170, tx 0x9e6e1963...: a frontier transaction whose s is above n/2 (EIP-2 would reject
    // it; it was valid when mined).
    let raw = h("f86d8085746a52880082520894c93f2250589a6563f5359051c1ea25746549f0d889208686e75e903bc000801ba034b6fdc33ea520e8123cf5ac4a9ff476f639cab68980cd9366ccae7aef437ea0a0e517caa5f50e27ca0d1e9a92c503b4ccb039680c6d9d0c71203ed611ea4feb33");
    let tx = TxView::decode(&raw).unwrap();
    assert_eq!(tx.kind(), TxKind::LegacyPre155);
    assert_eq!(tx.chain_id(), None);
    assert_eq!(
        hex::encode(tx.hash()),
        "9e6e19637bb625a8ff3d052b7c2fe57dc78c55a15d258d77c43d5a9c160b0384"
    );
    let before = k1().recover_sender(&tx, false);
    assert!(before.is_ok(), "{before:?}");
    assert_eq!(k1().recover_sender(&tx, true), Err(SenderError::HighS));
}

#[test]
fn goerli_create_body_item() {
    // A type-2 contract creation as it appears in a block body: an RLP string wrapping type || rlp(fields).
    let item = h("b901f202f901ee05228459682f008459682f11830209bf8080b90195608060405234801561001057600080fd5b50610175806100206000396000f3fe608060405234801561001057600080fd5b506004361061002b5760003560e01c80630c49c36c14610030575b600080fd5b61003861004e565b604051610045919061011d565b60405180910390f35b60606020600052600f6020527f68656c6c6f2073746174656d696e64000000000000000000000000000000000060405260406000f35b600081519050919050565b600082825260208201905092915050565b60005b838110156100be5780820151818401526020810190506100a3565b838111156100cd576000848401525b50505050565b6000601f19601f8301169050919050565b60006100ef82610084565b6100f9818561008f565b93506101098185602086016100a0565b610112816100d3565b840191505092915050565b6000602082019050818103600083015261013781846100e4565b90509291505056fea264697066735822122051449585839a4ea5ac23cae4552ef8a96b64ff59d0668f76bfac3796b2bdbb3664736f6c63430008090033c080a0136ebffaa8fc8b9fda9124de9ccb0b1f64e90fbd44251b4c4ac2501e60b104f9a07eb2999eec6d185ef57e91ed099afb0a926c5b536f0155dd67e537c7476e1471");
    let tx = TxView::decode(&item).unwrap();
    assert_eq!(tx.kind(), TxKind::Eip1559);
    assert_eq!(tx.chain_id(), Some(5));
    assert_eq!(tx.to(), None);
    assert_eq!(tx.input().len(), 0x195);
    assert_eq!(tx.canonical(), &item[3..]);
    assert!(k1().recover_sender(&tx, true).is_ok());
    // The body form is not the canonical form.
    assert_eq!(
        TxView::decode_canonical(&item).unwrap_err(),
        TxError::UnknownType(0xb9)
    );
}

#[test]
fn sign_then_recover_every_type() {
    let signer = k1();
    let key = test_key(SEED, 1);
    let me = address_of(&key, ALG).unwrap();
    for (name, req) in requests(ALG) {
        let canonical = req.sign_and_encode(&key, ALG).unwrap();
        // RFC 6979: the same seed gives byte-identical output.
        assert_eq!(canonical, req.sign_and_encode(&key, ALG).unwrap(), "{name}");
        let tx = TxView::decode_canonical(&canonical).unwrap();
        assert_eq!(tx.tx_type(), req.tx_type, "{name}");
        assert_eq!(tx.signing_hash(), req.signing_hash().unwrap(), "{name}");
        assert_eq!(signer.recover_sender(&tx, true), Ok(me), "{name}");
        assert_eq!(tx.nonce(), req.nonce, "{name}");
        assert_eq!(tx.value(), req.value, "{name}");
        assert_eq!(tx.to().copied(), req.to, "{name}");
        assert_eq!(tx.input(), &req.input[..], "{name}");
        assert_eq!(tx.gas_limit(), req.gas_limit, "{name}");
        let al: Vec<_> = tx
            .access_list()
            .map(|(a, keys)| (*a, keys.copied().collect::<Vec<_>>()))
            .collect();
        let want: Vec<_> = if req.tx_type == 0 {
            vec![]
        } else {
            req.access_list
                .iter()
                .map(|e| (e.address, e.storage_keys.clone()))
                .collect()
        };
        assert_eq!(al, want, "{name}");
        match tx.kind() {
            TxKind::LegacyPre155 => assert!(req.legacy_pre155 && [27, 28].contains(&tx.v())),
            TxKind::Legacy155 => assert_eq!(tx.chain_id(), Some(req.chain_id)),
            _ => assert_eq!(tx.chain_id(), Some(req.chain_id)),
        }
        // Body form: legacy as is, typed wrapped; same hash either way.
        let item = TxRequest::body_item(&canonical);
        let via_body = TxView::decode(&item).unwrap();
        assert_eq!(via_body.hash(), tx.hash(), "{name}");
        assert_eq!(signer.recover_sender(&via_body, true), Ok(me), "{name}");
        // EIP-7702 authorities.
        let authorities: Vec<_> = tx
            .authorizations()
            .map(|a| signer.recover_authority(&a))
            .collect();
        let want: Vec<_> = req
            .authorization_list
            .iter()
            .enumerate()
            .map(|(i, _)| Ok(address_of(&test_key(SEED, 100 + i as u32), ALG).unwrap()))
            .collect();
        assert_eq!(authorities, want, "{name}");
    }
}

#[test]
fn different_keys_give_different_senders() {
    let a = address_of(&test_key(SEED, 1), ALG).unwrap();
    let b = address_of(&test_key(SEED, 2), ALG).unwrap();
    let c = address_of(&test_key(SEED + 1, 1), ALG).unwrap();
    assert!(a != b && a != c && b != c);
    assert_eq!(test_key(SEED, 1), test_key(SEED, 1));
}

/// Re-signs `req`'s canonical form with chosen (v, r, s).
fn forged(req: &TxRequest, v: u64, r: U256, s: U256) -> Vec<u8> {
    req.encode_with_signature(v, r, s).unwrap()
}

#[test]
fn every_sender_error_kind() {
    let signer = k1();
    let key = test_key(SEED, 3);
    let me = address_of(&key, ALG).unwrap();
    let reqs = requests(ALG);
    let pre155 = &reqs[0].1;
    let typed = &reqs[3].1;
    let n = u(N);

    // A good pre-155 signature to start from.
    let good = pre155.sign_and_encode(&key, ALG).unwrap();
    let tx = TxView::decode(&good).unwrap();
    let (v, r, s) = (
        tx.v(),
        U256::from_be_slice(tx.r()),
        U256::from_be_slice(tx.s()),
    );
    let rec = |bytes: &[u8], homestead: bool| {
        signer.recover_sender(&TxView::decode(bytes).unwrap(), homestead)
    };
    assert_eq!(rec(&good, true), Ok(me));

    assert_eq!(
        rec(&forged(pre155, v, U256::ZERO, s), true),
        Err(SenderError::ZeroR)
    );
    assert_eq!(
        rec(&forged(pre155, v, r, U256::ZERO), true),
        Err(SenderError::ZeroS)
    );
    assert_eq!(
        rec(&forged(pre155, v, n, s), true),
        Err(SenderError::ROutOfRange)
    );
    assert_eq!(
        rec(&forged(pre155, v, r, n), true),
        Err(SenderError::SOutOfRange)
    );
    assert_eq!(
        rec(&forged(pre155, v, U256::MAX, s), true),
        Err(SenderError::ROutOfRange)
    );
    // The malleated twin (n - s, flipped parity) is the same signature: valid before Homestead, invalid
    // after it (EIP-2).
    let twin = forged(pre155, 55 - v, r, n - s);
    assert_eq!(rec(&twin, false), Ok(me));
    assert_eq!(rec(&twin, true), Err(SenderError::HighS));
    for bad_v in [0, 1, 26, 29, 34] {
        assert_eq!(
            rec(&forged(pre155, bad_v, r, s), false),
            Err(SenderError::BadV),
            "v={bad_v}"
        );
    }

    let good = typed.sign_and_encode(&key, ALG).unwrap();
    let t = TxView::decode_canonical(&good).unwrap();
    let (r, s) = (U256::from_be_slice(t.r()), U256::from_be_slice(t.s()));
    let rec_c =
        |bytes: &[u8]| signer.recover_sender(&TxView::decode_canonical(bytes).unwrap(), true);
    assert_eq!(rec_c(&good), Ok(me));
    assert_eq!(rec_c(&forged(typed, 2, r, s)), Err(SenderError::BadYParity));
    // Typed transactions are post-Homestead by construction: high s is always rejected.
    assert_eq!(
        rec_c(&forged(typed, 1 - t.v(), r, n - s)),
        Err(SenderError::HighS)
    );

    // NotRecoverable: an r that is not the x coordinate of any curve point (about half of all values).
    let unrecoverable = (1u64..64)
        .map(|x| rec_c(&forged(typed, 0, U256::from(x), U256::from(1u8))))
        .filter(|r| *r == Err(SenderError::NotRecoverable))
        .count();
    assert!(unrecoverable > 0);

    // Names are stable (they become a parquet column).
    assert_eq!(SenderError::HighS.name(), "high_s");
    assert_eq!(SenderError::NotRecoverable.name(), "not_recoverable");
}

#[test]
fn authority_errors() {
    use eraflow::execution::tx_request::SignedAuthorization;
    let signer = k1();
    let reqs = requests(ALG);
    let mut req = reqs[6].1.clone();
    let good = req.authorization_list[0].clone();
    let n = u(N);
    req.authorization_list = vec![
        SignedAuthorization {
            y_parity: 2,
            ..good.clone()
        },
        SignedAuthorization {
            y_parity: 1 - good.y_parity,
            s: n - good.s,
            ..good.clone()
        },
        SignedAuthorization {
            r: U256::ZERO,
            ..good.clone()
        },
        good,
    ];
    let raw = req.sign_and_encode(&test_key(SEED, 1), ALG).unwrap();
    let tx = TxView::decode_canonical(&raw).unwrap();
    let got: Vec<_> = tx
        .authorizations()
        .map(|a| signer.recover_authority(&a))
        .collect();
    assert_eq!(got[0], Err(SenderError::BadYParity));
    assert_eq!(got[1], Err(SenderError::HighS));
    assert_eq!(got[2], Err(SenderError::ZeroR));
    assert_eq!(got[3], Ok(address_of(&test_key(SEED, 100), ALG).unwrap()));
}

#[test]
fn switching_algorithm_after_init_is_an_error() {
    k1();
    assert_eq!(
        signer::init(SignatureAlgorithm::Secp256r1).unwrap_err(),
        SignerError::AlreadyInitialised {
            active: "secp256k1",
            requested: "secp256r1"
        }
    );
    assert!(std::ptr::eq(signer::global().unwrap(), k1()));
    assert_eq!(signer::initialisations(), 1);
}

#[test]
fn request_errors() {
    let bad_type = TxRequest {
        tx_type: 5,
        ..Default::default()
    };
    assert!(matches!(
        bad_type.sign_and_encode(&test_key(SEED, 1), ALG),
        Err(SignerError::BadRequest(_))
    ));
    let blob_create = TxRequest {
        tx_type: 3,
        to: None,
        ..Default::default()
    };
    assert!(matches!(
        blob_create.sign_and_encode(&test_key(SEED, 1), ALG),
        Err(SignerError::BadRequest(_))
    ));
    assert!(matches!(
        address_of(&[0u8; 32], ALG),
        Err(SignerError::BadSecretKey(_))
    ));
    assert_eq!(
        SignatureAlgorithm::from_name("ed25519").unwrap_err(),
        SignerError::UnknownAlgorithm("ed25519".into())
    );
    assert_eq!(
        SignatureAlgorithm::from_name("secp256r1"),
        Ok(SignatureAlgorithm::Secp256r1)
    );
}

// ---------------------------------------------------------------------------------------------------------
// Malformed input: typed errors, never a panic.

fn all_encodings() -> Vec<Vec<u8>> {
    requests(ALG)
        .into_iter()
        .map(|(_, r)| r.sign_and_encode(&test_key(SEED, 9), ALG).unwrap())
        .collect()
}

/// Re-wraps a field list payload of a canonical encoding (typed prefix kept).
fn rewrap(prefix: Option<u8>, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    if let Some(t) = prefix {
        out.push(t);
    }
    alloy_rlp::Header {
        list: true,
        payload_length: payload.len(),
    }
    .encode(&mut out);
    out.extend_from_slice(payload);
    out
}

fn split(canonical: &[u8]) -> (Option<u8>, Vec<u8>) {
    let (prefix, mut rest) = if canonical[0] < 0xc0 {
        (Some(canonical[0]), &canonical[1..])
    } else {
        (None, canonical)
    };
    let h = alloy_rlp::Header::decode(&mut rest).unwrap();
    (prefix, rest[..h.payload_length].to_vec())
}

#[test]
fn wrong_field_counts_trailing_bytes_and_bad_integers() {
    for enc in all_encodings() {
        let (prefix, fields) = split(&enc);
        // One extra field.
        let mut more = fields.clone();
        more.push(0x80);
        assert!(matches!(
            TxView::decode_canonical(&rewrap(prefix, &more)),
            Err(TxError::FieldCount { .. })
        ));
        // One field fewer (drop the trailing s: its encoding is 0xa0 + 32 bytes, or shorter).
        let last_len = {
            let mut b = &fields[..];
            let mut last = 0;
            while !b.is_empty() {
                let before = b.len();
                let h = alloy_rlp::Header::decode(&mut b).unwrap();
                b = &b[h.payload_length..];
                last = before - b.len();
            }
            last
        };
        let fewer = &fields[..fields.len() - last_len];
        match TxView::decode_canonical(&rewrap(prefix, fewer)) {
            Err(TxError::FieldCount {
                expected, found, ..
            }) => assert_eq!(found + 1, expected),
            other => panic!("expected FieldCount, got {other:?}"),
        }
        // Trailing bytes after the list.
        let mut trailing = enc.clone();
        trailing.push(0x00);
        assert_eq!(
            TxView::decode_canonical(&trailing).unwrap_err(),
            TxError::TrailingBytes {
                what: "transaction",
                count: 1
            }
        );
    }
    // Non-canonical integer: a nonce written as 0x82 0x00 0x07 instead of 0x07.
    let legacy = &all_encodings()[0];
    let (_, fields) = split(legacy);
    let mut f = vec![0x82, 0x00, 0x07];
    f.extend_from_slice(&fields[1..]);
    assert_eq!(
        TxView::decode_canonical(&rewrap(None, &f)).unwrap_err(),
        TxError::NonCanonicalInteger { field: "nonce" }
    );
    // A 9-byte nonce.
    let mut f = vec![0x89, 1, 2, 3, 4, 5, 6, 7, 8, 9];
    f.extend_from_slice(&fields[1..]);
    assert!(matches!(
        TxView::decode_canonical(&rewrap(None, &f)).unwrap_err(),
        TxError::IntegerTooLarge {
            field: "nonce",
            max: 8,
            found: 9
        }
    ));
    // Unknown types, empty input.
    assert_eq!(
        TxView::decode_canonical(&[0x05, 0xc0]).unwrap_err(),
        TxError::UnknownType(5)
    );
    assert_eq!(
        TxView::decode_canonical(&[0x7f]).unwrap_err(),
        TxError::UnknownType(0x7f)
    );
    assert_eq!(TxView::decode_canonical(&[]).unwrap_err(), TxError::Empty);
    assert_eq!(TxView::decode(&[0x80]).unwrap_err(), TxError::Empty);
    // Error messages say what was expected and what was found.
    let msg = TxView::decode_canonical(&rewrap(Some(2), &[0x80]))
        .unwrap_err()
        .to_string();
    assert!(msg.contains("expected 12 fields, found 1"), "{msg}");
}

#[test]
fn truncations_and_mutations_never_panic() {
    let signer = k1();
    let mut decoded_ok = 0usize;
    for enc in all_encodings() {
        let item = TxRequest::body_item(&enc);
        // Every strict prefix is an error, in both forms.
        for cut in 0..enc.len() {
            assert!(TxView::decode_canonical(&enc[..cut]).is_err(), "cut {cut}");
        }
        for cut in 0..item.len() {
            assert!(TxView::decode(&item[..cut]).is_err(), "cut {cut}");
        }
        // Byte mutations: may decode (e.g. a changed value) or not, but never panic, and whatever decodes
        // can be hashed, iterated and recovered.
        for i in 0..enc.len() {
            for x in [0x01u8, 0x80, 0xff] {
                let mut m = enc.clone();
                m[i] ^= x;
                if let Ok(tx) = TxView::decode_canonical(&m) {
                    decoded_ok += 1;
                    let _ = tx.hash();
                    let _ = tx.signing_hash();
                    let _ = tx.access_list().map(|(_, k)| k.count()).sum::<usize>();
                    let _ = tx.blob_versioned_hashes().count();
                    tx.authorizations().for_each(|a| {
                        let _ = a.signing_hash();
                    });
                    let _ = signer.recover_sender(&tx, i % 2 == 0);
                }
            }
        }
    }
    assert!(decoded_ok > 0);
}
