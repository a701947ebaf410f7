//! The post-merge anchors, from the beacon state (consensus-specs `specs/capella/beacon-chain.md`,
//! <https://github.com/ethereum/consensus-specs/blob/master/specs/capella/beacon-chain.md#historicalsummary>):
//!
//! - `historical_roots: List[Root, HISTORICAL_ROOTS_LIMIT]`: one `hash_tree_root(HistoricalBatch{block_roots,
//!   state_roots})` per 8192 slots from genesis until Capella, when the list stopped growing. Frozen, so mainnet's
//!   758 roots are embedded (`mainnet/historical_roots.ssz`, as ethereum/trin ships it); they anchor Bellatrix
//!   blocks (proof type 1).
//! - `historical_summaries: List[HistoricalSummary, HISTORICAL_ROOTS_LIMIT]`: from Capella on, one
//!   `HistoricalSummary{block_summary_root: hash_tree_root(block_roots), state_summary_root}` per 8192 slots.
//!   It grows every period, so it is never embedded: [`HistoricalSummaries`] is what a caller took from a beacon
//!   state it trusts (a verified era file's, a beacon node's) and anchors proofs of type 2 and 3 up to that
//!   state's slot.

use super::error::AnchorError;
use crate::consensus::ssz::{hash_tree_root, ErrorKind, SszError};
use crate::consensus::types::{HISTORICAL_ROOTS, HISTORICAL_ROOTS_LIMIT, HISTORICAL_SUMMARIES};
use crate::consensus::{BeaconState, Fork};
use crate::network::Network;

/// Slots per `historical_roots` / `historical_summaries` entry (`SLOTS_PER_HISTORICAL_ROOT`).
pub const PERIOD_SLOTS: u64 = 8192;

/// Mainnet's `historical_roots`, SSZ-encoded (758 roots, no length prefix: a list's serialization).
static MAINNET_SSZ: &[u8] = include_bytes!("mainnet/historical_roots.ssz");

/// A beacon state's frozen `historical_roots` (zero-copy over its SSZ).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistoricalRoots<'a> {
    roots: &'a [[u8; 32]],
}

impl<'a> HistoricalRoots<'a> {
    /// Reads the SSZ of `historical_roots` (`List[Root, 2^24]`: 32 bytes per root).
    pub fn from_ssz(bytes: &'a [u8]) -> Result<Self, AnchorError> {
        let ssz_err = |source| AnchorError::Ssz {
            what: "historical_roots",
            source,
        };
        let (roots, rest) = bytes.as_chunks::<32>();
        if !rest.is_empty() {
            return Err(ssz_err(SszError::new(ErrorKind::NotMultiple {
                ty: HISTORICAL_ROOTS.describe(),
                elem_size: 32,
                found: bytes.len(),
            })));
        }
        if roots.len() as u64 > HISTORICAL_ROOTS_LIMIT {
            return Err(ssz_err(SszError::new(ErrorKind::TooMany {
                ty: HISTORICAL_ROOTS.describe(),
                limit: HISTORICAL_ROOTS_LIMIT,
                found: roots.len() as u64,
            })));
        }
        Ok(HistoricalRoots { roots })
    }

    /// Entry `index`: the historical batch root of slots `index * 8192 ..`.
    pub fn get(&self, index: u64) -> Option<&'a [u8; 32]> {
        self.roots.get(usize::try_from(index).ok()?)
    }

    /// Number of roots (758 on mainnet).
    pub fn len(&self) -> u64 {
        self.roots.len() as u64
    }

    /// True when there are no roots.
    pub fn is_empty(&self) -> bool {
        self.roots.is_empty()
    }

    /// hash_tree_root of the list (what a Capella-or-later state's `historical_roots` field hashes to).
    pub fn root(&self) -> [u8; 32] {
        hash_tree_root(&HISTORICAL_ROOTS, self.roots.as_flattened()).unwrap_or_default()
    }
}

impl HistoricalRoots<'static> {
    /// Mainnet's, embedded in the binary.
    pub fn mainnet() -> Self {
        HistoricalRoots {
            roots: MAINNET_SSZ.as_chunks::<32>().0,
        }
    }

    /// The embedded roots of `network` (mainnet only, recognised by chain id and genesis hash).
    pub fn of(network: &Network) -> Option<Self> {
        super::anchor::is_mainnet(network).then(Self::mainnet)
    }
}

/// `historical_summaries` of a beacon state at a known slot: the anchor of Capella-and-later proofs, for the
/// periods completed before that slot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoricalSummaries {
    state_slot: u64,
    capella_slot: u64,
    /// The list's SSZ: `block_summary_root || state_summary_root` per entry.
    bytes: Vec<u8>,
}

