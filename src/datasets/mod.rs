//! Datasets: one module per table, all behind [`Dataset`], so a new dataset is one new file plus one line in
//! [`ALL`]. Each builds Arrow record batches straight from verified block views — no per-row owned structs.
//! Each declares its columns once, as a list ([`table`]) that gives its builder struct, its schema with the
//! columns' encoding roles, and the order its arrays are finished in.
//!
//! Two archive kinds feed them: era1 files (pre-merge execution blocks, [`DatasetBuilder::add_block`]) and era
//! files (beacon blocks with their post-merge execution payloads, [`DatasetBuilder::add_beacon_block`], and the
//! era's BeaconState, [`DatasetBuilder::add_state`]). A dataset says what it reads from an archive
//! ([`Dataset::needs`]); export writes its file only for the sources that hold it.
//!
//! Consensus datasets: `beacon_blocks` (a row per block), one dataset per block operation (a row per item, see
//! [`operations`]) and `validators` (a row per validator of the era's state, opt-in: not in the default
//! export list).
//!
//! Column names follow cryo's (<https://github.com/paradigmxyz/cryo>) where cryo has the column. Hashes and addresses
//! are binary; every uint256 appears as three columns `<name>_binary` (32-byte big-endian), `<name>_string` (decimal)
//! and `<name>_f64`, because DuckDB and Polars mishandle Decimal256. Every column is documented in `docs/schema.md`.

/// `dataset!(Type, "name", Columns, Need)`: the [`Dataset`] impl of a dataset whose builder is its column struct
/// `Columns` (written by `columns!`, [`table`]) and which reads what [`crate::formats::Need`]`::Need` names.
macro_rules! dataset {
    ($ty:ident, $name:literal, $columns:ty, $need:ident) => {
        impl $crate::datasets::Dataset for $ty {
            fn name(&self) -> &'static str {
                $name
            }
            fn table(&self) -> &'static $crate::datasets::table::Table {
                <$columns as $crate::datasets::table::Columns>::table()
            }
            fn needs(&self) -> $crate::formats::Need {
                $crate::formats::Need::$need
            }
            fn builder(
                &self,
                _: $crate::datasets::ExportContext,
            ) -> Box<dyn $crate::datasets::DatasetBuilder> {
                Box::<$columns>::default()
            }
        }
    };
}

/// `era_dataset!(Type, "name", Columns)`: a block operation's dataset, whose rows only era files give (their
/// beacon blocks).
macro_rules! era_dataset {
    ($ty:ident, $name:literal, $columns:ty) => {
        dataset!($ty, $name, $columns, BeaconBlocks);
    };
}

#[macro_use]
pub mod table;
#[macro_use]
pub mod events;

pub mod approvals_for_all;
pub mod attestations;
pub mod attester_slashings;
pub mod beacon_blocks;
pub mod blob_commitments;
pub mod blocks;
pub mod bls_to_execution_changes;
pub mod builder_deposit_requests;
pub mod builder_exit_requests;
pub mod builders;
pub mod columns;
pub mod consolidation_requests;
pub mod contracts;
pub mod decoded;
pub mod deposit_requests;
pub mod deposits;
pub mod erc1155_transfers;
pub mod erc20_approvals;
pub mod erc20_transfers;
pub mod erc721_transfers;
pub mod logs;
pub mod native_transfers;
pub mod operations;
pub mod payload_attestations;
pub mod proposer_slashings;
pub mod raw_transactions;
pub mod sync_aggregates;
pub mod transactions;
pub mod uncles;
pub mod validators;
pub mod voluntary_exits;
pub mod withdrawal_requests;
pub mod withdrawals;

use crate::consensus::SszError;
use crate::crypto::signer::Signer;
use crate::verify::era::{VerifiedBeaconBlock, VerifiedState};
use crate::verify::execution::VerifiedBlock;
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use table::Table;

