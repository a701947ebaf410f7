//! Owned transaction requests, signed and encoded with real signatures for the synthetic archive generator.
//!
//! This is the one place eraflow *builds* transactions. It is not on any decode or recovery hot path (those use
//! the zero-copy [`TxView`](super::transaction::TxView)); it exists so `eraflow synth` can write archives
//! whose signatures recover, deterministically ([RFC 6979](https://www.rfc-editor.org/rfc/rfc6979)) from a seed.

use alloy_primitives::{Keccak256, B256, U256};
use alloy_rlp::{Encodable, Header};

use crate::crypto::signer::{self, SecretKeyBytes, SignatureAlgorithm, SignerError};

/// One [EIP-2930](https://eips.ethereum.org/EIPS/eip-2930) access list entry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AccessListEntry {
    /// Address to pre-warm.
    pub address: [u8; 20],
    /// Storage keys of that address to pre-warm.
    pub storage_keys: Vec<[u8; 32]>,
}

/// One signed [EIP-7702](https://eips.ethereum.org/EIPS/eip-7702) authorization tuple
/// `[chain_id, address, nonce, y_parity, r, s]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SignedAuthorization {
    /// Chain id (uint256; 0 = valid on any chain).
    pub chain_id: U256,
    /// Delegation target.
    pub address: [u8; 20],
    /// Authority nonce.
    pub nonce: u64,
    /// y parity of the signature.
    pub y_parity: u8,
    /// Signature r.
    pub r: U256,
    /// Signature s (low-s, as [EIP-7702](https://eips.ethereum.org/EIPS/eip-7702) requires).
    pub s: U256,
}

impl SignedAuthorization {
    /// Signs `keccak(0x05 || rlp([chain_id, address, nonce]))` ([EIP-7702](https://eips.ethereum.org/EIPS/eip-7702))
    /// with `key`.
    pub fn sign(
        chain_id: U256,
        address: [u8; 20],
        nonce: u64,
        key: &SecretKeyBytes,
        algorithm: SignatureAlgorithm,
    ) -> Result<Self, SignerError> {
        let mut payload = Vec::with_capacity(64);
        put_u256(&mut payload, chain_id);
        address.as_slice().encode(&mut payload);
        nonce.encode(&mut payload);
        let mut h = Keccak256::new();
        h.update([0x05]);
        h.update(list_header_bytes(payload.len()));
        h.update(&payload);
        let sig = signer::sign_prehash(key, algorithm, &h.finalize().0)?;
        Ok(SignedAuthorization {
            chain_id,
            address,
            nonce,
            y_parity: u8::from(sig.y_odd),
            r: U256::from_be_bytes(sig.r),
            s: U256::from_be_bytes(sig.s),
        })
    }

    fn encode(&self, out: &mut Vec<u8>) {
        let mut payload = Vec::with_capacity(120);
        put_u256(&mut payload, self.chain_id);
        self.address.as_slice().encode(&mut payload);
        self.nonce.encode(&mut payload);
        self.y_parity.encode(&mut payload);
        put_u256(&mut payload, self.r);
        put_u256(&mut payload, self.s);
        put_list(out, &payload);
    }
}

