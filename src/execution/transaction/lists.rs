//! Iterators over a decoded transaction's validated lists: access-list entries, fixed-width items (blob
//! versioned hashes) and EIP-7702 authorizations.

use super::fields::{expect_list, fixed, read_authorization};
use super::{list_header, TxError};
use alloy_primitives::{Keccak256, B256};

/// Iterator over [EIP-2930](https://eips.ethereum.org/EIPS/eip-2930) access list entries: `(address, storage keys)`.
/// The list was validated when the transaction was decoded, so iteration cannot fail.
#[derive(Clone, Debug)]
pub struct AccessListIter<'a> {
    pub(super) buf: &'a [u8],
}

impl<'a> Iterator for AccessListIter<'a> {
    type Item = (&'a [u8; 20], FixedIter<'a, 32>);

    fn next(&mut self) -> Option<Self::Item> {
        if self.buf.is_empty() {
            return None;
        }
        let parsed = (|| {
            let mut entry = expect_list(&mut self.buf, "access_list entry")?;
            let addr = fixed::<20>(&mut entry, "access_list address")?;
            let keys = expect_list(&mut entry, "access_list storage_keys")?;
            Ok::<_, TxError>((addr, FixedIter { buf: keys }))
        })();
        match parsed {
            Ok(e) => Some(e),
            Err(_) => {
                // Unreachable after validation; stop rather than panic.
                self.buf = &[];
                None
            }
        }
    }
}

/// Iterator over a validated RLP list of fixed-width byte strings (storage keys, blob versioned hashes).
#[derive(Clone, Debug)]
pub struct FixedIter<'a, const N: usize> {
    pub(super) buf: &'a [u8],
}

impl<'a, const N: usize> Iterator for FixedIter<'a, N> {
    type Item = &'a [u8; N];

    fn next(&mut self) -> Option<Self::Item> {
        if self.buf.is_empty() {
            return None;
        }
        match fixed::<N>(&mut self.buf, "fixed item") {
            Ok(x) => Some(x),
            Err(_) => {
                self.buf = &[];
                None
            }
        }
    }
}

/// One [EIP-7702](https://eips.ethereum.org/EIPS/eip-7702) authorization tuple
/// `[chain_id, address, nonce, y_parity, r, s]`, borrowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Authorization<'a> {
    /// Chain id as minimal big-endian bytes (uint256; 0 means any chain,
    /// [EIP-7702](https://eips.ethereum.org/EIPS/eip-7702)).
    pub chain_id: &'a [u8],
    /// The address whose code the authority delegates to.
    pub address: &'a [u8; 20],
    /// The authority's nonce.
    pub nonce: u64,
    /// Signature y parity as found (valid values 0 and 1).
    pub y_parity: u8,
    /// Signature `r`, minimal big-endian.
    pub r: &'a [u8],
    /// Signature `s`, minimal big-endian.
    pub s: &'a [u8],
    /// The RLP of `chain_id, address, nonce` (list payload) as found, for the signing hash.
    pub(super) unsigned_fields: &'a [u8],
}

impl Authorization<'_> {
    /// [EIP-7702](https://eips.ethereum.org/EIPS/eip-7702) authorization signing hash:
    /// `keccak(MAGIC || rlp([chain_id, address, nonce]))` with `MAGIC = 0x05`, from the original field bytes.
    pub fn signing_hash(&self) -> B256 {
        let mut head = [0u8; 10];
        head[0] = 0x05;
        let n = 1 + list_header(self.unsigned_fields.len(), &mut head[1..]);
        let mut h = Keccak256::new();
        h.update(&head[..n]);
        h.update(self.unsigned_fields);
        h.finalize()
    }
}

/// Iterator over a validated [EIP-7702](https://eips.ethereum.org/EIPS/eip-7702) authorization list.
#[derive(Clone, Debug)]
pub struct AuthorizationIter<'a> {
    pub(super) buf: &'a [u8],
}

impl<'a> Iterator for AuthorizationIter<'a> {
    type Item = Authorization<'a>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.buf.is_empty() {
            return None;
        }
        match read_authorization(&mut self.buf) {
            Ok(a) => Some(a),
            Err(_) => {
                self.buf = &[];
                None
            }
        }
    }
}
