//! hash_tree_root straight from the serialized bytes: packed basic values, composite elements' own roots,
//! list lengths mixed in, big containers' fields in parallel.

use super::error::{len_err, ErrorKind, PathSeg, SszError};
use super::layout::{split_container, split_variable};
use super::{Container, Field, Ty};
use crate::consensus::merkle::{self, Leaves, CHUNK};
use std::ops::Range;
use std::sync::OnceLock;

/// Below this many bytes an object's fields are hashed on the calling thread (rayon tasks cost more).
const PAR_FIELDS_MIN_BYTES: usize = 1 << 20;

/// hash_tree_root of `bytes` read as `ty`, validating the serialization on the way.
pub fn hash_tree_root(ty: &'static Ty, bytes: &[u8]) -> Result<[u8; 32], SszError> {
    match ty {
        Ty::Uint(n) | Ty::Bytes(n) => {
            if bytes.len() != *n {
                return Err(len_err(ty, *n, bytes.len()));
            }
            if *n <= CHUNK {
                let mut r = [0u8; 32];
                r[..*n].copy_from_slice(bytes);
                Ok(r)
            } else {
                Ok(merkle::merkleize(
                    bytes,
                    merkle::chunks_for_bytes(*n as u64),
                ))
            }
        }
        Ty::Bool => {
            check_bools(bytes, 1, ty)?;
            let mut r = [0u8; 32];
            r[0] = bytes[0];
            Ok(r)
        }
        Ty::Bitvector(n) => {
            let size = n.div_ceil(8);
            if bytes.len() != size {
                return Err(len_err(ty, size, bytes.len()));
            }
            if let Some(&last) = bytes.last() {
                if n % 8 != 0 && last >> (n % 8) != 0 {
                    return Err(SszError::new(ErrorKind::BitvectorExcess {
                        bits: *n,
                        found: last,
                    }));
                }
            }
            Ok(merkle::merkleize(bytes, (*n as u64).div_ceil(256)))
        }
        Ty::Bitlist(limit) => {
            let (data, bits) = bitlist_bits(bytes)?;
            if bits > *limit {
                return Err(SszError::new(ErrorKind::TooMany {
                    ty: ty.describe(),
                    limit: *limit,
                    found: bits,
                }));
            }
            Ok(merkle::mix_in_length(
                &merkle::merkleize(&data, limit.div_ceil(256)),
                bits,
            ))
        }
        Ty::Vector(elem, n) => {
            if let Some(s) = elem.fixed_size() {
                if bytes.len() != s * n {
                    return Err(len_err(ty, s * n, bytes.len()));
                }
                elements_root(elem, bytes, s, *n as u64)
            } else {
                let parts = split_variable(ty, bytes, Some(*n), *n as u64)?;
                variable_elements_root(elem, &parts, *n as u64)
            }
        }
        Ty::List(elem, limit) => {
            let (root, count) = if let Some(s) = elem.fixed_size() {
                if s == 0 || !bytes.len().is_multiple_of(s) {
                    return Err(SszError::new(ErrorKind::NotMultiple {
                        ty: ty.describe(),
                        elem_size: s,
                        found: bytes.len(),
                    }));
                }
                let count = (bytes.len() / s) as u64;
                if count > *limit {
                    return Err(SszError::new(ErrorKind::TooMany {
                        ty: ty.describe(),
                        limit: *limit,
                        found: count,
                    }));
                }
                (elements_root(elem, bytes, s, *limit)?, count)
            } else {
                let parts = split_variable(ty, bytes, None, *limit)?;
                (
                    variable_elements_root(elem, &parts, *limit)?,
                    parts.len() as u64,
                )
            };
            Ok(merkle::mix_in_length(&root, count))
        }
        Ty::Container(c) => container_root(c, bytes),
    }
}

/// hash_tree_root of a container: the merkle root of its fields' roots.
pub fn container_root(c: &'static Container, bytes: &[u8]) -> Result<[u8; 32], SszError> {
    let fields = split_container(c, bytes)?;
    container_root_of_fields(c, &fields)
}

