//! A block body's operations as zero-copy views: attestations, deposits, exits, slashings, BLS changes, the
//! sync aggregate, blob commitments and Electra's execution requests.
//!
//! Spec facts (each fork's `beacon-chain.md`, "Containers"; every container below is fixed-size unless noted,
//! so fields sit at fixed offsets, listed with each view):
//! - `AttestationData = {slot, index, beacon_block_root, source: Checkpoint, target: Checkpoint}`, 128 bytes,
//!   `Checkpoint = {epoch, root}`; an `Attestation` (variable-size: its `aggregation_bits` is a bitlist) adds
//!   `signature` and, from Electra ([EIP-7549](https://eips.ethereum.org/EIPS/eip-7549)), `committee_bits:
//!   Bitvector[64]`, with `data.index` then 0;
//! - `Deposit = {proof: Vector[Bytes32, 33], data: DepositData{pubkey, withdrawal_credentials, amount,
//!   signature}}`; `SignedVoluntaryExit = {message: {epoch, validator_index}, signature}`;
//!   `ProposerSlashing = {signed_header_1, signed_header_2}` of `SignedBeaconBlockHeader`;
//!   `AttesterSlashing = {attestation_1, attestation_2}` of (variable-size) `IndexedAttestation`, whose slashed
//!   validators are `sorted(set(a1.attesting_indices) & set(a2.attesting_indices))` (phase0
//!   `process_attester_slashing`); `SignedBLSToExecutionChange = {message: {validator_index, from_bls_pubkey,
//!   to_execution_address}, signature}`;
//! - `SyncAggregate = {sync_committee_bits: Bitvector[SYNC_COMMITTEE_SIZE], sync_committee_signature}`;
//! - Electra's `ExecutionRequests = {deposits, withdrawals, consolidations}` of `DepositRequest{pubkey,
//!   withdrawal_credentials, amount, signature, index}`, `WithdrawalRequest{source_address, validator_pubkey,
//!   amount}`, `ConsolidationRequest{source_address, source_pubkey, target_pubkey}`.
//!
//! The lists are validated by [`super::ssz::View::elements`] (offsets, sizes, limits) before any view is made,
//! so the accessors below read inside bounds and cannot fail.

use super::ssz::{read_u64, SszError, Ty, View};
use super::state::BlockHeader;
use super::BeaconBlockBody;

/// `BLSPubkey`.
pub type Pubkey = [u8; 48];

fn bytes<const N: usize>(b: &[u8], at: usize) -> [u8; N] {
    b.get(at..at + N)
        .and_then(|s| s.try_into().ok())
        .unwrap_or([0u8; N])
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    read_u64(b, at).unwrap_or_default()
}

/// `AttestationData` (128 bytes): `slot` 0, `index` 8, `beacon_block_root` 16, `source` 48 (epoch, root),
/// `target` 88 (epoch, root).
#[derive(Debug, Clone, Copy)]
pub struct AttestationData<'a>(&'a [u8]);

impl AttestationData<'_> {
    /// `slot`: the slot attested to.
    pub fn slot(&self) -> u64 {
        u64_at(self.0, 0)
    }
    /// `index`: the committee index (always 0 from Electra on; the committees are in `committee_bits`).
    pub fn index(&self) -> u64 {
        u64_at(self.0, 8)
    }
    /// `beacon_block_root`: the head block voted for (LMD GHOST vote).
    pub fn beacon_block_root(&self) -> [u8; 32] {
        bytes(self.0, 16)
    }
    /// `source.epoch`.
    pub fn source_epoch(&self) -> u64 {
        u64_at(self.0, 48)
    }
    /// `source.root`.
    pub fn source_root(&self) -> [u8; 32] {
        bytes(self.0, 56)
    }
    /// `target.epoch`.
    pub fn target_epoch(&self) -> u64 {
        u64_at(self.0, 88)
    }
    /// `target.root`.
    pub fn target_root(&self) -> [u8; 32] {
        bytes(self.0, 96)
    }
}

