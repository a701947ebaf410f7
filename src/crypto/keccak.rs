//! keccak256, the execution layer's hash. One place so a faster backend (keccak-asm) is one change.
//!
//! Besides the one-message [`keccak256`] (keccak-asm, via alloy), [`keccak256_batch`] hashes many independent
//! two-part messages (a trie leaf's few header bytes, then a transaction's bytes as stored) without copying
//! them into one buffer. It is where a multi-lane backend would go; a 4-lane AVX2 Keccak-f\[1600\] was measured
//! for it and left out: on the reference machine (AMD EPYC, Zen 1, which splits every 256-bit operation in
//! two) four lanes cost as much as four keccak-asm permutations (the prune bench's floor with it: 136 ms
//! against 132 ms one message at a time), so it only added code.

pub use alloy_primitives::B256;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Mutex;

static RECORDING: AtomicBool = AtomicBool::new(false);
static LENGTHS: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// Starts or stops recording the length of every message hashed (benchmarks use it for the floor of a
/// verification: the same messages, hashed and nothing else, in the same run). Recording is process-wide.
pub fn set_recording(on: bool) {
    RECORDING.store(on, Relaxed);
}

/// The lengths of the messages hashed since the previous call (while recording was on), in order.
pub fn take_recorded() -> Vec<u32> {
    LENGTHS
        .lock()
        .map(|mut v| std::mem::take(&mut *v))
        .unwrap_or_default()
}

/// Records one message's length when recording is on (one relaxed load otherwise).
#[inline(always)]
fn count(len: usize) {
    if RECORDING.load(Relaxed) {
        if let Ok(mut v) = LENGTHS.lock() {
            v.push(u32::try_from(len).unwrap_or(u32::MAX));
        }
    }
}

/// keccak256 of `data` (keccak-asm, via alloy), its length recorded when [`set_recording`] is on.
#[inline]
pub fn keccak256(data: impl AsRef<[u8]>) -> B256 {
    let data = data.as_ref();
    count(data.len());
    alloy_primitives::keccak256(data)
}

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
}

/// keccak256 of each message into the matching slot of `out` (extra slots on either side are left alone).
/// Same digests as [`keccak256`] of each message's bytes.
pub fn keccak256_batch(msgs: &[Message<'_>], out: &mut [[u8; 32]]) {
    for (m, o) in msgs.iter().zip(out.iter_mut()) {
        *o = keccak256_message(m);
    }
}

/// keccak256 of one two-part message with the scalar backend.
pub fn keccak256_message(m: &Message<'_>) -> [u8; 32] {
    count(m.head.len() + m.tail.len());
    if m.head.is_empty() {
        return alloy_primitives::keccak256(m.tail).0;
    }
    let mut h = alloy_primitives::Keccak256::new();
    h.update(m.head);
    h.update(m.tail);
    h.finalize().0
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
        // Lengths around every block boundary, split into head and tail at varied points.
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
