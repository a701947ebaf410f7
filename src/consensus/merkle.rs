//! SSZ merkleization straight from serialized bytes.
//!
//! Spec facts used (consensus-specs `ssz/simple-serialize.md`, "Merkleization",
//! <https://github.com/ethereum/consensus-specs/blob/master/ssz/simple-serialize.md#merkleization>):
//! - `merkleize(chunks, limit)` pads the chunk list with zero chunks up to `next_pow_of_two(limit)` and hashes
//!   pairs with SHA-256 up to a single root; with no chunks and limit 0 the root is the zero chunk.
//! - `pack` of basic values is their serialization right-padded with zero bytes to a multiple of 32.
//! - `mix_in_length(root, length) = hash(root + length.to_bytes(32, "little"))`.
//!
//! The padding is never materialised: a subtree made only of padding has the precomputed root
//! `ZERO_HASHES[level]` (the root of `2^level` zero chunks). Real chunks are hashed from the input slice in
//! place (layer 1 reads the caller's bytes, only upper layers go to a reused per-thread buffer), many
//! independent 64-byte blocks per [`sha256::hash_blocks`] call so a multi-buffer hasher fits in. Trees bigger
//! than [`PAR_MIN_CHUNKS`] are split at power-of-two subtree boundaries with `rayon::join`; since the split
//! points are fixed by the tree shape, the root does not depend on the number of threads.

use crate::crypto::sha256;
use std::cell::RefCell;
use std::ops::Range;
use std::sync::OnceLock;

/// SSZ hashes 32-byte chunks (`BYTES_PER_CHUNK`).
pub const CHUNK: usize = 32;

/// Deepest tree we precompute padding for: list limits in the specs stay far below 2^64 chunks.
pub const MAX_DEPTH: usize = 64;

/// Subtrees of at most `2^LEAF_LEVEL` chunks (32 KiB) are hashed layer by layer in one cache-resident buffer;
/// above that the tree is walked recursively (and possibly in parallel).
const LEAF_LEVEL: u32 = 10;

/// Subtrees of at least this many chunks (512 KiB of leaves, ~16k hashes, tens of microseconds) are split
/// across rayon workers; smaller ones are not worth a task.
pub const PAR_MIN_CHUNKS: usize = 1 << 14;

/// `ZERO_HASHES[i]` = root of a perfect tree of `2^i` zero chunks (`ZERO_HASHES[0]` is the zero chunk).
fn zero_hashes() -> &'static [[u8; 32]; MAX_DEPTH + 1] {
    static Z: OnceLock<[[u8; 32]; MAX_DEPTH + 1]> = OnceLock::new();
    Z.get_or_init(|| {
        let mut z = [[0u8; 32]; MAX_DEPTH + 1];
        for i in 1..=MAX_DEPTH {
            z[i] = sha256::hash_pair(&z[i - 1], &z[i - 1]);
        }
        z
    })
}

/// The root of `2^level` zero chunks: the value of every virtual padding subtree at that height.
///
/// Levels above [`MAX_DEPTH`] are clamped (no SSZ type comes near them).
#[inline]
pub fn zero_hash(level: u32) -> &'static [u8; 32] {
    let z = zero_hashes();
    &z[(level as usize).min(MAX_DEPTH)]
}

/// Tree depth for a chunk limit: `ceil(log2(limit))`, 0 for limits 0 and 1 (spec: `next_pow_of_two`).
#[inline]
pub fn depth_for(limit_chunks: u64) -> u32 {
    if limit_chunks <= 1 {
        0
    } else {
        64 - (limit_chunks - 1).leading_zeros()
    }
}

/// Chunks needed for `bytes` bytes of packed basic values (spec `(N * size + 31) // 32`).
#[inline]
pub fn chunks_for_bytes(bytes: u64) -> u64 {
    bytes.div_ceil(CHUNK as u64)
}

/// `mix_in_length`: the root of a list is its data root hashed with its length (little-endian, 32 bytes).
#[inline]
pub fn mix_in_length(root: &[u8; 32], length: u64) -> [u8; 32] {
    let mut len = [0u8; 32];
    len[..8].copy_from_slice(&length.to_le_bytes());
    sha256::hash_pair(root, &len)
}

