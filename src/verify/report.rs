//! What `eraflow verify` reports per file: the JSON shape of `verify --json` (one object per line) and the
//! human summary. Field names are a stable interface for scripts.

use crate::error::ExitStatus;
use crate::formats::{FormatError, FormatErrorKind};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One reason a file failed verification.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReportError {
    /// A failure located in the file: its path, the record's byte offset, the block or slot, what was expected
    /// and what was found.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// A check with no single record to point at (a link between two files, a signer the network does not
    /// use), stated in words that name the file(s).
    #[error("{0}")]
    Check(String),
}

impl ReportError {
    /// True when the file could not be read (opened, mapped, or it changed while being read): an I/O
    /// failure, which says nothing about the data.
    pub fn is_io(&self) -> bool {
        matches!(
            self,
            ReportError::Format(FormatError {
                kind: FormatErrorKind::Io(_) | FormatErrorKind::Changed(_),
                ..
            })
        )
    }
}

impl From<String> for ReportError {
    fn from(s: String) -> Self {
        ReportError::Check(s)
    }
}

impl Serialize for ReportError {
    /// As the one line [`crate::error::render`] makes of it: `verify --json` keeps its `errors: [string]`.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&crate::error::render(self))
    }
}

/// The verification result of one archive file. It reads back (for reports kept by content, see
/// [`super::ReportCache`]) without its errors: only passing reports are kept.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct FileReport {
    /// Path as given on the command line.
    pub file: String,
    /// `era1`, `era` or `ere`.
    pub kind: String,
    /// Network from the file name (or `--network`).
    pub network: String,
    /// Era number: the first block divided by 8192 for era1 files, the era of the file's state for era files;
    /// `None` when the file could not be opened.
    pub era: Option<u64>,
    /// First execution block number: the era1 index's first block, or an era file's first post-merge payload
    /// (`None` for an era file without payloads, or a file that could not be opened).
    pub first_block: Option<u64>,
    /// Last execution block number, with the same meaning and absence as `first_block`.
    pub last_block: Option<u64>,
    /// Blocks in the file: execution blocks for era1, beacon blocks (non-empty slots) for era files.
    pub blocks: u64,
    /// Transactions decoded over all blocks (era files: over all execution payloads).
    pub transactions: u64,
    /// Ommer (uncle) headers over all blocks; 0 for era files.
    pub ommers: u64,
    /// Receipts decoded; 0 for era files, which carry none.
    pub receipts: u64,
    /// Logs over all receipts; 0 for era files.
    pub logs: u64,
    /// Withdrawals in the blocks' bodies (ere files from Shanghai on; era files count theirs in `beacon`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub withdrawals: u64,
    /// Senders recovered (only with `--senders`), and failures among them.
    pub senders_recovered: Option<u64>,
    /// Transactions whose sender did not recover (only with `--senders`); any makes the file fail, with one
    /// summary line in `errors`.
    pub sender_errors: Option<u64>,
    /// Hex accumulator root as computed (era1).
    pub accumulator_root: Option<String>,
    /// `0x`-hex hash of the first execution block (`None` when there is none or the file failed early).
    pub first_block_hash: Option<String>,
    /// `0x`-hex hash of the last execution block (`None` when there is none or the file failed early).
    pub last_block_hash: Option<String>,
    /// Total difficulty before the first block, decimal.
    pub initial_total_difficulty: Option<String>,
    /// Total difficulty after the last block, decimal.
    pub final_total_difficulty: Option<String>,
    /// Transaction kinds: legacy_pre155, legacy_eip155, type1, type2, type3, type4.
    pub tx_kinds: BTreeMap<String, u64>,
    /// Receipt forms: `<tx kind>/status` or `<tx kind>/post_state`.
    pub receipt_forms: BTreeMap<String, u64>,
    /// Headers by number of fields (15 pre-London, 16 London, ...).
    pub header_field_counts: BTreeMap<String, u64>,
    /// Records by type name, from a sequential walk of the file.
    pub record_counts: BTreeMap<String, u64>,
    /// File size in bytes (0 when its metadata could not be read).
    pub file_size: u64,
    /// Hex sha256 of the whole file.
    pub sha256: Option<String>,
    /// Everything verified.
    pub ok: bool,
    /// Why the file failed, typed; each renders (and serialises, for `verify --json`) as one line naming the
    /// file, offset, block and what was expected against what was found.
    #[serde(skip_deserializing)]
    pub errors: Vec<ReportError>,
    /// Errors beyond the first `MAX_ERRORS` are counted, not listed.
    pub errors_omitted: u64,
    /// Checks that could not run (e.g. fork rules for an unknown network).
    pub warnings: Vec<String>,
    /// Beacon-chain facts of an era file (absent for era1 and ere).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub beacon: Option<BeaconReport>,
    /// What an ere file holds: its profile, components and proofs (absent for era1 and era).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ere: Option<EreReport>,
    /// Whether the file's blocks are proven to be the canonical chain: `true` every block (the accumulator root of
    /// its era, or each block's proof, reached an anchor), `false` something contradicts an anchor (the file fails),
    /// `null` nothing contradicts but not every block could be proven (no anchor for the network, no proofs, no
    /// historical summaries covering them): `canonical_detail` says which blocks by what, and why not.
    #[serde(default)]
    pub canonical: Option<bool>,
    /// How the blocks were proven (or why not), per anchor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canonical_detail: Option<CanonicalDetail>,
    /// Other archives of the same blocks this file was compared with, and what agreed (an era1 and an ere file
    /// of one era; an ere file and the era files whose payloads hold its post-merge blocks).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cross_checked: Vec<String>,
    /// The per-file checks were not run again: this file's bytes passed them before, with the same checks and
    /// eraflow version ([`super::ReportCache`]); the checks between files ran as usual.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub from_cache: bool,
}

