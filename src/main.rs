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
    /// Verify every block of era1 files: hashes, roots, receipts, total difficulty, index, accumulator.
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
    /// Write deterministic synthetic era1 files (real signatures, logs, every pre-merge transaction kind).
    Synth {
        /// Output directory.
        #[arg(long)]
        out: PathBuf,
        /// Network preset name or preset .toml.
        #[arg(long, default_value = "synthnet")]
        network: String,
        /// First era.
        #[arg(long, default_value_t = 0)]
        era: u64,
        /// Number of consecutive files.
        #[arg(long, default_value_t = 1)]
        files: u64,
        /// Blocks per file (at most 8192).
        #[arg(long, default_value_t = 8192)]
        blocks: u64,
        /// Transactions per block.
        #[arg(long, default_value_t = 4)]
        txs_per_block: u32,
        /// Seed: the same seed gives byte-identical files.
        #[arg(long, default_value_t = 1)]
        seed: u64,
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
        Command::Synth {
            out,
            network,
            era,
            files,
            blocks,
            txs_per_block,
            seed,
        } => cmd_synth(&out, &network, era, files, blocks, txs_per_block, seed),
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
            let parsed = eraflow::formats::era1::Era1Name::parse(name).ok()?;
            Network::by_name(&parsed.network)
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

fn cmd_synth(
    out: &std::path::Path,
    network: &str,
    era: u64,
    files: u64,
    blocks: u64,
    txs_per_block: u32,
    seed: u64,
) -> u8 {
    let network = match Network::resolve(network) {
        Ok(n) => n,
        Err(e) => return usage(e),
    };
    let opts = eraflow::synth::era1::SynthOptions {
        network,
        era,
        files,
        blocks,
        txs_per_block,
        seed,
    };
    match eraflow::synth::era1::write(out, &opts) {
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
    let (era1_files, other): (Vec<_>, Vec<_>) = files
        .into_iter()
        .partition(|p| ArchiveKind::of(p) != Some(ArchiveKind::Era));
    if !other.is_empty() {
        eprintln!(
            "warning: era (beacon) files are not verified yet; skipped {}",
            other.len()
        );
    }
    if senders {
        if let Err(code) = init_signer(algorithm, network.as_ref(), &era1_files) {
            return code;
        }
    }
    let opts = verify::era1::VerifyOptions {
        network,
        checksum,
        senders,
        skip_receipts: false,
    };
    let reports = verify::era1::verify_files(&era1_files, &opts);
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
            println!(
                "{status} {}  blocks {}..={}  txs {}{senders}  accumulator {}",
                r.file,
                r.first_block.map_or("?".into(), |b| b.to_string()),
                r.last_block.map_or("?".into(), |b| b.to_string()),
                r.transactions,
                r.accumulator_root.as_deref().unwrap_or("?")
            );
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
    let r = verify::era1::verify_file(file, &opts);
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
        format: if a.format == "text" {
            eraflow::prune::OutputFormat::Text
        } else {
            eraflow::prune::OutputFormat::Binary
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
