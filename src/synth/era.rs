//! Synthetic era files: beacon blocks of every fork whose roots, parent chain, state roots and execution
//! payloads are all consistent with the era's BeaconState, so `eraflow verify` can check every rule on files a
//! fresh clone makes itself, and an independent SSZ implementation can cross-check every fork.
//!
//! What is real and what is not:
//! - real: SSZ layout of every container, block roots in `state.block_roots` (empty slots repeat the previous
//!   root), `state_roots` at each block's slot, `latest_block_header`, the historical root or summary of the
//!   era's own vectors and the file name derived from it, execution payloads whose `block_hash` is the keccak
//!   of the rebuilt header, transactions of types 0-4 signed with real keys (senders and
//!   [EIP-7702](https://eips.ethereum.org/EIPS/eip-7702) authorities recover), blob versioned hashes derived from the
//!   body's KZG commitments, withdrawals with global indices;
//! - not real: BLS signatures, attestation contents, validator balances (random bytes of the right shape), and
//!   state roots (random per slot; a block's `state_root` is the one the state records for its slot), except
//!   that an empty first slot of a file after another records the previous file's state root, as the chain
//!   would (see `verify::era::verify_files`).
//!
//! Deterministic: the same options give byte-identical files.

use super::blocks::{authorizations, Accounts, SENDERS};
use super::rng::Rng;
use crate::consensus::bid::empty_requests;
use crate::consensus::merkle;
use crate::consensus::ssz::{self, encode_container, encode_variable_list, field_container};
use crate::consensus::types::{
    BUILDER_INDEX_SELF_BUILD, EXECUTION_PAYLOAD_BID, EXECUTION_REQUESTS_GLOAS, PAYLOAD_ATTESTATION,
    ROOTS_VECTOR, SIGNED_EXECUTION_PAYLOAD_BID, SLOTS_PER_HISTORICAL_ROOT,
};
use crate::consensus::{self, BeaconBlock, Fork, Spec, SszError};

use crate::execution::tx_request::{AccessListEntry, TxRequest};
use crate::formats::era::{EraWriter, SLOTS_PER_ERA};
use crate::network::Network;
use alloy_primitives::U256;
use rayon::prelude::*;
use std::path::{Path, PathBuf};

pub use super::options::SynthError;

/// The `genesis_time` of synthetic states.
pub const GENESIS_TIME: u64 = 1_606_824_023;

/// Gas of one blob ([EIP-4844](https://eips.ethereum.org/EIPS/eip-4844) `GAS_PER_BLOB`).
const GAS_PER_BLOB: u64 = 1 << 17;

/// What to generate.
#[derive(Debug, Clone)]
pub struct EraSynthOptions {
    /// Network whose fork schedule decides each slot's fork (and whose name and chain id the files carry).
    pub network: Network,
    /// First era file (era 0 holds only the genesis state).
    pub era: u64,
    /// Number of consecutive era files, chained (parent roots, execution parent hashes, historical roots).
    pub files: u64,
    /// Slots with a block per era (at most 8192); the rest are empty slots.
    pub blocks: u64,
    /// Validators in each state (with as many balances, participation flags, inactivity scores).
    pub validators: usize,
    /// Validators payload withdrawals are drawn from; `None`: the state's own `validators`, as on a real chain.
    /// A larger number writes files whose withdrawals name validators the state does not have, which
    /// verification must refuse (a test fixture, otherwise self-consistent).
    pub withdrawal_validators: Option<u64>,
    /// Transactions per execution payload (bellatrix on).
    pub txs_per_block: u32,
    /// Seeds every pseudo-random value and the signing keys: the same options give byte-identical files.
    pub seed: u64,
}

impl EraSynthOptions {
    /// Defaults: one era-1 file of `network` with 64 blocks, 256 validators, 4 transactions per payload.
    pub fn new(network: Network) -> Self {
        EraSynthOptions {
            network,
            era: 1,
            files: 1,
            blocks: 64,
            validators: 256,
            withdrawal_validators: None,
            txs_per_block: 4,
            seed: 1,
        }
    }

    /// The first era whose blocks and state are all of `fork` on this network: its blocks start at or after the
    /// fork and its state comes before the next fork.
    pub fn era_of_fork(network: &Network, fork: Fork) -> Result<u64, SynthError> {
        let never = || {
            SynthError::Options(format!(
                "{}: fork {fork} is not scheduled, so no era file is wholly in it",
                network.name
            ))
        };
        let start = fork.activation_slot(network).ok_or_else(never)?;
        let era = start.div_ceil(SLOTS_PER_ERA) + 1;
        let state_slot = era.checked_mul(SLOTS_PER_ERA).ok_or_else(never)?;
        if Fork::at_slot(state_slot, network) != fork {
            return Err(SynthError::Options(format!(
                "{}: no era file lies wholly in {fork} (the next fork comes within 2 eras of it); pass --era",
                network.name
            )));
        }
        Ok(era)
    }
}

/// The era an era-file synth starts at: `era` (which must end in `fork` when both are given), else the first
/// era wholly in `fork`, else 1.
pub fn era_to_synthesize(
    network: &Network,
    era: Option<u64>,
    fork: Option<Fork>,
) -> Result<u64, SynthError> {
    match (era, fork) {
        (Some(e), Some(f)) => {
            let at = Fork::at_slot(e.saturating_mul(SLOTS_PER_ERA), network);
            if at != f {
                return Err(SynthError::Options(format!(
                    "era {e} of {} ends in {at}, not {f}: drop the era to get the first era of {f}",
                    network.name
                )));
            }
            Ok(e)
        }
        (Some(e), None) => Ok(e),
        (None, Some(f)) => EraSynthOptions::era_of_fork(network, f),
        (None, None) => Ok(1),
    }
}