/// A bitlist's length (without the delimiter) and number of set bits; `None` without a delimiter bit.
pub fn bitlist_counts(bits: &[u8]) -> Option<(u32, u32)> {
    let last = *bits.last()?;
    if last == 0 {
        return None;
    }
    let top = 7 - last.leading_zeros();
    let len = 8 * (bits.len() as u32 - 1) + top;
    let set = bits.iter().map(|b| b.count_ones()).sum::<u32>() - 1;
    Some((len, set))
}

/// One `Attestation` as included in a block.
#[derive(Debug, Clone)]
pub struct Attestation<'a> {
    view: View<'a>,
}

impl<'a> Attestation<'a> {
    /// `aggregation_bits` as serialized (a bitlist: data bits, then a delimiter bit).
    pub fn aggregation_bits(&self) -> &'a [u8] {
        self.view.get("aggregation_bits").unwrap_or_default()
    }
    /// `data`.
    pub fn data(&self) -> AttestationData<'a> {
        AttestationData(self.view.get("data").unwrap_or_default())
    }
    /// `signature`: the aggregate BLS signature (96 bytes).
    pub fn signature(&self) -> &'a [u8] {
        self.view.get("signature").unwrap_or_default()
    }
    /// `committee_bits` (Electra on): bit `i` set when committee `i` of the slot is aggregated here.
    pub fn committee_bits(&self) -> Option<&'a [u8]> {
        self.view.get("committee_bits")
    }
    /// The committees this aggregate covers: the set bits of `committee_bits` from Electra on, else
    /// `data.index`.
    pub fn committee_indices(&self) -> Vec<u64> {
        match self.committee_bits() {
            Some(bits) => (0..bits.len() * 8)
                .filter(|i| bits[i / 8] >> (i % 8) & 1 == 1)
                .map(|i| i as u64)
                .collect(),
            None => vec![self.data().index()],
        }
    }
}

/// One `Deposit` (1,240 bytes): `proof` 0 (33 roots), `data` 1056: `pubkey` +0, `withdrawal_credentials` +48,
/// `amount` +80, `signature` +88.
#[derive(Debug, Clone, Copy)]
pub struct Deposit<'a>(&'a [u8]);

const DEPOSIT_DATA: usize = 33 * 32;

impl<'a> Deposit<'a> {
    /// `proof`: the 33 roots of the deposit contract's tree that prove `data` (not checked here).
    pub fn proof(&self) -> impl Iterator<Item = &'a [u8]> + 'a {
        self.0
            .get(..DEPOSIT_DATA)
            .unwrap_or_default()
            .chunks_exact(32)
    }
    /// `data`.
    pub fn data(&self) -> DepositData<'a> {
        DepositData(self.0.get(DEPOSIT_DATA..).unwrap_or_default())
    }
}

/// One `DepositData` (184 bytes): `pubkey` 0, `withdrawal_credentials` 48, `amount` 80, `signature` 88. A
/// `Deposit` holds one after its proof; a `DepositRequest` starts with the same four fields.
#[derive(Debug, Clone, Copy)]
pub struct DepositData<'a>(&'a [u8]);

impl<'a> DepositData<'a> {
    /// `pubkey`.
    pub fn pubkey(&self) -> &'a [u8] {
        self.0.get(..48).unwrap_or_default()
    }
    /// `withdrawal_credentials`.
    pub fn withdrawal_credentials(&self) -> &'a [u8] {
        self.0.get(48..80).unwrap_or_default()
    }
    /// `amount` (Gwei).
    pub fn amount(&self) -> u64 {
        u64_at(self.0, 80)
    }
    /// `signature`.
    pub fn signature(&self) -> &'a [u8] {
        self.0.get(88..184).unwrap_or_default()
    }
}

