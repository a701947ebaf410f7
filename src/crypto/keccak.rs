//! keccak256, the execution layer's hash. One place so a faster backend (keccak-asm) is one change.
//!
//! Besides the one-message [`keccak256`] (keccak-asm, via alloy), [`keccak256_batch`] hashes many independent
//! messages at once: on x86-64 CPUs with AVX2 (detected at run time; the build stays portable) four messages
//! share one 4-lane Keccak-f[1600] permutation, which costs far less than four scalar ones. Verification uses
//! it where the work is naturally many messages: every transaction's hash together with the transactions-trie
//! leaves over the same bytes (see `execution::trie::OrderedTrie`).

pub use alloy_primitives::{keccak256, B256};

/// keccak256 of the empty string: `transactions_root`/`receipts_root` of an empty trie hash to
/// keccak(rlp("")) instead, see `execution::trie`.
pub const KECCAK_EMPTY: B256 =
    alloy_primitives::b256!("c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470");

/// One message of a [`keccak256_batch`]: the bytes of `head` followed by those of `tail`. Two parts so a
/// trie leaf (a few header bytes, then a transaction's bytes as stored) is hashed without copying the
/// transaction; a plain message has an empty `head`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Message<'a> {
    /// The first bytes of the message.
    pub head: &'a [u8],
    /// The rest of the message.
    pub tail: &'a [u8],
}

impl<'a> Message<'a> {
    /// A message of one part.
    pub fn new(bytes: &'a [u8]) -> Self {
        Message {
            head: &[],
            tail: bytes,
        }
    }

    fn len(&self) -> usize {
        self.head.len() + self.tail.len()
    }
}

/// keccak256 of each message into the matching slot of `out` (extra slots on either side are left alone).
/// Same digests as [`keccak256`] of each message's bytes; faster when there are several messages and the CPU
/// has AVX2.
pub fn keccak256_batch(msgs: &[Message<'_>], out: &mut [[u8; 32]]) {
    let n = msgs.len().min(out.len());
    #[cfg(target_arch = "x86_64")]
    if n >= 2 && std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above), the only requirement of `x4::hash`.
        unsafe { x4::hash(&msgs[..n], &mut out[..n]) };
        return;
    }
    for (m, o) in msgs.iter().zip(out.iter_mut()) {
        *o = keccak256_message(m);
    }
}

/// keccak256 of one two-part message with the scalar backend.
pub fn keccak256_message(m: &Message<'_>) -> [u8; 32] {
    if m.head.is_empty() {
        return keccak256(m.tail).0;
    }
    let mut h = alloy_primitives::Keccak256::new();
    h.update(m.head);
    h.update(m.tail);
    h.finalize().0
}

/// Four Keccak-f[1600] states interleaved in AVX2 registers (word `w` of lanes 0..3 in `state[w]`), fed by a
/// queue of messages: whenever a lane finishes its message, it starts the next, so lanes stay busy until the
/// queue runs dry.
#[cfg(target_arch = "x86_64")]
mod x4 {
    use super::Message;
    use std::arch::x86_64::*;

    /// keccak256's rate: 136 bytes, 17 little-endian words absorbed per permutation.
    const RATE: usize = 136;
    const WORDS: usize = RATE / 8;

    const RC: [u64; 24] = [
        0x0000000000000001,
        0x0000000000008082,
        0x800000000000808A,
        0x8000000080008000,
        0x000000000000808B,
        0x0000000080000001,
        0x8000000080008081,
        0x8000000000008009,
        0x000000000000008A,
        0x0000000000000088,
        0x0000000080008009,
        0x000000008000000A,
        0x000000008000808B,
        0x800000000000008B,
        0x8000000000008089,
        0x8000000000008003,
        0x8000000000008002,
        0x8000000000000080,
        0x000000000000800A,
        0x800000008000000A,
        0x8000000080008081,
        0x8000000000008080,
        0x0000000080000001,
        0x8000000080008008,
    ];

