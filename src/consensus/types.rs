//! Container schemas of every fork, as static [`Ty`] descriptions, for each preset a network may use.
//!
//! Transcribed from consensus-specs `specs/<fork>/beacon-chain.md` ("Containers") and `presets/mainnet/*.yaml`;
//! each constant names the preset value it encodes. A container that changes in a fork gets a new static
//! with the fork's suffix; unchanged ones are shared.
//!
//! Containers whose SSZ type depends on a preset value live in one module per preset ([`mainnet`],
//! [`gnosis`]), generated from one definition: the gnosis preset has `SLOTS_PER_EPOCH = 16` (so the
//! `eth1_data_votes` limit, phase0's pending-attestation limit and fulu's `proposer_lookahead` halve) and
//! `MAX_WITHDRAWALS_PER_PAYLOAD = 8` (so capella-on payloads, bodies and blocks differ); every other
//! type-shaping value is the mainnet one (gnosischain/specs `consensus/preset/gnosis`, and
//! `@lodestar/params` `presets/gnosis`). Everything else is shared.
//!
//! Specs: <https://github.com/ethereum/consensus-specs/tree/master/specs> (e.g.
//! <https://github.com/ethereum/consensus-specs/blob/master/specs/phase0/beacon-chain.md#containers>), presets:
//! <https://github.com/ethereum/consensus-specs/tree/master/presets/mainnet>.

use super::ssz::{Container, Field, Ty};
use super::validators::validators_root;

/// `container!(VIS NAME = "SpecName" [elements_root: FN] { field: TYPE, ... })`: a static [`Container`];
/// the optional `elements_root` names a specialised root for lists and vectors of it; `[active_fields: [1,
/// ...]]` instead makes it a `ProgressiveContainer(active_fields)`.
macro_rules! container {
    ($vis:vis $name:ident = $spec:literal { $($f:ident : $t:expr),* $(,)? }) => {
        #[doc = concat!("`", $spec, "` container.")]
        $vis static $name: Container =
            Container::new($spec, &[$(Field { name: stringify!($f), ty: &$t }),*]);
    };
    ($vis:vis $name:ident = $spec:literal [active_fields: $active:expr] { $($f:ident : $t:expr),* $(,)? }) => {
        #[doc = concat!("`", $spec, "` progressive container (EIP-7495).")]
        $vis static $name: Container =
            Container::progressive($spec, &[$(Field { name: stringify!($f), ty: &$t }),*], &$active);
    };
    ($vis:vis $name:ident = $spec:literal [elements_root: $root:path] { $($f:ident : $t:expr),* $(,)? }) => {
        #[doc = concat!("`", $spec, "` container.")]
        $vis static $name: Container =
            Container::new($spec, &[$(Field { name: stringify!($f), ty: &$t }),*]).with_elements_root($root);
    };
}

// ---- Preset values shared by the mainnet and gnosis presets (presets/mainnet/*.yaml) ----
/// `SLOTS_PER_HISTORICAL_ROOT`: length of `block_roots` / `state_roots`.
pub const SLOTS_PER_HISTORICAL_ROOT: usize = 8192;
/// `HISTORICAL_ROOTS_LIMIT` (also the limit of `historical_summaries`).
pub const HISTORICAL_ROOTS_LIMIT: u64 = 1 << 24;
/// `VALIDATOR_REGISTRY_LIMIT`.
pub const VALIDATOR_REGISTRY_LIMIT: u64 = 1 << 40;
/// `EPOCHS_PER_HISTORICAL_VECTOR`: length of `randao_mixes`.
pub const EPOCHS_PER_HISTORICAL_VECTOR: usize = 65536;
/// `EPOCHS_PER_SLASHINGS_VECTOR`.
pub const EPOCHS_PER_SLASHINGS_VECTOR: usize = 8192;
/// `EPOCHS_PER_ETH1_VOTING_PERIOD` (the `eth1_data_votes` limit is this times `SLOTS_PER_EPOCH`).
pub const EPOCHS_PER_ETH1_VOTING_PERIOD: u64 = 64;
/// `MAX_ATTESTATIONS` (phase0 to deneb; phase0 states hold this times `SLOTS_PER_EPOCH` pending ones).
pub const MAX_ATTESTATIONS: u64 = 128;
/// `MIN_SEED_LOOKAHEAD` (fulu's `proposer_lookahead` covers this plus one epochs).
pub const MIN_SEED_LOOKAHEAD: u64 = 1;
/// `MAX_VALIDATORS_PER_COMMITTEE`.
pub const MAX_VALIDATORS_PER_COMMITTEE: u64 = 2048;
/// `MAX_COMMITTEES_PER_SLOT`.
pub const MAX_COMMITTEES_PER_SLOT: u64 = 64;
/// `DEPOSIT_CONTRACT_TREE_DEPTH + 1`.
pub const DEPOSIT_PROOF_LENGTH: usize = 33;
/// `SYNC_COMMITTEE_SIZE` (altair).
pub const SYNC_COMMITTEE_SIZE: usize = 512;
/// `MAX_BYTES_PER_TRANSACTION` (bellatrix).
pub const MAX_BYTES_PER_TRANSACTION: u64 = 1 << 30;
/// `MAX_TRANSACTIONS_PER_PAYLOAD` (bellatrix).
pub const MAX_TRANSACTIONS_PER_PAYLOAD: u64 = 1 << 20;
/// `BYTES_PER_LOGS_BLOOM`.
pub const BYTES_PER_LOGS_BLOOM: usize = 256;
/// `MAX_EXTRA_DATA_BYTES`.
pub const MAX_EXTRA_DATA_BYTES: u64 = 32;
/// `MAX_BLS_TO_EXECUTION_CHANGES` (capella).
pub const MAX_BLS_TO_EXECUTION_CHANGES: u64 = 16;
/// `MAX_BLOB_COMMITMENTS_PER_BLOCK` (deneb).
pub const MAX_BLOB_COMMITMENTS_PER_BLOCK: u64 = 4096;
/// `PENDING_DEPOSITS_LIMIT` (electra).
pub const PENDING_DEPOSITS_LIMIT: u64 = 1 << 27;
/// `PENDING_PARTIAL_WITHDRAWALS_LIMIT` (electra).
pub const PENDING_PARTIAL_WITHDRAWALS_LIMIT: u64 = 1 << 27;
/// `PENDING_CONSOLIDATIONS_LIMIT` (electra).
pub const PENDING_CONSOLIDATIONS_LIMIT: u64 = 1 << 18;
/// `MAX_DEPOSIT_REQUESTS_PER_PAYLOAD` (electra).
pub const MAX_DEPOSIT_REQUESTS_PER_PAYLOAD: u64 = 8192;
/// `MAX_WITHDRAWAL_REQUESTS_PER_PAYLOAD` (electra).
pub const MAX_WITHDRAWAL_REQUESTS_PER_PAYLOAD: u64 = 16;
/// `MAX_CONSOLIDATION_REQUESTS_PER_PAYLOAD` (electra).
pub const MAX_CONSOLIDATION_REQUESTS_PER_PAYLOAD: u64 = 2;