/// What carries over from one era file to the next.
struct Carry {
    /// Root of the latest block (the next block's parent).
    parent_root: [u8; 32],
    /// The latest block's header as a state records it (`BeaconBlockHeader`, 112 bytes).
    latest_header: [u8; 112],
    /// Execution chain head: hash and number of the latest payload.
    payload_hash: [u8; 32],
    payload_number: u64,
    /// The latest payload's fields by name (for `latest_execution_payload_header`), and its spec.
    latest_payload: Option<(Spec, Vec<u8>)>,
    withdrawal_index: u64,
    /// The next Electra deposit request index.
    deposit_index: u64,
    /// `(block_summary_root, state_summary_root)` of every completed era so far.
    history: Vec<([u8; 32], [u8; 32])>,
    /// Gloas: the latest bid (`state.latest_execution_payload_bid`), whose payload the next block reveals or
    /// not; `payload_hash` is then `state.latest_block_hash`, the latest revealed execution block.
    latest_bid: Option<SynthBid>,
    /// Gloas: `state.execution_payload_availability` as the chain holds it (one bit per slot).
    availability: Vec<u8>,
}

/// A Gloas bid as the chain's state holds it, with the requests its payload carries.
#[derive(Clone)]
struct SynthBid {
    slot: u64,
    block_hash: [u8; 32],
    /// The serialized `ExecutionPayloadBid`.
    bytes: Vec<u8>,
    /// The serialized `ExecutionRequests` its payload carries (the child's `parent_execution_requests`).
    requests: Vec<u8>,
}

/// Builders in a synthetic Gloas state's registry (bids name one of them or are self-built).
pub const SYNTH_BUILDERS: u64 = 8;

/// One slot's contents made in parallel before the chain links are known.
struct SlotDraft {
    slot: u64,
    /// Validators in the registry (operations name validators below it).
    validators: u64,
    /// Seeds the block's operations.
    ops_seed: u64,
    /// The network's `SECONDS_PER_SLOT`: the payload's timestamp is `GENESIS_TIME + slot * seconds_per_slot`.
    seconds_per_slot: u64,
    fork: Fork,
    spec: Spec,
    /// A random `SignedBeaconBlock` of the fork (its message gets real links and payload later).
    signed: Vec<u8>,
    proposer: u64,
    /// Withdrawals credit validators below this index.
    withdrawal_validators: u64,
    txs: Vec<Vec<u8>>,
    commitments: Vec<[u8; 48]>,
    blob_gas: u64,
    payload_rng: Rng,
}

fn hash_of(tag: &[u8], seed: u64, n: u64) -> [u8; 32] {
    let mut pre = tag.to_vec();
    pre.extend_from_slice(&seed.to_le_bytes());
    pre.extend_from_slice(&n.to_le_bytes());
    crate::crypto::sha256::sha256(&pre)
}

/// Gloas slot processing on the way into `slot`: the upgrade at the fork's first slot (every availability bit
/// set, the latest bid the one the upgrade makes from the last payload), and from then on the availability of
/// each new slot cleared (gloas `process_slot`, run for the slot before).
fn process_slot_gloas(slot: u64, gloas: Option<u64>, carry: &mut Carry) -> Result<(), SynthError> {
    match gloas {
        Some(g) if slot == g => {
            carry.availability.fill(0xff);
            let gas_limit = match &carry.latest_payload {
                Some((spec, p)) => {
                    let body_c = field_container(spec.block_schema(), "body");
                    let payload_c = body_c.and_then(|b| field_container(b, "execution_payload"));
                    payload_c
                        .and_then(|c| ssz::View::new(c, p).ok())
                        .and_then(|v| v.u64("gas_limit"))
                        .unwrap_or_default()
                }
                None => 0,
            };
            carry.latest_bid = Some(upgrade_bid(0, carry.payload_hash, gas_limit)?);
        }
        Some(g) if slot > g => {
            let i = (slot % SLOTS_PER_ERA) as usize;
            carry.availability[i / 8] &= !(1 << (i % 8));
        }
        _ => {}
    }
    Ok(())
}

/// The bid `upgrade_to_gloas` records (block hash and gas limit of the last payload, the empty requests' root;
/// everything else zero), at `slot` (0 for the upgrade's own).
fn upgrade_bid(slot: u64, block_hash: [u8; 32], gas_limit: u64) -> Result<SynthBid, SynthError> {
    let requests = empty_requests();
    let root = consensus::bid::empty_requests_root();
    let bytes = encode_container(
        &EXECUTION_PAYLOAD_BID,
        &[
            &[0u8; 32],
            &[0u8; 32],
            &block_hash,
            &[0u8; 32],
            &[0u8; 20],
            &gas_limit.to_le_bytes(),
            &0u64.to_le_bytes(),
            &slot.to_le_bytes(),
            &0u64.to_le_bytes(),
            &0u64.to_le_bytes(),
            &[],
            &root,
        ],
    )
    .map_err(|e| SynthError::Options(e.to_string()))?;
    Ok(SynthBid {
        slot,
        block_hash,
        bytes,
        requests,
    })
}