/// Bumped whenever a column is added, removed, renamed or changes type (or changes nullability); recorded in
/// every output manifest, so a rerun after an upgrade redoes old outputs instead of mixing schemas.
/// 2: `blocks.total_difficulty_*` nullable (null for era-sourced rows); the `withdrawals` and `beacon_blocks`
/// datasets.
/// 3: cryo's meaning: `transactions.chain_id` is the network's on every row (the signed EIP-155 id moves to
/// `signed_chain_id`), `transactions.gas_price` is the price paid for every type (`effective_gas_price` is gone);
/// files sit in `network=<name>` partition folders, declare their sort order and carry key-value metadata.
/// 4: no name means something else than in cryo: `transactions.v` is `signature_v` (cryo's `v` is the y
/// parity, here `y_parity`), `blocks.uncles_hash` is `ommers_hash` (cryo's is the ommers' hashes); `blocks.size`
/// is the block's RLP length as JSON-RPC reports it; `withdrawals` gain `timestamp` and `slot`.
/// 5: the beacon-chain operation datasets and `validators`; `blocks.aura_step` and `blocks.aura_seal` (AuRa-sealed
/// pre-merge headers of gnosis and chiado), with `blocks.mix_hash` and `blocks.nonce` null for those.
/// 6: cryo's default fee columns `transactions.gas_price`, `max_fee_per_gas`, `max_priority_fee_per_gas` and
/// `blocks.base_fee_per_gas` as uint64 beside their triples; `transactions.transaction_index` uint64 and
/// `transaction_type` uint32 (cryo's widths); every `_f64` correctly rounded (some values between 2^64 and 2^76
/// change by 1 ULP).
/// 7: Gloas (EIP-7732): `beacon_blocks` gains the bid's columns (`bid_*`, `parent_payload_status`,
/// `payload_attestation_count`; null before Gloas); the `payload_attestations`, `builder_deposit_requests`,
/// `builder_exit_requests` and `builders` datasets.
/// 8: Amsterdam: `blocks` gains `block_access_list_hash` and `slot_number` (null before the fork);
/// `erc20_transfers` no longer holds EIP-7708 ETH-transfer logs; the `native_transfers` dataset.
///
/// A dataset added beside the others (`raw_transactions`) changes no file already written, so it keeps the
/// version: a rerun after the upgrade redoes nothing.
pub const SCHEMA_VERSION: u32 = 8;

/// Facts about the whole run a dataset may need per row.
#[derive(Debug, Clone, Copy)]
pub struct ExportContext {
    /// The network's chain id (the `chain_id` columns).
    pub chain_id: u64,
    /// The process-wide signer when senders are exported ([EIP-7702](https://eips.ethereum.org/EIPS/eip-7702)
    /// authorities are recovered with it); `None` with `--no-senders`, so that path never touches the signature
    /// algorithm.
    pub signer: Option<&'static Signer>,
}

/// Why a dataset could not take a verified block's rows (a view accessor failed where verification passed):
/// the file's outputs are then discarded like a verification failure, never written half-filled.
#[derive(Debug, Clone, thiserror::Error)]
pub enum DatasetError {
    /// An SSZ field of a beacon block (or of the era's state) did not decode.
    #[error("dataset {dataset}, slot {slot}: {field}: {source}")]
    Ssz {
        /// The dataset whose builder read the field.
        dataset: &'static str,
        /// The beacon block's (or state's) slot.
        slot: u64,
        /// The body (or state) field that failed.
        field: &'static str,
        /// The decoder's error.
        source: SszError,
    },
}

impl DatasetError {
    /// A mapper from an SSZ error of `field`, read by `dataset` at `slot`.
    pub fn ssz(
        dataset: &'static str,
        slot: u64,
        field: &'static str,
    ) -> impl Fn(SszError) -> DatasetError {
        move |source| DatasetError::Ssz {
            dataset,
            slot,
            field,
            source,
        }
    }
}

