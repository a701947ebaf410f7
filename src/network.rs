//! Network presets: chain id, fork blocks, the merge, consensus fork epochs, the signature algorithm.
//!
//! Presets live in `configs/networks/*.toml` and are embedded into the binary at build time, so eraflow runs
//! anywhere without its source tree; `Network::from_file` loads a custom one (a private network).

use crate::consensus::preset::Preset;
use serde::Deserialize;
use std::path::Path;

/// Execution-layer fork blocks that change how eraflow decodes or verifies data.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ForkBlocks {
    /// [EIP-2](https://eips.ethereum.org/EIPS/eip-2): signatures with high `s` are invalid from here on (older ones
    /// must still recover).
    pub homestead: u64,
    /// [EIP-155](https://eips.ethereum.org/EIPS/eip-155): replay-protected legacy signatures become possible.
    pub spurious_dragon: u64,
    /// [EIP-658](https://eips.ethereum.org/EIPS/eip-658): receipts carry a status byte instead of an intermediate state
    /// root.
    pub byzantium: u64,
    /// [EIP-2718](https://eips.ethereum.org/EIPS/eip-2718)/2930: typed transactions.
    pub berlin: u64,
    /// [EIP-1559](https://eips.ethereum.org/EIPS/eip-1559): headers gain `base_fee_per_gas`.
    pub london: u64,
    /// Shanghai, by block timestamp (unix seconds, geth's `shanghaiTime`): bodies carry withdrawals and headers
    /// `withdrawals_root` ([EIP-4895](https://eips.ethereum.org/EIPS/eip-4895)). Absent: not scheduled.
    #[serde(default)]
    pub shanghai_time: Option<u64>,
    /// Cancun, by block timestamp (geth's `cancunTime`): blob transactions (type 3) and the header's
    /// `blob_gas_used`, `excess_blob_gas` ([EIP-4844](https://eips.ethereum.org/EIPS/eip-4844)) and
    /// `parent_beacon_block_root` ([EIP-4788](https://eips.ethereum.org/EIPS/eip-4788)). Absent: not scheduled.
    #[serde(default)]
    pub cancun_time: Option<u64>,
    /// Prague, by block timestamp (geth's `pragueTime`): set-code transactions (type 4,
    /// [EIP-7702](https://eips.ethereum.org/EIPS/eip-7702)) and the header's `requests_hash`
    /// ([EIP-7685](https://eips.ethereum.org/EIPS/eip-7685)). Absent: not scheduled.
    #[serde(default)]
    pub prague_time: Option<u64>,
    /// Amsterdam, by block timestamp (geth's `amsterdamTime`; the execution half of Glamsterdam, beside the
    /// consensus layer's Gloas): the header's `block_access_list_hash`
    /// ([EIP-7928](https://eips.ethereum.org/EIPS/eip-7928)) and `slot_number`
    /// ([EIP-7843](https://eips.ethereum.org/EIPS/eip-7843)), ETH transfers that emit logs
    /// ([EIP-7708](https://eips.ethereum.org/EIPS/eip-7708)), and a header `gas_used` counted before refunds
    /// ([EIP-7778](https://eips.ethereum.org/EIPS/eip-7778), [EIP-8037](https://eips.ethereum.org/EIPS/eip-8037)).
    /// Absent: not scheduled.
    #[serde(default)]
    pub amsterdam_time: Option<u64>,
}

