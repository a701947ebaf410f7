//! Zero-copy views over execution-layer transactions, and their hashes.
//!
//! A [`TxView`] borrows the bytes it was decoded from (an mmap'd, decompressed block body) and keeps only
//! slices and small integers, so decoding a block allocates nothing per transaction. The transaction hash and
//! the signing hash are computed from the ORIGINAL field bytes: nothing is re-encoded through an owned struct,
//! which is both faster and the only way to be sure the hash is of what the chain actually committed to.
//!
//! Encodings ([EIP-2718] envelopes):
//! - legacy: `rlp([nonce, gas_price, gas, to, value, data, v, r, s])`, pre-EIP-155 (`v` in {27, 28}) or
//!   [EIP-155] (`v = 35 + 2 * chain_id + y_parity`);
//! - typed: `type || rlp(fields)` with type 1 ([EIP-2930]), 2 ([EIP-1559]), 3 ([EIP-4844]), 4 ([EIP-7702]).
//!
//! Inside a block body a typed transaction appears as an RLP *byte string* whose payload is the canonical
//! `type || rlp(fields)` (EIP-2718, "transactions in blocks"); a legacy one appears as the RLP list itself.
//!
//! [EIP-2718]: https://eips.ethereum.org/EIPS/eip-2718
//! [EIP-155]: https://eips.ethereum.org/EIPS/eip-155
//! [EIP-2930]: https://eips.ethereum.org/EIPS/eip-2930
//! [EIP-1559]: https://eips.ethereum.org/EIPS/eip-1559
//! [EIP-4844]: https://eips.ethereum.org/EIPS/eip-4844
//! [EIP-7702]: https://eips.ethereum.org/EIPS/eip-7702//!
//! By concept: the envelope, [`TxView`] and its hashes here; reading and validating RLP fields in `fields`; the
//! iterators over access lists, blob hashes and authorizations in `lists`.

mod fields;
mod lists;
#[cfg(test)]
mod tests;

pub use lists::{AccessListIter, Authorization, AuthorizationIter, FixedIter};

use fields::{
    count_items, expect_list, expect_string, next_item, to_field, uint_bytes, uint_u64,
    validate_access_list, validate_authorizations, validate_blob_hashes,
};

use alloy_primitives::{Keccak256, B256, U256};

use crate::crypto::keccak::keccak256;

/// Which transaction format a [`TxView`] holds: decides the field layout and the signing-hash rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TxKind {
    /// Legacy without replay protection: signing hash over the six unsigned fields (`v` should be 27/28;
    /// any other `v` below 35 is kept here and reported as a bad `v` at recovery).
    LegacyPre155,
    /// Legacy with [EIP-155](https://eips.ethereum.org/EIPS/eip-155) replay protection:
    /// `v = 35 + 2 * chain_id + y_parity`.
    Legacy155,
    /// [EIP-2930](https://eips.ethereum.org/EIPS/eip-2930) (type 1): access lists.
    Eip2930,
    /// [EIP-1559](https://eips.ethereum.org/EIPS/eip-1559) (type 2): base fee and priority fee.
    Eip1559,
    /// [EIP-4844](https://eips.ethereum.org/EIPS/eip-4844) (type 3): blob-carrying transactions (block form, without
    /// the network sidecar).
    Eip4844,
    /// [EIP-7702](https://eips.ethereum.org/EIPS/eip-7702) (type 4): set-code transactions with an authorization list.
    Eip7702,
}

impl TxKind {
    /// A short stable name, used for reports and the `kind` column.
    pub fn name(self) -> &'static str {
        match self {
            TxKind::LegacyPre155 => "legacy-pre155",
            TxKind::Legacy155 => "legacy-155",
            TxKind::Eip2930 => "eip2930",
            TxKind::Eip1559 => "eip1559",
            TxKind::Eip4844 => "eip4844",
            TxKind::Eip7702 => "eip7702",
        }
    }

    /// The [EIP-2718](https://eips.ethereum.org/EIPS/eip-2718) type byte (0 for both legacy kinds).
    pub fn tx_type(self) -> u8 {
        match self {
            TxKind::LegacyPre155 | TxKind::Legacy155 => 0,
            TxKind::Eip2930 => 1,
            TxKind::Eip1559 => 2,
            TxKind::Eip4844 => 3,
            TxKind::Eip7702 => 4,
        }
    }

    fn field_count(self) -> usize {
        match self {
            TxKind::LegacyPre155 | TxKind::Legacy155 => 9,
            TxKind::Eip2930 => 11,
            TxKind::Eip1559 => 12,
            TxKind::Eip4844 => 14,
            TxKind::Eip7702 => 13,
        }
    }
}

