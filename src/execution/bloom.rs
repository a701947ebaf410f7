//! The 2048-bit logs bloom (yellow paper §4.3.1, M3:2048): for each log, its address and every topic set three
//! bits taken from the first six bytes of their keccak256.
//!
//! Yellow paper: <https://ethereum.github.io/yellowpaper/paper.pdf>.

use crate::crypto::keccak::keccak256;

/// Size of a bloom in bytes.
pub const BLOOM_LEN: usize = 256;

/// Sets the three bits of `data` in `bloom`.
#[inline]
pub fn accrue(bloom: &mut [u8; BLOOM_LEN], data: &[u8]) {
    let h = keccak256(data);
    for i in 0..3 {
        let bit = (((h[2 * i] as usize) << 8) | h[2 * i + 1] as usize) & 2047;
        bloom[BLOOM_LEN - 1 - bit / 8] |= 1 << (bit % 8);
    }
}

/// ORs `other` into `bloom`.
#[inline]
pub fn union(bloom: &mut [u8; BLOOM_LEN], other: &[u8; BLOOM_LEN]) {
    for (a, b) in bloom.iter_mut().zip(other) {
        *a |= b;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_alloy_bloom() {
        let addr = [0x11u8; 20];
        let topic = [0x22u8; 32];
        let mut ours = [0u8; BLOOM_LEN];
        accrue(&mut ours, &addr);
        accrue(&mut ours, &topic);
        let mut theirs = alloy_primitives::Bloom::default();
        theirs.accrue(alloy_primitives::BloomInput::Raw(&addr));
        theirs.accrue(alloy_primitives::BloomInput::Raw(&topic));
        assert_eq!(&ours, theirs.as_slice());
    }
}
