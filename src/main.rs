//! The `eraflow` command line: one small function per subcommand, each calling the library.

use clap::{Parser, Subcommand};
use eraflow::crypto::signer::{self, SignatureAlgorithm};
use eraflow::inputs::{self, ArchiveKind};
use eraflow::network::Network;
use eraflow::verify;
use std::path::PathBuf;
use std::process::ExitCode;

/// Exit codes shared by every subcommand (scripts and schedulers rely on them).
mod exit {
    /// Everything verified / the job succeeded.
    pub const OK: u8 = 0;
    /// A check failed or data was bad.
    pub const DATA: u8 = 1;
    /// Usage or I/O error.
    pub const USAGE: u8 = 2;
}

#[derive(Parser)]
#[command(
    name = "eraflow",
    version,
    about = "Verify Ethereum chain archives (era1, era), export them to Parquet, build prune manifests"
)]
struct Cli {
    /// Worker threads (default: all cores).
    #[arg(long, global = true)]
    threads: Option<usize>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Verify archives: era1 (every block's hashes, roots, receipts, total difficulty, index, accumulator) and
    /// era (state root and history, every block root against the state, parent chain, payload block hashes).
    Verify {
        /// Print one JSON object per file instead of a human summary.
        #[arg(long)]
        json: bool,
        /// Network preset name or preset .toml (default: from each file name).
        #[arg(long)]
        network: Option<String>,
        /// Also compute each file's sha256.
        #[arg(long)]
        checksum: bool,
        /// Also recover every transaction's sender (the costliest check; off by default).
        #[arg(long)]
        senders: bool,
        /// Signature algorithm for --senders: secp256k1 or secp256r1 (default: the network's).
        #[arg(long)]
        signature_algorithm: Option<String>,
        /// Files, directories or glob patterns.
        #[arg(required = true)]
        paths: Vec<String>,
    },
    /// Write deterministic synthetic archives: era1 (real signatures, logs, every pre-merge transaction kind) or
    /// era (beacon blocks of any fork chained into their state, payloads with transactions of types 0-4).
    Synth {
        /// Output directory.
        #[arg(long)]
        out: PathBuf,
        /// Archive kind: era1 or era.
        #[arg(long, default_value = "era1")]
        kind: String,
        /// Network preset name or preset .toml.
        #[arg(long, default_value = "synthnet")]
        network: String,
        /// First era (era files: default the first era wholly in --fork, else 1).
        #[arg(long)]
        era: Option<u64>,
        /// Era files only: pick the first era whose blocks and state are all of this fork.
        #[arg(long)]
        fork: Option<String>,
        /// Number of consecutive files.
        #[arg(long, default_value_t = 1)]
        files: u64,
        /// Blocks per file (at most 8192; default 8192 for era1, 64 for era: the other slots stay empty).
        #[arg(long)]
        blocks: Option<u64>,
        /// Era files only: validators in each state.
        #[arg(long, default_value_t = 256)]
        validators: usize,
        /// Transactions per block (era: per execution payload).
        #[arg(long, default_value_t = 4)]
        txs_per_block: u32,
        /// Seed: the same seed gives byte-identical files.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Verify era1 and era files and export them to Parquet datasets (blocks, transactions, logs, uncles from
    /// era1; blocks, transactions, withdrawals, beacon_blocks from era).
    Export {
        /// Output directory.
        #[arg(long)]
        out: PathBuf,
        /// Comma-separated datasets.
        #[arg(
            long,
            default_value = "blocks,transactions,logs,uncles,withdrawals,beacon_blocks",
            value_delimiter = ','
        )]
        datasets: Vec<String>,
        /// Leave from_address null and never touch the signature algorithm.
        #[arg(long)]
        no_senders: bool,
        /// Network preset name or preset .toml (default: from each file name).
        #[arg(long)]
        network: Option<String>,
        /// Redo outputs even if the manifest proves them complete.
        #[arg(long)]
        overwrite: bool,
        /// Parquet compression: zstd, snappy, lz4, gzip, none.
        #[arg(long, default_value = "zstd")]
        compression: String,
        /// Compression level (zstd 1-22).
        #[arg(long, default_value_t = 3)]
        compression_level: i32,
        /// Rows per row group.
        #[arg(long, default_value_t = 100_000)]
        row_group_size: usize,
        /// Files, directories or glob patterns.
        #[arg(required = true)]
        paths: Vec<String>,
    },
    /// Run a pipeline file (the entry point for scheduled jobs): synth, verify, export stages as configured.
    Run {
        /// The pipeline TOML (see pipelines/).
        pipeline: PathBuf,
        /// Override a key, e.g. --set out=/data/out --set export.compression=snappy (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        sets: Vec<String>,
    },
    /// Measure decode, verify and export throughput beside their floors on a synthetic era; print ratios.
    Bench {
        /// Blocks in the synthetic era.
        #[arg(long, default_value_t = 8192)]
        blocks: u64,
        /// Transactions per block.
        #[arg(long, default_value_t = 4)]
        txs_per_block: u32,
        /// Repetitions (the best is kept).
        #[arg(long, default_value_t = 3)]
        runs: usize,
        /// Work directory (default: a temporary one).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Print the hash_tree_root of a BeaconState: an era file's state, or a raw `.ssz` / `.ssz_snappy` state.
    StateRoot {
        file: PathBuf,
        /// Fork (phase0 .. fulu); default: inferred from the state's slot and the network's fork epochs.
        #[arg(long)]
        fork: Option<String>,
        /// Network for fork inference (default: from an era file's name, else mainnet).
        #[arg(long)]
        network: Option<String>,
    },
    /// Build a prune manifest (verified block/transaction hash lists a node uses to drop pre-merge history),
    /// or check one: `eraflow prune --out DIR PATH...`, `eraflow prune check DIR`.
    #[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
    Prune {
        #[command(subcommand)]
        check: Option<PruneCommand>,
        #[command(flatten)]
        args: PruneArgs,
    },
    /// Summarise one archive file: range, counts by record type, transaction kinds, roots, total difficulty.
    Inspect {
        file: PathBuf,
        /// Network preset name or preset .toml (default: from the file name).
        #[arg(long)]
        network: Option<String>,
    },
}

/// `eraflow prune check DIR`.
#[derive(Subcommand)]
enum PruneCommand {
    /// Re-verify a manifest directory: checksums, sizes, sort order (no duplicates), counts, ranges.
    Check {
        /// The manifest directory.
        dir: PathBuf,
    },
}

/// Arguments of `eraflow prune` (building a manifest).
#[derive(clap::Args)]
struct PruneArgs {
    /// Output directory (written beside under a temporary name, renamed into place when complete).
    #[arg(long, required = true)]
    out: Option<PathBuf>,
    /// Network preset name or preset .toml (default: from the file names).
    #[arg(long)]
    network: Option<String>,
    /// First block to include (default: the first block of the inputs).
    #[arg(long)]
    from_block: Option<u64>,
    /// End of the range, EXCLUSIVE: blocks below N (default: the end of the inputs, which must lie before the
    /// network's first proof-of-stake block; only an explicit value may go past it).
    #[arg(long)]
    until_block: Option<u64>,
    /// Record blocks no input covers as gaps in the manifest instead of refusing.
    #[arg(long)]
    allow_gaps: bool,
    /// `binary` (default) or `text` (also block_hashes.txt and tx_hashes.txt, one 0x-hash per line).
    #[arg(long, default_value = "binary", value_parser = ["binary", "text"])]
    format: String,
    /// Bytes of transaction hashes held in memory before a sorted run is spilled to disk.
    #[arg(long, default_value_t = eraflow::prune::DEFAULT_MEMORY_BUDGET)]
    memory_budget: usize,
    /// era1 files, directories or glob patterns.
    #[arg(required = true)]
    paths: Vec<String>,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() {
                exit::USAGE
            } else {
                exit::OK
            };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    // Structured logs on stderr (RUST_LOG overrides the level); progress bars replace them on a terminal.
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_ansi(false)
        .try_init();
    if let Some(n) = cli.threads {
        if let Err(e) = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
        {
            eprintln!("error: --threads {n}: {e}");
            return ExitCode::from(exit::USAGE);
        }
    }
    let code = match cli.command {
        Command::Verify {
            json,
            network,
            checksum,
            senders,
            signature_algorithm,
            paths,
        } => cmd_verify(
            &paths,
            network.as_deref(),
            checksum,
            senders,
            signature_algorithm.as_deref(),
            json,
        ),
        Command::Export {
            out,
            datasets,
            no_senders,
            network,
            overwrite,
            compression,
            compression_level,
            row_group_size,
            paths,
        } => {
            let parquet = eraflow::sink::parquet::ParquetOptions {
                compression,
                compression_level,
                row_group_size,
            };
            cmd_export(
                &out,
                &datasets,
                !no_senders,
                network.as_deref(),
                overwrite,
                parquet,
                &paths,
            )
        }
        Command::Run { pipeline, sets } => cmd_run(&pipeline, &sets, cli.threads.is_some()),
        Command::Bench {
            blocks,
            txs_per_block,
            runs,
            dir,
            json,
        } => cmd_bench(blocks, txs_per_block, runs, dir, json),
        Command::StateRoot {
            file,
            fork,
            network,
        } => cmd_state_root(&file, fork.as_deref(), network.as_deref()),
        Command::Synth {
            out,
            kind,
            network,
            era,
            fork,
            files,
            blocks,
            validators,
            txs_per_block,
            seed,
        } => cmd_synth(
            &out,
            &kind,
            &network,
            SynthArgs {
                era,
                fork,
                files,
                blocks,
                validators,
                txs_per_block,
                seed,
            },
        ),
        Command::Inspect { file, network } => cmd_inspect(&file, network.as_deref()),
        Command::Prune {
            check: Some(PruneCommand::Check { dir }),
            ..
        } => cmd_prune_check(&dir),
        Command::Prune { check: None, args } => cmd_prune(&args),
    };
    ExitCode::from(code)
}

fn usage(msg: impl std::fmt::Display) -> u8 {
    eprintln!("error: {msg}");
    exit::USAGE
}

fn resolve_network(name: Option<&str>) -> Result<Option<Network>, u8> {
    name.map(Network::resolve).transpose().map_err(usage)
}

/// Chooses the process's one signature algorithm (flag, else the network's, else the first file's network's)
/// and initialises it before any worker starts.
fn init_signer(flag: Option<&str>, network: Option<&Network>, files: &[PathBuf]) -> Result<(), u8> {
    let from_files = || {
        files.iter().find_map(|p| {
            let name = p.file_name()?.to_str()?;
            let network = eraflow::formats::era1::Era1Name::parse(name)
                .map(|n| n.network)
                .or_else(|_| eraflow::formats::era::EraName::parse(name).map(|n| n.network))
                .ok()?;
            Network::by_name(&network)
                .ok()
                .map(|n| n.signature_algorithm)
        })
    };
    let name = flag
        .map(str::to_string)
        .or_else(|| network.map(|n| n.signature_algorithm.clone()))
        .or_else(from_files)
        .unwrap_or_else(|| "secp256k1".into());
    let algorithm = SignatureAlgorithm::from_name(&name).map_err(usage)?;
    signer::init(algorithm).map(|_| ()).map_err(usage)
}

fn cmd_export(
    out: &std::path::Path,
    datasets: &[String],
    senders: bool,
    network: Option<&str>,
    overwrite: bool,
    parquet: eraflow::sink::parquet::ParquetOptions,
    paths: &[String],
) -> u8 {
    let network = match resolve_network(network) {
        Ok(n) => n,
        Err(code) => return code,
    };
    let datasets = match eraflow::datasets::by_names(datasets) {
        Ok(d) => d,
        Err(e) => return usage(e),
    };
    let files = match inputs::expand(paths) {
        Ok(f) => f,
        Err(e) => return usage(e),
    };
    let opts = eraflow::pipeline::export::ExportOptions {
        out: out.to_path_buf(),
        datasets,
        senders,
        network,
        overwrite,
        parquet,
    };
    let code = eraflow::pipeline::run::run_stages(
        &files,
        out,
        &[eraflow::pipeline::run::Stage::Export(opts)],
    );
    code.into()
}

fn cmd_run(path: &std::path::Path, sets: &[String], threads_from_cli: bool) -> u8 {
    use eraflow::pipeline::{config, run};
    let cfg = match config::load(path, sets) {
        Ok(c) => c,
        Err(e) => return usage(e),
    };
    if cfg.threads > 0 && !threads_from_cli {
        if let Err(e) = rayon::ThreadPoolBuilder::new()
            .num_threads(cfg.threads)
            .build_global()
        {
            return usage(format!("threads = {}: {e}", cfg.threads));
        }
    }
    let network = match resolve_network(cfg.network.as_deref()) {
        Ok(n) => n,
        Err(code) => return code,
    };
    if let Some(s) = &cfg.synth {
        let Some(net) = network.clone() else {
            return usage(format!("{}: a synth stage needs `network`", path.display()));
        };
        let written = match s.kind.as_str() {
            "era1" => eraflow::synth::era1::write_once(
                &s.out,
                &eraflow::synth::era1::SynthOptions {
                    network: net,
                    era: s.era.unwrap_or(0),
                    files: s.files,
                    blocks: s.blocks.unwrap_or(8192),
                    txs_per_block: s.txs_per_block,
                    seed: s.seed,
                },
            ),
            "era" => {
                use eraflow::synth::era::EraSynthOptions;
                let era = match era_to_synthesize(&net, s.era, s.fork.as_deref()) {
                    Ok(e) => e,
                    Err(e) => return usage(format!("{}: synth: {e}", path.display())),
                };
                eraflow::synth::era::write_once(
                    &s.out,
                    &EraSynthOptions {
                        network: net,
                        era,
                        files: s.files,
                        blocks: s.blocks.unwrap_or(64),
                        validators: s.validators,
                        txs_per_block: s.txs_per_block,
                        seed: s.seed,
                    },
                )
            }
            other => {
                return usage(format!(
                    "{}: synth.kind must be era1 or era, got '{other}'",
                    path.display()
                ))
            }
        };
        match written {
            Ok(paths) => eprintln!("synth: {} files in {}", paths.len(), s.out.display()),
            Err(e) => return usage(e),
        }
    }
    let files = match inputs::expand(&cfg.inputs) {
        Ok(f) => f,
        Err(e) => return usage(e),
    };
    let mut stages = Vec::new();
    if let Some(v) = &cfg.verify {
        if v.senders {
            if let Err(code) = init_signer(None, network.as_ref(), &files) {
                return code;
            }
        }
        stages.push(run::Stage::Verify(verify::era1::VerifyOptions {
            network: network.clone(),
            checksum: false,
            senders: v.senders,
            skip_receipts: false,
        }));
    }
    if let Some(e) = &cfg.export {
        let datasets = match eraflow::datasets::by_names(&e.datasets) {
            Ok(d) => d,
            Err(msg) => return usage(msg),
        };
        stages.push(run::Stage::Export(
            eraflow::pipeline::export::ExportOptions {
                out: cfg.out.clone(),
                datasets,
                senders: e.senders,
                network: network.clone(),
                overwrite: e.overwrite,
                parquet: eraflow::sink::parquet::ParquetOptions {
                    compression: e.compression.clone(),
                    compression_level: e.compression_level,
                    row_group_size: e.row_group_size,
                },
            },
        ));
    }
    if stages.is_empty() && cfg.prune.is_none() {
        return usage(format!(
            "{}: no stages (add [verify], [export] or [prune])",
            path.display()
        ));
    }
    let mut code: u8 = if stages.is_empty() {
        exit::OK
    } else {
        run::run_stages(&files, &cfg.out, &stages).into()
    };
    if let Some(p) = &cfg.prune {
        // Prune runs after the other stages; it never touches the signer and decodes no receipts.
        let opts = eraflow::prune::PruneOptions {
            network: network.clone(),
            from_block: p.from_block,
            until_block: p.until_block,
            allow_gaps: p.allow_gaps,
            format: match prune_format(&p.format) {
                Ok(f) => f,
                Err(e) => return usage(e),
            },
            memory_budget: p.memory_budget,
        };
        let c = match eraflow::prune::run(&files, &p.out, &opts) {
            Ok(s) => {
                println!(
                    "prune: {} blocks {}..={}, {} transactions -> {}",
                    s.manifest.totals.blocks,
                    s.manifest.range.first,
                    s.manifest.range.last,
                    s.manifest.totals.transactions,
                    s.out.display()
                );
                if p.check {
                    cmd_prune_check(&p.out)
                } else {
                    exit::OK
                }
            }
            Err(e) => {
                eprintln!("error: prune: {e}");
                if e.is_data_error() {
                    exit::DATA
                } else {
                    exit::USAGE
                }
            }
        };
        code = code.max(c);
    }
    code
}

fn cmd_bench(blocks: u64, txs: u32, runs: usize, dir: Option<PathBuf>, json: bool) -> u8 {
    let tmp;
    let dir = match dir {
        Some(d) => d,
        None => match tempfile_dir() {
            Ok(d) => {
                tmp = d;
                tmp.clone()
            }
            Err(e) => return usage(e),
        },
    };
    let r = eraflow::bench::run(&dir, blocks, txs, runs.max(1));
    let code = match r {
        Ok(ms) if json => {
            println!("{}", serde_json::to_string_pretty(&ms).unwrap_or_default());
            exit::OK
        }
        Ok(ms) => {
            eraflow::bench::print(&ms);
            exit::OK
        }
        Err(e) => usage(e),
    };
    code
}

/// A fresh directory under the system temp dir for `bench` (removed at the end of the process by nobody:
/// it is small and named so it is easy to spot).
fn tempfile_dir() -> Result<PathBuf, String> {
    let d = std::env::temp_dir().join(format!("eraflow-bench-{}", std::process::id()));
    std::fs::create_dir_all(&d).map_err(|e| format!("{}: {e}", d.display()))?;
    Ok(d)
}

fn cmd_state_root(file: &std::path::Path, fork: Option<&str>, network: Option<&str>) -> u8 {
    use eraflow::consensus::{self, Fork, Kind};
    let name = file
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let net_name = network.map(str::to_string).or_else(|| {
        eraflow::formats::era::EraName::parse(name)
            .ok()
            .map(|n| n.network)
    });
    let net = match Network::resolve(net_name.as_deref().unwrap_or("mainnet")) {
        Ok(n) => n,
        Err(e) => return usage(e),
    };
    let t0 = std::time::Instant::now();
    let mut dec = eraflow::formats::snappy::FramedDecoder::new();
    let raw_snappy;
    let bytes: Vec<u8>;
    let ssz: &[u8] = if name.ends_with(".era") {
        let era = match eraflow::formats::era::EraFile::open(file) {
            Ok(f) => f,
            Err(e) => return data_error(e),
        };
        let rec = match era.state_record() {
            Ok(r) => r,
            Err(e) => return data_error(e),
        };
        bytes = match dec.decompress(rec.data) {
            Ok(b) => b.to_vec(),
            Err(k) => {
                return data_error(eraflow::formats::FormatError::at(rec.offset, k).in_file(file))
            }
        };
        &bytes
    } else {
        let data = match std::fs::read(file) {
            Ok(d) => d,
            Err(e) => return usage(format!("{}: {e}", file.display())),
        };
        if name.ends_with(".ssz_snappy") {
            raw_snappy = match snap::raw::Decoder::new().decompress_vec(&data) {
                Ok(d) => d,
                Err(e) => return data_error(format!("{}: raw snappy: {e}", file.display())),
            };
            &raw_snappy
        } else {
            bytes = data;
            &bytes
        }
    };
    let read_secs = t0.elapsed().as_secs_f64();
    let fork = match fork {
        Some(f) => match f.parse::<Fork>() {
            Ok(f) => f,
            Err(e) => return usage(e),
        },
        None => match consensus::infer_fork(ssz, Kind::State, &net) {
            Ok(f) => f,
            Err(e) => return data_error(format!("{}: {e}", file.display())),
        },
    };
    let t1 = std::time::Instant::now();
    let state = match consensus::BeaconState::new(ssz, fork) {
        Ok(s) => s,
        Err(e) => return data_error(format!("{}: {e}", file.display())),
    };
    match state.root() {
        Ok(root) => {
            let secs = t1.elapsed().as_secs_f64();
            println!("0x{}", hex::encode(root));
            eprintln!(
                "{}: {fork:?} state at slot {}, {} validators, {} bytes; read {:.3}s, hash_tree_root {:.3}s on {} threads",
                file.display(),
                state.slot(),
                state.validator_count().unwrap_or(0),
                ssz.len(),
                read_secs,
                secs,
                rayon::current_num_threads()
            );
            exit::OK
        }
        Err(e) => data_error(format!("{}: {e}", file.display())),
    }
}

fn data_error(msg: impl std::fmt::Display) -> u8 {
    eprintln!("error: {msg}");
    exit::DATA
}

/// The era an era-file synth starts at: `--era` (which must end in `--fork` when both are given), else the first
/// era wholly in `--fork`, else 1.
fn era_to_synthesize(
    network: &Network,
    era: Option<u64>,
    fork: Option<&str>,
) -> Result<u64, String> {
    use eraflow::consensus::Fork;
    let fork = fork
        .map(|f| f.parse::<Fork>().map_err(|e| e.to_string()))
        .transpose()?;
    match (era, fork) {
        (Some(e), Some(f)) => {
            let at = Fork::at_slot(
                e.saturating_mul(eraflow::formats::era::SLOTS_PER_ERA),
                network,
            );
            if at != f {
                return Err(format!(
                    "era {e} of {} ends in {at}, not {f}: drop the era to get the first era of {f}",
                    network.name
                ));
            }
            Ok(e)
        }
        (Some(e), None) => Ok(e),
        (None, Some(f)) => {
            eraflow::synth::era::EraSynthOptions::era_of_fork(network, f).map_err(|e| e.to_string())
        }
        (None, None) => Ok(1),
    }
}

/// `eraflow synth` options shared by both archive kinds.
struct SynthArgs {
    era: Option<u64>,
    fork: Option<String>,
    files: u64,
    blocks: Option<u64>,
    validators: usize,
    txs_per_block: u32,
    seed: u64,
}

fn cmd_synth(out: &std::path::Path, kind: &str, network: &str, a: SynthArgs) -> u8 {
    let network = match Network::resolve(network) {
        Ok(n) => n,
        Err(e) => return usage(e),
    };
    let written = match kind {
        "era1" => {
            if a.fork.is_some() {
                return usage("--fork applies to --kind era only");
            }
            let opts = eraflow::synth::era1::SynthOptions {
                network,
                era: a.era.unwrap_or(0),
                files: a.files,
                blocks: a.blocks.unwrap_or(8192),
                txs_per_block: a.txs_per_block,
                seed: a.seed,
            };
            eraflow::synth::era1::write(out, &opts)
        }
        "era" => {
            use eraflow::synth::era::EraSynthOptions;
            let era = match era_to_synthesize(&network, a.era, a.fork.as_deref()) {
                Ok(e) => e,
                Err(e) => return usage(e),
            };
            let opts = EraSynthOptions {
                network,
                era,
                files: a.files,
                blocks: a.blocks.unwrap_or(64),
                validators: a.validators,
                txs_per_block: a.txs_per_block,
                seed: a.seed,
            };
            eraflow::synth::era::write(out, &opts)
        }
        other => return usage(format!("--kind must be era1 or era, got '{other}'")),
    };
    match written {
        Ok(paths) => {
            for p in paths {
                println!("{}", p.display());
            }
            exit::OK
        }
        Err(e) => usage(e),
    }
}

fn cmd_verify(
    paths: &[String],
    network: Option<&str>,
    checksum: bool,
    senders: bool,
    algorithm: Option<&str>,
    json: bool,
) -> u8 {
    let network = match resolve_network(network) {
        Ok(n) => n,
        Err(code) => return code,
    };
    let files = match inputs::expand(paths) {
        Ok(f) => f,
        Err(e) => return usage(e),
    };
    let (era_files, era1_files): (Vec<_>, Vec<_>) = files
        .into_iter()
        .partition(|p| ArchiveKind::of(p) == Some(ArchiveKind::Era));
    if senders {
        let all: Vec<PathBuf> = era1_files.iter().chain(&era_files).cloned().collect();
        if let Err(code) = init_signer(algorithm, network.as_ref(), &all) {
            return code;
        }
    }
    let opts = verify::era1::VerifyOptions {
        network,
        checksum,
        senders,
        skip_receipts: false,
    };
    let mut reports = verify::era1::verify_files(&era1_files, &opts);
    reports.extend(verify::era::verify_files(&era_files, &opts));
    let mut failed = 0;
    for r in &reports {
        if !r.ok {
            failed += 1;
        }
        if json {
            println!("{}", serde_json::to_string(r).unwrap_or_default());
        } else {
            let status = if r.ok { "OK  " } else { "FAIL" };
            let senders = r
                .senders_recovered
                .map_or(String::new(), |n| format!("  senders {n}"));
            if let Some(b) = &r.beacon {
                let exec = match (r.first_block, r.last_block) {
                    (Some(a), Some(z)) => format!("  execution blocks {a}..={z}"),
                    _ => String::new(),
                };
                println!(
                    "{status} {}  era {}  state slot {} ({})  beacon blocks {} (+{} empty slots){exec}  txs {}{senders}  state root {}",
                    r.file,
                    r.era.map_or("?".into(), |e| e.to_string()),
                    b.state_slot,
                    b.state_fork,
                    r.blocks,
                    b.empty_slots,
                    r.transactions,
                    b.state_root
                );
            } else {
                println!(
                    "{status} {}  blocks {}..={}  txs {}{senders}  accumulator {}",
                    r.file,
                    r.first_block.map_or("?".into(), |b| b.to_string()),
                    r.last_block.map_or("?".into(), |b| b.to_string()),
                    r.transactions,
                    r.accumulator_root.as_deref().unwrap_or("?")
                );
            }
            for e in &r.errors {
                println!("     error: {e}");
            }
            if r.errors_omitted > 0 {
                println!("     ... and {} more errors", r.errors_omitted);
            }
            for w in &r.warnings {
                println!("     warning: {w}");
            }
        }
    }
    if !json {
        println!(
            "{} files, {} verified, {} failed",
            reports.len(),
            reports.len() - failed,
            failed
        );
    }
    if failed > 0 {
        exit::DATA
    } else {
        exit::OK
    }
}

fn cmd_inspect(file: &std::path::Path, network: Option<&str>) -> u8 {
    let network = match resolve_network(network) {
        Ok(n) => n,
        Err(code) => return code,
    };
    if !file.exists() {
        return usage(format!("{}: no such file", file.display()));
    }
    let opts = verify::era1::VerifyOptions {
        senders: false,
        skip_receipts: false,
        network,
        checksum: true,
    };
    let r = if ArchiveKind::of(file) == Some(ArchiveKind::Era) {
        verify::era::verify_file(file, &opts)
    } else {
        verify::era1::verify_file(file, &opts)
    };
    let opt = |o: &Option<String>| o.clone().unwrap_or_else(|| "?".into());
    println!("file:              {}", r.file);
    println!("kind:              {}", r.kind);
    println!("network:           {}", r.network);
    println!(
        "era:               {}",
        r.era.map_or("?".into(), |e| e.to_string())
    );
    println!(
        "size:              {} bytes, sha256 {}",
        r.file_size,
        opt(&r.sha256)
    );
    println!(
        "blocks:            {}..={} ({})",
        r.first_block.map_or("?".into(), |b| b.to_string()),
        r.last_block.map_or("?".into(), |b| b.to_string()),
        r.blocks
    );
    println!("records:           {}", fmt_map(&r.record_counts));
    println!(
        "transactions:      {} ({})",
        r.transactions,
        fmt_map(&r.tx_kinds)
    );
    println!(
        "receipts:          {} ({})",
        r.receipts,
        fmt_map(&r.receipt_forms)
    );
    if let Some(b) = &r.beacon {
        println!(
            "state:             slot {} ({}), {} validators",
            b.state_slot, b.state_fork, b.validators
        );
        println!("state root:        {}", b.state_root);
        println!("historical root:   {}", opt(&b.historical_root));
        println!(
            "beacon blocks:     {} ({}), {} empty slots",
            r.blocks,
            fmt_map(&b.blocks_per_fork),
            b.empty_slots
        );
        println!("withdrawals:       {}", b.withdrawals);
        println!("first block hash:  {}", opt(&r.first_block_hash));
        println!("last block hash:   {}", opt(&r.last_block_hash));
    } else {
        println!("logs:              {}", r.logs);
        println!("ommers:            {}", r.ommers);
        println!("header fields:     {}", fmt_map(&r.header_field_counts));
        println!("accumulator root:  {}", opt(&r.accumulator_root));
        println!("first block hash:  {}", opt(&r.first_block_hash));
        println!("last block hash:   {}", opt(&r.last_block_hash));
        println!(
            "total difficulty:  {} -> {}",
            opt(&r.initial_total_difficulty),
            opt(&r.final_total_difficulty)
        );
    }
    println!("verified:          {}", if r.ok { "yes" } else { "NO" });
    for e in &r.errors {
        println!("  error: {e}");
    }
    if r.ok {
        exit::OK
    } else {
        exit::DATA
    }
}

fn fmt_map(m: &std::collections::BTreeMap<String, u64>) -> String {
    if m.is_empty() {
        return "none".into();
    }
    m.iter()
        .map(|(k, v)| format!("{k}: {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn cmd_prune(a: &PruneArgs) -> u8 {
    let network = match resolve_network(a.network.as_deref()) {
        Ok(n) => n,
        Err(code) => return code,
    };
    let Some(out) = a.out.as_deref() else {
        return usage("prune: --out DIR is required");
    };
    let files = match inputs::expand(&a.paths) {
        Ok(f) => f,
        Err(e) => return usage(e),
    };
    let opts = eraflow::prune::PruneOptions {
        network,
        from_block: a.from_block,
        until_block: a.until_block,
        allow_gaps: a.allow_gaps,
        format: match prune_format(&a.format) {
            Ok(f) => f,
            Err(e) => return usage(e),
        },
        memory_budget: a.memory_budget,
    };
    let started = std::time::Instant::now();
    match eraflow::prune::run(&files, out, &opts) {
        Ok(s) => {
            let m = &s.manifest;
            for f in &s.skipped {
                eprintln!("note: {f} holds no block of the range; not read");
            }
            println!(
                "OK   {}  {} blocks {}..={}  {} transactions  {} sources  {} gaps  ({} sort runs spilled, {:.1}s)",
                s.out.display(),
                m.totals.blocks,
                m.range.first,
                m.range.last,
                m.totals.transactions,
                m.sources.len(),
                m.gaps.len(),
                s.sort.runs_spilled,
                started.elapsed().as_secs_f64()
            );
            exit::OK
        }
        Err(e) => {
            eprintln!("error: {e}");
            if e.is_data_error() {
                exit::DATA
            } else {
                exit::USAGE
            }
        }
    }
}

/// The prune list format by name; an unknown name is a usage error, never a silent default.
fn prune_format(name: &str) -> Result<eraflow::prune::OutputFormat, String> {
    match name {
        "binary" => Ok(eraflow::prune::OutputFormat::Binary),
        "text" => Ok(eraflow::prune::OutputFormat::Text),
        other => Err(format!("unknown prune format '{other}': binary or text")),
    }
}

fn cmd_prune_check(dir: &std::path::Path) -> u8 {
    match eraflow::prune::check::check(dir) {
        Ok(s) => {
            println!(
                "OK   {}  {} files consistent: {} blocks, {} transactions",
                dir.display(),
                s.files_checked,
                s.manifest.totals.blocks,
                s.manifest.totals.transactions
            );
            exit::OK
        }
        Err(e @ eraflow::prune::check::CheckError::Manifest { .. }) => {
            eprintln!("error: {e}");
            exit::USAGE
        }
        Err(e) => {
            eprintln!("FAIL {e}");
            exit::DATA
        }
    }
}