// ---- Basic types ----
/// `uint8`.
pub static U8: Ty = Ty::Uint(1);
/// `uint64` (Slot, Epoch, Gwei, ValidatorIndex, ...).
pub static U64: Ty = Ty::Uint(8);
/// `uint256` (execution `base_fee_per_gas`).
pub static U256: Ty = Ty::Uint(32);
/// `boolean`.
pub static BOOL: Ty = Ty::Bool;
/// `Bytes4` (Version).
pub static BYTES4: Ty = Ty::Bytes(4);
/// `Bytes20` (ExecutionAddress).
pub static BYTES20: Ty = Ty::Bytes(20);
/// `Bytes32` (Root, Hash32).
pub static BYTES32: Ty = Ty::Bytes(32);
/// `Bytes48` (BLSPubkey, KZGCommitment).
pub static BYTES48: Ty = Ty::Bytes(48);
/// `Bytes96` (BLSSignature).
pub static BYTES96: Ty = Ty::Bytes(96);

// ---- phase0 ----
container!(pub FORK = "Fork" { previous_version: BYTES4, current_version: BYTES4, epoch: U64 });
container!(pub CHECKPOINT = "Checkpoint" { epoch: U64, root: BYTES32 });
// The registry is most of a state's hashing: its lists take the batched path in `validators`.
container!(pub VALIDATOR = "Validator" [elements_root: validators_root] {
    pubkey: BYTES48, withdrawal_credentials: BYTES32, effective_balance: U64, slashed: BOOL,
    activation_eligibility_epoch: U64, activation_epoch: U64, exit_epoch: U64, withdrawable_epoch: U64,
});
container!(pub ATTESTATION_DATA = "AttestationData" {
    slot: U64, index: U64, beacon_block_root: BYTES32, source: Ty::Container(&CHECKPOINT), target: Ty::Container(&CHECKPOINT),
});
container!(pub INDEXED_ATTESTATION = "IndexedAttestation" {
    attesting_indices: Ty::List(&U64, MAX_VALIDATORS_PER_COMMITTEE), data: Ty::Container(&ATTESTATION_DATA), signature: BYTES96,
});
container!(pub PENDING_ATTESTATION = "PendingAttestation" {
    aggregation_bits: Ty::Bitlist(MAX_VALIDATORS_PER_COMMITTEE), data: Ty::Container(&ATTESTATION_DATA),
    inclusion_delay: U64, proposer_index: U64,
});
container!(pub ETH1_DATA = "Eth1Data" { deposit_root: BYTES32, deposit_count: U64, block_hash: BYTES32 });
container!(pub HISTORICAL_BATCH = "HistoricalBatch" {
    block_roots: Ty::Vector(&BYTES32, SLOTS_PER_HISTORICAL_ROOT), state_roots: Ty::Vector(&BYTES32, SLOTS_PER_HISTORICAL_ROOT),
});
container!(pub DEPOSIT_DATA = "DepositData" { pubkey: BYTES48, withdrawal_credentials: BYTES32, amount: U64, signature: BYTES96 });
container!(pub BEACON_BLOCK_HEADER = "BeaconBlockHeader" {
    slot: U64, proposer_index: U64, parent_root: BYTES32, state_root: BYTES32, body_root: BYTES32,
});
container!(pub SIGNED_BEACON_BLOCK_HEADER = "SignedBeaconBlockHeader" { message: Ty::Container(&BEACON_BLOCK_HEADER), signature: BYTES96 });
container!(pub PROPOSER_SLASHING = "ProposerSlashing" {
    signed_header_1: Ty::Container(&SIGNED_BEACON_BLOCK_HEADER), signed_header_2: Ty::Container(&SIGNED_BEACON_BLOCK_HEADER),
});
container!(pub ATTESTER_SLASHING = "AttesterSlashing" {
    attestation_1: Ty::Container(&INDEXED_ATTESTATION), attestation_2: Ty::Container(&INDEXED_ATTESTATION),
});
container!(pub ATTESTATION = "Attestation" {
    aggregation_bits: Ty::Bitlist(MAX_VALIDATORS_PER_COMMITTEE), data: Ty::Container(&ATTESTATION_DATA), signature: BYTES96,
});
container!(pub DEPOSIT = "Deposit" { proof: Ty::Vector(&BYTES32, DEPOSIT_PROOF_LENGTH), data: Ty::Container(&DEPOSIT_DATA) });
container!(pub VOLUNTARY_EXIT = "VoluntaryExit" { epoch: U64, validator_index: U64 });
container!(pub SIGNED_VOLUNTARY_EXIT = "SignedVoluntaryExit" { message: Ty::Container(&VOLUNTARY_EXIT), signature: BYTES96 });

// ---- altair ----
container!(pub SYNC_AGGREGATE = "SyncAggregate" { sync_committee_bits: Ty::Bitvector(SYNC_COMMITTEE_SIZE), sync_committee_signature: BYTES96 });
container!(pub SYNC_COMMITTEE = "SyncCommittee" { pubkeys: Ty::Vector(&BYTES48, SYNC_COMMITTEE_SIZE), aggregate_pubkey: BYTES48 });

// ---- bellatrix ----
/// `Transaction = ByteList[MAX_BYTES_PER_TRANSACTION]`.
pub static TRANSACTION: Ty = Ty::List(&U8, MAX_BYTES_PER_TRANSACTION);
/// `extra_data: ByteList[MAX_EXTRA_DATA_BYTES]`.
pub static EXTRA_DATA: Ty = Ty::List(&U8, MAX_EXTRA_DATA_BYTES);
/// `List[Transaction, MAX_TRANSACTIONS_PER_PAYLOAD]`.
pub static TRANSACTIONS: Ty = Ty::List(&TRANSACTION, MAX_TRANSACTIONS_PER_PAYLOAD);
/// `logs_bloom: ByteVector[BYTES_PER_LOGS_BLOOM]`.
pub static LOGS_BLOOM: Ty = Ty::Bytes(BYTES_PER_LOGS_BLOOM);

container!(pub EXECUTION_PAYLOAD_BELLATRIX = "ExecutionPayload" {
    parent_hash: BYTES32, fee_recipient: BYTES20, state_root: BYTES32, receipts_root: BYTES32, logs_bloom: LOGS_BLOOM,
    prev_randao: BYTES32, block_number: U64, gas_limit: U64, gas_used: U64, timestamp: U64, extra_data: EXTRA_DATA,
    base_fee_per_gas: U256, block_hash: BYTES32, transactions: TRANSACTIONS,
});
container!(pub EXECUTION_PAYLOAD_HEADER_BELLATRIX = "ExecutionPayloadHeader" {
    parent_hash: BYTES32, fee_recipient: BYTES20, state_root: BYTES32, receipts_root: BYTES32, logs_bloom: LOGS_BLOOM,
    prev_randao: BYTES32, block_number: U64, gas_limit: U64, gas_used: U64, timestamp: U64, extra_data: EXTRA_DATA,
    base_fee_per_gas: U256, block_hash: BYTES32, transactions_root: BYTES32,
});

