//! Rebuilding an execution block header from a beacon block's execution payload, so the payload's
//! `block_hash` can be recomputed: this proves transaction and withdrawal decoding against the chain itself.
//!
//! Header fields a payload does not carry are constants after the merge ([EIP-3675]): `ommers_hash` =
//! keccak(rlp([])), `difficulty` = 0, `nonce` = 0, and `mix_hash` is the payload's `prev_randao`.
//! `transactions_root` and `withdrawals_root` are ordered tries of the payload's transactions and of
//! `rlp([index, validator_index, address, amount_gwei])`; `parent_beacon_block_root` ([EIP-4788]) is the beacon
//! block's parent root; `requests_hash` ([EIP-7685]) is sha256 over sha256(type || data) of each non-empty request
//! list of the electra `ExecutionRequests`.
//!
//! [EIP-3675]: https://eips.ethereum.org/EIPS/eip-3675
//! [EIP-4788]: https://eips.ethereum.org/EIPS/eip-4788
//! [EIP-7685]: https://eips.ethereum.org/EIPS/eip-7685

use crate::consensus::{BeaconBlock, Fork, SszError};
use crate::crypto::keccak::{keccak256, B256};
use crate::execution::header::HeaderFields;
use crate::execution::trie;
use alloy_primitives::{Address, Bloom, Bytes, B64, U256};

/// keccak256(rlp([])): the ommers hash of every post-merge block.
pub const EMPTY_OMMERS_HASH: B256 =
    alloy_primitives::b256!("1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347");

/// Why a header could not be rebuilt.
#[derive(Debug, thiserror::Error)]
pub enum PayloadError {
    /// The block's fork predates execution payloads; the fork is given.
    #[error("block has no execution payload (fork {0:?} is before bellatrix)")]
    NoPayload(Fork),
    /// A payload or body field did not decode.
    #[error("{0}")]
    Ssz(#[from] SszError),
    /// The electra `ExecutionRequests` bytes are malformed: too short for the three list offsets, or offsets
    /// that do not start at 12 and increase within the bytes.
    #[error("execution_requests: {0}")]
    Requests(String),
}

/// A 32-byte field of the payload (lengths are fixed by the SSZ schema the view validated).
fn b256(s: &[u8]) -> B256 {
    let mut o = [0u8; 32];
    let n = s.len().min(32);
    o[..n].copy_from_slice(&s[..n]);
    B256::from(o)
}

/// The electra `requests_hash` from the serialized `ExecutionRequests` container (three variable lists:
/// deposits, withdrawals, consolidations, request types 0, 1, 2).
pub fn requests_hash(requests: &[u8]) -> Result<B256, PayloadError> {
    let off = |i: usize| -> Result<usize, PayloadError> {
        requests
            .get(4 * i..4 * i + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
            .ok_or_else(|| {
                PayloadError::Requests(format!("{} bytes: no offset {i}", requests.len()))
            })
    };
    let bounds = [off(0)?, off(1)?, off(2)?, requests.len()];
    if bounds[0] != 12 || bounds.windows(2).any(|w| w[0] > w[1]) {
        return Err(PayloadError::Requests(format!("bad offsets {bounds:?}")));
    }
    let mut outer = Vec::with_capacity(96);
    for (ty, w) in bounds.windows(2).enumerate() {
        let data = &requests[w[0]..w[1]];
        if !data.is_empty() {
            let mut pre = Vec::with_capacity(1 + data.len());
            pre.push(ty as u8);
            pre.extend_from_slice(data);
            outer.extend_from_slice(&crate::crypto::sha256::sha256(&pre));
        }
    }
    Ok(B256::from(crate::crypto::sha256::sha256(&outer)))
}

/// The execution header a beacon block's payload commits to.
pub fn header_from_payload(block: &BeaconBlock<'_>) -> Result<HeaderFields, PayloadError> {
    let body = block.body()?;
    let p = body
        .execution_payload()
        .ok_or(PayloadError::NoPayload(block.fork()))??;
    let txs: Vec<&[u8]> = p.transactions()?.collect();
    let fork = block.fork();
    let withdrawals_root = if fork >= Fork::Capella {
        let items: Vec<Vec<u8>> = p.withdrawals()?.iter().map(|w| w.encode()).collect();
        Some(trie::ordered_root(&items))
    } else {
        None
    };
    let cancun = (fork >= Fork::Deneb).then(|| {
        (
            p.blob_gas_used().unwrap_or(0),
            p.excess_blob_gas().unwrap_or(0),
            B256::from(block.parent_root()),
        )
    });
    let requests_hash = match body.execution_requests() {
        Some(r) if fork >= Fork::Electra => Some(requests_hash(r)?),
        _ => None,
    };
    Ok(HeaderFields {
        parent_hash: b256(p.parent_hash()),
        ommers_hash: EMPTY_OMMERS_HASH,
        beneficiary: Address::from_slice(p.fee_recipient()),
        state_root: b256(p.state_root()),
        transactions_root: trie::ordered_root(&txs),
        receipts_root: b256(p.receipts_root()),
        logs_bloom: Bloom::from_slice(p.logs_bloom()),
        difficulty: U256::ZERO,
        number: p.block_number(),
        gas_limit: p.gas_limit(),
        gas_used: p.gas_used(),
        timestamp: p.timestamp(),
        extra_data: Bytes::copy_from_slice(p.extra_data()),
        mix_hash: b256(p.prev_randao()),
        nonce: B64::ZERO,
        aura: None,
        base_fee_per_gas: Some(U256::from_le_slice(p.base_fee_per_gas())),
        withdrawals_root,
        cancun,
        requests_hash,
        amsterdam: None,
    })
}

/// Recomputes the payload's block hash: keccak256 of the rebuilt header's RLP.
pub fn recomputed_block_hash(block: &BeaconBlock<'_>) -> Result<B256, PayloadError> {
    Ok(keccak256(header_from_payload(block)?.encode()))
}

/// `kzg_commitment_to_versioned_hash` ([EIP-4844](https://eips.ethereum.org/EIPS/eip-4844)):
/// `0x01 || sha256(commitment)[1..]`; a deneb block's blob transactions carry exactly these hashes of its body's
/// commitments, in order.
pub fn versioned_hash(commitment: &[u8]) -> [u8; 32] {
    let mut h = crate::crypto::sha256::sha256(commitment);
    h[0] = 0x01;
    h
}
