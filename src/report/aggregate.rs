//! The chain as the report's charts see it: per network, sums per UTC day (of the block timestamp) and per era,
//! aggregated from the Parquet files the manifest lists in one streaming pass.
//!
//! Memory is bounded by the workers, not the data: every (file, row group) is a task of its own on the rayon
//! pool, each decodes only the columns its sums need (a Parquet projection) in batches, and only the per-day and
//! per-era sums are kept. A transactions row group whose `timestamp` statistics put it inside one day is counted
//! from its row count and decodes `transaction_type` alone; a token transfers row group inside one day is counted from
//! its row count and decodes nothing. Sums are integers, so the merge order of the
//! workers' partial sums cannot change the result: the same files give the same numbers.
//!
//! | chart | dataset | columns |
//! |---|---|---|
//! | blocks, gas used, blob gas used per day | `blocks` | `timestamp`, `gas_used`, `blob_gas_used` |
//! | transactions and their types per day | `transactions` | `timestamp`, `transaction_type` |
//! | withdrawals per day | `withdrawals` | `timestamp`, `amount_gwei` |
//! | token transfers per day, by standard | `erc20_transfers`, `erc721_transfers`, `erc1155_transfers` | `timestamp` |
//! | validators and effective balance per era | `validators` | `era`, `effective_balance` |

use super::source::Output;
use super::ReportError;
use crate::sink::manifest::Manifest;
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ParquetRecordBatchReaderBuilder};
use parquet::arrow::ProjectionMask;
use parquet::file::metadata::ParquetMetaData;
use parquet::file::statistics::Statistics;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

/// Rows decoded at a time.
const BATCH_ROWS: usize = 8192;

/// Seconds in a UTC day.
pub const DAY: u64 = 86_400;

/// The transaction types charted, by EIP-2718 type byte; anything above 4 counts as `other`.
pub const TYPE_NAMES: [&str; 6] = [
    "legacy (0)",
    "EIP-2930 (1)",
    "EIP-1559 (2)",
    "blob (3)",
    "EIP-7702 (4)",
    "other",
];

/// The token transfer datasets charted, in [`Day::token_transfers`] order, with the standard each counts.
pub const TOKEN_TRANSFERS: [(&str, &str); 3] = [
    ("erc20_transfers", "ERC-20"),
    ("erc721_transfers", "ERC-721"),
    ("erc1155_transfers", "ERC-1155"),
];

/// The datasets the charts read, each with the columns it needs.
pub const CHARTED: [(&str, &[&str]); 7] = [
    ("blocks", &["timestamp", "gas_used", "blob_gas_used"]),
    ("transactions", &["timestamp", "transaction_type"]),
    ("withdrawals", &["timestamp", "amount_gwei"]),
    ("validators", &["era", "effective_balance"]),
    ("erc20_transfers", &["timestamp"]),
    ("erc721_transfers", &["timestamp"]),
    ("erc1155_transfers", &["timestamp"]),
];

/// One UTC day of one network.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Day {
    /// Blocks (`blocks` rows).
    pub blocks: u64,
    /// Gas used by the day's blocks.
    pub gas_used: u128,
    /// Blob gas used by the day's blocks (EIP-4844; 0 before Cancun).
    pub blob_gas_used: u128,
    /// Transactions (`transactions` rows).
    pub transactions: u64,
    /// Transactions by type, as [`TYPE_NAMES`].
    pub types: [u64; 6],
    /// Withdrawals (`withdrawals` rows).
    pub withdrawals: u64,
    /// Gwei withdrawn.
    pub withdrawn_gwei: u128,
    /// Token transfers (rows) by standard, as [`TOKEN_TRANSFERS`]: an ERC-1155 batch counts one per id.
    pub token_transfers: [u64; 3],
}

impl Day {
    fn add(&mut self, o: &Day) {
        self.blocks += o.blocks;
        self.gas_used += o.gas_used;
        self.blob_gas_used += o.blob_gas_used;
        self.transactions += o.transactions;
        for (a, b) in self.types.iter_mut().zip(o.types) {
            *a += b;
        }
        self.withdrawals += o.withdrawals;
        self.withdrawn_gwei += o.withdrawn_gwei;
        for (a, b) in self.token_transfers.iter_mut().zip(o.token_transfers) {
            *a += b;
        }
    }
}

