//! Minimal zero-copy RLP walking on top of `alloy_rlp::Header`: items as slices of the input.
//!
//! Views (`HeaderView`, `BodyView`, `ReceiptView`) use these to point into decompressed record bytes instead of
//! decoding into owned structs.

use alloy_primitives::U256;
use alloy_rlp::Header;

/// An RLP decoding failure, with the field or structure being read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{context}: {message}")]
pub struct RlpError {
    /// What was being decoded (a field name, "body", "receipt 3", ...).
    pub context: String,
    /// What was wrong with it (e.g. `"expected 32 bytes, found 31"`).
    pub message: String,
}

impl RlpError {
    /// An error about `context`.
    pub fn new(context: impl Into<String>, message: impl Into<String>) -> Self {
        RlpError {
            context: context.into(),
            message: message.into(),
        }
    }
}

/// One RLP item: its whole encoding (`raw`) and its payload (`payload`, after the length prefix).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Item<'a> {
    /// The whole encoding: length prefix and payload.
    pub raw: &'a [u8],
    /// The bytes after the length prefix: a string's content or a list's concatenated item encodings. A
    /// single byte below 0x80 is its own encoding, so there `payload` and `raw` are the same byte.
    pub payload: &'a [u8],
    /// Whether the item is a list (prefix 0xc0 and above) rather than a string.
    pub is_list: bool,
}

/// Takes the next item off the front of `buf`.
pub fn next_item<'a>(buf: &mut &'a [u8], context: &str) -> Result<Item<'a>, RlpError> {
    let start: &'a [u8] = buf;
    let header = Header::decode(buf).map_err(|e| RlpError::new(context, e.to_string()))?;
    let header_len = start.len() - buf.len();
    if buf.len() < header.payload_length {
        return Err(RlpError::new(
            context,
            format!(
                "declares {} payload bytes, only {} remain",
                header.payload_length,
                buf.len()
            ),
        ));
    }
    let payload = &buf[..header.payload_length];
    *buf = &buf[header.payload_length..];
    Ok(Item {
        raw: &start[..header_len + header.payload_length],
        payload,
        is_list: header.list,
    })
}

/// Decodes `bytes` as exactly one list item (no trailing bytes) and returns it.
pub fn single_list<'a>(bytes: &'a [u8], context: &str) -> Result<Item<'a>, RlpError> {
    let mut b = bytes;
    let it = next_item(&mut b, context)?;
    if !it.is_list {
        return Err(RlpError::new(context, "expected a list, found a string"));
    }
    if !b.is_empty() {
        return Err(RlpError::new(
            context,
            format!("{} trailing bytes after the list", b.len()),
        ));
    }
    Ok(it)
}

/// Iterates the items inside a list payload.
#[derive(Debug, Clone)]
pub struct ListIter<'a> {
    rest: &'a [u8],
    context: &'static str,
}

impl<'a> ListIter<'a> {
    /// Iterates the items of `payload` (the payload of a list item).
    pub fn new(payload: &'a [u8], context: &'static str) -> Self {
        ListIter {
            rest: payload,
            context,
        }
    }
}

impl<'a> Iterator for ListIter<'a> {
    type Item = Result<Item<'a>, RlpError>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let r = next_item(&mut self.rest, self.context);
        if r.is_err() {
            self.rest = &[];
        }
        Some(r)
    }
}

/// Reads a string item that must be a canonical unsigned integer of at most 8 bytes.
pub fn as_u64(item: &Item<'_>, field: &str) -> Result<u64, RlpError> {
    let p = string_payload(item, field)?;
    if p.len() > 8 {
        return Err(RlpError::new(
            field,
            format!("integer of {} bytes does not fit u64", p.len()),
        ));
    }
    check_canonical_int(p, field)?;
    Ok(p.iter().fold(0u64, |acc, b| (acc << 8) | *b as u64))
}

/// Reads a string item that must be a canonical unsigned integer of at most 32 bytes.
pub fn as_u256(item: &Item<'_>, field: &str) -> Result<U256, RlpError> {
    let p = string_payload(item, field)?;
    if p.len() > 32 {
        return Err(RlpError::new(
            field,
            format!("integer of {} bytes does not fit u256", p.len()),
        ));
    }
    check_canonical_int(p, field)?;
    Ok(U256::from_be_slice(p))
}

/// Reads a string item of exactly `N` bytes.
pub fn as_fixed<'a, const N: usize>(item: &Item<'a>, field: &str) -> Result<&'a [u8; N], RlpError> {
    let p = string_payload(item, field)?;
    p.try_into()
        .map_err(|_| RlpError::new(field, format!("expected {N} bytes, found {}", p.len())))
}

/// The payload of a string item; a list is an error.
pub fn string_payload<'a>(item: &Item<'a>, field: &str) -> Result<&'a [u8], RlpError> {
    if item.is_list {
        return Err(RlpError::new(field, "expected a string, found a list"));
    }
    Ok(item.payload)
}

fn check_canonical_int(p: &[u8], field: &str) -> Result<(), RlpError> {
    if p.first() == Some(&0) {
        return Err(RlpError::new(
            field,
            "integer has a leading zero byte (non-canonical)",
        ));
    }
    Ok(())
}

/// The canonical ([EIP-2718](https://eips.ethereum.org/EIPS/eip-2718)) encoding of a list element that is either a
/// legacy RLP list or a typed envelope wrapped in an RLP string (`type || rlp(fields)`), as in block bodies and receipt
/// lists.
pub fn envelope_canonical<'a>(item: &Item<'a>) -> &'a [u8] {
    if item.is_list {
        item.raw
    } else {
        item.payload
    }
}