/// One `SignedVoluntaryExit` (112 bytes): `message.epoch` 0, `message.validator_index` 8, `signature` 16.
#[derive(Debug, Clone, Copy)]
pub struct VoluntaryExit<'a>(&'a [u8]);

impl<'a> VoluntaryExit<'a> {
    /// `signature` (96 bytes).
    pub fn signature(&self) -> &'a [u8] {
        self.0.get(16..112).unwrap_or_default()
    }
    /// `message.epoch`: the earliest epoch the exit may be processed in.
    pub fn epoch(&self) -> u64 {
        u64_at(self.0, 0)
    }
    /// `message.validator_index`.
    pub fn validator_index(&self) -> u64 {
        u64_at(self.0, 8)
    }
}

/// One `ProposerSlashing` (416 bytes): two `SignedBeaconBlockHeader`s of 208 bytes (a 112-byte
/// `BeaconBlockHeader`, then the signature).
#[derive(Debug, Clone, Copy)]
pub struct ProposerSlashing<'a>(&'a [u8]);

impl<'a> ProposerSlashing<'a> {
    /// `signed_header_1.signature` (`which` 0) or `signed_header_2.signature` (`which` 1), 96 bytes.
    pub fn signature(&self, which: usize) -> &'a [u8] {
        self.0
            .get(which * 208 + 112..which * 208 + 208)
            .unwrap_or_default()
    }
    /// `signed_header_1.message` (`which` 0) or `signed_header_2.message` (`which` 1).
    pub fn header(&self, which: usize) -> BlockHeader {
        let h = self
            .0
            .get(which * 208..which * 208 + 112)
            .unwrap_or_default();
        BlockHeader {
            slot: u64_at(h, 0),
            proposer_index: u64_at(h, 8),
            parent_root: bytes(h, 16),
            state_root: bytes(h, 48),
            body_root: bytes(h, 80),
        }
    }
}

/// An `IndexedAttestation` of an attester slashing.
#[derive(Debug, Clone)]
pub struct IndexedAttestation<'a> {
    view: View<'a>,
}

impl<'a> IndexedAttestation<'a> {
    /// `attesting_indices` (sorted and unique in a valid block).
    pub fn attesting_indices(&self) -> impl Iterator<Item = u64> + 'a {
        self.view
            .get("attesting_indices")
            .unwrap_or_default()
            .chunks_exact(8)
            .map(|c| u64_at(c, 0))
    }
    /// `data`.
    pub fn data(&self) -> AttestationData<'a> {
        AttestationData(self.view.get("data").unwrap_or_default())
    }
    /// `signature` (96 bytes).
    pub fn signature(&self) -> &'a [u8] {
        self.view.get("signature").unwrap_or_default()
    }
}

/// One `AttesterSlashing`.
#[derive(Debug, Clone)]
pub struct AttesterSlashing<'a> {
    /// `attestation_1`.
    pub attestation_1: IndexedAttestation<'a>,
    /// `attestation_2`.
    pub attestation_2: IndexedAttestation<'a>,
}

impl AttesterSlashing<'_> {
    /// The validators the slashing slashes: indices attesting in both, ascending (spec: the sorted
    /// intersection; duplicates, which a valid block cannot hold, are dropped).
    pub fn slashed_indices(&self) -> Vec<u64> {
        let mut a: Vec<u64> = self.attestation_1.attesting_indices().collect();
        let mut b: Vec<u64> = self.attestation_2.attesting_indices().collect();
        a.sort_unstable();
        a.dedup();
        b.sort_unstable();
        b.dedup();
        let (mut i, mut j, mut out) = (0, 0, Vec::new());
        while i < a.len() && j < b.len() {
            match a[i].cmp(&b[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    out.push(a[i]);
                    i += 1;
                    j += 1;
                }
            }
        }
        out
    }
}

/// One `SignedBLSToExecutionChange` (172 bytes): `message.validator_index` 0, `message.from_bls_pubkey` 8,
/// `message.to_execution_address` 56, `signature` 76.
#[derive(Debug, Clone, Copy)]
pub struct BlsToExecutionChange<'a>(&'a [u8]);