/// One era of one network (`validators` rows: one per validator per era state).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Era {
    /// Validators in the era's state.
    pub validators: u64,
    /// Their effective balances, summed (Gwei).
    pub effective_balance_gwei: u128,
}

/// Per-day and per-era sums of a set of rows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sums {
    /// By day number (days since 1970-01-01 UTC).
    pub days: BTreeMap<i64, Day>,
    /// By era.
    pub eras: BTreeMap<u64, Era>,
}

impl Sums {
    /// Adds `o` into these sums.
    pub fn merge(&mut self, o: Sums) {
        for (d, v) in o.days {
            self.days.entry(d).or_default().add(&v);
        }
        for (e, v) in o.eras {
            let x = self.eras.entry(e).or_default();
            x.validators += v.validators;
            x.effective_balance_gwei += v.effective_balance_gwei;
        }
    }
}

/// Rows, bytes, files and row groups of one dataset of one network.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DatasetStats {
    /// Rows, as the manifest records them.
    pub rows: u64,
    /// Bytes of the files.
    pub bytes: u64,
    /// Files.
    pub files: u64,
    /// Row groups, from the files' footers (those whose footer could be read).
    pub row_groups: u64,
}

/// Everything the charts and the dataset table show.
#[derive(Debug, Clone, Default)]
pub struct Chain {
    /// By network: the sums of its rows.
    pub networks: BTreeMap<String, Sums>,
    /// By network: the charted datasets that had files.
    pub charted: BTreeMap<String, std::collections::BTreeSet<String>>,
    /// By (dataset, network).
    pub datasets: BTreeMap<(String, String), DatasetStats>,
    /// Files that could not be read (relative path, why), sorted.
    pub unreadable: Vec<(String, String)>,
}

/// One output file to read.
struct Task<'a> {
    network: &'a str,
    dataset: &'a str,
    rel: &'a str,
}

/// Aggregates every file of `manifest` in `out` (nothing without a manifest).
pub fn aggregate(out: &Output, manifest: Option<&Manifest>) -> Result<Chain, ReportError> {
    let mut chain = Chain::default();
    let Some(m) = manifest else {
        return Ok(chain);
    };
    let mut tasks = Vec::new();
    // An output two sources name (an era1 and an ere file of the same blocks write the same file) counts once.
    let mut seen = std::collections::BTreeSet::new();
    for s in m.sources.values() {
        for o in &s.outputs {
            if !seen.insert(o.path.as_str()) {
                continue;
            }
            let st = chain
                .datasets
                .entry((o.dataset.clone(), s.network.clone()))
                .or_default();
            st.rows += o.rows;
            st.bytes += o.bytes;
            st.files += 1;
            tasks.push(Task {
                network: &s.network,
                dataset: &o.dataset,
                rel: &o.path,
            });
        }
    }
    tasks.sort_by(|a, b| (a.dataset, a.network, a.rel).cmp(&(b.dataset, b.network, b.rel)));
    let results: Vec<(usize, TaskResult)> = tasks
        .par_iter()
        .enumerate()
        .map(|(i, t)| (i, read_task(out, t)))
        .collect();
    for (i, r) in results {
        let t = &tasks[i];
        match r {
            Ok((row_groups, sums)) => {
                if let Some(st) = chain
                    .datasets
                    .get_mut(&(t.dataset.to_string(), t.network.to_string()))
                {
                    st.row_groups += row_groups;
                }
                if let Some(s) = sums {
                    chain
                        .charted
                        .entry(t.network.to_string())
                        .or_default()
                        .insert(t.dataset.to_string());
                    chain
                        .networks
                        .entry(t.network.to_string())
                        .or_default()
                        .merge(s);
                }
            }
            Err(why) => chain.unreadable.push((t.rel.to_string(), why)),
        }
    }
    chain.unreadable.sort();
    Ok(chain)
}

/// What reading one file gave: its row groups and, for a charted dataset, its sums; or why it could not be read.
type TaskResult = Result<(u64, Option<Sums>), String>;

