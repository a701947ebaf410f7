//! One initialisation per process: many rayon workers on several threads all borrow the same signer, and the
//! initialisation counter stays at exactly 1. Batches give the same results on 1 and 2 threads.

#[path = "it/signer_common.rs"]
mod signer_common;

use eraflow::crypto::signer::{
    self, address_of, test_key, SignatureAlgorithm, SignerBackend, SignerError,
};
use eraflow::execution::transaction::TxView;
use rayon::prelude::*;
use signer_common::{requests, SEED};

#[test]
fn one_initialisation_across_a_multithreaded_run() {
    // Nothing has initialised it yet in this process.
    assert_eq!(signer::global().unwrap_err(), SignerError::NotInitialised);
    assert_eq!(signer::initialisations(), 0);

    let alg = SignatureAlgorithm::Secp256k1;
    let encodings: Vec<(Vec<u8>, [u8; 20])> = (0..48u32)
        .map(|i| {
            let key = test_key(SEED, i);
            let reqs = requests(alg);
            let (_, req) = &reqs[i as usize % reqs.len()];
            (
                req.sign_and_encode(&key, alg).unwrap(),
                address_of(&key, alg).unwrap(),
            )
        })
        .collect();

    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .unwrap();
    // Every worker races to initialise (as a careless pipeline would); exactly one Signer gets built.
    let results: Vec<(usize, bool)> = pool.install(|| {
        encodings
            .par_iter()
            .map(|(enc, want)| {
                let s = signer::init(alg).unwrap();
                let tx = TxView::decode_canonical(enc).unwrap();
                (
                    s as *const _ as usize,
                    s.recover_sender(&tx, true) == Ok(*want),
                )
            })
            .collect()
    });
    assert!(results.iter().all(|(_, ok)| *ok));
    let first = results[0].0;
    assert!(
        results.iter().all(|(p, _)| *p == first),
        "all workers share one instance"
    );
    assert_eq!(signer::initialisations(), 1);
    // Built with the default backend (one libsecp256k1 context); the same backend asked for explicitly is the
    // same instance, another is an error, never a second build or a swap.
    let s = signer::global().unwrap();
    assert_eq!(s.implementation(), "libsecp256k1");
    assert!(std::ptr::eq(
        signer::init_with(alg, SignerBackend::Libsecp256k1).unwrap(),
        s
    ));
    assert_eq!(
        signer::init_with(alg, SignerBackend::K256).unwrap_err(),
        SignerError::BackendAlreadyInitialised {
            active: "libsecp256k1",
            requested: "k256"
        }
    );
    assert_eq!(signer::initialisations(), 1);

    // Batch API: same answers on 1 and 2 threads, output buffer reused.
    let signer = signer::global().unwrap();
    let txs: Vec<TxView> = encodings
        .iter()
        .map(|(e, _)| TxView::decode_canonical(e).unwrap())
        .collect();
    let flags = vec![true; txs.len()];
    let mut out1 = Vec::new();
    let mut out2 = Vec::with_capacity(txs.len());
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let out = if threads == 1 { &mut out1 } else { &mut out2 };
        pool.install(|| signer.recover_batch(&txs, &flags, out))
            .unwrap();
    }
    assert_eq!(out1, out2);
    let want: Vec<_> = encodings.iter().map(|(_, a)| Ok(*a)).collect();
    assert_eq!(out1, want);
    assert_eq!(
        signer
            .recover_batch(&txs, &flags[1..], &mut out1)
            .unwrap_err(),
        SignerError::BatchLength { txs: 48, flags: 47 }
    );
    assert_eq!(signer::initialisations(), 1);
}