/// EIP-7916 `merkleize_progressive` of the chunks packed in `bytes` (a final partial chunk zero-padded): the
/// first chunk, the next 4, the next 16, ... each merkleized as a binary tree of that width, chained to the
/// right: `hash(subtree_0, hash(subtree_1, ... hash(subtree_k, zero)))`. No chunks: the zero chunk.
pub fn merkleize_progressive(bytes: &[u8]) -> [u8; 32] {
    merkleize_progressive_leaves(&Packed(bytes))
}

/// [`merkleize_progressive`] of any leaves: each subtree (1, 4, 16, ... leaves) merkleized by
/// [`merkleize_leaves`] over its slice of them, so big subtrees are hashed in batches and in parallel, and
/// computed leaves (element roots) are made as each subtree needs them.
pub fn merkleize_progressive_leaves<L: Leaves + ?Sized>(leaves: &L) -> [u8; 32] {
    let n = leaves.count();
    let mut subtrees = Vec::new();
    let (mut start, mut width) = (0usize, 1usize);
    while start < n {
        let end = (start + width).min(n);
        let part = Slice {
            inner: leaves,
            offset: start,
            count: end - start,
        };
        subtrees.push(merkleize_leaves(&part, width as u64));
        start = end;
        width = width.saturating_mul(4);
    }
    let mut root = [0u8; 32];
    for s in subtrees.iter().rev() {
        root = sha256::hash_pair(s, &root);
    }
    root
}

/// Leaves `offset .. offset + count` of another source.
struct Slice<'a, L: ?Sized> {
    inner: &'a L,
    offset: usize,
    count: usize,
}

impl<L: Leaves + ?Sized> Leaves for Slice<'_, L> {
    fn count(&self) -> usize {
        self.count
    }
    fn direct(&self, range: Range<usize>) -> Option<&[u8]> {
        self.inner
            .direct(range.start + self.offset..range.end + self.offset)
    }
    fn fill(&self, range: Range<usize>, out: &mut Vec<u8>) {
        self.inner
            .fill(range.start + self.offset..range.end + self.offset, out)
    }
    fn par_min(&self) -> usize {
        self.inner.par_min()
    }
}

/// EIP-7495 `mix_in_active_fields`: a progressive container's root hashed with its active-fields bits packed
/// into one chunk (bit `i` of byte `i / 8`).
pub fn mix_in_active_fields(root: &[u8; 32], active_fields: &[u8]) -> [u8; 32] {
    let mut bits = [0u8; 32];
    for (i, &a) in active_fields.iter().enumerate().take(256) {
        bits[i / 8] |= (a & 1) << (i % 8);
    }
    sha256::hash_pair(root, &bits)
}

/// Merkleize packed data: `chunks` is the serialization of basic values or of 32-byte roots; a final partial
/// chunk is zero-padded (the spec's `pack`), and the tree is padded up to `limit_chunks` with zero subtrees.
///
/// The caller checks `chunks.len() <= 32 * limit_chunks` (SSZ views do, with a typed error); if it does not
/// hold, the tree is silently made deep enough to hold every chunk.
pub fn merkleize(chunks: &[u8], limit_chunks: u64) -> [u8; 32] {
    merkleize_leaves(&Packed(chunks), limit_chunks)
}

/// A source of 32-byte leaves for [`merkleize_leaves`]: either chunks present verbatim in the input
/// ([`Leaves::direct`], hashed in place) or leaves computed on demand in batches ([`Leaves::fill`], e.g. the
/// roots of validators), so no list of leaves for the whole tree is ever built.
pub trait Leaves: Sync {
    /// Number of leaves.
    fn count(&self) -> usize;
    /// The bytes of leaves `range` when they exist verbatim (the last chunk may be partial: zero-padded).
    fn direct(&self, range: Range<usize>) -> Option<&[u8]>;
    /// Appends the 32-byte leaves of `range` to `out` (only called when `direct` gave `None`).
    fn fill(&self, range: Range<usize>, out: &mut Vec<u8>);
    /// Subtrees with at least this many leaves are split across rayon workers.
    fn par_min(&self) -> usize {
        PAR_MIN_CHUNKS
    }
}

