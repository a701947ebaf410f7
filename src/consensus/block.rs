//! `SignedBeaconBlock`, `BeaconBlock`, `BeaconBlockBody` and `ExecutionPayload` as views over SSZ bytes.
//!
//! Spec facts: `SignedBeaconBlock = {message: BeaconBlock, signature}`; `BeaconBlock = {slot, proposer_index,
//! parent_root, state_root, body}`; the body gains `sync_aggregate` (altair), `execution_payload` (bellatrix),
//! `bls_to_execution_changes` (capella), `blob_kzg_commitments` (deneb), `execution_requests` (electra); the
//! payload gains `withdrawals` (capella) and `blob_gas_used`, `excess_blob_gas` (deneb). The block root that
//! `state.block_roots` records is `hash_tree_root(BeaconBlock)`, the message, not the signed envelope.
//!
//! Specs: `BeaconBlock` and its body and payload as each fork's `beacon-chain.md` defines them, e.g.
//! - <https://github.com/ethereum/consensus-specs/blob/master/specs/phase0/beacon-chain.md#beaconblock>
//! - <https://github.com/ethereum/consensus-specs/blob/master/specs/deneb/beacon-chain.md#beaconblockbody>

use super::fork::Fork;
use super::merkle::{Forest, Val};
use super::spec::Spec;
use super::ssz::{read_u64, Capture, Container, SszError, Ty, View};

/// A validated `SignedBeaconBlock`.
#[derive(Debug, Clone)]
pub struct SignedBeaconBlock<'a> {
    view: View<'a>,
    spec: Spec,
}

impl<'a> SignedBeaconBlock<'a> {
    /// Validates the envelope and the message's offsets.
    pub fn new(bytes: &'a [u8], spec: Spec) -> Result<Self, SszError> {
        let view = View::new(spec.signed_block_schema(), bytes)?;
        let b = SignedBeaconBlock { view, spec };
        b.message()?;
        Ok(b)
    }

    /// The block message (whose root is the block root).
    pub fn message(&self) -> Result<BeaconBlock<'a>, SszError> {
        BeaconBlock::new(self.view.get("message").unwrap_or_default(), self.spec)
    }

    /// The proposer's BLS signature (96 bytes).
    pub fn signature(&self) -> &'a [u8] {
        self.view.get("signature").unwrap_or_default()
    }

    /// hash_tree_root of the signed envelope (rarely needed: the block root is the message's).
    pub fn root(&self) -> Result<[u8; 32], SszError> {
        self.view.root()
    }
}

/// A validated `BeaconBlock`.
#[derive(Debug, Clone)]
pub struct BeaconBlock<'a> {
    view: View<'a>,
    spec: Spec,
}

impl<'a> BeaconBlock<'a> {
    /// Validates the block's and its body's fixed parts and offsets.
    pub fn new(bytes: &'a [u8], spec: Spec) -> Result<Self, SszError> {
        let view = View::new(spec.block_schema(), bytes)?;
        let b = BeaconBlock { view, spec };
        b.body()?;
        Ok(b)
    }

    /// The fork whose schema this view uses.
    pub fn fork(&self) -> Fork {
        self.spec.fork
    }
    /// The fork and preset whose schema this view uses.
    pub fn spec(&self) -> Spec {
        self.spec
    }
    /// `slot`.
    pub fn slot(&self) -> u64 {
        self.view.u64("slot").unwrap_or_default()
    }
    /// `proposer_index`.
    pub fn proposer_index(&self) -> u64 {
        self.view.u64("proposer_index").unwrap_or_default()
    }
    /// `parent_root`: the previous block's root.
    pub fn parent_root(&self) -> [u8; 32] {
        self.view.bytes32("parent_root").unwrap_or_default()
    }
    /// `state_root`: the post-state's root.
    pub fn state_root(&self) -> [u8; 32] {
        self.view.bytes32("state_root").unwrap_or_default()
    }
    /// The block body.
    pub fn body(&self) -> Result<BeaconBlockBody<'a>, SszError> {
        match self.view.sub("body") {
            Some(v) => Ok(BeaconBlockBody {
                view: v?,
                spec: self.spec,
            }),
            None => Err(SszError::new(super::ssz::ErrorKind::TooShort {
                ty: "BeaconBlock".into(),
                expected: 84,
                found: 0,
            })),
        }
    }
    /// hash_tree_root of the block: the value recorded in `state.block_roots` and children's `parent_root`.
    pub fn root(&self) -> Result<[u8; 32], SszError> {
        self.view.root()
    }
    /// The block's root, its body's and its execution payload's (bellatrix on), recorded in `forest` for
    /// batched hashing (known after [`Forest::evaluate`]): the body and payload are hashed once, as parts
    /// of the block, instead of once more each for their own roots. Errors are those of [`BeaconBlock::root`].
    pub fn defer_roots(&self, forest: &mut Forest) -> Result<BlockRoots, SszError> {
        let body_ty = container_field(self.view.ty, "body");
        let payload_ty = body_ty.and_then(|b| container_field(b, "execution_payload"));
        let mut caps: Vec<Capture> = body_ty
            .into_iter()
            .chain(payload_ty)
            .map(Capture::new)
            .collect();
        let block = self.view.defer_root(forest, &mut caps)?;
        let val_of = |t: Option<&'static Container>| {
            let t = t?;
            caps.iter().find(|c| std::ptr::eq(c.ty, t))?.val
        };
        Ok(BlockRoots {
            block,
            body: val_of(body_ty),
            payload: val_of(payload_ty),
        })
    }
    /// The serialized block (what proofs of its execution payload are built from).
    pub fn bytes(&self) -> &'a [u8] {
        self.view.bytes
    }
}