/// Everything needed to build a transaction of any type eraflow decodes (0-4). Fields a type does not have are
/// ignored (e.g. `gas_price` for type 2, `max_fee_per_blob_gas` below type 3).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TxRequest {
    /// [EIP-2718] type: 0 legacy, 1 [EIP-2930], 2 [EIP-1559], 3 [EIP-4844], 4 [EIP-7702].
    ///
    /// [EIP-2718]: https://eips.ethereum.org/EIPS/eip-2718
    /// [EIP-2930]: https://eips.ethereum.org/EIPS/eip-2930
    /// [EIP-1559]: https://eips.ethereum.org/EIPS/eip-1559
    /// [EIP-4844]: https://eips.ethereum.org/EIPS/eip-4844
    /// [EIP-7702]: https://eips.ethereum.org/EIPS/eip-7702
    pub tx_type: u8,
    /// For type 0: sign without [EIP-155](https://eips.ethereum.org/EIPS/eip-155) replay protection (v = 27/28).
    pub legacy_pre155: bool,
    /// Chain id ([EIP-155](https://eips.ethereum.org/EIPS/eip-155) for legacy, explicit field for typed).
    pub chain_id: u64,
    /// Sender nonce.
    pub nonce: u64,
    /// Types 0 and 1.
    pub gas_price: U256,
    /// Types 2-4 ([EIP-1559](https://eips.ethereum.org/EIPS/eip-1559)).
    pub max_priority_fee_per_gas: U256,
    /// Types 2-4 ([EIP-1559](https://eips.ethereum.org/EIPS/eip-1559)).
    pub max_fee_per_gas: U256,
    /// Gas limit.
    pub gas_limit: u64,
    /// Recipient; `None` creates a contract (not allowed for types 3 and 4).
    pub to: Option<[u8; 20]>,
    /// Value in wei.
    pub value: U256,
    /// Call data / init code.
    pub input: Vec<u8>,
    /// Types 1-4 ([EIP-2930](https://eips.ethereum.org/EIPS/eip-2930)).
    pub access_list: Vec<AccessListEntry>,
    /// Type 3 ([EIP-4844](https://eips.ethereum.org/EIPS/eip-4844)).
    pub max_fee_per_blob_gas: U256,
    /// Type 3 ([EIP-4844](https://eips.ethereum.org/EIPS/eip-4844)).
    pub blob_versioned_hashes: Vec<[u8; 32]>,
    /// Type 4 ([EIP-7702](https://eips.ethereum.org/EIPS/eip-7702)).
    pub authorization_list: Vec<SignedAuthorization>,
}

impl TxRequest {
    /// The unsigned field list payload (no list header), in the EIP's field order.
    fn unsigned_fields(&self) -> Result<Vec<u8>, SignerError> {
        let mut f = Vec::with_capacity(128 + self.input.len());
        let typed = self.tx_type != 0;
        if self.tx_type > 4 {
            return Err(SignerError::BadRequest("tx_type must be 0..=4"));
        }
        if matches!(self.tx_type, 3 | 4) && self.to.is_none() {
            return Err(SignerError::BadRequest(
                "EIP-4844 and EIP-7702 transactions cannot create contracts",
            ));
        }
        if typed {
            self.chain_id.encode(&mut f);
        }
        self.nonce.encode(&mut f);
        match self.tx_type {
            0 | 1 => put_u256(&mut f, self.gas_price),
            _ => {
                put_u256(&mut f, self.max_priority_fee_per_gas);
                put_u256(&mut f, self.max_fee_per_gas);
            }
        }
        self.gas_limit.encode(&mut f);
        match &self.to {
            Some(a) => a.as_slice().encode(&mut f),
            None => f.push(0x80),
        }
        put_u256(&mut f, self.value);
        self.input.as_slice().encode(&mut f);
        if typed {
            let mut al = Vec::new();
            for e in &self.access_list {
                let mut entry = Vec::with_capacity(24 + 33 * e.storage_keys.len());
                e.address.as_slice().encode(&mut entry);
                let mut keys = Vec::with_capacity(33 * e.storage_keys.len());
                for k in &e.storage_keys {
                    k.as_slice().encode(&mut keys);
                }
                put_list(&mut entry, &keys);
                put_list(&mut al, &entry);
            }
            put_list(&mut f, &al);
        }
        if self.tx_type == 3 {
            put_u256(&mut f, self.max_fee_per_blob_gas);
            let mut hs = Vec::with_capacity(33 * self.blob_versioned_hashes.len());
            for h in &self.blob_versioned_hashes {
                h.as_slice().encode(&mut hs);
            }
            put_list(&mut f, &hs);
        }
        if self.tx_type == 4 {
            let mut auths = Vec::new();
            for a in &self.authorization_list {
                a.encode(&mut auths);
            }
            put_list(&mut f, &auths);
        }
        Ok(f)
    }