/// Packed bytes as leaves: chunk `i` is `bytes[32 i .. 32 i + 32]`.
struct Packed<'a>(&'a [u8]);

impl Leaves for Packed<'_> {
    fn count(&self) -> usize {
        self.0.len().div_ceil(CHUNK)
    }
    fn direct(&self, range: Range<usize>) -> Option<&[u8]> {
        let end = (range.end * CHUNK).min(self.0.len());
        self.0.get(range.start * CHUNK..end)
    }
    fn fill(&self, _: Range<usize>, _: &mut Vec<u8>) {}
}

/// Merkleize any [`Leaves`] source up to `limit_chunks` (see [`merkleize`]).
pub fn merkleize_leaves<L: Leaves + ?Sized>(leaves: &L, limit_chunks: u64) -> [u8; 32] {
    let n = leaves.count();
    let depth = depth_for(limit_chunks.max(n as u64));
    node(leaves, 0, n, depth)
}

thread_local! {
    /// Upper layers of leaf subtrees: grown once per thread, never zero-filled again.
    static LAYERS: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    /// Computed leaves of one leaf subtree (e.g. 1024 validator roots).
    static FILLED: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Root of the subtree of height `level` whose first leaf is `start` (leaves `start..end` are real).
fn node<L: Leaves + ?Sized>(leaves: &L, start: usize, end: usize, level: u32) -> [u8; 32] {
    let n = end.saturating_sub(start);
    if n == 0 {
        return *zero_hash(level);
    }
    if n <= 1 << LEAF_LEVEL || level == 0 {
        return leaf_subtree(leaves, start..end, level);
    }
    // Here 2^LEAF_LEVEL < n <= 2^level, so level > LEAF_LEVEL >= 1.
    let half = 1usize << (level - 1);
    if n <= half {
        let left = node(leaves, start, end, level - 1);
        return sha256::hash_pair(&left, zero_hash(level - 1));
    }
    let mid = start + half;
    let (left, right) = if n >= leaves.par_min() {
        rayon::join(
            || node(leaves, start, mid, level - 1),
            || node(leaves, mid, end, level - 1),
        )
    } else {
        (
            node(leaves, start, mid, level - 1),
            node(leaves, mid, end, level - 1),
        )
    };
    sha256::hash_pair(&left, &right)
}

fn leaf_subtree<L: Leaves + ?Sized>(leaves: &L, range: Range<usize>, level: u32) -> [u8; 32] {
    LAYERS.with(|layers| {
        let mut own_layers = Vec::new();
        let mut guard = layers.try_borrow_mut();
        let layers: &mut Vec<u8> = match guard.as_deref_mut() {
            Ok(l) => l,
            Err(_) => &mut own_layers,
        };
        if let Some(d) = leaves.direct(range.clone()) {
            return subtree(d, level, layers);
        }
        FILLED.with(|filled| {
            let mut own_filled = Vec::new();
            let mut guard = filled.try_borrow_mut();
            let filled: &mut Vec<u8> = match guard.as_deref_mut() {
                Ok(f) => f,
                Err(_) => &mut own_filled,
            };
            filled.clear();
            leaves.fill(range, filled);
            subtree(filled, level, layers)
        })
    })
}

/// Root of a subtree of height `level` over `chunks` (at most `2^level` chunks, last one possibly partial),
/// zero-padded. Layer 1 is hashed straight from `chunks`; upper layers live contiguously in `layers`.
fn subtree(chunks: &[u8], level: u32, layers: &mut Vec<u8>) -> [u8; 32] {
    let n = chunks.len().div_ceil(CHUNK);
    if n == 0 {
        return *zero_hash(level);
    }
    // Room for every upper layer: ceil(n/2) + ceil(n/4) + ... < n + level chunks.
    let need = (n + level as usize + 1) * CHUNK;
    if layers.len() < need {
        layers.resize(need, 0);
    }
    let mut count = n;
    let mut lvl = 0u32;
    let mut src_start = usize::MAX; // usize::MAX: the source layer is `chunks` itself
    let mut src_len = chunks.len();
    let mut off = 0usize;
    while count > 1 {
        let out_count = count.div_ceil(2);
        let (done, rest) = layers.split_at_mut(off);
        let src: &[u8] = if src_start == usize::MAX {
            chunks
        } else {
            &done[src_start..src_start + src_len]
        };
        let dst = &mut rest[..out_count * CHUNK];
        let full = src.len() / 64;
        let (pairs, rem) = src.split_at(full * 64);
        let (dst_full, dst_rem) = dst.split_at_mut(full * CHUNK);
        sha256::hash_blocks(pairs, dst_full);
        if !rem.is_empty() {
            // An odd last chunk (its sibling is a zero subtree of this height), or at layer 0 a full chunk
            // followed by a partial one (zero-padded by `pack`).
            let mut block = [0u8; 64];
            block[..rem.len()].copy_from_slice(rem);
            if rem.len() <= CHUNK {
                block[CHUNK..].copy_from_slice(zero_hash(lvl));
            }
            let mut out = [0u8; 32];
            sha256::hash64_into(&block, &mut out);
            dst_rem[..CHUNK].copy_from_slice(&out);
        }
        src_start = off;
        src_len = out_count * CHUNK;
        off += src_len;
        count = out_count;
        lvl += 1;
    }
    let mut root = [0u8; 32];
    if src_start == usize::MAX {
        root[..chunks.len()].copy_from_slice(chunks);
    } else {
        root.copy_from_slice(&layers[src_start..src_start + CHUNK]);
    }
    while lvl < level {
        root = sha256::hash_pair(&root, zero_hash(lvl));
        lvl += 1;
    }
    root
}

/// A value in a [`Forest`]: a chunk known now (height 0: recorded with [`Forest::known`], or a zero subtree's
/// root), or the output of a node hashed when the forest is evaluated.
///
/// Eight bytes, so the walk moves values in registers: as an enum carrying the 32-byte chunk (36 bytes) its
/// copies through the recording stack stalled on store forwarding (a tenth of an era file's verification).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Val {
    /// Its height: known chunks are height 0; a node is 1 + the height of its highest child.
    height: u32,
    /// Its position among the nodes of that height; at height 0, among the forest's known chunks, or
    /// `ZERO + level` for the root of a zero subtree of that level.
    index: u32,
}

