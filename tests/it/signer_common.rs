//! Shared builders for the signer tests: one request of every transaction type, keys from the generator.
#![allow(dead_code)]

use alloy_primitives::U256;
use eraflow::crypto::signer::{test_key, SignatureAlgorithm};
use eraflow::execution::tx_request::{AccessListEntry, SignedAuthorization, TxRequest};

/// The same seed the synthetic generator would use in tests.
pub const SEED: u64 = 0x5eed;

/// One request per kind: pre-155 legacy, EIP-155 legacy (contract creation), 2930, 1559, 4844, 7702.
pub fn requests(alg: SignatureAlgorithm) -> Vec<(&'static str, TxRequest)> {
    let al = vec![
        AccessListEntry {
            address: [0x11; 20],
            storage_keys: vec![[0x22; 32], [0x33; 32]],
        },
        AccessListEntry {
            address: [0x44; 20],
            storage_keys: vec![],
        },
    ];
    let base = TxRequest {
        chain_id: 11_155_111,
        nonce: 7,
        gas_price: U256::from(20_000_000_000u64),
        max_priority_fee_per_gas: U256::from(1_500_000_000u64),
        max_fee_per_gas: U256::from(30_000_000_000u64),
        gas_limit: 100_000,
        to: Some([0xaa; 20]),
        // A large value (above 2^64) exercises the U256 paths.
        value: U256::from(u128::MAX) * U256::from(3u8),
        input: b"\x60\x80\x60\x40 some call data that is long enough to need a long string header, 0123456789"
            .to_vec(),
        ..Default::default()
    };
    let auths = vec![
        SignedAuthorization::sign(
            U256::from(11_155_111u64),
            [0xbb; 20],
            0,
            &test_key(SEED, 100),
            alg,
        )
        .unwrap(),
        SignedAuthorization::sign(U256::ZERO, [0xcc; 20], 12, &test_key(SEED, 101), alg).unwrap(),
    ];
    vec![
        (
            "legacy-pre155",
            TxRequest {
                tx_type: 0,
                legacy_pre155: true,
                nonce: 0,
                value: U256::ZERO,
                input: vec![],
                ..base.clone()
            },
        ),
        (
            "legacy-155-create",
            TxRequest {
                tx_type: 0,
                to: None,
                ..base.clone()
            },
        ),
        (
            "eip2930",
            TxRequest {
                tx_type: 1,
                access_list: al.clone(),
                ..base.clone()
            },
        ),
        (
            "eip1559",
            TxRequest {
                tx_type: 2,
                access_list: al.clone(),
                ..base.clone()
            },
        ),
        (
            "eip1559-create",
            TxRequest {
                tx_type: 2,
                to: None,
                ..base.clone()
            },
        ),
        (
            "eip4844",
            TxRequest {
                tx_type: 3,
                access_list: al.clone(),
                max_fee_per_blob_gas: U256::from(3u8),
                blob_versioned_hashes: vec![[0x01; 32], [0x02; 32]],
                ..base.clone()
            },
        ),
        (
            "eip7702",
            TxRequest {
                tx_type: 4,
                access_list: al,
                authorization_list: auths,
                ..base
            },
        ),
    ]
}
