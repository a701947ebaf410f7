//! Synthetic execution blocks, before and after the merge, for both execution archive writers (era1 and ere):
//! real signatures over seeded keys, every transaction kind the block's forks allow (pre-EIP-155 and EIP-155
//! legacy, 2930, 1559, and after the merge 4844 blobs and 7702 set-code), receipts with logs and correct blooms,
//! failed transactions, ommers before the merge, withdrawals from Shanghai, blob gas and the parent beacon root
//! from Cancun, the requests hash from Prague, and consistent roots.
//!
//! The same `(seed, block number)` always gives the same block, whichever file it is written into, so an era1
//! and an ere file of one era hold the same blocks.

use super::options::{SynthError, SynthOptions};
use super::rng::Rng;
use crate::crypto::keccak::{keccak256, B256};
use crate::crypto::signer::{self, SecretKeyBytes, SignatureAlgorithm};
use crate::execution::body::encode_body;
use crate::execution::header::HeaderFields;
use crate::execution::receipt::{self, LogFields, Outcome};
use crate::execution::trie;
use crate::execution::tx_request::{AccessListEntry, SignedAuthorization, TxRequest};
use crate::execution::withdrawal::Withdrawal;
use crate::formats::execution::BLOCKS_PER_ERA;
use crate::network::{Network, PreMergeSeal};
use alloy_primitives::{Address, Bloom, Bytes, B64, U256};

/// Number of distinct senders; their nonces increase by one per transaction each.
pub(super) const SENDERS: u64 = 16;

/// `GAS_PER_BLOB` ([EIP-4844](https://eips.ethereum.org/EIPS/eip-4844)).
const GAS_PER_BLOB: u64 = 1 << 17;

/// Most withdrawals in one payload (`MAX_WITHDRAWALS_PER_PAYLOAD`, mainnet preset).
const MAX_WITHDRAWALS: u64 = 16;

/// Validators synthetic withdrawals credit: a registry of realistic size for a test network, so rows look like
/// a real chain's (indices within it, skims of a fraction of an ether, the odd full exit of 32 ether).
const VALIDATORS: u64 = 1024;

/// The seeded accounts transactions are sent from.
/// Era files' payloads use them too (`synth::era`).
pub(super) struct Accounts {
    pub(super) keys: Vec<SecretKeyBytes>,
    /// The address of each key (the senders EIP-7708's logs name, Amsterdam on).
    pub(super) addresses: Vec<[u8; 20]>,
    pub(super) algorithm: SignatureAlgorithm,
}

impl Accounts {
    /// The accounts of `seed`, signing with the network's algorithm.
    pub(super) fn new(opts: &SynthOptions) -> Result<Accounts, SynthError> {
        Accounts::of(opts.seed, &opts.network)
    }

    /// The accounts of `seed` on `network`, signing with its algorithm.
    pub(super) fn of(seed: u64, network: &Network) -> Result<Accounts, SynthError> {
        let algorithm = SignatureAlgorithm::from_name(&network.signature_algorithm)
            .map_err(|e| SynthError::Sign(e.to_string()))?;
        let keys: Vec<SecretKeyBytes> = (0..SENDERS as u32)
            .map(|i| signer::test_key(seed, i))
            .collect();
        let addresses = keys
            .iter()
            .map(|k| signer::address_of(k, algorithm))
            .collect::<Result<_, _>>()
            .map_err(|e| SynthError::Sign(e.to_string()))?;
        Ok(Accounts {
            keys,
            addresses,
            algorithm,
        })
    }
}

/// The EIP-7702 authorization list of sender `g`'s type-4 transaction: one or two authorities among the other
/// senders, some with chain id 0 (valid on any chain, as EIP-7702 allows). Era files' payloads draw theirs here
/// too, in the same order of random draws.
pub(super) fn authorizations(
    rng: &mut Rng,
    accounts: &Accounts,
    g: u64,
    chain_id: u64,
) -> Result<Vec<SignedAuthorization>, SynthError> {
    let mut list = Vec::new();
    for a in 0..1 + rng.below(2) {
        let authority = &accounts.keys[((g + a + 1) % SENDERS) as usize];
        let chain = if rng.chance(1, 4) {
            U256::ZERO
        } else {
            U256::from(chain_id)
        };
        list.push(
            SignedAuthorization::sign(
                chain,
                rng.bytes(),
                rng.below(1000),
                authority,
                accounts.algorithm,
            )
            .map_err(|e| SynthError::Sign(e.to_string()))?,
        );
    }
    Ok(list)
}

