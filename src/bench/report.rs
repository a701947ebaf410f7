//! What a bench run measured, the ratios its goals are stated in, and the printed table.

use super::{names, MIRROR_FILES};
use crate::crypto::signer::SignerBackend;
use std::path::PathBuf;

/// One measured line.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Measurement {
    /// What was measured; floors (the primitive a stage cannot beat) start with `floor:`.
    pub name: String,
    /// The archive it ran on: `era1` or `era`.
    pub archive: &'static str,
    /// Worker threads.
    pub threads: usize,
    /// Best wall-clock time over the runs, in seconds, for the whole synthetic archive.
    pub seconds: f64,
    /// One-thread stages: the best CPU time of the worker thread over the runs, in seconds (Linux; robust to
    /// other work on the machine, which wall time is not). `None` for multi-threaded stages and elsewhere.
    pub cpu_seconds: Option<f64>,
    /// Blocks of the archive per second of `seconds`.
    pub blocks_per_second: f64,
    /// Transactions of the archive per second of `seconds`.
    pub transactions_per_second: f64,
    /// Archive file size in MB (10^6 bytes) per second of `seconds`, whatever part of the file the stage reads.
    pub archive_mb_per_second: f64,
    /// The most resident memory one run of the stage added to the process, in bytes (Linux; `None` elsewhere):
    /// the peak RSS during the run less the RSS before it. The pages of the archive a stage maps count in it,
    /// as they do in a worker's RSS; export and prune map the whole file.
    pub peak_rss_added_bytes: Option<u64>,
}

/// A ratio between two measurements of the same run, with the goal it is held to (when there is one).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Ratio {
    /// What it compares.
    pub name: String,
    /// How it is computed from the measurements.
    pub formula: String,
    /// The ratio, from wall-clock times.
    pub value: f64,
    /// The same ratio from worker-thread CPU times, when every stage in it has one.
    pub cpu_value: Option<f64>,
    /// The goal, `value >= goal`, when the issue sets one.
    pub goal: Option<f64>,
}

impl Ratio {
    /// Whether the goal is met (`None` without one).
    pub fn met(&self) -> Option<bool> {
        self.goal.map(|g| self.value >= g)
    }
}

/// A synthetic archive the bench ran on.
#[derive(Debug, Clone, serde::Serialize)]
pub struct BenchArchive {
    /// `era1` or `era`.
    pub kind: &'static str,
    /// Its file.
    pub path: PathBuf,
    /// Blocks (era: beacon blocks, each with an execution payload).
    pub blocks: u64,
    /// Transactions.
    pub transactions: u64,
    /// File size in bytes.
    pub bytes: u64,
}

/// Everything one `eraflow bench` run measured.
#[derive(Debug, Clone, serde::Serialize)]
pub struct BenchReport {
    /// `/proc/loadavg` when the measurements started (other work on the machine skews wall times).
    pub load_average_start: String,
    /// `/proc/loadavg` when they ended.
    pub load_average_end: String,
    /// The inputs.
    pub archives: Vec<BenchArchive>,
    /// Every line, floors first within each archive.
    pub measurements: Vec<Measurement>,
    /// The ratios the goals are about.
    pub ratios: Vec<Ratio>,
    /// SHA-256 64-byte blocks one era verification hashes (counted on the real path).
    pub era_sha256_blocks: u64,
    /// Cost of one 64-byte block inside a batched `hash_blocks`, in ns, measured in this run.
    pub sha256_block_ns: f64,
    /// The cache bound of the remote-input line (`--cache-max-bytes`): two of its files.
    pub remote_cache_max_bytes: u64,
    /// Messages one ere verification hashes with keccak256 (recorded on the real path), and their bytes.
    pub ere_keccak_messages: u64,
    /// Bytes of those messages.
    pub ere_keccak_bytes: u64,
    /// The consensus datasets' facts (file sizes, the big state).
    pub consensus: Option<super::ConsensusFacts>,
}

