//! The two secp256k1 backends, libsecp256k1 (the default) and k256, give the same sender or the same
//! per-transaction error on every case the tests have: every transaction kind and EIP-7702 authority, known
//! vectors from real chains including a pre-Homestead high-s signature, invalid and malleable signatures (zero,
//! at or above n, high s, the malleated twin, r that is no curve point), a grid of edge values and a
//! pseudo-random sweep straight into `recover_prehash`, byte mutations of every encoding, every transaction of
//! the real era1 files; and `eraflow export` with either backend writes byte-identical Parquet for real era1
//! files and synthetic era1 and era files (every kind, authorities).
//!
//! Both signers here are built with `Signer::new` beside the process signer: this binary's process signer is
//! the default one, and the exports run `eraflow` in processes of their own.

use crate::signer_common::{requests, SEED};
use alloy_primitives::U256;
use arrow_array::Array;
use eraflow::consensus::Fork;
use eraflow::crypto::keccak::keccak256;
use eraflow::crypto::signer::{
    address_of, test_key, SenderError, SignatureAlgorithm, Signer, SignerBackend,
};
use eraflow::execution::body::BodyView;
use eraflow::execution::transaction::TxView;
use eraflow::execution::tx_request::{SignedAuthorization, TxRequest};
use eraflow::formats::era1::Era1File;
use eraflow::formats::execution::{decompress, BlockDecoders};
use eraflow::formats::ArchiveName;
use eraflow::formats::MappedArchive;
use eraflow::network::Network;
use std::path::{Path, PathBuf};
use std::process::Command;

const ALG: SignatureAlgorithm = SignatureAlgorithm::Secp256k1;
/// secp256k1 order n.
const N: &str = "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141";
/// secp256k1 field prime p (r in [n, p) is an x coordinate libsecp256k1 would accept with recovery id 2 or 3).
const P: &str = "fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f";

/// libsecp256k1 and k256 signers, built once, outside the process signer.
struct Both {
    libsecp: Signer,
    k256: Signer,
}

impl Both {
    fn new() -> Both {
        let b = Both {
            libsecp: Signer::new(ALG, SignerBackend::Libsecp256k1),
            k256: Signer::new(ALG, SignerBackend::K256),
        };
        assert_eq!(
            (b.libsecp.implementation(), b.k256.implementation()),
            ("libsecp256k1", "k256")
        );
        b
    }

    /// The sender of `tx` on both backends, asserted equal; returned for further checks.
    fn sender(
        &self,
        tx: &TxView<'_>,
        homestead: bool,
        what: &str,
    ) -> Result<[u8; 20], SenderError> {
        let a = self.libsecp.recover_sender(tx, homestead);
        let b = self.k256.recover_sender(tx, homestead);
        assert_eq!(a, b, "{what} (homestead {homestead}): libsecp256k1 vs k256");
        a
    }

    /// Every authority of `tx` on both backends, asserted equal.
    fn authorities(&self, tx: &TxView<'_>, what: &str) -> Vec<Result<[u8; 20], SenderError>> {
        tx.authorizations()
            .map(|a| {
                let x = self.libsecp.recover_authority(&a);
                assert_eq!(x, self.k256.recover_authority(&a), "{what}: authority");
                x
            })
            .collect()
    }

    fn prehash(
        &self,
        hash: &[u8; 32],
        r: &[u8],
        s: &[u8],
        y_odd: bool,
        low_s: bool,
    ) -> Result<[u8; 20], SenderError> {
        let a = self.libsecp.recover_prehash(hash, r, s, y_odd, low_s);
        let b = self.k256.recover_prehash(hash, r, s, y_odd, low_s);
        assert_eq!(
            a,
            b,
            "hash {} r {} s {} y_odd {y_odd} low_s {low_s}",
            hex::encode(hash),
            hex::encode(r),
            hex::encode(s)
        );
        a
    }
}

fn h(s: &str) -> Vec<u8> {
    hex::decode(s.trim_start_matches("0x")).unwrap()
}

fn u(s: &str) -> U256 {
    U256::from_str_radix(s, 16).unwrap()
}

fn be(x: U256) -> [u8; 32] {
    x.to_be_bytes::<32>()
}