    /// The hash to sign, by the same rules [`TxView::signing_hash`](super::transaction::TxView::signing_hash)
    /// applies when reading ([EIP-155](https://eips.ethereum.org/EIPS/eip-155) appends `chain_id, 0, 0` for protected
    /// legacy transactions; typed ones hash `type || rlp(unsigned fields)`).
    pub fn signing_hash(&self) -> Result<B256, SignerError> {
        let f = self.unsigned_fields()?;
        let mut h = Keccak256::new();
        if self.tx_type == 0 && !self.legacy_pre155 {
            let mut tail = Vec::with_capacity(11);
            self.chain_id.encode(&mut tail);
            tail.extend_from_slice(&[0x80, 0x80]);
            h.update(list_header_bytes(f.len() + tail.len()));
            h.update(&f);
            h.update(&tail);
        } else {
            if self.tx_type != 0 {
                h.update([self.tx_type]);
            }
            h.update(list_header_bytes(f.len()));
            h.update(&f);
        }
        Ok(h.finalize())
    }

    /// Canonical encoding with the given signature values, not checked: `v_or_parity` is the legacy `v` or
    /// the typed `y_parity`. Tests use it to craft invalid signatures; the generator uses
    /// [`sign_and_encode`](Self::sign_and_encode).
    pub fn encode_with_signature(
        &self,
        v_or_parity: u64,
        r: U256,
        s: U256,
    ) -> Result<Vec<u8>, SignerError> {
        let mut f = self.unsigned_fields()?;
        v_or_parity.encode(&mut f);
        put_u256(&mut f, r);
        put_u256(&mut f, s);
        let mut out = Vec::with_capacity(f.len() + 10);
        if self.tx_type != 0 {
            out.push(self.tx_type);
        }
        put_list(&mut out, &f);
        Ok(out)
    }

    /// Signs with `key` on `algorithm` (RFC 6979, low s) and returns the canonical encoding: the legacy RLP
    /// list, or `type || rlp(fields)` ([EIP-2718](https://eips.ethereum.org/EIPS/eip-2718)). Legacy `v` is 27/28 when
    /// `legacy_pre155`, else `35 + 2 * chain_id + parity` ([EIP-155](https://eips.ethereum.org/EIPS/eip-155)).
    pub fn sign_and_encode(
        &self,
        key: &SecretKeyBytes,
        algorithm: SignatureAlgorithm,
    ) -> Result<Vec<u8>, SignerError> {
        let hash = self.signing_hash()?;
        let sig = signer::sign_prehash(key, algorithm, &hash.0)?;
        let parity = u64::from(sig.y_odd);
        let v = match (self.tx_type, self.legacy_pre155) {
            (0, true) => 27 + parity,
            (0, false) => self
                .chain_id
                .checked_mul(2)
                .and_then(|c| c.checked_add(35 + parity))
                .ok_or(SignerError::BadRequest(
                    "chain_id too large for an EIP-155 v",
                ))?,
            _ => parity,
        };
        self.encode_with_signature(v, U256::from_be_bytes(sig.r), U256::from_be_bytes(sig.s))
    }

    /// How a canonical transaction appears inside a block body's transaction list: legacy as is, typed
    /// wrapped as an RLP byte string ([EIP-2718](https://eips.ethereum.org/EIPS/eip-2718)).
    pub fn body_item(canonical: &[u8]) -> Vec<u8> {
        match canonical.first() {
            Some(&b) if b >= 0xc0 => canonical.to_vec(),
            _ => {
                let mut out = Vec::with_capacity(canonical.len() + 9);
                canonical.encode(&mut out);
                out
            }
        }
    }
}

/// rlp(uint256): minimal big-endian bytes as an RLP string.
fn put_u256(out: &mut Vec<u8>, v: U256) {
    let be = v.to_be_bytes::<32>();
    let skip = be.iter().take_while(|&&b| b == 0).count();
    be[skip..].encode(out);
}

fn list_header_bytes(len: usize) -> Vec<u8> {
    let mut h = Vec::with_capacity(9);
    Header {
        list: true,
        payload_length: len,
    }
    .encode(&mut h);
    h
}

fn put_list(out: &mut Vec<u8>, payload: &[u8]) {
    Header {
        list: true,
        payload_length: payload.len(),
    }
    .encode(out);
    out.extend_from_slice(payload);
}
