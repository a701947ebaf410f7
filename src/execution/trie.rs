//! Ordered Merkle-Patricia trie roots (transactions, receipts, withdrawals): keys are `rlp(index)`, values the
//! items' canonical encodings.
//!
//! Hashing is nearly all the work of verifying a block, so the roots are built here rather than by `alloy-trie`
//! (the implementation reth uses, which the tests check every root against): each leaf node (a few header bytes,
//! then a whole transaction or receipt) is hashed straight from the item's bytes without copying it into a node
//! buffer. `eraflow bench` measured ere verification at 0.39 of its keccak-and-snappy floor with `alloy-trie`'s
//! `ordered_trie_root_encoded`, which copies every value into its leaf node. [`ordered_root_and_hashes`] also
//! hashes the items themselves (the transaction hashes) and any extra messages (the block header, the ommers
//! list) in the same pass, for the light verification path of prune manifests, so no caller hashes the same
//! bytes twice.

use crate::crypto::keccak::{keccak256, keccak256_batch, Message};
use alloy_primitives::B256;

/// Root of the trie of `items` keyed by their position. An empty list gives keccak(rlp("")) (`0x56e8…b421`).
pub fn ordered_root<T: AsRef<[u8]>>(items: &[T]) -> B256 {
    let items: Vec<&[u8]> = items.iter().map(AsRef::as_ref).collect();
    root_and_hashes(&items, &[], false, &mut Vec::new())
}

/// Root of an empty trie: keccak256(rlp("")).
pub const EMPTY_ROOT: B256 =
    alloy_primitives::b256!("56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421");

/// The trie key of item `i`: `rlp(i)` (at most 9 bytes) and its length.
#[derive(Clone, Copy)]
struct Key {
    bytes: [u8; 9],
    len: usize,
}

impl Key {
    fn of(i: usize) -> Key {
        let mut bytes = [0u8; 9];
        let len = match i {
            0 => {
                bytes[0] = 0x80;
                1
            }
            1..=0x7f => {
                bytes[0] = i as u8;
                1
            }
            _ => {
                let be = (i as u64).to_be_bytes();
                let skip = be.iter().take_while(|b| **b == 0).count();
                let n = 8 - skip;
                bytes[0] = 0x80 + n as u8;
                bytes[1..=n].copy_from_slice(&be[skip..]);
                n + 1
            }
        };
        Key { bytes, len }
    }

    fn nibbles(&self) -> usize {
        self.len * 2
    }

    fn nibble(&self, d: usize) -> u8 {
        let b = self.bytes[d / 2];
        if d.is_multiple_of(2) {
            b >> 4
        } else {
            b & 0x0f
        }
    }
}

/// Hex-prefix encoding (yellow paper, appendix C, <https://ethereum.github.io/yellowpaper/paper.pdf>) of
/// nibbles `from..to` of `k`, as an RLP string: at most 10 bytes (a key has at most 18 nibbles), and its length.
fn hp_rlp(k: &Key, from: usize, to: usize, leaf: bool) -> ([u8; 11], usize) {
    let mut hp = [0u8; 10];
    let n = to - from;
    hp[0] = (u8::from(leaf) * 2 + (n % 2) as u8) << 4;
    let mut i = from;
    if n % 2 == 1 {
        hp[0] |= k.nibble(i);
        i += 1;
    }
    let mut len = 1;
    while i < to {
        hp[len] = (k.nibble(i) << 4) | k.nibble(i + 1);
        i += 2;
        len += 1;
    }
    let mut out = [0u8; 11];
    if len == 1 && hp[0] < 0x80 {
        out[0] = hp[0];
        return (out, 1);
    }
    out[0] = 0x80 + len as u8;
    out[1..=len].copy_from_slice(&hp[..len]);
    (out, len + 1)
}

/// Appends the RLP header of a string (`list == false`) or list of `len` payload bytes.
fn push_header(out: &mut Vec<u8>, list: bool, len: usize) {
    let (short, long) = if list { (0xc0u8, 0xf7u8) } else { (0x80, 0xb7) };
    if len <= 55 {
        out.push(short + len as u8);
    } else {
        let be = (len as u64).to_be_bytes();
        let skip = be.iter().take_while(|b| **b == 0).count();
        out.push(long + (8 - skip) as u8);
        out.extend_from_slice(&be[skip..]);
    }
}

/// Whether `v` is RLP-encoded as itself (a single byte below 0x80) rather than behind a string header.
fn is_self_encoded(v: &[u8]) -> bool {
    v.len() == 1 && v[0] < 0x80
}

/// Length of the RLP header of a string or list of `len` payload bytes.
fn header_len(len: usize) -> usize {
    if len <= 55 {
        1
    } else {
        1 + 8 - (len as u64).leading_zeros() as usize / 8
    }
}

