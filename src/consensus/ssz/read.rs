//! Reading serialized objects: views of validated containers, their fields by name.

use super::error::{ErrorKind, PathSeg, SszError};
use super::layout::{read_u64, split_container, split_variable};
use super::root::{container_root_of_fields, defer_container_root_of_fields, Capture};
use super::{Container, Ty};
use crate::consensus::merkle::{Forest, Val};

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
            Ty::List(e, l) | Ty::ProgressiveList(e, l) => (*e, None, *l),
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

    /// hash_tree_root of the whole container recorded in `forest` (known after [`Forest::evaluate`]), with
    /// the nodes of the `captures`' container types.
    pub fn defer_root(
        &self,
        forest: &mut Forest,
        captures: &mut [Capture],
    ) -> Result<Val, SszError> {
        defer_container_root_of_fields(forest, self.ty, &self.fields, captures)
    }
}

pub(super) fn name_static(c: &'static Container, name: &str) -> &'static str {
    c.fields
        .iter()
        .find(|f| f.name == name)
        .map_or("?", |f| f.name)
}
