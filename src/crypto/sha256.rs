//! SHA-256 for SSZ merkleization: every hash is of exactly one 64-byte block (two 32-byte chunks).
//!
//! We call `sha2::block_api::compress256` directly instead of `Digest`: a 64-byte message is always the
//! message block plus one constant padding block, so two compressions and no buffering. The `Digest`
//! path measured ~115 ns per pair against ~88 ns for two raw compressions (see `benches/hashing.rs`),
//! and it also suffers from the AVX/SHA-NI transition penalty described in ARCHITECTURE.md.

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

/// SHA-256 initial hash value (FIPS 180-4 §5.3.3).
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
    for (b, o) in blocks.iter().zip(outs) {
        compress64(b, o);
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