/// One file: its row groups, and its sums when its dataset is charted.
fn read_task(out: &Output, t: &Task<'_>) -> TaskResult {
    let Some((_, columns)) = CHARTED.iter().find(|(d, _)| *d == t.dataset) else {
        let meta = out.footer(t.rel)?;
        return Ok((meta.num_row_groups() as u64, None));
    };
    out.with_local(t.rel, |p| {
        let (groups, sums) = sum_file(p, t.dataset, columns)?;
        Ok((groups, Some(sums)))
    })
}

/// The sums of one local Parquet file of `dataset`: its row groups in parallel.
pub fn sum_file(path: &Path, dataset: &str, columns: &[&str]) -> Result<(u64, Sums), String> {
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let meta = ArrowReaderMetadata::load(&file, Default::default()).map_err(|e| e.to_string())?;
    let groups = meta.metadata().num_row_groups();
    let sums = (0..groups)
        .into_par_iter()
        .map(|rg| sum_row_group(path, &meta, rg, dataset, columns))
        .try_reduce(Sums::default, |mut a, b| {
            a.merge(b);
            Ok(a)
        })?;
    Ok((groups as u64, sums))
}

/// The day of a row group when its `timestamp` statistics put all its rows in one.
fn one_day(meta: &ParquetMetaData, rg: usize) -> Option<i64> {
    let schema = meta.file_metadata().schema_descr();
    let col = schema
        .columns()
        .iter()
        .position(|c| c.name() == "timestamp")?;
    let Some(Statistics::Int64(s)) = meta.row_group(rg).column(col).statistics() else {
        return None;
    };
    // uint64 is stored as int64 bits, with min and max by unsigned order.
    let (min, max) = (*s.min_opt()? as u64, *s.max_opt()? as u64);
    (min / DAY == max / DAY).then_some((min / DAY) as i64)
}

fn sum_row_group(
    path: &Path,
    meta: &ArrowReaderMetadata,
    rg: usize,
    dataset: &str,
    columns: &[&str],
) -> Result<Sums, String> {
    let rows = meta.metadata().row_group(rg).num_rows().max(0) as u64;
    let token = TOKEN_TRANSFERS.iter().position(|(d, _)| *d == dataset);
    // Transactions inside one day: counted from the row count, types from their column alone; token transfers
    // inside one day: counted from the row count, nothing decoded.
    let day = match dataset {
        "transactions" => one_day(meta.metadata(), rg),
        _ if token.is_some() => one_day(meta.metadata(), rg),
        _ => None,
    };
    if let (Some(t), Some(d)) = (token, day) {
        let mut sums = Sums::default();
        sums.days.entry(d).or_default().token_transfers[t] += rows;
        return Ok(sums);
    }
    let wanted: Vec<&str> = columns
        .iter()
        .copied()
        .filter(|c| !(day.is_some() && *c == "timestamp"))
        .collect();
    let schema = meta.metadata().file_metadata().schema_descr();
    let mask = ProjectionMask::columns(schema, wanted.iter().copied());
    // A handle of its own: a `try_clone` shares the file offset, and the reader seeks and reads, so row groups
    // read in parallel through clones read each other's bytes (seen as "Unexpected list/set element type").
    let f = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let reader = ParquetRecordBatchReaderBuilder::new_with_metadata(f, meta.clone())
        .with_projection(mask)
        .with_row_groups(vec![rg])
        // Small batches: their buffers (64 KiB a column) come back from the allocator warm, where a row group's
        // worth (800 KiB) is a fresh mapping each time, page-faulted and zeroed (measured: 14x the minor faults,
        // 7x the system time and 1.3x the wall time of 8192-row batches on 10 million rows).
        .with_batch_size(BATCH_ROWS)
        .build()
        .map_err(|e| e.to_string())?;
    let mut sums = Sums::default();
    let mut types = [0u64; 256];
    for batch in reader {
        let b = batch.map_err(|e| e.to_string())?;
        match dataset {
            "blocks" => blocks(&b, &mut sums)?,
            "transactions" => match day {
                Some(_) => count_types(&b, &mut types)?,
                None => transactions(&b, &mut sums)?,
            },
            "withdrawals" => withdrawals(&b, &mut sums)?,
            "validators" => validators(&b, &mut sums)?,
            _ => {
                if let Some(t) = token {
                    let ts = u64_values(column(&b, "timestamp")?, "timestamp")?;
                    let mut run = DayRun::new(&mut sums);
                    for &x in ts {
                        run.at(x).0.token_transfers[t] += 1;
                    }
                }
            }
        }
    }
    if let Some(d) = day {
        let e = sums.days.entry(d).or_default();
        e.transactions += rows;
        fold_types(&types, &mut e.types);
    }
    Ok(sums)
}