/// Consensus-layer facts needed to read era files.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ConsensusConfig {
    /// Hex root naming era 0 files (`<network>-00000-<hash8>.era`): `0x` and 64 hex digits, lower-cased when
    /// the preset is loaded.
    pub genesis_validators_root: String,
    /// The consensus-specs preset the network's config names in `PRESET_BASE` (`mainnet` or `gnosis`): it
    /// sizes the SSZ containers (`SLOTS_PER_EPOCH`, `MAX_WITHDRAWALS_PER_PAYLOAD`, see
    /// [`crate::consensus::types`]). Absent: `mainnet`.
    #[serde(default)]
    pub preset: Preset,
    /// `SECONDS_PER_SLOT` (a config value): payload timestamps are `genesis_time + slot * seconds_per_slot`.
    /// Absent: 12.
    #[serde(default = "default_seconds_per_slot")]
    pub seconds_per_slot: u64,
    /// Epoch at which Altair activates (sync committees): from slot `epoch * SLOTS_PER_EPOCH` on.
    pub altair_epoch: u64,
    /// Epoch at which Bellatrix activates (execution payloads in blocks).
    pub bellatrix_epoch: u64,
    /// Epoch at which Capella activates (withdrawals, historical summaries).
    pub capella_epoch: u64,
    /// Epoch at which Deneb activates (blob KZG commitments).
    pub deneb_epoch: u64,
    /// Epoch at which Electra activates (execution requests).
    pub electra_epoch: u64,
    /// Epoch at which Fulu activates (proposer lookahead). `18446744073709551615` (`FAR_FUTURE_EPOCH`): not
    /// scheduled.
    pub fulu_epoch: u64,
    /// Epoch at which Gloas ([EIP-7732](https://eips.ethereum.org/EIPS/eip-7732)) activates; absent: not
    /// scheduled. From it on era files hold bids instead of payloads (see `docs/reliability.md`, "Networks,
    /// presets and Gloas").
    #[serde(default)]
    pub gloas_epoch: Option<u64>,
}

fn default_seconds_per_slot() -> u64 {
    12
}

/// The consensus engine that sealed a network's pre-merge execution headers: it decides what the header's
/// last two fields before `base_fee_per_gas` hold.
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum PreMergeSeal {
    /// Proof of work: `mix_hash` (32 bytes) and `nonce` (8 bytes).
    #[default]
    Ethash,
    /// Authority round (gnosis, chiado): `aura_step` (an integer) and `aura_seal` (a 65-byte signature).
    Aura,
}

/// One network preset, as read from `configs/networks/<name>.toml`. Unknown keys are refused (a misspelt
/// `signature_algoritm` must not silently leave the default in force), and the hex and name fields are checked
/// when the preset is loaded, so a bad preset is a usage error before any file is read.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Network {
    /// Preset name (`mainnet`, `sepolia`, ...): the `<network>` part of archive and output file names.
    pub name: String,
    /// Execution chain id ([EIP-155](https://eips.ethereum.org/EIPS/eip-155)); written to the `chain_id`
    /// columns.
    pub chain_id: u64,
    /// Hex hash of block 0 (`0x` and 64 hex digits, lower-cased when loaded); checked when an archive starts
    /// at genesis, unless it is all zeros (a private network that does not pin its genesis).
    pub genesis_hash: String,
    /// The first proof-of-stake block: everything before it is pre-merge history (era1 territory).
    pub first_pos_block: u64,
    /// `secp256k1` or `secp256r1`.
    #[serde(default = "default_signature_algorithm")]
    pub signature_algorithm: String,
    /// How pre-merge headers are sealed: `ethash` (default) or `aura`.
    #[serde(default)]
    pub pre_merge_seal: PreMergeSeal,
    /// Execution-layer fork blocks (the `[forks]` table).
    pub forks: ForkBlocks,
    /// Consensus-layer facts for era files (the `[consensus]` table).
    pub consensus: ConsensusConfig,
}

fn default_signature_algorithm() -> String {
    "secp256k1".into()
}

