//! The deferred (forest) hash_tree_root against the immediate one, the oracle: generated objects of every
//! [`Ty`] shape, damaged copies of them (the same error, kind and path), several objects per forest.

use super::*;
use crate::consensus::fork::ALL_FORKS;
use crate::consensus::merkle::{Forest, DEFER_MAX_CHUNKS};
use crate::consensus::spec::Spec;
use crate::consensus::types::{BYTES32, BYTES48, U256, U64, U8};

/// xorshift64*: deterministic test data without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
    /// A count up to `max`, often at an edge: 0, 1, powers of two and their neighbours, `max` itself.
    fn count(&mut self, max: u64) -> u64 {
        let edge = [
            0u64, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65,
        ];
        match self.below(4) {
            0 => max.min(100),
            1 => edge[self.below(edge.len() as u64) as usize].min(max),
            _ => self.below(max.min(70) + 1),
        }
    }
}

/// A valid serialization of `ty` (lists of at most 100 elements, fewer when deeply nested).
fn gen(ty: &'static Ty, rng: &mut Rng, depth: u32) -> Vec<u8> {
    match ty {
        Ty::Uint(n) | Ty::Bytes(n) => rng.bytes(*n),
        Ty::Bool => vec![rng.below(2) as u8],
        Ty::Bitvector(n) => {
            let mut b = rng.bytes(n.div_ceil(8));
            if n % 8 != 0 {
                if let Some(l) = b.last_mut() {
                    *l &= (1u8 << (n % 8)) - 1;
                }
            }
            b
        }
        Ty::Bitlist(limit) | Ty::ProgressiveBitlist(limit) => {
            let edges = [0u64, 1, 7, 8, 9, 255, 256, 257, 511, 512, 513, 2047, 2048];
            let bits = match rng.below(3) {
                0 => *limit,
                1 => edges[rng.below(edges.len() as u64) as usize].min(*limit),
                _ => rng.below(limit.min(&3000) + 1),
            };
            let mut b = rng.bytes(bits as usize / 8 + 1);
            let last = b.len() - 1;
            b[last] &= (1u8 << (bits % 8)) - 1;
            b[last] |= 1 << (bits % 8);
            b
        }
        Ty::Vector(elem, n) => {
            let items: Vec<Vec<u8>> = (0..*n).map(|_| gen(elem, rng, depth + 1)).collect();
            join(elem, &items)
        }
        Ty::List(elem, limit) | Ty::ProgressiveList(elem, limit) => {
            let max = if depth > 3 { (*limit).min(3) } else { *limit };
            let n = rng.count(max);
            let items: Vec<Vec<u8>> = (0..n).map(|_| gen(elem, rng, depth + 1)).collect();
            join(elem, &items)
        }
        Ty::Container(c) => {
            let fields: Vec<Vec<u8>> = c.fields.iter().map(|f| gen(f.ty, rng, depth + 1)).collect();
            let refs: Vec<&[u8]> = fields.iter().map(|f| f.as_slice()).collect();
            encode_container(c, &refs).unwrap()
        }
    }
}

fn join(elem: &Ty, items: &[Vec<u8>]) -> Vec<u8> {
    if elem.fixed_size().is_some() {
        items.concat()
    } else {
        let refs: Vec<&[u8]> = items.iter().map(|i| i.as_slice()).collect();
        encode_variable_list(&refs)
    }
}

/// The deferred root of one object in a fresh forest.
fn deferred(ty: &'static Ty, bytes: &[u8]) -> Result<[u8; 32], SszError> {
    let mut f = Forest::new();
    let v = defer_root(&mut f, ty, bytes)?;
    f.evaluate();
    Ok(f.get(v).expect("evaluated"))
}

/// `bytes` damaged: a byte flipped, truncated, or extended.
fn damage(bytes: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut b = bytes.to_vec();
    match rng.below(4) {
        0 if !b.is_empty() => {
            let i = rng.below(b.len() as u64) as usize;
            b[i] ^= 1 << rng.below(8);
        }
        1 if !b.is_empty() => {
            let i = rng.below(b.len() as u64) as usize;
            b[i] = [0u8, 1, 2, 4, 0x80, 0xff][rng.below(6) as usize];
        }
        2 => b.truncate(rng.below(b.len() as u64 + 1) as usize),
        _ => {
            let n = 1 + rng.below(40) as usize;
            b.extend(rng.bytes(n));
        }
    }
    b
}

