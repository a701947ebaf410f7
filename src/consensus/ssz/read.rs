//! Reading serialized objects: offsets validated, containers split into their fields' bytes, views by name.

use super::error::{len_err, ErrorKind, PathSeg, SszError};
use super::root::container_root_of_fields;
use super::{Container, Ty};

#[inline]
pub(super) fn read_offset(bytes: &[u8], at: usize) -> Option<usize> {
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
pub(super) fn split_variable<'a>(
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

pub(super) fn name_static(c: &'static Container, name: &str) -> &'static str {
    c.fields
        .iter()
        .find(|f| f.name == name)
        .map_or("?", |f| f.name)
}