/// Why a network preset could not be had.
#[derive(Debug, thiserror::Error)]
pub enum NetworkError {
    /// No embedded preset has this name (and it does not end in `.toml`, so it is not taken as a path).
    #[error("unknown network '{0}': known networks are {known}; or pass a preset file", known = PRESETS.iter().map(|p| p.0).collect::<Vec<_>>().join(", "))]
    Unknown(String),
    /// A preset file could not be read.
    #[error("network preset {path}: {source}")]
    Io {
        /// The file as given.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// A preset's TOML does not parse, lacks a key or has one eraflow does not know.
    #[error("network preset {path}: {message}")]
    Parse {
        /// The file as given, or `<embedded NAME>` for a built-in preset.
        path: String,
        /// The TOML parser's message (it names the line and key).
        message: String,
    },
    /// A preset's value is unusable (a hash that is not 32 hex bytes, an unknown signature algorithm).
    #[error("network preset {path}: {key} = \"{value}\": {message}")]
    Invalid {
        /// The file as given, or `<embedded NAME>` for a built-in preset.
        path: String,
        /// The key, dotted (`consensus.genesis_validators_root`).
        key: &'static str,
        /// The value as written.
        value: String,
        /// What is wrong with it.
        message: String,
    },
}

/// `0x` and 64 hex digits (either case) as `0x` and 64 lower-case hex digits.
fn hex_root(s: &str) -> Result<String, String> {
    let digits = s
        .strip_prefix("0x")
        .ok_or_else(|| "expected 0x and 64 hex digits (32 bytes)".to_string())?;
    let mut bytes = [0u8; 32];
    hex::decode_to_slice(digits, &mut bytes)
        .map_err(|e| format!("expected 0x and 64 hex digits (32 bytes): {e}"))?;
    Ok(format!("0x{}", hex::encode(bytes)))
}

/// The presets compiled into the binary: (name, TOML text).
const PRESETS: &[(&str, &str)] = &[
    ("mainnet", include_str!("../configs/networks/mainnet.toml")),
    ("sepolia", include_str!("../configs/networks/sepolia.toml")),
    ("holesky", include_str!("../configs/networks/holesky.toml")),
    ("hoodi", include_str!("../configs/networks/hoodi.toml")),
    ("gnosis", include_str!("../configs/networks/gnosis.toml")),
    ("chiado", include_str!("../configs/networks/chiado.toml")),
    (
        "synthnet",
        include_str!("../configs/networks/synthnet.toml"),
    ),
    (
        "synthnet-r1",
        include_str!("../configs/networks/synthnet-r1.toml"),
    ),
];

impl Network {
    /// A preset by name (`mainnet`, `sepolia`, `holesky`, `hoodi`, `gnosis`, `chiado`, `synthnet`, `synthnet-r1`).
    pub fn by_name(name: &str) -> Result<Network, NetworkError> {
        let (_, text) = PRESETS
            .iter()
            .find(|(n, _)| *n == name)
            .ok_or_else(|| NetworkError::Unknown(name.to_string()))?;
        Self::parse(text, &format!("<embedded {name}>"))
    }

    /// A preset by name, or a path to a preset TOML file when `name_or_path` ends in `.toml`.
    pub fn resolve(name_or_path: &str) -> Result<Network, NetworkError> {
        if name_or_path.ends_with(".toml") {
            Self::from_file(Path::new(name_or_path))
        } else {
            Self::by_name(name_or_path)
        }
    }