static BYTELIST: Ty = Ty::List(&U8, 1 << 30);
static BOOLS: Ty = Ty::List(&Ty::Bool, 300);
static VAR_VECTOR: Ty = Ty::Vector(&BYTELIST, 3);
static SMALL: Container = Container::new(
    "Small",
    &[
        Field {
            name: "x",
            ty: &U64,
        },
        Field {
            name: "flag",
            ty: &Ty::Bool,
        },
        Field {
            name: "bits",
            ty: &Ty::Bitlist(12),
        },
    ],
);
static FIXED: Container = Container::new(
    "Fixed",
    &[
        Field { name: "a", ty: &U8 },
        Field {
            name: "r",
            ty: &BYTES32,
        },
        Field {
            name: "k",
            ty: &BYTES48,
        },
    ],
);
static SHAPES: Container = Container::new(
    "Shapes",
    &[
        Field {
            name: "u8",
            ty: &U8,
        },
        Field {
            name: "u64",
            ty: &U64,
        },
        Field {
            name: "u256",
            ty: &U256,
        },
        Field {
            name: "flag",
            ty: &Ty::Bool,
        },
        Field {
            name: "b48",
            ty: &BYTES48,
        },
        Field {
            name: "bloom",
            ty: &Ty::Bytes(256),
        },
        Field {
            name: "bv4",
            ty: &Ty::Bitvector(4),
        },
        Field {
            name: "bv13",
            ty: &Ty::Bitvector(13),
        },
        Field {
            name: "bv512",
            ty: &Ty::Bitvector(512),
        },
        Field {
            name: "bv600",
            ty: &Ty::Bitvector(600),
        },
        Field {
            name: "bl1",
            ty: &Ty::Bitlist(1),
        },
        Field {
            name: "bl8",
            ty: &Ty::Bitlist(8),
        },
        Field {
            name: "bl256",
            ty: &Ty::Bitlist(256),
        },
        Field {
            name: "bl2048",
            ty: &Ty::Bitlist(2048),
        },
        Field {
            name: "bl131072",
            ty: &Ty::Bitlist(131072),
        },
        Field {
            name: "v64",
            ty: &Ty::Vector(&U64, 5),
        },
        Field {
            name: "vroots",
            ty: &Ty::Vector(&BYTES32, 3),
        },
        Field {
            name: "vfixed",
            ty: &Ty::Vector(&Ty::Container(&FIXED), 2),
        },
        Field {
            name: "vvar",
            ty: &VAR_VECTOR,
        },
        Field {
            name: "l64",
            ty: &Ty::List(&U64, 1000),
        },
        Field {
            name: "lroots",
            ty: &Ty::List(&BYTES32, 1 << 20),
        },
        Field {
            name: "lbools",
            ty: &BOOLS,
        },
        Field {
            name: "lfixed",
            ty: &Ty::List(&Ty::Container(&FIXED), 100),
        },
        Field {
            name: "lsmall",
            ty: &Ty::List(&Ty::Container(&SMALL), 9),
        },
        Field {
            name: "txs",
            ty: &Ty::List(&BYTELIST, 1 << 20),
        },
        Field {
            name: "nested",
            ty: &Ty::List(&Ty::List(&Ty::Container(&SMALL), 4), 5),
        },
        Field {
            name: "one",
            ty: &Ty::List(&U64, 1),
        },
        Field {
            name: "zero",
            ty: &Ty::List(&U64, 0),
        },
    ],
);
static SHAPES_TY: Ty = Ty::Container(&SHAPES);

/// Every shape, and every fork's signed block and state schema.
fn types() -> Vec<&'static Ty> {
    let mut tys: Vec<&'static Ty> = vec![&SHAPES_TY, &BYTELIST, &BOOLS, &VAR_VECTOR];
    for f in SHAPES.fields {
        tys.push(f.ty);
    }
    for fork in ALL_FORKS {
        let s = Spec::mainnet(fork);
        for c in [s.signed_block_schema(), s.block_schema()] {
            tys.push(Box::leak(Box::new(Ty::Container(c))));
        }
    }
    tys
}

#[test]
fn deferred_roots_equal_immediate_roots_for_every_shape() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for ty in types() {
        for _ in 0..12 {
            let b = gen(ty, &mut rng, 0);
            let want = hash_tree_root(ty, &b);
            assert!(
                want.is_ok(),
                "{}: generated bytes must be valid",
                ty.describe()
            );
            assert_eq!(deferred(ty, &b), want, "{}", ty.describe());
        }
    }
}

