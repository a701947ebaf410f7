//! SplitMix64, the generator behind synthetic archives.
//!
//! Hand-written on purpose: fixtures must stay byte-identical across releases, and `rand`'s generators and
//! distributions are explicitly allowed to change between versions. Ten lines pin the stream forever.

/// A deterministic 64-bit generator (Steele, Lea, Flood 2014).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`, separated into independent streams by `stream`.
    pub fn new(seed: u64, stream: u64) -> Self {
        let mut r = Rng(seed ^ stream.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        r.next_u64();
        r
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0; the tiny modulo bias is irrelevant for fixtures).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// True with probability `num / den`.
    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        self.below(den) < num
    }

    /// `N` random bytes.
    pub fn bytes<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0u8; N];
        self.fill(&mut out);
        out
    }

    /// Fills `buf` with random bytes.
    pub fn fill(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(8) {
            let v = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }

    /// `min + below(extra)` random bytes with roughly a third zeros, like real calldata.
    pub fn calldata(&mut self, min: usize, extra: u64) -> Vec<u8> {
        let n = min + self.below(extra) as usize;
        (0..n)
            .map(|_| {
                if self.chance(1, 3) {
                    0
                } else {
                    self.next_u64() as u8
                }
            })
            .collect()
    }
}