/// Why a transaction's bytes could not be decoded. Every variant names what was expected and what was found,
/// so a report on a corrupted archive points at the exact field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TxError {
    /// No bytes at all where a transaction was expected.
    #[error("empty transaction: expected an RLP list or a typed envelope, found 0 bytes")]
    Empty,
    /// The RLP itself is malformed (truncated, non-canonical length, ...).
    #[error("malformed RLP in {field}: {source}")]
    Rlp {
        /// Which field (or envelope) was being read.
        field: &'static str,
        /// What alloy-rlp reported.
        source: alloy_rlp::Error,
    },
    /// A list was found where a byte string was expected, or the reverse.
    #[error("{field}: expected an RLP {expected}, found an RLP {found}")]
    WrongRlpKind {
        /// Which field.
        field: &'static str,
        /// "list" or "string".
        expected: &'static str,
        /// "list" or "string".
        found: &'static str,
    },
    /// [EIP-2718](https://eips.ethereum.org/EIPS/eip-2718) type byte not known to eraflow.
    #[error("unknown transaction type 0x{0:02x}: expected 0x01..=0x04 (EIP-2930, 1559, 4844, 7702) or a legacy RLP list")]
    UnknownType(u8),
    /// Field list of the wrong length for the type.
    #[error("{kind} transaction: expected {expected} fields, found {found}")]
    FieldCount {
        /// Kind name.
        kind: &'static str,
        /// Fields the EIP defines.
        expected: usize,
        /// Fields present.
        found: usize,
    },
    /// Bytes left after the item that should have ended the input.
    #[error("{what}: {count} trailing byte(s) after the end of the RLP item")]
    TrailingBytes {
        /// Where.
        what: &'static str,
        /// How many.
        count: usize,
    },
    /// RLP integers must have no leading zero bytes (the yellow paper's canonical scalar encoding).
    #[error("{field}: non-canonical integer (leading zero byte)")]
    NonCanonicalInteger {
        /// Which field.
        field: &'static str,
    },
    /// An integer wider than its field allows.
    #[error("{field}: integer of {found} bytes, expected at most {max}")]
    IntegerTooLarge {
        /// Which field.
        field: &'static str,
        /// Maximum width in bytes.
        max: usize,
        /// Width found.
        found: usize,
    },
    /// A fixed-width byte string (address, hash) of the wrong length.
    #[error("{field}: expected {expected} bytes, found {found}")]
    BadLength {
        /// Which field.
        field: &'static str,
        /// Expected width (for `to`: 20, or 0 for a contract creation where allowed).
        expected: usize,
        /// Width found.
        found: usize,
    },
}

type Result<T> = std::result::Result<T, TxError>;

/// `found` fields against what `kind` defines; a legacy list is named "legacy" whether or not `v` says EIP-155,
/// because that is only known once the fields are read.
fn check_field_count(kind: TxKind, found: usize) -> Result<()> {
    if found == kind.field_count() {
        return Ok(());
    }
    Err(TxError::FieldCount {
        kind: if kind == TxKind::LegacyPre155 {
            "legacy"
        } else {
            kind.name()
        },
        expected: kind.field_count(),
        found,
    })
}

/// Splits a canonical transaction into its kind by envelope (legacy is refined from `v` later) and its field
/// list's payload, refusing unknown types and trailing bytes.
fn kind_and_fields(canonical: &[u8]) -> Result<(TxKind, &[u8])> {
    let first = *canonical.first().ok_or(TxError::Empty)?;
    let (kind, mut rest) = match first {
        0xc0..=0xff => (TxKind::LegacyPre155, canonical),
        1 => (TxKind::Eip2930, &canonical[1..]),
        2 => (TxKind::Eip1559, &canonical[1..]),
        3 => (TxKind::Eip4844, &canonical[1..]),
        4 => (TxKind::Eip7702, &canonical[1..]),
        t => return Err(TxError::UnknownType(t)),
    };
    let fields = expect_list(&mut rest, "transaction fields")?;
    if !rest.is_empty() {
        return Err(TxError::TrailingBytes {
            what: "transaction",
            count: rest.len(),
        });
    }
    Ok((kind, fields))
}

