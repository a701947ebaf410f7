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
//!
//! The module by concept: the schema ([`Ty`], [`Container`], [`Field`]) here; reading and validating bytes
//! ([`split_container`], [`View`]) in `read`; errors in `error`; hash_tree_root in `root`; serializing
//! (synthetic data) in `encode`.

#[cfg(test)]
mod defer_tests;
mod encode;
mod error;
mod layout;
mod read;
mod root;
#[cfg(test)]
mod tests;

pub use encode::{encode_container, encode_variable_list, field_container, with_fields};
pub use error::{ErrorKind, PathSeg, SszError};
pub use layout::{read_u64, split_container};
pub use read::View;
pub use root::{
    container_root, container_root_of_fields, defer_container_root_of_fields, defer_root,
    hash_tree_root, Capture,
};

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
    /// `ProgressiveList[T]` (EIP-7916; `ProgressiveByteList` is `ProgressiveList[uint8]`): merkleized as a
    /// progressive tree (subtrees of 1, 4, 16, ... chunks), whatever its length. The number is the longest
    /// list accepted when reading — the spec's type has none, each use is bounded by its own table (Lodestar
    /// sets the same limits) — and is no part of the root.
    ProgressiveList(&'static Ty, u64),
    /// `ProgressiveBitList` (EIP-7916), with the most bits accepted when reading (no part of the root).
    ProgressiveBitlist(u64),
    /// A container: named fields in order (a progressive container, EIP-7495, when it has active fields).
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
    /// [`Ty::fixed_size`] of the container, computed once when the schema is built: reading and hashing ask
    /// for it per field and per object, and recomputing it walked the nested containers every time.
    fixed_size: Option<usize>,
    /// Size of the serialized fixed part: fixed-size fields inline, 4 bytes per variable-size field's offset.
    fixed_part: usize,
    /// A `ProgressiveContainer(active_fields)` (EIP-7495): which positions of the progressive tree hold the
    /// fields, in order (1) and which are left empty (0). `None`: an ordinary container.
    pub active_fields: Option<&'static [u8]>,
}

impl Container {
    /// A container schema (a `const fn`, so schemas stay statics).
    pub const fn new(name: &'static str, fields: &'static [Field]) -> Self {
        let mut fixed = Some(0usize);
        let mut part = 0usize;
        let mut i = 0;
        while i < fields.len() {
            let size = fields[i].ty.fixed_size();
            fixed = match (fixed, size) {
                (Some(a), Some(b)) => Some(a + b),
                _ => None,
            };
            part += match size {
                Some(s) => s,
                None => 4,
            };
            i += 1;
        }
        Container {
            name,
            fields,
            elements_root: None,
            fixed_size: fixed,
            fixed_part: part,
            active_fields: None,
        }
    }

    /// A `ProgressiveContainer(active_fields)` (EIP-7495): serialized as a container of `fields`, merkleized as
    /// a progressive tree whose positions `active_fields` marks 1 hold the fields in order. The spec's rules
    /// are checked when the schema is built: 1 to 256 positions, the last one active, as many active as fields.
    pub const fn progressive(
        name: &'static str,
        fields: &'static [Field],
        active_fields: &'static [u8],
    ) -> Self {
        let n = active_fields.len();
        assert!(n > 0 && n <= 256, "active_fields: 1 to 256 positions");
        assert!(active_fields[n - 1] == 1, "active_fields cannot end in 0");
        let mut ones = 0;
        let mut i = 0;
        while i < n {
            assert!(active_fields[i] <= 1, "active_fields holds 0s and 1s");
            ones += active_fields[i] as usize;
            i += 1;
        }
        assert!(ones == fields.len(), "one active position per field");
        let mut c = Container::new(name, fields);
        c.active_fields = Some(active_fields);
        c
    }

    /// Size of the serialized fixed part (the first offset of a valid object with variable-size fields).
    #[inline]
    pub(crate) fn fixed_part(&self) -> usize {
        self.fixed_part
    }

    /// The same container with a specialised root for lists and vectors of it.
    pub const fn with_elements_root(mut self, root: ElementsRoot) -> Self {
        self.elements_root = Some(root);
        self
    }
}

/// The root of `bytes.len() / size` fixed-size elements of one container type, tree sized for `limit`
/// elements (`None`: EIP-7916's progressive tree) and without the length mix-in (the caller mixes it in for
/// lists). The caller has checked that `bytes.len()` is a multiple of the element size.
pub type ElementsRoot = fn(bytes: &[u8], limit: Option<u64>) -> Result<[u8; 32], SszError>;

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
    #[inline]
    pub const fn fixed_size(&self) -> Option<usize> {
        match self {
            Ty::Uint(n) | Ty::Bytes(n) => Some(*n),
            Ty::Bool => Some(1),
            Ty::Bitvector(n) => Some(n.div_ceil(8)),
            Ty::Vector(e, n) => match e.fixed_size() {
                Some(s) => Some(s * *n),
                None => None,
            },
            Ty::List(..) | Ty::Bitlist(_) | Ty::ProgressiveList(..) | Ty::ProgressiveBitlist(_) => {
                None
            }
            Ty::Container(c) => c.fixed_size,
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
            Ty::ProgressiveList(e, _) => format!("ProgressiveList[{}]", e.describe()),
            Ty::ProgressiveBitlist(_) => "ProgressiveBitList".into(),
            Ty::Container(c) => c.name.into(),
        }
    }

    /// Elements whose serialization is already their chunk data (spec: basic types are packed; a Bytes32
    /// element is its own root), so a vector or list of them is merkleized from the input bytes directly.
    fn packs(&self) -> bool {
        matches!(self, Ty::Uint(_) | Ty::Bool | Ty::Bytes(32))
    }
}
