//! The process-wide signature algorithm: sender recovery shared by every worker.
//!
//! Recovering senders is the costliest step of the pipeline, and its classic failure is building or looking up
//! the signature algorithm once per transaction. eraflow initialises one [`Signer`] per process with
//! [`init`] or [`init_with`] (a `OnceLock`), before workers start; every rayon worker borrows the same
//! `&'static Signer`, which dispatches on a plain enum chosen when it was built (no trait object, no
//! per-transaction construction or lookup). [`initialisations`] counts how many times the process signer was
//! built so tests can prove it happened exactly once.
//!
//! Two curves are supported: secp256k1 (Ethereum) and secp256r1 (`p256`, for private or permissioned networks
//! whose keys live in HSMs that only sign with R1). secp256k1 has two backends ([`SignerBackend`]):
//! libsecp256k1 (the default; the C library geth and reth use, built from the `secp256k1` crate's bundled
//! source; its verification context is built once, with the signer) and `k256` (pure Rust). Both only do the
//! curve part of a recovery: [`Signer::recover_prehash`] alone decides every error before it (zero r or s, r or
//! s not below n, high s), so the two give the same sender or the same error for every input. On both curves
//! the address is `keccak256(uncompressed_pubkey[1..])[12..]`, as on Ethereum.
//!
//! Code paths that do not need senders (verify without senders, prune manifests, hashing) never call [`init`].

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use rayon::prelude::*;

use crate::crypto::keccak::keccak256;
use crate::execution::transaction::{Authorization, TxKind, TxView};

/// Which elliptic curve signs transactions on the network. Comes from the network config key
/// `signature_algorithm` (default secp256k1) or a CLI flag.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SignatureAlgorithm {
    /// secp256k1, as on Ethereum mainnet and its testnets.
    #[default]
    Secp256k1,
    /// secp256r1 (NIST P-256) for private networks signing with R1.
    Secp256r1,
}

impl SignatureAlgorithm {
    /// The config / CLI spelling.
    pub fn name(self) -> &'static str {
        match self {
            SignatureAlgorithm::Secp256k1 => "secp256k1",
            SignatureAlgorithm::Secp256r1 => "secp256r1",
        }
    }

    /// Parses the config / CLI spelling (`secp256k1`, `secp256r1`; `k256`, `p256` accepted as aliases).
    pub fn from_name(name: &str) -> Result<Self, SignerError> {
        match name {
            "secp256k1" | "k256" => Ok(SignatureAlgorithm::Secp256k1),
            "secp256r1" | "p256" | "prime256v1" => Ok(SignatureAlgorithm::Secp256r1),
            other => Err(SignerError::UnknownAlgorithm(other.to_string())),
        }
    }
}

impl std::str::FromStr for SignatureAlgorithm {
    type Err = SignerError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::from_name(s)
    }
}

/// Which implementation recovers secp256k1 signatures. Comes from the job key `signer_backend` (default
/// `libsecp256k1`, in `configs/default.toml`) or the `--signer-backend` flag. Both give identical senders and
/// errors; secp256r1 networks always use `p256`, whatever this says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SignerBackend {
    /// libsecp256k1, the C library geth and reth use (1.7x faster per recovery than `k256` on the machine of
    /// docs/performance.md).
    #[default]
    Libsecp256k1,
    /// `k256`, the pure-Rust implementation (no C compiler needed by the code path, easier to audit).
    K256,
}

impl SignerBackend {
    /// The config / CLI spelling.
    pub fn name(self) -> &'static str {
        match self {
            SignerBackend::Libsecp256k1 => "libsecp256k1",
            SignerBackend::K256 => "k256",
        }
    }

    /// Parses the config / CLI spelling (`libsecp256k1`, `k256`).
    pub fn from_name(name: &str) -> Result<Self, SignerError> {
        match name {
            "libsecp256k1" => Ok(SignerBackend::Libsecp256k1),
            "k256" => Ok(SignerBackend::K256),
            other => Err(SignerError::UnknownBackend(other.to_string())),
        }
    }
}