/// A block's contents before its parent hash is known.
pub(super) struct BlockParts {
    /// The header, `parent_hash` still zero.
    pub(super) header: HeaderFields,
    /// RLP of the body.
    pub(super) body: Vec<u8>,
    /// RLP list of the full (canonical) receipts.
    pub(super) receipts: Vec<u8>,
}

/// The parent hash and total difficulty the first synthetic block of `first` hangs from: nothing at genesis,
/// else a seeded stand-in (synthetic chains start anywhere).
pub(super) fn chain_start(seed: u64, first: u64) -> (B256, U256) {
    if first == 0 {
        return (B256::ZERO, U256::ZERO);
    }
    let mut pre = b"eraflow-synth-parent".to_vec();
    pre.extend_from_slice(&seed.to_be_bytes());
    pre.extend_from_slice(&first.to_be_bytes());
    (
        keccak256(&pre),
        U256::from(first) * U256::from(1_000_000u64),
    )
}

/// AuRa's step duration on gnosis and chiado (`stepDuration` in their chain specs).
const AURA_STEP_SECONDS: u64 = 5;

/// The timestamp of synthetic block `number` (the network presets' post-merge fork times assume it).
pub(super) fn timestamp(number: u64) -> u64 {
    1_600_000_000 + 13 * number
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

/// Block `number` of the chain `opts` describes. Draws from its generator in the same order as ever for
/// pre-merge blocks, so era1 files synthesised before post-merge blocks existed keep their bytes: the base fee,
/// the transactions and their receipts, the ommers, the header's own fields, the withdrawals, then the Cancun
/// and Prague fields. Each step below draws its part in that order.
pub(super) fn block_parts(
    number: u64,
    opts: &SynthOptions,
    accounts: &Accounts,
) -> Result<BlockParts, SynthError> {
    let net = &opts.network;
    let mut rng = Rng::new(opts.seed, number);
    let ts = timestamp(number);
    let merged = net.is_merged(number);
    let (shanghai, cancun, prague) = (net.is_shanghai(ts), net.is_cancun(ts), net.is_prague(ts));
    let amsterdam = net.is_amsterdam(ts);
    let london = net.is_london(number);
    let base_fee = london.then(|| U256::from(1_000_000_000u64 + rng.below(50_000_000_000)));
    let block = BlockContext {
        number,
        opts,
        accounts,
        base_fee,
        kinds: tx_kinds(opts, number),
        amsterdam,
    };
    let txs = transactions(&block, &mut rng)?;

    // AuRa chains seal pre-merge blocks by step, one validator per step, and have no ommers.
    let aura = !merged && net.pre_merge_seal == PreMergeSeal::Aura;
    // Ommers before the merge only.
    let ommers: Vec<Vec<u8>> = if !aura && !merged && number > 0 && number.is_multiple_of(5) {
        ommers(&mut rng, number, ts, base_fee)
    } else {
        Vec::new()
    };

    let mut body = encode_body(&txs.items, &ommers);
    let ommers_rlp = crate::execution::header::wrap_list(&ommers.concat());
    let beneficiary = Address::from(address(&mut rng));
    let state_root = B256::from(rng.bytes::<32>());
    // Proof of work before the merge; zero difficulty and nonce after it, `mix_hash` carrying prev_randao.
    let difficulty = if merged {
        U256::ZERO
    } else {
        U256::from(131_072 + rng.below(1 << 32))
    };
    let extra_data = Bytes::from(rng.calldata(0, 33));
    let mix_hash = B256::from(rng.bytes::<32>());
    let nonce = if merged {
        B64::ZERO
    } else {
        B64::from(rng.bytes::<8>())
    };
    let (difficulty, aura) = if aura {
        let (difficulty, seal) = aura_seal(&mut rng, number, ts);
        (difficulty, Some(seal))
    } else {
        (difficulty, None)
    };
    let withdrawals_root = shanghai.then(|| {
        let withdrawals = withdrawals(&mut rng, number);
        let root = trie::ordered_root(&withdrawals);
        body = with_withdrawals(&txs.items, &withdrawals);
        root
    });
    let cancun_fields = cancun.then(|| {
        (
            txs.blobs * GAS_PER_BLOB,
            rng.below(1 << 30),
            B256::from(rng.bytes::<32>()),
        )
    });
    let requests_hash = prague.then(|| B256::from(rng.bytes::<32>()));
    // Amsterdam: a block access list hash (the list is in no archive), the beacon slot of the block's time, and
    // gas counted before refunds as the larger of two dimensions (EIP-7778, EIP-8037): above the receipts' sum
    // (refunds) or below it (execution and state gas overlapping), never 0 with transactions.
    let (amsterdam_fields, gas_used) = if amsterdam {
        let fields = (
            B256::from(rng.bytes::<32>()),
            (ts - 1_600_000_000) / net.consensus.seconds_per_slot.max(1),
        );
        let sum = txs.gas_used;
        let used = if sum == 0 {
            0
        } else if rng.chance(1, 2) {
            (sum + 1 + rng.below(sum / 5 + 1)).min(30_000_000)
        } else {
            (sum - rng.below(sum / 3 + 1)).max(1)
        };
        (Some(fields), used)
    } else {
        (None, txs.gas_used)
    };
    let header = HeaderFields {
        parent_hash: B256::ZERO,
        ommers_hash: keccak256(&ommers_rlp),
        beneficiary,
        state_root,
        transactions_root: trie::ordered_root(&txs.canonical),
        receipts_root: trie::ordered_root(&txs.receipts),
        logs_bloom: Bloom::from(txs.bloom),
        difficulty,
        number,
        gas_limit: 30_000_000,
        gas_used,
        timestamp: ts,
        extra_data,
        mix_hash,
        nonce,
        aura,
        base_fee_per_gas: base_fee,
        withdrawals_root,
        cancun: cancun_fields,
        requests_hash,
        amsterdam: amsterdam_fields,
    };
    Ok(BlockParts {
        header,
        body,
        receipts: receipt::encode_list(&txs.receipts),
    })
}

/// What every transaction of one block is drawn against.
struct BlockContext<'a> {
    number: u64,
    opts: &'a SynthOptions,
    accounts: &'a Accounts,
    /// From London on.
    base_fee: Option<U256>,
    /// Transaction kinds the block's forks allow, as `(type, pre-EIP-155)`.
    kinds: Vec<(u8, bool)>,
    /// Amsterdam: receipts carry EIP-7708 ETH-transfer logs.
    amsterdam: bool,
}