/// Writes the files and returns their paths in order.
pub fn write(dir: &Path, opts: &EraSynthOptions) -> Result<Vec<PathBuf>, SynthError> {
    if opts.blocks > SLOTS_PER_ERA {
        return Err(SynthError::Options(format!(
            "--blocks must be at most 8192 (one per slot), got {}",
            opts.blocks
        )));
    }
    if opts.files == 0 {
        return Err(SynthError::Options("at least one file".into()));
    }
    let net = &opts.network;
    let accounts = Accounts::of(opts.seed, net)?;
    let io = |source| SynthError::Io {
        path: dir.display().to_string(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(io)?;
    let gvr = parse_root(&net.consensus.genesis_validators_root)?;

    // Everything before the first era is made up, deterministically.
    let first_slot = opts.era.saturating_sub(1) * SLOTS_PER_ERA;
    let merge_slot = Fork::Bellatrix.activation_slot(net).unwrap_or(u64::MAX);
    let mut carry = Carry {
        parent_root: hash_of(b"eraflow-synth-parent-root", opts.seed, first_slot),
        latest_header: [0u8; 112],
        payload_hash: hash_of(b"eraflow-synth-payload", opts.seed, first_slot),
        payload_number: net.first_pos_block + first_slot.saturating_sub(merge_slot),
        latest_payload: None,
        withdrawal_index: first_slot * 4,
        deposit_index: first_slot * 2,
        history: (0..opts.era.saturating_sub(1))
            .map(|e| {
                (
                    hash_of(b"eraflow-synth-block-summary", opts.seed, e),
                    hash_of(b"eraflow-synth-state-summary", opts.seed, e),
                )
            })
            .collect(),
        latest_bid: None,
        availability: vec![0u8; SLOTS_PER_HISTORICAL_ROOT / 8],
    };
    let gloas_slot = net.gloas_slot();
    // A first era already past Gloas builds on a made-up bid.
    if gloas_slot.is_some_and(|g| first_slot > g) {
        carry.latest_bid = Some(upgrade_bid(
            first_slot - 1,
            hash_of(b"eraflow-synth-gloas-payload", opts.seed, first_slot - 1),
            30_000_000,
        )?);
    }
    let mut paths = Vec::new();
    // The root of the previous file's state: when the first slot of the next era is empty, that era's state
    // records it in `state_roots` (the slot processing of an empty slot hashes the state as it is).
    let mut previous_state_root: Option<[u8; 32]> = None;
    for era in opts.era..opts.era + opts.files {
        let mut w = EraWriter::create(dir, &net.name, era).map_err(io)?;
        let mut block_roots = vec![0u8; 32 * SLOTS_PER_HISTORICAL_ROOT];
        let mut state_roots = vec![0u8; 32 * SLOTS_PER_HISTORICAL_ROOT];
        if era > 0 {
            let start = (era - 1) * SLOTS_PER_ERA;
            for i in 0..SLOTS_PER_ERA {
                state_roots[32 * i as usize..32 * (i as usize + 1)].copy_from_slice(&hash_of(
                    b"eraflow-synth-state-root",
                    opts.seed,
                    start + i,
                ));
            }
            let slots = block_slots(era, opts.blocks, opts.seed);
            if let (Some(root), false) = (previous_state_root, slots.first() == Some(&start)) {
                state_roots[..32].copy_from_slice(&root);
            }
            let drafts: Vec<SlotDraft> = slots
                .par_iter()
                .map(|&slot| draft(slot, opts, &accounts))
                .collect::<Result<_, _>>()?;
            let mut next = drafts.iter().peekable();
            for i in 0..SLOTS_PER_ERA {
                let slot = start + i;
                process_slot_gloas(slot, gloas_slot, &mut carry)?;
                if let Some(d) = next.next_if(|d| d.slot == slot) {
                    let state_root: [u8; 32] = state_roots[32 * i as usize..32 * (i as usize + 1)]
                        .try_into()
                        .unwrap_or_default();
                    let signed = link(d, state_root, &mut carry)
                        .map_err(|e| SynthError::Options(format!("slot {slot}: {e}")))?;
                    w.add_block(slot, &signed).map_err(io)?;
                }
                block_roots[32 * i as usize..32 * (i as usize + 1)]
                    .copy_from_slice(&carry.parent_root);
            }
            let block_summary = ssz::hash_tree_root(&ROOTS_VECTOR, &block_roots)
                .map_err(|e| SynthError::Options(e.to_string()))?;
            let state_summary = ssz::hash_tree_root(&ROOTS_VECTOR, &state_roots)
                .map_err(|e| SynthError::Options(e.to_string()))?;
            carry.history.push((block_summary, state_summary));
        }
        process_slot_gloas(era * SLOTS_PER_ERA, gloas_slot, &mut carry)?;
        let state = era_state(era, opts, &carry, &block_roots, &state_roots, gvr)
            .map_err(|e| SynthError::Options(format!("era {era} state: {e}")))?;
        if era + 1 < opts.era + opts.files {
            let spec = Spec::at_slot(era * SLOTS_PER_ERA, net);
            previous_state_root = Some(
                consensus::state_root(&state, spec)
                    .map_err(|e| SynthError::Options(format!("era {era} state: {e}")))?,
            );
        }
        let short = match carry.history.last() {
            Some(&(b, s)) if era > 0 => historical_root(&b, &s),
            _ => gvr,
        };
        paths.push(w.finish(&state, &short[..4]).map_err(io)?);
    }
    Ok(paths)
}

/// Like [`write()`], but does nothing when `dir` already holds the files these exact options produce.
pub fn write_once(dir: &Path, opts: &EraSynthOptions) -> Result<super::Synthesized, SynthError> {
    let fingerprint = format!(
        "kind=era network={} era={} files={} blocks={} validators={} withdrawals_from={:?} txs={} seed={}",
        opts.network.name,
        opts.era,
        opts.files,
        opts.blocks,
        opts.validators,
        opts.withdrawal_validators,
        opts.txs_per_block,
        opts.seed,
    );
    let marker = format!(".synth-era-{}-{:05}.done", opts.network.name, opts.era);
    super::once(dir, &marker, &fingerprint, || write(dir, opts))
}

/// `hash_tree_root(HistoricalBatch)` = `hash_tree_root(HistoricalSummary)`: the two vector roots merkleized.
pub fn historical_root(block_summary: &[u8; 32], state_summary: &[u8; 32]) -> [u8; 32] {
    let mut two = [0u8; 64];
    two[..32].copy_from_slice(block_summary);
    two[32..].copy_from_slice(state_summary);
    merkle::merkleize(&two, 2)
}

fn parse_root(hex_root: &str) -> Result<[u8; 32], SynthError> {
    let mut r = [0u8; 32];
    hex::decode_to_slice(hex_root.trim_start_matches("0x"), &mut r).map_err(|e| {
        SynthError::Options(format!(
            "genesis_validators_root '{hex_root}' is not 32 hex bytes: {e}"
        ))
    })?;
    Ok(r)
}

/// The slots of era `era` that get a block: `blocks` of them spread over the era, never slot 0 (genesis).
fn block_slots(era: u64, blocks: u64, seed: u64) -> Vec<u64> {
    let start = (era - 1) * SLOTS_PER_ERA;
    if blocks == 0 {
        return Vec::new();
    }
    let stride = SLOTS_PER_ERA / blocks;
    let mut rng = Rng::new(seed ^ 0x51_07, era);
    let mut out: Vec<u64> = (0..blocks)
        .map(|k| start + k * stride + rng.below(stride))
        .filter(|&s| s != 0)
        .collect();
    out.dedup();
    out
}

/// The random parts of one slot: the block skeleton and signed transactions (the slow part, run in parallel).
fn draft(slot: u64, opts: &EraSynthOptions, accounts: &Accounts) -> Result<SlotDraft, SynthError> {
    let net = &opts.network;
    let spec = Spec::at_slot(slot, net);
    let fork = spec.fork;
    let mut rng = Rng::new(opts.seed, slot);
    let signed = consensus::synth::signed_block(spec, slot, rng.next_u64());
    let proposer = rng.below(opts.validators.max(1) as u64);
    let mut txs = Vec::new();
    let mut commitments = Vec::new();
    let mut blob_gas = 0;
    if fork >= Fork::Gloas {
        // The payload is not in the block: only the bid's blob commitments are.
        for _ in 0..rng.below(4) {
            let mut c = [0u8; 48];
            rng.fill(&mut c);
            commitments.push(c);
        }
    } else if fork >= Fork::Bellatrix {
        let mut kinds: Vec<u8> = vec![0, 1, 2];
        if fork >= Fork::Deneb {
            kinds.push(3);
        }
        if fork >= Fork::Electra {
            kinds.push(4);
        }
        for i in 0..opts.txs_per_block as u64 {
            let g = slot * opts.txs_per_block as u64 + i;
            let tx_type = kinds[(g % kinds.len() as u64) as usize];
            let key = &accounts.keys[(g % SENDERS) as usize];
            let base_fee = U256::from(7 + rng.below(30_000_000_000));
            let tip = U256::from(rng.below(3_000_000_000));
            let creation = tx_type < 3 && rng.chance(1, 8);
            let mut req = TxRequest {
                tx_type,
                chain_id: net.chain_id,
                nonce: g / SENDERS,
                gas_price: base_fee + tip,
                max_priority_fee_per_gas: tip,
                max_fee_per_gas: base_fee * U256::from(2u64) + tip,
                gas_limit: 21_000 + rng.below(200_000),
                to: (!creation).then(|| rng.bytes()),
                value: match rng.below(3) {
                    0 => U256::ZERO,
                    1 => U256::from_be_slice(&rng.bytes::<25>()),
                    _ => U256::from(rng.next_u64()),
                },
                input: rng.calldata(0, 200),
                access_list: (0..rng.below(3))
                    .map(|_| AccessListEntry {
                        address: rng.bytes(),
                        storage_keys: (0..rng.below(3)).map(|_| rng.bytes()).collect(),
                    })
                    .collect(),
                ..Default::default()
            };
            if tx_type == 3 {
                req.max_fee_per_blob_gas = U256::from(1 + rng.below(1_000_000_000));
                for _ in 0..1 + rng.below(2) {
                    let mut c = [0u8; 48];
                    rng.fill(&mut c);
                    req.blob_versioned_hashes
                        .push(crate::verify::payload::versioned_hash(&c));
                    commitments.push(c);
                    blob_gas += GAS_PER_BLOB;
                }
            }
            if tx_type == 4 {
                req.authorization_list = authorizations(&mut rng, accounts, g, net.chain_id)?;
            }
            txs.push(
                req.sign_and_encode(key, accounts.algorithm)
                    .map_err(|e| SynthError::Sign(e.to_string()))?,
            );
        }
    }
    Ok(SlotDraft {
        slot,
        validators: opts.validators.max(1) as u64,
        ops_seed: opts.seed ^ 0x0b5e_7a71_0a50,
        seconds_per_slot: net.seconds_per_slot(),
        fork,
        spec,
        signed,
        proposer,
        withdrawal_validators: opts.withdrawal_validators.unwrap_or(opts.validators as u64),
        txs,
        commitments,
        blob_gas,
        payload_rng: rng,
    })
}

/// Links one drafted block into the chain: parent root, state root, payload (with its real block hash),
/// commitments; updates `carry` and returns the serialized `SignedBeaconBlock`.
fn link(d: &SlotDraft, state_root: [u8; 32], carry: &mut Carry) -> Result<Vec<u8>, String> {
    let fork = d.fork;
    let signed_c = d.spec.signed_block_schema();
    let block_c = d.spec.block_schema();
    let body_c =
        field_container(block_c, "body").ok_or_else(|| no_field(block_c, "body").to_string())?;
    let parts = ssz::split_container(signed_c, &d.signed).map_err(|e| e.to_string())?;
    let (message, signature) = (parts[0], parts[1]);
    let msg_parts = ssz::split_container(block_c, message).map_err(|e| e.to_string())?;
    let body = msg_parts[4];
    // Every operation kind of the fork, plausible for this slot (see `synth::operations`).
    let super::operations::BodyOperations {
        fields: mut ops,
        deposit_requests,
        payload_requests,
    } = super::operations::body_operations(
        &super::operations::OpsContext {
            spec: d.spec,
            slot: d.slot,
            validators: d.validators,
            parent_root: carry.parent_root,
            deposit_index: carry.deposit_index,
        },
        &mut Rng::new(d.ops_seed, d.slot),
    )
    .map_err(|e| e.to_string())?;
    if fork >= Fork::Gloas {
        let own = payload_requests.unwrap_or_else(empty_requests);
        ops.extend(gloas_fields(d, carry, own)?);
    }

    let build = |block_hash: &[u8; 32], carry: &Carry| -> Result<Vec<u8>, SszError> {
        let mut replace: Vec<(&str, Vec<u8>)> = ops.clone();
        if fork >= Fork::Bellatrix && fork < Fork::Gloas {
            let payload_c = field_container(body_c, "execution_payload")
                .ok_or_else(|| no_field(body_c, "execution_payload"))?;
            replace.push((
                "execution_payload",
                payload(payload_c, d, carry, block_hash)?,
            ));
        }
        if fork >= Fork::Deneb && fork < Fork::Gloas {
            replace.push(("blob_kzg_commitments", d.commitments.concat()));
        }
        let refs: Vec<(&str, &[u8])> = replace.iter().map(|(n, v)| (*n, v.as_slice())).collect();
        let body = ssz::with_fields(body_c, body, &refs)?;
        ssz::with_fields(
            block_c,
            message,
            &[
                ("proposer_index", &d.proposer.to_le_bytes()),
                ("parent_root", &carry.parent_root),
                ("state_root", &state_root),
                ("body", &body),
            ],
        )
    };
    let mut msg = build(&[0u8; 32], carry).map_err(|e| e.to_string())?;
    let mut payload_hash = None;
    if fork >= Fork::Bellatrix && fork < Fork::Gloas {
        let view = BeaconBlock::new(&msg, d.spec).map_err(|e| e.to_string())?;
        let hash = crate::verify::payload::recomputed_block_hash(&view)
            .map_err(|e| e.to_string())?
            .0;
        msg = build(&hash, carry).map_err(|e| e.to_string())?;
        payload_hash = Some(hash);
    }
    let ssz_err = |e: SszError| e.to_string();
    let block = BeaconBlock::new(&msg, d.spec).map_err(ssz_err)?;
    let root = block.root().map_err(ssz_err)?;
    let body = block.body().map_err(ssz_err)?;
    let body_root = body.root().map_err(ssz_err)?;
    let mut header = [0u8; 112];
    header[..8].copy_from_slice(&d.slot.to_le_bytes());
    header[8..16].copy_from_slice(&d.proposer.to_le_bytes());
    header[16..48].copy_from_slice(&carry.parent_root);
    header[48..80].copy_from_slice(&state_root);
    header[80..].copy_from_slice(&body_root);
    if let Some(hash) = payload_hash {
        let p = body
            .execution_payload()
            .ok_or_else(|| no_field(body_c, "execution_payload").to_string())?
            .map_err(ssz_err)?;
        carry.payload_hash = hash;
        carry.payload_number += 1;
        carry.withdrawal_index += p.withdrawals().map_err(ssz_err)?.len() as u64;
        carry.latest_payload = Some((d.spec, p.bytes().to_vec()));
    }
    carry.parent_root = root;
    carry.latest_header = header;
    carry.deposit_index += deposit_requests;
    encode_container(signed_c, &[&msg, signature]).map_err(ssz_err)
}

/// The Gloas body's own fields for a drafted block: its parent's payload revealed (most of the time) or
/// withheld, which moves the chain's latest block hash and availability bit; its own bid, building on that
/// hash and committing to its payload's requests; and the payload timeliness committee's votes on the slot
/// before.
fn gloas_fields(
    d: &SlotDraft,
    carry: &mut Carry,
    own_requests: Vec<u8>,
) -> Result<Vec<(&'static str, Vec<u8>)>, String> {
    let err = |e: SszError| e.to_string();
    let mut rng = Rng::new(d.ops_seed ^ 0x6_1045, d.slot);
    let mut parent_requests = empty_requests();
    if let Some(parent) = carry.latest_bid.take() {
        // The upgrade's bid names the latest block hash itself: its child always builds on it, as revealed.
        let upgrade = parent.block_hash == carry.payload_hash;
        if upgrade || !rng.chance(1, 8) {
            let i = (parent.slot % SLOTS_PER_ERA) as usize;
            carry.availability[i / 8] |= 1 << (i % 8);
            if !upgrade {
                carry.payload_number += 1;
            }
            carry.payload_hash = parent.block_hash;
            parent_requests = parent.requests;
        }
    }
    let self_built = rng.chance(1, 3);
    let (builder, value, execution_payment) = if self_built {
        (BUILDER_INDEX_SELF_BUILD, 0, 0)
    } else {
        (
            rng.below(SYNTH_BUILDERS),
            1_000_000 + rng.below(100_000_000),
            rng.below(10_000_000),
        )
    };
    let (prev_randao, fee_recipient, gas_limit) = (
        rng.bytes::<32>(),
        rng.bytes::<20>(),
        30_000_000 + rng.below(6_000_000),
    );
    // The bid commits to a real (empty) Amsterdam block, so ere files of the same blocks can be checked
    // against it.
    let block_hash = crate::crypto::keccak::keccak256(
        bid_payload_header(&BidPayload {
            parent_hash: carry.payload_hash,
            parent_root: carry.parent_root,
            number: carry.payload_number + 1,
            slot: d.slot,
            timestamp: GENESIS_TIME + d.slot * d.seconds_per_slot,
            gas_limit,
            prev_randao,
            fee_recipient,
            requests: &own_requests,
        })
        .encode(),
    )
    .0;
    let requests_root =
        ssz::container_root(&EXECUTION_REQUESTS_GLOAS, &own_requests).map_err(err)?;
    let bid = encode_container(
        &EXECUTION_PAYLOAD_BID,
        &[
            &carry.payload_hash,
            &carry.parent_root,
            &block_hash,
            &prev_randao,
            &fee_recipient,
            &gas_limit.to_le_bytes(),
            &builder.to_le_bytes(),
            &d.slot.to_le_bytes(),
            &value.to_le_bytes(),
            &execution_payment.to_le_bytes(),
            &d.commitments.concat(),
            &requests_root,
        ],
    )
    .map_err(err)?;
    let signature = if self_built {
        consensus::bid::G2_POINT_AT_INFINITY
    } else {
        rng.bytes::<96>()
    };
    let signed_bid =
        encode_container(&SIGNED_EXECUTION_PAYLOAD_BID, &[&bid, &signature]).map_err(err)?;
    let mut attestations = Vec::new();
    for _ in 0..rng.below(5) {
        let mut data = Vec::with_capacity(42);
        data.extend(carry.parent_root);
        data.extend((d.slot - 1).to_le_bytes());
        data.push(!rng.chance(1, 10) as u8);
        data.push(!rng.chance(1, 10) as u8);
        attestations.extend(
            encode_container(
                &PAYLOAD_ATTESTATION,
                &[&rng.bytes::<64>(), &data, &rng.bytes::<96>()],
            )
            .map_err(err)?,
        );
    }
    carry.latest_bid = Some(SynthBid {
        slot: d.slot,
        block_hash,
        bytes: bid,
        requests: own_requests,
    });
    Ok(vec![
        ("signed_execution_payload_bid", signed_bid),
        ("payload_attestations", attestations),
        ("parent_execution_requests", parent_requests),
    ])
}

/// What a synthetic Gloas bid's execution block is made of: the bid's own fields, its block number, and the
/// requests its payload carries (the child's `parent_execution_requests`).
#[derive(Debug, Clone, Copy)]
pub struct BidPayload<'a> {
    /// The bid's `parent_block_hash`.
    pub parent_hash: [u8; 32],
    /// The bid's `parent_block_root` (the header's `parent_beacon_block_root`).
    pub parent_root: [u8; 32],
    /// The execution block number (one past the block the bid builds on).
    pub number: u64,
    /// The bid's slot (the header's `slot_number`).
    pub slot: u64,
    /// `genesis_time + slot * SECONDS_PER_SLOT`.
    pub timestamp: u64,
    /// The bid's `gas_limit`.
    pub gas_limit: u64,
    /// The bid's `prev_randao`.
    pub prev_randao: [u8; 32],
    /// The bid's `fee_recipient`.
    pub fee_recipient: [u8; 20],
    /// The serialized Gloas `ExecutionRequests`.
    pub requests: &'a [u8],
}

/// The Amsterdam header of the (empty: no transactions, withdrawals or receipts) execution block a synthetic
/// Gloas bid commits to; its keccak is the bid's `block_hash`. Tests rebuild ere files of those blocks from era
/// files with it. `requests_hash` is EIP-7685's over the requests' lists, typed by their position (Electra's
/// 0-2; the builder requests' 3 and 4 are the synthesiser's own choice: nothing eraflow checks depends on them).
pub fn bid_payload_header(p: &BidPayload<'_>) -> crate::execution::header::HeaderFields {
    use crate::execution::trie::EMPTY_ROOT;
    use alloy_primitives::{Address, B256};
    let empty_list = crate::crypto::keccak::keccak256([0xc0]);
    crate::execution::header::HeaderFields {
        parent_hash: B256::from(p.parent_hash),
        ommers_hash: empty_list,
        beneficiary: Address::from(p.fee_recipient),
        state_root: B256::from(hash_of(b"eraflow-synth-gloas-state", p.number, p.slot)),
        transactions_root: EMPTY_ROOT,
        receipts_root: EMPTY_ROOT,
        number: p.number,
        gas_limit: p.gas_limit,
        timestamp: p.timestamp,
        mix_hash: B256::from(p.prev_randao),
        base_fee_per_gas: Some(U256::from(1_000_000_000u64)),
        withdrawals_root: Some(EMPTY_ROOT),
        cancun: Some((0, 0, B256::from(p.parent_root))),
        requests_hash: Some(typed_requests_hash(p.requests)),
        amsterdam: Some((empty_list, p.slot)),
        ..Default::default()
    }
}

/// EIP-7685's `requests_hash` of a serialized `ExecutionRequests` container of any number of variable lists,
/// each list's request type its position.
fn typed_requests_hash(requests: &[u8]) -> alloy_primitives::B256 {
    use crate::crypto::sha256::sha256;
    let first = requests
        .get(..4)
        .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize);
    let mut bounds: Vec<usize> = (0..first / 4)
        .filter_map(|i| requests.get(4 * i..4 * i + 4))
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
        .collect();
    bounds.push(requests.len());
    let mut outer = Vec::new();
    for (ty, w) in bounds.windows(2).enumerate() {
        let data = requests.get(w[0]..w[1]).unwrap_or_default();
        if !data.is_empty() {
            outer.extend_from_slice(&sha256(&[&[ty as u8][..], data].concat()));
        }
    }
    alloy_primitives::B256::from(sha256(&outer))
}

