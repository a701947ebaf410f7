//! A small SSZ schema and view layer: offset-validated reading of serialized objects, and their
//! hash_tree_root computed straight from the bytes.
//!
//! Spec facts used (consensus-specs `ssz/simple-serialize.md`,
//! <https://github.com/ethereum/consensus-specs/blob/master/ssz/simple-serialize.md>):
//! - Fixed-size types serialize to exactly their size; a container's fixed part holds fixed-size fields inline
//!   and a 4-byte little-endian offset (`BYTES_PER_LENGTH_OFFSET`) for each variable-size field; variable
//!   parts follow in field order, so offsets are non-decreasing, within the object, and the first equals the
//!   fixed-part size.
//! - A list of variable-size elements is a table of offsets followed by the elements; the first offset gives
//!   the count (`offset / 4`).
//! - Bitlists carry a delimiter bit just above the last data bit; bitvectors must not set bits past `N`.
//! - hash_tree_root: basic values and vectors/lists of them are packed into chunks; composite elements
//!   contribute their own roots; lists mix in their length; bitlists merkleize their bits without the
//!   delimiter with chunk limit `(N + 255) // 256`.

use super::merkle::{self, Leaves, CHUNK};
use std::fmt;
use std::ops::Range;
use std::sync::OnceLock;

