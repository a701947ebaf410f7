//! SHA-256 for SSZ merkleization: every hash is of exactly one 64-byte block (two 32-byte chunks).
//!
//! A 64-byte message is the message block plus one constant padding block, so two compressions and no
//! buffering. On x86-64 CPUs with the SHA extensions (detected at run time; the build stays portable and
//! enables no AVX, avoiding the SSE/AVX transition penalty described in ARCHITECTURE.md) our own SHA-NI kernel
//! runs the padding block from a precomputed message schedule and, in [`hash_blocks`], interleaves 8
//! independent messages so the SHA round unit never waits on one dependency chain. Elsewhere we call
//! `sha2::block_api::compress256` directly (the `Digest` path measured ~115 ns per pair against ~88 ns for two
//! raw compressions).

use sha2::block_api::compress256;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

/// Whether 64-byte hashes are being counted (off by default: one relaxed load per call when off).
static COUNTING: AtomicBool = AtomicBool::new(false);
/// Hashes counted since the last [`take_hash_count`].
static COUNT: AtomicU64 = AtomicU64::new(0);

/// Starts or stops counting 64-byte hashes (benchmarks use it to compute the floor of a merkleization:
/// hashes needed x cost of one hash). Counting is process-wide.
pub fn set_hash_counting(on: bool) {
    COUNTING.store(on, Relaxed);
}

/// The number of 64-byte hashes since the previous call (while counting was on), resetting it to zero.
pub fn take_hash_count() -> u64 {
    COUNT.swap(0, Relaxed)
}

#[inline(always)]
fn count(n: usize) {
    if COUNTING.load(Relaxed) {
        COUNT.fetch_add(n as u64, Relaxed);
    }
}