fn no_field(c: &'static ssz::Container, name: &str) -> SszError {
    SszError::new(ssz::ErrorKind::NoField {
        container: c.name.into(),
        field: name.into(),
    })
}

/// The execution payload of a drafted block, following `carry`'s chain head.
fn payload(
    c: &'static ssz::Container,
    d: &SlotDraft,
    carry: &Carry,
    block_hash: &[u8; 32],
) -> Result<Vec<u8>, SszError> {
    let mut rng = d.payload_rng.clone();
    let u = |v: u64| v.to_le_bytes().to_vec();
    // A state without validators has no one to withdraw to.
    let count = match d.withdrawal_validators {
        0 => 0,
        _ => rng.below(5),
    };
    let withdrawals: Vec<u8> = (0..count)
        .flat_map(|k| {
            let mut w = Vec::with_capacity(44);
            w.extend_from_slice(&(carry.withdrawal_index + k).to_le_bytes());
            // An existing validator, credited as on mainnet: mostly a skim of the balance above 32 ether (a
            // fraction of an ether), now and then a full exit.
            w.extend_from_slice(&rng.below(d.withdrawal_validators).to_le_bytes());
            w.extend_from_slice(&rng.bytes::<20>());
            let gwei = if rng.chance(1, 20) {
                32_000_000_000 + rng.below(100_000_000)
            } else {
                1_000_000 + rng.below(60_000_000)
            };
            w.extend_from_slice(&gwei.to_le_bytes());
            w
        })
        .collect();
    let txs: Vec<&[u8]> = d.txs.iter().map(|t| t.as_slice()).collect();
    let gas_limit = 30_000_000 + rng.below(6_000_000);
    let mut fields: Vec<Vec<u8>> = Vec::with_capacity(c.fields.len());
    for f in c.fields {
        fields.push(match f.name {
            "parent_hash" => carry.payload_hash.to_vec(),
            "fee_recipient" => rng.bytes::<20>().to_vec(),
            "state_root" | "receipts_root" | "prev_randao" => rng.bytes::<32>().to_vec(),
            "logs_bloom" => {
                let mut b = vec![0u8; 256];
                rng.fill(&mut b);
                b
            }
            "block_number" => u(carry.payload_number + 1),
            "gas_limit" => u(gas_limit),
            "gas_used" => u(rng.below(gas_limit)),
            "timestamp" => u(GENESIS_TIME + d.slot * d.seconds_per_slot),
            "extra_data" => {
                let n = rng.below(33) as usize;
                let mut b = vec![0u8; n];
                rng.fill(&mut b);
                b
            }
            "base_fee_per_gas" => U256::from(7 + rng.below(100_000_000_000))
                .to_le_bytes::<32>()
                .to_vec(),
            "block_hash" => block_hash.to_vec(),
            "transactions" => encode_variable_list(&txs),
            "withdrawals" => withdrawals.clone(),
            "blob_gas_used" => u(d.blob_gas),
            "excess_blob_gas" => u(rng.below(1 << 30)),
            other => return Err(no_field(c, other)),
        });
    }
    let refs: Vec<&[u8]> = fields.iter().map(|f| f.as_slice()).collect();
    encode_container(c, &refs)
}