/// Transaction kinds the forks of block `number` allow, rotated so each appears in every block with enough
/// transactions.
fn tx_kinds(opts: &SynthOptions, number: u64) -> Vec<(u8, bool)> {
    let net = &opts.network;
    let ts = timestamp(number);
    let mut kinds: Vec<(u8, bool)> = vec![(0, true)];
    if net.is_spurious_dragon(number) {
        kinds.push((0, false));
    }
    if net.is_berlin(number) {
        kinds.push((1, false));
    }
    if net.is_london(number) {
        kinds.push((2, false));
    }
    if net.is_cancun(ts) {
        kinds.push((3, false));
    }
    if net.is_prague(ts) {
        kinds.push((4, false));
    }
    kinds
}

/// A block's transactions and their receipts.
struct Transactions {
    /// The transactions as body list items.
    items: Vec<Vec<u8>>,
    /// Their canonical encodings (the transactions trie's leaves).
    canonical: Vec<Vec<u8>>,
    /// Their encoded receipts.
    receipts: Vec<Vec<u8>>,
    /// The union of the receipts' blooms.
    bloom: [u8; 256],
    /// Gas used by the whole block.
    gas_used: u64,
    /// Blobs carried by the block's blob transactions.
    blobs: u64,
}

/// The `opts.txs_per_block` transactions of the block, each signed and followed by its receipt's draws.
fn transactions(block: &BlockContext<'_>, rng: &mut Rng) -> Result<Transactions, SynthError> {
    let n = block.opts.txs_per_block as usize;
    let mut txs = Transactions {
        items: Vec::with_capacity(n),
        canonical: Vec::with_capacity(n),
        receipts: Vec::with_capacity(n),
        bloom: [0u8; 256],
        gas_used: 0,
        blobs: 0,
    };
    for i in 0..block.opts.txs_per_block as u64 {
        // The transaction's index in its era: which kind and sender it gets, and the sender's nonce.
        let g =
            (block.number - block.opts.era * BLOCKS_PER_ERA) * block.opts.txs_per_block as u64 + i;
        let (tx_type, pre155) = block.kinds[(g % block.kinds.len() as u64) as usize];
        let (req, gas_used, blobs) = tx_request(block, rng, g, tx_type, pre155)?;
        txs.blobs += blobs;
        let key = &block.accounts.keys[(g % SENDERS) as usize];
        let canonical = req
            .sign_and_encode(key, block.accounts.algorithm)
            .map_err(|e| SynthError::Sign(e.to_string()))?;
        txs.items.push(TxRequest::body_item(&canonical));
        txs.canonical.push(canonical);

        txs.gas_used += gas_used;
        // Amsterdam: the ETH the transaction moves, for its EIP-7708 log (a creation's to the new contract).
        let moved = block.amsterdam.then(|| {
            let from = block.accounts.addresses[(g % SENDERS) as usize];
            let to = req
                .to
                .unwrap_or_else(|| Address::from(from).create(req.nonce).0 .0);
            (from, to, req.value)
        });
        let (enc, rb) = tx_receipt(block.opts, block.number, rng, tx_type, txs.gas_used, moved);
        crate::execution::bloom::union(&mut txs.bloom, &rb);
        txs.receipts.push(enc);
    }
    Ok(txs)
}