/// Height-0 indices from here on name [`zero_hash`]`(index - ZERO)`: zero subtrees are constants, never stored.
const ZERO: u32 = u32::MAX - MAX_DEPTH as u32 - 1;

impl Val {
    /// The root of a zero subtree of `level` (a constant: recorded nowhere).
    #[inline]
    pub fn zero(level: u32) -> Val {
        Val {
            height: 0,
            index: ZERO + level.min(MAX_DEPTH as u32),
        }
    }

    #[inline]
    fn height(&self) -> u32 {
        self.height
    }
}

/// Packed data of at least this many chunks is hashed on the immediate path (already 8 lanes per layer,
/// split across workers when big) and only its padding chain above goes to the forest.
pub const DEFER_MAX_CHUNKS: usize = 1024;

/// The nodes of one height: their 64-byte inputs contiguous, so one [`sha256::hash_blocks`] call hashes them.
#[derive(Default)]
struct Level {
    inputs: Vec<[u8; 64]>,
    /// Outputs of the nodes hashed so far (the first `outputs.len()` inputs).
    outputs: Vec<[u8; 32]>,
    /// `(node here, consumer)`: where a node's output goes once hashed; the consumer is
    /// `(height, 2 * index + side)` of a higher node (side 0 = left half of its input, 1 = right).
    links: Vec<(u32, u32, u32)>,
    /// Links already delivered.
    links_done: usize,
}

