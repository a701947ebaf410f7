//! The schema a serialized block or state is read with: its fork and its network's preset ([`Spec`]).

use super::fork::Fork;
use super::preset::Preset;
use super::ssz::Container;
use super::types::{gnosis, mainnet};
use std::fmt;

/// The schema a serialized block or state is read with: its fork and its network's preset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Spec {
    /// The fork whose containers apply.
    pub fork: Fork,
    /// The preset that sizes them.
    pub preset: Preset,
}

macro_rules! by_fork {
    ($self:ident, $m:ident, $phase0:ident, $altair:ident, $bellatrix:ident, $capella:ident, $deneb:ident, $electra:ident, $fulu:ident, $gloas:ident) => {
        match $self.fork {
            Fork::Phase0 => &$m::$phase0,
            Fork::Altair => &$m::$altair,
            Fork::Bellatrix => &$m::$bellatrix,
            Fork::Capella => &$m::$capella,
            Fork::Deneb => &$m::$deneb,
            Fork::Electra => &$m::$electra,
            Fork::Fulu => &$m::$fulu,
            Fork::Gloas => &$m::$gloas,
        }
    };
}

macro_rules! schema {
    ($self:ident, $($names:ident),*) => {
        match $self.preset {
            Preset::Mainnet => by_fork!($self, mainnet, $($names),*),
            Preset::Gnosis => by_fork!($self, gnosis, $($names),*),
        }
    };
}

impl Spec {
    /// `fork` under `preset`.
    pub const fn new(fork: Fork, preset: Preset) -> Spec {
        Spec { fork, preset }
    }

    /// `fork` under the mainnet preset (mainnet itself, its testnets, and the Portal proofs of mainnet blocks).
    pub const fn mainnet(fork: Fork) -> Spec {
        Spec::new(fork, Preset::Mainnet)
    }

    /// The spec in force at `slot` on `network`.
    pub fn at_slot(slot: u64, network: &crate::network::Network) -> Spec {
        Spec::new(Fork::at_slot(slot, network), network.preset())
    }

    /// The `BeaconState` schema.
    pub fn state_schema(self) -> &'static Container {
        schema!(
            self,
            BEACON_STATE_PHASE0,
            BEACON_STATE_ALTAIR,
            BEACON_STATE_BELLATRIX,
            BEACON_STATE_CAPELLA,
            BEACON_STATE_DENEB,
            BEACON_STATE_ELECTRA,
            BEACON_STATE_FULU,
            BEACON_STATE_GLOAS
        )
    }

    /// The `BeaconBlock` schema (Fulu did not change blocks).
    pub fn block_schema(self) -> &'static Container {
        schema!(
            self,
            BEACON_BLOCK_PHASE0,
            BEACON_BLOCK_ALTAIR,
            BEACON_BLOCK_BELLATRIX,
            BEACON_BLOCK_CAPELLA,
            BEACON_BLOCK_DENEB,
            BEACON_BLOCK_ELECTRA,
            BEACON_BLOCK_ELECTRA,
            BEACON_BLOCK_GLOAS
        )
    }

    /// The `SignedBeaconBlock` schema.
    pub fn signed_block_schema(self) -> &'static Container {
        schema!(
            self,
            SIGNED_BEACON_BLOCK_PHASE0,
            SIGNED_BEACON_BLOCK_ALTAIR,
            SIGNED_BEACON_BLOCK_BELLATRIX,
            SIGNED_BEACON_BLOCK_CAPELLA,
            SIGNED_BEACON_BLOCK_DENEB,
            SIGNED_BEACON_BLOCK_ELECTRA,
            SIGNED_BEACON_BLOCK_ELECTRA,
            SIGNED_BEACON_BLOCK_GLOAS
        )
    }
}

impl fmt::Display for Spec {
    /// The fork's name, with the preset when it is not mainnet (`capella`, `capella/gnosis`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.preset {
            Preset::Mainnet => write!(f, "{}", self.fork),
            p => write!(f, "{}/{p}", self.fork),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::consensus::ALL_FORKS;

    #[test]
    fn presets_differ_exactly_where_their_values_shape_types() {
        for fork in ALL_FORKS {
            let (m, g) = (Spec::mainnet(fork), Spec::new(fork, Preset::Gnosis));
            // Every state holds eth1_data_votes, whose limit is 64 * SLOTS_PER_EPOCH.
            assert!(!std::ptr::eq(m.state_schema(), g.state_schema()));
            assert_eq!(m.state_schema().fields.len(), g.state_schema().fields.len());
            // Blocks differ from capella on (the payload's withdrawals limit).
            let same = fork < Fork::Capella;
            let fixed = |c: &Container| format!("{:?}", c).len();
            assert_eq!(
                fixed(m.block_schema()) == fixed(g.block_schema()),
                same,
                "{fork}"
            );
        }
        assert_eq!(Preset::Gnosis.slots_per_epoch(), 16);
        assert_eq!(Preset::Gnosis.max_withdrawals_per_payload(), 8);
        assert_eq!(
            Spec::new(Fork::Deneb, Preset::Gnosis).to_string(),
            "deneb/gnosis"
        );
    }
}