/// The canonical encoding of one element of a block body's transaction list: a legacy transaction is the RLP
/// list itself; a typed one is unwrapped from its RLP byte string ([EIP-2718](https://eips.ethereum.org/EIPS/eip-2718)).
fn canonical_of_item(item: &[u8]) -> Result<&[u8]> {
    let first = *item.first().ok_or(TxError::Empty)?;
    if first >= 0xc0 {
        return Ok(item);
    }
    let mut buf = item;
    let payload = expect_string(&mut buf, "typed transaction envelope")?;
    if !buf.is_empty() {
        return Err(TxError::TrailingBytes {
            what: "body transaction item",
            count: buf.len(),
        });
    }
    match payload.first() {
        // A legacy list wrapped in a string is not a valid EIP-2718 envelope.
        Some(&t) if t >= 0xc0 => Err(TxError::UnknownType(t)),
        Some(_) => Ok(payload),
        None => Err(TxError::Empty),
    }
}

/// The canonical encoding (the transactions-trie value and the pre-image of the hash) and the kind of one
/// element of a block body's transaction list, from its shape only: the envelope, the type byte, the number
/// of fields and, for legacy transactions, `v`. No other field is decoded or validated.
///
/// For paths that need only each transaction's hash and the transactions root (prune manifests): the root
/// check already ties every byte to the header, and [`TxView::decode`] costs as much again as hashing. The
/// kind is the one [`TxView::decode`] gives for the same bytes.
pub fn canonical_and_kind(item: &[u8]) -> Result<(&[u8], TxKind)> {
    let canonical = canonical_of_item(item)?;
    let (kind, fields) = kind_and_fields(canonical)?;
    let mut f = fields;
    let mut found = 0usize;
    let mut v = 0u64;
    while !f.is_empty() {
        if kind == TxKind::LegacyPre155 && found == 6 {
            v = uint_u64(&mut f, "v")?;
        } else {
            next_item(&mut f, "transaction fields")?;
        }
        found += 1;
    }
    check_field_count(kind, found)?;
    if kind == TxKind::LegacyPre155 && v >= 35 {
        return Ok((canonical, TxKind::Legacy155));
    }
    Ok((canonical, kind))
}

/// A decoded transaction borrowing its bytes. Cheap to copy (slices and small integers, no heap).
#[derive(Clone, Copy, Debug)]
pub struct TxView<'a> {
    kind: TxKind,
    /// The canonical encoding: the legacy RLP list, or `type || rlp(fields)`.
    canonical: &'a [u8],
    /// Payload of the field list (no list header).
    fields: &'a [u8],
    /// Length of the prefix of `fields` that is signed (everything before the signature fields).
    unsigned_len: usize,
    chain_id: Option<u64>,
    nonce: u64,
    /// Legacy / [EIP-2930](https://eips.ethereum.org/EIPS/eip-2930) gas price;
    /// [EIP-1559](https://eips.ethereum.org/EIPS/eip-1559)+ max fee per gas.
    gas_price_or_max_fee: &'a [u8],
    /// [EIP-1559](https://eips.ethereum.org/EIPS/eip-1559)+ only.
    max_priority_fee: &'a [u8],
    gas_limit: u64,
    to: Option<&'a [u8; 20]>,
    value: &'a [u8],
    input: &'a [u8],
    access_list: &'a [u8],
    max_fee_per_blob_gas: &'a [u8],
    blob_hashes: &'a [u8],
    authorizations: &'a [u8],
    /// Legacy `v`, or the typed `y_parity` as found (validated at recovery).
    v: u64,
    r: &'a [u8],
    s: &'a [u8],
}