impl Measurement {
    /// The measurement of stage `name` on archive `a` with `threads` workers, from its best timing.
    pub(super) fn new(
        name: &str,
        a: &BenchArchive,
        threads: usize,
        t: super::measure::Timing,
    ) -> Self {
        let s = t.wall;
        Measurement {
            name: name.into(),
            archive: a.kind,
            threads,
            seconds: s,
            cpu_seconds: t.cpu,
            peak_rss_added_bytes: t.rss,
            blocks_per_second: a.blocks as f64 / s,
            transactions_per_second: a.transactions as f64 / s,
            archive_mb_per_second: a.bytes as f64 / 1e6 / s,
        }
    }
}

impl BenchReport {
    /// The measurement called `name`.
    pub fn get(&self, name: &str) -> Option<&Measurement> {
        self.measurements.iter().find(|m| m.name == name)
    }
}

/// Seconds of a stage by name (wall-clock or CPU time), `None` when it was not measured.
type Seconds<'a> = &'a dyn Fn(&str) -> Option<f64>;

/// The ratios of one report, as they are added.
struct Ratios<'a> {
    report: &'a BenchReport,
    out: Vec<Ratio>,
}

impl Ratios<'_> {
    /// Adds a ratio when its stages were measured. `f` computes it from a lookup of seconds by stage name; it
    /// runs once on wall times and once on CPU times (which only one-thread stages have).
    fn push(
        &mut self,
        name: String,
        formula: String,
        goal: Option<f64>,
        f: &dyn Fn(Seconds<'_>) -> Option<f64>,
    ) {
        let r = self.report;
        let wall = |n: &str| r.get(n).map(|m| m.seconds);
        let cpu = |n: &str| r.get(n).and_then(|m| m.cpu_seconds);
        if let Some(value) = f(&wall) {
            self.out.push(Ratio {
                name,
                formula,
                value,
                cpu_value: f(&cpu),
                goal,
            });
        }
    }

    /// Adds the ratio `[over] / [under]` of two stages' seconds, its formula written from the same two names it
    /// is computed from.
    fn quotient(&mut self, name: impl Into<String>, over: &str, under: &str, goal: Option<f64>) {
        self.push(name.into(), format!("[{over}] / [{under}]"), goal, &|s| {
            Some(s(over)? / s(under)?)
        });
    }
}

/// The ratios the goals are stated in, from one run's measurements, in the order they are printed.
pub(super) fn ratios(report: &BenchReport) -> Vec<Ratio> {
    let mut r = Ratios {
        report,
        out: Vec::new(),
    };
    senders_ratios(&mut r);
    remote_ratios(&mut r);
    speed_up_ratios(&mut r);
    prune_and_era_ratios(&mut r);
    ere_ratios(&mut r);
    consensus_ratios(&mut r);
    r.quotient(
        "era verification, 2 threads speed-up over 1",
        names::ERA_1,
        names::ERA_2,
        None,
    );
    r.out
}