/// An SSZ type, described statically so one generic walker validates and hashes every fork's containers.
#[derive(Debug)]
pub enum Ty {
    /// `uintN` with N/8 bytes (1, 8 or 32 here), little-endian.
    Uint(usize),
    /// `boolean`: one byte, 0 or 1.
    Bool,
    /// `ByteVector[N]` (Bytes4 ... Bytes96, the logs bloom): packed bytes.
    Bytes(usize),
    /// `Vector[T, N]`.
    Vector(&'static Ty, usize),
    /// `List[T, N]` (`ByteList[N]` is `List[uint8, N]`).
    List(&'static Ty, u64),
    /// `Bitvector[N]`.
    Bitvector(usize),
    /// `Bitlist[N]`.
    Bitlist(u64),
    /// A container: named fields in order.
    Container(&'static Container),
}

/// A container definition: its name (for errors) and its fields in serialization order.
#[derive(Debug)]
pub struct Container {
    /// The spec's class name, e.g. `BeaconState`.
    pub name: &'static str,
    /// Fields in order; the order defines both the layout and the merkle leaves.
    pub fields: &'static [Field],
    /// A routine specialised for lists and vectors of this container, used instead of hashing each element
    /// with the generic walker (the validator registry, see `validators`). The schema supplies it, so this
    /// walker stays independent of any particular container.
    pub elements_root: Option<ElementsRoot>,
}

/// The root of `bytes.len() / size` fixed-size elements of one container type, tree sized for `limit`
/// elements and without the length mix-in (the caller mixes it in for lists). The caller has checked that
/// `bytes.len()` is a multiple of the element size.
pub type ElementsRoot = fn(bytes: &[u8], limit: u64) -> Result<[u8; 32], SszError>;

/// One named field of a [`Container`].
#[derive(Debug)]
pub struct Field {
    /// Spec field name, used by accessors and in error paths.
    pub name: &'static str,
    /// Field type.
    pub ty: &'static Ty,
}

impl Ty {
    /// Serialized size when the type is fixed-size (spec `is_fixed_size`), `None` otherwise.
    pub fn fixed_size(&self) -> Option<usize> {
        match self {
            Ty::Uint(n) | Ty::Bytes(n) => Some(*n),
            Ty::Bool => Some(1),
            Ty::Bitvector(n) => Some(n.div_ceil(8)),
            Ty::Vector(e, n) => e.fixed_size().map(|s| s * n),
            Ty::List(..) | Ty::Bitlist(_) => None,
            Ty::Container(c) => c.fields.iter().map(|f| f.ty.fixed_size()).sum(),
        }
    }

    /// Short type name for error messages.
    pub fn describe(&self) -> String {
        match self {
            Ty::Uint(n) => format!("uint{}", n * 8),
            Ty::Bool => "boolean".into(),
            Ty::Bytes(n) => format!("Bytes{n}"),
            Ty::Vector(e, n) => format!("Vector[{}, {n}]", e.describe()),
            Ty::List(e, n) => format!("List[{}, {n}]", e.describe()),
            Ty::Bitvector(n) => format!("Bitvector[{n}]"),
            Ty::Bitlist(n) => format!("Bitlist[{n}]"),
            Ty::Container(c) => c.name.into(),
        }
    }

    /// Elements whose serialization is already their chunk data (spec: basic types are packed; a Bytes32
    /// element is its own root), so a vector or list of them is merkleized from the input bytes directly.
    fn packs(&self) -> bool {
        matches!(self, Ty::Uint(_) | Ty::Bool | Ty::Bytes(32))
    }
}

/// One step of the path to a bad value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathSeg {
    /// A container field.
    Field(&'static str),
    /// A list or vector element.
    Index(usize),
}

/// What was wrong with the bytes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ErrorKind {
    /// A fixed-size value had the wrong length.
    #[error("{ty}: expected {expected} bytes, found {found}")]
    Length {
        /// The type being read, as [`Ty::describe`] renders it (`Bytes32`, `uint64`, a container name).
        ty: String,
        /// Its fixed serialized size, in bytes.
        expected: usize,
        /// Bytes available for it.
        found: usize,
    },
    /// Fewer bytes than the fixed part of a container needs.
    #[error("{ty}: fixed part needs {expected} bytes, found {found}")]
    TooShort {
        /// The container's name.
        ty: String,
        /// Size of its fixed part (fixed-size fields plus 4 bytes per variable-size field), in bytes.
        expected: usize,
        /// Bytes available for the whole container.
        found: usize,
    },
    /// A list of fixed-size elements whose length is not a multiple of the element size.
    #[error("{ty}: length {found} is not a multiple of the element size {elem_size}")]
    NotMultiple {
        /// The list type, as [`Ty::describe`] renders it.
        ty: String,
        /// Serialized size of one element, in bytes.
        elem_size: usize,
        /// Bytes available for the list.
        found: usize,
    },
    /// More elements (or bits) than the list limit.
    #[error("{ty}: at most {limit} elements allowed, found {found}")]
    TooMany {
        /// The list or bitlist type, as [`Ty::describe`] renders it.
        ty: String,
        /// The type's limit `N`: elements for a list, bits for a bitlist.
        limit: u64,
        /// Elements (or bits) the bytes hold.
        found: u64,
    },
    /// The first offset does not point just past the fixed part.
    #[error("first offset must be {expected} (the fixed part's size), found {found}")]
    FirstOffset {
        /// The fixed part's size, in bytes: where the first variable-size field must start.
        expected: usize,
        /// The offset read.
        found: usize,
    },
    /// The first offset of a variable-size list is not a positive multiple of 4.
    #[error("first offset of a list of variable-size elements must be a positive multiple of 4, found {found}")]
    ListOffset {
        /// The offset read (it also gives the element count, `found / 4`).
        found: usize,
    },
    /// An offset pointing past the end of the object.
    #[error("offset {found} is past the end of the object ({len} bytes)")]
    OffsetOutOfRange {
        /// The offset read, relative to the start of the object.
        found: usize,
        /// The object's size, in bytes.
        len: usize,
    },
    /// An offset smaller than the previous one.
    #[error("offset {found} is smaller than the previous offset {previous}")]
    OffsetDecreasing {
        /// The previous offset (variable parts must follow in field order).
        previous: usize,
        /// The offset read.
        found: usize,
    },
    /// A boolean byte other than 0 or 1.
    #[error("boolean must be 0 or 1, found {found}")]
    BadBool {
        /// The byte read.
        found: u8,
    },
    /// A bitvector with bits set past its length.
    #[error("Bitvector[{bits}]: bits set past the end (last byte {found:#04x})")]
    BitvectorExcess {
        /// The bitvector's length `N`, in bits.
        bits: usize,
        /// Its last byte, whose bits above `N % 8` must be zero.
        found: u8,
    },
    /// A bitlist without its delimiter bit (empty, or last byte zero).
    #[error("bitlist has no delimiter bit (expected a non-zero last byte, found {found})")]
    BitlistDelimiter {
        /// What was found instead: `"no bytes"`, or `"0x00"` for a zero last byte.
        found: String,
    },
    /// A builder named a field the container does not have (wrong fork).
    #[error("{container} has no field '{field}'")]
    NoField {
        /// The container's name.
        container: String,
        /// The field asked for.
        field: String,
    },
    /// An object too short to read its slot from (see [`super::slot_of`]), so its fork cannot be told.
    #[error("object has {found} bytes, too short to hold the slot at offset {offset}")]
    NoSlot {
        /// Where the slot would be: its byte offset in the serialized block or state.
        offset: usize,
        /// The object's size, in bytes.
        found: usize,
    },
}

/// A typed SSZ decoding error: what was wrong and where (e.g. `BeaconState.validators[3].slashed`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SszError {
    /// Innermost segment last: built outward as the error bubbles up.
    rev_path: Vec<PathSeg>,
    /// What was wrong.
    pub kind: ErrorKind,
}

impl SszError {
    /// A new error at the current position.
    pub fn new(kind: ErrorKind) -> Self {
        SszError {
            rev_path: Vec::new(),
            kind,
        }
    }
    /// The error one field further out: `name` is the field holding the bad value.
    pub(crate) fn at_field(self, name: &'static str) -> Self {
        self.at(PathSeg::Field(name))
    }
    /// The error one element further out: `i` is the index of the element holding the bad value.
    pub(crate) fn at_index(self, i: usize) -> Self {
        self.at(PathSeg::Index(i))
    }
    fn at(mut self, seg: PathSeg) -> Self {
        self.rev_path.push(seg);
        self
    }
    /// The path from the outermost object to the bad value.
    pub fn path(&self) -> impl Iterator<Item = &PathSeg> {
        self.rev_path.iter().rev()
    }
}

impl fmt::Display for SszError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for seg in self.path() {
            match seg {
                PathSeg::Field(n) if first => write!(f, "{n}")?,
                PathSeg::Field(n) => write!(f, ".{n}")?,
                PathSeg::Index(i) => write!(f, "[{i}]")?,
            }
            first = false;
        }
        if !first {
            f.write_str(": ")?;
        }
        write!(f, "{}", self.kind)
    }
}

