//! Sender recovery beside its floors, in one run (issues 3 and 12):
//! - floors: raw libsecp256k1 `recover_ecdsa` (context built once) and raw k256
//!   `VerifyingKey::recover_from_prehash`, each + keccak of the public key, per op;
//! - eraflow: decode the `TxView`, stream the signing hash, recover through the process signer (libsecp256k1,
//!   the default backend; goal >= 0.95 of raw libsecp256k1), and through a k256 signer built beside it;
//! - batch over rayon, 1 vs 2 threads (goal >= 1.85x);
//! - p256 (secp256r1) raw recovery per op;
//! - the anti-pattern: the algorithm looked up and constructed per transaction (config parse + boxed trait
//!   object), and libsecp256k1 with a context built per transaction versus once.
//!
//! Run: `CARGO_TARGET_DIR=target cargo bench --features bench --bench signer`

use std::hint::black_box;

use alloy_primitives::U256;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use eraflow::crypto::keccak::keccak256;
use eraflow::crypto::signer::{
    self, test_key, SenderError, SignatureAlgorithm, Signer, SignerBackend,
};
use eraflow::execution::transaction::TxView;
use eraflow::execution::tx_request::{AccessListEntry, TxRequest};

const TXS: usize = 256;

/// A mix of transaction kinds as a pre-merge/post-merge block would hold, signed with generator keys.
fn encodings(alg: SignatureAlgorithm) -> Vec<Vec<u8>> {
    (0..TXS as u32)
        .map(|i| {
            let req = TxRequest {
                tx_type: [0u8, 0, 1, 2, 2, 2, 3, 4][i as usize % 8],
                legacy_pre155: i % 8 == 0,
                chain_id: 1,
                nonce: u64::from(i),
                gas_price: U256::from(20_000_000_000u64),
                max_priority_fee_per_gas: U256::from(1_000_000_000u64),
                max_fee_per_gas: U256::from(40_000_000_000u64),
                gas_limit: 21_000 + u64::from(i),
                to: Some([i as u8; 20]),
                value: U256::from(10u64.pow(18)) * U256::from(i + 1),
                input: vec![0xab; (i as usize * 7) % 200],
                access_list: vec![AccessListEntry {
                    address: [0x42; 20],
                    storage_keys: vec![[0x24; 32]],
                }],
                blob_versioned_hashes: vec![[1; 32]],
                ..Default::default()
            };
            req.sign_and_encode(&test_key(1, i), alg).unwrap()
        })
        .collect()
}

fn k1_recover_raw(
    hash: &[u8; 32],
    sig: &k256::ecdsa::Signature,
    id: k256::ecdsa::RecoveryId,
) -> [u8; 20] {
    let vk = k256::ecdsa::VerifyingKey::recover_from_prehash(hash, sig, id).unwrap();
    let h = keccak256(&vk.to_sec1_point(false).as_bytes()[1..]);
    h[12..].try_into().unwrap()
}

fn p1_recover_raw(
    hash: &[u8; 32],
    sig: &p256::ecdsa::Signature,
    id: p256::ecdsa::RecoveryId,
) -> [u8; 20] {
    let vk = p256::ecdsa::VerifyingKey::recover_from_prehash(hash, sig, id).unwrap();
    let h = keccak256(&vk.to_sec1_point(false).as_bytes()[1..]);
    h[12..].try_into().unwrap()
}

fn pad32(p: &[u8]) -> [u8; 32] {
    let mut out = [0u8; 32];
    out[32 - p.len()..].copy_from_slice(p);
    out
}

