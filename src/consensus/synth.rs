//! Deterministic synthetic beacon-chain objects of every fork: valid SSZ with pseudo-random contents.
//!
//! Values are generated from the fork's schema ([`super::types`]), so every container of every fork is
//! exercised by the same code that hashes it, and the bytes can be fed to an independent SSZ implementation
//! to cross-check roots (tests/crosscheck/). Validity rules honoured: booleans are 0/1, bitvectors have no bits
//! past their length, bitlists carry their delimiter, list lengths stay within limits, offsets are canonical.
//!
//! [`chain`] builds a state plus signed blocks at slots `1..=n` whose parent roots chain and whose roots are
//! written into the state's `block_roots` (spec: `state.block_roots[slot % SLOTS_PER_HISTORICAL_ROOT]`), with
//! the state at slot `n + 1`, so a verifier can check the blocks against the state.

use super::spec::Spec;
use super::ssz::{self, Container, SszError, Ty};
use super::types::SLOTS_PER_HISTORICAL_ROOT;

/// Fields whose length is the registry size (one entry per validator).
const REGISTRY_FIELDS: [&str; 5] = [
    "validators",
    "balances",
    "previous_epoch_participation",
    "current_epoch_participation",
    "inactivity_scores",
];

/// A splitmix64 generator: fast, deterministic, good enough for test contents.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
    fn fill(&mut self, out: &mut Vec<u8>, n: usize) {
        let mut left = n;
        while left >= 8 {
            out.extend_from_slice(&self.next().to_le_bytes());
            left -= 8;
        }
        let last = self.next().to_le_bytes();
        out.extend_from_slice(&last[..left]);
    }
}

struct Gen {
    rng: Rng,
    validators: usize,
    /// Upper bound for the length of ordinary lists (registry lists use `validators`).
    max_list: u64,
}

impl Gen {
    fn list_len(&mut self, name: &str, limit: u64) -> usize {
        if REGISTRY_FIELDS.contains(&name) {
            return self.validators;
        }
        self.rng.below(limit.min(self.max_list) + 1) as usize
    }

    /// A uint64 below 2^48: realistic for slots, epochs, indices and Gwei, and exactly representable in the
    /// JavaScript numbers that Lodestar's cross-check uses for these types.
    fn u64(&mut self, out: &mut Vec<u8>) {
        out.extend_from_slice(&(self.rng.next() >> 16).to_le_bytes());
    }

    fn value(&mut self, ty: &'static Ty, name: &str, out: &mut Vec<u8>) {
        match ty {
            Ty::Uint(8) => self.u64(out),
            Ty::Uint(n) | Ty::Bytes(n) => self.rng.fill(out, *n),
            Ty::Bool => out.push((self.rng.next() & 1) as u8),
            Ty::Bitvector(n) => {
                let start = out.len();
                self.rng.fill(out, n.div_ceil(8));
                if n % 8 != 0 {
                    if let Some(last) = out.get_mut(start + n.div_ceil(8) - 1) {
                        *last &= (1u8 << (n % 8)) - 1;
                    }
                }
            }
            Ty::Bitlist(limit) | Ty::ProgressiveBitlist(limit) => {
                let bits = self.rng.below((*limit).min(300) + 1) as usize;
                let start = out.len();
                self.rng.fill(out, bits / 8 + 1);
                if let Some(last) = out.get_mut(start + bits / 8) {
                    *last &= (1u8 << (bits % 8)) - 1; // clear bits past the length
                    *last |= 1u8 << (bits % 8); // the delimiter
                }
            }
            Ty::Vector(e, n) => self.elements(e, *n, out),
            Ty::ProgressiveList(e, limit) => {
                let n = self.list_len(name, *limit);
                self.elements(e, n, out)
            }
            Ty::List(e, limit) => {
                let n = self.list_len(name, *limit);
                self.elements(e, n, out)
            }
            Ty::Container(c) => self.container(c, out),
        }
    }

    fn elements(&mut self, e: &'static Ty, n: usize, out: &mut Vec<u8>) {
        if e.fixed_size().is_some() {
            if let Ty::Uint(8) = e {
                for _ in 0..n {
                    self.u64(out);
                }
                return;
            }
            if let Ty::Uint(_) | Ty::Bytes(_) = e {
                let size = e.fixed_size().unwrap_or(0);
                self.rng.fill(out, n * size);
                return;
            }
            for _ in 0..n {
                self.value(e, "", out);
            }
        } else {
            let items: Vec<Vec<u8>> = (0..n)
                .map(|_| {
                    let mut v = Vec::new();
                    self.value(e, "", &mut v);
                    v
                })
                .collect();
            let refs: Vec<&[u8]> = items.iter().map(|v| v.as_slice()).collect();
            out.extend_from_slice(&ssz::encode_variable_list(&refs));
        }
    }