impl std::error::Error for SszError {}

fn len_err(ty: &Ty, expected: usize, found: usize) -> SszError {
    SszError::new(ErrorKind::Length {
        ty: ty.describe(),
        expected,
        found,
    })
}

#[inline]
fn read_offset(bytes: &[u8], at: usize) -> Option<usize> {
    let b: [u8; 4] = bytes.get(at..at + 4)?.try_into().ok()?;
    Some(u32::from_le_bytes(b) as usize)
}

/// Reads a little-endian u64 at `at` (the caller has validated the object, so `None` means a caller bug).
#[inline]
pub fn read_u64(bytes: &[u8], at: usize) -> Option<u64> {
    let b: [u8; 8] = bytes.get(at..at + 8)?.try_into().ok()?;
    Some(u64::from_le_bytes(b))
}

/// Splits a container's bytes into its fields, validating the fixed part and every offset.
pub fn split_container<'a>(
    c: &'static Container,
    bytes: &'a [u8],
) -> Result<Vec<&'a [u8]>, SszError> {
    let mut fixed = 0usize;
    for f in c.fields {
        fixed += f.ty.fixed_size().unwrap_or(4);
    }
    let ctx = |e: SszError| e.at(PathSeg::Field(c.name));
    if bytes.len() < fixed {
        return Err(ctx(SszError::new(ErrorKind::TooShort {
            ty: c.name.into(),
            expected: fixed,
            found: bytes.len(),
        })));
    }
    // Pass 1: positions; variable fields get their start from the offset, their end from the next offset.
    let mut out: Vec<&[u8]> = Vec::with_capacity(c.fields.len());
    let mut var: Vec<(usize, usize)> = Vec::new(); // (field index, offset)
    let mut pos = 0usize;
    for (i, f) in c.fields.iter().enumerate() {
        match f.ty.fixed_size() {
            Some(s) => {
                out.push(&bytes[pos..pos + s]);
                pos += s;
            }
            None => {
                let o = read_offset(bytes, pos).unwrap_or(0);
                let check = if let Some(&(_, prev)) = var.last() {
                    if o < prev {
                        Some(ErrorKind::OffsetDecreasing {
                            previous: prev,
                            found: o,
                        })
                    } else {
                        None
                    }
                } else if o != fixed {
                    Some(ErrorKind::FirstOffset {
                        expected: fixed,
                        found: o,
                    })
                } else {
                    None
                };
                let check = check.or(if o > bytes.len() {
                    Some(ErrorKind::OffsetOutOfRange {
                        found: o,
                        len: bytes.len(),
                    })
                } else {
                    None
                });
                if let Some(k) = check {
                    return Err(ctx(SszError::new(k).at(PathSeg::Field(f.name))));
                }
                var.push((i, o));
                out.push(&[]);
                pos += 4;
            }
        }
    }
    if var.is_empty() && bytes.len() != fixed {
        return Err(ctx(SszError::new(ErrorKind::Length {
            ty: c.name.into(),
            expected: fixed,
            found: bytes.len(),
        })));
    }
    for (k, &(i, o)) in var.iter().enumerate() {
        let end = var.get(k + 1).map_or(bytes.len(), |v| v.1);
        out[i] = &bytes[o..end];
    }
    Ok(out)
}

