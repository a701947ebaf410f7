//! The pre-merge anchor: the historical hashes accumulator of
//! [EIP-7643](https://eips.ethereum.org/EIPS/eip-7643) and the Portal history network
//! (<https://github.com/ethereum/portal-network-specs/blob/master/legacy/history/history-network.md#the-historical-hashes-accumulator>).
//!
//! ```text
//! HeaderRecord = Container[block_hash: Bytes32, total_difficulty: uint256]
//! EpochRecord  = List[HeaderRecord, limit=8192]                  (an era1 file's accumulator root)
//! HistoricalHashesAccumulator = Container[
//!     historical_epochs: List[Bytes32, limit=2048],              (hash_tree_root of each EpochRecord)
//!     current_epoch: EpochRecord,                                 (empty once frozen at the merge)
//! ]
//! ```
//!
//! Mainnet's accumulator was frozen at the merge: 1,897 epoch record roots, for eras 0 to 1896; era 1896's record
//! holds only the blocks before the merge (15,532,032 to 15,537,393). Its hash_tree_root is EIP-7643's
//! [`MAINNET_ACCUMULATOR_ROOT`]. The SSZ is embedded as published (`mainnet/historical_hashes_accumulator.ssz`,
//! from ethereum/portal-spec-tests `tests/mainnet/history/accumulator/`).
//!
//! A type 0 proof (`BlockProofHistoricalHashesAccumulator = Vector[Bytes32, 15]`) is the branch from a block hash
//! to its epoch record root: the leaf is `block_hash`, so the first sibling is the record's total difficulty,
//! then 13 record-level siblings, then the list length (generalized index `2^15 + 2 * (number % 8192)`).

use super::anchor::{Anchor, Proven};
use super::branch::branch_root;
use super::error::{AnchorError, NotProven, Step};
use crate::consensus::merkle;
use crate::consensus::ssz::{self, Container, Field, Ty};
use crate::consensus::types::BYTES32;
use crate::network::Network;

/// Blocks per era (`EPOCH_SIZE`): one epoch record each.
pub const ERA_BLOCKS: u64 = 8192;

/// `MAX_HISTORICAL_EPOCHS`: the limit of `historical_epochs`.
const MAX_HISTORICAL_EPOCHS: u64 = 2048;

/// hash_tree_root of mainnet's frozen `HistoricalHashesAccumulator`, as EIP-7643 states it.
pub const MAINNET_ACCUMULATOR_ROOT: [u8; 32] =
    alloy_primitives::hex!("ec8e040fd6c557b41ca8ddd38f7e9d58a9281918dc92bdb72342a38fb085e701");

/// Mainnet's frozen accumulator, SSZ-encoded (a 60,712-byte container: two offsets, 1,897 roots, an empty
/// `current_epoch`).
static MAINNET_SSZ: &[u8] = include_bytes!("mainnet/historical_hashes_accumulator.ssz");

/// The SSZ fixed part of the container: two 4-byte offsets.
const FIXED_PART: usize = 8;

static HEADER_RECORD: Container = Container::new(
    "HeaderRecord",
    &[
        Field {
            name: "block_hash",
            ty: &BYTES32,
        },
        Field {
            name: "total_difficulty",
            ty: &Ty::Uint(32),
        },
    ],
);

static ACCUMULATOR: Container = Container::new(
    "HistoricalHashesAccumulator",
    &[
        Field {
            name: "historical_epochs",
            ty: &Ty::List(&BYTES32, MAX_HISTORICAL_EPOCHS),
        },
        Field {
            name: "current_epoch",
            ty: &Ty::List(&Ty::Container(&HEADER_RECORD), ERA_BLOCKS),
        },
    ],
);

/// A frozen historical hashes accumulator: one epoch record root per pre-merge era (zero-copy over its SSZ).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistoricalHashesAccumulator<'a> {
    epochs: &'a [[u8; 32]],
}

impl<'a> HistoricalHashesAccumulator<'a> {
    /// Reads the SSZ of a `HistoricalHashesAccumulator`, refusing one whose `current_epoch` is not empty (an
    /// accumulator still being built anchors nothing).
    pub fn from_ssz(bytes: &'a [u8]) -> Result<Self, AnchorError> {
        let ssz_err = |source| AnchorError::Ssz {
            what: "historical hashes accumulator",
            source,
        };
        let view = ssz::View::new(&ACCUMULATOR, bytes).map_err(ssz_err)?;
        let epochs = view
            .elements("historical_epochs")
            .unwrap_or(Ok(Vec::new()))
            .map_err(ssz_err)?;
        let current = view
            .elements("current_epoch")
            .unwrap_or(Ok(Vec::new()))
            .map_err(ssz_err)?;
        if !current.is_empty() {
            return Err(AnchorError::NotFrozen {
                records: current.len(),
            });
        }
        let roots = view.get("historical_epochs").unwrap_or_default();
        debug_assert_eq!(roots.len(), 32 * epochs.len());
        Ok(HistoricalHashesAccumulator {
            epochs: roots.as_chunks::<32>().0,
        })
    }