/// The state at the end of era `era` (slot `era * 8192`), consistent with the blocks just written.
fn era_state(
    era: u64,
    opts: &EraSynthOptions,
    carry: &Carry,
    block_roots: &[u8],
    state_roots: &[u8],
    gvr: [u8; 32],
) -> Result<Vec<u8>, SszError> {
    let net = &opts.network;
    let slot = era * SLOTS_PER_ERA;
    let spec = Spec::at_slot(slot, net);
    let fork = spec.fork;
    let c = spec.state_schema();
    let base = consensus::synth::state(spec, opts.validators, opts.seed ^ era.rotate_left(17));
    let registry = registry(opts, era, spec);
    let mut replace: Vec<(&str, Vec<u8>)> = vec![
        ("validators", registry.validators),
        ("balances", registry.balances),
        ("genesis_time", GENESIS_TIME.to_le_bytes().to_vec()),
        ("genesis_validators_root", gvr.to_vec()),
        ("slot", slot.to_le_bytes().to_vec()),
        ("latest_block_header", carry.latest_header.to_vec()),
        ("block_roots", block_roots.to_vec()),
        ("state_roots", state_roots.to_vec()),
    ];
    // historical_roots is frozen at capella; later eras append summaries instead (one entry per era either way).
    let frozen = if fork >= Fork::Capella {
        (Fork::Capella.activation_slot(net).unwrap_or(0) / SLOTS_PER_ERA) as usize
    } else {
        usize::MAX
    };
    let roots: Vec<u8> = carry
        .history
        .iter()
        .take(frozen)
        .flat_map(|(b, s)| historical_root(b, s))
        .collect();
    replace.push(("historical_roots", roots));
    if fork >= Fork::Capella {
        let summaries: Vec<u8> = carry
            .history
            .iter()
            .skip(frozen)
            .flat_map(|(b, s)| b.iter().chain(s.iter()).copied().collect::<Vec<u8>>())
            .collect();
        replace.push(("historical_summaries", summaries));
    }
    if fork >= Fork::Altair {
        replace.push(("inactivity_scores", registry.inactivity_scores));
    }
    if fork >= Fork::Gloas {
        replace.push(("latest_block_hash", carry.payload_hash.to_vec()));
        if let Some(bid) = &carry.latest_bid {
            replace.push(("latest_execution_payload_bid", bid.bytes.clone()));
        }
        replace.push(("execution_payload_availability", carry.availability.clone()));
        replace.push(("builders", builders(opts, era)));
    } else if fork >= Fork::Bellatrix {
        let header = match &carry.latest_payload {
            Some((pspec, p)) => payload_header(spec, *pspec, p)?,
            // Before the first payload the merge has not happened: the spec's default (all-zero) header.
            None => zero_payload_header(spec)?,
        };
        replace.push(("latest_execution_payload_header", header));
    }
    let refs: Vec<(&str, &[u8])> = replace.iter().map(|(n, v)| (*n, v.as_slice())).collect();
    ssz::with_fields(c, &base, &refs)
}

