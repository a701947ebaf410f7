//! Anchors: the trusted roots a proof must reach, and the report of which one it reached.

use crate::network::Network;
use std::fmt;

/// Mainnet's chain id and genesis hash: what the embedded anchors belong to.
const MAINNET_CHAIN_ID: u64 = 1;
pub(super) const MAINNET_GENESIS: &str =
    "0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3";

/// Whether `network` is mainnet: by chain id and genesis hash, not by name (a custom preset may call itself
/// anything).
pub(crate) fn is_mainnet(network: &Network) -> bool {
    network.chain_id == MAINNET_CHAIN_ID && network.genesis_hash == MAINNET_GENESIS
}

/// Which trusted root proved a block (or an era1 file) canonical.
///
/// Displayed as `accumulator`, `historical_roots` or `historical_summaries@<state slot>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Anchor {
    /// Pre-merge: the epoch record root of `era` in the historical hashes accumulator (EIP-7643).
    Accumulator {
        /// The block's (or file's) era.
        era: u64,
    },
    /// Merge to Capella: `historical_roots[index]` of the beacon state, frozen since Capella.
    HistoricalRoots {
        /// `slot / 8192` of the beacon block.
        index: u64,
    },
    /// Capella on: `historical_summaries[index].block_summary_root` of the beacon state at `state_slot`.
    HistoricalSummaries {
        /// The slot of the state the summaries were taken from.
        state_slot: u64,
        /// `(slot - capella_slot) / 8192` of the beacon block.
        index: u64,
    },
}

impl fmt::Display for Anchor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Anchor::Accumulator { .. } => f.write_str("accumulator"),
            Anchor::HistoricalRoots { .. } => f.write_str("historical_roots"),
            Anchor::HistoricalSummaries { state_slot, .. } => {
                write!(f, "historical_summaries@{state_slot}")
            }
        }
    }
}

/// A block or file proven canonical: by which anchor, and the trusted root that was reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Proven {
    /// The anchor.
    pub anchor: Anchor,
    /// The trusted root the proof reached (the accumulator entry, the historical root, the block summary root).
    pub root: [u8; 32],
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_display_as_the_report_names_them() {
        assert_eq!(Anchor::Accumulator { era: 3 }.to_string(), "accumulator");
        assert_eq!(
            Anchor::HistoricalRoots { index: 600 }.to_string(),
            "historical_roots"
        );
        assert_eq!(
            Anchor::HistoricalSummaries {
                state_slot: 11476992,
                index: 7
            }
            .to_string(),
            "historical_summaries@11476992"
        );
    }
}
