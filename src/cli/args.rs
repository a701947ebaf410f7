//! The command line's arguments (clap). Flags carry no defaults of their own: an absent flag leaves
//! `configs/default.toml` (or the pipeline file) in force, so the help texts name the defaults but do not hold them.

use clap::{Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "eraflow",
    version,
    about = "Verify Ethereum chain archives (era1, ere, era), export them to Parquet or Delta tables, build prune \
             manifests (cut-off and rolling)"
)]
pub struct Cli {
    /// Worker threads (default: all cores).
    #[arg(long, global = true)]
    pub threads: Option<usize>,
    /// secp256k1 implementation for senders: libsecp256k1 (default) or k256 (pure Rust); identical answers.
    #[arg(long, global = true)]
    pub signer_backend: Option<String>,
    /// No progress bars and no log lines below warnings (RUST_LOG still overrides the level).
    #[arg(long, short, global = true)]
    pub quiet: bool,
    /// Log lines on stderr as text (default) or one JSON object per line, for a log collector.
    #[arg(long, global = true, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    #[command(subcommand)]
    pub command: Command,
}

/// How log lines are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// `2026-12-01T10:00:00Z  INFO target: message key=value`.
    Text,
    /// One JSON object per line (`timestamp`, `level`, `fields`, `target`).
    Json,
}

#[derive(Subcommand)]
pub enum Command {
    /// Verify archives: era1 and ere (every block's hashes, roots, receipts, total difficulty, index, accumulator,
    /// and whether they are the canonical chain: the EIP-7643 accumulator, ere Portal proofs) and era (state root
    /// and history, every block root against the state, parent chain, payload block hashes).
    Verify(VerifyArgs),
    /// Write deterministic synthetic archives: era1 (real signatures, logs, every pre-merge transaction kind), ere
    /// (the same blocks with slim receipts, in any era: past the merge with transaction types 0-4, withdrawals,
    /// blobs) or era (beacon blocks of any fork chained into their state, payloads with transactions of types 0-4,
    /// Gloas bids).
    Synth(SynthArgs),
    /// Verify era1, ere and era files and export them to Parquet datasets, or Delta tables: blocks and
    /// transactions from all three, withdrawals from ere and era; logs, uncles and the token transfers and
    /// approvals from era1 and ere; beacon_blocks and the block operations from era; opt-in: validators and
    /// builders (era states), contracts and raw_transactions. --datasets names them all.
    Export(ExportArgs),
    /// Run a pipeline file (the entry point for scheduled jobs): synth, verify, export, prune stages as
    /// configured, over its inputs (era1, ere and era files).
    Run(RunArgs),
    /// List a pipeline's input files (era1, ere and era; after its synth stage, if any) with their shard keys:
    /// what a distributed driver splits into tasks.
    Plan(PlanArgs),
    /// Measure decode, verify, senders (both secp256k1 backends) and export throughput on a synthetic era1
    /// file and the ere file of its blocks, and era verification and export on a synthetic era file, beside
    /// their floors; print ratios.
    Bench(BenchArgs),
    /// Print the hash_tree_root of a BeaconState: an era file's state, or a raw `.ssz` / `.ssz_snappy` state.
    StateRoot(StateRootArgs),
    /// Build a prune manifest from era1 or ere files (the verified block and transaction hash lists a node
    /// deletes history by): cut-off, every block before the merge or --until-block; or rolling, every block
    /// older than EIP-4444's window (--keep-epochs, --keep-blocks), extended run after run. Or check one:
    /// `eraflow prune --out DIR PATH...`, `eraflow prune check DIR`.
    #[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
    Prune {
        #[command(subcommand)]
        check: Option<PruneCommand>,
        #[command(flatten)]
        args: PruneArgs,
    },
    /// Rewrite verified execution archives in the other layout: era1 to ere (slim receipts, total difficulty,
    /// accumulator root; the noproofs profile), or pre-merge ere back to era1. Prints each file written.
    Convert(ConvertArgs),
    /// Write one self-contained HTML page of an output: coverage (eras per network and archive kind, gaps,
    /// failed files, sources), the last runs, the chain as charts aggregated from its Parquet, and its datasets.
    Report(ReportArgs),
    /// Summarise one archive file (era1, ere or era): range, counts by record type, transaction kinds, roots,
    /// total difficulty.
    Inspect(InspectArgs),
    /// The upkeep of a Delta output's tables (`export --table-format delta`): check, optimize, vacuum.
    Table {
        #[command(subcommand)]
        command: TableCommand,
    },
}