/// Splits a vector/list of variable-size elements into element slices (`expect`: the count of a vector).
fn split_variable<'a>(
    ty: &Ty,
    bytes: &'a [u8],
    expect: Option<usize>,
    limit: u64,
) -> Result<Vec<&'a [u8]>, SszError> {
    if bytes.is_empty() {
        return match expect {
            Some(n) if n > 0 => Err(len_err(ty, 4 * n, 0)),
            _ => Ok(Vec::new()),
        };
    }
    let first = read_offset(bytes, 0).ok_or_else(|| len_err(ty, 4, bytes.len()))?;
    if first == 0 || first % 4 != 0 {
        return Err(SszError::new(ErrorKind::ListOffset { found: first }));
    }
    if first > bytes.len() {
        return Err(SszError::new(ErrorKind::OffsetOutOfRange {
            found: first,
            len: bytes.len(),
        }));
    }
    let n = first / 4;
    if let Some(e) = expect {
        if n != e {
            return Err(SszError::new(ErrorKind::FirstOffset {
                expected: 4 * e,
                found: first,
            }));
        }
    }
    if n as u64 > limit {
        return Err(SszError::new(ErrorKind::TooMany {
            ty: ty.describe(),
            limit,
            found: n as u64,
        }));
    }
    let mut out = Vec::with_capacity(n);
    let mut prev = first;
    for i in 1..=n {
        let o = if i == n {
            bytes.len()
        } else {
            read_offset(bytes, 4 * i).unwrap_or(0)
        };
        if o < prev {
            return Err(SszError::new(ErrorKind::OffsetDecreasing {
                previous: prev,
                found: o,
            })
            .at(PathSeg::Index(i)));
        }
        if o > bytes.len() {
            return Err(SszError::new(ErrorKind::OffsetOutOfRange {
                found: o,
                len: bytes.len(),
            })
            .at(PathSeg::Index(i)));
        }
        out.push(&bytes[prev..o]);
        prev = o;
    }
    Ok(out)
}

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