impl std::str::FromStr for SignerBackend {
    type Err = SignerError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::from_name(s)
    }
}

/// Errors of the signer's life cycle and of signing; per-transaction recovery failures are [`SenderError`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignerError {
    /// [`init`] was already called with another algorithm: swapping silently would mix senders of two curves.
    #[error("signature algorithm already initialised as {active}, cannot switch to {requested}")]
    AlreadyInitialised {
        /// The algorithm in use.
        active: &'static str,
        /// The one asked for.
        requested: &'static str,
    },
    /// [`init_with`] asked for another secp256k1 backend than the one the process signer was built with.
    #[error("secp256k1 backend already initialised as {active}, cannot switch to {requested}")]
    BackendAlreadyInitialised {
        /// The backend in use.
        active: &'static str,
        /// The one asked for.
        requested: &'static str,
    },
    /// [`global`] was called before [`init`].
    #[error("signature algorithm not initialised: call signer::init before starting workers")]
    NotInitialised,
    /// A config or flag named an unknown algorithm.
    #[error("unknown signature algorithm {0:?}: expected secp256k1 or secp256r1")]
    UnknownAlgorithm(String),
    /// A config or flag named an unknown secp256k1 backend.
    #[error("unknown signer backend {0:?}: expected libsecp256k1 or k256")]
    UnknownBackend(String),
    /// A secret key that is zero or not below the curve order.
    #[error("secret key is not a valid {0} scalar (zero or not below the curve order)")]
    BadSecretKey(&'static str),
    /// A transaction request that cannot be encoded (unknown type, contract creation where the EIP forbids it).
    #[error("invalid transaction request: {0}")]
    BadRequest(&'static str),
    /// `recover_batch` got a homestead flag slice of the wrong length.
    #[error("recover_batch: {txs} transactions but {flags} homestead flags")]
    BatchLength {
        /// Transactions given.
        txs: usize,
        /// Flags given.
        flags: usize,
    },
}

/// Why a transaction's (or authorization's) signer could not be recovered. Small and `Copy` so it can sit in
/// a per-row column (sender null + this kind) instead of failing the whole file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
#[repr(u8)]
pub enum SenderError {
    /// `r` is zero.
    #[error("signature r is zero")]
    ZeroR = 1,
    /// `s` is zero.
    #[error("signature s is zero")]
    ZeroS,
    /// `r` is not below the curve order.
    #[error("signature r is not below the curve order")]
    ROutOfRange,
    /// `s` is not below the curve order.
    #[error("signature s is not below the curve order")]
    SOutOfRange,
    /// `s` above n/2 after Homestead ([EIP-2](https://eips.ethereum.org/EIPS/eip-2); also required for
    /// [EIP-7702](https://eips.ethereum.org/EIPS/eip-7702) authorizations).
    #[error("signature s above n/2 (EIP-2 low-s rule)")]
    HighS,
    /// Legacy `v` neither 27/28 nor a valid [EIP-155](https://eips.ethereum.org/EIPS/eip-155) value.
    #[error("legacy v is neither 27/28 nor 35 + 2 * chain_id + {{0,1}} (EIP-155)")]
    BadV,
    /// Typed `y_parity` (or an authorization's) not 0 or 1.
    #[error("y_parity is not 0 or 1")]
    BadYParity,
    /// No public key recovers from this signature and hash (r is not the x of a curve point, or the result
    /// is the point at infinity).
    #[error("no public key recovers from this signature")]
    NotRecoverable,
}

impl SenderError {
    /// A stable short name for the `sender_error` column.
    pub fn name(self) -> &'static str {
        match self {
            SenderError::ZeroR => "zero_r",
            SenderError::ZeroS => "zero_s",
            SenderError::ROutOfRange => "r_out_of_range",
            SenderError::SOutOfRange => "s_out_of_range",
            SenderError::HighS => "high_s",
            SenderError::BadV => "bad_v",
            SenderError::BadYParity => "bad_y_parity",
            SenderError::NotRecoverable => "not_recoverable",
        }
    }
}

