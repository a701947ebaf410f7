//! No allocation per transaction on the recovery hot path: a counting global allocator shows that decoding a
//! `TxView`, streaming its signing hash and recovering its sender allocate nothing, and that a batch's
//! allocations do not grow with its length (the output buffer is reused) — on both secp256k1 backends: the
//! process signer (libsecp256k1, the default) and a k256 signer built beside it.

#[path = "it/signer_common.rs"]
mod signer_common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use eraflow::crypto::signer::{self, test_key, SignatureAlgorithm, Signer, SignerBackend};
use eraflow::execution::transaction::TxView;
use signer_common::{requests, SEED};

struct Counting;

static ALLOCS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn recovery_allocates_nothing_per_transaction() {
    let alg = SignatureAlgorithm::Secp256k1;
    let process = signer::init(alg).unwrap();
    assert_eq!(process.implementation(), "libsecp256k1");
    let k256 = Signer::new(alg, SignerBackend::K256);
    let encodings: Vec<Vec<u8>> = (0..64u32)
        .flat_map(|i| {
            requests(alg)
                .into_iter()
                .map(move |(_, r)| r.sign_and_encode(&test_key(SEED, i), alg).unwrap())
        })
        .collect();
    for signer in [process, &k256] {
        let name = signer.implementation();
        // Per transaction, on this thread: zero allocations.
        let before = ALLOCS.load(Ordering::Relaxed);
        let mut ok = 0;
        for e in &encodings {
            let tx = TxView::decode_canonical(e).unwrap();
            ok += usize::from(signer.recover_sender(&tx, true).is_ok());
            for a in tx.authorizations() {
                ok += usize::from(signer.recover_authority(&a).is_ok());
            }
        }
        let per_tx = ALLOCS.load(Ordering::Relaxed) - before;
        assert!(ok >= encodings.len(), "{name}");
        assert_eq!(
            per_tx,
            0,
            "{name}: allocations while recovering {} txs",
            encodings.len()
        );
    }

    // Batches on a 2-thread pool (built only now: its threads allocate as they start): allocations (rayon
    // bookkeeping) do not grow with the batch length.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    for signer in [process, &k256] {
        let name = signer.implementation();
        let txs: Vec<TxView> = encodings
            .iter()
            .map(|e| TxView::decode_canonical(e).unwrap())
            .collect();
        let flags = vec![true; txs.len()];
        let mut out = Vec::with_capacity(txs.len());
        pool.install(|| signer.recover_batch(&txs, &flags, &mut out))
            .unwrap(); // warm up
        let mut count = |n: usize| {
            let before = ALLOCS.load(Ordering::Relaxed);
            pool.install(|| signer.recover_batch(&txs[..n], &flags[..n], &mut out))
                .unwrap();
            ALLOCS.load(Ordering::Relaxed) - before
        };
        let small = count(16);
        let large = count(txs.len());
        assert!(
            large <= small + 8,
            "{name}: batch of 16: {small} allocations, batch of {}: {large}",
            txs.len()
        );
    }
}