    /// A custom preset from a TOML file with the same keys as `configs/networks/mainnet.toml`.
    pub fn from_file(path: &Path) -> Result<Network, NetworkError> {
        let text = std::fs::read_to_string(path).map_err(|source| NetworkError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Self::parse(&text, &path.display().to_string())
    }

    fn parse(text: &str, origin: &str) -> Result<Network, NetworkError> {
        let mut n: Network = toml::from_str(text).map_err(|e| NetworkError::Parse {
            path: origin.to_string(),
            message: e.to_string(),
        })?;
        let invalid = |key, value: &str, message: String| NetworkError::Invalid {
            path: origin.to_string(),
            key,
            value: value.to_string(),
            message,
        };
        n.genesis_hash =
            hex_root(&n.genesis_hash).map_err(|m| invalid("genesis_hash", &n.genesis_hash, m))?;
        n.consensus.genesis_validators_root = hex_root(&n.consensus.genesis_validators_root)
            .map_err(|m| {
                invalid(
                    "consensus.genesis_validators_root",
                    &n.consensus.genesis_validators_root,
                    m,
                )
            })?;
        // Stored under its canonical name (`k256` -> `secp256k1`): the name is compared with the signer's.
        n.signature_algorithm =
            crate::crypto::signer::SignatureAlgorithm::from_name(&n.signature_algorithm)
                .map_err(|e| invalid("signature_algorithm", &n.signature_algorithm, e.to_string()))?
                .name()
                .to_string();
        if n.consensus.seconds_per_slot == 0 {
            return Err(invalid(
                "consensus.seconds_per_slot",
                "0",
                "must be positive".into(),
            ));
        }
        // The name becomes part of archive and output file names, and is parsed back out of them.
        if n.name.is_empty()
            || !n
                .name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return Err(invalid(
                "name",
                &n.name,
                "must be non-empty ASCII letters, digits, '-' or '_' (it is part of file names)"
                    .into(),
            ));
        }
        Ok(n)
    }

    /// Names of every embedded preset.
    pub fn preset_names() -> impl Iterator<Item = &'static str> {
        PRESETS.iter().map(|p| p.0)
    }

    /// The consensus-specs preset sizing this network's containers.
    pub fn preset(&self) -> Preset {
        self.consensus.preset
    }

    /// `SLOTS_PER_EPOCH` of the network's preset.
    pub fn slots_per_epoch(&self) -> u64 {
        self.consensus.preset.slots_per_epoch()
    }

    /// `SECONDS_PER_SLOT`.
    pub fn seconds_per_slot(&self) -> u64 {
        self.consensus.seconds_per_slot
    }

    /// The first slot of Gloas, when scheduled (and within u64 slots).
    pub fn gloas_slot(&self) -> Option<u64> {
        self.consensus
            .gloas_epoch
            .and_then(|e| e.checked_mul(self.slots_per_epoch()))
    }

    /// Receipts of this block carry a status code ([EIP-658](https://eips.ethereum.org/EIPS/eip-658)) rather than a
    /// post-state root.
    pub fn is_byzantium(&self, block: u64) -> bool {
        block >= self.forks.byzantium
    }

    /// Headers of this block carry `base_fee_per_gas` ([EIP-1559](https://eips.ethereum.org/EIPS/eip-1559)).
    pub fn is_london(&self, block: u64) -> bool {
        block >= self.forks.london
    }

    /// Typed transactions ([EIP-2718](https://eips.ethereum.org/EIPS/eip-2718)) may appear in this block.
    pub fn is_berlin(&self, block: u64) -> bool {
        block >= self.forks.berlin
    }

    /// High-`s` signatures are invalid from this block on ([EIP-2](https://eips.ethereum.org/EIPS/eip-2)).
    pub fn is_homestead(&self, block: u64) -> bool {
        block >= self.forks.homestead
    }

    /// [EIP-155](https://eips.ethereum.org/EIPS/eip-155) replay-protected signatures may appear in this block.
    pub fn is_spurious_dragon(&self, block: u64) -> bool {
        block >= self.forks.spurious_dragon
    }

    /// The block is proof-of-stake (at or after the merge's first block): difficulty and nonce are zero, there are
    /// no ommers, and it has no total difficulty of its own.
    pub fn is_merged(&self, block: u64) -> bool {
        block >= self.first_pos_block
    }

    /// A block with this timestamp is in Shanghai (withdrawals).
    pub fn is_shanghai(&self, timestamp: u64) -> bool {
        self.forks.shanghai_time.is_some_and(|t| timestamp >= t)
    }

    /// A block with this timestamp is in Cancun (blobs, parent beacon block root).
    pub fn is_cancun(&self, timestamp: u64) -> bool {
        self.forks.cancun_time.is_some_and(|t| timestamp >= t)
    }

