//! What was wrong with an object's bytes, and where in it.

use super::Ty;
use std::fmt;

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
    /// An object too short to read its slot from (see [`crate::consensus::slot_of`]), so its fork cannot be told.
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
    pub(super) fn at(mut self, seg: PathSeg) -> Self {
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

pub(super) fn len_err(ty: &Ty, expected: usize, found: usize) -> SszError {
    SszError::new(ErrorKind::Length {
        ty: ty.describe(),
        expected,
        found,
    })
}