/// A node's reference in its parent: its hash, or its encoding when shorter than 32 bytes.
enum NodeRef {
    Hash([u8; 32]),
    Inline(Vec<u8>),
}

impl NodeRef {
    fn of(encoding: Vec<u8>) -> NodeRef {
        if encoding.len() < 32 {
            NodeRef::Inline(encoding)
        } else {
            NodeRef::Hash(keccak256(&encoding).0)
        }
    }

    fn encoded_len(&self) -> usize {
        match self {
            NodeRef::Hash(_) => 33,
            NodeRef::Inline(e) => e.len(),
        }
    }

    fn push_to(&self, out: &mut Vec<u8>) {
        match self {
            NodeRef::Hash(h) => {
                out.push(0xa0);
                out.extend_from_slice(h);
            }
            NodeRef::Inline(e) => out.extend_from_slice(e),
        }
    }
}

/// Where the keys of a sorted group first differ, from `depth` on (they share nibbles `depth..` that point).
fn split_depth(keys: &[(Key, usize)], depth: usize) -> usize {
    let (a, b) = (&keys[0].0, &keys[keys.len() - 1].0);
    let mut d = depth;
    while d < a.nibbles().min(b.nibbles()) && a.nibble(d) == b.nibble(d) {
        d += 1;
    }
    d
}

/// Consecutive runs of `keys` (sorted) with the same nibble at `d`.
fn groups(keys: &[(Key, usize)], d: usize) -> impl Iterator<Item = &[(Key, usize)]> {
    keys.chunk_by(move |a, b| a.0.nibble(d) == b.0.nibble(d))
}

/// Records, for each key in order, the depth at which its leaf sits.
fn leaf_depths(keys: &[(Key, usize)], depth: usize, out: &mut Vec<usize>) {
    if keys.len() == 1 {
        out.push(depth);
        return;
    }
    // Keys are prefix-free (RLP encodings), so a group of two or more always splits into a branch at `d`,
    // behind an extension when `d > depth`.
    let d = split_depth(keys, depth);
    for g in groups(keys, d) {
        leaf_depths(g, d + 1, out);
    }
}

/// Builds the node over `keys` at `depth`, taking leaf references in key order from `leaves`.
fn build(
    keys: &[(Key, usize)],
    depth: usize,
    leaves: &mut impl Iterator<Item = NodeRef>,
) -> NodeRef {
    if keys.len() == 1 {
        return leaves.next().unwrap_or(NodeRef::Inline(vec![0x80]));
    }
    let d = split_depth(keys, depth);
    let mut children: [Option<NodeRef>; 16] = Default::default();
    for g in groups(keys, d) {
        let nib = g[0].0.nibble(d) as usize;
        children[nib] = Some(build(g, d + 1, leaves));
    }
    let payload: usize = children
        .iter()
        .map(|c| c.as_ref().map_or(1, NodeRef::encoded_len))
        .sum::<usize>()
        + 1;
    let mut enc = Vec::with_capacity(payload + 3);
    push_header(&mut enc, true, payload);
    for c in &children {
        match c {
            Some(r) => r.push_to(&mut enc),
            None => enc.push(0x80),
        }
    }
    enc.push(0x80);
    let branch = NodeRef::of(enc);
    if d == depth {
        return branch;
    }
    let (hp, hp_len) = hp_rlp(&keys[0].0, depth, d, false);
    let payload = hp_len + branch.encoded_len();
    let mut ext = Vec::with_capacity(payload + 3);
    push_header(&mut ext, true, payload);
    ext.extend_from_slice(&hp[..hp_len]);
    branch.push_to(&mut ext);
    NodeRef::of(ext)
}

/// A leaf node's bytes before its value: list header, hex-prefixed path, value string header.
struct LeafHead {
    bytes: [u8; 32],
    len: usize,
}

/// Root of the ordered trie of `items` (as [`ordered_root`]), and in `hashes` the keccak256 of each of
/// `extra` followed by that of each item, all computed in one [`keccak256_batch`].
pub fn ordered_root_and_hashes(
    items: &[&[u8]],
    extra: &[&[u8]],
    hashes: &mut Vec<[u8; 32]>,
) -> B256 {
    root_and_hashes(items, extra, true, hashes)
}

