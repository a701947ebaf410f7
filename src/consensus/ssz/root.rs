//! hash_tree_root straight from the serialized bytes: packed basic values, composite elements' own roots,
//! list lengths mixed in, big containers' fields in parallel.

use super::error::{len_err, ErrorKind, PathSeg, SszError};
use super::layout::{split_container, split_container_into, split_variable, split_variable_into};
use super::{Container, Field, Ty};
use crate::consensus::merkle::{self, Forest, Leaves, Val, CHUNK};
use std::ops::Range;
use std::sync::OnceLock;

/// Below this many bytes an object's fields are hashed on the calling thread (rayon tasks cost more).
const PAR_FIELDS_MIN_BYTES: usize = 1 << 20;

/// Lists and vectors of at least this many composite elements take the immediate path (whose leaves are
/// batched and split across workers, see [`ElementRoots`]) instead of recording every element.
const DEFER_MAX_ELEMENTS: usize = 1 << 12;

/// hash_tree_root of `bytes` read as `ty`, validating the serialization on the way.
pub fn hash_tree_root(ty: &'static Ty, bytes: &[u8]) -> Result<[u8; 32], SszError> {
    match ty {
        Ty::Uint(n) | Ty::Bytes(n) => {
            if let Some(r) = basic_root(ty, *n, bytes)? {
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
            check_bitvector(ty, *n, bytes)?;
            Ok(merkle::merkleize(bytes, (*n as u64).div_ceil(256)))
        }
        Ty::Bitlist(limit) => {
            let (data, bits) = bitlist_bits(bytes)?;
            check_count(ty, *limit, bits)?;
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
                let count = fixed_elements(ty, s, *limit, bytes)?;
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
        Ty::ProgressiveBitlist(limit) => {
            let (data, bits) = bitlist_bits(bytes)?;
            check_count(ty, *limit, bits)?;
            Ok(merkle::mix_in_length(
                &merkle::merkleize_progressive(&data),
                bits,
            ))
        }
        Ty::ProgressiveList(elem, limit) => {
            let (root, count) = if let Some(s) = elem.fixed_size() {
                let count = fixed_elements(ty, s, *limit, bytes)?;
                (progressive_elements_root(elem, bytes, s)?, count)
            } else {
                let parts = split_variable(ty, bytes, None, *limit)?;
                let roots = variable_element_roots(elem, &parts)?;
                (merkle::merkleize_progressive(&roots), parts.len() as u64)
            };
            Ok(merkle::mix_in_length(&root, count))
        }
        Ty::Container(c) => container_root(c, bytes),
    }
}

/// The progressive root (no length mixed in) of `bytes.len() / size` fixed-size elements: packed basic values
/// straight from the bytes, composite elements' roots computed in batches (in parallel for big lists, such as
/// a Gloas state's validators).
fn progressive_elements_root(
    elem: &'static Ty,
    bytes: &[u8],
    size: usize,
) -> Result<[u8; 32], SszError> {
    if elem.packs() {
        if matches!(elem, Ty::Bool) {
            check_bools(bytes, 0, elem)?;
        }
        return Ok(merkle::merkleize_progressive(bytes));
    }
    if let Ty::Container(Container {
        elements_root: Some(root),
        ..
    }) = elem
    {
        return root(bytes, None);
    }
    // Leaves computed batch by batch as the tree needs them (in parallel for big lists), never all at once.
    let leaves = ElementRoots {
        elem,
        bytes,
        size,
        error: OnceLock::new(),
    };
    let root = merkle::merkleize_progressive_leaves(&leaves);
    match leaves.error.into_inner() {
        Some(e) => Err(e),
        None => Ok(root),
    }
}

/// A `uint` or `bytesN` of `n` bytes: checked to be `n` bytes long; its root when it fits one chunk (`None`:
/// it is merkleized).
fn basic_root(ty: &Ty, n: usize, bytes: &[u8]) -> Result<Option<[u8; 32]>, SszError> {
    if bytes.len() != n {
        return Err(len_err(ty, n, bytes.len()));
    }
    Ok((n <= CHUNK).then(|| {
        let mut r = [0u8; 32];
        r[..n].copy_from_slice(bytes);
        r
    }))
}

/// A list's (or bitlist's) length against its limit.
fn check_count(ty: &Ty, limit: u64, found: u64) -> Result<(), SszError> {
    if found > limit {
        return Err(SszError::new(ErrorKind::TooMany {
            ty: ty.describe(),
            limit,
            found,
        }));
    }
    Ok(())
}

/// The number of `size`-byte elements of a list of fixed-size elements, checked against its limit.
fn fixed_elements(ty: &Ty, size: usize, limit: u64, bytes: &[u8]) -> Result<u64, SszError> {
    if size == 0 || !bytes.len().is_multiple_of(size) {
        return Err(SszError::new(ErrorKind::NotMultiple {
            ty: ty.describe(),
            elem_size: size,
            found: bytes.len(),
        }));
    }
    let count = (bytes.len() / size) as u64;
    check_count(ty, limit, count)?;
    Ok(count)
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
    match c.active_fields {
        None => Ok(merkle::merkleize(&roots, c.fields.len() as u64)),
        Some(active) => Ok(progressive_container_root(&roots, active)),
    }
}

/// EIP-7495: the fields' roots (in order) at the positions `active` marks 1, zero chunks at the others,
/// merkleized progressively, then the active fields mixed in.
fn progressive_container_root(field_roots: &[u8], active: &[u8]) -> [u8; 32] {
    let mut leaves = Vec::with_capacity(active.len() * CHUNK);
    let mut next = field_roots.chunks_exact(CHUNK);
    for &a in active {
        match (a, next.clone().next()) {
            (1, Some(r)) => {
                leaves.extend_from_slice(r);
                next.next();
            }
            _ => leaves.extend_from_slice(&[0u8; CHUNK]),
        }
    }
    merkle::mix_in_active_fields(&merkle::merkleize_progressive(&leaves), active)
}

/// A `Bitvector[n]`'s length, and no bit set past `n`.
fn check_bitvector(ty: &Ty, n: usize, bytes: &[u8]) -> Result<(), SszError> {
    let size = n.div_ceil(8);
    if bytes.len() != size {
        return Err(len_err(ty, size, bytes.len()));
    }
    if let Some(&last) = bytes.last() {
        if !n.is_multiple_of(8) && last >> (n % 8) != 0 {
            return Err(SszError::new(ErrorKind::BitvectorExcess {
                bits: n,
                found: last,
            }));
        }
    }
    Ok(())
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

/// The data bytes of a bitlist (delimiter cleared) and its bit length, as an owned copy (see [`bitlist_parts`]).
pub(super) fn bitlist_bits(bytes: &[u8]) -> Result<(Vec<u8>, u64), SszError> {
    let (head, tail, bits) = bitlist_parts(bytes)?;
    let mut data = head.to_vec();
    data.extend(tail);
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
        return root(bytes, Some(limit));
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
    Ok(merkle::merkleize(
        &variable_element_roots(elem, parts)?,
        limit,
    ))
}

/// The roots of variable-size elements `parts`, one chunk each, in order.
fn variable_element_roots(elem: &'static Ty, parts: &[&[u8]]) -> Result<Vec<u8>, SszError> {
    let mut roots = Vec::with_capacity(parts.len() * CHUNK);
    for (i, p) in parts.iter().enumerate() {
        roots.extend_from_slice(&hash_tree_root(elem, p).map_err(|e| e.at(PathSeg::Index(i)))?);
    }
    Ok(roots)
}

/// A container type whose root is wanted besides the whole object's (a block's body and execution payload
/// each appear once in a block): recording sets `val` to the node of the last container of that type, so
/// asking for that root does not hash the object a second time.
#[derive(Debug, Clone, Copy)]
pub struct Capture {
    /// The container type to capture.
    pub ty: &'static Container,
    /// Its root's value in the forest, once recorded.
    pub val: Option<Val>,
}

impl Capture {
    /// A capture of `ty`, not recorded yet.
    pub fn new(ty: &'static Container) -> Self {
        Capture { ty, val: None }
    }
}

/// [`hash_tree_root`] recorded in `forest` instead of computed: the value is known after
/// [`Forest::evaluate`]. Errors are those of [`hash_tree_root`] (same kind, same path); on error nothing is
/// left recorded.
pub fn defer_root(forest: &mut Forest, ty: &'static Ty, bytes: &[u8]) -> Result<Val, SszError> {
    forest.begin();
    let r = Deferred::new(forest, &mut []).root(ty, bytes);
    if r.is_err() {
        forest.rollback();
    }
    r
}

/// [`container_root_of_fields`] recorded in `forest` (see [`defer_root`]), filling `captures` with the nodes
/// of the containers of their types.
pub fn defer_container_root_of_fields(
    forest: &mut Forest,
    c: &'static Container,
    fields: &[&[u8]],
    captures: &mut [Capture],
) -> Result<Val, SszError> {
    forest.begin();
    let mut d = Deferred::new(forest, captures);
    d.parts.extend_from_slice(fields);
    let r = d.container(c, 0, fields.len());
    if r.is_err() {
        forest.rollback();
    }
    r
}

/// The recording walker: [`hash_tree_root`]'s recursion with every hash a forest node.
struct Deferred<'f, 'a, 'c> {
    forest: &'f mut Forest,
    /// Fields and elements of the objects being walked (each call works above its own start), one buffer for
    /// the whole walk instead of a vector per object.
    parts: Vec<&'a [u8]>,
    captures: &'c mut [Capture],
}

impl<'f, 'a, 'c> Deferred<'f, 'a, 'c> {
    fn new(forest: &'f mut Forest, captures: &'c mut [Capture]) -> Self {
        Deferred {
            forest,
            parts: Vec::new(),
            captures,
        }
    }

    fn root(&mut self, ty: &'static Ty, bytes: &'a [u8]) -> Result<Val, SszError> {
        match ty {
            Ty::Uint(n) | Ty::Bytes(n) => {
                if let Some(r) = basic_root(ty, *n, bytes)? {
                    Ok(self.forest.known(r))
                } else {
                    Ok(self.forest.merkleize_packed(
                        bytes,
                        None,
                        merkle::chunks_for_bytes(*n as u64),
                    ))
                }
            }
            Ty::Bool => {
                check_bools(bytes, 1, ty)?;
                let mut r = [0u8; 32];
                r[0] = bytes[0];
                Ok(self.forest.known(r))
            }
            Ty::Bitvector(n) => {
                check_bitvector(ty, *n, bytes)?;
                Ok(self
                    .forest
                    .merkleize_packed(bytes, None, (*n as u64).div_ceil(256)))
            }
            Ty::Bitlist(limit) => {
                let (head, tail, bits) = bitlist_parts(bytes)?;
                check_count(ty, *limit, bits)?;
                let root = self
                    .forest
                    .merkleize_packed(head, tail, limit.div_ceil(256));
                Ok(self.forest.mix_in_length(root, bits))
            }
            Ty::Vector(elem, n) => {
                if let Some(s) = elem.fixed_size() {
                    if bytes.len() != s * n {
                        return Err(len_err(ty, s * n, bytes.len()));
                    }
                    self.elements(elem, bytes, s, *n as u64)
                } else {
                    let start = self.parts.len();
                    split_variable_into(ty, bytes, Some(*n), *n as u64, &mut self.parts)?;
                    self.variable_elements(elem, start, *n as u64)
                }
            }
            Ty::List(elem, limit) => {
                let (root, count) = if let Some(s) = elem.fixed_size() {
                    let count = fixed_elements(ty, s, *limit, bytes)?;
                    (self.elements(elem, bytes, s, *limit)?, count)
                } else {
                    let start = self.parts.len();
                    split_variable_into(ty, bytes, None, *limit, &mut self.parts)?;
                    let count = (self.parts.len() - start) as u64;
                    (self.variable_elements(elem, start, *limit)?, count)
                };
                Ok(self.forest.mix_in_length(root, count))
            }
            // Progressive trees are hashed now (not yet recorded node by node): their roots enter the forest
            // as known values.
            Ty::ProgressiveList(..) | Ty::ProgressiveBitlist(_) => {
                Ok(self.forest.known(hash_tree_root(ty, bytes)?))
            }
            Ty::Container(c) if c.active_fields.is_some() => {
                Ok(self.forest.known(container_root(c, bytes)?))
            }
            Ty::Container(c) => {
                let start = self.parts.len();
                split_container_into(c, bytes, &mut self.parts)?;
                let n = self.parts.len() - start;
                self.container(c, start, n)
            }
        }
    }

    /// The container `c` whose `n` fields are `parts[start..]` (popped).
    fn container(
        &mut self,
        c: &'static Container,
        start: usize,
        n: usize,
    ) -> Result<Val, SszError> {
        // Fields one after the other even for a big object: what makes one big (long packed data, many
        // composite elements) takes the immediate, parallel path on its own.
        let pushed = self.forest.stack_len();
        for (i, f) in c.fields.iter().enumerate().take(n) {
            let b = self.parts[start + i];
            let v = self
                .root(f.ty, b)
                .map_err(|e| e.at(PathSeg::Field(f.name)).at(PathSeg::Field(c.name)))?;
            self.forest.push(v);
        }
        let v = self.forest.merkleize_pushed(pushed, c.fields.len() as u64);
        self.parts.truncate(start);
        for cap in self.captures.iter_mut() {
            if std::ptr::eq(cap.ty, c) {
                cap.val = Some(v);
            }
        }
        Ok(v)
    }

    /// [`elements_root`], recorded.
    fn elements(
        &mut self,
        elem: &'static Ty,
        bytes: &'a [u8],
        size: usize,
        limit: u64,
    ) -> Result<Val, SszError> {
        if elem.packs() {
            if matches!(elem, Ty::Bool) {
                check_bools(bytes, 0, elem)?;
            }
            return Ok(self.forest.merkleize_packed(
                bytes,
                None,
                merkle::chunks_for_bytes(limit * size as u64),
            ));
        }
        let count = bytes.len().checked_div(size).unwrap_or(0);
        let special = matches!(
            elem,
            Ty::Container(Container {
                elements_root: Some(_),
                ..
            })
        );
        if special || count >= DEFER_MAX_ELEMENTS {
            return Ok(self.forest.known(elements_root(elem, bytes, size, limit)?));
        }
        let pushed = self.forest.stack_len();
        for (i, b) in bytes.chunks_exact(size).enumerate() {
            let v = self.root(elem, b).map_err(|e| e.at(PathSeg::Index(i)))?;
            self.forest.push(v);
        }
        Ok(self.forest.merkleize_pushed(pushed, limit))
    }

    /// [`variable_elements_root`] of the elements `parts[start..]` (popped), recorded.
    fn variable_elements(
        &mut self,
        elem: &'static Ty,
        start: usize,
        limit: u64,
    ) -> Result<Val, SszError> {
        let pushed = self.forest.stack_len();
        for i in 0..self.parts.len().saturating_sub(start) {
            let p = self.parts[start + i];
            let v = self.root(elem, p).map_err(|e| e.at(PathSeg::Index(i)))?;
            self.forest.push(v);
        }
        self.parts.truncate(start);
        Ok(self.forest.merkleize_pushed(pushed, limit))
    }
}

/// A bitlist's data without copying it: the bytes before the last, the last byte with its delimiter bit
/// cleared (`None` when the delimiter was its only bit: the byte is not data), and the bit length.
fn bitlist_parts(bytes: &[u8]) -> Result<(&[u8], Option<u8>, u64), SszError> {
    let (last, head) = match bytes.split_last() {
        Some((&b, head)) if b != 0 => (b, head),
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
    let bits = 8 * head.len() as u64 + top;
    let tail = (top > 0).then_some(last & !(1u8 << top));
    Ok((head, tail, bits))
}