// ---- capella ----
container!(pub WITHDRAWAL = "Withdrawal" { index: U64, validator_index: U64, address: BYTES20, amount: U64 });
container!(pub BLS_TO_EXECUTION_CHANGE = "BLSToExecutionChange" { validator_index: U64, from_bls_pubkey: BYTES48, to_execution_address: BYTES20 });
container!(pub SIGNED_BLS_TO_EXECUTION_CHANGE = "SignedBLSToExecutionChange" { message: Ty::Container(&BLS_TO_EXECUTION_CHANGE), signature: BYTES96 });
container!(pub HISTORICAL_SUMMARY = "HistoricalSummary" { block_summary_root: BYTES32, state_summary_root: BYTES32 });

container!(pub EXECUTION_PAYLOAD_HEADER_CAPELLA = "ExecutionPayloadHeader" {
    parent_hash: BYTES32, fee_recipient: BYTES20, state_root: BYTES32, receipts_root: BYTES32, logs_bloom: LOGS_BLOOM,
    prev_randao: BYTES32, block_number: U64, gas_limit: U64, gas_used: U64, timestamp: U64, extra_data: EXTRA_DATA,
    base_fee_per_gas: U256, block_hash: BYTES32, transactions_root: BYTES32, withdrawals_root: BYTES32,
});

// ---- deneb (the payload is unchanged in electra and fulu) ----
container!(pub EXECUTION_PAYLOAD_HEADER_DENEB = "ExecutionPayloadHeader" {
    parent_hash: BYTES32, fee_recipient: BYTES20, state_root: BYTES32, receipts_root: BYTES32, logs_bloom: LOGS_BLOOM,
    prev_randao: BYTES32, block_number: U64, gas_limit: U64, gas_used: U64, timestamp: U64, extra_data: EXTRA_DATA,
    base_fee_per_gas: U256, block_hash: BYTES32, transactions_root: BYTES32, withdrawals_root: BYTES32,
    blob_gas_used: U64, excess_blob_gas: U64,
});

// ---- electra ----
container!(pub INDEXED_ATTESTATION_ELECTRA = "IndexedAttestation" {
    attesting_indices: Ty::List(&U64, MAX_VALIDATORS_PER_COMMITTEE * MAX_COMMITTEES_PER_SLOT),
    data: Ty::Container(&ATTESTATION_DATA), signature: BYTES96,
});
container!(pub ATTESTER_SLASHING_ELECTRA = "AttesterSlashing" {
    attestation_1: Ty::Container(&INDEXED_ATTESTATION_ELECTRA), attestation_2: Ty::Container(&INDEXED_ATTESTATION_ELECTRA),
});
container!(pub ATTESTATION_ELECTRA = "Attestation" {
    aggregation_bits: Ty::Bitlist(MAX_VALIDATORS_PER_COMMITTEE * MAX_COMMITTEES_PER_SLOT), data: Ty::Container(&ATTESTATION_DATA),
    signature: BYTES96, committee_bits: Ty::Bitvector(MAX_COMMITTEES_PER_SLOT as usize),
});
container!(pub DEPOSIT_REQUEST = "DepositRequest" {
    pubkey: BYTES48, withdrawal_credentials: BYTES32, amount: U64, signature: BYTES96, index: U64,
});
container!(pub WITHDRAWAL_REQUEST = "WithdrawalRequest" { source_address: BYTES20, validator_pubkey: BYTES48, amount: U64 });
container!(pub CONSOLIDATION_REQUEST = "ConsolidationRequest" { source_address: BYTES20, source_pubkey: BYTES48, target_pubkey: BYTES48 });
container!(pub EXECUTION_REQUESTS = "ExecutionRequests" {
    deposits: Ty::List(&Ty::Container(&DEPOSIT_REQUEST), MAX_DEPOSIT_REQUESTS_PER_PAYLOAD),
    withdrawals: Ty::List(&Ty::Container(&WITHDRAWAL_REQUEST), MAX_WITHDRAWAL_REQUESTS_PER_PAYLOAD),
    consolidations: Ty::List(&Ty::Container(&CONSOLIDATION_REQUEST), MAX_CONSOLIDATION_REQUESTS_PER_PAYLOAD),
});
container!(pub PENDING_DEPOSIT = "PendingDeposit" {
    pubkey: BYTES48, withdrawal_credentials: BYTES32, amount: U64, signature: BYTES96, slot: U64,
});
container!(pub PENDING_PARTIAL_WITHDRAWAL = "PendingPartialWithdrawal" { validator_index: U64, amount: U64, withdrawable_epoch: U64 });
container!(pub PENDING_CONSOLIDATION = "PendingConsolidation" { source_index: U64, target_index: U64 });

// ---- block bodies ----
/// `proposer_slashings: List[ProposerSlashing, MAX_PROPOSER_SLASHINGS=16]`.
pub static PROPOSER_SLASHINGS: Ty = Ty::List(&Ty::Container(&PROPOSER_SLASHING), 16);
/// `attester_slashings: List[AttesterSlashing, MAX_ATTESTER_SLASHINGS=2]`.
pub static ATTESTER_SLASHINGS: Ty = Ty::List(&Ty::Container(&ATTESTER_SLASHING), 2);
/// `attestations: List[Attestation, MAX_ATTESTATIONS=128]`.
pub static ATTESTATIONS: Ty = Ty::List(&Ty::Container(&ATTESTATION), 128);
/// electra `attester_slashings: List[AttesterSlashing, MAX_ATTESTER_SLASHINGS_ELECTRA=1]`.
pub static ATTESTER_SLASHINGS_ELECTRA: Ty = Ty::List(&Ty::Container(&ATTESTER_SLASHING_ELECTRA), 1);
/// electra `attestations: List[Attestation, MAX_ATTESTATIONS_ELECTRA=8]`.
pub static ATTESTATIONS_ELECTRA: Ty = Ty::List(&Ty::Container(&ATTESTATION_ELECTRA), 8);
/// `deposits: List[Deposit, MAX_DEPOSITS=16]`.
pub static DEPOSITS: Ty = Ty::List(&Ty::Container(&DEPOSIT), 16);
/// `voluntary_exits: List[SignedVoluntaryExit, MAX_VOLUNTARY_EXITS=16]`.
pub static VOLUNTARY_EXITS: Ty = Ty::List(&Ty::Container(&SIGNED_VOLUNTARY_EXIT), 16);
/// `bls_to_execution_changes: List[SignedBLSToExecutionChange, MAX_BLS_TO_EXECUTION_CHANGES]`.
pub static BLS_CHANGES: Ty = Ty::List(
    &Ty::Container(&SIGNED_BLS_TO_EXECUTION_CHANGE),
    MAX_BLS_TO_EXECUTION_CHANGES,
);
/// `blob_kzg_commitments: List[KZGCommitment, MAX_BLOB_COMMITMENTS_PER_BLOCK]`.
pub static BLOB_KZG_COMMITMENTS: Ty = Ty::List(&BYTES48, MAX_BLOB_COMMITMENTS_PER_BLOCK);