/// Sender recovery in verification, alone and in export, against the raw library doing only that.
fn senders_ratios(r: &mut Ratios<'_>) {
    let lib = SignerBackend::Libsecp256k1.name();
    let k = SignerBackend::K256.name();
    // Senders inside the pipeline: what recovery adds to verification, against the raw library doing only that.
    for (backend, floor, goal) in [
        (lib, names::RAW_LIBSECP, Some(0.95)),
        (k, names::RAW_K256, None),
    ] {
        let with = names::verify_senders(backend);
        r.push(
            format!("senders inside the pipeline ({backend}), per core, ÷ raw {backend}"),
            format!("[{floor}] / ([{with}] - [{}])", names::VERIFY),
            goal,
            &|s| Some(s(floor)? / (s(&with)? - s(names::VERIFY)?)),
        );
    }
    // The signer in a tight loop (its own overhead: decoding, signing hash, checks).
    for (backend, floor) in [(lib, names::RAW_LIBSECP), (k, names::RAW_K256)] {
        let alone = names::signer_alone(backend);
        r.quotient(
            format!("signer alone ({backend}) ÷ raw {backend}"),
            floor,
            &alone,
            None,
        );
    }
    // The same inside export, where more work (Arrow columns, Parquet) runs between recoveries.
    for (backend, floor) in [(lib, names::RAW_LIBSECP), (k, names::RAW_K256)] {
        let with = names::export_senders(backend, 1);
        r.push(
            format!("senders inside export ({backend}), per core, ÷ raw {backend}"),
            format!("[{floor}] / ([{with}] - [{}])", names::EXPORT_NO_SENDERS),
            None,
            &|s| Some(s(floor)? / (s(&with)? - s(names::EXPORT_NO_SENDERS)?)),
        );
    }
}

/// Remote input from the loopback mirror (fast, throttled) against local files.
fn remote_ratios(r: &mut Ratios<'_>) {
    r.quotient(
        "export into Delta tables (new tables, a commit per source and dataset) ÷ plain Parquet, same files (speed)",
        names::SET_LOCAL,
        names::SET_DELTA,
        Some(0.9),
    );
    r.quotient(
        "table optimize of 1,000 small files ÷ a plain Parquet rewrite of the same files (speed)",
        names::OPTIMIZE_FLOOR,
        names::TABLE_OPTIMIZE,
        Some(0.8),
    );
    r.quotient(
        "remote input (loopback HTTP mirror, prefetched, bounded cache) ÷ local files",
        names::SET_LOCAL,
        names::SET_HTTP,
        Some(0.9),
    );
    r.quotient(
        "throttled mirror (20 MB/s per connection), 1 connection ÷ local files",
        names::SET_LOCAL,
        names::SET_SLOW_1,
        None,
    );
    r.quotient(
        "throttled mirror (20 MB/s per connection), 4 connections ÷ local files",
        names::SET_LOCAL,
        names::SET_SLOW_4,
        Some(0.9),
    );
}

/// libsecp256k1 over k256, and 2 threads over 1, for recovery and export with senders.
fn speed_up_ratios(r: &mut Ratios<'_>) {
    let lib = SignerBackend::Libsecp256k1.name();
    let k = SignerBackend::K256.name();
    r.quotient(
        "raw libsecp256k1 recovery speed-up over raw k256",
        names::RAW_K256,
        names::RAW_LIBSECP,
        None,
    );
    for threads in [1, 2] {
        let (a, b) = (
            names::export_senders(k, threads),
            names::export_senders(lib, threads),
        );
        let t = if threads == 1 { "thread" } else { "threads" };
        r.quotient(
            format!("export with senders, libsecp256k1 speed-up over k256, {threads} {t}"),
            &a,
            &b,
            Some(1.7),
        );
    }
    for backend in [lib, k] {
        let (a, b) = (
            names::export_senders(backend, 1),
            names::export_senders(backend, 2),
        );
        r.quotient(
            format!("export with senders ({backend}), 2 threads speed-up over 1"),
            &a,
            &b,
            (backend == lib).then_some(1.85),
        );
    }
}

/// Prune and era verification against their floors, and prune's 2 threads over 1.
fn prune_and_era_ratios(r: &mut Ratios<'_>) {
    r.quotient(
        "prune, 1 thread, ÷ its floor with the transactions root (fraction of the floor's speed)",
        names::PRUNE_FLOOR,
        names::PRUNE_1,
        Some(0.8),
    );
    r.quotient(
        "prune, 2 threads speed-up over 1 (one file)",
        names::PRUNE_1,
        names::PRUNE_2,
        None,
    );
    r.quotient(
        "era verification, 1 thread, ÷ its sha256 floor (fraction of the floor's speed)",
        names::ERA_FLOOR,
        names::ERA_1,
        Some(0.8),
    );
    r.quotient(
        "era verification, 1 thread, ÷ its floor of every primitive it runs: sha256 + keccak + snappy (fraction of the floor's speed)",
        names::ERA_FLOOR_ALL,
        names::ERA_1,
        None,
    );
}