/// secp256k1 group order n, big-endian.
const K1_N: [u8; 32] = hex32("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141");
/// secp256k1 n / 2 (floor): the [EIP-2](https://eips.ethereum.org/EIPS/eip-2) bound, s <= n/2.
const K1_HALF_N: [u8; 32] =
    hex32("7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0");
/// secp256r1 group order n, big-endian.
const R1_N: [u8; 32] = hex32("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551");
/// secp256r1 n / 2 (floor).
const R1_HALF_N: [u8; 32] =
    hex32("7fffffff800000007fffffffffffffffde737d56d38bcf4279dce5617e3192a8");

const fn hex32(s: &str) -> [u8; 32] {
    let b = s.as_bytes();
    let mut out = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        out[i] = (nib(b[2 * i]) << 4) | nib(b[2 * i + 1]);
        i += 1;
    }
    out
}

const fn nib(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        _ => panic!("bad hex constant"),
    }
}

/// The one signature algorithm of the process: [`init`] / [`init_with`] build it once and workers borrow
/// `&'static Signer`. [`Signer::new`] builds one outside the process signer, to compare backends side by side
/// (tests, `eraflow bench`); jobs never do.
#[derive(Debug)]
pub struct Signer {
    algorithm: SignatureAlgorithm,
    curve: Curve,
}

/// The implementation behind a [`Signer`], fixed when it is built: recovery branches on it once, nothing is
/// looked up or constructed per transaction.
enum Curve {
    /// secp256k1 through libsecp256k1, with the verification context built once, with the signer.
    Libsecp256k1(secp256k1::Secp256k1<secp256k1::VerifyOnly>),
    /// secp256k1 through `k256`.
    K256,
    /// secp256r1 through `p256`.
    P256,
}

impl Curve {
    /// The implementation `algorithm` and `backend` name (secp256r1 has one, whatever the backend).
    fn name_for(algorithm: SignatureAlgorithm, backend: SignerBackend) -> &'static str {
        match algorithm {
            SignatureAlgorithm::Secp256k1 => backend.name(),
            SignatureAlgorithm::Secp256r1 => "p256",
        }
    }

    fn build(algorithm: SignatureAlgorithm, backend: SignerBackend) -> Curve {
        match (algorithm, backend) {
            (SignatureAlgorithm::Secp256k1, SignerBackend::Libsecp256k1) => {
                Curve::Libsecp256k1(secp256k1::Secp256k1::verification_only())
            }
            (SignatureAlgorithm::Secp256k1, SignerBackend::K256) => Curve::K256,
            (SignatureAlgorithm::Secp256r1, _) => Curve::P256,
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Curve::Libsecp256k1(_) => "libsecp256k1",
            Curve::K256 => "k256",
            Curve::P256 => "p256",
        }
    }
}

impl std::fmt::Debug for Curve {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

static GLOBAL: OnceLock<Signer> = OnceLock::new();
static INITIALISATIONS: AtomicU64 = AtomicU64::new(0);

/// Initialises the process-wide signer with the default secp256k1 backend ([`SignerBackend::Libsecp256k1`]);
/// see [`init_with`].
pub fn init(algorithm: SignatureAlgorithm) -> Result<&'static Signer, SignerError> {
    init_with(algorithm, SignerBackend::default())
}

/// Initialises the process-wide signer (once; later calls asking for the same algorithm and backend return
/// the same instance). Call it before starting workers. Asking for a different algorithm, or on secp256k1 a
/// different backend, afterwards is an error, never a swap. `backend` is ignored on secp256r1 (always `p256`).
pub fn init_with(
    algorithm: SignatureAlgorithm,
    backend: SignerBackend,
) -> Result<&'static Signer, SignerError> {
    let signer = GLOBAL.get_or_init(|| {
        INITIALISATIONS.fetch_add(1, Ordering::Relaxed);
        Signer::new(algorithm, backend)
    });
    if signer.algorithm != algorithm {
        return Err(SignerError::AlreadyInitialised {
            active: signer.algorithm.name(),
            requested: algorithm.name(),
        });
    }
    let requested = Curve::name_for(algorithm, backend);
    if signer.curve.name() != requested {
        return Err(SignerError::BackendAlreadyInitialised {
            active: signer.curve.name(),
            requested,
        });
    }
    Ok(signer)
}