/// The unsigned transaction number `g` of the era, of `tx_type`, with the gas it uses and the blobs it carries.
fn tx_request(
    block: &BlockContext<'_>,
    rng: &mut Rng,
    g: u64,
    tx_type: u8,
    pre155: bool,
) -> Result<(TxRequest, u64, u64), SynthError> {
    let net = &block.opts.network;
    let base_fee = block.base_fee;
    // Blob and set-code transactions cannot create contracts.
    let creation = rng.chance(1, 8) && tx_type < 3;
    let input = if creation {
        rng.calldata(100, 400)
    } else {
        rng.calldata(0, 200)
    };
    let gas_used = 21_000 + 16 * input.len() as u64 + rng.below(40_000);
    let tip = U256::from(rng.below(3_000_000_000));
    let mut req = TxRequest {
        tx_type,
        legacy_pre155: pre155,
        chain_id: net.chain_id,
        nonce: g / SENDERS,
        gas_price: U256::from(1_000_000_000u64 + rng.below(100_000_000_000))
            + base_fee.unwrap_or_default(),
        max_priority_fee_per_gas: tip,
        max_fee_per_gas: base_fee.unwrap_or_default() * U256::from(2u64) + tip,
        gas_limit: gas_used + rng.below(100_000),
        to: (!creation).then(|| address(rng)),
        value: value(rng),
        input,
        access_list: if tx_type >= 1 {
            access_list(rng)
        } else {
            Vec::new()
        },
        ..Default::default()
    };
    let mut blobs = 0;
    if tx_type == 3 {
        req.max_fee_per_blob_gas = U256::from(1 + rng.below(1_000_000_000));
        for _ in 0..1 + rng.below(3) {
            let mut commitment = [0u8; 48];
            rng.fill(&mut commitment);
            // kzg_commitment_to_versioned_hash: 0x01 || sha256(commitment)[1..].
            let mut h = crate::crypto::sha256::sha256(&commitment);
            h[0] = 0x01;
            req.blob_versioned_hashes.push(h);
            blobs += 1;
        }
    }
    if tx_type == 4 {
        req.authorization_list = authorizations(rng, block.accounts, g, net.chain_id)?;
    }
    Ok((req, gas_used, blobs))
}

/// The receipt of a transaction of `tx_type` in block `number` (`cumulative` gas so far): mostly a success with
/// logs, now and then a failure; its encoding and bloom.
fn tx_receipt(
    opts: &SynthOptions,
    number: u64,
    rng: &mut Rng,
    tx_type: u8,
    cumulative: u64,
    moved: Option<([u8; 20], [u8; 20], U256)>,
) -> (Vec<u8>, [u8; 256]) {
    let net = &opts.network;
    let success = rng.chance(7, 8);
    let mut logs: Vec<LogFields> = if success && opts.tokens {
        super::tokens::logs(rng)
    } else if success {
        (0..rng.below(4))
            .map(|_| LogFields {
                address: address(rng),
                topics: (0..rng.below(5)).map(|_| rng.bytes()).collect(),
                data: rng.calldata(0, 100),
            })
            .collect()
    } else {
        Vec::new()
    };
    if let (true, Some(moved)) = (success, moved) {
        eth_transfer_logs(rng, moved, &mut logs);
    }
    let root: [u8; 32] = rng.bytes();
    let outcome = if net.is_byzantium(number) {
        Outcome::Status(success)
    } else {
        Outcome::PostState(&root)
    };
    receipt::encode_receipt(tx_type, outcome, cumulative, &logs)
}