/// A Gloas state's builder registry: [`SYNTH_BUILDERS`] builders (the same keys in every era of one seed),
/// balances drawn per era, a few leaving.
fn builders(opts: &EraSynthOptions, era: u64) -> Vec<u8> {
    let (mut stable, mut per_era) = (
        Rng::new(opts.seed ^ 0xb0_1de7, 0),
        Rng::new(opts.seed ^ 0xb0_1de7, era + 1),
    );
    let epoch = era * SLOTS_PER_ERA / opts.network.slots_per_epoch();
    let mut out = Vec::with_capacity(SYNTH_BUILDERS as usize * 93);
    for _ in 0..SYNTH_BUILDERS {
        out.extend(stable.bytes::<48>());
        out.push(0); // PAYLOAD_BUILDER_VERSION
        out.extend(stable.bytes::<20>());
        out.extend((1_000_000_000 * (1 + per_era.below(2048))).to_le_bytes());
        out.extend(epoch.saturating_sub(1 + stable.below(16)).to_le_bytes());
        let withdrawable = if per_era.chance(1, 8) {
            epoch + 256
        } else {
            FAR_FUTURE_EPOCH
        };
        out.extend(withdrawable.to_le_bytes());
    }
    out
}

/// A synthetic registry's per-validator lists.
struct SynthRegistry {
    validators: Vec<u8>,
    balances: Vec<u8>,
    inactivity_scores: Vec<u8>,
}