/// One table eraflow can export.
pub trait Dataset: Sync + Send {
    /// Directory and file-name part (`blocks`, `transactions`, ...).
    fn name(&self) -> &'static str;
    /// The schema and encoding roles, from the dataset's column list (`columns!`, [`table`]).
    fn table(&self) -> &'static Table;
    /// Whether rows need receipts (receipt decompression is skipped when no selected dataset needs them): those
    /// made of them, by default; a dataset of blocks that also reads each receipt (`transactions`) says so.
    fn needs_receipts(&self) -> bool {
        self.needs() == crate::formats::Need::Receipts
    }
    /// What the dataset reads from an archive: export writes the dataset's file for a source only when the
    /// source's kind holds it ([`crate::formats::Holds::has`]: an era1 file has no withdrawals, an era file no
    /// receipts or ommers), so no structurally empty files are made.
    fn needs(&self) -> crate::formats::Need;
    /// A builder for one chunk of consecutive blocks.
    fn builder(&self, ctx: ExportContext) -> Box<dyn DatasetBuilder>;
    /// The Arrow schema of every batch.
    fn schema(&self) -> SchemaRef {
        self.table().schema.clone()
    }
    /// The columns rows are sorted by, in order (declared as the files' `sorting_columns`, so query engines
    /// can skip sorts and prune by range).
    fn sort_columns(&self) -> &'static [&'static str] {
        &self.table().roles.sort
    }
    /// Binary columns whose values repeat across rows (addresses, event topics): dictionary-encoded under the
    /// light codecs (snappy, lz4, none), which shrinks them; every other binary column (hashes, calldata) is
    /// high-entropy and stays plain.
    fn dictionary_columns(&self) -> &'static [&'static str] {
        &self.table().roles.dictionary
    }
    /// Binary columns whose values come in long runs of repeats (a block's root on each of its operations, an
    /// epoch's checkpoint roots on each of its attestations): dictionary-encoded under every codec, which spares
    /// the codec most of their bytes.
    fn repeated_columns(&self) -> &'static [&'static str] {
        &self.table().roles.repeated
    }
    /// Integer columns that grow steadily from row to row (indices): written `DELTA_BINARY_PACKED` without a
    /// dictionary, which stores them in a few bits per row.
    fn delta_columns(&self) -> &'static [&'static str] {
        &self.table().roles.delta
    }
    /// `uint64` columns whose values may pass 2^63 - 1: `decimal(20, 0)` in a table format without unsigned
    /// integers ([`crate::sink::portable`]).
    fn wide_columns(&self) -> &'static [&'static str] {
        &self.table().roles.wide
    }
    /// What else decides the rows besides the name and schema version (a decoded event's signature and
    /// contract addresses), added to the output fingerprint so a changed definition redoes the files.
    fn definition(&self) -> Option<&str> {
        None
    }
    /// Whether the rows come from the era's BeaconState ([`DatasetBuilder::add_state`]) rather than from blocks.
    fn reads_state(&self) -> bool {
        self.needs() == crate::formats::Need::State
    }
    /// Whether rows need each transaction's recovered sender (`contracts`' deployer): export refuses the
    /// dataset when senders are off rather than write rows without it.
    fn needs_senders(&self) -> bool {
        false
    }
    /// Whether rows carry recovered senders when they are on (`transactions`' `from_address` and 7702
    /// authorities, `contracts`' deployer). An export none of whose datasets does never recovers a signature:
    /// recovery is ~90% of an era1 export's CPU, and a `blocks` or `logs` export has no column for it.
    fn uses_senders(&self) -> bool {
        self.needs_senders()
    }
}