/// A column of `b` by name.
fn column<'a>(b: &'a RecordBatch, name: &str) -> Result<&'a ArrayRef, String> {
    b.column_by_name(name)
        .ok_or_else(|| format!("no column `{name}`"))
}

/// An unsigned integer column as `u64` values (`None` where null).
fn u64s(a: &ArrayRef, name: &str) -> Result<Vec<Option<u64>>, String> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Int64Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type};
    let v: Vec<Option<u64>> = match a.data_type() {
        DataType::UInt64 => a.as_primitive::<UInt64Type>().iter().collect(),
        DataType::UInt32 => a
            .as_primitive::<UInt32Type>()
            .iter()
            .map(|x| x.map(u64::from))
            .collect(),
        DataType::UInt16 => a
            .as_primitive::<UInt16Type>()
            .iter()
            .map(|x| x.map(u64::from))
            .collect(),
        DataType::UInt8 => a
            .as_primitive::<UInt8Type>()
            .iter()
            .map(|x| x.map(u64::from))
            .collect(),
        DataType::Int64 => a
            .as_primitive::<Int64Type>()
            .iter()
            .map(|x| x.and_then(|x| u64::try_from(x).ok()))
            .collect(),
        t => return Err(format!("column `{name}` is {t}, not an unsigned integer")),
    };
    Ok(v)
}

/// A `uint64` column without nulls, borrowed (the hot columns: `timestamp`).
fn u64_values<'a>(a: &'a ArrayRef, name: &str) -> Result<&'a [u64], String> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::UInt64Type;
    match a.data_type() {
        DataType::UInt64 if a.null_count() == 0 => Ok(a.as_primitive::<UInt64Type>().values()),
        t => Err(format!(
            "column `{name}` is {t} with {} nulls, not a uint64 without nulls",
            a.null_count()
        )),
    }
}

fn count_types(b: &RecordBatch, types: &mut [u64; 256]) -> Result<(), String> {
    for &t in type_bytes(column(b, "transaction_type")?)?.iter() {
        types[usize::from(t)] += 1;
    }
    Ok(())
}

fn fold_types(counts: &[u64; 256], into: &mut [u64; 6]) {
    for (t, n) in counts.iter().enumerate() {
        into[t.min(5)] += n;
    }
}

/// Sums of consecutive rows of one day, stored when the day changes: rows come in block order, so days change
/// rarely and the map is touched once per run, not once per row (and a row costs two comparisons, no division).
struct DayRun<'a> {
    sums: &'a mut Sums,
    /// The current day's first and one-past-last second.
    lo: u64,
    hi: u64,
    acc: Day,
    types: [u64; 256],
}

impl<'a> DayRun<'a> {
    fn new(sums: &'a mut Sums) -> Self {
        DayRun {
            sums,
            lo: 1,
            hi: 0,
            acc: Day::default(),
            types: [0; 256],
        }
    }

    /// The accumulator of the day of `timestamp`.
    #[inline]
    fn at(&mut self, timestamp: u64) -> (&mut Day, &mut [u64; 256]) {
        if timestamp < self.lo || timestamp >= self.hi {
            self.flush();
            self.lo = timestamp - timestamp % DAY;
            self.hi = self.lo.saturating_add(DAY);
        }
        (&mut self.acc, &mut self.types)
    }