/// `FAR_FUTURE_EPOCH`: an epoch that has not come.
const FAR_FUTURE_EPOCH: u64 = u64::MAX;

/// A plausible registry for era `era`'s state: the same validators (keys, credentials, activation) in every
/// era of one seed, activated before the state's epoch; a few exited, fewer slashed; effective balances of
/// 32 ETH (up to 2,048 for Electra's compounding credentials) and balances a little around them, drawn per era.
fn registry(opts: &EraSynthOptions, era: u64, spec: Spec) -> SynthRegistry {
    let epoch = era * SLOTS_PER_ERA / spec.preset.slots_per_epoch();
    let (mut stable, mut per_era) = (
        Rng::new(opts.seed ^ 0x7e61_5717, 0),
        Rng::new(opts.seed ^ 0x7e61_5717, era + 1),
    );
    let mut out = SynthRegistry {
        validators: Vec::with_capacity(opts.validators * 121),
        balances: Vec::with_capacity(opts.validators * 8),
        inactivity_scores: Vec::with_capacity(opts.validators * 8),
    };
    for _ in 0..opts.validators {
        let pubkey = stable.bytes::<48>();
        let mut credentials = [0u8; 32];
        credentials[0] = stable.below(if spec.fork >= Fork::Electra { 3 } else { 2 }) as u8;
        let from = if credentials[0] == 0 { 1 } else { 12 };
        stable.fill(&mut credentials[from..]);
        let activation = stable.below(epoch.max(1));
        let exited = stable.chance(1, 20) && activation + 1 < epoch;
        let slashed = exited && stable.chance(1, 5);
        let exit = if exited {
            activation + 1 + stable.below(epoch - activation - 1)
        } else {
            FAR_FUTURE_EPOCH
        };
        let effective: u64 = if credentials[0] == 2 {
            32_000_000_000 * (1 + stable.below(64))
        } else {
            32_000_000_000
        };
        out.validators.extend(pubkey);
        out.validators.extend(credentials);
        out.validators.extend(effective.to_le_bytes());
        out.validators.push(slashed as u8);
        out.validators
            .extend(activation.saturating_sub(1 + stable.below(4)).to_le_bytes());
        out.validators.extend(activation.to_le_bytes());
        out.validators.extend(exit.to_le_bytes());
        let withdrawable = exit.checked_add(256).unwrap_or(FAR_FUTURE_EPOCH);
        out.validators.extend(withdrawable.to_le_bytes());
        let balance = if exited && exit + 256 < epoch {
            0
        } else {
            effective - 100_000_000 + per_era.below(1_100_000_000)
        };
        out.balances.extend(balance.to_le_bytes());
        let leaking = per_era.chance(1, 10);
        let score = if leaking { per_era.below(50) } else { 0 };
        out.inactivity_scores.extend(score.to_le_bytes());
    }
    out
}

