//! Merkle branches (consensus-specs `ssz/merkle-proofs.md`, `is_valid_merkle_branch`): walking one up to its
//! root, and a fully materialised tree to read many branches from.
//!
//! A leaf at generalized index `g` has depth `d = floor(log2 g)` and position `index = g - 2^d` among the `2^d`
//! nodes of its level; its branch lists the `d` siblings from the leaf up. Bit `i` of `index` says whether the
//! node at height `i` is a right child (hashed as `sibling || node`) or a left one (`node || sibling`).
//!
//! [`crate::consensus::merkle`] computes roots without ever holding a tree; proofs need the siblings, so
//! [`Tree`] keeps every layer (small trees only: 8192 leaves at most here).

use crate::crypto::sha256;

/// The root `branch` leads to from `leaf` at position `index` among `2^branch.len()` leaves.
pub fn branch_root(leaf: &[u8; 32], branch: &[[u8; 32]], index: u64) -> [u8; 32] {
    let mut node = *leaf;
    for (height, sibling) in branch.iter().enumerate() {
        node = if (index >> height) & 1 == 1 {
            sha256::hash_pair(sibling, &node)
        } else {
            sha256::hash_pair(&node, sibling)
        };
    }
    node
}

/// A perfect binary tree over `2^depth` leaves (missing ones are zero chunks, as SSZ pads), every layer kept.
#[derive(Debug, Clone)]
pub(crate) struct Tree {
    /// `layers[0]` are the leaves, `layers[depth]` the root alone.
    layers: Vec<Vec<[u8; 32]>>,
}

impl Tree {
    /// The tree of `leaves` padded to `2^depth` (deeper when there are more leaves than that).
    pub(crate) fn new(mut leaves: Vec<[u8; 32]>, depth: u32) -> Tree {
        let depth = depth.max(crate::consensus::merkle::depth_for(leaves.len() as u64));
        leaves.resize(1 << depth, [0u8; 32]);
        let mut layers = vec![leaves];
        for _ in 0..depth {
            let below = layers.last().map_or(&[][..], |l| l.as_slice());
            let mut next = vec![[0u8; 32]; below.len() / 2];
            // One batch per layer: the hasher interleaves independent pairs.
            sha256::hash_blocks(below.as_flattened(), next.as_flattened_mut());
            layers.push(next);
        }
        Tree { layers }
    }

    /// The root.
    pub(crate) fn root(&self) -> [u8; 32] {
        self.layers
            .last()
            .and_then(|l| l.first())
            .copied()
            .unwrap_or_default()
    }

    /// Leaf `index`.
    pub(crate) fn leaf(&self, index: usize) -> [u8; 32] {
        self.layers
            .first()
            .and_then(|l| l.get(index))
            .copied()
            .unwrap_or_default()
    }

    /// The siblings of leaf `index`, from the leaf up (empty past the last leaf).
    pub(crate) fn branch(&self, index: usize) -> Vec<[u8; 32]> {
        let depth = self.layers.len() - 1;
        if index >> depth != 0 {
            return Vec::new();
        }
        (0..depth)
            .map(|h| self.layers[h][(index >> h) ^ 1])
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::consensus::merkle;

    fn leaves(n: usize) -> Vec<[u8; 32]> {
        (0..n)
            .map(|i| sha256::sha256(&(i as u64).to_le_bytes()))
            .collect()
    }

    #[test]
    fn tree_root_is_the_ssz_merkle_root() {
        for (n, depth) in [(1, 0), (5, 3), (8, 3), (100, 13), (8192, 13)] {
            let l = leaves(n);
            let t = Tree::new(l.clone(), depth);
            assert_eq!(
                t.root(),
                merkle::merkleize(l.as_flattened(), 1 << depth),
                "{n} leaves, depth {depth}"
            );
        }
    }

    #[test]
    fn every_branch_leads_to_the_root_and_only_from_its_own_leaf() {
        let l = leaves(13);
        let t = Tree::new(l.clone(), 4);
        for (i, leaf) in l.iter().enumerate() {
            let b = t.branch(i);
            assert_eq!(b.len(), 4);
            assert_eq!(branch_root(leaf, &b, i as u64), t.root(), "leaf {i}");
            assert_ne!(branch_root(leaf, &b, (i ^ 1) as u64), t.root());
            assert_ne!(branch_root(&[0u8; 32], &b, i as u64), t.root());
        }
        // Padding leaves have branches too (an SSZ list's unused slots are zero chunks).
        assert_eq!(branch_root(&[0u8; 32], &t.branch(15), 15), t.root());
        assert!(t.branch(16).is_empty());
    }
}