    fn container(&mut self, c: &'static Container, out: &mut Vec<u8>) {
        if Ty::Container(c).fixed_size().is_some() {
            for f in c.fields {
                self.value(f.ty, f.name, out);
            }
            return;
        }
        let parts: Vec<Vec<u8>> = c
            .fields
            .iter()
            .map(|f| {
                let mut v = Vec::new();
                self.value(f.ty, f.name, &mut v);
                v
            })
            .collect();
        let refs: Vec<&[u8]> = parts.iter().map(|v| v.as_slice()).collect();
        // Sizes come from the schema itself, so encoding cannot fail; fall back to nothing if it ever did.
        out.extend_from_slice(&ssz::encode_container(c, &refs).unwrap_or_default());
    }
}

/// A pseudo-random valid serialization of `ty` from `seed`, its lists at most `max_list` long (bitlists at
/// most 300 bits): for cross-checking any schema against an independent implementation.
pub fn value(ty: &'static Ty, seed: u64, max_list: u64) -> Vec<u8> {
    let mut g = Gen {
        rng: Rng(seed),
        validators: max_list as usize,
        max_list,
    };
    let mut out = Vec::new();
    g.value(ty, "", &mut out);
    out
}

/// A synthetic `BeaconState` of `spec` with `validators` validators (and as many balances, participation
/// flags and inactivity scores), other lists of at most 8 elements, all contents pseudo-random from `seed`.
pub fn state(spec: Spec, validators: usize, seed: u64) -> Vec<u8> {
    let mut g = Gen {
        rng: Rng(seed),
        validators,
        max_list: 8,
    };
    let mut out = Vec::new();
    g.container(spec.state_schema(), &mut out);
    out
}

/// A synthetic `SignedBeaconBlock` of `spec` at `slot` with pseudo-random contents (lists of at most 4).
pub fn signed_block(spec: Spec, slot: u64, seed: u64) -> Vec<u8> {
    let mut g = Gen {
        rng: Rng(seed),
        validators: 0,
        max_list: 4,
    };
    let mut out = Vec::new();
    g.container(spec.signed_block_schema(), &mut out);
    if let Some(s) = out.get_mut(100..108) {
        s.copy_from_slice(&slot.to_le_bytes());
    }
    out
}

/// Byte offset of `block_roots` in every fork's state: genesis_time 8, genesis_validators_root 32, slot 8,
/// fork 16, latest_block_header 112.
const BLOCK_ROOTS_OFFSET: usize = 8 + 32 + 8 + 16 + 112;

/// A state at slot `blocks + 1` and `blocks` signed blocks at slots `1..=blocks` whose parent roots chain
/// and whose roots are in the state's `block_roots`.
pub fn chain(
    spec: Spec,
    validators: usize,
    blocks: u64,
    seed: u64,
) -> Result<(Vec<u8>, Vec<Vec<u8>>), SszError> {
    let mut st = state(spec, validators, seed);
    let mut out = Vec::new();
    let mut parent = [0u8; 32];
    for slot in 1..=blocks {
        let mut b = signed_block(spec, slot, seed ^ slot.wrapping_mul(0x1000_0000_01b3));
        // message.parent_root sits at 100 (message start) + 16 (slot, proposer_index).
        if let Some(p) = b.get_mut(116..148) {
            p.copy_from_slice(&parent);
        }
        let root = super::signed_block_root(&b, spec)?;
        let at = BLOCK_ROOTS_OFFSET + 32 * (slot as usize % SLOTS_PER_HISTORICAL_ROOT);
        if let Some(r) = st.get_mut(at..at + 32) {
            r.copy_from_slice(&root);
        }
        parent = root;
        out.push(b);
    }
    if let Some(s) = st.get_mut(40..48) {
        s.copy_from_slice(&(blocks + 1).to_le_bytes());
    }
    Ok((st, out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::consensus::{self, BeaconState, Fork, Preset, SignedBeaconBlock, ALL_FORKS};

    #[test]
    fn synthetic_objects_of_every_fork_validate_and_chain() {
        for spec in ALL_FORKS
            .into_iter()
            .flat_map(|f| [Spec::mainnet(f), Spec::new(f, Preset::Gnosis)])
        {
            let fork = spec.fork;
            let (st, blocks) = chain(spec, 100, 3, 7).unwrap();
            let s = BeaconState::new(&st, spec).unwrap();
            s.root().unwrap();
            assert_eq!(s.slot(), 4);
            assert_eq!(s.validator_count().unwrap(), 100);
            let mut parent = [0u8; 32];
            for (i, b) in blocks.iter().enumerate() {
                let m = SignedBeaconBlock::new(b, spec).unwrap().message().unwrap();
                assert_eq!(m.slot(), i as u64 + 1);
                assert_eq!(m.parent_root(), parent);
                let r = m.root().unwrap();
                assert_eq!(s.block_root(i + 1).unwrap(), r, "{spec}");
                parent = r;
                if fork >= Fork::Bellatrix {
                    let p = m.body().unwrap().execution_payload().unwrap().unwrap();
                    p.transactions().unwrap().for_each(drop);
                    p.withdrawals().unwrap();
                }
            }
            // Reading a synthetic state as the neighbouring fork fails on layout, not silently.
            for other in ALL_FORKS.iter().filter(|f| **f != fork) {
                assert!(
                    consensus::state_root(&st, Spec::new(*other, spec.preset)).is_err(),
                    "{spec} state read as {other}"
                );
            }
        }
    }
}