    /// A block with this timestamp is in Prague (set-code transactions, requests hash).
    pub fn is_prague(&self, timestamp: u64) -> bool {
        self.forks.prague_time.is_some_and(|t| timestamp >= t)
    }

    /// A block with this timestamp is in Amsterdam (block access list hash, slot number, ETH transfer logs,
    /// gas counted before refunds).
    pub fn is_amsterdam(&self, timestamp: u64) -> bool {
        self.forks.amsterdam_time.is_some_and(|t| timestamp >= t)
    }

    /// The last execution fork that changed the header of block `block` with timestamp `timestamp`, by name
    /// (`pre-London` for the 15-field header every fork before London shares).
    pub fn header_fork(&self, block: u64, timestamp: u64) -> &'static str {
        if self.is_amsterdam(timestamp) {
            "Amsterdam"
        } else if self.is_prague(timestamp) {
            "Prague"
        } else if self.is_cancun(timestamp) {
            "Cancun"
        } else if self.is_shanghai(timestamp) {
            "Shanghai"
        } else if self.is_london(block) {
            "London"
        } else {
            "pre-London"
        }
    }

    /// How many fields the header of block `block` with timestamp `timestamp` has: 15 before London, 16 with
    /// `base_fee_per_gas`, 17 with `withdrawals_root` (Shanghai), 20 with the blob and beacon-root fields (Cancun),
    /// 21 with `requests_hash` (Prague), 23 with `block_access_list_hash` and `slot_number` (Amsterdam).
    pub fn header_fields(&self, block: u64, timestamp: u64) -> usize {
        if self.is_amsterdam(timestamp) {
            23
        } else if self.is_prague(timestamp) {
            21
        } else if self.is_cancun(timestamp) {
            20
        } else if self.is_shanghai(timestamp) {
            17
        } else if self.is_london(block) {
            16
        } else {
            15
        }
    }

    /// The highest transaction type block `block` with timestamp `timestamp` may hold (0 legacy, 1 access list
    /// from Berlin, 2 dynamic fee from London, 3 blob from Cancun, 4 set-code from Prague).
    pub fn max_tx_type(&self, block: u64, timestamp: u64) -> u8 {
        if self.is_prague(timestamp) {
            4
        } else if self.is_cancun(timestamp) {
            3
        } else if self.is_london(block) {
            2
        } else if self.is_berlin(block) {
            1
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_parses() {
        for name in Network::preset_names() {
            let n = Network::by_name(name).unwrap();
            assert_eq!(n.name, name);
        }
        assert_eq!(
            Network::by_name("mainnet").unwrap().first_pos_block,
            15537394
        );
        assert_eq!(
            Network::by_name("sepolia").unwrap().first_pos_block,
            1450409
        );
        // Announced Gloas epochs only: Sepolia's (eth-clients/sepolia); mainnet's is not scheduled.
        assert_eq!(
            Network::by_name("sepolia").unwrap().gloas_slot(),
            Some(353024 * 32)
        );
        assert_eq!(Network::by_name("mainnet").unwrap().gloas_slot(), None);
    }

    fn preset(edit: impl Fn(String) -> String) -> Result<Network, NetworkError> {
        let text = PRESETS.iter().find(|p| p.0 == "mainnet").unwrap().1;
        Network::parse(&edit(text.to_string()), "custom.toml")
    }

    #[test]
    fn post_merge_forks_go_by_timestamp() {
        let m = Network::by_name("mainnet").unwrap();
        // Shanghai's first block (17034870) at 1681338455; Cancun's (19426587) at 1710338135; Prague's (22431084)
        // at 1746612311: the header grows from 16 to 17, 20 and 21 fields, the transaction types to 3 and 4.
        assert_eq!(m.header_fields(17034869, 1681338443), 16);
        assert_eq!(m.header_fields(17034870, 1681338455), 17);
        assert_eq!(m.header_fields(19426587, 1710338135), 20);
        assert_eq!(m.header_fields(22431084, 1746612311), 21);
        assert_eq!(m.max_tx_type(19426586, 1710338123), 2);
        assert_eq!(m.max_tx_type(19426587, 1710338135), 3);
        assert_eq!(m.max_tx_type(22431084, 1746612311), 4);
        assert!(!m.is_merged(15537393) && m.is_merged(15537394));
        // A custom preset sets them, or leaves them out (never scheduled).
        let n = preset(|t| t.replace("prague_time = 1746612311\n", "")).unwrap();
        assert_eq!(n.forks.prague_time, None);
        assert_eq!(n.header_fields(22431084, 1746612311), 20);
        let n = preset(|t| t.replace("cancun_time = 1710338135", "cancun_time = 5")).unwrap();
        assert_eq!(n.forks.cancun_time, Some(5));
        let e = preset(|t| t.replace("cancun_time = 1710338135", "cancun_time = \"soon\""))
            .unwrap_err();
        assert!(e.to_string().contains("cancun_time"), "{e}");
        // Amsterdam: Sepolia's at Gloas' instant (slot 11,296,768); mainnet's not scheduled.
        let s = Network::by_name("sepolia").unwrap();
        let gloas_time = 1655733600 + s.gloas_slot().unwrap() * 12;
        assert_eq!(s.forks.amsterdam_time, Some(gloas_time));
        assert_eq!(s.header_fields(10_000_000, gloas_time - 1), 21);
        assert_eq!(s.header_fields(10_000_000, gloas_time), 23);
        assert_eq!(s.header_fork(10_000_000, gloas_time), "Amsterdam");
        assert_eq!(m.forks.amsterdam_time, None);
        assert_eq!(m.header_fields(30_000_000, u64::MAX), 21);
        assert_eq!(m.header_fork(1, 1), "pre-London");
    }

    #[test]
    fn presets_refuse_unknown_keys_and_bad_values() {
        let e = preset(|t| t.replace("signature_algorithm", "signature_algoritm")).unwrap_err();
        let m = e.to_string();
        assert!(
            m.contains("custom.toml") && m.contains("signature_algoritm"),
            "{m}"
        );
        let e = preset(|t| t.replace("london =", "londn =")).unwrap_err();
        assert!(e.to_string().contains("londn"), "{e}");
        let e = preset(|t| t.replace("0xd4e56740", "0xzz")).unwrap_err();
        assert!(
            matches!(
                e,
                NetworkError::Invalid {
                    key: "genesis_hash",
                    ..
                }
            ),
            "{e}"
        );
        let e = preset(|t| t.replace("0x4b363db9", "4b363db9")).unwrap_err();
        assert!(
            matches!(
                e,
                NetworkError::Invalid {
                    key: "consensus.genesis_validators_root",
                    ..
                }
            ),
            "{e}"
        );
        let e = preset(|t| t.replace("\"secp256k1\"", "\"secp256k2\"")).unwrap_err();
        assert!(
            matches!(
                e,
                NetworkError::Invalid {
                    key: "signature_algorithm",
                    ..
                }
            ),
            "{e}"
        );
        let e = preset(|t| t.replace("name = \"mainnet\"", "name = \"main/net\"")).unwrap_err();
        assert!(
            matches!(e, NetworkError::Invalid { key: "name", .. }),
            "{e}"
        );
        // Upper-case hex is fine, and stored lower-cased (the genesis check compares strings).
        let n = preset(|t| t.replace("0xd4e56740f876aef8", "0xD4E56740F876AEF8")).unwrap();
        assert_eq!(n, Network::by_name("mainnet").unwrap());
    }

    #[test]
    fn unknown_network_lists_known_ones() {
        let e = Network::by_name("goerli").unwrap_err().to_string();
        assert!(e.contains("goerli") && e.contains("mainnet"), "{e}");
    }
}