/// SHA-256 initial hash value ([FIPS 180-4](https://nvlpubs.nist.gov/nistpubs/FIPS/NIST.FIPS.180-4.pdf) §5.3.3).
const IV: [u32; 8] = [
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

/// The padding block of any 64-byte message: 0x80, zeros, then the bit length 512 big-endian.
const PAD64: [u8; 64] = {
    let mut b = [0u8; 64];
    b[0] = 0x80;
    b[62] = 0x02; // 512 = 0x0200
    b
};

#[inline(always)]
fn finish(state: &[u32; 8], out: &mut [u8; 32]) {
    for (o, w) in out.chunks_exact_mut(4).zip(state) {
        o.copy_from_slice(&w.to_be_bytes());
    }
}

/// SHA-256 of one 64-byte block, written into `out` (no allocation, no copy of the input).
#[inline]
pub fn hash64_into(block: &[u8; 64], out: &mut [u8; 32]) {
    count(1);
    compress64(block, out);
}

#[inline(always)]
fn compress64(block: &[u8; 64], out: &mut [u8; 32]) {
    #[cfg(target_arch = "x86_64")]
    if ni::available() {
        // SAFETY: the CPU has the SHA and SSE4.1 extensions (checked at run time just above).
        unsafe { ni::hash_lanes::<1>(std::slice::from_ref(block), std::slice::from_mut(out)) };
        return;
    }
    compress64_portable(block, out);
}

#[inline(always)]
fn compress64_portable(block: &[u8; 64], out: &mut [u8; 32]) {
    let mut state = IV;
    compress256(&mut state, std::slice::from_ref(block));
    compress256(&mut state, std::slice::from_ref(&PAD64));
    finish(&state, out);
}

/// SHA-256 of one 64-byte block.
#[inline]
pub fn hash64(block: &[u8; 64]) -> [u8; 32] {
    let mut out = [0u8; 32];
    hash64_into(block, &mut out);
    out
}

/// SHA-256 of `left || right`, the SSZ parent of two chunks.
#[inline]
pub fn hash_pair(left: &[u8; 32], right: &[u8; 32]) -> [u8; 32] {
    let mut block = [0u8; 64];
    block[..32].copy_from_slice(left);
    block[32..].copy_from_slice(right);
    hash64(&block)
}

/// Hashes consecutive 64-byte blocks of `input` into consecutive 32-byte outputs of `out`.
///
/// This is the batch entry point: one merkle layer is `hash_blocks(layer, next_layer)`. A multi-buffer
/// hasher can replace the loop without changing any caller.
///
/// # Panics
/// If `input.len() != 2 * out.len()` or `out.len()` is not a multiple of 32 (a caller bug, not bad data).
pub fn hash_blocks(input: &[u8], out: &mut [u8]) {
    assert!(
        input.len() == 2 * out.len() && out.len().is_multiple_of(32),
        "hash_blocks: bad lengths"
    );
    let (blocks, _) = input.as_chunks::<64>();
    let (outs, _) = out.as_chunks_mut::<32>();
    count(blocks.len());
    #[cfg(target_arch = "x86_64")]
    if ni::available() {
        // Independent messages interleaved per call keep the SHA-NI round pipeline busy.
        let (quads, rest) = blocks.as_chunks::<LANES>();
        let (out_quads, out_rest) = outs.as_chunks_mut::<LANES>();
        for (b, o) in quads.iter().zip(out_quads) {
            // SAFETY: SHA and SSE4.1 present (checked above).
            unsafe { ni::hash_lanes::<LANES>(b, o) };
        }
        // The tail in 4-, 2- and 1-message groups: batches of one tree height are often short.
        let (b4, rest) = rest.as_chunks::<4>();
        let (o4, out_rest) = out_rest.as_chunks_mut::<4>();
        for (b, o) in b4.iter().zip(o4) {
            // SAFETY: as above.
            unsafe { ni::hash_lanes::<4>(b, o) };
        }
        let (b2, rest) = rest.as_chunks::<2>();
        let (o2, out_rest) = out_rest.as_chunks_mut::<2>();
        for (b, o) in b2.iter().zip(o2) {
            // SAFETY: as above.
            unsafe { ni::hash_lanes::<2>(b, o) };
        }
        for (b, o) in rest.iter().zip(out_rest) {
            // SAFETY: as above.
            unsafe { ni::hash_lanes::<1>(std::slice::from_ref(b), std::slice::from_mut(o)) };
        }
        return;
    }
    for (b, o) in blocks.iter().zip(outs) {
        compress64_portable(b, o);
    }
}

/// Messages interleaved per SHA-NI kernel call in [`hash_blocks`]: measured per block (thread CPU time,
/// benches/ssz.rs) 48 ns with 2, 35 ns with 4, 30 ns with 8 lanes, against 62 ns for a single `hash64` call.
#[cfg(target_arch = "x86_64")]
const LANES: usize = 8;

/// SHA-256 round constants ([FIPS 180-4](https://nvlpubs.nist.gov/nistpubs/FIPS/NIST.FIPS.180-4.pdf) §4.2.2).
const K: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

/// `W[t] + K[t]` of the padding block of every 64-byte message: its message schedule is a constant, so the
/// second compression needs no schedule computation at all
/// ([FIPS 180-4](https://nvlpubs.nist.gov/nistpubs/FIPS/NIST.FIPS.180-4.pdf) §6.2.2 step 1 on `PAD64`).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const PAD64_WK: [u32; 64] = {
    let mut w = [0u32; 64];
    w[0] = 0x8000_0000;
    w[15] = 512;
    let mut t = 16;
    while t < 64 {
        let s0 = w[t - 15].rotate_right(7) ^ w[t - 15].rotate_right(18) ^ (w[t - 15] >> 3);
        let s1 = w[t - 2].rotate_right(17) ^ w[t - 2].rotate_right(19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16]
            .wrapping_add(s0)
            .wrapping_add(w[t - 7])
            .wrapping_add(s1);
        t += 1;
    }
    let mut t = 0;
    while t < 64 {
        w[t] = w[t].wrapping_add(K[t]);
        t += 1;
    }
    w
};