impl<'a> TxView<'a> {
    /// Decodes one element of a block body's transaction list exactly as it appears there: a legacy
    /// transaction is the RLP list itself; a typed one is an RLP byte string wrapping `type || rlp(fields)`
    /// ([EIP-2718](https://eips.ethereum.org/EIPS/eip-2718)). `item` must hold exactly that one element.
    pub fn decode(item: &'a [u8]) -> Result<Self> {
        Self::decode_canonical(canonical_of_item(item)?)
    }

    /// Decodes the canonical encoding (a legacy RLP list, or `type || rlp(fields)`), the form used in the
    /// transactions trie and in post-merge execution payloads. `bytes` must hold exactly one transaction.
    pub fn decode_canonical(bytes: &'a [u8]) -> Result<Self> {
        let (kind, fields) = kind_and_fields(bytes)?;
        let found = count_items(fields, "transaction fields")?;
        check_field_count(kind, found)?;
        let mut f = fields;
        let mut tx = TxView {
            kind,
            canonical: bytes,
            fields,
            unsigned_len: 0,
            chain_id: None,
            nonce: 0,
            gas_price_or_max_fee: &[],
            max_priority_fee: &[],
            gas_limit: 0,
            to: None,
            value: &[],
            input: &[],
            access_list: &[],
            max_fee_per_blob_gas: &[],
            blob_hashes: &[],
            authorizations: &[],
            v: 0,
            r: &[],
            s: &[],
        };
        if kind == TxKind::LegacyPre155 {
            tx.nonce = uint_u64(&mut f, "nonce")?;
            tx.gas_price_or_max_fee = uint_bytes(&mut f, "gas_price", 32)?;
            tx.gas_limit = uint_u64(&mut f, "gas_limit")?;
            tx.to = to_field(&mut f, true)?;
            tx.value = uint_bytes(&mut f, "value", 32)?;
            tx.input = expect_string(&mut f, "input")?;
        } else {
            // EIP-2930 / 1559 / 4844 / 7702 all start with chain_id, nonce. The EIPs type chain_id as a
            // uint256; every real chain id fits a u64 (EIP-2294 bounds it), so a wider one is a decode error.
            tx.chain_id = Some(uint_u64(&mut f, "chain_id")?);
            tx.nonce = uint_u64(&mut f, "nonce")?;
            if kind == TxKind::Eip2930 {
                tx.gas_price_or_max_fee = uint_bytes(&mut f, "gas_price", 32)?;
            } else {
                // EIP-1559 order: max_priority_fee_per_gas, then max_fee_per_gas.
                tx.max_priority_fee = uint_bytes(&mut f, "max_priority_fee_per_gas", 32)?;
                tx.gas_price_or_max_fee = uint_bytes(&mut f, "max_fee_per_gas", 32)?;
            }
            tx.gas_limit = uint_u64(&mut f, "gas_limit")?;
            // EIP-4844 and EIP-7702 transactions cannot create contracts: `to` is a 20-byte address.
            tx.to = to_field(&mut f, matches!(kind, TxKind::Eip2930 | TxKind::Eip1559))?;
            tx.value = uint_bytes(&mut f, "value", 32)?;
            tx.input = expect_string(&mut f, "input")?;
            tx.access_list = expect_list(&mut f, "access_list")?;
            validate_access_list(tx.access_list)?;
            if kind == TxKind::Eip4844 {
                tx.max_fee_per_blob_gas = uint_bytes(&mut f, "max_fee_per_blob_gas", 32)?;
                tx.blob_hashes = expect_list(&mut f, "blob_versioned_hashes")?;
                validate_blob_hashes(tx.blob_hashes)?;
            }
            if kind == TxKind::Eip7702 {
                tx.authorizations = expect_list(&mut f, "authorization_list")?;
                validate_authorizations(tx.authorizations)?;
            }
        }
        tx.unsigned_len = fields.len() - f.len();
        tx.v = uint_u64(&mut f, if kind.tx_type() == 0 { "v" } else { "y_parity" })?;
        tx.r = uint_bytes(&mut f, "r", 32)?;
        tx.s = uint_bytes(&mut f, "s", 32)?;
        if kind == TxKind::LegacyPre155 && tx.v >= 35 {
            // EIP-155: v = chain_id * 2 + 35 + y_parity.
            tx.kind = TxKind::Legacy155;
            tx.chain_id = Some((tx.v - 35) / 2);
        }
        Ok(tx)
    }