/// What a careless pipeline does per transaction: read the algorithm from the network config, look it up,
/// build a boxed implementation, then recover.
trait Recoverer {
    fn recover(&self, tx: &TxView<'_>) -> Result<[u8; 20], SenderError>;
}

struct K1PerTx;

impl Recoverer for K1PerTx {
    fn recover(&self, tx: &TxView<'_>) -> Result<[u8; 20], SenderError> {
        let sig = k256::ecdsa::Signature::from_scalars(pad32(tx.r()), pad32(tx.s()))
            .map_err(|_| SenderError::NotRecoverable)?;
        let id = k256::ecdsa::RecoveryId::new(tx.y_parity().ok_or(SenderError::BadV)?, false);
        Ok(k1_recover_raw(&tx.signing_hash().0, &sig, id))
    }
}

const NETWORK_TOML: &str = r#"
name = "mainnet"
chain_id = 1
signature_algorithm = "secp256k1"
"#;

fn lookup_per_tx() -> Box<dyn Recoverer> {
    let cfg: toml::Table = toml::from_str(NETWORK_TOML).unwrap();
    let name = cfg["signature_algorithm"].as_str().unwrap();
    match SignatureAlgorithm::from_name(name).unwrap() {
        SignatureAlgorithm::Secp256k1 => Box::new(K1PerTx),
        SignatureAlgorithm::Secp256r1 => unimplemented!(),
    }
}

fn bench(c: &mut Criterion) {
    let signer = signer::init(SignatureAlgorithm::Secp256k1).unwrap();
    assert_eq!(signer.implementation(), "libsecp256k1");
    let k256_signer = Signer::new(SignatureAlgorithm::Secp256k1, SignerBackend::K256);
    let k1_txs = encodings(SignatureAlgorithm::Secp256k1);
    let views: Vec<TxView> = k1_txs
        .iter()
        .map(|e| TxView::decode_canonical(e).unwrap())
        .collect();
    let floor_inputs: Vec<_> = views
        .iter()
        .map(|tx| {
            (
                tx.signing_hash().0,
                k256::ecdsa::Signature::from_scalars(pad32(tx.r()), pad32(tx.s())).unwrap(),
                k256::ecdsa::RecoveryId::new(tx.y_parity().unwrap(), false),
            )
        })
        .collect();
    let r1_inputs: Vec<_> = encodings(SignatureAlgorithm::Secp256r1)
        .iter()
        .map(|e| {
            let tx = TxView::decode_canonical(e).unwrap();
            (
                tx.signing_hash().0,
                p256::ecdsa::Signature::from_scalars(pad32(tx.r()), pad32(tx.s())).unwrap(),
                p256::ecdsa::RecoveryId::new(tx.y_parity().unwrap(), false),
            )
        })
        .collect();
    // Sanity: eraflow, the floor and the anti-pattern agree.
    for (tx, (h, s, id)) in views.iter().zip(&floor_inputs) {
        let a = signer.recover_sender(tx, true).unwrap();
        assert_eq!(a, k1_recover_raw(h, s, id.to_owned()));
        assert_eq!(Ok(a), lookup_per_tx().recover(tx));
        assert_eq!(Ok(a), k256_signer.recover_sender(tx, true));
    }

    let mut g = c.benchmark_group("recover_per_op");
    g.throughput(Throughput::Elements(1));
    let mut i = 0usize;
    g.bench_function("floor_k256_recover_prehash_keccak", |b| {
        b.iter(|| {
            i = (i + 1) % TXS;
            let (h, s, id) = &floor_inputs[i];
            black_box(k1_recover_raw(black_box(h), s, *id))
        })
    });
    g.bench_function("eraflow_decode_signing_hash_recover_libsecp256k1", |b| {
        b.iter(|| {
            i = (i + 1) % TXS;
            let tx = TxView::decode_canonical(black_box(&k1_txs[i])).unwrap();
            black_box(signer.recover_sender(&tx, true))
        })
    });
    g.bench_function("eraflow_decode_signing_hash_recover_k256", |b| {
        b.iter(|| {
            i = (i + 1) % TXS;
            let tx = TxView::decode_canonical(black_box(&k1_txs[i])).unwrap();
            black_box(k256_signer.recover_sender(&tx, true))
        })
    });
    g.bench_function("antipattern_config_lookup_and_box_per_tx", |b| {
        b.iter(|| {
            i = (i + 1) % TXS;
            let tx = TxView::decode_canonical(black_box(&k1_txs[i])).unwrap();
            black_box(lookup_per_tx().recover(&tx))
        })
    });
    g.bench_function("p256_recover_prehash_keccak", |b| {
        b.iter(|| {
            i = (i + 1) % TXS;
            let (h, s, id) = &r1_inputs[i];
            black_box(p1_recover_raw(black_box(h), s, *id))
        })
    });

    // The libsecp256k1 floor, and its classic anti-pattern: a context built per transaction.
    let secp_inputs: Vec<_> = views
        .iter()
        .map(|tx| {
            let mut rs = [0u8; 64];
            rs[..32].copy_from_slice(&pad32(tx.r()));
            rs[32..].copy_from_slice(&pad32(tx.s()));
            let id =
                secp256k1::ecdsa::RecoveryId::try_from(i32::from(tx.y_parity().unwrap())).unwrap();
            (
                secp256k1::Message::from_digest(tx.signing_hash().0),
                secp256k1::ecdsa::RecoverableSignature::from_compact(&rs, id).unwrap(),
            )
        })
        .collect();
    let ctx = secp256k1::Secp256k1::verification_only();
    let secp_addr = |ctx: &secp256k1::Secp256k1<secp256k1::VerifyOnly>, k: usize| {
        let (m, s) = &secp_inputs[k];
        let pk = ctx.recover_ecdsa(*m, s).unwrap();
        let h = keccak256(&pk.serialize_uncompressed()[1..]);
        <[u8; 20]>::try_from(&h[12..]).unwrap()
    };
    assert_eq!(
        secp_addr(&ctx, 0),
        signer.recover_sender(&views[0], true).unwrap()
    );
    g.bench_function("floor_libsecp256k1_context_once", |b| {
        b.iter(|| {
            i = (i + 1) % TXS;
            black_box(secp_addr(&ctx, i))
        })
    });
    g.bench_function("antipattern_libsecp256k1_context_per_tx", |b| {
        b.iter(|| {
            i = (i + 1) % TXS;
            let ctx = secp256k1::Secp256k1::verification_only();
            black_box(secp_addr(&ctx, i))
        })
    });
    g.finish();

    let mut g = c.benchmark_group("recover_batch");
    g.throughput(Throughput::Elements(TXS as u64));
    let flags = vec![true; TXS];
    let mut out = Vec::with_capacity(TXS);
    for threads in [1usize, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        g.bench_function(format!("threads_{threads}"), |b| {
            b.iter(|| {
                pool.install(|| signer.recover_batch(&views, &flags, &mut out))
                    .unwrap();
                black_box(&out);
            })
        });
    }
    g.finish();
    assert_eq!(signer::initialisations(), 1);
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(4));
    targets = bench
}
criterion_main!(benches);