/// Ere verification against its floor and with proofs, and export from ere against export from era1.
fn ere_ratios(r: &mut Ratios<'_>) {
    let lib = SignerBackend::Libsecp256k1.name();
    r.quotient(
        "ere verification, 1 thread, ÷ its floor: keccak of every block it hashes + snappy (fraction of the floor's speed)",
        names::ERE_FLOOR,
        names::ERE_VERIFY,
        Some(0.8),
    );
    r.quotient(
        "default-profile ere verification (proofs checked) ÷ the same file's noproofs verification (speed)",
        names::ERE_VERIFY,
        names::ERE_VERIFY_PROOFS,
        Some(0.9),
    );
    r.quotient(
        "export from ere ÷ export from the era1 file of the same blocks, without senders (speed)",
        names::EXPORT_NO_SENDERS,
        names::ERE_EXPORT_NO_SENDERS,
        Some(0.95),
    );
    let (a, b) = (
        names::export_senders(lib, 1),
        names::ere_export_senders(lib),
    );
    r.quotient(format!("export from ere ÷ export from the era1 file of the same blocks, with senders ({lib}) (speed)"), &a, &b, Some(0.95));
}

/// The consensus datasets: what the operation datasets add to an era export, `validators` against its floor.
fn consensus_ratios(r: &mut Ratios<'_>) {
    for fork in ["deneb", "electra"] {
        let (without, with) = (
            names::era_export_operations(fork, false),
            names::era_export_operations(fork, true),
        );
        r.quotient(format!("era export ({fork}) without ÷ with the operation datasets (speed; >= 0.833: they add <= 20%)"), &without, &with, Some(1.0 / 1.2));
    }
    r.quotient(
        "validators dataset ÷ its floor, parquet encode of the same rows (fraction of the floor's speed)",
        names::VALIDATORS_FLOOR,
        names::VALIDATORS,
        Some(0.7),
    );
}

/// Bytes in MiB.
fn mib(b: u64) -> f64 {
    b as f64 / (1u64 << 20) as f64
}

/// The goal for the memory an export or prune needs beyond the archive it maps, per worker thread (issue 12).
const GOAL_RSS_MIB: f64 = 256.0;