    #[inline]
    #[target_feature(enable = "avx2")]
    fn rol<const L: i32, const R: i32>(v: __m256i) -> __m256i {
        _mm256_or_si256(_mm256_slli_epi64::<L>(v), _mm256_srli_epi64::<R>(v))
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn xor5(a: __m256i, b: __m256i, c: __m256i, d: __m256i, e: __m256i) -> __m256i {
        _mm256_xor_si256(
            _mm256_xor_si256(_mm256_xor_si256(a, b), _mm256_xor_si256(c, d)),
            e,
        )
    }

    /// Keccak-f[1600] on all four lanes: theta, rho and pi into `b*`, then chi and iota back into `a`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn permute(a: &mut [__m256i; 25]) {
        for rc in RC {
            let c0 = xor5(a[0], a[5], a[10], a[15], a[20]);
            let c1 = xor5(a[1], a[6], a[11], a[16], a[21]);
            let c2 = xor5(a[2], a[7], a[12], a[17], a[22]);
            let c3 = xor5(a[3], a[8], a[13], a[18], a[23]);
            let c4 = xor5(a[4], a[9], a[14], a[19], a[24]);
            let d0 = _mm256_xor_si256(c4, rol::<1, 63>(c1));
            let d1 = _mm256_xor_si256(c0, rol::<1, 63>(c2));
            let d2 = _mm256_xor_si256(c1, rol::<1, 63>(c3));
            let d3 = _mm256_xor_si256(c2, rol::<1, 63>(c4));
            let d4 = _mm256_xor_si256(c3, rol::<1, 63>(c0));
            let b0 = _mm256_xor_si256(a[0], d0);
            let b1 = rol::<44, 20>(_mm256_xor_si256(a[6], d1));
            let b2 = rol::<43, 21>(_mm256_xor_si256(a[12], d2));
            let b3 = rol::<21, 43>(_mm256_xor_si256(a[18], d3));
            let b4 = rol::<14, 50>(_mm256_xor_si256(a[24], d4));
            let b5 = rol::<28, 36>(_mm256_xor_si256(a[3], d3));
            let b6 = rol::<20, 44>(_mm256_xor_si256(a[9], d4));
            let b7 = rol::<3, 61>(_mm256_xor_si256(a[10], d0));
            let b8 = rol::<45, 19>(_mm256_xor_si256(a[16], d1));
            let b9 = rol::<61, 3>(_mm256_xor_si256(a[22], d2));
            let b10 = rol::<1, 63>(_mm256_xor_si256(a[1], d1));
            let b11 = rol::<6, 58>(_mm256_xor_si256(a[7], d2));
            let b12 = rol::<25, 39>(_mm256_xor_si256(a[13], d3));
            let b13 = rol::<8, 56>(_mm256_xor_si256(a[19], d4));
            let b14 = rol::<18, 46>(_mm256_xor_si256(a[20], d0));
            let b15 = rol::<27, 37>(_mm256_xor_si256(a[4], d4));
            let b16 = rol::<36, 28>(_mm256_xor_si256(a[5], d0));
            let b17 = rol::<10, 54>(_mm256_xor_si256(a[11], d1));
            let b18 = rol::<15, 49>(_mm256_xor_si256(a[17], d2));
            let b19 = rol::<56, 8>(_mm256_xor_si256(a[23], d3));
            let b20 = rol::<62, 2>(_mm256_xor_si256(a[2], d2));
            let b21 = rol::<55, 9>(_mm256_xor_si256(a[8], d3));
            let b22 = rol::<39, 25>(_mm256_xor_si256(a[14], d4));
            let b23 = rol::<41, 23>(_mm256_xor_si256(a[15], d0));
            let b24 = rol::<2, 62>(_mm256_xor_si256(a[21], d1));
            a[0] = _mm256_xor_si256(b0, _mm256_andnot_si256(b1, b2));
            a[1] = _mm256_xor_si256(b1, _mm256_andnot_si256(b2, b3));
            a[2] = _mm256_xor_si256(b2, _mm256_andnot_si256(b3, b4));
            a[3] = _mm256_xor_si256(b3, _mm256_andnot_si256(b4, b0));
            a[4] = _mm256_xor_si256(b4, _mm256_andnot_si256(b0, b1));
            a[5] = _mm256_xor_si256(b5, _mm256_andnot_si256(b6, b7));
            a[6] = _mm256_xor_si256(b6, _mm256_andnot_si256(b7, b8));
            a[7] = _mm256_xor_si256(b7, _mm256_andnot_si256(b8, b9));
            a[8] = _mm256_xor_si256(b8, _mm256_andnot_si256(b9, b5));
            a[9] = _mm256_xor_si256(b9, _mm256_andnot_si256(b5, b6));
            a[10] = _mm256_xor_si256(b10, _mm256_andnot_si256(b11, b12));
            a[11] = _mm256_xor_si256(b11, _mm256_andnot_si256(b12, b13));
            a[12] = _mm256_xor_si256(b12, _mm256_andnot_si256(b13, b14));
            a[13] = _mm256_xor_si256(b13, _mm256_andnot_si256(b14, b10));
            a[14] = _mm256_xor_si256(b14, _mm256_andnot_si256(b10, b11));
            a[15] = _mm256_xor_si256(b15, _mm256_andnot_si256(b16, b17));
            a[16] = _mm256_xor_si256(b16, _mm256_andnot_si256(b17, b18));
            a[17] = _mm256_xor_si256(b17, _mm256_andnot_si256(b18, b19));
            a[18] = _mm256_xor_si256(b18, _mm256_andnot_si256(b19, b15));
            a[19] = _mm256_xor_si256(b19, _mm256_andnot_si256(b15, b16));
            a[20] = _mm256_xor_si256(b20, _mm256_andnot_si256(b21, b22));
            a[21] = _mm256_xor_si256(b21, _mm256_andnot_si256(b22, b23));
            a[22] = _mm256_xor_si256(b22, _mm256_andnot_si256(b23, b24));
            a[23] = _mm256_xor_si256(b23, _mm256_andnot_si256(b24, b20));
            a[24] = _mm256_xor_si256(b24, _mm256_andnot_si256(b20, b21));
            a[0] = _mm256_xor_si256(a[0], _mm256_set1_epi64x(rc as i64));
        }
    }