/// `eraflow table check|optimize|vacuum OUT`.
#[derive(Subcommand)]
pub enum TableCommand {
    /// Check that each table's log, its files and eraflow's completion records agree: every logged file is in
    /// the storage at its logged size, every record's output is a file of its table, every file some
    /// record's output. Exit 1 when they do not.
    Check {
        /// The output: a directory or an object-store URL.
        out: String,
        /// Print the verdicts as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Compact each partition's runs of small files (chain order kept) into files of up to --target-mb, by one
    /// commit per compacted file; the sources' completion records then name the compacted file.
    Optimize {
        /// The output: a directory or an object-store URL.
        out: String,
        /// Files below this size (MiB) are compacted, into files of up to it (default 128).
        #[arg(long, value_name = "MIB")]
        target_mb: Option<u64>,
        /// Parquet compression of the compacted files: zstd (default), snappy, lz4, gzip, none.
        #[arg(long)]
        compression: Option<String>,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Delete the files commits removed (compacted away) more than --retain hours ago.
    Vacuum {
        /// The output: a directory or an object-store URL.
        out: String,
        /// Hours a removed file is kept for readers of older table versions (default 168, Delta's own).
        #[arg(long, value_name = "HOURS")]
        retain: Option<u64>,
        /// Only list what would be deleted.
        #[arg(long)]
        dry_run: bool,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// `eraflow prune check DIR`.
#[derive(Subcommand)]
pub enum PruneCommand {
    /// Re-verify a manifest directory: checksums, sizes, sort order (no duplicates), counts, ranges.
    Check {
        /// The manifest directory.
        dir: PathBuf,
        /// Also build the same range from scratch over these inputs (era1 or ere files, directories, globs,
        /// mirrors, prefixes) beside DIR and compare every list: proves an extended manifest equals a fresh one.
        #[arg(long, value_name = "PATH", num_args = 1..)]
        rebuild: Vec<String>,
        #[command(flatten)]
        fetch: FetchArgs,
    },
}

/// Arguments of `eraflow prune` (building a manifest).
#[derive(clap::Args)]
pub struct PruneArgs {
    /// Output directory (written beside under a temporary name, renamed into place when complete).
    #[arg(long, required = true)]
    pub out: Option<PathBuf>,
    /// Network preset name or preset .toml (default: from the file names).
    #[arg(long)]
    pub network: Option<String>,
    /// First block to include (default: the first block of the inputs).
    #[arg(long)]
    pub from_block: Option<u64>,
    /// End of the range, EXCLUSIVE: blocks below N (default: the end of the inputs, which must lie before the
    /// network's first proof-of-stake block; only an explicit value may go past it).
    #[arg(long)]
    pub until_block: Option<u64>,
    /// Rolling history expiry: list every block older than the last N epochs, counted back from the newest
    /// input block (the node keeps the window). Without N: 33024, EIP-4444's HISTORY_PRUNE_EPOCHS.
    #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "33024", conflicts_with_all = ["until_block", "keep_blocks"])]
    pub keep_epochs: Option<u64>,
    /// Rolling history expiry by count: list every block but the newest N of the inputs.
    #[arg(long, value_name = "N", conflicts_with = "until_block")]
    pub keep_blocks: Option<u64>,
    /// Record blocks no input covers as gaps in the manifest instead of refusing.
    #[arg(long)]
    pub allow_gaps: bool,
    /// Build every list again. By default an earlier manifest in --out that this run's range extends (same
    /// start, network, sources and formats; checked first) is kept and only archives past its range are read.
    #[arg(long)]
    pub from_scratch: bool,
    /// `binary` (default) or `text` (also block_hashes.txt and tx_hashes.txt, one 0x-hash per line).
    #[arg(long)]
    pub format: Option<String>,
    /// Bytes of transaction hashes held in memory before a sorted run is spilled to disk (default 256 MiB).
    #[arg(long)]
    pub memory_budget: Option<u64>,
    /// Only shard K of N of the inputs (e.g. 0/4): a file's shard is its era modulo N (other names: a hash
    /// of the file name), so N processes with K = 0..N-1 take every file exactly once.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    #[command(flatten)]
    pub fetch: FetchArgs,
    /// era1 or ere files, directories, glob patterns, http(s) mirrors or files, s3/gs/az prefixes.
    #[arg(required = true)]
    pub paths: Vec<String>,
}

/// How remote inputs are fetched (`export`, `verify`, `prune`).
#[derive(clap::Args)]
pub struct FetchArgs {
    /// Folder remote inputs are fetched to (default: <system temp>/eraflow-cache); processes may share it.
    #[arg(long)]
    pub cache_dir: Option<PathBuf>,
    /// The most bytes fetched inputs may take in the cache at once (default 8 GiB): downloads wait for
    /// room; a file bigger than this fails alone.
    #[arg(long)]
    pub cache_max_bytes: Option<u64>,
    /// Keep fetched inputs in the cache folder after use (they then stop counting against the bound).
    #[arg(long)]
    pub keep_cache: bool,
    /// Requests open at once (default 4): files downloaded side by side, and ranges of a file of 16 MiB or more.
    #[arg(long, value_name = "N")]
    pub download_concurrency: Option<u64>,
    /// Seconds a request may send nothing before it is cut and retried (default 30).
    #[arg(long, value_name = "SECS")]
    pub read_timeout: Option<f64>,
    /// A header for every request to an http(s) input, `Name: value` (repeatable; never printed, but visible
    /// to other users in the process list: prefer `http_headers` with ${VAR} in a pipeline file).
    #[arg(long = "http-header", value_name = "NAME: VALUE")]
    pub http_headers: Vec<String>,
}

// The arguments of `eraflow verify` (its help text is the variant's).
#[derive(clap::Args)]
pub struct VerifyArgs {
    /// Print one JSON object per file instead of a human summary.
    #[arg(long)]
    pub json: bool,
    /// Network preset name or preset .toml (default: from each file name).
    #[arg(long)]
    pub network: Option<String>,
    /// Also compute each file's sha256.
    #[arg(long)]
    pub checksum: bool,
    /// Also recover every transaction's sender (the costliest check; off by default).
    #[arg(long)]
    pub senders: bool,
    /// Signature algorithm for --senders: secp256k1 or secp256r1 (default: the network's).
    #[arg(long)]
    pub signature_algorithm: Option<String>,
    /// Compare era states with trusted roots: a file of `<slot> <state root>` lines, or a beacon node's
    /// URL (http://host:5052), asked for the state root at each era file's state slot.
    #[arg(long, value_name = "FILE|URL")]
    pub trusted_states: Option<String>,
    /// A beacon state's historical_summaries for ere proofs of Capella and later blocks: an era file (its
    /// state's), or PATH@SLOT of their SSZ. Default: the latest state among the era files verified.
    #[arg(long, value_name = "ERA_FILE|PATH@SLOT")]
    pub historical_summaries: Option<String>,
    /// The network's own pre-merge accumulator (the SSZ of a frozen HistoricalHashesAccumulator), for a
    /// network without an embedded one (mainnet's is): era roots and type-0 proofs are checked against it.
    #[arg(long, value_name = "FILE")]
    pub accumulator: Option<String>,
    /// After the files, sum up which eras are proven canonical, not proven (and why), wrong, or missing (of
    /// the network's pre-merge accumulator).
    #[arg(long)]
    pub canonical: bool,
    /// Only shard K of N of the inputs (e.g. 0/4): a file's shard is its era modulo N (other names: a hash
    /// of the file name), so N processes with K = 0..N-1 take every file exactly once.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Instead of archives: read back every output an export's completion records name in OUT (a local
    /// directory or an s3/gs/az prefix) and check its size and sha256 against the record (what a rerun
    /// proves from sizes, times and ETags alone); exit 1 when one differs or is gone.
    #[arg(long, value_name = "OUT", conflicts_with_all = ["paths", "canonical"])]
    pub outputs: Option<String>,
    #[command(flatten)]
    pub fetch: FetchArgs,
    /// era1, ere or era files, directories, glob patterns, http(s) mirrors or files, s3/gs/az prefixes.
    #[arg(required_unless_present = "outputs")]
    pub paths: Vec<String>,
}

// The arguments of `eraflow synth` (its help text is the variant's).
#[derive(clap::Args)]
pub struct SynthArgs {
    /// Output directory.
    #[arg(long)]
    pub out: PathBuf,
    /// Archive kind: era1 (default), ere or era.
    #[arg(long)]
    pub kind: Option<String>,
    /// ere files only: noproofs (default) or noproofs-noreceipts.
    #[arg(long)]
    pub profile: Option<String>,
    /// Network preset name or preset .toml (default: synthnet).
    #[arg(long)]
    pub network: Option<String>,
    /// First era (era files: default the first era wholly in --fork, else 1; era1 and ere: 0; on synthnet, ere
    /// era 122 crosses the merge and the later forks).
    #[arg(long)]
    pub era: Option<u64>,
    /// Era files only: pick the first era whose blocks and state are all of this fork.
    #[arg(long)]
    pub fork: Option<String>,
    /// Number of consecutive files (default 1).
    #[arg(long)]
    pub files: Option<u64>,
    /// Blocks per file (at most 8192; default 8192 for era1, 64 for era: the other slots stay empty).
    #[arg(long)]
    pub blocks: Option<u64>,
    /// Era files only: validators in each state (default 256).
    #[arg(long)]
    pub validators: Option<u64>,
    /// Transactions per block (era: per execution payload; default 4).
    #[arg(long)]
    pub txs_per_block: Option<u64>,
    /// Seed: the same seed gives byte-identical files (default 1).
    #[arg(long)]
    pub seed: Option<u64>,
    /// era1 and ere: receipts full of token events (ERC-20/721/1155 transfers, approvals) and malformed
    /// look-alikes of them, instead of random logs.
    #[arg(long)]
    pub tokens: bool,
}

// The arguments of `eraflow export` (its help text is the variant's).
#[derive(clap::Args)]
pub struct ExportArgs {
    /// Output directory, or object-store prefix (s3://bucket/prefix, gs://…, az://…, file://…).
    #[arg(long)]
    pub out: PathBuf,
    // Its help lists the dataset names, from the registry: datasets_help().
    #[arg(long, value_delimiter = ',', value_name = "NAME,...", help = datasets_help())]
    pub datasets: Option<Vec<String>>,
    /// Decode an event into a dataset of its own (repeatable): `[NAME=]SIGNATURE|FILE.json[@0xADDRESS,...]`,
    /// e.g. "Transfer(address indexed from, address indexed to, uint256 value)" or abi.json@0xc02a...
    #[arg(long = "decode", value_name = "SPEC")]
    pub decode: Vec<String>,
    /// Leave from_address null and never touch the signature algorithm.
    #[arg(long)]
    pub no_senders: bool,
    /// Network preset name or preset .toml (default: from each file name).
    #[arg(long)]
    pub network: Option<String>,
    /// Redo outputs even if the manifest proves them complete.
    #[arg(long)]
    pub overwrite: bool,
    /// Prove complete sources by their contents: hash every input and read back and hash every output
    /// (default: from metadata, the inputs' kept hashes and the outputs' size and time or ETag).
    #[arg(long)]
    pub verify_outputs: bool,
    /// Remove Parquet files no completion record lists (left by a narrower rerun or an option change);
    /// without it they are named in the run report.
    #[arg(long)]
    pub clean_stale: bool,
    /// Parquet compression: zstd (default), snappy, lz4, gzip, none.
    #[arg(long)]
    pub compression: Option<String>,
    /// Compression level (zstd 1-22, default 3; gzip 0-9).
    #[arg(long)]
    pub compression_level: Option<i64>,
    /// Rows per row group (default 100000).
    #[arg(long)]
    pub row_group_size: Option<u64>,
    /// parquet (default): a folder of Parquet files per dataset; delta: a Delta Lake table per dataset over the
    /// same files, each source added by one commit.
    #[arg(long, value_enum)]
    pub table_format: Option<eraflow::store::delta::TableFormat>,
    /// Only shard K of N of the inputs (e.g. 0/4): a file's shard is its era modulo N (other names: a hash
    /// of the file name), so N processes with K = 0..N-1 take every file exactly once.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    #[command(flatten)]
    pub fetch: FetchArgs,
    /// Print the run report as JSON on stdout instead of the summary.
    #[arg(long)]
    pub json: bool,
    /// era1, ere or era files, directories, glob patterns, http(s) mirrors or files, s3/gs/az prefixes.
    #[arg(required = true)]
    pub paths: Vec<String>,
}

/// The help of `export --datasets`: every dataset name, default and opt-in, from the registry
/// ([`eraflow::datasets::ALL`]) and the default list (`configs/default.toml`), so it cannot drift from them.
pub fn datasets_help() -> String {
    let default = eraflow::pipeline::config::default_datasets();
    let (on, opt_in): (Vec<&str>, Vec<&str>) = eraflow::datasets::ALL
        .iter()
        .map(|d| d.name())
        .partition(|n| default.iter().any(|d| d == n));
    format!(
        "Comma-separated dataset names. Default (configs/default.toml's `[export] datasets`): {}. Opt-in: {}.",
        on.join(", "),
        opt_in.join(", ")
    )
}

// The arguments of `eraflow run` (its help text is the variant's).
#[derive(clap::Args)]
pub struct RunArgs {
    /// The pipeline TOML (see pipelines/).
    pub pipeline: PathBuf,
    /// Override a key, e.g. --set out=/data/out --set export.compression=snappy (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    /// Only these of the pipeline's stages, comma-separated (synth, verify, export, prune).
    #[arg(long, value_delimiter = ',')]
    pub stages: Option<Vec<String>>,
    /// Exit 2 at once ("in use") when another run holds the output's run lock, instead of waiting.
    #[arg(long)]
    pub no_wait: bool,
    /// Take no run lock: the caller holds it (the Ray driver's tasks).
    #[arg(long, conflicts_with = "no_wait")]
    pub no_lock: bool,
    /// Print the run report as JSON on stdout instead of the summary.
    #[arg(long)]
    pub json: bool,
    /// Only shard K of N of the inputs (e.g. 0/4): a file's shard is its era modulo N (other names: a hash
    /// of the file name), so N processes with K = 0..N-1 take every file exactly once.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
}

// The arguments of `eraflow plan` (its help text is the variant's).
#[derive(clap::Args)]
pub struct PlanArgs {
    /// The pipeline TOML.
    pub pipeline: PathBuf,
    /// Override a key (repeatable), as for `run`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    /// Only shard K of N.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Print JSON (name, out, shard, stages, files) instead of one file per line.
    #[arg(long)]
    pub json: bool,
}

// The arguments of `eraflow bench` (its help text is the variant's).
#[derive(clap::Args)]
pub struct BenchArgs {
    /// Blocks in the synthetic era1 file (and, at most 8192, in the era file).
    #[arg(long, default_value_t = 8192)]
    pub blocks: u64,
    /// Transactions per block (era: per execution payload).
    #[arg(long, default_value_t = 4)]
    pub txs_per_block: u32,
    /// Validators in the synthetic era file's state.
    #[arg(long, default_value_t = 16384)]
    pub validators: usize,
    /// Repetitions (the best is kept).
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    /// Work directory (default: a temporary one).
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Only the consensus datasets' lines: the operation datasets' cost on era exports, and `validators`
    /// from a big state beside its floor.
    #[arg(long)]
    pub consensus: bool,
    /// Validators in the big state of the `validators` lines.
    #[arg(long, default_value_t = 1_000_000)]
    pub state_validators: usize,
}

// The arguments of `eraflow state-root` (its help text is the variant's).
#[derive(clap::Args)]
pub struct StateRootArgs {
    pub file: PathBuf,
    /// Fork (phase0 .. gloas); default: inferred from the state's slot and the network's fork epochs.
    #[arg(long)]
    pub fork: Option<String>,
    /// Network for fork inference (default: from an era file's name, else mainnet).
    #[arg(long)]
    pub network: Option<String>,
}

// The arguments of `eraflow convert` (its help text is the variant's).
#[derive(clap::Args)]
pub struct ConvertArgs {
    /// The layout to write: ere or era1.
    #[arg(long)]
    pub to: String,
    /// Output directory.
    #[arg(long)]
    pub out: PathBuf,
    /// ere output: default (with Portal header proofs; the default on mainnet, whose pre-merge accumulator
    /// is embedded, and when adding proofs to an ere file), noproofs (the default elsewhere), noreceipts or
    /// noproofs-noreceipts.
    #[arg(long)]
    pub profile: Option<String>,
    /// Network preset name or preset .toml (default: from each file name).
    #[arg(long)]
    pub network: Option<String>,
    /// Era files (files, directories or glob patterns; repeatable) holding the beacon blocks of post-merge
    /// blocks and the states ending their periods: the source of their header proofs (types 1 to 3).
    #[arg(long = "era-files", value_name = "PATH")]
    pub era_files: Vec<String>,
    /// The network's own pre-merge accumulator (the SSZ of a frozen HistoricalHashesAccumulator), for a
    /// network without an embedded one: type-0 proofs are built against it.
    #[arg(long, value_name = "FILE")]
    pub accumulator: Option<PathBuf>,
    /// Files, directories or glob patterns.
    #[arg(required = true)]
    pub paths: Vec<String>,
}

// The arguments of `eraflow report` (its help text is the variant's).
#[derive(clap::Args)]
pub struct ReportArgs {
    /// The output: a directory or an object-store URL (s3://bucket/prefix, gs://..., az://...).
    pub out: String,
    /// Where to write the page (default: OUT/_eraflow/report.html, uploaded for an object-store output).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// How many of the newest run reports to show (default: 20).
    #[arg(long, value_name = "N")]
    pub runs: Option<usize>,
}

// The arguments of `eraflow inspect` (its help text is the variant's).
#[derive(clap::Args)]
pub struct InspectArgs {
    pub file: PathBuf,
    /// Network preset name or preset .toml (default: from the file name).
    #[arg(long)]
    pub network: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;
    use std::collections::HashSet;

    /// The words of `text`: what a dataset name could be (so `blocks` is not found inside `beacon_blocks`).
    fn words(text: &str) -> HashSet<&str> {
        text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .collect()
    }

    #[test]
    fn export_help_names_every_registered_dataset_as_default_or_opt_in() {
        let mut cli = Cli::command();
        let export = cli.find_subcommand_mut("export").unwrap();
        let help = export.render_long_help().to_string();
        let (default, opt_in) = help
            .split_once("Default (")
            .and_then(|(_, rest)| rest.split_once("Opt-in:"))
            .unwrap_or_else(|| {
                panic!("export --help lists no default and opt-in datasets:\n{help}")
            });
        let opt_in = opt_in.split_once('\n').map_or(opt_in, |(l, _)| l);
        let (default, opt_in) = (words(default), words(opt_in));
        let defaults = eraflow::pipeline::config::default_datasets();
        for d in eraflow::datasets::ALL {
            let name = d.name();
            match defaults.iter().any(|n| n == name) {
                true => assert!(
                    default.contains(name),
                    "{name} not among the defaults:\n{help}"
                ),
                false => assert!(
                    opt_in.contains(name),
                    "{name} not among the opt-in:\n{help}"
                ),
            }
        }
        assert!(opt_in.contains("validators") && !default.contains("validators"));
        assert!(
            words(&help).contains("ere"),
            "export --help names no ere files:\n{help}"
        );
    }

    #[test]
    fn help_names_the_archive_kinds_and_both_kinds_of_prune_list() {
        let mut cli = Cli::command();
        let top = cli.render_help().to_string();
        for kind in ["era1", "ere", "era"] {
            assert!(
                words(&top).contains(kind),
                "eraflow --help omits {kind}:\n{top}"
            );
        }
        let prune = cli
            .find_subcommand_mut("prune")
            .unwrap()
            .render_long_help()
            .to_string();
        for needle in [
            "cut-off",
            "rolling",
            "--keep-blocks",
            "--keep-epochs",
            "EIP-4444",
        ] {
            assert!(
                prune.contains(needle),
                "prune --help omits {needle}:\n{prune}"
            );
        }
    }
}