#[test]
fn every_kind_and_authority_agree() {
    let both = Both::new();
    for i in 0..8u32 {
        let key = test_key(SEED, i);
        let me = address_of(&key, ALG).unwrap();
        for (name, req) in requests(ALG) {
            let canonical = req.sign_and_encode(&key, ALG).unwrap();
            let tx = TxView::decode_canonical(&canonical).unwrap();
            for homestead in [false, true] {
                assert_eq!(both.sender(&tx, homestead, name), Ok(me), "{name}");
            }
            let item = TxRequest::body_item(&canonical);
            let via_body = TxView::decode(&item).unwrap();
            assert_eq!(both.sender(&via_body, true, name), Ok(me));
            let want: Vec<_> = (0..req.authorization_list.len())
                .map(|j| Ok(address_of(&test_key(SEED, 100 + j as u32), ALG).unwrap()))
                .collect();
            assert_eq!(both.authorities(&tx, name), want, "{name}");
        }
    }
}

#[test]
fn known_vectors_and_pre_homestead_high_s_agree() {
    let both = Both::new();
    // Frontier transaction with s above n/2 (mainnet block 46170): recovers before Homestead only.
    let frontier = h("f86d8085746a52880082520894c93f2250589a6563f5359051c1ea25746549f0d889208686e75e903bc000801ba034b6fdc33ea520e8123cf5ac4a9ff476f639cab68980cd9366ccae7aef437ea0a0e517caa5f50e27ca0d1e9a92c503b4ccb039680c6d9d0c71203ed611ea4feb33");
    let tx = TxView::decode(&frontier).unwrap();
    assert!(both.sender(&tx, false, "frontier high s").is_ok());
    assert_eq!(
        both.sender(&tx, true, "frontier high s"),
        Err(SenderError::HighS)
    );
    for (what, raw, sender) in [
        ("eip155 text", "f86c098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a76400008025a028ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276a067cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83", "9d8a62f656a8d1615c1294fd71e9cfb3e4855a4f"),
        ("mainnet 1559", "02f872018307910d808507204d2cb1827d0094388c818ca8b9251b393131c08a736a67ccb19297880320d04823e2701c80c001a0cf024f4815304df2867a1a74e9d2707b6abda0337d2d54a4438d453f4160f190a07ac0e6b3bc9395b5b9c8b9e6d77204a236577a5b18467b9175c01de4faa208d9", "95222290dd7278aa3ddd389cc1e1d165cc4bafe5"),
        ("sepolia 4844", "03f9011d83aa36a7820fa28477359400852e90edd0008252089411e9ca82a3a762b4b5bd264d4173a242e7a770648080c08504a817c800f8a5a0012ec3d6f66766bedb002a190126b3549fce0047de0d4c25cffce0dc1c57921aa00152d8e24762ff22b1cfd9f8c0683786a7ca63ba49973818b3d1e9512cd2cec4a0013b98c6c83e066d5b14af2b85199e3d4fc7d1e778dd53130d180f5077e2d1c7a001148b495d6e859114e670ca54fb6e2657f0cbae5b08063605093a4b3dc9f8f1a0011ac212f13c5dff2b2c6b600a79635103d6f580a4221079951181b25c7e654901a0c8de4cced43169f9aa3d36506363b2d2c44f6c49fc1fd91ea114c86f3757077ea01e11fdd0d1934eda0492606ee0bb80a7bf8f35cc5f86ec60fe5031ba48bfd544", "a83c816d4f9b2783761a22ba6fadb0eb0606d7b2"),
    ] {
        let raw = h(raw);
        let tx = TxView::decode_canonical(&raw).unwrap();
        let got = both.sender(&tx, true, what).unwrap();
        assert_eq!(hex::encode(got), sender, "{what}");
    }
}

/// Re-signs `req`'s canonical form with chosen (v, r, s).
fn forged(req: &TxRequest, v: u64, r: U256, s: U256) -> Vec<u8> {
    req.encode_with_signature(v, r, s).unwrap()
}