impl<'a> BlsToExecutionChange<'a> {
    /// `message.validator_index`.
    pub fn validator_index(&self) -> u64 {
        u64_at(self.0, 0)
    }
    /// `message.from_bls_pubkey`: the BLS key the old credentials committed to.
    pub fn from_bls_pubkey(&self) -> &'a [u8] {
        self.0.get(8..56).unwrap_or_default()
    }
    /// `message.to_execution_address`: the withdrawal address from now on.
    pub fn to_execution_address(&self) -> &'a [u8] {
        self.0.get(56..76).unwrap_or_default()
    }
    /// `signature` (96 bytes).
    pub fn signature(&self) -> &'a [u8] {
        self.0.get(76..172).unwrap_or_default()
    }
}

/// The `SyncAggregate` (Altair on): `sync_committee_bits` then the signature.
#[derive(Debug, Clone, Copy)]
pub struct SyncAggregate<'a>(&'a [u8]);

impl<'a> SyncAggregate<'a> {
    /// `sync_committee_bits` (`SYNC_COMMITTEE_SIZE / 8` bytes).
    pub fn sync_committee_bits(&self) -> &'a [u8] {
        self.0
            .get(..self.0.len().saturating_sub(96))
            .unwrap_or_default()
    }
    /// `sync_committee_signature` (96 bytes).
    pub fn signature(&self) -> &'a [u8] {
        self.0
            .get(self.0.len().saturating_sub(96)..)
            .unwrap_or_default()
    }
    /// How many members of the sync committee signed.
    pub fn participation(&self) -> u32 {
        self.sync_committee_bits()
            .iter()
            .map(|b| b.count_ones())
            .sum()
    }
}

/// One `DepositRequest` (192 bytes): `pubkey` 0, `withdrawal_credentials` 48, `amount` 80, `signature` 88,
/// `index` 184.
#[derive(Debug, Clone, Copy)]
pub struct DepositRequest<'a>(&'a [u8]);

impl<'a> DepositRequest<'a> {
    /// `pubkey`, `withdrawal_credentials`, `amount` and `signature`: a deposit's data, laid out as in a `Deposit`.
    pub fn data(&self) -> DepositData<'a> {
        DepositData(self.0)
    }
    /// `index`: the deposit contract's deposit count at this deposit.
    pub fn index(&self) -> u64 {
        u64_at(self.0, 184)
    }
}

/// One `WithdrawalRequest` (76 bytes): `source_address` 0, `validator_pubkey` 20, `amount` 68.
#[derive(Debug, Clone, Copy)]
pub struct WithdrawalRequest<'a>(&'a [u8]);

impl<'a> WithdrawalRequest<'a> {
    /// `source_address`: the execution address that sent the request.
    pub fn source_address(&self) -> &'a [u8] {
        self.0.get(..20).unwrap_or_default()
    }
    /// `validator_pubkey`.
    pub fn validator_pubkey(&self) -> &'a [u8] {
        self.0.get(20..68).unwrap_or_default()
    }
    /// `amount` (Gwei; 0 asks for a full exit).
    pub fn amount(&self) -> u64 {
        u64_at(self.0, 68)
    }
}

/// One `ConsolidationRequest` (116 bytes): `source_address` 0, `source_pubkey` 20, `target_pubkey` 68.
#[derive(Debug, Clone, Copy)]
pub struct ConsolidationRequest<'a>(&'a [u8]);

impl<'a> ConsolidationRequest<'a> {
    /// `source_address`.
    pub fn source_address(&self) -> &'a [u8] {
        self.0.get(..20).unwrap_or_default()
    }
    /// `source_pubkey`.
    pub fn source_pubkey(&self) -> &'a [u8] {
        self.0.get(20..68).unwrap_or_default()
    }
    /// `target_pubkey`.
    pub fn target_pubkey(&self) -> &'a [u8] {
        self.0.get(68..116).unwrap_or_default()
    }
}

