//! Beacon-chain (consensus layer) SSZ: views over serialized blocks and states of every fork, and their
//! hash_tree_root computed straight from the bytes.
//!
//! - [`merkle`]: merkleization of chunks in place, zero-subtree padding, batched and parallel hashing.
//! - [`ssz`]: the schema walker: offset validation, typed errors, generic hash_tree_root.
//! - [`validators`]: the validator registry's batched root; [`registry`]: the registry read column by column.
//! - [`types`]: every fork's containers, per preset; [`fork`]: fork by slot; [`preset`]: which preset sizes a
//!   network's containers, and the [`Spec`] (fork and preset) a block or state is read with.
//! - [`state`], [`block`]: typed accessors; [`operations`]: a block body's operations, item by item.
//!
//! Dependencies run one way, `merkle` <- `ssz` <- `validators` <- `types`: the walker knows no container, and
//! a schema that wants a specialised root names it ([`ssz::Container::elements_root`]).
//!
//! The hot path (a mainnet state's root) never copies chunk-aligned data: `block_roots`, `randao_mixes`,
//! `balances`, participation and the like are hashed from the input slice; only 121-byte validators are
//! re-laid out into 8 chunks each, in cache-sized batches (see [`validators`]).
//!
//! Specs: <https://github.com/ethereum/consensus-specs> (`specs/<fork>/beacon-chain.md` for the containers,
//! `ssz/simple-serialize.md` for serialization and merkleization).

pub mod bid;
pub mod block;
pub mod fork;
pub mod merkle;
pub mod operations;
pub mod preset;
pub mod registry;
pub mod spec;
pub mod ssz;
pub mod state;
pub mod synth;
pub mod types;
pub mod validators;

pub use block::{BeaconBlock, BeaconBlockBody, ExecutionPayload, SignedBeaconBlock, Withdrawal};
pub use fork::{Fork, UnknownFork, ALL_FORKS, KNOWN_FORKS};
pub use preset::Preset;
pub use spec::Spec;
pub use ssz::{ErrorKind, SszError};
pub use state::BeaconState;

use crate::network::Network;

/// What a raw SSZ file holds (era files say it by record type; raw `.ssz` files need to be told).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A `BeaconState`.
    State,
    /// A `BeaconBlock` (the message).
    Block,
    /// A `SignedBeaconBlock`.
    SignedBlock,
}

impl Kind {
    /// Byte offset of `slot`: 40 in a state (after genesis_time and genesis_validators_root), 0 in a block,
    /// 100 in a signed block (its fixed part is the 4-byte message offset and the 96-byte signature, so the
    /// message, whose first field is the slot, starts at byte 100).
    pub fn slot_offset(self) -> usize {
        match self {
            Kind::State => state::STATE_SLOT_OFFSET,
            Kind::Block => 0,
            Kind::SignedBlock => 100,
        }
    }
}

/// The slot of a serialized state or block, read at its fixed offset (no other validation).
pub fn slot_of(bytes: &[u8], kind: Kind) -> Result<u64, SszError> {
    let at = kind.slot_offset();
    ssz::read_u64(bytes, at).ok_or_else(|| {
        SszError::new(ErrorKind::NoSlot {
            offset: at,
            found: bytes.len(),
        })
    })
}

/// The spec (fork and preset) of a serialized state or block, from its slot and the network's fork epochs.
pub fn infer_spec(bytes: &[u8], kind: Kind, network: &Network) -> Result<Spec, SszError> {
    Ok(Spec::at_slot(slot_of(bytes, kind)?, network))
}

/// hash_tree_root of a serialized `BeaconState` of `spec`.
pub fn state_root(bytes: &[u8], spec: Spec) -> Result<[u8; 32], SszError> {
    BeaconState::new(bytes, spec)?.root()
}

/// hash_tree_root of a serialized `BeaconBlock` of `spec` (the block root).
pub fn block_root(bytes: &[u8], spec: Spec) -> Result<[u8; 32], SszError> {
    BeaconBlock::new(bytes, spec)?.root()
}

/// The block root (hash_tree_root of the message) of a serialized `SignedBeaconBlock` of `spec`.
pub fn signed_block_root(bytes: &[u8], spec: Spec) -> Result<[u8; 32], SszError> {
    SignedBeaconBlock::new(bytes, spec)?.message()?.root()
}

/// hash_tree_root of any serialized object of `kind` (for a signed block: of the envelope).
pub fn root_of(bytes: &[u8], kind: Kind, spec: Spec) -> Result<[u8; 32], SszError> {
    match kind {
        Kind::State => state_root(bytes, spec),
        Kind::Block => block_root(bytes, spec),
        Kind::SignedBlock => SignedBeaconBlock::new(bytes, spec)?.root(),
    }
}