/// A deferred SSZ hashing graph: hashes are recorded as nodes `(left, right)` and computed later, all nodes of
/// one height in one [`sha256::hash_blocks`] call.
///
/// Why: a block's small objects are trees of a few nodes topped by long padding chains (`hash(x, zero)`
/// repeated per level, e.g. ~25 levels for a transaction's `ByteList[2^30]`), each step depending on the
/// previous, so hashing them one by one runs the SHA unit with one message in flight (~2.5x the cost per
/// message of 8 interleaved ones). Recording every object of one or more blocks first turns those chains
/// into lanes of the same batch. The nodes recorded are exactly those the immediate path hashes (zero
/// subtrees stay [`zero_hash`] constants), so the hash count is unchanged.
///
/// Use: record (`pair`, `merkleize_packed`, `merkleize_pushed`...), [`Forest::evaluate`], read with
/// [`Forest::get`], [`Forest::clear`] to reuse the allocations.
#[derive(Default)]
pub struct Forest {
    /// `levels[h]`: the nodes of height `h` (`levels[0]` stays empty: known chunks are not nodes).
    levels: Vec<Level>,
    /// Values pushed for [`Forest::merkleize_pushed`], reused across calls and nesting (each call works above
    /// its own start).
    stack: Vec<Val>,
    /// The chunks of the height-0 values recorded with [`Forest::known`].
    known: Vec<[u8; 32]>,
    /// Lengths saved by [`Forest::begin`]: the stack, the known chunks, then each level's inputs and links.
    saved: Vec<usize>,
}

impl Forest {
    /// An empty forest.
    pub fn new() -> Self {
        Self::default()
    }

    /// Forgets every node (allocations are kept).
    pub fn clear(&mut self) {
        for l in &mut self.levels {
            l.inputs.clear();
            l.outputs.clear();
            l.links.clear();
            l.links_done = 0;
        }
        self.stack.clear();
        self.known.clear();
        self.saved.clear();
    }

    /// Nodes recorded and not yet hashed.
    pub fn pending(&self) -> usize {
        self.levels
            .iter()
            .map(|l| l.inputs.len() - l.outputs.len())
            .sum()
    }

    /// Remembers the current size, so a recording that fails half-way can be undone by [`Forest::rollback`]
    /// (its nodes would otherwise be hashed for nothing).
    pub fn begin(&mut self) {
        self.saved.clear();
        self.saved.push(self.stack.len());
        self.saved.push(self.known.len());
        for l in &self.levels {
            self.saved.push(l.inputs.len());
            self.saved.push(l.links.len());
        }
    }

    /// Drops every node and link recorded since [`Forest::begin`] (none of them is hashed yet).
    pub fn rollback(&mut self) {
        let mut saved = self.saved.iter().copied();
        self.stack.truncate(saved.next().unwrap_or(0));
        self.known.truncate(saved.next().unwrap_or(0));
        for l in &mut self.levels {
            // Levels created after `begin` had nothing then.
            let inputs = saved.next().unwrap_or(0).max(l.outputs.len());
            let links = saved.next().unwrap_or(0).max(l.links_done);
            l.inputs.truncate(inputs);
            l.links.truncate(links);
        }
    }

    /// `chunk` as a value (kept until [`Forest::clear`]).
    #[inline]
    pub fn known(&mut self, chunk: [u8; 32]) -> Val {
        let index = self.known.len() as u32;
        self.known.push(chunk);
        Val { height: 0, index }
    }

    /// The chunk of a height-0 value.
    #[inline(always)]
    fn chunk(known: &[[u8; 32]], index: u32) -> &[u8; 32] {
        match index.checked_sub(ZERO) {
            Some(level) => zero_hash(level),
            None => &known[index as usize],
        }
    }

    /// The node hashing `left || right`.
    pub fn pair(&mut self, left: Val, right: Val) -> Val {
        let height = left.height().max(right.height()) + 1;
        let h = height as usize;
        if self.levels.len() <= h {
            self.levels.resize_with(h + 1, Level::default);
        }
        let index = self.levels[h].inputs.len() as u32;
        self.levels[h].inputs.push([0u8; 64]);
        self.feed(h, index, 0, left);
        self.feed(h, index, 1, right);
        Val { height, index }
    }

    /// Puts `v` in half `side` of the input of node `(h, index)`: a known chunk now, a pending node's output
    /// by a link. A node already hashed (recorded before an earlier [`Forest::evaluate`]) is copied now, so a
    /// new parent never waits on a level that will not be visited again.
    #[inline(always)]
    fn feed(&mut self, h: usize, index: u32, side: usize, v: Val) {
        let (below, at) = self.levels.split_at_mut(h);
        let Some(input) = at
            .first_mut()
            .and_then(|l| l.inputs.get_mut(index as usize))
        else {
            return;
        };
        let half = &mut input[32 * side..32 * side + 32];
        if v.height == 0 {
            half.copy_from_slice(Self::chunk(&self.known, v.index));
            return;
        }
        let Some(l) = below.get_mut(v.height as usize) else {
            return;
        };
        match l.outputs.get(v.index as usize) {
            Some(out) => half.copy_from_slice(out),
            None => l.links.push((v.index, h as u32, 2 * index + side as u32)),
        }
    }

