//! Reading one transaction's RLP fields in place: items, strings, lists, integers and fixed-width values,
//! each error naming its field; validating the lists a [`super::TxView`] iterates later without re-checking.

use super::{Authorization, Result, TxError};
use alloy_rlp::Header;

/// One RLP item: whether it is a list, its payload and its full encoding (header included).
#[derive(Clone, Copy)]
pub(super) struct Item<'a> {
    list: bool,
    payload: &'a [u8],
}

/// Reads the next RLP item of `buf`, advancing it.
#[inline]
pub(super) fn next_item<'a>(buf: &mut &'a [u8], field: &'static str) -> Result<Item<'a>> {
    let h = Header::decode(buf).map_err(|source| TxError::Rlp { field, source })?;
    // Header::decode checked `payload_length <= buf.len()`; `get` keeps this panic-free regardless.
    let payload = buf.get(..h.payload_length).ok_or(TxError::Rlp {
        field,
        source: alloy_rlp::Error::InputTooShort,
    })?;
    *buf = &buf[h.payload_length..];
    Ok(Item {
        list: h.list,
        payload,
    })
}

#[inline]
pub(super) fn expect_string<'a>(buf: &mut &'a [u8], field: &'static str) -> Result<&'a [u8]> {
    let it = next_item(buf, field)?;
    if it.list {
        return Err(TxError::WrongRlpKind {
            field,
            expected: "string",
            found: "list",
        });
    }
    Ok(it.payload)
}

#[inline]
pub(super) fn expect_list<'a>(buf: &mut &'a [u8], field: &'static str) -> Result<&'a [u8]> {
    let it = next_item(buf, field)?;
    if !it.list {
        return Err(TxError::WrongRlpKind {
            field,
            expected: "list",
            found: "string",
        });
    }
    Ok(it.payload)
}

/// A big-endian unsigned integer of at most `max` bytes, canonical (no leading zero).
#[inline]
pub(super) fn uint_bytes<'a>(
    buf: &mut &'a [u8],
    field: &'static str,
    max: usize,
) -> Result<&'a [u8]> {
    let p = expect_string(buf, field)?;
    if p.len() > max {
        return Err(TxError::IntegerTooLarge {
            field,
            max,
            found: p.len(),
        });
    }
    if p.first() == Some(&0) {
        return Err(TxError::NonCanonicalInteger { field });
    }
    Ok(p)
}

#[inline]
pub(super) fn be_u64(p: &[u8]) -> u64 {
    p.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
}

#[inline]
pub(super) fn uint_u64(buf: &mut &[u8], field: &'static str) -> Result<u64> {
    uint_bytes(buf, field, 8).map(be_u64)
}

#[inline]
pub(super) fn fixed<'a, const N: usize>(
    buf: &mut &'a [u8],
    field: &'static str,
) -> Result<&'a [u8; N]> {
    let p = expect_string(buf, field)?;
    p.try_into().map_err(|_| TxError::BadLength {
        field,
        expected: N,
        found: p.len(),
    })
}

/// `to`: 20 bytes, or empty for a contract creation when `allow_create`
/// ([EIP-4844](https://eips.ethereum.org/EIPS/eip-4844) and [EIP-7702](https://eips.ethereum.org/EIPS/eip-7702) forbid
/// it).
#[inline]
pub(super) fn to_field<'a>(buf: &mut &'a [u8], allow_create: bool) -> Result<Option<&'a [u8; 20]>> {
    let p = expect_string(buf, "to")?;
    if p.is_empty() && allow_create {
        return Ok(None);
    }
    p.try_into().map(Some).map_err(|_| TxError::BadLength {
        field: "to",
        expected: 20,
        found: p.len(),
    })
}

pub(super) fn count_items(mut buf: &[u8], field: &'static str) -> Result<usize> {
    let mut n = 0;
    while !buf.is_empty() {
        next_item(&mut buf, field)?;
        n += 1;
    }
    Ok(n)
}

/// Validates an [EIP-2930](https://eips.ethereum.org/EIPS/eip-2930) access list payload:
/// `[[address(20), [key(32)...]]...]`.
pub(super) fn validate_access_list(mut buf: &[u8]) -> Result<()> {
    while !buf.is_empty() {
        let mut entry = expect_list(&mut buf, "access_list entry")?;
        fixed::<20>(&mut entry, "access_list address")?;
        let mut keys = expect_list(&mut entry, "access_list storage_keys")?;
        if !entry.is_empty() {
            return Err(TxError::TrailingBytes {
                what: "access_list entry",
                count: entry.len(),
            });
        }
        while !keys.is_empty() {
            fixed::<32>(&mut keys, "access_list storage_key")?;
        }
    }
    Ok(())
}

/// Validates [EIP-4844](https://eips.ethereum.org/EIPS/eip-4844) `blob_versioned_hashes`: a list of 32-byte strings.
pub(super) fn validate_blob_hashes(mut buf: &[u8]) -> Result<()> {
    while !buf.is_empty() {
        fixed::<32>(&mut buf, "blob_versioned_hash")?;
    }
    Ok(())
}

/// Reads one [EIP-7702](https://eips.ethereum.org/EIPS/eip-7702) authorization tuple
/// `[chain_id, address, nonce, y_parity, r, s]`. EIP-7702 makes the whole transaction invalid when a tuple field is out
/// of its bounds (chain_id, r, s < 2^256, nonce < 2^64, 20-byte address, y_parity < 2^8), so those are decode errors; a
/// bad signature inside the bounds only invalidates that authorization, and is reported per authority at recovery.
pub(super) fn read_authorization<'a>(buf: &mut &'a [u8]) -> Result<Authorization<'a>> {
    let mut t = expect_list(buf, "authorization")?;
    let fields = t;
    let chain_id = uint_bytes(&mut t, "authorization chain_id", 32)?;
    let address = fixed::<20>(&mut t, "authorization address")?;
    let nonce = uint_u64(&mut t, "authorization nonce")?;
    let unsigned_len = fields.len() - t.len();
    // EIP-7702: y_parity is a uint8; r and s are uint256.
    let y_parity = uint_bytes(&mut t, "authorization y_parity", 1)?
        .first()
        .copied()
        .unwrap_or(0);
    let r = uint_bytes(&mut t, "authorization r", 32)?;
    let s = uint_bytes(&mut t, "authorization s", 32)?;
    if !t.is_empty() {
        return Err(TxError::FieldCount {
            kind: "authorization",
            expected: 6,
            found: 6 + count_items(t, "authorization")?,
        });
    }
    Ok(Authorization {
        chain_id,
        address,
        nonce,
        y_parity,
        r,
        s,
        unsigned_fields: &fields[..unsigned_len],
    })
}

pub(super) fn validate_authorizations(mut buf: &[u8]) -> Result<()> {
    while !buf.is_empty() {
        read_authorization(&mut buf)?;
    }
    Ok(())
}