#[test]
fn invalid_and_malleable_signatures_agree() {
    let both = Both::new();
    let key = test_key(SEED, 3);
    let me = address_of(&key, ALG).unwrap();
    let reqs = requests(ALG);
    let (pre155, typed) = (&reqs[0].1, &reqs[3].1);
    let n = u(N);
    let half = n >> 1;

    let good = pre155.sign_and_encode(&key, ALG).unwrap();
    let tx = TxView::decode(&good).unwrap();
    let (v, r, s) = (
        tx.v(),
        U256::from_be_slice(tx.r()),
        U256::from_be_slice(tx.s()),
    );
    let rec = |bytes: &[u8], homestead: bool, what: &str| {
        both.sender(&TxView::decode(bytes).unwrap(), homestead, what)
    };
    for homestead in [false, true] {
        assert_eq!(rec(&good, homestead, "good"), Ok(me));
        for (what, rr, ss, want) in [
            ("zero r", U256::ZERO, s, Some(SenderError::ZeroR)),
            ("zero s", r, U256::ZERO, Some(SenderError::ZeroS)),
            (
                "zero r and s",
                U256::ZERO,
                U256::ZERO,
                Some(SenderError::ZeroR),
            ),
            ("r = n", n, s, Some(SenderError::ROutOfRange)),
            ("s = n", r, n, Some(SenderError::SOutOfRange)),
            (
                "r = n + 1",
                n + U256::from(1u8),
                s,
                Some(SenderError::ROutOfRange),
            ),
            (
                "r = p - 1",
                u(P) - U256::from(1u8),
                s,
                Some(SenderError::ROutOfRange),
            ),
            ("r = max", U256::MAX, s, Some(SenderError::ROutOfRange)),
            ("s = max", r, U256::MAX, Some(SenderError::SOutOfRange)),
            ("r = n - 1", n - U256::from(1u8), s, None),
            ("s = n / 2", r, half, None),
            ("s = n / 2 + 1", r, half + U256::from(1u8), None),
            ("s = n - 1", r, n - U256::from(1u8), None),
            ("r = 1", U256::from(1u8), s, None),
        ] {
            let got = rec(&forged(pre155, v, rr, ss), homestead, what);
            if let Some(e) = want {
                assert_eq!(got, Err(e), "{what}");
            }
        }
        // The malleated twin (n - s, flipped parity): the same signature, valid only before Homestead.
        let twin = rec(&forged(pre155, 55 - v, r, n - s), homestead, "twin");
        assert_eq!(
            twin,
            if homestead {
                Err(SenderError::HighS)
            } else {
                Ok(me)
            }
        );
        // The twin's s with the original parity recovers someone else (or nothing), identically.
        let _ = rec(&forged(pre155, v, r, n - s), false, "twin, parity kept");
        for bad_v in [0, 1, 26, 29, 34] {
            assert_eq!(
                rec(&forged(pre155, bad_v, r, s), homestead, "bad v"),
                Err(SenderError::BadV)
            );
        }
    }

    let good = typed.sign_and_encode(&key, ALG).unwrap();
    let t = TxView::decode_canonical(&good).unwrap();
    let (r, s) = (U256::from_be_slice(t.r()), U256::from_be_slice(t.s()));
    let rec_c = |bytes: &[u8], what: &str| {
        both.sender(&TxView::decode_canonical(bytes).unwrap(), true, what)
    };
    assert_eq!(rec_c(&good, "typed"), Ok(me));
    assert_eq!(
        rec_c(&forged(typed, 2, r, s), "y parity 2"),
        Err(SenderError::BadYParity)
    );
    assert_eq!(
        rec_c(&forged(typed, 1 - t.v(), r, n - s), "typed twin"),
        Err(SenderError::HighS)
    );
    // r values that are not the x of any curve point: NotRecoverable on both, the others recover identically.
    let mut unrecoverable = 0;
    for x in 1u64..128 {
        for parity in [0, 1] {
            let got = rec_c(
                &forged(typed, parity, U256::from(x), U256::from(x * 7 + 1)),
                "small r",
            );
            unrecoverable += usize::from(got == Err(SenderError::NotRecoverable));
        }
    }
    assert!(unrecoverable > 0);

    // EIP-7702 authorities: bad parity, the high-s twin, zero r and s, r and s at n, and the good one.
    let mut req = reqs[6].1.clone();
    let a = req.authorization_list[0].clone();
    let with = |f: &dyn Fn(&mut SignedAuthorization)| {
        let mut x = a.clone();
        f(&mut x);
        x
    };
    req.authorization_list = vec![
        with(&|x| x.y_parity = 2),
        with(&|x| {
            x.y_parity = 1 - a.y_parity;
            x.s = n - a.s;
        }),
        with(&|x| x.r = U256::ZERO),
        with(&|x| x.s = U256::ZERO),
        with(&|x| x.r = n),
        with(&|x| x.s = n),
        with(&|x| x.y_parity = 1 - a.y_parity),
        a.clone(),
    ];
    let raw = req.sign_and_encode(&test_key(SEED, 1), ALG).unwrap();
    let tx = TxView::decode_canonical(&raw).unwrap();
    let got = both.authorities(&tx, "7702 authorities");
    assert_eq!(
        got[..6],
        [
            Err(SenderError::BadYParity),
            Err(SenderError::HighS),
            Err(SenderError::ZeroR),
            Err(SenderError::ZeroS),
            Err(SenderError::ROutOfRange),
            Err(SenderError::SOutOfRange),
        ]
    );
    assert_eq!(got[7], Ok(address_of(&test_key(SEED, 100), ALG).unwrap()));
}