    /// `mix_in_length(root, length)` as a node.
    pub fn mix_in_length(&mut self, root: Val, length: u64) -> Val {
        let mut len = [0u8; 32];
        len[..8].copy_from_slice(&length.to_le_bytes());
        let len = self.known(len);
        self.pair(root, len)
    }

    /// [`merkleize`] of `head` followed by the byte `tail` (if any) as nodes. The tail lets a bitlist be
    /// merkleized with its delimiter cleared without copying it.
    pub fn merkleize_packed(&mut self, head: &[u8], tail: Option<u8>, limit_chunks: u64) -> Val {
        let len = head.len() + usize::from(tail.is_some());
        let n = len.div_ceil(CHUNK);
        let depth = depth_for(limit_chunks.max(n as u64));
        if n >= DEFER_MAX_CHUNKS {
            // Big data: the immediate path's layers are already batched (and parallel when big enough).
            let root = match tail {
                None => merkleize(head, n as u64),
                Some(t) => {
                    let mut data = Vec::with_capacity(len);
                    data.extend_from_slice(head);
                    data.push(t);
                    merkleize(&data, n as u64)
                }
            };
            let root = self.known(root);
            return self.pad_to(root, depth_for(n as u64), depth);
        }
        // The 64 bytes of `head ++ tail` from `start`, zero-padded (the spec's `pack`).
        let block_at = |start: usize| -> [u8; 64] {
            let mut b = [0u8; 64];
            let end = (start + 64).min(head.len());
            if start < end {
                b[..end - start].copy_from_slice(&head[start..end]);
            }
            if let Some(t) = tail {
                if (start..start + 64).contains(&head.len()) {
                    b[head.len() - start] = t;
                }
            }
            b
        };
        if n <= 1 {
            let b = block_at(0);
            let mut c = [0u8; 32];
            c.copy_from_slice(&b[..32]);
            return match n {
                0 => Val::zero(depth),
                _ => {
                    let c = self.known(c);
                    self.pad_to(c, 0, depth)
                }
            };
        }
        // Layer 1 straight from the bytes: every pair of chunks (an odd last chunk's sibling is the zero
        // chunk, which the zero padding of the block supplies).
        let start = self.stack.len();
        let h1 = 1usize;
        if self.levels.len() <= h1 {
            self.levels.resize_with(h1 + 1, Level::default);
        }
        for k in 0..n.div_ceil(2) {
            let level = &mut self.levels[h1];
            let index = level.inputs.len() as u32;
            level.inputs.push(block_at(64 * k));
            self.stack.push(Val { height: 1, index });
        }
        self.reduce(start, 1, depth)
    }

    /// Pushes a leaf for [`Forest::merkleize_pushed`].
    #[inline]
    pub fn push(&mut self, v: Val) {
        self.stack.push(v);
    }

    /// Where the next [`Forest::push`] lands: pass it to [`Forest::merkleize_pushed`].
    #[inline]
    pub fn stack_len(&self) -> usize {
        self.stack.len()
    }

    /// [`merkleize`] of the 32-byte leaves pushed since `start` (they are popped), as nodes.
    pub fn merkleize_pushed(&mut self, start: usize, limit_chunks: u64) -> Val {
        let n = self.stack.len().saturating_sub(start);
        let depth = depth_for(limit_chunks.max(n as u64));
        self.reduce(start, 0, depth)
    }