/// Prints the measurements with each one's ratio to the snappy and keccak floors, then the goal ratios.
pub fn print(r: &BenchReport) {
    println!(
        "load average {} at the start, {} at the end",
        r.load_average_start, r.load_average_end
    );
    for a in &r.archives {
        println!(
            "{}: {} blocks, {} transactions, {:.1} MB ({})",
            a.kind,
            a.blocks,
            a.transactions,
            a.bytes as f64 / 1e6,
            a.path.display()
        );
    }
    let floor = r.get(names::SNAPPY).map_or(1.0, |m| m.seconds);
    let keccak = r.get(names::KECCAK).map_or(1.0, |m| m.seconds);
    println!(
        "{:<62} {:>5} {:>9} {:>9} {:>10} {:>10} {:>8} {:>9} {:>9} {:>9}",
        "stage",
        "file",
        "seconds",
        "cpu s",
        "blocks/s",
        "txs/s",
        "MB/s",
        "÷snappy",
        "÷keccak",
        "+RSS MiB"
    );
    for m in &r.measurements {
        let (a, b) = if m.archive == "era1" || m.archive == "ere" {
            (
                format!("{:.2}", m.seconds / floor),
                format!("{:.2}", m.seconds / keccak),
            )
        } else {
            (String::new(), String::new())
        };
        let cpu = m.cpu_seconds.map_or(String::new(), |c| format!("{c:.3}"));
        let rss = m
            .peak_rss_added_bytes
            .map_or(String::new(), |b| format!("{:.1}", mib(b)));
        println!(
            "{:<62} {:>5} {:>9.3} {cpu:>9} {:>10.0} {:>10.0} {:>8.1} {a:>9} {b:>9} {rss:>9}",
            m.name,
            m.archive,
            m.seconds,
            m.blocks_per_second,
            m.transactions_per_second,
            m.archive_mb_per_second,
        );
    }
    // Zero in a `--consensus` run, which measures none of these.
    if r.era_sha256_blocks > 0 {
        println!(
            "era verification hashes {} sha256 blocks; {:.1} ns each in a batch (this run)",
            r.era_sha256_blocks, r.sha256_block_ns
        );
        println!(
            "ere verification hashes {} keccak256 messages of {:.1} MB together (its floor hashes the same ones)",
            r.ere_keccak_messages,
            r.ere_keccak_bytes as f64 / 1e6
        );
        println!(
            "remote input: the same {MIRROR_FILES} files from an in-process loopback HTTP mirror (no Python), fetched ahead of the worker into a cache bounded at {:.1} MB (two files; --cache-max-bytes)",
            r.remote_cache_max_bytes as f64 / 1e6
        );
    }
    for x in &r.ratios {
        let goal = match (x.goal, x.met()) {
            (Some(g), Some(true)) => format!("  (goal >= {g}: met)"),
            (Some(g), _) => format!("  (goal >= {g}: NOT met)"),
            _ => String::new(),
        };
        let cpu = x
            .cpu_value
            .map_or(String::new(), |c| format!(" (CPU time: {c:.3})"));
        println!("{}: {:.3}{cpu}{goal}", x.name, x.value);
    }
    // Export and prune map the whole archive: what they need beyond it is the memory a worker must budget.
    if let Some(a) = r.archives.iter().find(|a| a.kind == "era1") {
        for m in r.measurements.iter().filter(|m| {
            m.archive == "era1" && (m.name.starts_with("export") || m.name.starts_with("prune"))
        }) {
            if let Some(b) = m.peak_rss_added_bytes {
                let beyond = mib(b) - mib(a.bytes);
                let goal = if beyond <= GOAL_RSS_MIB * m.threads as f64 {
                    "met"
                } else {
                    "NOT met"
                };
                println!(
                    "peak RSS beyond the {:.1} MiB mapped archive, {}: {beyond:.1} MiB (goal <= {GOAL_RSS_MIB} MiB per \
                     worker thread: {goal})",
                    mib(a.bytes),
                    m.name
                );
            }
        }
    }
    if let Some(c) = &r.consensus {
        println!(
            "validators: {} rows; file {:.1} MB with eraflow's encodings, {:.1} MB with Parquet's defaults ({:.3}x)",
            c.state_validators,
            c.validators_file_bytes as f64 / 1e6,
            c.validators_plain_file_bytes as f64 / 1e6,
            c.validators_file_bytes as f64 / c.validators_plain_file_bytes.max(1) as f64
        );
        if let Some(b) = r
            .get(names::VALIDATORS_EXPORT)
            .and_then(|m| m.peak_rss_added_bytes)
        {
            let beyond = mib(b) - mib(c.state_file_bytes);
            let goal = if beyond <= GOAL_RSS_MIB {
                "met"
            } else {
                "NOT met"
            };
            println!(
                "peak RSS beyond the {:.1} MiB mapped era file, {}: {beyond:.1} MiB (goal <= {GOAL_RSS_MIB} MiB: {goal})",
                mib(c.state_file_bytes),
                names::VALIDATORS_EXPORT
            );
        }
    }
    if let Some(rss) = crate::util::memory::peak_rss_bytes() {
        println!(
            "peak RSS of this process: {:.1} MiB",
            rss as f64 / (1 << 20) as f64
        );
    }
}