/// Borrows the process-wide signer; an error if [`init`] has not run.
pub fn global() -> Result<&'static Signer, SignerError> {
    GLOBAL.get().ok_or(SignerError::NotInitialised)
}

/// How many times the process signer was built (0 or 1 by construction; [`Signer::new`] does not count):
/// exposed so tests can prove that a multi-threaded run initialised the algorithm exactly once.
pub fn initialisations() -> u64 {
    INITIALISATIONS.load(Ordering::Relaxed)
}

/// Left-pads a big-endian integer to 32 bytes; `None` when its value needs more than 32 bytes (never
/// truncated: a truncated r or s would recover a silently wrong address).
#[inline]
fn pad32(p: &[u8]) -> Option<[u8; 32]> {
    let skip = p.iter().take_while(|&&b| b == 0).count();
    let p = &p[skip..];
    if p.len() > 32 {
        return None;
    }
    let mut out = [0u8; 32];
    out[32 - p.len()..].copy_from_slice(p);
    Some(out)
}

/// The Ethereum address of an uncompressed [SEC1](https://www.secg.org/sec1-v2.pdf) public key:
/// `keccak256(x || y)[12..]`.
#[inline]
fn address_from_uncompressed(sec1: &[u8]) -> [u8; 20] {
    let h = keccak256(sec1.get(1..).unwrap_or_default());
    let mut a = [0u8; 20];
    a.copy_from_slice(&h[12..]);
    a
}

macro_rules! curve_ops {
    ($recover:ident, $sign:ident, $public:ident, $krate:ident, $label:literal) => {
        #[inline]
        fn $recover(
            hash: &[u8; 32],
            r: &[u8; 32],
            s: &[u8; 32],
            y_odd: bool,
        ) -> Result<[u8; 20], SenderError> {
            use $krate::ecdsa::{RecoveryId, Signature, VerifyingKey};
            let sig = Signature::from_scalars(*r, *s).map_err(|_| SenderError::NotRecoverable)?;
            // Ethereum's v / y_parity carries only the y parity; r is never x-reduced (r >= n is rejected).
            let vk = VerifyingKey::recover_from_prehash(hash, &sig, RecoveryId::new(y_odd, false))
                .map_err(|_| SenderError::NotRecoverable)?;
            Ok(address_from_uncompressed(
                vk.to_sec1_point(false).as_bytes(),
            ))
        }

        fn $sign(key: &[u8; 32], hash: &[u8; 32]) -> Result<RawSignature, SignerError> {
            use $krate::ecdsa::SigningKey;
            let sk = SigningKey::from_bytes(&(*key).into())
                .map_err(|_| SignerError::BadSecretKey($label))?;
            // RFC 6979 deterministic nonce: the same key and hash always give the same signature.
            let (sig, id) = sk.sign_prehash_recoverable(hash);
            let (r, s) = sig.split_bytes();
            let (mut r32, mut s32) = ([0u8; 32], [0u8; 32]);
            r32.copy_from_slice(&r);
            s32.copy_from_slice(&s);
            Ok(RawSignature {
                r: r32,
                s: s32,
                y_odd: id.is_y_odd(),
            })
        }

        fn $public(key: &[u8; 32]) -> Result<[u8; 20], SignerError> {
            use $krate::ecdsa::SigningKey;
            let sk = SigningKey::from_bytes(&(*key).into())
                .map_err(|_| SignerError::BadSecretKey($label))?;
            Ok(address_from_uncompressed(
                sk.verifying_key().to_sec1_point(false).as_bytes(),
            ))
        }
    };
}

curve_ops!(k1_recover, k1_sign, k1_address, k256, "secp256k1");

