//! The `eraflow` command line: one small function per subcommand, each calling the library.

use clap::{Parser, Subcommand};
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
#[command(name = "eraflow", version, about = "Verify Ethereum chain archives (era1, era), export them to Parquet, build prune manifests")]
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
        /// Files, directories or glob patterns.
        #[arg(required = true)]
        paths: Vec<String>,
    },
    /// Summarise one archive file: range, counts by record type, transaction kinds, roots, total difficulty.
    Inspect {
        file: PathBuf,
        /// Network preset name or preset .toml (default: from the file name).
        #[arg(long)]
        network: Option<String>,
    },
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { exit::USAGE } else { exit::OK };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    if let Some(n) = cli.threads {
        if let Err(e) = rayon::ThreadPoolBuilder::new().num_threads(n).build_global() {
            eprintln!("error: --threads {n}: {e}");
            return ExitCode::from(exit::USAGE);
        }
    }
    let code = match cli.command {
        Command::Verify { json, network, checksum, paths } => cmd_verify(&paths, network.as_deref(), checksum, json),
        Command::Inspect { file, network } => cmd_inspect(&file, network.as_deref()),
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

fn cmd_verify(paths: &[String], network: Option<&str>, checksum: bool, json: bool) -> u8 {
    let network = match resolve_network(network) {
        Ok(n) => n,
        Err(code) => return code,
    };
    let files = match inputs::expand(paths) {
        Ok(f) => f,
        Err(e) => return usage(e),
    };
    let (era1_files, other): (Vec<_>, Vec<_>) = files.into_iter().partition(|p| ArchiveKind::of(p) != Some(ArchiveKind::Era));
    if !other.is_empty() {
        eprintln!("warning: era (beacon) files are not verified yet; skipped {}", other.len());
    }
    let opts = verify::era1::VerifyOptions { network, checksum };
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
            println!(
                "{status} {}  blocks {}..={}  txs {}  accumulator {}",
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
        println!("{} files, {} verified, {} failed", reports.len(), reports.len() - failed, failed);
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
    let opts = verify::era1::VerifyOptions { network, checksum: true };
    let r = verify::era1::verify_file(file, &opts);
    let opt = |o: &Option<String>| o.clone().unwrap_or_else(|| "?".into());
    println!("file:              {}", r.file);
    println!("kind:              {}", r.kind);
    println!("network:           {}", r.network);
    println!("era:               {}", r.era.map_or("?".into(), |e| e.to_string()));
    println!("size:              {} bytes, sha256 {}", r.file_size, opt(&r.sha256));
    println!(
        "blocks:            {}..={} ({})",
        r.first_block.map_or("?".into(), |b| b.to_string()),
        r.last_block.map_or("?".into(), |b| b.to_string()),
        r.blocks
    );
    println!("records:           {}", fmt_map(&r.record_counts));
    println!("transactions:      {} ({})", r.transactions, fmt_map(&r.tx_kinds));
    println!("receipts:          {} ({})", r.receipts, fmt_map(&r.receipt_forms));
    println!("logs:              {}", r.logs);
    println!("ommers:            {}", r.ommers);
    println!("header fields:     {}", fmt_map(&r.header_field_counts));
    println!("accumulator root:  {}", opt(&r.accumulator_root));
    println!("first block hash:  {}", opt(&r.first_block_hash));
    println!("last block hash:   {}", opt(&r.last_block_hash));
    println!("total difficulty:  {} -> {}", opt(&r.initial_total_difficulty), opt(&r.final_total_difficulty));
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
    m.iter().map(|(k, v)| format!("{k}: {v}")).collect::<Vec<_>>().join(", ")
}
