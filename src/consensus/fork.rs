//! Which fork's containers a block or state uses, from its slot and the network's fork epochs.
//!
//! Spec fact: a fork activates at the first slot of its `*_FORK_EPOCH` (configs/mainnet.yaml), and
//! `compute_epoch_at_slot(slot) = slot // SLOTS_PER_EPOCH`, with the network preset's `SLOTS_PER_EPOCH` (32 on
//! mainnet, 16 on gnosis).
//!
//! Config: <https://github.com/ethereum/consensus-specs/blob/master/configs/mainnet.yaml>; `compute_epoch_at_slot`:
//! <https://github.com/ethereum/consensus-specs/blob/master/specs/phase0/beacon-chain.md#compute_epoch_at_slot>.

use crate::network::Network;
use std::fmt;
use std::str::FromStr;

/// A consensus fork whose containers differ from its predecessor's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Fork {
    /// Genesis containers.
    Phase0,
    /// Sync committees, participation flags, inactivity scores.
    Altair,
    /// The merge: execution payloads.
    Bellatrix,
    /// Withdrawals, BLS-to-execution changes, historical summaries.
    Capella,
    /// Blobs: KZG commitments, blob gas fields.
    Deneb,
    /// Execution requests, pending deposits/withdrawals/consolidations, committee bits.
    Electra,
    /// Proposer lookahead in the state; blocks as in Electra.
    Fulu,
    /// Enshrined proposer-builder separation (EIP-7732): blocks carry a bid and payload attestations instead of
    /// the payload, the state the builders; progressive containers and lists (EIP-7688).
    Gloas,
}

/// Every fork before Gloas, oldest first (the forks whose blocks carry execution payloads from Bellatrix on).
pub const ALL_FORKS: [Fork; 7] = [
    Fork::Phase0,
    Fork::Altair,
    Fork::Bellatrix,
    Fork::Capella,
    Fork::Deneb,
    Fork::Electra,
    Fork::Fulu,
];

impl Fork {
    /// The fork in force at `slot` on `network` (epochs of its preset's `SLOTS_PER_EPOCH`).
    pub fn at_slot(slot: u64, network: &Network) -> Fork {
        Self::at_epoch(slot / network.slots_per_epoch(), network)
    }

    /// The fork in force at `epoch` on `network`.
    pub fn at_epoch(epoch: u64, network: &Network) -> Fork {
        let c = &network.consensus;
        if c.gloas_epoch.is_some_and(|g| epoch >= g) {
            Fork::Gloas
        } else if epoch >= c.fulu_epoch {
            Fork::Fulu
        } else if epoch >= c.electra_epoch {
            Fork::Electra
        } else if epoch >= c.deneb_epoch {
            Fork::Deneb
        } else if epoch >= c.capella_epoch {
            Fork::Capella
        } else if epoch >= c.bellatrix_epoch {
            Fork::Bellatrix
        } else if epoch >= c.altair_epoch {
            Fork::Altair
        } else {
            Fork::Phase0
        }
    }

    /// The epoch at which this fork activates on `network` (`u64::MAX` = never scheduled).
    pub fn activation_epoch(self, network: &Network) -> u64 {
        let c = &network.consensus;
        match self {
            Fork::Phase0 => 0,
            Fork::Altair => c.altair_epoch,
            Fork::Bellatrix => c.bellatrix_epoch,
            Fork::Capella => c.capella_epoch,
            Fork::Deneb => c.deneb_epoch,
            Fork::Electra => c.electra_epoch,
            Fork::Fulu => c.fulu_epoch,
            Fork::Gloas => c.gloas_epoch.unwrap_or(u64::MAX),
        }
    }

    /// The first slot of this fork on `network` (`None` if never scheduled or beyond u64 slots).
    pub fn activation_slot(self, network: &Network) -> Option<u64> {
        self.activation_epoch(network)
            .checked_mul(network.slots_per_epoch())
    }

    /// Lower-case spec name (`phase0`, ..., `fulu`), as used in `--fork` and file names.
    pub fn name(self) -> &'static str {
        match self {
            Fork::Phase0 => "phase0",
            Fork::Altair => "altair",
            Fork::Bellatrix => "bellatrix",
            Fork::Capella => "capella",
            Fork::Deneb => "deneb",
            Fork::Electra => "electra",
            Fork::Fulu => "fulu",
            Fork::Gloas => "gloas",
        }
    }
}

impl fmt::Display for Fork {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Every fork whose containers are defined, oldest first: [`ALL_FORKS`] and Gloas.
pub const KNOWN_FORKS: [Fork; 8] = [
    Fork::Phase0,
    Fork::Altair,
    Fork::Bellatrix,
    Fork::Capella,
    Fork::Deneb,
    Fork::Electra,
    Fork::Fulu,
    Fork::Gloas,
];

/// A fork name that is not one of [`KNOWN_FORKS`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown fork '{0}': expected one of phase0, altair, bellatrix, capella, deneb, electra, fulu, gloas"
)]
pub struct UnknownFork(pub String);

impl FromStr for Fork {
    type Err = UnknownFork;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        KNOWN_FORKS
            .iter()
            .copied()
            .find(|f| f.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| UnknownFork(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mainnet_fork_boundaries() {
        let n = Network::by_name("mainnet").unwrap();
        assert_eq!(Fork::at_slot(0, &n), Fork::Phase0);
        assert_eq!(Fork::at_slot(74240 * 32 - 1, &n), Fork::Phase0);
        assert_eq!(Fork::at_slot(74240 * 32, &n), Fork::Altair);
        assert_eq!(Fork::at_slot(4700013, &n), Fork::Bellatrix);
        assert_eq!(Fork::at_slot(6209538, &n), Fork::Capella);
        assert_eq!(Fork::at_slot(8626176, &n), Fork::Deneb);
        assert_eq!(Fork::at_slot(364032 * 32, &n), Fork::Electra);
        assert_eq!(Fork::at_slot(411392 * 32, &n), Fork::Fulu);
        // 16-slot epochs: gnosis's capella epoch 648704 starts at slot 648704 * 16.
        let g = Network::by_name("gnosis").unwrap();
        assert_eq!(Fork::at_slot(648704 * 16 - 1, &g), Fork::Bellatrix);
        assert_eq!(Fork::at_slot(648704 * 16, &g), Fork::Capella);
        assert_eq!(Fork::Capella.activation_slot(&g), Some(648704 * 16));
    }

    #[test]
    fn names_round_trip() {
        for f in ALL_FORKS {
            assert_eq!(f.name().parse::<Fork>().unwrap(), f);
        }
        assert!("merge"
            .parse::<Fork>()
            .unwrap_err()
            .to_string()
            .contains("bellatrix"));
    }
}