/// secp256k1 recovery through libsecp256k1, for an `(r, s)` already checked non-zero and below n (so
/// `from_compact`'s overflow rule never applies) and already held to the low-s rule where it applies
/// (libsecp256k1's recovery itself accepts high s, as pre-Homestead transactions need).
#[inline]
fn libsecp_recover(
    ctx: &secp256k1::Secp256k1<secp256k1::VerifyOnly>,
    hash: &[u8; 32],
    r: &[u8; 32],
    s: &[u8; 32],
    y_odd: bool,
) -> Result<[u8; 20], SenderError> {
    use secp256k1::ecdsa::{RecoverableSignature, RecoveryId};
    let mut compact = [0u8; 64];
    compact[..32].copy_from_slice(r);
    compact[32..].copy_from_slice(s);
    // Ethereum's v / y_parity carries only the y parity (ids 2 and 3, x-reduced r, are never used).
    let id = if y_odd {
        RecoveryId::One
    } else {
        RecoveryId::Zero
    };
    let sig = RecoverableSignature::from_compact(&compact, id)
        .map_err(|_| SenderError::NotRecoverable)?;
    let key = ctx
        .recover_ecdsa(secp256k1::Message::from_digest(*hash), &sig)
        .map_err(|_| SenderError::NotRecoverable)?;
    Ok(address_from_uncompressed(&key.serialize_uncompressed()))
}
curve_ops!(r1_recover, r1_sign, r1_address, p256, "secp256r1");

impl Signer {
    /// A signer of `algorithm` on `backend` (ignored on secp256r1) that is NOT the process signer: for
    /// comparing backends side by side in one process (tests, `eraflow bench`). A libsecp256k1 signer builds its
    /// context here, which costs far more than a recovery: build one and share it, never one per transaction.
    /// Jobs use [`init_with`] instead.
    pub fn new(algorithm: SignatureAlgorithm, backend: SignerBackend) -> Signer {
        Signer {
            algorithm,
            curve: Curve::build(algorithm, backend),
        }
    }

    /// The algorithm this signer recovers.
    pub fn algorithm(&self) -> SignatureAlgorithm {
        self.algorithm
    }