fn check_bools(bytes: &[u8], expected: usize, ty: &Ty) -> Result<(), SszError> {
    if bytes.len() != expected && expected != 0 {
        return Err(len_err(ty, expected, bytes.len()));
    }
    if let Some(&b) = bytes.iter().find(|&&b| b > 1) {
        return Err(SszError::new(ErrorKind::BadBool { found: b }));
    }
    Ok(())
}

/// The data bytes of a bitlist (delimiter cleared) and its bit length.
fn bitlist_bits(bytes: &[u8]) -> Result<(Vec<u8>, u64), SszError> {
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
fn elements_root(
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
struct ElementRoots<'a> {
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

fn variable_elements_root(
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

/// A validated container: its fields as slices of the input, looked up by spec name.
#[derive(Debug, Clone)]
pub struct View<'a> {
    /// The container's schema.
    pub ty: &'static Container,
    /// The whole serialized object.
    pub bytes: &'a [u8],
    fields: Vec<&'a [u8]>,
}

impl<'a> View<'a> {
    /// Validates the container's fixed part and offsets (nested objects are validated when read or hashed).
    pub fn new(ty: &'static Container, bytes: &'a [u8]) -> Result<Self, SszError> {
        let fields = split_container(ty, bytes)?;
        Ok(View { ty, bytes, fields })
    }

    /// The bytes of field `name`, or `None` when this fork's container has no such field.
    pub fn get(&self, name: &str) -> Option<&'a [u8]> {
        let i = self.ty.fields.iter().position(|f| f.name == name)?;
        self.fields.get(i).copied()
    }

    /// The type of field `name`.
    pub fn field_ty(&self, name: &str) -> Option<&'static Ty> {
        self.ty.fields.iter().find(|f| f.name == name).map(|f| f.ty)
    }

    /// A `uint64` field.
    pub fn u64(&self, name: &str) -> Option<u64> {
        read_u64(self.get(name)?, 0)
    }

    /// A 32-byte field (roots, hashes).
    pub fn bytes32(&self, name: &str) -> Option<[u8; 32]> {
        self.get(name)?.try_into().ok()
    }

    /// A nested container field as a view.
    pub fn sub(&self, name: &str) -> Option<Result<View<'a>, SszError>> {
        let i = self.ty.fields.iter().position(|f| f.name == name)?;
        let f = &self.ty.fields[i];
        let Ty::Container(c) = f.ty else { return None };
        let bytes = self.fields.get(i)?;
        Some(View::new(c, bytes).map_err(|e| {
            e.at(PathSeg::Field(f.name))
                .at(PathSeg::Field(self.ty.name))
        }))
    }

    /// The elements of a list or vector field, each validated as an object boundary (not hashed).
    pub fn elements(&self, name: &str) -> Option<Result<Vec<&'a [u8]>, SszError>> {
        let ty = self.field_ty(name)?;
        let bytes = self.get(name)?;
        let (elem, expect, limit) = match ty {
            Ty::List(e, l) => (*e, None, *l),
            Ty::Vector(e, n) => (*e, Some(*n), *n as u64),
            _ => return None,
        };
        let ctx = |e: SszError| {
            e.at(PathSeg::Field(name_static(self.ty, name)))
                .at(PathSeg::Field(self.ty.name))
        };
        Some(
            match elem.fixed_size() {
                Some(s) if s > 0 => {
                    if bytes.len() % s != 0 {
                        Err(SszError::new(ErrorKind::NotMultiple {
                            ty: ty.describe(),
                            elem_size: s,
                            found: bytes.len(),
                        }))
                    } else if (bytes.len() / s) as u64 > limit
                        || expect.is_some_and(|n| n != bytes.len() / s)
                    {
                        Err(SszError::new(ErrorKind::TooMany {
                            ty: ty.describe(),
                            limit,
                            found: (bytes.len() / s) as u64,
                        }))
                    } else {
                        Ok(bytes.chunks_exact(s).collect())
                    }
                }
                _ => split_variable(ty, bytes, expect, limit),
            }
            .map_err(ctx),
        )
    }

    /// The number of elements of a list field (offset table or fixed element size), validated.
    pub fn count(&self, name: &str) -> Option<Result<usize, SszError>> {
        Some(self.elements(name)?.map(|v| v.len()))
    }

    /// hash_tree_root of the whole container.
    pub fn root(&self) -> Result<[u8; 32], SszError> {
        container_root_of_fields(self.ty, &self.fields)
    }
}

