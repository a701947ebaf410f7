//! Presets: which sizes a network's containers have ([`Preset`]); the schema a block or state of a given fork
//! on such a network is read with is its [`Spec`](super::spec::Spec).
//!
//! Spec facts: consensus-specs separates *presets* (compile-time values that shape SSZ types, such as
//! `SLOTS_PER_EPOCH` and `MAX_WITHDRAWALS_PER_PAYLOAD`) from *configs* (fork epochs, `SECONDS_PER_SLOT`); a
//! network's config names its preset in `PRESET_BASE`. Mainnet, sepolia, holesky and hoodi use `mainnet`;
//! gnosis and chiado use `gnosis` (gnosischain/configs `*/config.yaml`,
//! <https://github.com/gnosischain/configs>), whose type-shaping differences are listed in [`super::types`].
//! `SLOTS_PER_HISTORICAL_ROOT` is 8192 in both, so an era is 8192 slots everywhere.

use super::types::{gnosis, mainnet};
use std::fmt;

/// A consensus-specs preset: the values that size a network's SSZ containers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Preset {
    /// `presets/mainnet`: 32-slot epochs, 16 withdrawals per payload.
    #[default]
    Mainnet,
    /// gnosischain/specs `consensus/preset/gnosis`: 16-slot epochs, 8 withdrawals per payload.
    Gnosis,
}

impl Preset {
    /// Lower-case name, as `PRESET_BASE` and network files spell it.
    pub fn name(self) -> &'static str {
        match self {
            Preset::Mainnet => "mainnet",
            Preset::Gnosis => "gnosis",
        }
    }

    /// `SLOTS_PER_EPOCH`.
    pub fn slots_per_epoch(self) -> u64 {
        match self {
            Preset::Mainnet => mainnet::SLOTS_PER_EPOCH,
            Preset::Gnosis => gnosis::SLOTS_PER_EPOCH,
        }
    }

    /// `MAX_WITHDRAWALS_PER_PAYLOAD` (capella on).
    pub fn max_withdrawals_per_payload(self) -> u64 {
        match self {
            Preset::Mainnet => mainnet::MAX_WITHDRAWALS_PER_PAYLOAD,
            Preset::Gnosis => gnosis::MAX_WITHDRAWALS_PER_PAYLOAD,
        }
    }
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