/// Accumulates rows of one chunk of blocks. Both `add_*` methods default to adding nothing, so a dataset fed
/// by one archive kind implements only its own.
pub trait DatasetBuilder: Send {
    /// Appends the rows of one verified era1 block.
    fn add_block(&mut self, _block: &VerifiedBlock<'_>) {}
    /// Appends the rows of one verified beacon block of an era file (with its execution payload after the
    /// merge).
    fn add_beacon_block(&mut self, _block: &VerifiedBeaconBlock<'_>) -> Result<(), DatasetError> {
        Ok(())
    }
    /// Appends the rows validators `range` of an era file's verified state give (datasets whose
    /// [`Dataset::reads_state`] is true; export calls it chunk by chunk, so no builder holds the whole registry).
    fn add_state(
        &mut self,
        _state: &VerifiedState<'_>,
        _range: std::ops::Range<usize>,
    ) -> Result<(), DatasetError> {
        Ok(())
    }
    /// Logs that carried one of the dataset's event signatures without the event's shape, so gave no row
    /// (decoded-event datasets, [`events`]); read before [`Self::finish`].
    fn lookalikes(&self) -> u64 {
        0
    }
    /// [EIP-7708](https://eips.ethereum.org/EIPS/eip-7708) ETH-transfer logs (Amsterdam on) set aside because
    /// they have the dataset's event shape but are ETH, not a token (`erc20_transfers`); read before
    /// [`Self::finish`].
    fn eth_transfer_logs(&self) -> u64 {
        0
    }
    /// The rows as one batch (in block order, then transaction/log/uncle index).
    fn finish(self: Box<Self>) -> RecordBatch;
}

/// Every dataset: the default export list first (`configs/default.toml`: execution datasets, the token
/// datasets, then the beacon-chain operations), then the opt-in `contracts`, `native_transfers`, `validators`,
/// `builders` and `raw_transactions`.
pub static ALL: &[&dyn Dataset] = &[
    &blocks::Blocks,
    &transactions::Transactions,
    &logs::Logs,
    &uncles::Uncles,
    &withdrawals::Withdrawals,
    &erc20_transfers::Erc20Transfers,
    &erc721_transfers::Erc721Transfers,
    &erc1155_transfers::Erc1155Transfers,
    &erc20_approvals::Erc20Approvals,
    &approvals_for_all::ApprovalsForAll,
    &beacon_blocks::BeaconBlocks,
    &attestations::Attestations,
    &deposits::Deposits,
    &deposit_requests::DepositRequests,
    &withdrawal_requests::WithdrawalRequests,
    &consolidation_requests::ConsolidationRequests,
    &voluntary_exits::VoluntaryExits,
    &proposer_slashings::ProposerSlashings,
    &attester_slashings::AttesterSlashings,
    &bls_to_execution_changes::BlsToExecutionChanges,
    &sync_aggregates::SyncAggregates,
    &blob_commitments::BlobCommitments,
    &payload_attestations::PayloadAttestations,
    &builder_deposit_requests::BuilderDepositRequests,
    &builder_exit_requests::BuilderExitRequests,
    &contracts::Contracts,
    &native_transfers::NativeTransfers,
    &validators::Validators,
    &builders::Builders,
    &raw_transactions::RawTransactions,
];

/// Every dataset an export can give with senders recovered (`senders`) or not: [`ALL`], less those that
/// [`Dataset::needs_senders`] when senders are off (an export refuses them then).
pub fn all_with_senders(senders: bool) -> Vec<&'static dyn Dataset> {
    ALL.iter()
        .copied()
        .filter(|d| senders || !d.needs_senders())
        .collect()
}