/// A block's roots recorded in a [`Forest`] by [`BeaconBlock::defer_roots`].
#[derive(Debug, Clone, Copy)]
pub struct BlockRoots {
    /// The block root.
    pub block: Val,
    /// The body's root (`None` only if the schema had no body container: a caller computes it directly).
    pub body: Option<Val>,
    /// The execution payload's root (`None` before bellatrix).
    pub payload: Option<Val>,
}

/// The container type of field `name` of `c`.
fn container_field(c: &'static Container, name: &str) -> Option<&'static Container> {
    match c.fields.iter().find(|f| f.name == name)?.ty {
        Ty::Container(t) => Some(t),
        _ => None,
    }
}

/// A validated `BeaconBlockBody`.
#[derive(Debug, Clone)]
pub struct BeaconBlockBody<'a> {
    view: View<'a>,
    spec: Spec,
}

impl<'a> BeaconBlockBody<'a> {
    /// The validated body container (the operation views read their lists through it).
    pub(super) fn view(&self) -> &View<'a> {
        &self.view
    }
    /// hash_tree_root of the body (a `BeaconBlockHeader`'s `body_root`).
    pub fn root(&self) -> Result<[u8; 32], SszError> {
        self.view.root()
    }
    fn count(&self, name: &str) -> Result<usize, SszError> {
        self.view.count(name).unwrap_or(Ok(0))
    }
    /// `graffiti` (32 bytes).
    pub fn graffiti(&self) -> [u8; 32] {
        self.view.bytes32("graffiti").unwrap_or_default()
    }
    /// `randao_reveal` (96 bytes).
    pub fn randao_reveal(&self) -> &'a [u8] {
        self.view.get("randao_reveal").unwrap_or_default()
    }
    /// `eth1_data`: `(deposit_root, deposit_count, block_hash)`, the proposer's vote on the deposit contract.
    pub fn eth1_data(&self) -> ([u8; 32], u64, [u8; 32]) {
        let e = self.view.get("eth1_data").unwrap_or_default();
        let root = |at: usize| {
            e.get(at..at + 32)
                .and_then(|b| b.try_into().ok())
                .unwrap_or_default()
        };
        (root(0), read_u64(e, 32).unwrap_or_default(), root(40))
    }
    /// Number of attestations.
    pub fn attestations(&self) -> Result<usize, SszError> {
        self.count("attestations")
    }
    /// Number of deposits.
    pub fn deposits(&self) -> Result<usize, SszError> {
        self.count("deposits")
    }
    /// Number of voluntary exits.
    pub fn voluntary_exits(&self) -> Result<usize, SszError> {
        self.count("voluntary_exits")
    }
    /// Number of proposer slashings.
    pub fn proposer_slashings(&self) -> Result<usize, SszError> {
        self.count("proposer_slashings")
    }
    /// Number of attester slashings.
    pub fn attester_slashings(&self) -> Result<usize, SszError> {
        self.count("attester_slashings")
    }
    /// Number of BLS-to-execution changes (0 before capella).
    pub fn bls_to_execution_changes(&self) -> Result<usize, SszError> {
        self.count("bls_to_execution_changes")
    }
    /// Number of blob KZG commitments (0 before deneb; from Gloas on, the bid's).
    pub fn blob_kzg_commitments(&self) -> Result<usize, SszError> {
        match self.bid() {
            Some(bid) => Ok(bid?.blob_kzg_commitments()?.len()),
            None => self.count("blob_kzg_commitments"),
        }
    }
    /// The blob KZG commitments, 48 bytes each (empty before deneb; from Gloas on, those the bid commits to).
    pub fn blob_kzg_commitment_list(&self) -> Result<Vec<&'a [u8]>, SszError> {
        if let Some(bid) = self.bid() {
            return bid?.blob_kzg_commitments();
        }
        self.view
            .elements("blob_kzg_commitments")
            .unwrap_or(Ok(Vec::new()))
    }
    /// The execution payload (bellatrix on), `None` before the merge fork.
    pub fn execution_payload(&self) -> Option<Result<ExecutionPayload<'a>, SszError>> {
        Some(
            self.view
                .sub("execution_payload")?
                .map(|view| ExecutionPayload {
                    view,
                    spec: self.spec,
                }),
        )
    }
    /// The electra execution requests' serialized bytes (`None` before electra).
    pub fn execution_requests(&self) -> Option<&'a [u8]> {
        self.view.get("execution_requests")
    }
}

