//! Canonical history: proof that a block, or a whole era of pre-merge blocks, is part of Ethereum's canonical
//! chain, against a root someone trusts, and which root that was.
//!
//! An archive's own checks (roots, header chain, total difficulty) prove that its blocks hang together, not
//! that they are the chain everyone else has: a consistent fork or a made-up chain passes them. What settles
//! it is a link from the block to a root fixed outside the archive, an *anchor*:
//!
//! - [`Anchor::Accumulator`] (`accumulator`), pre-merge blocks (eras 0 to 1896 on mainnet): the block hash is
//!   entry `number % 8192` of its era's epoch record, whose root is in the historical hashes accumulator frozen
//!   at the merge and fixed by [EIP-7643](https://eips.ethereum.org/EIPS/eip-7643) (embedded for mainnet). An
//!   era1 file whose accumulator root, recomputed from its headers and total difficulties (as
//!   [`crate::verify`] does), is its era's entry ([`canonical_era1_root`]) holds exactly the canonical blocks
//!   of that era, with their total difficulties.
//! - [`Anchor::HistoricalRoots`] (`historical_roots`), the merge to Capella: the block hash is the execution
//!   payload's of a beacon block whose root is in the `block_roots` of a historical batch whose root is in the
//!   beacon state's `historical_roots`, frozen at Capella (embedded for mainnet).
//! - [`Anchor::HistoricalSummaries`] (`historical_summaries@<slot>`), Capella on: the same, up to a
//!   `block_summary_root` of the `historical_summaries` of the beacon state at `<slot>`. They grow every 8192
//!   slots, so the caller supplies them ([`HistoricalSummaries`]); they are only as trusted as that state, and
//!   blocks after its last complete period are not covered.
//!
//! The proofs are the four types of an ere file's `Proof` records (`formats/ere.md`, as the Portal history
//! network defines them); [`ProofType`] gives their layouts and the fork each belongs to.
//! Verification is pure: a block's number, timestamp and hash ([`BlockId`]), the proof's type and SSZ, and the
//! [`Anchors`]. It says which anchor proved the block ([`Proven`]) or why not ([`NotProven`]), telling a
//! failed proof (wrong type for the block's fork, truncated or overlong SSZ, a root that does not match) from
//! the mere absence of an anchor ([`NotProven::is_unanchored`]).
//!
//! ```
//! use eraflow::canonical::{canonical_era1_root, HistoricalHashesAccumulator};
//! use eraflow::network::Network;
//!
//! let mainnet = Network::by_name("mainnet")?;
//! let era0 = *HistoricalHashesAccumulator::mainnet().epoch_root(0).unwrap();
//! let proven = canonical_era1_root(&mainnet, 0, &era0).unwrap();
//! assert_eq!(proven.anchor.to_string(), "accumulator");
//! assert!(canonical_era1_root(&mainnet, 1, &era0).is_err());
//! let sepolia = Network::by_name("sepolia")?;
//! assert!(canonical_era1_root(&sepolia, 0, &era0).unwrap_err().is_unanchored());
//! # Ok::<(), eraflow::network::NetworkError>(())
//! ```
//!
//! [`build`] makes the proofs from the data they summarise (epoch records, beacon blocks and their period's
//! roots), as a writer of default-profile ere files needs.

mod accumulator;
mod anchor;
mod beacon;
mod branch;
pub mod build;
mod error;
mod proof;
mod proof_type;
mod trusted;

pub use accumulator::{
    canonical_era1_root, EpochRoots, HistoricalHashesAccumulator, ERA_BLOCKS,
    MAINNET_ACCUMULATOR_ROOT,
};
pub use anchor::{Anchor, Proven};
pub use beacon::{HistoricalRoots, HistoricalSummaries, PERIOD_SLOTS};
pub use branch::branch_root;
pub use error::{AnchorError, BuildError, NotProven, Step};
pub use proof::{decode_proof, verify_proof, BeaconProof, BlockId, DecodedProof};
pub use proof_type::ProofType;
pub use trusted::Anchors;