    /// The epoch record root of `era`, `None` past the accumulator's last era.
    pub fn epoch_root(&self, era: u64) -> Option<&'a [u8; 32]> {
        self.epochs.get(usize::try_from(era).ok()?)
    }

    /// Number of eras covered (1,897 on mainnet: eras 0 to 1896).
    pub fn eras(&self) -> u64 {
        self.epochs.len() as u64
    }

    /// hash_tree_root of the accumulator (with its empty `current_epoch`): EIP-7643's constant for mainnet.
    pub fn root(&self) -> [u8; 32] {
        let epochs = merkle::mix_in_length(
            &merkle::merkleize(self.epochs.as_flattened(), MAX_HISTORICAL_EPOCHS),
            self.eras(),
        );
        // The empty EpochRecord: a zero tree of 8192 leaves, length 0.
        let current = merkle::mix_in_length(merkle::zero_hash(13), 0);
        crate::crypto::sha256::hash_pair(&epochs, &current)
    }

    /// Whether `root` (an era1 file's, or a pre-merge ere file's, accumulator root) is this accumulator's epoch
    /// record root for `era`.
    pub fn check_era_root(&self, era: u64, root: &[u8; 32]) -> Result<Proven, NotProven> {
        let expected = self.era_entry(era)?;
        if expected != root {
            return Err(NotProven::Mismatch {
                step: Step::EraRoot { era },
                expected: *expected,
                found: *root,
            });
        }
        Ok(Proven {
            anchor: Anchor::Accumulator { era },
            root: *expected,
        })
    }

    /// Verifies a type 0 proof (already length-checked: 15 roots) that `block_hash` is block `number`'s entry
    /// in its era's epoch record.
    pub(crate) fn verify_header_record(
        &self,
        number: u64,
        block_hash: &[u8; 32],
        branch: &[[u8; 32]],
    ) -> Result<Proven, NotProven> {
        let era = number / ERA_BLOCKS;
        let expected = self.era_entry(era)?;
        // The leaf is the record's first field: record i is node 2^14 + i, its block_hash 2 * (2^14 + i).
        let index = 2 * (number % ERA_BLOCKS);
        let found = branch_root(block_hash, branch, index);
        if &found != expected {
            return Err(NotProven::Mismatch {
                step: Step::HeaderRecord { era },
                expected: *expected,
                found,
            });
        }
        Ok(Proven {
            anchor: Anchor::Accumulator { era },
            root: found,
        })
    }

    fn era_entry(&self, era: u64) -> Result<&'a [u8; 32], NotProven> {
        self.epoch_root(era)
            .ok_or_else(|| NotProven::EraOutsideAccumulator {
                era,
                last: self.eras().saturating_sub(1),
            })
    }
}

impl HistoricalHashesAccumulator<'static> {
    /// Mainnet's frozen accumulator, embedded in the binary.
    pub fn mainnet() -> Self {
        let roots = MAINNET_SSZ.get(FIXED_PART..).unwrap_or_default();
        HistoricalHashesAccumulator {
            epochs: roots.as_chunks::<32>().0,
        }
    }

    /// The embedded accumulator of `network` (mainnet only, recognised by chain id and genesis hash).
    pub fn of(network: &Network) -> Option<Self> {
        super::anchor::is_mainnet(network).then(Self::mainnet)
    }
}

/// Whether an era1 (or pre-merge ere) file of `network` and `era` with accumulator root `root` is canonical:
/// its root must be the embedded accumulator's entry for `era`. Networks without an embedded accumulator give
/// [`NotProven::NoAccumulator`] (see [`NotProven::is_unanchored`]).
///
/// The root a file records is only its claim: it proves the file's blocks once verification has recomputed it
/// from the file's header hashes and total difficulties.
/// A network's own accumulator held in memory (a private network's, read from a file, or built from its eras):
/// the epoch record root of each era, viewed as a [`HistoricalHashesAccumulator`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EpochRoots(pub Vec<[u8; 32]>);

impl EpochRoots {
    /// The roots of a `HistoricalHashesAccumulator`'s SSZ (frozen: an empty `current_epoch`).
    pub fn from_ssz(bytes: &[u8]) -> Result<EpochRoots, AnchorError> {
        Ok(EpochRoots(
            HistoricalHashesAccumulator::from_ssz(bytes)?
                .epochs
                .to_vec(),
        ))
    }

    /// The SSZ of the frozen accumulator these roots make (what [`EpochRoots::from_ssz`] reads).
    pub fn to_ssz(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(FIXED_PART + 32 * self.0.len());
        let end = (FIXED_PART + 32 * self.0.len()) as u32;
        out.extend_from_slice(&(FIXED_PART as u32).to_le_bytes());
        out.extend_from_slice(&end.to_le_bytes());
        out.extend_from_slice(self.0.as_flattened());
        out
    }