// ---- states ----
// ---- Gloas (EIP-7732), consensus-specs v1.7.0-alpha.13 `specs/gloas/beacon-chain.md`: the containers that
// carry the execution payload bid and the payload timeliness committee's votes. ----
/// `PTC_SIZE` (gloas preset).
pub const PTC_SIZE: usize = 512;
/// `BUILDER_INDEX_SELF_BUILD`: the builder index of a bid the proposer built itself.
pub const BUILDER_INDEX_SELF_BUILD: u64 = u64::MAX;
/// `blob_kzg_commitments: ProgressiveList[KZGCommitment]` (read up to `MAX_BLOB_COMMITMENTS_PER_BLOCK`).
pub static BLOB_KZG_COMMITMENTS_GLOAS: Ty =
    Ty::ProgressiveList(&BYTES48, MAX_BLOB_COMMITMENTS_PER_BLOCK);
container!(pub PAYLOAD_ATTESTATION_DATA = "PayloadAttestationData" {
    beacon_block_root: BYTES32, slot: U64, payload_present: BOOL, blob_data_available: BOOL,
});
container!(pub PAYLOAD_ATTESTATION = "PayloadAttestation" [active_fields: [1, 1, 1]] {
    aggregation_bits: Ty::Bitvector(PTC_SIZE), data: Ty::Container(&PAYLOAD_ATTESTATION_DATA), signature: BYTES96,
});
container!(pub EXECUTION_PAYLOAD_BID = "ExecutionPayloadBid" [active_fields: [1; 12]] {
    parent_block_hash: BYTES32, parent_block_root: BYTES32, block_hash: BYTES32, prev_randao: BYTES32,
    fee_recipient: BYTES20, gas_limit: U64, builder_index: U64, slot: U64, value: U64, execution_payment: U64,
    blob_kzg_commitments: BLOB_KZG_COMMITMENTS_GLOAS, execution_requests_root: BYTES32,
});
container!(pub SIGNED_EXECUTION_PAYLOAD_BID = "SignedExecutionPayloadBid" {
    message: Ty::Container(&EXECUTION_PAYLOAD_BID), signature: BYTES96,
});
container!(pub BUILDER = "Builder" {
    pubkey: BYTES48, version: U8, execution_address: BYTES20, balance: U64, deposit_epoch: U64, withdrawable_epoch: U64,
});
container!(pub BUILDER_PENDING_WITHDRAWAL = "BuilderPendingWithdrawal" {
    fee_recipient: BYTES20, amount: U64, builder_index: U64,
});
container!(pub BUILDER_PENDING_PAYMENT = "BuilderPendingPayment" {
    weight: U64, withdrawal: Ty::Container(&BUILDER_PENDING_WITHDRAWAL), proposer_index: U64,
});
container!(pub BUILDER_DEPOSIT_REQUEST = "BuilderDepositRequest" {
    pubkey: BYTES48, withdrawal_credentials: BYTES32, amount: U64, signature: BYTES96,
});
container!(pub BUILDER_EXIT_REQUEST = "BuilderExitRequest" { source_address: BYTES20, pubkey: BYTES48 });
/// `MAX_PAYLOAD_ATTESTATIONS` (gloas).
pub const MAX_PAYLOAD_ATTESTATIONS: u64 = 4;
/// `MAX_BUILDER_DEPOSIT_REQUESTS_PER_PAYLOAD` (gloas).
pub const MAX_BUILDER_DEPOSIT_REQUESTS_PER_PAYLOAD: u64 = 64;
/// `MAX_BUILDER_EXIT_REQUESTS_PER_PAYLOAD` (gloas).
pub const MAX_BUILDER_EXIT_REQUESTS_PER_PAYLOAD: u64 = 16;
/// A progressive list the spec leaves unbounded: any length is read.
const UNBOUNDED: u64 = u64::MAX;
/// `AggregationBits: ProgressiveBitList` (read up to a slot's committees).
pub static AGGREGATION_BITS_GLOAS: Ty =
    Ty::ProgressiveBitlist(MAX_VALIDATORS_PER_COMMITTEE * MAX_COMMITTEES_PER_SLOT);
container!(pub ATTESTATION_GLOAS = "Attestation" [active_fields: [1; 4]] {
    aggregation_bits: AGGREGATION_BITS_GLOAS, data: Ty::Container(&ATTESTATION_DATA), signature: BYTES96,
    committee_bits: Ty::Bitvector(MAX_COMMITTEES_PER_SLOT as usize),
});
container!(pub INDEXED_ATTESTATION_GLOAS = "IndexedAttestation" [active_fields: [1; 3]] {
    attesting_indices: Ty::ProgressiveList(&U64, MAX_VALIDATORS_PER_COMMITTEE * MAX_COMMITTEES_PER_SLOT),
    data: Ty::Container(&ATTESTATION_DATA), signature: BYTES96,
});
container!(pub ATTESTER_SLASHING_GLOAS = "AttesterSlashing" {
    attestation_1: Ty::Container(&INDEXED_ATTESTATION_GLOAS), attestation_2: Ty::Container(&INDEXED_ATTESTATION_GLOAS),
});
container!(pub EXECUTION_REQUESTS_GLOAS = "ExecutionRequests" [active_fields: [1; 5]] {
    deposits: Ty::ProgressiveList(&Ty::Container(&DEPOSIT_REQUEST), UNBOUNDED),
    withdrawals: Ty::ProgressiveList(&Ty::Container(&WITHDRAWAL_REQUEST), MAX_WITHDRAWAL_REQUESTS_PER_PAYLOAD),
    consolidations: Ty::ProgressiveList(&Ty::Container(&CONSOLIDATION_REQUEST), MAX_CONSOLIDATION_REQUESTS_PER_PAYLOAD),
    builder_deposits: Ty::ProgressiveList(&Ty::Container(&BUILDER_DEPOSIT_REQUEST), MAX_BUILDER_DEPOSIT_REQUESTS_PER_PAYLOAD),
    builder_exits: Ty::ProgressiveList(&Ty::Container(&BUILDER_EXIT_REQUEST), MAX_BUILDER_EXIT_REQUESTS_PER_PAYLOAD),
});
/// Gloas body lists (`ProgressiveList[...]`), read up to the limits of Electra's operations (deposits: none,
/// as Lodestar reads them: the deposit contract's queue ended with Electra's requests).
pub static PROPOSER_SLASHINGS_GLOAS: Ty =
    Ty::ProgressiveList(&Ty::Container(&PROPOSER_SLASHING), 16);
/// `attester_slashings: ProgressiveList[AttesterSlashing]`.
pub static ATTESTER_SLASHINGS_GLOAS: Ty =
    Ty::ProgressiveList(&Ty::Container(&ATTESTER_SLASHING_GLOAS), 1);