/// SHA-NI kernel for 64-byte messages, `N` independent messages interleaved (x86-64 with the SHA extensions,
/// detected at run time; no AVX is enabled, so no SSE/AVX transition penalty). The first compression starts
/// from the constant IV, the second uses the precomputed schedule of the constant padding block.
#[cfg(target_arch = "x86_64")]
mod ni {
    use super::{IV, K, PAD64_WK};
    use std::arch::x86_64::*;
    use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

    /// 0 = not probed yet, 1 = no, 2 = yes.
    static HAVE: AtomicU8 = AtomicU8::new(0);

    #[inline(always)]
    pub(super) fn available() -> bool {
        match HAVE.load(Relaxed) {
            2 => true,
            1 => false,
            _ => {
                let yes = std::is_x86_feature_detected!("sha")
                    && std::is_x86_feature_detected!("sse4.1")
                    && std::is_x86_feature_detected!("ssse3");
                HAVE.store(if yes { 2 } else { 1 }, Relaxed);
                yes
            }
        }
    }

    #[inline(always)]
    unsafe fn load4(v: &[u32; 64], r: usize) -> __m128i {
        // SAFETY: `r < 16`, so the 4 words at `4 * r` lie inside `v`; callers hold the target features.
        unsafe { _mm_loadu_si128(v.as_ptr().add(4 * r).cast()) }
    }

    /// Four rounds on one lane with `wk = W + K` for those rounds.
    #[inline(always)]
    unsafe fn rounds4(abef: &mut __m128i, cdgh: &mut __m128i, wk: __m128i) {
        // SAFETY: register-only intrinsics; callers run under `hash_lanes`, which requires the SHA extensions.
        unsafe {
            *cdgh = _mm_sha256rnds2_epu32(*cdgh, *abef, wk);
            *abef = _mm_sha256rnds2_epu32(*abef, *cdgh, _mm_shuffle_epi32(wk, 0x0E));
        }
    }

    /// SHA-256 of `N` 64-byte messages into `N` digests.
    ///
    /// # Safety
    /// The CPU must support SHA, SSSE3 and SSE4.1 ([`available`]); `blocks` and `out` must hold `N` items.
    // Lanes and rounds are indexed explicitly: the interleaving across lanes is the point of this function.
    #[allow(clippy::needless_range_loop)]
    #[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
    pub(super) unsafe fn hash_lanes<const N: usize>(blocks: &[[u8; 64]], out: &mut [[u8; 32]]) {
        // SAFETY: the caller guarantees the CPU features and that `blocks` and `out` hold `N` items (see # Safety); every pointer below stays inside them.
        unsafe {
            // IV in the (ABEF, CDGH) register layout sha256rnds2 works on.
            let dcba = _mm_loadu_si128(IV.as_ptr().cast());
            let hgfe = _mm_loadu_si128(IV.as_ptr().add(4).cast());
            let cdab = _mm_shuffle_epi32(dcba, 0xB1);
            let efgh = _mm_shuffle_epi32(hgfe, 0x1B);
            let abef0 = _mm_alignr_epi8(cdab, efgh, 8);
            let cdgh0 = _mm_blend_epi16(efgh, cdab, 0xF0);

            let bswap = _mm_set_epi64x(0x0C0D_0E0F_0809_0A0B, 0x0405_0607_0001_0203);
            let mut w = [[_mm_setzero_si128(); 4]; N];
            for l in 0..N {
                let p: *const __m128i = blocks[l].as_ptr().cast();
                for (i, wi) in w[l].iter_mut().enumerate() {
                    *wi = _mm_shuffle_epi8(_mm_loadu_si128(p.add(i)), bswap);
                }
            }
            let mut abef = [abef0; N];
            let mut cdgh = [cdgh0; N];
            // Message block, rounds 0..16: the words as loaded.
            for r in 0..4 {
                let k = load4(&K, r);
                for l in 0..N {
                    rounds4(&mut abef[l], &mut cdgh[l], _mm_add_epi32(w[l][r], k));
                }
            }
            // Rounds 16..64 with the message schedule computed 4 words at a time.
            for r in 4..16 {
                let k = load4(&K, r);
                let i = r % 4;
                for l in 0..N {
                    let ws = &mut w[l];
                    let t1 = _mm_sha256msg1_epu32(ws[i], ws[(i + 1) % 4]);
                    let t2 = _mm_alignr_epi8(ws[(i + 3) % 4], ws[(i + 2) % 4], 4);
                    ws[i] = _mm_sha256msg2_epu32(_mm_add_epi32(t1, t2), ws[(i + 3) % 4]);
                    rounds4(&mut abef[l], &mut cdgh[l], _mm_add_epi32(ws[i], k));
                }
            }
            for l in 0..N {
                abef[l] = _mm_add_epi32(abef[l], abef0);
                cdgh[l] = _mm_add_epi32(cdgh[l], cdgh0);
            }
            // Padding block: constant schedule.
            let (sa, sc) = (abef, cdgh);
            for r in 0..16 {
                let wk = load4(&PAD64_WK, r);
                for l in 0..N {
                    rounds4(&mut abef[l], &mut cdgh[l], wk);
                }
            }
            let digest_bswap = _mm_set_epi64x(0x0C0D_0E0F_0809_0A0B, 0x0405_0607_0001_0203);
            for l in 0..N {
                let abef = _mm_add_epi32(abef[l], sa[l]);
                let cdgh = _mm_add_epi32(cdgh[l], sc[l]);
                let feba = _mm_shuffle_epi32(abef, 0x1B);
                let dchg = _mm_shuffle_epi32(cdgh, 0xB1);
                let dcba = _mm_blend_epi16(feba, dchg, 0xF0);
                let hgfe = _mm_alignr_epi8(dchg, feba, 8);
                let o: *mut __m128i = out[l].as_mut_ptr().cast();
                _mm_storeu_si128(o, _mm_shuffle_epi8(dcba, digest_bswap));
                _mm_storeu_si128(o.add(1), _mm_shuffle_epi8(hgfe, digest_bswap));
            }
        }
    }
}