    /// Pairs the values above `start` (of tree level `level`) layer by layer into one root, then pads it up
    /// to `depth`; the values are popped. An odd last value's sibling is the zero subtree of its level, as in
    /// [`subtree`], so exactly the immediate path's nodes are recorded.
    fn reduce(&mut self, start: usize, mut level: u32, depth: u32) -> Val {
        let start = start.min(self.stack.len());
        if self.stack.len() == start {
            return Val::zero(depth);
        }
        while self.stack.len() - start > 1 {
            let m = self.stack.len() - start;
            for j in 0..m.div_ceil(2) {
                let l = self.stack[start + 2 * j];
                let r = match self.stack.get(start + 2 * j + 1) {
                    Some(&r) if 2 * j + 1 < m => r,
                    _ => Val::zero(level),
                };
                let v = self.pair(l, r);
                self.stack[start + j] = v;
            }
            self.stack.truncate(start + m.div_ceil(2));
            level += 1;
        }
        let root = self.stack.pop().unwrap_or(Val::zero(level));
        self.pad_to(root, level, depth)
    }

    /// `root` of a subtree of height `from`, hashed with zero subtrees up to height `to`.
    fn pad_to(&mut self, mut root: Val, from: u32, to: u32) -> Val {
        for l in from..to {
            root = self.pair(root, Val::zero(l));
        }
        root
    }

    /// Hashes every recorded node, height by height: one [`sha256::hash_blocks`] call per height, then each
    /// output copied into its consumer's input.
    pub fn evaluate(&mut self) {
        for h in 1..self.levels.len() {
            let (level, above) = self.levels[h..].split_at_mut(1);
            let level = &mut level[0];
            let done = level.outputs.len();
            if level.inputs.len() > done {
                level.outputs.resize(level.inputs.len(), [0u8; 32]);
                sha256::hash_blocks(
                    level.inputs[done..].as_flattened(),
                    level.outputs[done..].as_flattened_mut(),
                );
            }
            for &(i, to_h, to) in &level.links[level.links_done..] {
                // Consumers are always higher (a parent's height exceeds its children's).
                let Some(dst) = (to_h as usize)
                    .checked_sub(h + 1)
                    .and_then(|k| above.get_mut(k))
                    .and_then(|l| l.inputs.get_mut((to / 2) as usize))
                else {
                    continue;
                };
                if let Some(out) = level.outputs.get(i as usize) {
                    let side = (to % 2) as usize;
                    dst[32 * side..32 * side + 32].copy_from_slice(out);
                }
            }
            level.links_done = level.links.len();
        }
    }