#[test]
fn deferred_errors_equal_immediate_errors() {
    let mut rng = Rng(42);
    let mut errors = 0;
    for ty in types() {
        for _ in 0..40 {
            let b = damage(&gen(ty, &mut rng, 0), &mut rng);
            let want = hash_tree_root(ty, &b);
            errors += usize::from(want.is_err());
            assert_eq!(deferred(ty, &b), want, "{}", ty.describe());
        }
    }
    assert!(errors > 200, "only {errors} damaged objects failed");
}

#[test]
fn padding_chains_and_empty_lists() {
    let mut rng = Rng(7);
    // ByteLists from empty to past the immediate-path threshold, each under a 25-level padding chain.
    for len in [
        0usize,
        1,
        31,
        32,
        33,
        63,
        64,
        65,
        1000,
        32 * DEFER_MAX_CHUNKS - 1,
        32 * DEFER_MAX_CHUNKS,
        32 * DEFER_MAX_CHUNKS + 1,
        100_000,
    ] {
        let b = rng.bytes(len);
        assert_eq!(
            deferred(&BYTELIST, &b),
            hash_tree_root(&BYTELIST, &b),
            "len {len}"
        );
    }
    // Bitlists of every length around the chunk and byte edges.
    static BL: Ty = Ty::Bitlist(131072);
    for bits in (0..600).chain([2047, 2048, 2049, 131071, 131072]) {
        let mut b = rng.bytes(bits / 8 + 1);
        let last = b.len() - 1;
        b[last] &= (1u8 << (bits % 8)) - 1;
        b[last] |= 1 << (bits % 8);
        assert_eq!(deferred(&BL, &b), hash_tree_root(&BL, &b), "bits {bits}");
    }
    // Composite lists below and above the immediate-path element count.
    static LFIXED: Ty = Ty::List(&Ty::Container(&FIXED), 1 << 20);
    for n in [0usize, 1, 4095, 4096, 5000] {
        let b = rng.bytes(n * 81);
        assert_eq!(deferred(&LFIXED, &b), hash_tree_root(&LFIXED, &b), "n {n}");
    }
}

#[test]
fn many_objects_share_a_forest_and_a_failed_one_leaves_nothing() {
    let mut rng = Rng(99);
    let tys = types();
    let mut forest = Forest::new();
    for round in 0..3 {
        let mut want = Vec::new();
        let mut got = Vec::new();
        let mut recorded = 0;
        for (i, ty) in tys.iter().enumerate() {
            let good = gen(ty, &mut rng, 0);
            let before = forest.pending();
            if i % 3 == 0 {
                // A damaged object that fails leaves the forest as it was.
                let bad = damage(&good, &mut rng);
                if hash_tree_root(ty, &bad).is_err() {
                    assert!(defer_root(&mut forest, ty, &bad).is_err());
                    assert_eq!(forest.pending(), before, "{}", ty.describe());
                }
            }
            let v = defer_root(&mut forest, ty, &good).unwrap();
            recorded += forest.pending() - before;
            want.push(hash_tree_root(ty, &good).unwrap());
            got.push(v);
        }
        assert_eq!(forest.pending(), recorded);
        forest.evaluate();
        assert_eq!(forest.pending(), 0);
        for (v, w) in got.into_iter().zip(want) {
            assert_eq!(forest.get(v), Some(w), "round {round}");
        }
        forest.clear();
    }
}

#[test]
fn captures_give_the_nested_containers_roots() {
    let mut rng = Rng(5);
    for fork in ALL_FORKS {
        let s = Spec::mainnet(fork);
        let block = s.block_schema();
        let Ty::Container(body) = block.fields[4].ty else {
            panic!("body")
        };
        let ty: &'static Ty = Box::leak(Box::new(Ty::Container(block)));
        let bytes = gen(ty, &mut rng, 0);
        let view = View::new(block, &bytes).unwrap();
        let mut forest = Forest::new();
        let mut caps = [Capture::new(body)];
        let v = view.defer_root(&mut forest, &mut caps).unwrap();
        forest.evaluate();
        assert_eq!(forest.get(v), Some(view.root().unwrap()));
        let body_view = view.sub("body").unwrap().unwrap();
        let body_root = caps[0].val.and_then(|b| forest.get(b));
        assert_eq!(body_root, Some(body_view.root().unwrap()), "{fork:?}");
    }
}

#[test]
fn fixed_sizes_are_precomputed() {
    assert_eq!(FIXED.fixed_size, Some(81));
    assert_eq!(FIXED.fixed_part(), 81);
    assert_eq!(SMALL.fixed_size, None);
    assert_eq!(SMALL.fixed_part(), 8 + 1 + 4);
    static V: Ty = Ty::Vector(&Ty::Container(&FIXED), 3);
    assert_eq!(V.fixed_size(), Some(243));
}
