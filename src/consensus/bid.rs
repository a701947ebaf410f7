//! Gloas ([EIP-7732](https://eips.ethereum.org/EIPS/eip-7732)) block contents that replace the execution
//! payload: the builder's `ExecutionPayloadBid`, the payload timeliness committee's `PayloadAttestation`s, and
//! the parent payload's `ExecutionRequests`, as views over a block body's bytes.
//!
//! Spec facts (consensus-specs v1.7.0-alpha.13, `specs/gloas/beacon-chain.md`):
//! - `process_execution_payload_bid`: `bid.slot == block.slot`, `bid.parent_block_root` is the previous
//!   slot's block root (the block's `parent_root`), `bid.parent_block_hash == state.latest_block_hash`; a
//!   self-built bid (`builder_index == BUILDER_INDEX_SELF_BUILD`, 2^64-1) has `value == 0` and the point at
//!   infinity as signature;
//! - `process_parent_execution_payload`: when the child's `bid.parent_block_hash` is the parent bid's
//!   `block_hash` the parent's payload was revealed (FULL): the child's `parent_execution_requests` hash to the
//!   parent bid's `execution_requests_root`, and `execution_payload_availability[parent slot]` is set;
//!   otherwise the payload was withheld (EMPTY) and the requests are the empty `ExecutionRequests()`;
//! - `process_payload_attestation`: each attests the parent block (`data.beacon_block_root ==
//!   block.parent_root`) at the previous slot (`data.slot + 1 == block.slot`).

use super::block::BeaconBlockBody;
use super::ssz::{self, SszError, View};
use super::types::{BUILDER_INDEX_SELF_BUILD, EXECUTION_REQUESTS_GLOAS};

/// The serialized BLS point at infinity (`bls.G2_POINT_AT_INFINITY`): a self-built bid's signature.
pub const G2_POINT_AT_INFINITY: [u8; 96] = {
    let mut p = [0u8; 96];
    p[0] = 0xc0;
    p
};

/// A validated `ExecutionPayloadBid` (the message of a block's `signed_execution_payload_bid`).
#[derive(Debug, Clone)]
pub struct ExecutionPayloadBid<'a> {
    view: View<'a>,
    signature: &'a [u8],
}

impl<'a> ExecutionPayloadBid<'a> {
    fn b32(&self, name: &str) -> [u8; 32] {
        self.view.bytes32(name).unwrap_or_default()
    }
    fn u(&self, name: &str) -> u64 {
        self.view.u64(name).unwrap_or_default()
    }
    /// `parent_block_hash`: the execution block the bid builds on (`state.latest_block_hash`).
    pub fn parent_block_hash(&self) -> [u8; 32] {
        self.b32("parent_block_hash")
    }
    /// `parent_block_root`: the beacon block the bid builds on.
    pub fn parent_block_root(&self) -> [u8; 32] {
        self.b32("parent_block_root")
    }
    /// `block_hash`: the execution block the builder commits to reveal.
    pub fn block_hash(&self) -> [u8; 32] {
        self.b32("block_hash")
    }
    /// `prev_randao`.
    pub fn prev_randao(&self) -> [u8; 32] {
        self.b32("prev_randao")
    }
    /// `fee_recipient` (20 bytes).
    pub fn fee_recipient(&self) -> [u8; 20] {
        self.view
            .get("fee_recipient")
            .and_then(|b| b.try_into().ok())
            .unwrap_or_default()
    }
    /// `gas_limit`.
    pub fn gas_limit(&self) -> u64 {
        self.u("gas_limit")
    }
    /// `builder_index` (`BUILDER_INDEX_SELF_BUILD` = 2^64-1 for a proposer's own payload).
    pub fn builder_index(&self) -> u64 {
        self.u("builder_index")
    }
    /// Whether the proposer built the payload itself.
    pub fn self_built(&self) -> bool {
        self.builder_index() == BUILDER_INDEX_SELF_BUILD
    }
    /// `slot`.
    pub fn slot(&self) -> u64 {
        self.u("slot")
    }
    /// `value` (Gwei the builder pays the proposer through the beacon chain).
    pub fn value(&self) -> u64 {
        self.u("value")
    }
    /// `execution_payment` (Gwei paid on the execution layer).
    pub fn execution_payment(&self) -> u64 {
        self.u("execution_payment")
    }
    /// The blob KZG commitments (48 bytes each), validated.
    pub fn blob_kzg_commitments(&self) -> Result<Vec<&'a [u8]>, SszError> {
        self.view
            .elements("blob_kzg_commitments")
            .unwrap_or(Ok(Vec::new()))
    }
    /// hash_tree_root of the commitments list.
    pub fn blob_kzg_commitments_root(&self) -> Result<[u8; 32], SszError> {
        match (
            self.view.get("blob_kzg_commitments"),
            self.view.field_ty("blob_kzg_commitments"),
        ) {
            (Some(b), Some(ty)) => ssz::hash_tree_root(ty, b),
            _ => Ok([0u8; 32]),
        }
    }
    /// `execution_requests_root`: the root of the requests the payload carries (processed by the child).
    pub fn execution_requests_root(&self) -> [u8; 32] {
        self.b32("execution_requests_root")
    }
    /// The builder's signature over the bid (96 bytes).
    pub fn signature(&self) -> &'a [u8] {
        self.signature
    }
    /// hash_tree_root of the bid (what `state.latest_execution_payload_bid` records).
    pub fn root(&self) -> Result<[u8; 32], SszError> {
        self.view.root()
    }
    /// The serialized bid.
    pub fn bytes(&self) -> &'a [u8] {
        self.view.bytes
    }
}

