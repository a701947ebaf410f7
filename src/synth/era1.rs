//! Synthetic era1 files: real signatures over seeded keys, every pre-merge transaction kind the network's forks
//! allow, receipts with logs and correct blooms, ommers, consistent roots and total difficulty.
//!
//! Deterministic: the same options give byte-identical files (block contents come from a generator seeded by
//! `(seed, block number)`, signatures are [RFC 6979](https://www.rfc-editor.org/rfc/rfc6979)).

use super::rng::Rng;
use crate::crypto::keccak::{keccak256, B256};
use crate::crypto::signer::{self, SecretKeyBytes, SignatureAlgorithm};
use crate::execution::body::encode_body;
use crate::execution::header::HeaderFields;
use crate::execution::receipt::{self, LogFields, Outcome};
use crate::execution::trie;
use crate::execution::tx_request::{AccessListEntry, TxRequest};
use crate::formats::era1::{Era1Writer, BLOCKS_PER_ERA};
use crate::network::Network;
use alloy_primitives::{Address, Bloom, Bytes, B64, U256};
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// Number of distinct senders; their nonces increase by one per transaction each.
const SENDERS: u64 = 16;

/// What to generate.
#[derive(Debug, Clone)]
pub struct SynthOptions {
    /// Network whose fork blocks decide which transaction and receipt kinds each block may hold (and whose
    /// name, chain id and signature algorithm the files carry).
    pub network: Network,
    /// First era (its first block is `era * 8192`).
    pub era: u64,
    /// Number of consecutive files, chained by parent hash and total difficulty.
    pub files: u64,
    /// Blocks per file (at most 8192; fewer makes a short final file, handy for tests).
    pub blocks: u64,
    /// Transactions per block, cycling through every kind the block's forks allow.
    pub txs_per_block: u32,
    /// Seeds block contents and signing keys: the same options give byte-identical files.
    pub seed: u64,
}

impl SynthOptions {
    /// Defaults: one full era 0 file of synthnet with 4 transactions per block, seed 1.
    pub fn new(network: Network) -> Self {
        SynthOptions {
            network,
            era: 0,
            files: 1,
            blocks: BLOCKS_PER_ERA,
            txs_per_block: 4,
            seed: 1,
        }
    }
}