    /// Where a lane is: which message, and how many of its bytes were absorbed.
    #[derive(Clone, Copy)]
    struct Cursor {
        msg: usize,
        pos: usize,
    }

    /// The lane's next 136-byte block: the message bytes from `pos`, padded (keccak's 0x01 .. 0x80) when they
    /// are its last. Returns whether this is the final block.
    fn fill_block(m: &Message<'_>, pos: usize, buf: &mut [u8; RATE]) -> bool {
        let len = m.len();
        let take = (len - pos).min(RATE);
        buf.fill(0);
        let mut written = 0;
        if pos < m.head.len() {
            let h = &m.head[pos..m.head.len().min(pos + take)];
            buf[..h.len()].copy_from_slice(h);
            written = h.len();
        }
        if written < take {
            let start = pos + written - m.head.len();
            let t = &m.tail[start..start + (take - written)];
            buf[written..take].copy_from_slice(t);
        }
        if take < RATE {
            buf[take] ^= 0x01;
            buf[RATE - 1] ^= 0x80;
            true
        } else {
            false
        }
    }

    #[inline]
    fn word(b: &[u8], w: usize) -> i64 {
        let mut x = [0u8; 8];
        x.copy_from_slice(&b[w * 8..w * 8 + 8]);
        i64::from_le_bytes(x)
    }