    /// The transaction format.
    pub fn kind(&self) -> TxKind {
        self.kind
    }

    /// [EIP-2718](https://eips.ethereum.org/EIPS/eip-2718) type byte (0 for legacy).
    pub fn tx_type(&self) -> u8 {
        self.kind.tx_type()
    }

    /// Chain id: explicit for typed transactions, derived from `v` for
    /// [EIP-155](https://eips.ethereum.org/EIPS/eip-155), `None` before EIP-155.
    pub fn chain_id(&self) -> Option<u64> {
        self.chain_id
    }

    /// Sender nonce.
    pub fn nonce(&self) -> u64 {
        self.nonce
    }

    /// Legacy and [EIP-2930](https://eips.ethereum.org/EIPS/eip-2930) gas price; `None` for
    /// [EIP-1559](https://eips.ethereum.org/EIPS/eip-1559) and later (which have max fees instead).
    pub fn gas_price(&self) -> Option<U256> {
        matches!(
            self.kind,
            TxKind::LegacyPre155 | TxKind::Legacy155 | TxKind::Eip2930
        )
        .then(|| be_u256(self.gas_price_or_max_fee))
    }

    /// [EIP-1559](https://eips.ethereum.org/EIPS/eip-1559) `max_fee_per_gas` (types 2, 3, 4).
    pub fn max_fee_per_gas(&self) -> Option<U256> {
        self.has_1559_fees()
            .then(|| be_u256(self.gas_price_or_max_fee))
    }

    /// [EIP-1559](https://eips.ethereum.org/EIPS/eip-1559) `max_priority_fee_per_gas` (types 2, 3, 4).
    pub fn max_priority_fee_per_gas(&self) -> Option<U256> {
        self.has_1559_fees().then(|| be_u256(self.max_priority_fee))
    }

    fn has_1559_fees(&self) -> bool {
        matches!(
            self.kind,
            TxKind::Eip1559 | TxKind::Eip4844 | TxKind::Eip7702
        )
    }

    /// Gas limit.
    pub fn gas_limit(&self) -> u64 {
        self.gas_limit
    }

