//! The trusted roots a run checks proofs against ([`Anchors`]): what is embedded for a network, plus historical
//! summaries read from an era state.

use super::accumulator::HistoricalHashesAccumulator;
use super::beacon::{HistoricalRoots, HistoricalSummaries};
use crate::network::Network;

/// The trusted roots proofs are checked against; a missing one makes proofs that need it
/// [unanchored](super::NotProven::is_unanchored), not failed.
#[derive(Debug, Clone, Copy, Default)]
pub struct Anchors<'a> {
    /// Pre-merge blocks (proof type 0).
    pub accumulator: Option<HistoricalHashesAccumulator<'a>>,
    /// Bellatrix blocks (proof type 1).
    pub historical_roots: Option<HistoricalRoots<'a>>,
    /// Capella and later blocks (proof types 2 and 3), up to the summaries' slot.
    pub historical_summaries: Option<&'a HistoricalSummaries>,
}

impl Anchors<'static> {
    /// What is embedded for `network`: mainnet's accumulator and `historical_roots`; nothing for other
    /// networks. No historical summaries (add them with [`with_summaries`](Anchors::with_summaries)).
    pub fn embedded(network: &Network) -> Self {
        Anchors {
            accumulator: HistoricalHashesAccumulator::of(network),
            historical_roots: HistoricalRoots::of(network),
            historical_summaries: None,
        }
    }
}

impl<'a> Anchors<'a> {
    /// The same anchors with `summaries` for Capella-and-later proofs.
    pub fn with_summaries(self, summaries: &'a HistoricalSummaries) -> Anchors<'a> {
        Anchors {
            historical_summaries: Some(summaries),
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_mainnet_has_embedded_anchors() {
        let m = Anchors::embedded(&Network::by_name("mainnet").unwrap());
        assert!(m.accumulator.is_some() && m.historical_roots.is_some());
        let s = Anchors::embedded(&Network::by_name("sepolia").unwrap());
        assert!(s.accumulator.is_none() && s.historical_roots.is_none());
        assert_eq!(
            super::super::anchor::MAINNET_GENESIS,
            Network::by_name("mainnet").unwrap().genesis_hash
        );
    }
}