    /// Lane `l` of `v`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn lane(v: __m256i, l: usize) -> u64 {
        (match l {
            0 => _mm256_extract_epi64::<0>(v),
            1 => _mm256_extract_epi64::<1>(v),
            2 => _mm256_extract_epi64::<2>(v),
            _ => _mm256_extract_epi64::<3>(v),
        }) as u64
    }

    /// keccak256 of every message into `out` (same length).
    #[target_feature(enable = "avx2")]
    pub(super) fn hash(msgs: &[Message<'_>], out: &mut [[u8; 32]]) {
        let mut state = [_mm256_setzero_si256(); 25];
        // Clearing lane l: AND with all ones except lane l.
        let keep = [
            _mm256_set_epi64x(-1, -1, -1, 0),
            _mm256_set_epi64x(-1, -1, 0, -1),
            _mm256_set_epi64x(-1, 0, -1, -1),
            _mm256_set_epi64x(0, -1, -1, -1),
        ];
        let mut lanes: [Option<Cursor>; 4] = [None; 4];
        let mut bufs = [[0u8; RATE]; 4];
        // Longest messages first, so the last steps, where lanes may run empty, are short ones.
        let mut order: Vec<usize> = (0..msgs.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(msgs[i].len() / RATE));
        let mut queue = order.into_iter();
        loop {
            for (l, slot) in lanes.iter_mut().enumerate() {
                if slot.is_some() {
                    continue;
                }
                if let Some(msg) = queue.next() {
                    *slot = Some(Cursor { msg, pos: 0 });
                    for s in state.iter_mut() {
                        *s = _mm256_and_si256(*s, keep[l]);
                    }
                }
            }
            if lanes.iter().all(Option::is_none) {
                break;
            }
            let mut last = [false; 4];
            let mut direct: [&[u8]; 4] = [&[]; 4];
            for l in 0..4 {
                let Some(c) = lanes[l] else {
                    bufs[l].fill(0);
                    continue;
                };
                let m = &msgs[c.msg];
                if c.pos >= m.head.len() && m.len() - c.pos >= RATE {
                    // A whole block inside the tail: read it in place.
                    let s = c.pos - m.head.len();
                    direct[l] = &m.tail[s..s + RATE];
                } else {
                    last[l] = fill_block(m, c.pos, &mut bufs[l]);
                }
            }
            let blocks: [&[u8]; 4] = [
                if direct[0].is_empty() {
                    &bufs[0][..]
                } else {
                    direct[0]
                },
                if direct[1].is_empty() {
                    &bufs[1][..]
                } else {
                    direct[1]
                },
                if direct[2].is_empty() {
                    &bufs[2][..]
                } else {
                    direct[2]
                },
                if direct[3].is_empty() {
                    &bufs[3][..]
                } else {
                    direct[3]
                },
            ];
            for (w, s) in state.iter_mut().enumerate().take(WORDS) {
                let v = _mm256_set_epi64x(
                    word(blocks[3], w),
                    word(blocks[2], w),
                    word(blocks[1], w),
                    word(blocks[0], w),
                );
                *s = _mm256_xor_si256(*s, v);
            }
            permute(&mut state);
            for l in 0..4 {
                let Some(c) = lanes[l].as_mut() else {
                    continue;
                };
                if last[l] {
                    if let Some(o) = out.get_mut(c.msg) {
                        for (w, chunk) in o.chunks_exact_mut(8).enumerate() {
                            chunk.copy_from_slice(&lane(state[w], l).to_le_bytes());
                        }
                    }
                    lanes[l] = None;
                } else {
                    c.pos += RATE;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(n: usize, seed: u8) -> Vec<u8> {
        (0..n)
            .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
            .collect()
    }

    #[test]
    fn batch_equals_one_by_one() {
        // Lengths around every block boundary, in varied order so lanes finish at different steps.
        let lens: Vec<usize> = (0..300)
            .chain([135, 136, 137, 271, 272, 273, 1000, 4096])
            .rev()
            .collect();
        let data: Vec<Vec<u8>> = lens
            .iter()
            .enumerate()
            .map(|(i, &n)| bytes(n, i as u8))
            .collect();
        let mut msgs: Vec<Message<'_>> = Vec::new();
        for (i, d) in data.iter().enumerate() {
            // Split some messages into head and tail at varied points, including empty tails.
            let cut = if i % 3 == 0 {
                0
            } else {
                (i * 7) % (d.len() + 1)
            };
            msgs.push(Message {
                head: &d[..cut],
                tail: &d[cut..],
            });
        }
        for n in [0, 1, 2, 3, 4, 5, 7, msgs.len()] {
            let mut out = vec![[0u8; 32]; n];
            keccak256_batch(&msgs[..n], &mut out);
            for (k, (m, o)) in msgs.iter().zip(&out).enumerate() {
                let whole = [m.head, m.tail].concat();
                assert_eq!(*o, keccak256(&whole).0, "message {k} of {n}");
                assert_eq!(keccak256_message(m), keccak256(&whole).0);
            }
        }
    }
}
