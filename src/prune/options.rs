//! What `eraflow prune` is asked to build: the block range, network, extra outputs and memory budget.

use crate::network::Network;

/// Default in-memory budget of the hash sort: 256 MiB (8 M hashes per run; ~210 runs for mainnet). The value
/// jobs use is `[prune] memory_budget` of `configs/default.toml` ([`PruneOptions::default`] reads it); a test
/// keeps this constant equal to it.
pub const DEFAULT_MEMORY_BUDGET: usize = 256 << 20;

/// EIP-4444's `HISTORY_PRUNE_EPOCHS`: the epochs of history clients keep (~4.8 months on mainnet).
pub const HISTORY_PRUNE_EPOCHS: u64 = 33_024;

/// How much recent history the node keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Window {
    /// The blocks of the last N epochs (by slot, from the newest block's).
    Epochs(u64),
    /// The last N blocks.
    Blocks(u64),
}

/// Which list files to write besides the binary ones (which are always written: `prune check` and nodes use them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputFormat {
    /// Binary lists only.
    #[default]
    Binary,
    /// Binary lists plus `block_hashes.txt` and `tx_hashes.txt` for scripts.
    Text,
}

impl std::str::FromStr for OutputFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "binary" => Ok(OutputFormat::Binary),
            "text" => Ok(OutputFormat::Text),
            other => Err(format!("unknown prune format '{other}': binary or text")),
        }
    }
}

/// How to build a manifest.
#[derive(Debug, Clone)]
pub struct PruneOptions {
    /// Network preset; `None` takes it from the file names (which must all agree).
    pub network: Option<Network>,
    /// First block to include; default the first block of the inputs.
    pub from_block: Option<u64>,
    /// Exclusive end: blocks `< until_block` are included. Default: the end of the inputs, which must not reach
    /// the network's first proof-of-stake block (only an explicit `until_block` may go past it).
    pub until_block: Option<u64>,
    /// Cut the range where a rolling window of recent history begins (exclusive with `until_block`): the
    /// manifest lists every block older than the window, counted back from the newest input block.
    pub window: Option<Window>,
    /// Record uncovered ranges as gaps instead of refusing.
    pub allow_gaps: bool,
    /// Extra text outputs.
    pub format: OutputFormat,
    /// Bytes of hashes the sort may hold in memory before spilling a run.
    pub memory_budget: usize,
    /// Build every list again even where an earlier manifest at the destination could be extended.
    pub from_scratch: bool,
}

impl Default for PruneOptions {
    /// The `[prune]` format, memory budget and gap policy of `configs/default.toml` (the one place defaults
    /// live); no network or range.
    fn default() -> Self {
        #[derive(serde::Deserialize)]
        struct Defaults {
            prune: Prune,
        }
        #[derive(serde::Deserialize)]
        struct Prune {
            format: String,
            memory_budget: usize,
            allow_gaps: bool,
        }
        let d: Defaults = toml::from_str(include_str!("../../configs/default.toml"))
            .expect("configs/default.toml is embedded and tested");
        PruneOptions {
            network: None,
            from_block: None,
            until_block: None,
            window: None,
            allow_gaps: d.prune.allow_gaps,
            format: d.prune.format.parse().unwrap_or_default(),
            memory_budget: d.prune.memory_budget,
            from_scratch: false,
        }
    }
}

impl Window {
    /// The window in words, for messages.
    pub fn describe(self) -> String {
        match self {
            Window::Epochs(n) => format!("the last {n} epochs"),
            Window::Blocks(n) => format!("the last {n} blocks"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_embedded_configs() {
        let d = PruneOptions::default();
        assert_eq!(d.memory_budget, DEFAULT_MEMORY_BUDGET);
        assert_eq!(d.format, OutputFormat::Binary);
        assert!(!d.allow_gaps);
        assert!(
            d.network.is_none()
                && d.from_block.is_none()
                && d.until_block.is_none()
                && d.window.is_none()
        );
    }
}
