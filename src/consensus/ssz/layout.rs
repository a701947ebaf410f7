//! The byte layout of serialized objects, below both reading and hashing: offsets validated, containers and
//! variable-size lists split into their parts' bytes (slices of the input, no copies).

use super::error::{len_err, ErrorKind, PathSeg, SszError};
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
    let mut out = Vec::with_capacity(c.fields.len());
    split_container_into(c, bytes, &mut out)?;
    Ok(out)
}

/// [`split_container`] appending the fields to `out` (the hashing walker reuses one buffer for every object;
/// on error `out` may hold part of them).
pub(super) fn split_container_into<'a>(
    c: &'static Container,
    bytes: &'a [u8],
    out: &mut Vec<&'a [u8]>,
) -> Result<(), SszError> {
    let fixed = c.fixed_part();
    let ctx = |e: SszError| e.at(PathSeg::Field(c.name));
    if bytes.len() < fixed {
        return Err(ctx(SszError::new(ErrorKind::TooShort {
            ty: c.name.into(),
            expected: fixed,
            found: bytes.len(),
        })));
    }
    // Pass 1: positions; a variable field gets `bytes[offset..]` here, cut at the next offset in pass 2.
    let base = out.len();
    let mut prev: Option<usize> = None; // the previous variable field's offset
    let mut pos = 0usize;
    for f in c.fields {
        match f.ty.fixed_size() {
            Some(s) => {
                out.push(&bytes[pos..pos + s]);
                pos += s;
            }
            None => {
                let o = read_offset(bytes, pos).unwrap_or(0);
                let check = if let Some(prev) = prev {
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
                prev = Some(o);
                out.push(&bytes[o..]);
                pos += 4;
            }
        }
    }
    if prev.is_none() && bytes.len() != fixed {
        return Err(ctx(SszError::new(ErrorKind::Length {
            ty: c.name.into(),
            expected: fixed,
            found: bytes.len(),
        })));
    }
    // Pass 2, last field first: each variable field ends where the next one starts (offsets are
    // non-decreasing, checked above).
    let mut end = bytes.len();
    for (f, part) in c.fields.iter().zip(&mut out[base..]).rev() {
        if f.ty.fixed_size().is_none() {
            let start = bytes.len() - part.len();
            *part = &bytes[start..end];
            end = start;
        }
    }
    Ok(())
}

/// Splits a vector/list of variable-size elements into element slices (`expect`: the count of a vector).
pub(super) fn split_variable<'a>(
    ty: &Ty,
    bytes: &'a [u8],
    expect: Option<usize>,
    limit: u64,
) -> Result<Vec<&'a [u8]>, SszError> {
    let mut out = Vec::new();
    split_variable_into(ty, bytes, expect, limit, &mut out)?;
    Ok(out)
}

/// [`split_variable`] appending the elements to `out` (on error `out` may hold part of them).
pub(super) fn split_variable_into<'a>(
    ty: &Ty,
    bytes: &'a [u8],
    expect: Option<usize>,
    limit: u64,
    out: &mut Vec<&'a [u8]>,
) -> Result<(), SszError> {
    if bytes.is_empty() {
        return match expect {
            Some(n) if n > 0 => Err(len_err(ty, 4 * n, 0)),
            _ => Ok(()),
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
    out.reserve(n);
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
    Ok(())
}