#[test]
fn edge_values_and_a_random_sweep_agree() {
    let both = Both::new();
    let n = u(N);
    let half = n >> 1;
    let one = U256::from(1u8);
    let values: Vec<U256> = vec![
        U256::ZERO,
        one,
        U256::from(2u8),
        U256::from(7u8),
        half - one,
        half,
        half + one,
        n - U256::from(2u8),
        n - one,
        n,
        n + one,
        u(P) - one,
        u(P),
        U256::MAX,
        u("79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"), // G.x
    ];
    let hashes = [
        [0u8; 32],
        be(one),
        be(n - one),
        be(n),
        [0xff; 32],
        keccak256(b"eraflow").0,
    ];
    let mut ok = 0;
    for hash in &hashes {
        for r in &values {
            for s in &values {
                for y_odd in [false, true] {
                    for low_s in [false, true] {
                        // Minimal big-endian, as transactions carry them.
                        let (r, s) = (be(*r), be(*s));
                        let strip = |b: &[u8; 32]| b.iter().position(|&x| x != 0).unwrap_or(32);
                        let got =
                            both.prehash(hash, &r[strip(&r)..], &s[strip(&s)..], y_odd, low_s);
                        ok += usize::from(got.is_ok());
                    }
                }
            }
        }
    }
    assert!(ok > 0);
    // A deterministic pseudo-random sweep: about half the r values are no curve point, about half the s values
    // are high; every answer must agree.
    let mut state = keccak256(b"signer backends").0;
    let mut next = || {
        state = keccak256(state).0;
        state
    };
    let mut kinds = std::collections::HashMap::new();
    for _ in 0..1500 {
        let (hash, r, s) = (next(), next(), next());
        let flags = next()[0];
        let got = both.prehash(&hash, &r, &s, flags & 1 == 1, flags & 2 == 2);
        *kinds.entry(got.err()).or_insert(0) += 1;
    }
    assert!(kinds.contains_key(&None), "{kinds:?}");
    assert!(
        kinds.contains_key(&Some(SenderError::NotRecoverable)),
        "{kinds:?}"
    );
    assert!(kinds.contains_key(&Some(SenderError::HighS)), "{kinds:?}");
}

#[test]
fn byte_mutations_of_every_encoding_agree() {
    let both = Both::new();
    let mut compared = 0usize;
    for (name, req) in requests(ALG) {
        let enc = req.sign_and_encode(&test_key(SEED, 9), ALG).unwrap();
        for i in 0..enc.len() {
            for x in [0x01u8, 0x80, 0xff] {
                let mut m = enc.clone();
                m[i] ^= x;
                if let Ok(tx) = TxView::decode_canonical(&m) {
                    compared += 1;
                    let _ = both.sender(&tx, i % 2 == 0, name);
                    both.authorities(&tx, name);
                }
            }
        }
    }
    assert!(compared > 100, "{compared}");
}

