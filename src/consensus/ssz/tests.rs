//! The schema walker on small types: validation errors and roots against hand-computed ones.

use super::*;
use crate::consensus::merkle;
use crate::consensus::types::{U64, U8};
use crate::crypto::sha256;

static BYTES4_LIST: Ty = Ty::List(&U8, 4);
static T: Container = Container::new(
    "T",
    &[
        Field {
            name: "a",
            ty: &U64,
        },
        Field {
            name: "b",
            ty: &Ty::List(&U8, 10),
        },
        Field {
            name: "c",
            ty: &Ty::List(&BYTES4_LIST, 3),
        },
        Field {
            name: "d",
            ty: &Ty::Bitlist(8),
        },
    ],
);

fn chunk(b: &[u8]) -> [u8; 32] {
    let mut c = [0u8; 32];
    c[..b.len()].copy_from_slice(b);
    c
}

fn sample() -> Vec<u8> {
    let c = encode_variable_list(&[&[1, 2], &[], &[3, 4, 5, 6]]);
    encode_container(&T, &[&7u64.to_le_bytes(), &[9, 9, 9], &c, &[0b1101]]).unwrap()
}

#[test]
fn container_root_by_hand() {
    let bytes = sample();
    // a: 7; b: mix_in(chunk(9,9,9), 3); c: mix_in(merkleize([mix_in(chunk(1,2),2), mix_in(0,0), ...], 3), 3);
    // d: Bitlist[8] with bits 1,0,1 -> data 0b101, length 3.
    let a = chunk(&7u64.to_le_bytes());
    let b = merkle::mix_in_length(&chunk(&[9, 9, 9]), 3);
    let e0 = merkle::mix_in_length(&chunk(&[1, 2]), 2);
    let e1 = merkle::mix_in_length(&[0; 32], 0);
    let e2 = merkle::mix_in_length(&chunk(&[3, 4, 5, 6]), 4);
    let c = merkle::mix_in_length(
        &sha256::hash_pair(
            &sha256::hash_pair(&e0, &e1),
            &sha256::hash_pair(&e2, &[0; 32]),
        ),
        3,
    );
    let d = merkle::mix_in_length(&chunk(&[0b101]), 3);
    let want = sha256::hash_pair(&sha256::hash_pair(&a, &b), &sha256::hash_pair(&c, &d));
    assert_eq!(container_root(&T, &bytes).unwrap(), want);
    // Splitting and re-encoding is the identity.
    let f = split_container(&T, &bytes).unwrap();
    assert_eq!(encode_container(&T, &f).unwrap(), bytes);
}

#[test]
fn bitlists() {
    let bl: &'static Ty = T.fields[3].ty;
    assert_eq!(
        hash_tree_root(bl, &[1]).unwrap(),
        merkle::mix_in_length(&[0; 32], 0)
    );
    assert_eq!(
        hash_tree_root(bl, &[0xff, 1]).unwrap(),
        merkle::mix_in_length(&chunk(&[0xff]), 8)
    );
    assert!(matches!(
        hash_tree_root(bl, &[]).unwrap_err().kind,
        ErrorKind::BitlistDelimiter { .. }
    ));
    assert!(matches!(
        hash_tree_root(bl, &[1, 0]).unwrap_err().kind,
        ErrorKind::BitlistDelimiter { .. }
    ));
    assert!(matches!(
        hash_tree_root(bl, &[0, 2]).unwrap_err().kind,
        ErrorKind::TooMany { found: 9, .. }
    ));
}

#[test]
fn bitvector_and_bool_rules() {
    static BV: Ty = Ty::Bitvector(4);
    assert!(hash_tree_root(&BV, &[0x0f]).is_ok());
    assert!(matches!(
        hash_tree_root(&BV, &[0x10]).unwrap_err().kind,
        ErrorKind::BitvectorExcess { .. }
    ));
    assert!(matches!(
        hash_tree_root(&Ty::Bool, &[2]).unwrap_err().kind,
        ErrorKind::BadBool { found: 2 }
    ));
    assert!(matches!(
        hash_tree_root(&Ty::Bool, &[]).unwrap_err().kind,
        ErrorKind::Length { .. }
    ));
}

#[test]
fn bad_offsets_are_typed_errors_with_paths() {
    let good = sample();
    // Fixed part: a (8) + 3 offsets (12) = 20.
    let mut b = good.clone();
    b[8] = 21; // first offset must be 20
    let e = container_root(&T, &b).unwrap_err();
    assert_eq!(
        e.kind,
        ErrorKind::FirstOffset {
            expected: 20,
            found: 21
        }
    );
    assert_eq!(
        e.to_string(),
        "T.b: first offset must be 20 (the fixed part's size), found 21"
    );

    let mut b = good.clone();
    b[12] = 19; // c's offset below b's
    assert!(matches!(
        container_root(&T, &b).unwrap_err().kind,
        ErrorKind::OffsetDecreasing { .. }
    ));

    let mut b = good.clone();
    b[16] = 200; // d's offset past the end
    assert!(matches!(
        container_root(&T, &b).unwrap_err().kind,
        ErrorKind::OffsetOutOfRange { found: 200, .. }
    ));

    assert!(matches!(
        container_root(&T, &good[..10]).unwrap_err().kind,
        ErrorKind::TooShort {
            expected: 20,
            found: 10,
            ..
        }
    ));

    // Inside c (a list of variable-size lists): its first element offset must be a multiple of 4.
    let c_at = u32::from_le_bytes(good[12..16].try_into().unwrap()) as usize;
    let mut b = good.clone();
    b[c_at] = 5;
    let e = container_root(&T, &b).unwrap_err();
    assert_eq!(e.kind, ErrorKind::ListOffset { found: 5 });
    assert!(e.to_string().starts_with("T.c: "), "{e}");

    // An element longer than its limit names the element.
    let c = encode_variable_list(&[&[1, 2, 3, 4, 5]]);
    let b = encode_container(&T, &[&[0; 8], &[], &c, &[1]]).unwrap();
    let e = container_root(&T, &b).unwrap_err();
    assert_eq!(
        e.to_string(),
        "T.c[0]: List[uint8, 4]: at most 4 elements allowed, found 5"
    );
}

#[test]
fn every_truncation_and_byte_flip_is_handled() {
    let good = sample();
    for cut in 0..good.len() {
        assert!(container_root(&T, &good[..cut]).is_err(), "cut {cut}");
    }
    for i in 0..good.len() {
        for x in [1u8, 0x80, 0xff] {
            let mut b = good.clone();
            b[i] ^= x;
            let _ = container_root(&T, &b);
        }
    }
}