    /// Recipient; `None` is a contract creation.
    pub fn to(&self) -> Option<&'a [u8; 20]> {
        self.to
    }

    /// Value in wei.
    pub fn value(&self) -> U256 {
        be_u256(self.value)
    }

    /// Value as minimal big-endian bytes, as stored (for writers that keep raw bytes).
    pub fn value_be(&self) -> &'a [u8] {
        self.value
    }

    /// Call data / init code.
    pub fn input(&self) -> &'a [u8] {
        self.input
    }

    /// [EIP-2930](https://eips.ethereum.org/EIPS/eip-2930) access list entries (empty for legacy).
    pub fn access_list(&self) -> AccessListIter<'a> {
        AccessListIter {
            buf: self.access_list,
        }
    }

    /// [EIP-4844](https://eips.ethereum.org/EIPS/eip-4844) `max_fee_per_blob_gas` (type 3 only).
    pub fn max_fee_per_blob_gas(&self) -> Option<U256> {
        (self.kind == TxKind::Eip4844).then(|| be_u256(self.max_fee_per_blob_gas))
    }

    /// [EIP-4844](https://eips.ethereum.org/EIPS/eip-4844) blob versioned hashes (empty unless type 3).
    pub fn blob_versioned_hashes(&self) -> FixedIter<'a, 32> {
        FixedIter {
            buf: self.blob_hashes,
        }
    }

    /// [EIP-7702](https://eips.ethereum.org/EIPS/eip-7702) authorization tuples (empty unless type 4).
    pub fn authorizations(&self) -> AuthorizationIter<'a> {
        AuthorizationIter {
            buf: self.authorizations,
        }
    }

    /// Legacy `v` as found (27/28, or [EIP-155](https://eips.ethereum.org/EIPS/eip-155) `35 + 2 * chain_id + parity`);
    /// for typed transactions the `y_parity` field as found.
    pub fn v(&self) -> u64 {
        self.v
    }

    /// The signature's y parity when `v` / `y_parity` is well formed, `None` otherwise (then recovery
    /// reports a bad v / y-parity).
    pub fn y_parity(&self) -> Option<bool> {
        match self.kind {
            TxKind::LegacyPre155 => match self.v {
                27 => Some(false),
                28 => Some(true),
                _ => None,
            },
            TxKind::Legacy155 => Some((self.v - 35) & 1 == 1),
            _ => match self.v {
                0 => Some(false),
                1 => Some(true),
                _ => None,
            },
        }
    }

    /// Signature `r` as minimal big-endian bytes (at most 32).
    pub fn r(&self) -> &'a [u8] {
        self.r
    }

    /// Signature `s` as minimal big-endian bytes (at most 32).
    pub fn s(&self) -> &'a [u8] {
        self.s
    }

    /// The canonical encoding: the value stored in the transactions trie (legacy RLP list or
    /// `type || rlp(fields)`, [EIP-2718](https://eips.ethereum.org/EIPS/eip-2718)).
    pub fn canonical(&self) -> &'a [u8] {
        self.canonical
    }

    /// Transaction hash: keccak256 of the canonical encoding, over the original bytes
    /// ([EIP-2718](https://eips.ethereum.org/EIPS/eip-2718)).
    pub fn hash(&self) -> B256 {
        keccak256(self.canonical)
    }

    /// The hash the sender signed, streamed into keccak from the original field bytes (no buffer, no
    /// re-encoding):
    /// - pre-EIP-155 legacy: `keccak(rlp([nonce, gas_price, gas, to, value, data]))`;
    /// - [EIP-155](https://eips.ethereum.org/EIPS/eip-155):
    ///   `keccak(rlp([nonce, gas_price, gas, to, value, data, chain_id, 0, 0]))`;
    /// - typed ([EIP-2930](https://eips.ethereum.org/EIPS/eip-2930)/1559/4844/7702):
    ///   `keccak(type || rlp(fields without y_parity, r, s))`.
    pub fn signing_hash(&self) -> B256 {
        let unsigned = &self.fields[..self.unsigned_len];
        let mut h = Keccak256::new();
        let mut head = [0u8; 1 + 9 + 9];
        let mut n = 0;
        let ty = self.kind.tx_type();
        if ty != 0 {
            head[0] = ty;
            n = 1;
        }
        match (self.kind, self.chain_id) {
            (TxKind::Legacy155, Some(chain_id)) => {
                let mut cid = [0u8; 9];
                let cid_len = encode_u64(chain_id, &mut cid);
                n += list_header(unsigned.len() + cid_len + 2, &mut head[n..]);
                h.update(&head[..n]);
                h.update(unsigned);
                h.update(&cid[..cid_len]);
                // EIP-155: the two trailing zeros, each rlp(0) = 0x80.
                h.update([0x80, 0x80]);
            }
            _ => {
                n += list_header(unsigned.len(), &mut head[n..]);
                h.update(&head[..n]);
                h.update(unsigned);
            }
        }
        h.finalize()
    }
}

/// Big-endian minimal bytes (at most 32, validated at decode) to U256.
#[inline]
fn be_u256(p: &[u8]) -> U256 {
    U256::try_from_be_slice(p).unwrap_or(U256::MAX)
}

/// Writes an RLP list header for `len` payload bytes; returns its length. `out` must hold 9 bytes.
#[inline]
pub(crate) fn list_header(len: usize, out: &mut [u8]) -> usize {
    if len < 56 {
        out[0] = 0xc0 + len as u8;
        1
    } else {
        let be = (len as u64).to_be_bytes();
        let skip = (len as u64).leading_zeros() as usize / 8;
        let n = 8 - skip;
        out[0] = 0xf7 + n as u8;
        out[1..1 + n].copy_from_slice(&be[skip..]);
        1 + n
    }
}

/// Writes rlp(u64) into `out` (9 bytes); returns its length.
#[inline]
fn encode_u64(v: u64, out: &mut [u8; 9]) -> usize {
    if v == 0 {
        out[0] = 0x80;
        1
    } else if v < 0x80 {
        out[0] = v as u8;
        1
    } else {
        let be = v.to_be_bytes();
        let skip = v.leading_zeros() as usize / 8;
        let n = 8 - skip;
        out[0] = 0x80 + n as u8;
        out[1..1 + n].copy_from_slice(&be[skip..]);
        1 + n
    }
}