/// One `Withdrawal` of a capella+ payload: the same withdrawal an execution body carries in RLP.
pub use crate::execution::withdrawal::Withdrawal;

/// A validated `ExecutionPayload` (bellatrix and later).
#[derive(Debug, Clone)]
pub struct ExecutionPayload<'a> {
    view: View<'a>,
    spec: Spec,
}

impl<'a> ExecutionPayload<'a> {
    fn field(&self, name: &str) -> &'a [u8] {
        self.view.get(name).unwrap_or_default()
    }
    /// `parent_hash` (32 bytes).
    pub fn parent_hash(&self) -> &'a [u8] {
        self.field("parent_hash")
    }
    /// `fee_recipient` (20 bytes).
    pub fn fee_recipient(&self) -> &'a [u8] {
        self.field("fee_recipient")
    }
    /// `state_root` (32 bytes).
    pub fn state_root(&self) -> &'a [u8] {
        self.field("state_root")
    }
    /// `receipts_root` (32 bytes).
    pub fn receipts_root(&self) -> &'a [u8] {
        self.field("receipts_root")
    }
    /// `logs_bloom` (256 bytes).
    pub fn logs_bloom(&self) -> &'a [u8] {
        self.field("logs_bloom")
    }
    /// `prev_randao` (32 bytes; the header's mix_hash).
    pub fn prev_randao(&self) -> &'a [u8] {
        self.field("prev_randao")
    }
    /// `block_number`.
    pub fn block_number(&self) -> u64 {
        read_u64(self.field("block_number"), 0).unwrap_or_default()
    }
    /// `gas_limit`.
    pub fn gas_limit(&self) -> u64 {
        read_u64(self.field("gas_limit"), 0).unwrap_or_default()
    }
    /// `gas_used`.
    pub fn gas_used(&self) -> u64 {
        read_u64(self.field("gas_used"), 0).unwrap_or_default()
    }
    /// `timestamp`.
    pub fn timestamp(&self) -> u64 {
        read_u64(self.field("timestamp"), 0).unwrap_or_default()
    }
    /// `extra_data` (at most 32 bytes).
    pub fn extra_data(&self) -> &'a [u8] {
        self.field("extra_data")
    }
    /// `base_fee_per_gas` as 32 little-endian bytes (uint256).
    pub fn base_fee_per_gas(&self) -> &'a [u8] {
        self.field("base_fee_per_gas")
    }
    /// `block_hash` (32 bytes): the execution block's hash.
    pub fn block_hash(&self) -> &'a [u8] {
        self.field("block_hash")
    }
    /// The transactions ([EIP-2718](https://eips.ethereum.org/EIPS/eip-2718) encoded), offsets validated.
    pub fn transactions(&self) -> Result<impl ExactSizeIterator<Item = &'a [u8]> + 'a, SszError> {
        Ok(self
            .view
            .elements("transactions")
            .unwrap_or(Ok(Vec::new()))?
            .into_iter())
    }
    /// The withdrawals (empty before capella).
    pub fn withdrawals(&self) -> Result<Vec<Withdrawal>, SszError> {
        let items = self
            .view
            .elements("withdrawals")
            .unwrap_or(Ok(Vec::new()))?;
        Ok(items
            .into_iter()
            .map(|w| Withdrawal {
                index: read_u64(w, 0).unwrap_or_default(),
                validator_index: read_u64(w, 8).unwrap_or_default(),
                address: w
                    .get(16..36)
                    .and_then(|a| a.try_into().ok())
                    .unwrap_or_default(),
                amount: read_u64(w, 36).unwrap_or_default(),
            })
            .collect())
    }
    /// `blob_gas_used` (deneb on).
    pub fn blob_gas_used(&self) -> Option<u64> {
        self.view.u64("blob_gas_used")
    }
    /// `excess_blob_gas` (deneb on).
    pub fn excess_blob_gas(&self) -> Option<u64> {
        self.view.u64("excess_blob_gas")
    }
    /// The serialized payload.
    pub fn bytes(&self) -> &'a [u8] {
        self.view.bytes
    }
    /// The fork whose payload schema this is.
    pub fn fork(&self) -> Fork {
        self.spec.fork
    }
    /// The fork and preset whose payload schema this is.
    pub fn spec(&self) -> Spec {
        self.spec
    }
    /// hash_tree_root of the payload.
    pub fn root(&self) -> Result<[u8; 32], SszError> {
        self.view.root()
    }
}