/// Looks datasets up by name (`blocks,transactions`); an unknown name is an error listing the known ones.
///
/// # Example
///
/// ```
/// use eraflow::datasets::{self, ALL};
///
/// let names: Vec<&str> = ALL.iter().take(6).map(|d| d.name()).collect();
/// assert_eq!(
///     names,
///     ["blocks", "transactions", "logs", "uncles", "withdrawals", "erc20_transfers"]
/// );
///
/// // Names are trimmed, and the datasets come back in the order asked for.
/// let picked = datasets::by_names(&["logs", " blocks"])?;
/// assert_eq!(picked.iter().map(|d| d.name()).collect::<Vec<_>>(), ["logs", "blocks"]);
/// assert!(picked[0].needs_receipts());
/// assert_eq!(picked[1].schema().field(0).name(), "block_number");
///
/// let Err(err) = datasets::by_names(&["blocks", "traces"]) else {
///     panic!("traces is not a dataset");
/// };
/// assert!(err.starts_with("unknown dataset 'traces': known datasets are blocks, transactions"));
/// # Ok::<(), String>(())
/// ```
pub fn by_names(names: &[impl AsRef<str>]) -> Result<Vec<&'static dyn Dataset>, String> {
    names
        .iter()
        .map(|n| {
            let n = n.as_ref().trim();
            ALL.iter().copied().find(|d| d.name() == n).ok_or_else(|| {
                format!(
                    "unknown dataset '{n}': known datasets are {}",
                    ALL.iter().map(|d| d.name()).collect::<Vec<_>>().join(", ")
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::ALL;
    use std::collections::BTreeSet;

    const SCHEMA_DOC: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/schema.md"));

    /// Cells of a Markdown table row, trimmed; `\|` inside a cell is not a separator.
    fn cells(row: &str) -> Vec<String> {
        let row = row.trim();
        let inner = row.strip_prefix('|').unwrap_or(row);
        let inner = inner.strip_suffix('|').unwrap_or(inner);
        let mut out = vec![String::new()];
        let mut chars = inner.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' if chars.peek() == Some(&'|') => {
                    out.last_mut().unwrap().push('|');
                    chars.next();
                }
                '|' => out.push(String::new()),
                c => out.last_mut().unwrap().push(c),
            }
        }
        out.into_iter().map(|c| c.trim().to_string()).collect()
    }

    /// The column names one doc row stands for: `value_{binary,string,f64}` is the uint256 triple and
    /// `topic0..topic3` a numbered run; anything else is one column. Backticks are ignored.
    fn expand(cell: &str) -> Vec<String> {
        let cell = cell.replace('`', "");
        if let (Some(open), Some(close)) = (cell.find('{'), cell.find('}')) {
            let (head, tail) = (&cell[..open], &cell[close + 1..]);
            return cell[open + 1..close]
                .split(',')
                .map(|part| format!("{head}{}{tail}", part.trim()))
                .collect();
        }
        if let Some((first, last)) = cell.split_once("..") {
            let split = |s: &str| {
                let digits = s.len() - s.trim_end_matches(|c: char| c.is_ascii_digit()).len();
                let (name, n) = s.split_at(s.len() - digits);
                (name.to_string(), n.parse::<u32>().ok())
            };
            if let ((a, Some(from)), (b, Some(to))) = (split(first), split(last)) {
                if a == b && from <= to {
                    return (from..=to).map(|i| format!("{a}{i}")).collect();
                }
            }
        }
        vec![cell]
    }

    /// One documented column: its name and whether the doc's `null` cell says `yes`.
    struct DocColumn {
        name: String,
        nullable: Option<bool>,
    }

    /// Every `## <name> ...` section of docs/schema.md that holds a `| column | ...` table, keyed by the
    /// heading's first word, with the table's columns in order.
    fn documented_tables() -> Vec<(String, Vec<DocColumn>)> {
        let mut tables: Vec<(String, Vec<DocColumn>)> = Vec::new();
        let mut section: Option<String> = None;
        let mut header: Option<Vec<String>> = None;
        for line in SCHEMA_DOC.lines() {
            if let Some(h) = line.strip_prefix("## ") {
                section = h.split_whitespace().next().map(str::to_string);
                header = None;
                continue;
            }
            let Some(name) = &section else { continue };
            if !line.trim_start().starts_with('|') {
                // A table ends at its first non-table line.
                if header.take().is_some() {
                    section = None;
                }
                continue;
            }
            let row = cells(line);
            match &header {
                None if row.first().map(String::as_str) == Some("column") => {
                    header = Some(row);
                    tables.push((name.clone(), Vec::new()));
                }
                None => {}
                // The |---|---| line under the header.
                Some(_)
                    if row
                        .iter()
                        .all(|c| c.chars().all(|ch| matches!(ch, '-' | ':'))) => {}
                Some(h) => {
                    let null = h.iter().position(|c| c == "null").and_then(|i| row.get(i));
                    let nullable = null.and_then(|n| match n.as_str() {
                        "yes" => Some(true),
                        "no" => Some(false),
                        _ => None,
                    });
                    let columns = &mut tables.last_mut().unwrap().1;
                    for name in expand(&row[0]) {
                        columns.push(DocColumn { name, nullable });
                    }
                }
            }
        }
        tables
    }

    /// The columns docs/schema.md lists for `dataset`; fails unless exactly one section documents it.
    fn doc_table<'t>(tables: &'t [(String, Vec<DocColumn>)], dataset: &str) -> &'t [DocColumn] {
        let found: Vec<_> = tables.iter().filter(|(n, _)| n == dataset).collect();
        assert_eq!(
            found.len(),
            1,
            "docs/schema.md needs exactly one `## {dataset} ...` section with a `| column | ...` table, found {}",
            found.len()
        );
        &found[0].1
    }

    /// Every column of cryo's `blocks`, `transactions` and `logs` (paradigmxyz/cryo,
    /// `crates/freeze/src/datasets/*.rs` at 559b654; uint256 columns in cryo's default `_binary`, `_string`,
    /// `_f64` spelling), and whether eraflow has it with cryo's meaning (`true`) or must not have the name at all
    /// (`false`: in cryo it means something eraflow spells otherwise). A cryo query then works with the same
    /// meaning or fails on a missing name.
    const CRYO: &[(&str, &[(&str, bool)])] = &[
        (
            "blocks",
            &[
                ("block_hash", true),
                ("parent_hash", true),
                ("uncles_hash", false),
                ("author", true),
                ("state_root", true),
                ("transactions_root", true),
                ("receipts_root", true),
                ("block_number", true),
                ("gas_used", true),
                ("gas_limit", true),
                ("extra_data", true),
                ("logs_bloom", true),
                ("timestamp", true),
                ("difficulty", false),
                ("total_difficulty_binary", true),
                ("total_difficulty_string", true),
                ("total_difficulty_f64", true),
                ("size", true),
                ("mix_hash", true),
                ("nonce", true),
                ("base_fee_per_gas", true),
                ("withdrawals_root", true),
                ("chain_id", true),
            ],
        ),
        (
            "transactions",
            &[
                ("block_number", true),
                ("transaction_index", true),
                ("transaction_hash", true),
                ("nonce", true),
                ("from_address", true),
                ("to_address", true),
                ("value_binary", true),
                ("value_string", true),
                ("value_f64", true),
                ("input", true),
                ("gas_limit", true),
                ("gas_used", true),
                ("gas_price", true),
                ("transaction_type", true),
                ("max_priority_fee_per_gas", true),
                ("max_fee_per_gas", true),
                ("success", true),
                ("n_input_bytes", true),
                ("n_input_zero_bytes", true),
                ("n_input_nonzero_bytes", true),
                ("n_rlp_bytes", true),
                ("block_hash", true),
                ("chain_id", true),
                ("timestamp", true),
                ("r", true),
                ("s", true),
                ("v", false),
            ],
        ),
        (
            "logs",
            &[
                ("block_number", true),
                ("block_hash", true),
                ("transaction_index", true),
                ("log_index", true),
                ("transaction_hash", true),
                ("address", true),
                ("topic0", true),
                ("topic1", true),
                ("topic2", true),
                ("topic3", true),
                ("data", true),
                ("n_data_bytes", true),
                ("chain_id", true),
            ],
        ),
        (
            // cryo's erc721_transfers (crates/freeze/src/datasets/erc721_transfers.rs) names the NFT contract
            // `erc20`, as its ERC-20 dataset does: here it is `erc721`.
            "erc721_transfers",
            &[
                ("erc20", false),
                ("from_address", true),
                ("to_address", true),
                ("token_id_binary", true),
            ],
        ),
        (
            // cryo's native_transfers (from traces); the same names from blocks and receipts here.
            "native_transfers",
            &[
                ("block_number", true),
                ("block_hash", true),
                ("transaction_index", true),
                ("transfer_index", true),
                ("transaction_hash", true),
                ("from_address", true),
                ("to_address", true),
                ("value_binary", true),
                ("chain_id", true),
            ],
        ),
    ];

    /// cryo's unsigned integer columns (same source) and their widths in bits: no same-name column here may be
    /// narrower, or a value cryo holds would not fit (and a cast in a ported query would change meaning).
    const CRYO_WIDTHS: &[(&str, &[(&str, usize)])] = &[
        (
            "blocks",
            &[
                ("block_number", 32),
                ("gas_used", 64),
                ("gas_limit", 64),
                ("timestamp", 32),
                ("size", 64),
                ("base_fee_per_gas", 64),
                ("chain_id", 64),
            ],
        ),
        (
            "transactions",
            &[
                ("block_number", 32),
                ("transaction_index", 64),
                ("nonce", 64),
                ("gas_limit", 64),
                ("gas_used", 64),
                ("gas_price", 64),
                ("transaction_type", 32),
                ("max_priority_fee_per_gas", 64),
                ("max_fee_per_gas", 64),
                ("n_input_bytes", 32),
                ("n_input_zero_bytes", 32),
                ("n_input_nonzero_bytes", 32),
                ("n_rlp_bytes", 32),
                ("chain_id", 64),
                ("timestamp", 32),
            ],
        ),
        (
            "logs",
            &[
                ("block_number", 32),
                ("transaction_index", 32),
                ("log_index", 32),
                ("n_data_bytes", 32),
                ("chain_id", 64),
            ],
        ),
    ];

    #[test]
    fn no_cryo_column_is_narrower_here() {
        use arrow_schema::DataType;
        let mut problems = Vec::new();
        for (dataset, columns) in CRYO_WIDTHS {
            let schema = super::by_names(&[dataset]).expect("a dataset")[0].schema();
            for &(name, bits) in *columns {
                let here = schema.field_with_name(name).map(|f| f.data_type().clone());
                let width = match &here {
                    Ok(DataType::UInt8) => 8,
                    Ok(DataType::UInt16) => 16,
                    Ok(DataType::UInt32) => 32,
                    Ok(DataType::UInt64) => 64,
                    _ => 0,
                };
                if width < bits {
                    problems.push(format!(
                        "{dataset}.{name}: uint{bits} in cryo, {here:?} here"
                    ));
                }
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    #[test]
    fn cryo_columns_mean_the_same_or_are_absent() {
        let coming = SCHEMA_DOC
            .split("## Coming from cryo")
            .nth(1)
            .and_then(|s| s.split("\n## ").next())
            .expect("docs/schema.md has a \"Coming from cryo\" section");
        let mut problems = Vec::new();
        for (dataset, columns) in CRYO {
            let d = super::by_names(&[dataset]).expect("a dataset")[0];
            let schema = d.schema();
            for &(name, same) in *columns {
                let here = schema.field_with_name(name).is_ok();
                if here != same {
                    problems.push(format!(
                        "{dataset}.{name}: cryo's column {} here",
                        if same {
                            "is missing"
                        } else {
                            "means something else but has the name"
                        }
                    ));
                }
                // The doc's table names every cryo column (a uint256 triple as `name_{binary,string,f64}`).
                let stem = name
                    .strip_suffix("_binary")
                    .or_else(|| name.strip_suffix("_string"))
                    .or_else(|| name.strip_suffix("_f64"))
                    .unwrap_or(name);
                let topic = name.starts_with("topic");
                let listed = coming.contains(&format!("`{name}`"))
                    || coming.contains(&format!("`{stem}_{{"))
                    || (topic && coming.contains("`topic0`..`topic3`"));
                if !listed {
                    problems.push(format!(
                        "{dataset}.{name}: not in docs/schema.md \"Coming from cryo\""
                    ));
                }
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    #[test]
    fn schema_doc_lists_exactly_each_datasets_columns_in_order() {
        let tables = documented_tables();
        let mut problems = Vec::new();
        for d in ALL {
            let doc: Vec<&str> = doc_table(&tables, d.name())
                .iter()
                .map(|c| c.name.as_str())
                .collect();
            let schema = d.schema();
            let arrow: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
            let (doc_set, arrow_set): (BTreeSet<_>, BTreeSet<_>) =
                (doc.iter().collect(), arrow.iter().collect());
            let missing: Vec<_> = arrow_set.difference(&doc_set).collect();
            let extra: Vec<_> = doc_set.difference(&arrow_set).collect();
            if !missing.is_empty() || !extra.is_empty() {
                problems.push(format!(
                    "{}: missing from docs/schema.md {missing:?}; documented but not in the schema {extra:?}",
                    d.name()
                ));
            } else if doc != arrow {
                let at = doc
                    .iter()
                    .zip(&arrow)
                    .position(|(a, b)| a != b)
                    .unwrap_or(0);
                problems.push(format!(
                    "{}: same columns in another order (first difference at position {at}: doc `{}`, schema \
                     `{}`)\n  doc:    {doc:?}\n  schema: {arrow:?}",
                    d.name(),
                    doc.get(at).unwrap_or(&"-"),
                    arrow.get(at).unwrap_or(&"-"),
                ));
            }
        }
        // A column table for something that is not a dataset is a stale section (a removed or renamed dataset).
        for (name, _) in &tables {
            if !ALL.iter().any(|d| d.name() == name) {
                problems.push(format!(
                    "docs/schema.md documents `{name}`, which is not a dataset"
                ));
            }
        }
        assert!(
            problems.is_empty(),
            "docs/schema.md is out of sync:\n{}",
            problems.join("\n")
        );
    }

    /// Every encoding role names a column of the schema that the role fits: binary for a dictionary, an
    /// integer for delta encoding (a role given to a group whose columns are named otherwise, such as a uint256
    /// triple, names no column and fails here).
    #[test]
    fn roles_name_fitting_columns() {
        use arrow_schema::DataType;
        let mut problems = Vec::new();
        for d in ALL {
            let schema = d.schema();
            let roles = [
                ("sort", d.sort_columns()),
                ("dictionary", d.dictionary_columns()),
                ("repeated", d.repeated_columns()),
                ("delta", d.delta_columns()),
            ];
            for (role, names) in roles {
                for name in names {
                    let Ok(f) = schema.field_with_name(name) else {
                        problems.push(format!(
                            "{}: {role} column {name} is not in the schema",
                            d.name()
                        ));
                        continue;
                    };
                    let fits = match role {
                        "dictionary" | "repeated" => f.data_type() == &DataType::Binary,
                        "delta" => f.data_type().is_integer(),
                        _ => true,
                    };
                    if !fits {
                        problems.push(format!(
                            "{}: {role} column {name} is {}",
                            d.name(),
                            f.data_type()
                        ));
                    }
                }
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    /// What `src/datasets/schemas.snapshot` holds: every dataset's schema (field names, types, nullability, metadata) and what
    /// else its declaration decides (sources, encoding roles), one line each.
    fn declarations() -> String {
        use std::fmt::Write;
        let mut out = format!("schema_version {}\n", super::SCHEMA_VERSION);
        for d in ALL {
            let schema = d.schema();
            let _ = writeln!(out, "\n{} {:?}", d.name(), schema.metadata());
            for f in schema.fields() {
                let null = if f.is_nullable() { "null" } else { "not null" };
                let _ = writeln!(
                    out,
                    "  {} {:?} {null} {:?}",
                    f.name(),
                    f.data_type(),
                    f.metadata()
                );
            }
            // The kinds whose files give it rows (what `sources()` listed before datasets said what they need).
            use crate::formats::ArchiveKind::{Era, Era1, Ere};
            let kinds: Vec<_> = [Era1, Ere, Era]
                .into_iter()
                .filter(|k| k.holds().has(d.needs()))
                .collect();
            let _ = writeln!(out, "  sources {kinds:?}");
            let _ = writeln!(
                out,
                "  needs_receipts {} reads_state {}",
                d.needs_receipts(),
                d.reads_state()
            );
            let _ = writeln!(out, "  sort {:?}", d.sort_columns());
            let _ = writeln!(out, "  dictionary {:?}", d.dictionary_columns());
            let _ = writeln!(out, "  repeated {:?}", d.repeated_columns());
            let _ = writeln!(out, "  delta {:?}", d.delta_columns());
        }
        out
    }

    /// Every dataset's schema and encoding roles as they were written: a change to either changes the files
    /// (and needs [`super::SCHEMA_VERSION`] bumped). After a deliberate change, `ERAFLOW_BLESS=1 cargo test
    /// --lib schemas_are_as_declared` rewrites the snapshot.
    #[test]
    fn schemas_are_as_declared() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/datasets/schemas.snapshot");
        let now = declarations();
        if std::env::var_os("ERAFLOW_BLESS").is_some() {
            std::fs::write(path, &now).expect("write the snapshot");
        }
        let was = std::fs::read_to_string(path).unwrap_or_default();
        if let Some((i, (a, b))) = was
            .lines()
            .zip(now.lines())
            .enumerate()
            .find(|(_, (a, b))| a != b)
        {
            panic!(
                "src/datasets/schemas.snapshot, line {}:\n  was: {a}\n  now: {b}\n(a deliberate change: bump \
                 SCHEMA_VERSION and rerun with ERAFLOW_BLESS=1)",
                i + 1
            );
        }
        assert_eq!(
            was.lines().count(),
            now.lines().count(),
            "src/datasets/schemas.snapshot: lines added or removed"
        );
    }

    #[test]
    fn schema_doc_null_cells_match_nullability() {
        let tables = documented_tables();
        let mut problems = Vec::new();
        for d in ALL {
            let doc = doc_table(&tables, d.name());
            for f in d.schema().fields() {
                let Some(c) = doc.iter().find(|c| c.name == *f.name()) else {
                    continue; // reported by the column test
                };
                if c.nullable != Some(f.is_nullable()) {
                    problems.push(format!(
                        "{}.{}: docs/schema.md's null cell says {}, but the schema's field is {}",
                        d.name(),
                        f.name(),
                        c.nullable
                            .map_or("neither yes nor no", |n| if n { "yes" } else { "no" }),
                        if f.is_nullable() {
                            "nullable"
                        } else {
                            "not nullable"
                        }
                    ));
                }
            }
        }
        assert!(
            problems.is_empty(),
            "docs/schema.md is out of sync:\n{}",
            problems.join("\n")
        );
    }
}