/// Plain SHA-256 of arbitrary bytes (file checksums, not merkleization).
pub fn sha256(data: &[u8]) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(data).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_digest_on_64_bytes() {
        let mut block = [0u8; 64];
        for (i, b) in block.iter_mut().enumerate() {
            *b = (i * 7 + 3) as u8;
        }
        assert_eq!(hash64(&block), sha256(&block));
        assert_eq!(hash64(&[0u8; 64]), sha256(&[0u8; 64]));
    }

    #[test]
    fn kernels_match_digest_on_many_blocks() {
        let input: Vec<u8> = (0..64 * 37)
            .map(|i: usize| (i.wrapping_mul(2654435761) >> 7) as u8)
            .collect();
        let mut out = vec![0u8; 32 * 37];
        // Every tail shape (8-, 4-, 2- and 1-lane groups).
        for n in (1usize..=16).chain([36, 37]) {
            hash_blocks(&input[..64 * n], &mut out[..32 * n]);
            for i in 0..n {
                assert_eq!(
                    &out[i * 32..i * 32 + 32],
                    &sha256(&input[i * 64..i * 64 + 64]),
                    "n {n} i {i}"
                );
                let b: &[u8; 64] = input[i * 64..i * 64 + 64].try_into().unwrap();
                let mut p = [0u8; 32];
                compress64_portable(b, &mut p);
                assert_eq!(p, sha256(b));
            }
        }
    }

    #[test]
    fn batch_equals_single() {
        let input: Vec<u8> = (0..64 * 5).map(|i| (i % 251) as u8).collect();
        let mut out = vec![0u8; 32 * 5];
        hash_blocks(&input, &mut out);
        for i in 0..5 {
            let b: &[u8; 64] = input[i * 64..i * 64 + 64].try_into().unwrap();
            assert_eq!(&out[i * 32..i * 32 + 32], &hash64(b));
        }
    }
}