    /// The implementation behind it: `libsecp256k1` or `k256` on secp256k1, `p256` on secp256r1.
    pub fn implementation(&self) -> &'static str {
        self.curve.name()
    }

    /// Recovers the address that signed `hash` with `(r, s, y_odd)` (minimal big-endian `r`, `s` of at most
    /// 32 bytes). `low_s` enforces s <= n/2 ([EIP-2](https://eips.ethereum.org/EIPS/eip-2), secp256k1 only: R1 networks
    /// have no such rule, so it is not applied there). Checks, in order: zero r/s, r/s not below n, high s, then the
    /// curve recovery. These checks are the only place errors other than [`SenderError::NotRecoverable`] are
    /// decided: the backends are handed only signatures that passed them, so they agree on every input.
    #[inline]
    pub fn recover_prehash(
        &self,
        hash: &[u8; 32],
        r: &[u8],
        s: &[u8],
        y_odd: bool,
        low_s: bool,
    ) -> Result<[u8; 20], SenderError> {
        let r = pad32(r).ok_or(SenderError::ROutOfRange)?;
        let s = pad32(s).ok_or(SenderError::SOutOfRange)?;
        let (n, half_n) = match self.algorithm {
            SignatureAlgorithm::Secp256k1 => (&K1_N, &K1_HALF_N),
            SignatureAlgorithm::Secp256r1 => (&R1_N, &R1_HALF_N),
        };
        if r == [0u8; 32] {
            return Err(SenderError::ZeroR);
        }
        if s == [0u8; 32] {
            return Err(SenderError::ZeroS);
        }
        if r >= *n {
            return Err(SenderError::ROutOfRange);
        }
        if s >= *n {
            return Err(SenderError::SOutOfRange);
        }
        if low_s && self.algorithm == SignatureAlgorithm::Secp256k1 && s > *half_n {
            return Err(SenderError::HighS);
        }
        match &self.curve {
            Curve::Libsecp256k1(ctx) => libsecp_recover(ctx, hash, &r, &s, y_odd),
            Curve::K256 => k1_recover(hash, &r, &s, y_odd),
            Curve::P256 => r1_recover(hash, &r, &s, y_odd),
        }
    }

    /// Recovers a transaction's sender. `homestead` says whether the block is at or after Homestead, where
    /// [EIP-2](https://eips.ethereum.org/EIPS/eip-2) made high-s signatures invalid; earlier signatures may have high s
    /// and still recover. [EIP-155](https://eips.ethereum.org/EIPS/eip-155) and typed transactions only exist after
    /// Homestead, so the low-s rule always applies to them.
    #[inline]
    pub fn recover_sender(
        &self,
        tx: &TxView<'_>,
        homestead: bool,
    ) -> Result<[u8; 20], SenderError> {
        let y_odd = match tx.y_parity() {
            Some(p) => p,
            None if tx.tx_type() == 0 => return Err(SenderError::BadV),
            None => return Err(SenderError::BadYParity),
        };
        let low_s = homestead || tx.kind() != TxKind::LegacyPre155;
        let hash = tx.signing_hash();
        self.recover_prehash(&hash.0, tx.r(), tx.s(), y_odd, low_s)
    }

    /// Recovers the authority of an [EIP-7702](https://eips.ethereum.org/EIPS/eip-7702) authorization (whose s must be
    /// <= n/2 per EIP-7702).
    pub fn recover_authority(&self, auth: &Authorization<'_>) -> Result<[u8; 20], SenderError> {
        let y_odd = match auth.y_parity {
            0 => false,
            1 => true,
            _ => return Err(SenderError::BadYParity),
        };
        let hash = auth.signing_hash();
        self.recover_prehash(&hash.0, auth.r, auth.s, y_odd, true)
    }

    /// Recovers the senders of `txs` in parallel on the current rayon pool into `out` (cleared, then one
    /// result per transaction, in order). `homestead[i]` is the Homestead flag of `txs[i]`'s block. `out` is
    /// reused across batches, so steady state allocates nothing per transaction.
    pub fn recover_batch(
        &self,
        txs: &[TxView<'_>],
        homestead: &[bool],
        out: &mut Vec<Result<[u8; 20], SenderError>>,
    ) -> Result<(), SignerError> {
        if txs.len() != homestead.len() {
            return Err(SignerError::BatchLength {
                txs: txs.len(),
                flags: homestead.len(),
            });
        }
        out.clear();
        out.resize(txs.len(), Err(SenderError::NotRecoverable));
        out.par_iter_mut()
            .zip(txs.par_iter().zip(homestead.par_iter()))
            .with_min_len(4)
            .for_each(|(slot, (tx, &h))| *slot = self.recover_sender(tx, h));
        Ok(())
    }
}

/// A signature as Ethereum stores it: 32-byte big-endian `r` and `s`, and the y parity of the nonce point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawSignature {
    /// r, big-endian.
    pub r: [u8; 32],
    /// s, big-endian (low-s after [`sign_prehash`]).
    pub s: [u8; 32],
    /// y parity of R (the recovery id).
    pub y_odd: bool,
}

/// A 32-byte secret scalar, as used by the synthetic archive generator.
pub type SecretKeyBytes = [u8; 32];

/// Signs a 32-byte hash deterministically ([RFC 6979](https://www.rfc-editor.org/rfc/rfc6979)) and normalises s to the
/// low half: required on secp256k1 by [EIP-2](https://eips.ethereum.org/EIPS/eip-2); on secp256r1 no Ethereum-like rule
/// needs it, but low s is equally valid there and keeps both curves' outputs uniform. The recovery id is flipped with s
/// so recovery stays correct. Signing does not use the global signer: the generator names its algorithm explicitly.
pub fn sign_prehash(
    key: &SecretKeyBytes,
    algorithm: SignatureAlgorithm,
    hash: &[u8; 32],
) -> Result<RawSignature, SignerError> {
    let (mut sig, n, half) = match algorithm {
        SignatureAlgorithm::Secp256k1 => (k1_sign(key, hash)?, &K1_N, &K1_HALF_N),
        SignatureAlgorithm::Secp256r1 => (r1_sign(key, hash)?, &R1_N, &R1_HALF_N),
    };
    if sig.s > *half {
        sig.s = sub_be(n, &sig.s);
        sig.y_odd = !sig.y_odd;
    }
    Ok(sig)
}