/// `attestations: ProgressiveList[Attestation]`.
pub static ATTESTATIONS_GLOAS: Ty = Ty::ProgressiveList(&Ty::Container(&ATTESTATION_GLOAS), 8);
/// `deposits: ProgressiveList[Deposit]`.
pub static DEPOSITS_GLOAS: Ty = Ty::ProgressiveList(&Ty::Container(&DEPOSIT), 0);
/// `voluntary_exits: ProgressiveList[SignedVoluntaryExit]`.
pub static VOLUNTARY_EXITS_GLOAS: Ty =
    Ty::ProgressiveList(&Ty::Container(&SIGNED_VOLUNTARY_EXIT), 16);
/// `bls_to_execution_changes: ProgressiveList[SignedBLSToExecutionChange]`.
pub static BLS_CHANGES_GLOAS: Ty = Ty::ProgressiveList(
    &Ty::Container(&SIGNED_BLS_TO_EXECUTION_CHANGE),
    MAX_BLS_TO_EXECUTION_CHANGES,
);
/// `payload_attestations: ProgressiveList[PayloadAttestation]`.
pub static PAYLOAD_ATTESTATIONS: Ty = Ty::ProgressiveList(
    &Ty::Container(&PAYLOAD_ATTESTATION),
    MAX_PAYLOAD_ATTESTATIONS,
);
/// Gloas state lists of one entry per validator: `ProgressiveList[Validator]`, `[Gwei]`, `[ParticipationFlags]`.
pub static VALIDATORS_GLOAS: Ty =
    Ty::ProgressiveList(&Ty::Container(&VALIDATOR), VALIDATOR_REGISTRY_LIMIT);
/// `balances` / `inactivity_scores: ProgressiveList[Uint64]`.
pub static U64_REGISTRY_GLOAS: Ty = Ty::ProgressiveList(&U64, VALIDATOR_REGISTRY_LIMIT);
/// `*_epoch_participation: ProgressiveList[ParticipationFlags]`.
pub static PARTICIPATION_GLOAS: Ty = Ty::ProgressiveList(&U8, VALIDATOR_REGISTRY_LIMIT);
/// `pending_deposits: ProgressiveList[PendingDeposit]`.
pub static PENDING_DEPOSITS_GLOAS: Ty =
    Ty::ProgressiveList(&Ty::Container(&PENDING_DEPOSIT), PENDING_DEPOSITS_LIMIT);
/// `pending_partial_withdrawals: ProgressiveList[PendingPartialWithdrawal]`.
pub static PENDING_PARTIAL_WITHDRAWALS_GLOAS: Ty = Ty::ProgressiveList(
    &Ty::Container(&PENDING_PARTIAL_WITHDRAWAL),
    PENDING_PARTIAL_WITHDRAWALS_LIMIT,
);
/// `pending_consolidations: ProgressiveList[PendingConsolidation]`.
pub static PENDING_CONSOLIDATIONS_GLOAS: Ty = Ty::ProgressiveList(
    &Ty::Container(&PENDING_CONSOLIDATION),
    PENDING_CONSOLIDATIONS_LIMIT,
);
/// `builders: ProgressiveList[Builder]`.
pub static BUILDERS: Ty = Ty::ProgressiveList(&Ty::Container(&BUILDER), UNBOUNDED);
/// `builder_pending_withdrawals: ProgressiveList[BuilderPendingWithdrawal]`.
pub static BUILDER_PENDING_WITHDRAWALS: Ty =
    Ty::ProgressiveList(&Ty::Container(&BUILDER_PENDING_WITHDRAWAL), UNBOUNDED);
/// `execution_payload_availability: BitVector[SLOTS_PER_HISTORICAL_ROOT]`.
pub static EXECUTION_PAYLOAD_AVAILABILITY: Ty = Ty::Bitvector(SLOTS_PER_HISTORICAL_ROOT);
/// A PTC: `Vector[ValidatorIndex, PTC_SIZE]`.
pub static PTC: Ty = Ty::Vector(&U64, PTC_SIZE);

/// `block_roots` / `state_roots`: `Vector[Root, SLOTS_PER_HISTORICAL_ROOT]`.
pub static ROOTS_VECTOR: Ty = Ty::Vector(&BYTES32, SLOTS_PER_HISTORICAL_ROOT);
/// `historical_roots: List[Root, HISTORICAL_ROOTS_LIMIT]`.
pub static HISTORICAL_ROOTS: Ty = Ty::List(&BYTES32, HISTORICAL_ROOTS_LIMIT);
/// `validators: List[Validator, VALIDATOR_REGISTRY_LIMIT]`.
pub static VALIDATORS: Ty = Ty::List(&Ty::Container(&VALIDATOR), VALIDATOR_REGISTRY_LIMIT);
/// `balances` / `inactivity_scores`: `List[uint64, VALIDATOR_REGISTRY_LIMIT]`.
pub static U64_REGISTRY_LIST: Ty = Ty::List(&U64, VALIDATOR_REGISTRY_LIMIT);
/// `*_epoch_participation: List[ParticipationFlags (uint8), VALIDATOR_REGISTRY_LIMIT]`.
pub static PARTICIPATION: Ty = Ty::List(&U8, VALIDATOR_REGISTRY_LIMIT);
/// `randao_mixes: Vector[Bytes32, EPOCHS_PER_HISTORICAL_VECTOR]`.
pub static RANDAO_MIXES: Ty = Ty::Vector(&BYTES32, EPOCHS_PER_HISTORICAL_VECTOR);
/// `slashings: Vector[Gwei, EPOCHS_PER_SLASHINGS_VECTOR]`.
pub static SLASHINGS: Ty = Ty::Vector(&U64, EPOCHS_PER_SLASHINGS_VECTOR);
/// `justification_bits: Bitvector[JUSTIFICATION_BITS_LENGTH=4]`.
pub static JUSTIFICATION_BITS: Ty = Ty::Bitvector(4);
/// `historical_summaries: List[HistoricalSummary, HISTORICAL_ROOTS_LIMIT]`.
pub static HISTORICAL_SUMMARIES: Ty =
    Ty::List(&Ty::Container(&HISTORICAL_SUMMARY), HISTORICAL_ROOTS_LIMIT);
/// `pending_deposits`.
pub static PENDING_DEPOSITS: Ty =
    Ty::List(&Ty::Container(&PENDING_DEPOSIT), PENDING_DEPOSITS_LIMIT);
/// `pending_partial_withdrawals`.
pub static PENDING_PARTIAL_WITHDRAWALS: Ty = Ty::List(
    &Ty::Container(&PENDING_PARTIAL_WITHDRAWAL),
    PENDING_PARTIAL_WITHDRAWALS_LIMIT,
);
/// `pending_consolidations`.
pub static PENDING_CONSOLIDATIONS: Ty = Ty::List(
    &Ty::Container(&PENDING_CONSOLIDATION),
    PENDING_CONSOLIDATIONS_LIMIT,
);