    fn flush(&mut self) {
        if self.lo < self.hi {
            let mut acc = std::mem::take(&mut self.acc);
            fold_types(&self.types, &mut acc.types);
            self.types = [0; 256];
            self.sums
                .days
                .entry((self.lo / DAY) as i64)
                .or_default()
                .add(&acc);
        }
    }
}

impl Drop for DayRun<'_> {
    fn drop(&mut self) {
        self.flush();
    }
}

/// The type bytes of a `transaction_type` column (255 for a null or a value above 255: `other`).
fn type_bytes(a: &ArrayRef) -> Result<std::borrow::Cow<'_, [u8]>, String> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::UInt8Type;
    match a.data_type() {
        DataType::UInt8 if a.null_count() == 0 => Ok(std::borrow::Cow::Borrowed(
            a.as_primitive::<UInt8Type>().values(),
        )),
        _ => Ok(std::borrow::Cow::Owned(
            u64s(a, "transaction_type")?
                .into_iter()
                .map(|t| t.unwrap_or(255).min(255) as u8)
                .collect(),
        )),
    }
}

fn transactions(b: &RecordBatch, sums: &mut Sums) -> Result<(), String> {
    let ts = u64_values(column(b, "timestamp")?, "timestamp")?;
    let ty = type_bytes(column(b, "transaction_type")?)?;
    let mut run = DayRun::new(sums);
    for (&t, &ty) in ts.iter().zip(ty.iter()) {
        let (day, types) = run.at(t);
        day.transactions += 1;
        types[usize::from(ty)] += 1;
    }
    Ok(())
}

/// Adds `f(day, row)` for every row of `ts`, the rows' `u64` column `col` given as a plain slice when it has no
/// nulls (the common case) and as options otherwise.
fn each_row(
    ts: &[u64],
    col: Option<&ArrayRef>,
    name: &str,
    sums: &mut Sums,
    f: impl Fn(&mut Day, Option<u64>),
) -> Result<(), String> {
    let mut run = DayRun::new(sums);
    match col {
        Some(a) if a.null_count() == 0 && a.data_type() == &DataType::UInt64 => {
            for (&t, &v) in ts.iter().zip(u64_values(a, name)?) {
                f(run.at(t).0, Some(v));
            }
        }
        Some(a) if a.null_count() < a.len() => {
            for (&t, v) in ts.iter().zip(u64s(a, name)?) {
                f(run.at(t).0, v);
            }
        }
        // Absent, or all null: no values.
        _ => {
            for &t in ts {
                f(run.at(t).0, None);
            }
        }
    }
    Ok(())
}

fn blocks(b: &RecordBatch, sums: &mut Sums) -> Result<(), String> {
    let ts = u64_values(column(b, "timestamp")?, "timestamp")?;
    each_row(
        ts,
        Some(column(b, "gas_used")?),
        "gas_used",
        sums,
        |e, g| {
            e.blocks += 1;
            e.gas_used += u128::from(g.unwrap_or(0));
        },
    )?;
    // Absent from files written before the column existed, null before Cancun: no blob gas.
    each_row(
        ts,
        b.column_by_name("blob_gas_used"),
        "blob_gas_used",
        sums,
        |e, g| {
            e.blob_gas_used += u128::from(g.unwrap_or(0));
        },
    )
}

fn withdrawals(b: &RecordBatch, sums: &mut Sums) -> Result<(), String> {
    let ts = u64_values(column(b, "timestamp")?, "timestamp")?;
    each_row(
        ts,
        Some(column(b, "amount_gwei")?),
        "amount_gwei",
        sums,
        |e, a| {
            e.withdrawals += 1;
            e.withdrawn_gwei += u128::from(a.unwrap_or(0));
        },
    )
}

fn validators(b: &RecordBatch, sums: &mut Sums) -> Result<(), String> {
    let era = u64s(column(b, "era")?, "era")?;
    let bal = u64s(column(b, "effective_balance")?, "effective_balance")?;
    for (e, v) in era.into_iter().zip(bal) {
        let Some(e) = e else { continue };
        let x = sums.eras.entry(e).or_default();
        x.validators += 1;
        x.effective_balance_gwei += u128::from(v.unwrap_or(0));
    }
    Ok(())
}