/// Electra's `ExecutionRequests`, split into its three lists.
#[derive(Debug, Clone, Default)]
pub struct ExecutionRequests<'a> {
    /// `deposits`.
    pub deposits: Vec<DepositRequest<'a>>,
    /// `withdrawals`.
    pub withdrawals: Vec<WithdrawalRequest<'a>>,
    /// `consolidations`.
    pub consolidations: Vec<ConsolidationRequest<'a>>,
    /// `builder_deposits` (Gloas on; empty before).
    pub builder_deposits: Vec<BuilderDepositRequest<'a>>,
    /// `builder_exits` (Gloas on; empty before).
    pub builder_exits: Vec<BuilderExitRequest<'a>>,
}

/// One Gloas `BuilderDepositRequest` (184 bytes): `pubkey` 0, `withdrawal_credentials` 48, `amount` 80,
/// `signature` 88: a deposit's data without its index.
#[derive(Debug, Clone, Copy)]
pub struct BuilderDepositRequest<'a>(&'a [u8]);

impl<'a> BuilderDepositRequest<'a> {
    /// `pubkey`, `withdrawal_credentials`, `amount` and `signature`, laid out as in a `Deposit`'s data.
    pub fn data(&self) -> DepositData<'a> {
        DepositData(self.0)
    }
}

/// One Gloas `BuilderExitRequest` (68 bytes): `source_address` 0, `pubkey` 20.
#[derive(Debug, Clone, Copy)]
pub struct BuilderExitRequest<'a>(&'a [u8]);

impl<'a> BuilderExitRequest<'a> {
    /// `source_address`: the builder's execution address that sent it.
    pub fn source_address(&self) -> &'a [u8] {
        self.0.get(..20).unwrap_or_default()
    }
    /// `pubkey`: the builder leaving.
    pub fn pubkey(&self) -> &'a [u8] {
        self.0.get(20..68).unwrap_or_default()
    }
}