macro_rules! block {
    ($block:ident, $signed:ident, $body:ident) => {
        container!(pub $block = "BeaconBlock" {
            slot: U64, proposer_index: U64, parent_root: BYTES32, state_root: BYTES32, body: Ty::Container(&$body),
        });
        container!(pub $signed = "SignedBeaconBlock" { message: Ty::Container(&$block), signature: BYTES96 });
    };
}
macro_rules! state {
    ($name:ident { $($f:ident : $t:expr),* $(,)? }) => {
        container!(pub $name = "BeaconState" {
            genesis_time: U64, genesis_validators_root: BYTES32, slot: U64, fork: Ty::Container(&FORK),
            latest_block_header: Ty::Container(&BEACON_BLOCK_HEADER), block_roots: ROOTS_VECTOR, state_roots: ROOTS_VECTOR,
            historical_roots: HISTORICAL_ROOTS, eth1_data: Ty::Container(&ETH1_DATA), eth1_data_votes: ETH1_DATA_VOTES,
            eth1_deposit_index: U64, validators: VALIDATORS, balances: U64_REGISTRY_LIST, randao_mixes: RANDAO_MIXES,
            slashings: SLASHINGS, $($f: $t),*
        });
    };
}

/// `preset_schemas!(MODULE, "doc", SLOTS_PER_EPOCH, MAX_WITHDRAWALS_PER_PAYLOAD)`: the containers whose SSZ type
/// depends on a preset value, in their own module.
macro_rules! preset_schemas {
    ($module:ident, $doc:literal, $slots_per_epoch:expr, $max_withdrawals:expr) => {
        #[doc = $doc]
        pub mod $module {
        use super::*;

        /// `SLOTS_PER_EPOCH`.
        pub const SLOTS_PER_EPOCH: u64 = $slots_per_epoch;
        /// `MAX_WITHDRAWALS_PER_PAYLOAD` (capella).
        pub const MAX_WITHDRAWALS_PER_PAYLOAD: u64 = $max_withdrawals;

        /// `List[Withdrawal, MAX_WITHDRAWALS_PER_PAYLOAD]`.
        pub static WITHDRAWALS: Ty = Ty::List(&Ty::Container(&WITHDRAWAL), MAX_WITHDRAWALS_PER_PAYLOAD);

        container!(pub EXECUTION_PAYLOAD_CAPELLA = "ExecutionPayload" {
            parent_hash: BYTES32, fee_recipient: BYTES20, state_root: BYTES32, receipts_root: BYTES32, logs_bloom: LOGS_BLOOM,
            prev_randao: BYTES32, block_number: U64, gas_limit: U64, gas_used: U64, timestamp: U64, extra_data: EXTRA_DATA,
            base_fee_per_gas: U256, block_hash: BYTES32, transactions: TRANSACTIONS, withdrawals: WITHDRAWALS,
        });

        container!(pub EXECUTION_PAYLOAD_DENEB = "ExecutionPayload" {
            parent_hash: BYTES32, fee_recipient: BYTES20, state_root: BYTES32, receipts_root: BYTES32, logs_bloom: LOGS_BLOOM,
            prev_randao: BYTES32, block_number: U64, gas_limit: U64, gas_used: U64, timestamp: U64, extra_data: EXTRA_DATA,
            base_fee_per_gas: U256, block_hash: BYTES32, transactions: TRANSACTIONS, withdrawals: WITHDRAWALS,
            blob_gas_used: U64, excess_blob_gas: U64,
        });

        container!(pub BEACON_BLOCK_BODY_PHASE0 = "BeaconBlockBody" {
            randao_reveal: BYTES96, eth1_data: Ty::Container(&ETH1_DATA), graffiti: BYTES32,
            proposer_slashings: PROPOSER_SLASHINGS, attester_slashings: ATTESTER_SLASHINGS, attestations: ATTESTATIONS,
            deposits: DEPOSITS, voluntary_exits: VOLUNTARY_EXITS,
        });

        container!(pub BEACON_BLOCK_BODY_ALTAIR = "BeaconBlockBody" {
            randao_reveal: BYTES96, eth1_data: Ty::Container(&ETH1_DATA), graffiti: BYTES32,
            proposer_slashings: PROPOSER_SLASHINGS, attester_slashings: ATTESTER_SLASHINGS, attestations: ATTESTATIONS,
            deposits: DEPOSITS, voluntary_exits: VOLUNTARY_EXITS, sync_aggregate: Ty::Container(&SYNC_AGGREGATE),
        });

        container!(pub BEACON_BLOCK_BODY_BELLATRIX = "BeaconBlockBody" {
            randao_reveal: BYTES96, eth1_data: Ty::Container(&ETH1_DATA), graffiti: BYTES32,
            proposer_slashings: PROPOSER_SLASHINGS, attester_slashings: ATTESTER_SLASHINGS, attestations: ATTESTATIONS,
            deposits: DEPOSITS, voluntary_exits: VOLUNTARY_EXITS, sync_aggregate: Ty::Container(&SYNC_AGGREGATE),
            execution_payload: Ty::Container(&EXECUTION_PAYLOAD_BELLATRIX),
        });

        container!(pub BEACON_BLOCK_BODY_CAPELLA = "BeaconBlockBody" {
            randao_reveal: BYTES96, eth1_data: Ty::Container(&ETH1_DATA), graffiti: BYTES32,
            proposer_slashings: PROPOSER_SLASHINGS, attester_slashings: ATTESTER_SLASHINGS, attestations: ATTESTATIONS,
            deposits: DEPOSITS, voluntary_exits: VOLUNTARY_EXITS, sync_aggregate: Ty::Container(&SYNC_AGGREGATE),
            execution_payload: Ty::Container(&EXECUTION_PAYLOAD_CAPELLA), bls_to_execution_changes: BLS_CHANGES,
        });

        container!(pub BEACON_BLOCK_BODY_DENEB = "BeaconBlockBody" {
            randao_reveal: BYTES96, eth1_data: Ty::Container(&ETH1_DATA), graffiti: BYTES32,
            proposer_slashings: PROPOSER_SLASHINGS, attester_slashings: ATTESTER_SLASHINGS, attestations: ATTESTATIONS,
            deposits: DEPOSITS, voluntary_exits: VOLUNTARY_EXITS, sync_aggregate: Ty::Container(&SYNC_AGGREGATE),
            execution_payload: Ty::Container(&EXECUTION_PAYLOAD_DENEB), bls_to_execution_changes: BLS_CHANGES,
            blob_kzg_commitments: BLOB_KZG_COMMITMENTS,
        });

        container!(pub BEACON_BLOCK_BODY_ELECTRA = "BeaconBlockBody" {
            randao_reveal: BYTES96, eth1_data: Ty::Container(&ETH1_DATA), graffiti: BYTES32,
            proposer_slashings: PROPOSER_SLASHINGS, attester_slashings: ATTESTER_SLASHINGS_ELECTRA, attestations: ATTESTATIONS_ELECTRA,
            deposits: DEPOSITS, voluntary_exits: VOLUNTARY_EXITS, sync_aggregate: Ty::Container(&SYNC_AGGREGATE),
            execution_payload: Ty::Container(&EXECUTION_PAYLOAD_DENEB), bls_to_execution_changes: BLS_CHANGES,
            blob_kzg_commitments: BLOB_KZG_COMMITMENTS, execution_requests: Ty::Container(&EXECUTION_REQUESTS),
        });

        block!(
            BEACON_BLOCK_PHASE0,
            SIGNED_BEACON_BLOCK_PHASE0,
            BEACON_BLOCK_BODY_PHASE0
        );
        block!(
            BEACON_BLOCK_ALTAIR,
            SIGNED_BEACON_BLOCK_ALTAIR,
            BEACON_BLOCK_BODY_ALTAIR
        );
        block!(
            BEACON_BLOCK_BELLATRIX,
            SIGNED_BEACON_BLOCK_BELLATRIX,
            BEACON_BLOCK_BODY_BELLATRIX
        );
        block!(
            BEACON_BLOCK_CAPELLA,
            SIGNED_BEACON_BLOCK_CAPELLA,
            BEACON_BLOCK_BODY_CAPELLA
        );
        block!(
            BEACON_BLOCK_DENEB,
            SIGNED_BEACON_BLOCK_DENEB,
            BEACON_BLOCK_BODY_DENEB
        );
        block!(
            BEACON_BLOCK_ELECTRA,
            SIGNED_BEACON_BLOCK_ELECTRA,
            BEACON_BLOCK_BODY_ELECTRA
        );

        container!(pub BEACON_BLOCK_BODY_GLOAS = "BeaconBlockBody" [active_fields: [1; 13]] {
            randao_reveal: BYTES96, eth1_data: Ty::Container(&ETH1_DATA), graffiti: BYTES32,
            proposer_slashings: PROPOSER_SLASHINGS_GLOAS, attester_slashings: ATTESTER_SLASHINGS_GLOAS,
            attestations: ATTESTATIONS_GLOAS, deposits: DEPOSITS_GLOAS, voluntary_exits: VOLUNTARY_EXITS_GLOAS,
            sync_aggregate: Ty::Container(&SYNC_AGGREGATE), bls_to_execution_changes: BLS_CHANGES_GLOAS,
            signed_execution_payload_bid: Ty::Container(&SIGNED_EXECUTION_PAYLOAD_BID),
            payload_attestations: PAYLOAD_ATTESTATIONS,
            parent_execution_requests: Ty::Container(&EXECUTION_REQUESTS_GLOAS),
        });
        block!(
            BEACON_BLOCK_GLOAS,
            SIGNED_BEACON_BLOCK_GLOAS,
            BEACON_BLOCK_BODY_GLOAS
        );

        /// gloas `payload_expected_withdrawals: ProgressiveList[Withdrawal]`.
        pub static WITHDRAWALS_GLOAS: Ty = Ty::ProgressiveList(&Ty::Container(&WITHDRAWAL), MAX_WITHDRAWALS_PER_PAYLOAD);
        /// gloas `builder_pending_payments: Vector[BuilderPendingPayment, 2 * SLOTS_PER_EPOCH]`.
        pub static BUILDER_PENDING_PAYMENTS: Ty = Ty::Vector(&Ty::Container(&BUILDER_PENDING_PAYMENT), (2 * SLOTS_PER_EPOCH) as usize);
        /// gloas `ptc_window: Vector[Vector[ValidatorIndex, PTC_SIZE], (2 + MIN_SEED_LOOKAHEAD) * SLOTS_PER_EPOCH]`.
        pub static PTC_WINDOW: Ty = Ty::Vector(&PTC, ((2 + MIN_SEED_LOOKAHEAD) * SLOTS_PER_EPOCH) as usize);

        container!(pub BEACON_STATE_GLOAS = "BeaconState" [active_fields: [1; 46]] {
            genesis_time: U64, genesis_validators_root: BYTES32, slot: U64, fork: Ty::Container(&FORK),
            latest_block_header: Ty::Container(&BEACON_BLOCK_HEADER), block_roots: ROOTS_VECTOR, state_roots: ROOTS_VECTOR,
            historical_roots: HISTORICAL_ROOTS, eth1_data: Ty::Container(&ETH1_DATA), eth1_data_votes: ETH1_DATA_VOTES,
            eth1_deposit_index: U64, validators: VALIDATORS_GLOAS, balances: U64_REGISTRY_GLOAS, randao_mixes: RANDAO_MIXES,
            slashings: SLASHINGS,
            previous_epoch_participation: PARTICIPATION_GLOAS,
            current_epoch_participation: PARTICIPATION_GLOAS,
            justification_bits: JUSTIFICATION_BITS,
            previous_justified_checkpoint: Ty::Container(&CHECKPOINT),
            current_justified_checkpoint: Ty::Container(&CHECKPOINT),
            finalized_checkpoint: Ty::Container(&CHECKPOINT),
            inactivity_scores: U64_REGISTRY_GLOAS,
            current_sync_committee: Ty::Container(&SYNC_COMMITTEE),
            next_sync_committee: Ty::Container(&SYNC_COMMITTEE),
            latest_block_hash: BYTES32,
            next_withdrawal_index: U64,
            next_withdrawal_validator_index: U64,
            historical_summaries: HISTORICAL_SUMMARIES,
            deposit_requests_start_index: U64,
            deposit_balance_to_consume: U64,
            exit_balance_to_consume: U64,
            earliest_exit_epoch: U64,
            consolidation_balance_to_consume: U64,
            earliest_consolidation_epoch: U64,
            pending_deposits: PENDING_DEPOSITS_GLOAS,
            pending_partial_withdrawals: PENDING_PARTIAL_WITHDRAWALS_GLOAS,
            pending_consolidations: PENDING_CONSOLIDATIONS_GLOAS,
            proposer_lookahead: PROPOSER_LOOKAHEAD_VECTOR,
            builders: BUILDERS,
            next_withdrawal_builder_index: U64,
            execution_payload_availability: EXECUTION_PAYLOAD_AVAILABILITY,
            builder_pending_payments: BUILDER_PENDING_PAYMENTS,
            builder_pending_withdrawals: BUILDER_PENDING_WITHDRAWALS,
            latest_execution_payload_bid: Ty::Container(&EXECUTION_PAYLOAD_BID),
            payload_expected_withdrawals: WITHDRAWALS_GLOAS,
            ptc_window: PTC_WINDOW,
        });

        /// `eth1_data_votes: List[Eth1Data, EPOCHS_PER_ETH1_VOTING_PERIOD * SLOTS_PER_EPOCH]`.
        pub static ETH1_DATA_VOTES: Ty = Ty::List(&Ty::Container(&ETH1_DATA), EPOCHS_PER_ETH1_VOTING_PERIOD * SLOTS_PER_EPOCH);

        /// phase0 `*_epoch_attestations: List[PendingAttestation, MAX_ATTESTATIONS * SLOTS_PER_EPOCH]`.
        pub static PENDING_ATTESTATIONS: Ty = Ty::List(
            &Ty::Container(&PENDING_ATTESTATION),
            MAX_ATTESTATIONS * SLOTS_PER_EPOCH,
        );

        /// fulu `proposer_lookahead: Vector[ValidatorIndex, (MIN_SEED_LOOKAHEAD + 1) * SLOTS_PER_EPOCH]`.
        pub static PROPOSER_LOOKAHEAD_VECTOR: Ty = Ty::Vector(&U64, ((MIN_SEED_LOOKAHEAD + 1) * SLOTS_PER_EPOCH) as usize);

        state!(BEACON_STATE_PHASE0 {
            previous_epoch_attestations: PENDING_ATTESTATIONS,
            current_epoch_attestations: PENDING_ATTESTATIONS,
            justification_bits: JUSTIFICATION_BITS,
            previous_justified_checkpoint: Ty::Container(&CHECKPOINT),
            current_justified_checkpoint: Ty::Container(&CHECKPOINT),
            finalized_checkpoint: Ty::Container(&CHECKPOINT),
        });
        state!(BEACON_STATE_ALTAIR {
            previous_epoch_participation: PARTICIPATION,
            current_epoch_participation: PARTICIPATION,
            justification_bits: JUSTIFICATION_BITS,
            previous_justified_checkpoint: Ty::Container(&CHECKPOINT),
            current_justified_checkpoint: Ty::Container(&CHECKPOINT),
            finalized_checkpoint: Ty::Container(&CHECKPOINT),
            inactivity_scores: U64_REGISTRY_LIST,
            current_sync_committee: Ty::Container(&SYNC_COMMITTEE),
            next_sync_committee: Ty::Container(&SYNC_COMMITTEE),
        });
        state!(BEACON_STATE_BELLATRIX {
            previous_epoch_participation: PARTICIPATION,
            current_epoch_participation: PARTICIPATION,
            justification_bits: JUSTIFICATION_BITS,
            previous_justified_checkpoint: Ty::Container(&CHECKPOINT),
            current_justified_checkpoint: Ty::Container(&CHECKPOINT),
            finalized_checkpoint: Ty::Container(&CHECKPOINT),
            inactivity_scores: U64_REGISTRY_LIST,
            current_sync_committee: Ty::Container(&SYNC_COMMITTEE),
            next_sync_committee: Ty::Container(&SYNC_COMMITTEE),
            latest_execution_payload_header: Ty::Container(&EXECUTION_PAYLOAD_HEADER_BELLATRIX),
        });
        state!(BEACON_STATE_CAPELLA {
            previous_epoch_participation: PARTICIPATION,
            current_epoch_participation: PARTICIPATION,
            justification_bits: JUSTIFICATION_BITS,
            previous_justified_checkpoint: Ty::Container(&CHECKPOINT),
            current_justified_checkpoint: Ty::Container(&CHECKPOINT),
            finalized_checkpoint: Ty::Container(&CHECKPOINT),
            inactivity_scores: U64_REGISTRY_LIST,
            current_sync_committee: Ty::Container(&SYNC_COMMITTEE),
            next_sync_committee: Ty::Container(&SYNC_COMMITTEE),
            latest_execution_payload_header: Ty::Container(&EXECUTION_PAYLOAD_HEADER_CAPELLA),
            next_withdrawal_index: U64,
            next_withdrawal_validator_index: U64,
            historical_summaries: HISTORICAL_SUMMARIES,
        });
        state!(BEACON_STATE_DENEB {
            previous_epoch_participation: PARTICIPATION,
            current_epoch_participation: PARTICIPATION,
            justification_bits: JUSTIFICATION_BITS,
            previous_justified_checkpoint: Ty::Container(&CHECKPOINT),
            current_justified_checkpoint: Ty::Container(&CHECKPOINT),
            finalized_checkpoint: Ty::Container(&CHECKPOINT),
            inactivity_scores: U64_REGISTRY_LIST,
            current_sync_committee: Ty::Container(&SYNC_COMMITTEE),
            next_sync_committee: Ty::Container(&SYNC_COMMITTEE),
            latest_execution_payload_header: Ty::Container(&EXECUTION_PAYLOAD_HEADER_DENEB),
            next_withdrawal_index: U64,
            next_withdrawal_validator_index: U64,
            historical_summaries: HISTORICAL_SUMMARIES,
        });
        state!(BEACON_STATE_ELECTRA {
            previous_epoch_participation: PARTICIPATION,
            current_epoch_participation: PARTICIPATION,
            justification_bits: JUSTIFICATION_BITS,
            previous_justified_checkpoint: Ty::Container(&CHECKPOINT),
            current_justified_checkpoint: Ty::Container(&CHECKPOINT),
            finalized_checkpoint: Ty::Container(&CHECKPOINT),
            inactivity_scores: U64_REGISTRY_LIST,
            current_sync_committee: Ty::Container(&SYNC_COMMITTEE),
            next_sync_committee: Ty::Container(&SYNC_COMMITTEE),
            latest_execution_payload_header: Ty::Container(&EXECUTION_PAYLOAD_HEADER_DENEB),
            next_withdrawal_index: U64,
            next_withdrawal_validator_index: U64,
            historical_summaries: HISTORICAL_SUMMARIES,
            deposit_requests_start_index: U64,
            deposit_balance_to_consume: U64,
            exit_balance_to_consume: U64,
            earliest_exit_epoch: U64,
            consolidation_balance_to_consume: U64,
            earliest_consolidation_epoch: U64,
            pending_deposits: PENDING_DEPOSITS,
            pending_partial_withdrawals: PENDING_PARTIAL_WITHDRAWALS,
            pending_consolidations: PENDING_CONSOLIDATIONS,
        });
        state!(BEACON_STATE_FULU {
            previous_epoch_participation: PARTICIPATION,
            current_epoch_participation: PARTICIPATION,
            justification_bits: JUSTIFICATION_BITS,
            previous_justified_checkpoint: Ty::Container(&CHECKPOINT),
            current_justified_checkpoint: Ty::Container(&CHECKPOINT),
            finalized_checkpoint: Ty::Container(&CHECKPOINT),
            inactivity_scores: U64_REGISTRY_LIST,
            current_sync_committee: Ty::Container(&SYNC_COMMITTEE),
            next_sync_committee: Ty::Container(&SYNC_COMMITTEE),
            latest_execution_payload_header: Ty::Container(&EXECUTION_PAYLOAD_HEADER_DENEB),
            next_withdrawal_index: U64,
            next_withdrawal_validator_index: U64,
            historical_summaries: HISTORICAL_SUMMARIES,
            deposit_requests_start_index: U64,
            deposit_balance_to_consume: U64,
            exit_balance_to_consume: U64,
            earliest_exit_epoch: U64,
            consolidation_balance_to_consume: U64,
            earliest_consolidation_epoch: U64,
            pending_deposits: PENDING_DEPOSITS,
            pending_partial_withdrawals: PENDING_PARTIAL_WITHDRAWALS,
            pending_consolidations: PENDING_CONSOLIDATIONS,
            proposer_lookahead: PROPOSER_LOOKAHEAD_VECTOR,
        });
        }
    };
}

preset_schemas!(
    mainnet,
    "The mainnet preset's containers (`presets/mainnet`): mainnet, sepolia, holesky, hoodi.",
    32,
    16
);
preset_schemas!(
    gnosis,
    "The gnosis preset's containers (gnosischain/specs `consensus/preset/gnosis`): gnosis and chiado.",
    16,
    8
);