/// The root of `items`, and in `hashes` those of `extra` then (when `hash_items`) of each item.
fn root_and_hashes(
    items: &[&[u8]],
    extra: &[&[u8]],
    hash_items: bool,
    hashes: &mut Vec<[u8; 32]>,
) -> B256 {
    let mut keys: Vec<(Key, usize)> = (0..items.len()).map(|i| (Key::of(i), i)).collect();
    keys.sort_unstable_by(|a, b| a.0.bytes[..a.0.len].cmp(&b.0.bytes[..b.0.len]));
    let mut depths = Vec::with_capacity(items.len());
    if !keys.is_empty() {
        leaf_depths(&keys, 0, &mut depths);
    }
    // Each leaf: rlp([hp(rest of key), rlp(value)]).
    let heads: Vec<LeafHead> = keys
        .iter()
        .zip(&depths)
        .map(|((k, i), &depth)| {
            let v = items[*i];
            let (hp, hp_len) = hp_rlp(k, depth, k.nibbles(), true);
            let vh = if is_self_encoded(v) {
                0
            } else {
                header_len(v.len())
            };
            let mut head = Vec::with_capacity(32);
            push_header(&mut head, true, hp_len + vh + v.len());
            head.extend_from_slice(&hp[..hp_len]);
            if vh > 0 {
                push_header(&mut head, false, v.len());
            }
            let mut bytes = [0u8; 32];
            bytes[..head.len()].copy_from_slice(&head);
            LeafHead {
                bytes,
                len: head.len(),
            }
        })
        .collect();

    let mut msgs: Vec<Message<'_>> = Vec::with_capacity(extra.len() + 2 * items.len());
    msgs.extend(extra.iter().map(|e| Message::new(e)));
    if hash_items {
        msgs.extend(items.iter().map(|i| Message::new(i)));
    }
    let base = msgs.len();
    // Leaves of 32 bytes or more are referenced by hash: batch them; shorter ones are embedded.
    for ((_, i), h) in keys.iter().zip(&heads) {
        if h.len + items[*i].len() >= 32 {
            msgs.push(Message {
                head: &h.bytes[..h.len],
                tail: items[*i],
            });
        }
    }
    hashes.clear();
    hashes.resize(msgs.len(), [0u8; 32]);
    keccak256_batch(&msgs, hashes);
    let mut leaf_hashes = hashes[base..].iter();
    let mut refs = keys.iter().zip(&heads).map(|((_, i), h)| {
        let v = items[*i];
        if h.len + v.len() >= 32 {
            NodeRef::Hash(leaf_hashes.next().copied().unwrap_or_default())
        } else {
            NodeRef::Inline([&h.bytes[..h.len], v].concat())
        }
    });
    let root = if keys.is_empty() {
        EMPTY_ROOT
    } else {
        match build(&keys, 0, &mut refs) {
            NodeRef::Hash(h) => B256::from(h),
            NodeRef::Inline(e) => keccak256(&e),
        }
    };
    drop(refs);
    hashes.truncate(base);
    root
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The root `alloy-trie` (reth's implementation) gives the same items.
    fn alloy_root(items: &[&[u8]]) -> B256 {
        alloy_trie::root::ordered_trie_root_encoded(items)
    }

    /// `n` items of 0 to 299 bytes, a different mix for each `n`.
    fn items_of(n: usize) -> Vec<Vec<u8>> {
        (0..n)
            .map(|i| {
                let len = (i * 37 + n) % 300;
                (0..len).map(|j| (i + j * 7) as u8).collect()
            })
            .collect()
    }

    #[test]
    fn roots_equal_alloys() {
        assert_eq!(EMPTY_ROOT, alloy_trie::EMPTY_ROOT_HASH);
        assert_eq!(ordered_root::<&[u8]>(&[]), EMPTY_ROOT);
        for n in (0..140).chain([255, 256, 257, 300, 1000]) {
            let items = items_of(n);
            let refs: Vec<&[u8]> = items.iter().map(|v| v.as_slice()).collect();
            assert_eq!(ordered_root(&refs), alloy_root(&refs), "{n} items");
        }
    }

    #[test]
    fn batched_root_equals_alloy() {
        // Sizes from 0 bytes (inline leaves) to multi-block ones; counts across the 0x7f/0x80 and 0xff/0x100
        // key boundaries.
        for n in (0..140).chain([255, 256, 257, 300]) {
            let items = items_of(n);
            let refs: Vec<&[u8]> = items.iter().map(|v| v.as_slice()).collect();
            let extra: [&[u8]; 2] = [b"header", &[0xc0]];
            let mut hashes = Vec::new();
            let root = ordered_root_and_hashes(&refs, &extra, &mut hashes);
            assert_eq!(root, alloy_root(&refs), "{n} items");
            assert_eq!(hashes.len(), 2 + n);
            assert_eq!(hashes[0], keccak256(b"header").0);
            assert_eq!(hashes[1], keccak256([0xc0]).0);
            for (h, v) in hashes[2..].iter().zip(&refs) {
                assert_eq!(*h, keccak256(v).0);
            }
        }
        // Single-byte values encode as themselves.
        let small: Vec<&[u8]> = vec![&[1], &[0x7f], &[0x80], &[]];
        let mut hashes = Vec::new();
        assert_eq!(
            ordered_root_and_hashes(&small, &[], &mut hashes),
            alloy_root(&small)
        );
        assert_eq!(ordered_root(&small), alloy_root(&small));
    }
}