/// The element container of list field `name` of `body`, to view each element with.
fn element_container(body: &View<'_>, name: &str) -> Option<&'static super::ssz::Container> {
    match body.field_ty(name)? {
        Ty::List(Ty::Container(c), _) | Ty::ProgressiveList(Ty::Container(c), _) => Some(c),
        _ => None,
    }
}

impl<'a> BeaconBlockBody<'a> {
    fn items(&self, name: &str) -> Result<Vec<&'a [u8]>, SszError> {
        self.view().elements(name).unwrap_or(Ok(Vec::new()))
    }

    /// The attestations, in block order.
    pub fn attestation_list(&self) -> Result<Vec<Attestation<'a>>, SszError> {
        let Some(c) = element_container(self.view(), "attestations") else {
            return Ok(Vec::new());
        };
        self.items("attestations")?
            .into_iter()
            .enumerate()
            .map(|(i, b)| {
                View::new(c, b)
                    .map(|view| Attestation { view })
                    .map_err(|e| e.at_index(i).at_field("attestations"))
            })
            .collect()
    }

    /// The deposits, in block order.
    pub fn deposit_list(&self) -> Result<Vec<Deposit<'a>>, SszError> {
        Ok(self.items("deposits")?.into_iter().map(Deposit).collect())
    }

    /// The voluntary exits, in block order.
    pub fn voluntary_exit_list(&self) -> Result<Vec<VoluntaryExit<'a>>, SszError> {
        Ok(self
            .items("voluntary_exits")?
            .into_iter()
            .map(VoluntaryExit)
            .collect())
    }

    /// The proposer slashings, in block order.
    pub fn proposer_slashing_list(&self) -> Result<Vec<ProposerSlashing<'a>>, SszError> {
        Ok(self
            .items("proposer_slashings")?
            .into_iter()
            .map(ProposerSlashing)
            .collect())
    }

    /// The attester slashings, in block order (each attestation's offsets validated).
    pub fn attester_slashing_list(&self) -> Result<Vec<AttesterSlashing<'a>>, SszError> {
        let Some(c) = element_container(self.view(), "attester_slashings") else {
            return Ok(Vec::new());
        };
        let indexed = super::ssz::field_container(c, "attestation_1").ok_or_else(|| {
            SszError::new(super::ssz::ErrorKind::NoField {
                container: c.name.into(),
                field: "attestation_1".into(),
            })
        })?;
        self.items("attester_slashings")?
            .into_iter()
            .enumerate()
            .map(|(i, b)| {
                let at = |e: SszError| e.at_index(i).at_field("attester_slashings");
                let parts = View::new(c, b).map_err(at)?;
                let one = |name| {
                    View::new(indexed, parts.get(name).unwrap_or_default())
                        .map(|view| IndexedAttestation { view })
                        .map_err(at)
                };
                let (attestation_1, attestation_2) = (one("attestation_1")?, one("attestation_2")?);
                // Validate the index lists now, so the accessors read whole u64s.
                for a in [&attestation_1, &attestation_2] {
                    a.view
                        .elements("attesting_indices")
                        .unwrap_or(Ok(Vec::new()))
                        .map_err(at)?;
                }
                Ok(AttesterSlashing {
                    attestation_1,
                    attestation_2,
                })
            })
            .collect()
    }

    /// The BLS-to-execution changes (Capella on; empty before).
    pub fn bls_to_execution_change_list(&self) -> Result<Vec<BlsToExecutionChange<'a>>, SszError> {
        Ok(self
            .items("bls_to_execution_changes")?
            .into_iter()
            .map(BlsToExecutionChange)
            .collect())
    }

    /// The sync aggregate (Altair on; `None` before).
    pub fn sync_aggregate(&self) -> Option<SyncAggregate<'a>> {
        self.view().get("sync_aggregate").map(SyncAggregate)
    }

    /// The execution requests this block processes (`None` before Electra): Electra and Fulu blocks carry
    /// their own payload's; a Gloas block its parent's payload's (`parent_execution_requests`, empty when the
    /// parent's payload was withheld), which it processes.
    pub fn execution_request_lists(&self) -> Option<Result<ExecutionRequests<'a>, SszError>> {
        let field = self
            .view()
            .get("parent_execution_requests")
            .map_or("execution_requests", |_| "parent_execution_requests");
        let sub = match self.view().sub(field)? {
            Ok(v) => v,
            Err(e) => return Some(Err(e)),
        };
        let list = |name: &str| sub.elements(name).unwrap_or(Ok(Vec::new()));
        Some((|| {
            Ok(ExecutionRequests {
                deposits: list("deposits")?.into_iter().map(DepositRequest).collect(),
                withdrawals: list("withdrawals")?
                    .into_iter()
                    .map(WithdrawalRequest)
                    .collect(),
                consolidations: list("consolidations")?
                    .into_iter()
                    .map(ConsolidationRequest)
                    .collect(),
                builder_deposits: list("builder_deposits")?
                    .into_iter()
                    .map(BuilderDepositRequest)
                    .collect(),
                builder_exits: list("builder_exits")?
                    .into_iter()
                    .map(BuilderExitRequest)
                    .collect(),
            })
        })())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bitlist_lengths_and_counts() {
        // 0b0000_0101 with delimiter at bit 2: length 2, one bit set.
        assert_eq!(bitlist_counts(&[0b101]), Some((2, 1)));
        // A full byte then the delimiter alone.
        assert_eq!(bitlist_counts(&[0xff, 0x01]), Some((8, 8)));
        assert_eq!(bitlist_counts(&[0x01]), Some((0, 0)));
        assert_eq!(bitlist_counts(&[0x00]), None);
        assert_eq!(bitlist_counts(&[]), None);
    }
}