#[test]
fn every_transaction_of_the_real_era1_files_agrees() {
    let Some(data) = crate::testdata::dir("both signer backends on real era1 files") else {
        return;
    };
    let both = Both::new();
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(data.join("era1"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    inputs.sort();
    let mut recovered = 0;
    for path in &inputs {
        let network = Network::by_name(&ArchiveName::of_path(path).unwrap().network).unwrap();
        let file = Era1File::open(path).unwrap();
        let mut dec = BlockDecoders::default();
        for i in 0..file.block_count() {
            let block = file.block(i).unwrap();
            let body = decompress(&mut dec.body, &block.body, file.path(), block.number).unwrap();
            for item in BodyView::decode(body).unwrap().transactions() {
                let tx = TxView::decode(item.unwrap().raw).unwrap();
                let what = format!("{} block {}", path.display(), block.number);
                let homestead = network.is_homestead(block.number);
                recovered += usize::from(both.sender(&tx, homestead, &what).is_ok());
                // The other Homestead flag too: high-s signatures would part here if anywhere.
                let _ = both.sender(&tx, !homestead, &what);
            }
        }
    }
    // sepolia-00021 alone holds 93 transactions.
    assert!(recovered >= 93, "{recovered}");
}

/// `eraflow export` of `inputs` into `out`, with extra flags, in a process of its own.
fn export_cli(inputs: &[PathBuf], out: &Path, extra: &[&str]) {
    let o = Command::new(env!("CARGO_BIN_EXE_eraflow"))
        .args(extra)
        .arg("export")
        .arg("--out")
        .arg(out)
        .args(inputs)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "eraflow {extra:?} export: {}\n{}{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// (relative path, bytes) of every dataset file under an export directory (the `_eraflow` manifest and run
/// reports, which hold times, left out).
fn datasets_in(out: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    crate::util::files_in(out)
        .into_iter()
        .filter(|p| !p.starts_with(out.join("_eraflow")))
        .map(|p| {
            (
                p.strip_prefix(out).unwrap().to_path_buf(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect()
}

fn assert_identical_exports(inputs: &[PathBuf], what: &str) {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    export_cli(inputs, a.path(), &[]);
    export_cli(inputs, b.path(), &["--signer-backend", "k256"]);
    let (da, db) = (datasets_in(a.path()), datasets_in(b.path()));
    assert!(
        da.iter().any(|(p, _)| p.starts_with("transactions")),
        "{what}: no transactions written"
    );
    assert_eq!(
        da.iter().map(|(p, _)| p).collect::<Vec<_>>(),
        db.iter().map(|(p, _)| p).collect::<Vec<_>>(),
        "{what}: the same files"
    );
    for ((p, x), (_, y)) in da.iter().zip(&db) {
        assert!(x == y, "{what}: {} differs between backends", p.display());
    }
    // Senders were recovered (not all null) in what was compared.
    let senders: usize = da
        .iter()
        .filter(|(p, _)| p.starts_with("transactions"))
        .map(|(p, _)| {
            let t = crate::util::read_parquet(&a.path().join(p));
            let c = t.column_by_name("from_address").unwrap();
            c.len() - c.null_count()
        })
        .sum();
    assert!(senders > 0, "{what}: no senders recovered");
}

#[test]
fn exports_with_either_backend_are_byte_identical() {
    let src = tempfile::tempdir().unwrap();
    // A full synthetic era1 era crosses Byzantium and London: every pre-merge kind.
    let mut o = eraflow::synth::era1::SynthOptions::new(Network::by_name("synthnet").unwrap());
    o.txs_per_block = 2;
    let mut inputs = eraflow::synth::era1::write(&src.path().join("era1"), &o).unwrap();
    // Electra payloads carry transactions of types 0-4 (EIP-7702 authorities included).
    let net = Network::by_name("synthnet").unwrap();
    let mut e = eraflow::synth::era::EraSynthOptions::new(net.clone());
    e.era = eraflow::synth::era::EraSynthOptions::era_of_fork(&net, Fork::Electra).unwrap();
    e.blocks = 24;
    e.validators = 64;
    e.txs_per_block = 6;
    inputs.extend(eraflow::synth::era::write(&src.path().join("era"), &e).unwrap());
    assert_identical_exports(&inputs, "synthetic era1 and era files");

    if let Some(data) = crate::testdata::dir("byte-identical exports of real era1 files") {
        let mut real: Vec<PathBuf> = std::fs::read_dir(data.join("era1"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        real.sort();
        assert_identical_exports(&real, "real era1 files");
    }
}