/// hash_tree_root of a container already split into fields (by [`split_container`]).
pub fn container_root_of_fields(
    c: &'static Container,
    fields: &[&[u8]],
) -> Result<[u8; 32], SszError> {
    let field_root = |(f, b): (&Field, &&[u8])| {
        hash_tree_root(f.ty, b).map_err(|e| e.at(PathSeg::Field(f.name)).at(PathSeg::Field(c.name)))
    };
    let total: usize = fields.iter().map(|f| f.len()).sum();
    let mut roots = Vec::with_capacity(fields.len() * CHUNK);
    if total >= PAR_FIELDS_MIN_BYTES {
        use rayon::prelude::*;
        let rs: Vec<[u8; 32]> = c
            .fields
            .par_iter()
            .zip(fields.par_iter())
            .map(field_root)
            .collect::<Result<_, _>>()?;
        for r in &rs {
            roots.extend_from_slice(r);
        }
    } else {
        for fb in c.fields.iter().zip(fields.iter()) {
            roots.extend_from_slice(&field_root(fb)?);
        }
    }
    Ok(merkle::merkleize(&roots, c.fields.len() as u64))
}

pub(super) fn check_bools(bytes: &[u8], expected: usize, ty: &Ty) -> Result<(), SszError> {
    if bytes.len() != expected && expected != 0 {
        return Err(len_err(ty, expected, bytes.len()));
    }
    if let Some(&b) = bytes.iter().find(|&&b| b > 1) {
        return Err(SszError::new(ErrorKind::BadBool { found: b }));
    }
    Ok(())
}

/// The data bytes of a bitlist (delimiter cleared) and its bit length.
pub(super) fn bitlist_bits(bytes: &[u8]) -> Result<(Vec<u8>, u64), SszError> {
    let last = match bytes.last() {
        Some(&b) if b != 0 => b,
        Some(_) => {
            return Err(SszError::new(ErrorKind::BitlistDelimiter {
                found: "0x00".into(),
            }))
        }
        None => {
            return Err(SszError::new(ErrorKind::BitlistDelimiter {
                found: "no bytes".into(),
            }))
        }
    };
    let top = 7 - last.leading_zeros() as u64; // index of the delimiter bit in the last byte
    let bits = 8 * (bytes.len() as u64 - 1) + top;
    let mut data = bytes.to_vec();
    if let Some(l) = data.last_mut() {
        *l &= !(1u8 << top);
    }
    if top == 0 {
        data.pop();
    }
    Ok((data, bits))
}

/// Root of `count = bytes.len() / size` fixed-size elements, tree sized for `limit` elements.
pub(super) fn elements_root(
    elem: &'static Ty,
    bytes: &[u8],
    size: usize,
    limit: u64,
) -> Result<[u8; 32], SszError> {
    if elem.packs() {
        if matches!(elem, Ty::Bool) {
            check_bools(bytes, 0, elem)?;
        }
        return Ok(merkle::merkleize(
            bytes,
            merkle::chunks_for_bytes(limit * size as u64),
        ));
    }
    if let Ty::Container(Container {
        elements_root: Some(root),
        ..
    }) = elem
    {
        return root(bytes, limit);
    }
    let leaves = ElementRoots {
        elem,
        bytes,
        size,
        error: OnceLock::new(),
    };
    let root = merkle::merkleize_leaves(&leaves, limit);
    match leaves.error.into_inner() {
        Some(e) => Err(e),
        None => Ok(root),
    }
}

/// Fixed-size composite elements as merkle leaves: each leaf is an element's root, computed per batch.
pub(super) struct ElementRoots<'a> {
    elem: &'static Ty,
    bytes: &'a [u8],
    size: usize,
    /// The first bad element seen (leaves cannot fail, so the error is kept and reported after hashing).
    error: OnceLock<SszError>,
}

impl Leaves for ElementRoots<'_> {
    fn count(&self) -> usize {
        self.bytes.len() / self.size
    }
    fn direct(&self, _: Range<usize>) -> Option<&[u8]> {
        None
    }
    fn fill(&self, range: Range<usize>, out: &mut Vec<u8>) {
        for i in range {
            let b = &self.bytes[i * self.size..(i + 1) * self.size];
            match hash_tree_root(self.elem, b) {
                Ok(r) => out.extend_from_slice(&r),
                Err(e) => {
                    let _ = self.error.set(e.at(PathSeg::Index(i)));
                    out.extend_from_slice(&[0u8; 32]);
                }
            }
        }
    }
    fn par_min(&self) -> usize {
        // A composite element costs at least one hash: split at ~4k elements.
        1 << 12
    }
}

pub(super) fn variable_elements_root(
    elem: &'static Ty,
    parts: &[&[u8]],
    limit: u64,
) -> Result<[u8; 32], SszError> {
    let mut roots = Vec::with_capacity(parts.len() * CHUNK);
    for (i, p) in parts.iter().enumerate() {
        roots.extend_from_slice(&hash_tree_root(elem, p).map_err(|e| e.at(PathSeg::Index(i)))?);
    }
    Ok(merkle::merkleize(&roots, limit))
}