/// Which blocks of a file are proven canonical, by which anchor, and why the others are not.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct CanonicalDetail {
    /// Blocks proven, by anchor: `accumulator` (EIP-7643), `historical_roots`, `historical_summaries@<slot>`.
    pub proven: BTreeMap<String, u64>,
    /// Blocks not proven, for want of an anchor or a proof.
    pub not_proven: u64,
    /// Why (the first reason met): "no accumulator for network sepolia ...", "no proofs (noproofs profile)".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// What `verify` reports about an ere file.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct EreReport {
    /// `default`, `noproofs`, `noreceipts` or `noproofs-noreceipts`, from the components present.
    pub profile: String,
    /// The record types of each block's index entries, in index order.
    pub components: Vec<String>,
    /// `Proof` records by proof type (`"0"` to `"3"`).
    pub proof_types: BTreeMap<String, u64>,
    /// Blocks mined before the merge (difficulty above zero): the blocks total difficulty and the accumulator
    /// root cover.
    pub pre_merge_blocks: u64,
    /// The beacon slots (the headers' `slot_number`, Amsterdam on) of the file's first and last block that
    /// carry one: where its blocks meet the bids of era files ([`crate::verify::links::cross_check_bids`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slots: Option<(u64, u64)>,
}

/// What `verify` reports about an era file's beacon chain. For era files, the report's `blocks` counts beacon
/// blocks and `first_block`/`last_block` are the execution block numbers of its post-merge payloads.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct BeaconReport {
    /// Slot of the era state (`era * 8192`).
    pub state_slot: u64,
    /// Fork of the state.
    pub state_fork: String,
    /// Hex hash_tree_root of the state.
    pub state_root: String,
    /// Validators in the state's registry.
    pub validators: u64,
    /// Slots of the era without a block.
    pub empty_slots: u64,
    /// Blocks per fork.
    pub blocks_per_fork: BTreeMap<String, u64>,
    /// Withdrawals in the era's payloads.
    pub withdrawals: u64,
    /// Hex root of the state's last historical entry (absent in era 0).
    pub historical_root: Option<String>,
    /// Whether the state's root is tied to a root from outside the file (see [`crate::verify::anchor`]).
    pub state_anchor: StateAnchor,
    /// Gloas: the era's execution payload bids (absent before Gloas).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bids: Option<BidCounts>,
    /// Links to the neighbouring era files, checked by [`crate::verify::verify_archives`].
    #[serde(skip)]
    pub links: EraLinks,
}

/// The bids of a Gloas era and what their chain showed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BidCounts {
    /// Blocks with a bid.
    pub bids: u64,
    /// Of them, self-built (builder index 2^64-1).
    pub self_built: u64,
    /// Blocks whose bid builds on the parent's revealed payload.
    pub parents_revealed: u64,
    /// Blocks whose bid builds past a withheld parent payload.
    pub parents_withheld: u64,
    /// Slots whose `execution_payload_availability` bit was checked against the bids.
    pub availability_bits_checked: u64,
}