/// The default `ExecutionPayloadHeader` of `fork`'s state: zero fields, empty `extra_data`.
fn zero_payload_header(spec: Spec) -> Result<Vec<u8>, SszError> {
    let c = field_container(spec.state_schema(), "latest_execution_payload_header")
        .ok_or_else(|| no_field(spec.state_schema(), "latest_execution_payload_header"))?;
    let fields: Vec<Vec<u8>> = c
        .fields
        .iter()
        .map(|f| vec![0u8; f.ty.fixed_size().unwrap_or(0)])
        .collect();
    let refs: Vec<&[u8]> = fields.iter().map(|f| f.as_slice()).collect();
    encode_container(c, &refs)
}

/// The state's `latest_execution_payload_header` (of `state_fork`) for a payload of `payload_fork`: lists
/// become their roots; fields the payload's fork lacks are zero, as the spec's fork upgrades set them.
fn payload_header(
    state_spec: Spec,
    payload_spec: Spec,
    payload: &[u8],
) -> Result<Vec<u8>, SszError> {
    let header_c = field_container(state_spec.state_schema(), "latest_execution_payload_header")
        .ok_or_else(|| no_field(state_spec.state_schema(), "latest_execution_payload_header"))?;
    let body_c = field_container(payload_spec.block_schema(), "body")
        .ok_or_else(|| no_field(payload_spec.block_schema(), "body"))?;
    let payload_c = field_container(body_c, "execution_payload")
        .ok_or_else(|| no_field(body_c, "execution_payload"))?;
    let view = ssz::View::new(payload_c, payload)?;
    let mut fields: Vec<Vec<u8>> = Vec::with_capacity(header_c.fields.len());
    for f in header_c.fields {
        let v = if let Some(b) = view.get(f.name) {
            b.to_vec()
        } else if let Some(list) = f.name.strip_suffix("_root") {
            match (view.get(list), view.field_ty(list)) {
                (Some(b), Some(ty)) => ssz::hash_tree_root(ty, b)?.to_vec(),
                _ => vec![0u8; 32],
            }
        } else {
            vec![0u8; f.ty.fixed_size().unwrap_or(0)]
        };
        fields.push(v);
    }
    let refs: Vec<&[u8]> = fields.iter().map(|f| f.as_slice()).collect();
    encode_container(header_c, &refs)
}