impl HistoricalSummaries {
    /// Reads the SSZ of `historical_summaries` taken from `network`'s beacon state at `state_slot`. The count
    /// must be the number of periods completed by then (`(state_slot - capella_slot) / 8192`), so summaries
    /// labelled with the wrong slot are refused rather than trusted for slots they do not cover.
    pub fn from_ssz(network: &Network, state_slot: u64, bytes: &[u8]) -> Result<Self, AnchorError> {
        let capella_slot = Fork::Capella.activation_slot(network).unwrap_or(u64::MAX);
        if state_slot < capella_slot {
            return Err(AnchorError::BeforeCapella {
                state_slot,
                capella_slot,
            });
        }
        if !bytes.len().is_multiple_of(64) || (bytes.len() / 64) as u64 > HISTORICAL_ROOTS_LIMIT {
            // The walker names the fault (length not a multiple of 64, or too many entries).
            let source = hash_tree_root(&HISTORICAL_SUMMARIES, bytes)
                .err()
                .unwrap_or_else(|| {
                    SszError::new(ErrorKind::NotMultiple {
                        ty: HISTORICAL_SUMMARIES.describe(),
                        elem_size: 64,
                        found: bytes.len(),
                    })
                });
            return Err(AnchorError::Ssz {
                what: "historical_summaries",
                source,
            });
        }
        let expected = (state_slot - capella_slot) / PERIOD_SLOTS;
        let found = (bytes.len() / 64) as u64;
        if found != expected {
            return Err(AnchorError::Count {
                state_slot,
                capella_slot,
                expected,
                found,
            });
        }
        Ok(HistoricalSummaries {
            state_slot,
            capella_slot,
            bytes: bytes.to_vec(),
        })
    }

    /// The `historical_summaries` of a (Capella or later) beacon state, at its slot. Only as trusted as the
    /// state: anchor the state first (its root against a trusted one, or an era file verified against such).
    pub fn from_state(network: &Network, state: &BeaconState<'_>) -> Result<Self, AnchorError> {
        let bytes = state.field("historical_summaries").unwrap_or_default();
        Self::from_ssz(network, state.slot(), bytes)
    }

    /// The slot of the state the summaries come from.
    pub fn state_slot(&self) -> u64 {
        self.state_slot
    }

    /// Number of summaries.
    pub fn len(&self) -> u64 {
        (self.bytes.len() / 64) as u64
    }

    /// True when the state is in Capella's first period (no summary yet).
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The first slot these summaries do not cover (the start of the state's own, unfinished, period).
    pub fn covered_until(&self) -> u64 {
        self.capella_slot + self.len() * PERIOD_SLOTS
    }

    /// The index of the summary holding `slot` (`None` before Capella or past [`covered_until`](Self::covered_until)).
    pub fn index_of(&self, slot: u64) -> Option<u64> {
        let i = slot.checked_sub(self.capella_slot)? / PERIOD_SLOTS;
        (i < self.len()).then_some(i)
    }

    /// `block_summary_root` of summary `index`: `hash_tree_root(block_roots)` of that period.
    pub fn block_summary_root(&self, index: u64) -> Option<[u8; 32]> {
        let at = usize::try_from(index).ok()?.checked_mul(64)?;
        self.bytes.get(at..at + 32)?.try_into().ok()
    }

    /// hash_tree_root of the list (the state's `historical_summaries` field root).
    pub fn root(&self) -> [u8; 32] {
        hash_tree_root(&HISTORICAL_SUMMARIES, &self.bytes).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_mainnet_historical_roots() {
        let r = HistoricalRoots::mainnet();
        assert_eq!(r.len(), 758);
        assert_eq!(HistoricalRoots::from_ssz(MAINNET_SSZ).unwrap(), r);
        // The root ethereum/trin asserts for the same list (crates/validation/src/historical_roots_acc.rs).
        assert_eq!(
            hex::encode(r.root()),
            "4df6b89755125d4f6c5575039a04e22301a5a49ee893c1d27e559e3eeab73da7"
        );
        assert!(HistoricalRoots::of(&Network::by_name("sepolia").unwrap()).is_none());
        let e = HistoricalRoots::from_ssz(&MAINNET_SSZ[..33]).unwrap_err();
        assert!(e.to_string().contains("not a multiple"), "{e}");
    }

    fn mainnet() -> Network {
        Network::by_name("mainnet").unwrap()
    }

    #[test]
    fn summaries_count_must_match_their_slot() {
        let n = mainnet();
        let capella = 194048 * 32;
        let two = vec![5u8; 128];
        let s = HistoricalSummaries::from_ssz(&n, capella + 2 * 8192 + 5, &two).unwrap();
        assert_eq!((s.len(), s.covered_until()), (2, capella + 2 * 8192));
        assert_eq!(s.index_of(capella), Some(0));
        assert_eq!(s.index_of(capella + 8192 * 2 - 1), Some(1));
        assert_eq!(s.index_of(capella + 8192 * 2), None);
        assert_eq!(s.index_of(capella - 1), None);
        assert_eq!(s.block_summary_root(1), Some([5u8; 32]));
        assert_eq!(s.block_summary_root(2), None);
        let e = HistoricalSummaries::from_ssz(&n, capella + 3 * 8192, &two).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("historical summaries of slot {}: expected 3 entries (one per 8192 slots since Capella's slot {capella}), found 2", capella + 3 * 8192)
        );
        let e = HistoricalSummaries::from_ssz(&n, capella - 1, &[]).unwrap_err();
        assert!(matches!(e, AnchorError::BeforeCapella { .. }), "{e}");
        let e = HistoricalSummaries::from_ssz(&n, capella + 2 * 8192, &two[..100]).unwrap_err();
        assert!(e.to_string().contains("historical_summaries: "), "{e}");
        assert_eq!(
            HistoricalSummaries::from_ssz(&n, capella, &[])
                .unwrap()
                .covered_until(),
            capella
        );
    }
}