/// A successful Amsterdam transaction's EIP-7708 logs: its own value's first (when it moves ETH to another
/// account), then some internal transfers among its other logs, as `CALL`s with value would emit them.
fn eth_transfer_logs(
    rng: &mut Rng,
    (from, to, value): ([u8; 20], [u8; 20], U256),
    logs: &mut Vec<LogFields>,
) {
    use crate::execution::eth_transfer::{SYSTEM_ADDRESS, TRANSFER_TOPIC};
    let word = |a: [u8; 20]| {
        let mut w = [0u8; 32];
        w[12..].copy_from_slice(&a);
        w
    };
    let log = |from, to, value: U256| LogFields {
        address: SYSTEM_ADDRESS,
        topics: vec![TRANSFER_TOPIC, word(from), word(to)],
        data: value.to_be_bytes::<32>().to_vec(),
    };
    if !value.is_zero() && from != to {
        logs.insert(0, log(from, to, value));
    }
    for _ in 0..rng.below(3) {
        let at = 1 + rng.below(logs.len() as u64) as usize;
        let value = U256::from(1 + rng.below(1 << 50));
        logs.insert(at.min(logs.len()), log(address(rng), address(rng), value));
    }
}

/// The ommers of pre-merge block `number` (one or two, every fifth block).
fn ommers(rng: &mut Rng, number: u64, ts: u64, base_fee: Option<U256>) -> Vec<Vec<u8>> {
    (0..1 + rng.below(2))
        .map(|_| {
            HeaderFields {
                parent_hash: B256::from(rng.bytes::<32>()),
                ommers_hash: B256::from(rng.bytes::<32>()),
                beneficiary: Address::from(address(rng)),
                state_root: B256::from(rng.bytes::<32>()),
                transactions_root: trie::EMPTY_ROOT,
                receipts_root: trie::EMPTY_ROOT,
                difficulty: U256::from(131_072 + rng.below(1 << 32)),
                number: number - 1,
                gas_limit: 30_000_000,
                timestamp: ts - 5,
                extra_data: Bytes::from(rng.calldata(0, 33)),
                mix_hash: B256::from(rng.bytes::<32>()),
                nonce: B64::from(rng.bytes::<8>()),
                base_fee_per_gas: base_fee,
                ..Default::default()
            }
            .encode()
        })
        .collect()
}

/// AuRa's seal of block `number`: `step = timestamp / 5` and the difficulty rule
/// `2^128 - 1 + parent_step - step` (see `verify::execution`), the signature random (nothing checks it).
fn aura_seal(rng: &mut Rng, number: u64, ts: u64) -> (U256, (u64, [u8; 65])) {
    let step = ts / AURA_STEP_SECONDS;
    let difficulty = match number.checked_sub(1) {
        Some(parent) => {
            U256::from(u128::MAX) + U256::from(timestamp(parent) / AURA_STEP_SECONDS)
                - U256::from(step)
        }
        None => U256::from(131_072u64),
    };
    let mut signature = [0u8; 65];
    rng.fill(&mut signature);
    (difficulty, (step, signature))
}

/// The withdrawals of block `number` (Shanghai on), encoded.
fn withdrawals(rng: &mut Rng, number: u64) -> Vec<Vec<u8>> {
    (0..rng.below(MAX_WITHDRAWALS + 1))
        .map(|k| {
            // Mostly skims of the balance above 32 ether (a fraction of an ether), now and then a full exit.
            let amount = if rng.chance(1, 20) {
                32_000_000_000 + rng.below(100_000_000)
            } else {
                1_000_000 + rng.below(60_000_000)
            };
            Withdrawal {
                index: number * MAX_WITHDRAWALS + k,
                validator_index: rng.below(VALIDATORS),
                address: address(rng),
                amount,
            }
            .encode()
        })
        .collect()
}

/// A body of transactions, no ommers, and withdrawals (Shanghai on).
fn with_withdrawals(tx_items: &[Vec<u8>], withdrawals: &[Vec<u8>]) -> Vec<u8> {
    use crate::execution::header::wrap_list;
    let txs = wrap_list(&tx_items.concat());
    let ommers = wrap_list(&[]);
    let withdrawals = wrap_list(&withdrawals.concat());
    wrap_list(&[txs, ommers, withdrawals].concat())
}