/// What consecutive era files must agree on: the beacon block root at the era boundary and the execution
/// chain head.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct EraLinks {
    /// The root the previous era's last slot must hold: the parent of a block in this era's first slot, or the
    /// root this era's state records for that slot when it is empty.
    pub previous_root: Option<[u8; 32]>,
    /// The root of this era's last slot (`state.block_roots[8191]`).
    pub last_root: Option<[u8; 32]>,
    /// The first payload's number and parent hash.
    pub first_payload: Option<(u64, [u8; 32])>,
    /// The execution head at the era's end (number, hash), from the state's latest execution payload header.
    pub execution_head: Option<(u64, [u8; 32])>,
    /// `(number, hash)` of the era's payloads that end an execution era (number 8191 mod 8192) and of its last
    /// payload: where ere files of the same blocks are compared with it ([`crate::verify::links::cross_check_payloads`]).
    pub payload_marks: Vec<(u64, [u8; 32])>,
    /// hash_tree_root of this era's state (the state at slot `era * 8192`).
    pub state_root: Option<[u8; 32]>,
    /// `state.state_roots` at this era's first slot, when that slot is empty: then it is the root of the state
    /// at that slot with no block applied, which is the previous era file's state, so the two must be equal.
    pub first_slot_state_root: Option<[u8; 32]>,
    /// What the era's last block leaves for the next era's first bid (Gloas).
    pub(crate) last_link: Option<super::bid::ParentLink>,
    /// The era's first Gloas block, whose parent is the previous era's last.
    pub first_bid: Option<super::bid::FirstBid>,
    /// Gloas: `(slot, block_hash)` of the last bid whose payload a later block of the file revealed, where ere
    /// files past Amsterdam are compared with it ([`crate::verify::links::cross_check_bids`]).
    pub last_revealed: Option<(u64, [u8; 32])>,
}

/// How an era state was anchored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnchorKind {
    /// Its root equals the trusted root for its slot.
    Trusted,
    /// The next era's state records its root (slot `N * 8192` empty) and that state is anchored.
    Linked,
}

/// Whether and how an era file's state is tied to a root from outside the file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StateAnchor {
    /// True when the state's root equals a trusted one, directly or through the next era's state.
    pub anchored: bool,
    /// How (absent when not anchored).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by: Option<AnchorKind>,
    /// The trusted list (`trusted`), or the next era file whose anchored state records this one (`linked`);
    /// when not anchored, why not.
    pub source: String,
}

impl Default for StateAnchor {
    /// A file verified alone (`inspect`): compared with nothing.
    fn default() -> StateAnchor {
        StateAnchor::not("not compared with a trusted root")
    }
}

impl StateAnchor {
    /// Not anchored, and why.
    pub(super) fn not(why: impl Into<String>) -> StateAnchor {
        StateAnchor {
            anchored: false,
            by: None,
            source: why.into(),
        }
    }
}

/// The worst status of `files` (0 for none).
pub fn exit_status<'a>(files: impl IntoIterator<Item = &'a FileReport>) -> ExitStatus {
    files
        .into_iter()
        .map(FileReport::exit_status)
        .max()
        .unwrap_or_default()
}

/// Errors listed per file before the rest are only counted.
pub const MAX_ERRORS: usize = 50;

impl FileReport {
    /// A passing report for `path` of `kind` (`era1`, `era` or `ere`), with its size; checks add errors to it.
    pub fn start(path: &std::path::Path, kind: &str) -> FileReport {
        FileReport {
            file: path.display().to_string(),
            kind: kind.into(),
            file_size: std::fs::metadata(path).map(|m| m.len()).unwrap_or(0),
            ok: true,
            ..Default::default()
        }
    }

    /// The report of a file of `kind` that failed before any check ran (it did not open): `error` says why.
    pub fn failed(path: &std::path::Path, kind: &str, error: impl Into<ReportError>) -> FileReport {
        let mut report = FileReport::start(path, kind);
        report.error(error);
        report
    }

    /// The status of one verified file: 0 verified, 1 a check failed, 2 it could not be read.
    pub fn exit_status(&self) -> ExitStatus {
        if self.io_failed() {
            ExitStatus::Usage
        } else if !self.ok {
            ExitStatus::DataErrors
        } else {
            ExitStatus::Ok
        }
    }

    /// True when some error is an I/O failure (see [`ReportError::is_io`]) rather than a failed check.
    pub fn io_failed(&self) -> bool {
        self.errors.iter().any(ReportError::is_io)
    }

    /// Records an error, keeping the list bounded. An I/O error goes first and is never the one left out: it
    /// explains the others (a file that shrank under its map reads as zeros, which fail every check) and
    /// decides the exit status.
    pub fn error(&mut self, e: impl Into<ReportError>) {
        self.ok = false;
        let e = e.into();
        if e.is_io() {
            self.errors.insert(0, e);
            if self.errors.len() > MAX_ERRORS {
                self.errors.pop();
                self.errors_omitted += 1;
            }
        } else if self.errors.len() < MAX_ERRORS {
            self.errors.push(e);
        } else {
            self.errors_omitted += 1;
        }
    }
}