/// A validated `PayloadAttestation`.
#[derive(Debug, Clone)]
pub struct PayloadAttestation<'a> {
    view: View<'a>,
    data: View<'a>,
}

impl<'a> PayloadAttestation<'a> {
    /// `aggregation_bits` (`BitVector[PTC_SIZE]`, 64 bytes).
    pub fn aggregation_bits(&self) -> &'a [u8] {
        self.view.get("aggregation_bits").unwrap_or_default()
    }
    /// How many of the committee's members attest (set bits).
    pub fn attesting_count(&self) -> u32 {
        self.aggregation_bits().iter().map(|b| b.count_ones()).sum()
    }
    /// `data.beacon_block_root`.
    pub fn beacon_block_root(&self) -> [u8; 32] {
        self.data.bytes32("beacon_block_root").unwrap_or_default()
    }
    /// `data.slot`.
    pub fn slot(&self) -> u64 {
        self.data.u64("slot").unwrap_or_default()
    }
    /// `data.payload_present`.
    pub fn payload_present(&self) -> bool {
        self.data.get("payload_present") == Some(&[1][..])
    }
    /// `data.blob_data_available`.
    pub fn blob_data_available(&self) -> bool {
        self.data.get("blob_data_available") == Some(&[1][..])
    }
    /// `signature` (96 bytes).
    pub fn signature(&self) -> &'a [u8] {
        self.view.get("signature").unwrap_or_default()
    }
}

impl<'a> BeaconBlockBody<'a> {
    /// The execution payload bid (Gloas on), `None` before Gloas.
    pub fn bid(&self) -> Option<Result<ExecutionPayloadBid<'a>, SszError>> {
        let signed = self.view().sub("signed_execution_payload_bid")?;
        Some(signed.and_then(|s| {
            let view = s.sub("message").unwrap_or_else(|| {
                Err(SszError::new(ssz::ErrorKind::NoField {
                    container: s.ty.name.into(),
                    field: "message".into(),
                }))
            })?;
            Ok(ExecutionPayloadBid {
                view,
                signature: s.get("signature").unwrap_or_default(),
            })
        }))
    }

    /// The payload attestations (empty before Gloas), each validated.
    pub fn payload_attestations(&self) -> Result<Vec<PayloadAttestation<'a>>, SszError> {
        let Some(items) = self.view().elements("payload_attestations") else {
            return Ok(Vec::new());
        };
        let ty = match self.view().field_ty("payload_attestations") {
            Some(ssz::Ty::ProgressiveList(ssz::Ty::Container(c), _)) => *c,
            _ => return Ok(Vec::new()),
        };
        items?
            .into_iter()
            .map(|b| {
                let view = View::new(ty, b)?;
                let data = view.sub("data").unwrap_or_else(|| {
                    Err(SszError::new(ssz::ErrorKind::NoField {
                        container: ty.name.into(),
                        field: "data".into(),
                    }))
                })?;
                Ok(PayloadAttestation { view, data })
            })
            .collect()
    }

    /// The parent payload's execution requests' serialized bytes (Gloas on; `None` before).
    pub fn parent_execution_requests(&self) -> Option<&'a [u8]> {
        self.view().get("parent_execution_requests")
    }
}

/// The Gloas `ExecutionRequests` parts: (root, whether every list is empty), validated.
pub fn requests_root_and_empty(bytes: &[u8]) -> Result<([u8; 32], bool), SszError> {
    let view = View::new(&EXECUTION_REQUESTS_GLOAS, bytes)?;
    let empty = view
        .ty
        .fields
        .iter()
        .all(|f| view.get(f.name).is_none_or(|b| b.is_empty()));
    Ok((view.root()?, empty))
}

/// The serialized empty Gloas `ExecutionRequests()` (five empty lists: their offsets only).
pub fn empty_requests() -> Vec<u8> {
    ssz::encode_container(&EXECUTION_REQUESTS_GLOAS, &[&[], &[], &[], &[], &[]]).unwrap_or_default()
}

/// hash_tree_root of the empty Gloas `ExecutionRequests()` (what a Fulu→Gloas upgrade commits to), computed
/// once: verification names it for every block with a payload (the link its child's bid is judged by).
pub fn empty_requests_root() -> [u8; 32] {
    static ROOT: std::sync::OnceLock<[u8; 32]> = std::sync::OnceLock::new();
    *ROOT.get_or_init(|| {
        requests_root_and_empty(&empty_requests())
            .map(|(r, _)| r)
            .unwrap_or_default()
    })
}