    /// The value of `v` once evaluated (`None` for a node not recorded or not yet hashed).
    pub fn get(&self, v: Val) -> Option<[u8; 32]> {
        if v.height == 0 {
            return (v.index >= ZERO || (v.index as usize) < self.known.len())
                .then(|| *Self::chunk(&self.known, v.index));
        }
        self.levels
            .get(v.height as usize)
            .and_then(|l| l.outputs.get(v.index as usize))
            .copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spec's algorithm, literally: pack, pad to the next power of two of the limit, hash layers.
    fn naive(bytes: &[u8], limit: u64) -> [u8; 32] {
        let n = bytes.len().div_ceil(32) as u64;
        let width = limit.max(n).max(1).next_power_of_two() as usize;
        let mut layer = vec![0u8; width * 32];
        layer[..bytes.len()].copy_from_slice(bytes);
        while layer.len() > 32 {
            let mut next = vec![0u8; layer.len() / 2];
            for (i, pair) in layer.chunks_exact(64).enumerate() {
                next[i * 32..i * 32 + 32].copy_from_slice(&sha256::sha256(pair));
            }
            layer = next;
        }
        layer.try_into().unwrap()
    }

    /// EIP-7916's `merkleize_progressive`, literally: the first `num_leaves` chunks as a binary tree of that
    /// width, hashed with the rest merkleized the same way with four times the width.
    fn naive_progressive(bytes: &[u8], num_leaves: usize) -> [u8; 32] {
        if bytes.is_empty() {
            return [0u8; 32];
        }
        let split = (num_leaves * 32).min(bytes.len());
        let a = naive(&bytes[..split], num_leaves as u64);
        let b = naive_progressive(&bytes[split..], num_leaves * 4);
        sha256::sha256(&[a, b].concat())
    }

    #[test]
    fn progressive_merkleization_matches_the_eip() {
        for chunks in (0usize..=90).chain([340, 341, 342, 1365, 1366, 2000]) {
            for short in [0usize, 1, 24, 31] {
                let len = (chunks * 32).saturating_sub(if chunks > 0 { short } else { 0 });
                let bytes = data(len, chunks as u8);
                assert_eq!(
                    merkleize_progressive(&bytes),
                    naive_progressive(&bytes, 1),
                    "{len} bytes"
                );
            }
        }
        // One chunk: hash(chunk, zero); none: the zero chunk.
        assert_eq!(merkleize_progressive(&[]), [0u8; 32]);
        let c = [7u8; 32];
        assert_eq!(
            merkleize_progressive(&c),
            sha256::sha256(&[c, [0u8; 32]].concat())
        );
    }

    #[test]
    fn active_fields_pack_as_bits() {
        let r = [9u8; 32];
        let mut bits = [0u8; 32];
        // [1, 0, 1, ... 1 at 8] -> 0b101 in byte 0, bit 0 of byte 1.
        bits[0] = 0b101;
        bits[1] = 1;
        let active = [1, 0, 1, 0, 0, 0, 0, 0, 1];
        assert_eq!(
            mix_in_active_fields(&r, &active),
            sha256::sha256(&[r, bits].concat())
        );
    }

    fn data(len: usize, seed: u8) -> Vec<u8> {
        (0..len)
            .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed) ^ (i >> 8) as u8)
            .collect()
    }

    #[test]
    fn zero_hashes_are_roots_of_zero_trees() {
        for l in 0..6 {
            assert_eq!(*zero_hash(l), naive(&[], 1 << l));
        }
    }

    #[test]
    fn matches_naive_for_many_lengths_and_limits() {
        for chunks in [
            0usize, 1, 2, 3, 4, 5, 7, 8, 9, 31, 33, 64, 100, 1023, 1024, 1025, 2047, 2049, 3000,
        ] {
            for extra in [0usize, 1, 17, 31] {
                let len = (chunks * 32).saturating_sub(if extra > 0 && chunks > 0 {
                    32 - extra
                } else {
                    0
                });
                let bytes = data(len, chunks as u8);
                let n = len.div_ceil(32) as u64;
                for limit in [n, n + 1, n.next_power_of_two(), 4096, 1 << 13] {
                    if limit < n {
                        continue;
                    }
                    assert_eq!(
                        merkleize(&bytes, limit),
                        naive(&bytes, limit),
                        "len {len} limit {limit}"
                    );
                }
            }
        }
    }

    #[test]
    fn large_parallel_tree_matches_naive_and_is_thread_count_independent() {
        let bytes = data((PAR_MIN_CHUNKS * 3 + 123) * 32 + 5, 9);
        let limit = (PAR_MIN_CHUNKS * 4) as u64;
        let expect = naive(&bytes, limit);
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            assert_eq!(
                pool.install(|| merkleize(&bytes, limit)),
                expect,
                "{threads} threads"
            );
        }
    }

    #[test]
    fn huge_limits_use_virtual_padding() {
        let bytes = data(5 * 32, 3);
        // 2^40 chunks cannot be materialised; compare against padding a 2^3 tree by hand.
        let mut root = naive(&bytes, 8);
        for l in 3..40 {
            root = sha256::hash_pair(&root, zero_hash(l));
        }
        assert_eq!(merkleize(&bytes, 1 << 40), root);
        assert_eq!(merkleize(&[], 1 << 40), *zero_hash(40));
    }

    #[test]
    fn filled_leaves_equal_direct_leaves() {
        struct Computed(Vec<u8>);
        impl Leaves for Computed {
            fn count(&self) -> usize {
                self.0.len() / 32
            }
            fn direct(&self, _: Range<usize>) -> Option<&[u8]> {
                None
            }
            fn fill(&self, r: Range<usize>, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.0[r.start * 32..r.end * 32]);
            }
            fn par_min(&self) -> usize {
                2048
            }
        }
        let bytes = data(5000 * 32, 1);
        assert_eq!(
            merkleize_leaves(&Computed(bytes.clone()), 8192),
            naive(&bytes, 8192)
        );
    }

    #[test]
    fn mix_in_length_is_hash_of_root_and_le_length() {
        let r = [7u8; 32];
        let mut b = [0u8; 64];
        b[..32].copy_from_slice(&r);
        b[32..40].copy_from_slice(&300u64.to_le_bytes());
        assert_eq!(mix_in_length(&r, 300), sha256::sha256(&b));
    }
}
