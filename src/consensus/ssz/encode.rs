//! Serializing containers and lists from their parts (the inverse of reading; used by synthetic-data builders).

use super::error::{len_err, ErrorKind, PathSeg, SszError};
use super::layout::split_container;
use super::{Container, Ty};

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