    /// The accumulator over these roots.
    pub fn view(&self) -> HistoricalHashesAccumulator<'_> {
        HistoricalHashesAccumulator { epochs: &self.0 }
    }
}

/// Whether `root` is the accumulator's entry for `era` in `network`'s embedded accumulator (mainnet's), or
/// unanchored when it has none.
pub fn canonical_era1_root(
    network: &Network,
    era: u64,
    root: &[u8; 32],
) -> Result<Proven, NotProven> {
    HistoricalHashesAccumulator::of(network)
        .ok_or_else(|| NotProven::NoAccumulator {
            network: network.name.clone(),
        })?
        .check_era_root(era, root)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epoch_roots_round_trip_through_ssz() {
        let mainnet = EpochRoots::from_ssz(MAINNET_SSZ).unwrap();
        assert_eq!(mainnet.0.len(), 1897);
        assert_eq!(mainnet.to_ssz(), MAINNET_SSZ);
        assert_eq!(mainnet.view().root(), MAINNET_ACCUMULATOR_ROOT);
        let own = EpochRoots(vec![[7; 32], [9; 32]]);
        assert_eq!(EpochRoots::from_ssz(&own.to_ssz()).unwrap(), own);
    }

    #[test]
    fn embedded_mainnet_accumulator_has_the_eip_7643_root() {
        let acc = HistoricalHashesAccumulator::mainnet();
        assert_eq!(acc.eras(), 1897);
        assert_eq!(acc.root(), MAINNET_ACCUMULATOR_ROOT);
        // The generic SSZ walker agrees, and the validating reader sees the same roots.
        assert_eq!(
            ssz::container_root(&ACCUMULATOR, MAINNET_SSZ).unwrap(),
            MAINNET_ACCUMULATOR_ROOT
        );
        assert_eq!(
            HistoricalHashesAccumulator::from_ssz(MAINNET_SSZ).unwrap(),
            acc
        );
        assert_eq!(MAINNET_SSZ.len(), FIXED_PART + 1897 * 32);
    }

    #[test]
    fn era_roots_are_checked_against_their_entry() {
        let acc = HistoricalHashesAccumulator::mainnet();
        let e0 = *acc.epoch_root(0).unwrap();
        assert_eq!(
            hex::encode(e0),
            "5ec1ffb8c3b146f42606c74ced973dc16ec5a107c0345858c343fc94780b4218"
        );
        let p = acc.check_era_root(0, &e0).unwrap();
        assert_eq!(p.anchor, Anchor::Accumulator { era: 0 });
        assert_eq!(p.anchor.to_string(), "accumulator");
        let e = acc.check_era_root(1, &e0).unwrap_err();
        assert!(matches!(
            e,
            NotProven::Mismatch {
                step: Step::EraRoot { era: 1 },
                ..
            }
        ));
        assert!(!e.is_unanchored());
        let m = e.to_string();
        assert!(m.contains("0x5ec1ffb8") && m.contains("era 1"), "{m}");
        let e = acc.check_era_root(1897, &e0).unwrap_err();
        assert_eq!(
            e,
            NotProven::EraOutsideAccumulator {
                era: 1897,
                last: 1896
            }
        );
    }

    #[test]
    fn other_networks_have_no_accumulator() {
        let sepolia = Network::by_name("sepolia").unwrap();
        let e = canonical_era1_root(&sepolia, 0, &[0u8; 32]).unwrap_err();
        assert!(e.is_unanchored());
        assert_eq!(
            e.to_string(),
            "no accumulator for network sepolia: only mainnet's pre-merge accumulator (EIP-7643) is embedded"
        );
        // A preset named mainnet with another genesis is not mainnet.
        let mut fake = Network::by_name("mainnet").unwrap();
        fake.genesis_hash = format!("0x{}", "11".repeat(32));
        assert!(HistoricalHashesAccumulator::of(&fake).is_none());
    }

    #[test]
    fn accumulators_being_built_or_malformed_are_refused() {
        // One epoch root and one record in current_epoch.
        let mut b = Vec::new();
        b.extend_from_slice(&8u32.to_le_bytes());
        b.extend_from_slice(&40u32.to_le_bytes());
        b.extend_from_slice(&[7u8; 32]);
        b.extend_from_slice(&[1u8; 64]);
        assert_eq!(
            HistoricalHashesAccumulator::from_ssz(&b).unwrap_err(),
            AnchorError::NotFrozen { records: 1 }
        );
        b.truncate(40);
        let acc = HistoricalHashesAccumulator::from_ssz(&b).unwrap();
        assert_eq!(acc.eras(), 1);
        b.truncate(39);
        let e = HistoricalHashesAccumulator::from_ssz(&b).unwrap_err();
        assert!(
            e.to_string().starts_with("historical hashes accumulator: "),
            "{e}"
        );
    }
}