fn name_static(c: &'static Container, name: &str) -> &'static str {
    c.fields
        .iter()
        .find(|f| f.name == name)
        .map_or("?", |f| f.name)
}

/// Serializes a container from its fields' serializations: fixed-size fields inline, variable-size ones
/// behind 4-byte offsets in the fixed part (the inverse of [`split_container`]). Used by synthetic-data
/// builders; the field values themselves are not validated beyond fixed sizes.
pub fn encode_container(c: &'static Container, fields: &[&[u8]]) -> Result<Vec<u8>, SszError> {
    if fields.len() != c.fields.len() {
        return Err(SszError::new(ErrorKind::Length {
            ty: format!("{} fields", c.name),
            expected: c.fields.len(),
            found: fields.len(),
        }));
    }
    let fixed: usize = c
        .fields
        .iter()
        .map(|f| f.ty.fixed_size().unwrap_or(4))
        .sum();
    let total = fixed
        + c.fields
            .iter()
            .zip(fields)
            .filter(|(f, _)| f.ty.fixed_size().is_none())
            .map(|(_, b)| b.len())
            .sum::<usize>();
    let mut out = Vec::with_capacity(total);
    let mut var_at = fixed;
    for (f, b) in c.fields.iter().zip(fields) {
        match f.ty.fixed_size() {
            Some(s) => {
                if b.len() != s {
                    return Err(len_err(f.ty, s, b.len())
                        .at(PathSeg::Field(f.name))
                        .at(PathSeg::Field(c.name)));
                }
                out.extend_from_slice(b);
            }
            None => {
                out.extend_from_slice(&(var_at as u32).to_le_bytes());
                var_at += b.len();
            }
        }
    }
    for (f, b) in c.fields.iter().zip(fields) {
        if f.ty.fixed_size().is_none() {
            out.extend_from_slice(b);
        }
    }
    Ok(out)
}

/// Serializes a list of variable-size elements: the offset table, then the elements.
pub fn encode_variable_list(items: &[&[u8]]) -> Vec<u8> {
    let mut out =
        Vec::with_capacity(4 * items.len() + items.iter().map(|i| i.len()).sum::<usize>());
    let mut at = 4 * items.len();
    for i in items {
        out.extend_from_slice(&(at as u32).to_le_bytes());
        at += i.len();
    }
    for i in items {
        out.extend_from_slice(i);
    }
    out
}

/// The container type of field `name` of `c` (`None` if absent or not a container).
pub fn field_container(c: &'static Container, name: &str) -> Option<&'static Container> {
    match c.fields.iter().find(|f| f.name == name)?.ty {
        Ty::Container(sub) => Some(sub),
        _ => None,
    }
}

/// Re-serializes container `c` with the named fields replaced by new serializations (synthetic builders: a
/// random block gets a real execution payload, a random state gets consistent roots). Names `c` lacks are an
/// error, so a builder never silently writes a field into the wrong fork.
pub fn with_fields(
    c: &'static Container,
    bytes: &[u8],
    replace: &[(&str, &[u8])],
) -> Result<Vec<u8>, SszError> {
    let mut fields = split_container(c, bytes)?;
    for (name, value) in replace {
        let i = c
            .fields
            .iter()
            .position(|f| f.name == *name)
            .ok_or_else(|| {
                SszError::new(ErrorKind::NoField {
                    container: c.name.into(),
                    field: (*name).into(),
                })
            })?;
        fields[i] = value;
    }
    encode_container(c, &fields)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::consensus::types::{U64, U8};
    use crate::crypto::sha256;

    static BYTES4_LIST: Ty = Ty::List(&U8, 4);
    static T: Container = Container {
        name: "T",
        elements_root: None,
        fields: &[
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
    };

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
}