/// Why synthesis failed.
#[derive(Debug, thiserror::Error)]
pub enum SynthError {
    /// Options that cannot be met (too many blocks for one file, no files, a fork no era lies wholly in), or a
    /// generated object that does not fit its fork's schema.
    #[error("synth: {0}")]
    Options(String),
    /// Creating the output directory or writing a file failed.
    #[error("synth: writing {path}: {source}")]
    Io {
        /// The directory or file being written.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The network's signature algorithm is unknown, or signing a transaction failed.
    #[error("synth: signing: {0}")]
    Sign(String),
}

/// The seeded accounts transactions are sent from.
struct Accounts {
    keys: Vec<SecretKeyBytes>,
    algorithm: SignatureAlgorithm,
}

/// A block's contents before its parent hash is known.
struct BlockParts {
    header: HeaderFields,
    body: Vec<u8>,
    receipts: Vec<u8>,
}

/// Writes the files and returns their paths in order.
pub fn write(dir: &Path, opts: &SynthOptions) -> Result<Vec<PathBuf>, SynthError> {
    if opts.blocks == 0 || opts.blocks > BLOCKS_PER_ERA {
        return Err(SynthError::Options(format!(
            "--blocks must be 1..=8192, got {}",
            opts.blocks
        )));
    }
    if opts.files == 0 {
        return Err(SynthError::Options("at least one file".into()));
    }
    let last_block = (opts.era + opts.files) * BLOCKS_PER_ERA;
    if last_block > opts.network.first_pos_block {
        return Err(SynthError::Options(format!(
            "era1 holds pre-merge blocks only: {} merges at block {}, eras up to {} needed",
            opts.network.name,
            opts.network.first_pos_block,
            opts.era + opts.files - 1
        )));
    }
    let algorithm = SignatureAlgorithm::from_name(&opts.network.signature_algorithm)
        .map_err(|e| SynthError::Sign(e.to_string()))?;
    let accounts = Accounts {
        keys: (0..SENDERS as u32)
            .map(|i| signer::test_key(opts.seed, i))
            .collect(),
        algorithm,
    };
    std::fs::create_dir_all(dir).map_err(|source| SynthError::Io {
        path: dir.display().to_string(),
        source,
    })?;

    let first = opts.era * BLOCKS_PER_ERA;
    let (mut parent, mut td) = if first == 0 {
        (B256::ZERO, U256::ZERO)
    } else {
        let mut pre = b"eraflow-synth-parent".to_vec();
        pre.extend_from_slice(&opts.seed.to_be_bytes());
        pre.extend_from_slice(&first.to_be_bytes());
        (
            keccak256(&pre),
            U256::from(first) * U256::from(1_000_000u64),
        )
    };
    let mut paths = Vec::new();
    for f in 0..opts.files {
        let start = (opts.era + f) * BLOCKS_PER_ERA;
        let parts: Vec<BlockParts> = (start..start + opts.blocks)
            .into_par_iter()
            .map(|b| block_parts(b, opts, &accounts))
            .collect::<Result<_, _>>()?;
        let io = |source| SynthError::Io {
            path: dir.display().to_string(),
            source,
        };
        let mut w = Era1Writer::create(dir, &opts.network.name).map_err(io)?;
        for (i, mut p) in parts.into_iter().enumerate() {
            p.header.parent_hash = parent;
            let raw = p.header.encode();
            parent = keccak256(&raw);
            td += p.header.difficulty;
            w.add_block(start + i as u64, &raw, &p.body, &p.receipts, td)
                .map_err(io)?;
        }
        paths.push(w.finish().map_err(io)?);
    }
    Ok(paths)
}

/// Like [`write()`], but does nothing when `dir` already holds the files these exact options produce (recorded
/// in `dir/.synth-<network>-<era>.done`), so a scheduled pipeline can start with a synth stage cheaply.
pub fn write_once(dir: &Path, opts: &SynthOptions) -> Result<Vec<PathBuf>, SynthError> {
    let fingerprint = format!(
        "network={} era={} files={} blocks={} txs={} seed={} version={}\n",
        opts.network.name,
        opts.era,
        opts.files,
        opts.blocks,
        opts.txs_per_block,
        opts.seed,
        env!("CARGO_PKG_VERSION")
    );
    let marker = format!(".synth-{}-{:05}.done", opts.network.name, opts.era);
    super::once(dir, &marker, &fingerprint, || write(dir, opts))
}

fn address(rng: &mut Rng) -> [u8; 20] {
    rng.bytes()
}

/// A value spread over zero, small, and very large (above 2^190) amounts.
fn value(rng: &mut Rng) -> U256 {
    match rng.below(4) {
        0 => U256::ZERO,
        1 => U256::from_be_slice(&rng.bytes::<25>()),
        _ => U256::from(rng.next_u64() >> rng.below(40)),
    }
}

fn access_list(rng: &mut Rng) -> Vec<AccessListEntry> {
    (0..rng.below(4))
        .map(|_| AccessListEntry {
            address: address(rng),
            storage_keys: (0..rng.below(4)).map(|_| rng.bytes()).collect(),
        })
        .collect()
}

fn block_parts(
    number: u64,
    opts: &SynthOptions,
    accounts: &Accounts,
) -> Result<BlockParts, SynthError> {
    let net = &opts.network;
    let mut rng = Rng::new(opts.seed, number);
    let london = net.is_london(number);
    let base_fee = london.then(|| U256::from(1_000_000_000u64 + rng.below(50_000_000_000)));

    // Transaction kinds the fork allows, rotated so each appears in every block with enough transactions.
    let mut kinds: Vec<(u8, bool)> = vec![(0, true)];
    if net.is_spurious_dragon(number) {
        kinds.push((0, false));
    }
    if net.is_berlin(number) {
        kinds.push((1, false));
    }
    if london {
        kinds.push((2, false));
    }

    let mut tx_items = Vec::with_capacity(opts.txs_per_block as usize);
    let mut tx_canonical = Vec::with_capacity(opts.txs_per_block as usize);
    let mut receipts = Vec::with_capacity(opts.txs_per_block as usize);
    let mut bloom = [0u8; 256];
    let mut cumulative = 0u64;
    for i in 0..opts.txs_per_block as u64 {
        let g = (number - opts.era * BLOCKS_PER_ERA) * opts.txs_per_block as u64 + i;
        let (tx_type, pre155) = kinds[(g % kinds.len() as u64) as usize];
        let creation = rng.chance(1, 8);
        let input = if creation {
            rng.calldata(100, 400)
        } else {
            rng.calldata(0, 200)
        };
        let gas_used = 21_000 + 16 * input.len() as u64 + rng.below(40_000);
        let tip = U256::from(rng.below(3_000_000_000));
        let req = TxRequest {
            tx_type,
            legacy_pre155: pre155,
            chain_id: net.chain_id,
            nonce: g / SENDERS,
            gas_price: U256::from(1_000_000_000u64 + rng.below(100_000_000_000))
                + base_fee.unwrap_or_default(),
            max_priority_fee_per_gas: tip,
            max_fee_per_gas: base_fee.unwrap_or_default() * U256::from(2u64) + tip,
            gas_limit: gas_used + rng.below(100_000),
            to: (!creation).then(|| address(&mut rng)),
            value: value(&mut rng),
            input,
            access_list: if tx_type >= 1 {
                access_list(&mut rng)
            } else {
                Vec::new()
            },
            ..Default::default()
        };
        let key = &accounts.keys[(g % SENDERS) as usize];
        let canonical = req
            .sign_and_encode(key, accounts.algorithm)
            .map_err(|e| SynthError::Sign(e.to_string()))?;
        tx_items.push(TxRequest::body_item(&canonical));
        tx_canonical.push(canonical);

        cumulative += gas_used;
        let success = rng.chance(7, 8);
        let logs: Vec<LogFields> = if success {
            (0..rng.below(4))
                .map(|_| LogFields {
                    address: address(&mut rng),
                    topics: (0..rng.below(5)).map(|_| rng.bytes()).collect(),
                    data: rng.calldata(0, 100),
                })
                .collect()
        } else {
            Vec::new()
        };
        let root: [u8; 32] = rng.bytes();
        let outcome = if net.is_byzantium(number) {
            Outcome::Status(success)
        } else {
            Outcome::PostState(&root)
        };
        let (enc, rb) = receipt::encode_receipt(tx_type, outcome, cumulative, &logs);
        crate::execution::bloom::union(&mut bloom, &rb);
        receipts.push(enc);
    }

    let ommers: Vec<Vec<u8>> = if number > 0 && number.is_multiple_of(5) {
        (0..1 + rng.below(2))
            .map(|_| {
                HeaderFields {
                    parent_hash: B256::from(rng.bytes::<32>()),
                    ommers_hash: B256::from(rng.bytes::<32>()),
                    beneficiary: Address::from(address(&mut rng)),
                    state_root: B256::from(rng.bytes::<32>()),
                    transactions_root: trie::EMPTY_ROOT,
                    receipts_root: trie::EMPTY_ROOT,
                    difficulty: U256::from(131_072 + rng.below(1 << 32)),
                    number: number - 1,
                    gas_limit: 30_000_000,
                    timestamp: 1_600_000_000 + 13 * number - 5,
                    extra_data: Bytes::from(rng.calldata(0, 33)),
                    mix_hash: B256::from(rng.bytes::<32>()),
                    nonce: B64::from(rng.bytes::<8>()),
                    base_fee_per_gas: base_fee,
                    ..Default::default()
                }
                .encode()
            })
            .collect()
    } else {
        Vec::new()
    };

    let body = encode_body(&tx_items, &ommers);
    let ommers_rlp = crate::execution::header::wrap_list(&ommers.concat());
    let header = HeaderFields {
        parent_hash: B256::ZERO,
        ommers_hash: keccak256(&ommers_rlp),
        beneficiary: Address::from(address(&mut rng)),
        state_root: B256::from(rng.bytes::<32>()),
        transactions_root: trie::ordered_root(&tx_canonical),
        receipts_root: trie::ordered_root(&receipts),
        logs_bloom: Bloom::from(bloom),
        difficulty: U256::from(131_072 + rng.below(1 << 32)),
        number,
        gas_limit: 30_000_000,
        gas_used: cumulative,
        timestamp: 1_600_000_000 + 13 * number,
        extra_data: Bytes::from(rng.calldata(0, 33)),
        mix_hash: B256::from(rng.bytes::<32>()),
        nonce: B64::from(rng.bytes::<8>()),
        base_fee_per_gas: base_fee,
        ..Default::default()
    };
    Ok(BlockParts {
        header,
        body,
        receipts: receipt::encode_list(&receipts),
    })
}