/// `a - b` for 32-byte big-endian integers with `a >= b`.
fn sub_be(a: &[u8; 32], b: &[u8; 32]) -> [u8; 32] {
    let mut out = [0u8; 32];
    let mut borrow = 0i16;
    for i in (0..32).rev() {
        let mut d = i16::from(a[i]) - i16::from(b[i]) - borrow;
        borrow = 0;
        if d < 0 {
            d += 256;
            borrow = 1;
        }
        out[i] = d as u8;
    }
    out
}

/// The address of a secret key on `algorithm`'s curve: `keccak256(uncompressed_pubkey[1..])[12..]`.
pub fn address_of(
    key: &SecretKeyBytes,
    algorithm: SignatureAlgorithm,
) -> Result<[u8; 20], SignerError> {
    match algorithm {
        SignatureAlgorithm::Secp256k1 => k1_address(key),
        SignatureAlgorithm::Secp256r1 => r1_address(key),
    }
}

/// A deterministic secret key for the synthetic archive generator and tests: `keccak256("eraflow-test-key"
/// || seed || index || counter)`, bumping the counter until the scalar is valid on BOTH curves (non-zero and
/// below the smaller order, secp256r1's), so one seed names the same keys whichever curve is configured.
/// Never use these keys for anything real.
pub fn test_key(seed: u64, index: u32) -> SecretKeyBytes {
    let mut counter: u32 = 0;
    loop {
        let mut pre = [0u8; 16 + 8 + 4 + 4];
        pre[..16].copy_from_slice(b"eraflow-test-key");
        pre[16..24].copy_from_slice(&seed.to_le_bytes());
        pre[24..28].copy_from_slice(&index.to_le_bytes());
        pre[28..].copy_from_slice(&counter.to_le_bytes());
        let k = keccak256(pre).0;
        if k != [0u8; 32] && k < R1_N && k < K1_N {
            return k;
        }
        counter = counter.wrapping_add(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_orders_are_floor_n_over_2() {
        for (n, half) in [(K1_N, K1_HALF_N), (R1_N, R1_HALF_N)] {
            // half + half + 1 == n (n is odd)
            let mut sum = [0u8; 32];
            let mut carry = 1u16;
            for i in (0..32).rev() {
                let v = u16::from(half[i]) * 2 + carry;
                sum[i] = v as u8;
                carry = v >> 8;
            }
            assert_eq!(sum, n);
        }
    }

    #[test]
    fn wide_r_or_s_is_out_of_range_not_truncated() {
        // A caller-supplied 33-byte r or s must not be cut down to its low 32 bytes.
        let mut wide = [0u8; 33];
        wide[0] = 1;
        wide[32] = 1;
        let one = [1u8];
        for backend in [SignerBackend::Libsecp256k1, SignerBackend::K256] {
            let signer = Signer::new(SignatureAlgorithm::Secp256k1, backend);
            assert_eq!(
                signer.recover_prehash(&[7; 32], &wide, &one, false, true),
                Err(SenderError::ROutOfRange)
            );
            assert_eq!(
                signer.recover_prehash(&[7; 32], &one, &wide, false, true),
                Err(SenderError::SOutOfRange)
            );
        }
        // Leading zeros beyond 32 bytes are harmless.
        assert_eq!(pad32(&[0, 0, 5]).map(|p| p[31]), Some(5));
        let mut padded = [0u8; 40];
        padded[39] = 9;
        assert_eq!(pad32(&padded).map(|p| p[31]), Some(9));
    }

    #[test]
    fn sub_be_borrows() {
        let mut a = [0u8; 32];
        a[30] = 1;
        let mut b = [0u8; 32];
        b[31] = 1;
        let d = sub_be(&a, &b);
        assert_eq!(d[31], 0xff);
        assert_eq!(d[30], 0);
    }
}
