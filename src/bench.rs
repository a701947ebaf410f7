//! `eraflow bench`: measures the pipeline's stages beside their floors in one run and prints ratios, so a speed
//! claim is always relative to a primitive measured on the same machine at the same moment. The criterion
//! benches in `benches/` measure the same things with statistics; this is the quick, self-contained view.
//!
//! Two synthetic archives are measured: an era1 file (decode, verify, senders on both secp256k1 backends,
//! export; floors: snappy, keccak, raw libsecp256k1 and raw k256 recovery, Parquet encoding) and an era file
//! (verification: the state's hash_tree_root, every block, every payload's block hash; floor: the SHA-256
//! hashes that verification needs). Both backends run in this one process on signers built for the bench
//! ([`Signer::new`]), beside the process signer, which the bench never touches. Two more lines export three
//! era1 files from local disk and from a loopback HTTP mirror (`bench/mirror.rs`, in-process) through the
//! remote-input path (prefetch, bounded cache), side by side. Every measured run must succeed: a stage that
//! fails is an error, never a fast time.

use crate::consensus::Fork;
use crate::crypto::keccak::keccak256;
use crate::crypto::sha256;
use crate::crypto::signer::{SignatureAlgorithm, Signer, SignerBackend};
use crate::datasets;
use crate::formats::e2store::{E2StoreReader, RecordType};
use crate::formats::snappy::FramedDecoder;
use crate::formats::ArchiveKind;
use crate::network::Network;
use crate::pipeline::export::{export, ExportOptions};
use crate::pipeline::report::Progress;
use crate::sink::parquet::ParquetOptions;
use crate::synth::era1::SynthError;
use crate::verify::era1::VerifyOptions;
use std::path::{Path, PathBuf};
use std::time::Instant;

mod mirror;

/// Files of the remote-input line (the first is fetched before any work: more files, less of that).
const MIRROR_FILES: usize = 3;

/// What to measure on.
#[derive(Debug, Clone)]
pub struct BenchOptions {
    /// Blocks of the synthetic era1 file, and (at most 8192) of the era file.
    pub blocks: u64,
    /// Transactions per block (era: per execution payload).
    pub txs_per_block: u32,
    /// Validators in the era file's state.
    pub validators: usize,
    /// Timed repetitions of each stage; the best is kept.
    pub runs: usize,
}

/// Why the bench could not measure.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The synthetic input could not be made.
    #[error("synthesising the bench input")]
    Synth(#[from] SynthError),
    /// A file could not be read.
    #[error("{}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The synthetic input did not decode.
    #[error("decoding the bench input: {what}")]
    Decode {
        /// What was being decoded.
        what: &'static str,
        /// The cause.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A measured stage did not succeed (so its time would mean nothing).
    #[error("stage {stage:?} did not succeed: {detail}")]
    Stage {
        /// The stage's name.
        stage: String,
        /// What went wrong.
        detail: String,
    },
    /// A worker pool could not be built.
    #[error("building a {threads}-thread pool")]
    Pool {
        /// Its size.
        threads: usize,
        /// The cause.
        #[source]
        source: rayon::ThreadPoolBuildError,
    },
}

fn decode_err<E: std::error::Error + Send + Sync + 'static>(
    what: &'static str,
) -> impl FnOnce(E) -> BenchError {
    move |e| BenchError::Decode {
        what,
        source: Box::new(e),
    }
}

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
}

impl BenchReport {
    /// The measurement called `name`.
    pub fn get(&self, name: &str) -> Option<&Measurement> {
        self.measurements.iter().find(|m| m.name == name)
    }
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

fn pool(threads: usize) -> Result<rayon::ThreadPool, BenchError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|source| BenchError::Pool { threads, source })
}

/// CPU time of the calling thread in ns (Linux `/proc/thread-self/schedstat`; exact to a scheduler tick),
/// `None` elsewhere.
fn thread_cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// A stage's best wall-clock time, and on a one-thread pool its best worker CPU time, in seconds; the most
/// memory one of its runs added (see [`Measurement::peak_rss_added_bytes`]).
#[derive(Debug, Clone, Copy)]
struct Timing {
    wall: f64,
    cpu: Option<f64>,
    rss: Option<u64>,
}

/// A `/proc/self/status` field in bytes (Linux).
fn status_bytes(key: &str) -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with(key))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Starts measuring the peak RSS of what runs next: frees what the allocator holds unused (so memory an earlier
/// stage freed is not silently reused and undercounted), resets the kernel's high-water mark (`5` to
/// `/proc/self/clear_refs`, Linux 4.0+) and returns the RSS now. `None` when the mark cannot be reset.
fn start_peak_rss() -> Option<u64> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free heap pages to the system; it has no other effect.
    unsafe {
        libc::malloc_trim(0);
    }
    std::fs::write("/proc/self/clear_refs", "5").ok()?;
    status_bytes("VmRSS:")
}

/// Best of `runs` timings of `f` in `pool`; every run must return `Ok`.
fn best(
    pool: &rayon::ThreadPool,
    runs: usize,
    stage: &str,
    f: impl Fn() -> Result<(), String> + Sync + Send,
) -> Result<Timing, BenchError> {
    let one_thread = pool.current_num_threads() == 1;
    let mut best = Timing {
        wall: f64::INFINITY,
        cpu: None,
        rss: None,
    };
    for _ in 0..runs.max(1) {
        let rss0 = start_peak_rss();
        let t = Instant::now();
        let cpu = pool
            .install(|| {
                let c0 = thread_cpu_ns();
                f().map(|()| c0.zip(thread_cpu_ns()).map(|(a, b)| (b - a) as f64 / 1e9))
            })
            .map_err(|detail| BenchError::Stage {
                stage: stage.to_string(),
                detail,
            })?;
        best.wall = best.wall.min(t.elapsed().as_secs_f64());
        if let Some(added) = rss0
            .zip(status_bytes("VmHWM:"))
            .map(|(a, b)| b.saturating_sub(a))
        {
            best.rss = Some(best.rss.map_or(added, |r| r.max(added)));
        }
        if let (true, Some(c)) = (one_thread, cpu) {
            best.cpu = Some(best.cpu.map_or(c, |b: f64| b.min(c)));
        }
    }
    Ok(best)
}

/// Stage names, shared by the measurements and the ratios computed from them.
mod names {
    pub const SNAPPY: &str = "floor: snappy decompression (all records)";
    pub const KECCAK: &str = "floor: keccak256 of the decompressed bytes";
    pub const RAW_LIBSECP: &str = "floor: raw libsecp256k1 recovery of every signature";
    pub const RAW_K256: &str = "floor: raw k256 recovery of every signature";
    pub const VERIFY: &str = "decode + verify, 1 thread";
    pub const EXPORT_NO_SENDERS: &str = "export without senders, 1 thread";
    pub const PRUNE_1: &str = "prune manifest, 1 thread";
    pub const PRUNE_2: &str = "prune manifest, 2 threads";
    pub const PRUNE_FLOOR: &str = "floor: prune's hashing with the transactions root";
    pub const PARQUET: &str = "floor: parquet encode of the same rows";
    pub const ERA_FLOOR: &str = "floor: sha256 of every block era verification hashes";
    pub const ERA_1: &str = "era verification (state root + blocks + payloads), 1 thread";
    pub const ERA_2: &str = "era verification (state root + blocks + payloads), 2 threads";
    pub const SET_LOCAL: &str = "export of 3 era1 files from local disk, 1 thread";
    pub const SET_HTTP: &str = "export of 3 era1 files from a loopback HTTP mirror, 1 thread";

    pub fn signer_alone(backend: &str) -> String {
        format!("signer alone, decode + recover ({backend}), 1 thread")
    }

    pub fn verify_senders(backend: &str) -> String {
        format!("decode + verify + senders ({backend}), 1 thread")
    }

    pub fn export_senders(backend: &str, threads: usize) -> String {
        let t = if threads == 1 { "thread" } else { "threads" };
        format!("export with senders ({backend}), {threads} {t}")
    }
}

/// Runs the benchmark in `dir`: synthesises (once) an era1 file of `opts.blocks` blocks and an era file of at
/// most 8192 of them, then measures every stage and floor `opts.runs` times, keeping the best.
pub fn run(dir: &Path, opts: &BenchOptions) -> Result<BenchReport, BenchError> {
    let net = Network::by_name("synthnet").map_err(decode_err("the synthnet preset"))?;
    let mut o = crate::synth::era1::SynthOptions::new(net.clone());
    o.blocks = opts.blocks;
    o.txs_per_block = opts.txs_per_block;
    let input = crate::synth::era1::write_once(&dir.join("archive"), &o)?.remove(0);
    let mut e = crate::synth::era::EraSynthOptions::new(net.clone());
    e.era = crate::synth::era::EraSynthOptions::era_of_fork(&net, Fork::Electra)?;
    e.blocks = opts.blocks.min(crate::formats::era::SLOTS_PER_ERA);
    e.txs_per_block = opts.txs_per_block;
    e.validators = opts.validators;
    let era_input = crate::synth::era::write_once(&dir.join("era-archive"), &e)?.remove(0);

    let size_of = |p: &Path| {
        std::fs::metadata(p)
            .map(|m| m.len())
            .map_err(|source| BenchError::Io {
                path: p.to_path_buf(),
                source,
            })
    };
    let era1 = BenchArchive {
        kind: "era1",
        path: input.clone(),
        blocks: opts.blocks,
        transactions: opts.blocks * u64::from(opts.txs_per_block),
        bytes: size_of(&input)?,
    };
    let era = BenchArchive {
        kind: "era",
        path: era_input.clone(),
        blocks: e.blocks,
        transactions: e.blocks * u64::from(e.txs_per_block),
        bytes: size_of(&era_input)?,
    };

    let bytes = std::fs::read(&input).map_err(|source| BenchError::Io {
        path: input.clone(),
        source,
    })?;
    let compressed: Vec<&[u8]> = E2StoreReader::new(&bytes)
        .filter_map(Result::ok)
        .filter(|r| {
            [
                RecordType::COMPRESSED_HEADER,
                RecordType::COMPRESSED_BODY,
                RecordType::COMPRESSED_RECEIPTS,
            ]
            .contains(&r.kind)
        })
        .map(|r| r.data)
        .collect();
    let mut dec = FramedDecoder::new();
    let decompressed: Vec<Vec<u8>> = compressed
        .iter()
        .map(|c| dec.decompress(c).map(<[u8]>::to_vec))
        .collect::<Result<_, _>>()
        .map_err(decode_err("snappy records"))?;
    let (sigs, encoded) = signatures(&input, &net)?;

    // One signer per backend for the whole bench (a libsecp256k1 context is built once, here), leaked to the
    // `&'static` workers borrow; the process signer stays untouched.
    let signers: Vec<(&'static str, &'static Signer)> =
        [SignerBackend::Libsecp256k1, SignerBackend::K256]
            .into_iter()
            .map(|b| {
                let s: &'static Signer =
                    Box::leak(Box::new(Signer::new(SignatureAlgorithm::Secp256k1, b)));
                (b.name(), s)
            })
            .collect();
    let (one, two) = (pool(1)?, pool(2)?);
    let runs = opts.runs;

    let load_average_start = loadavg();
    let mut out: Vec<Measurement> = Vec::new();
    let mut add = |name: &str, a: &BenchArchive, threads: usize, t: Timing| {
        let s = t.wall;
        out.push(Measurement {
            name: name.into(),
            archive: a.kind,
            threads,
            seconds: s,
            cpu_seconds: t.cpu,
            peak_rss_added_bytes: t.rss,
            blocks_per_second: a.blocks as f64 / s,
            transactions_per_second: a.transactions as f64 / s,
            archive_mb_per_second: a.bytes as f64 / 1e6 / s,
        })
    };

    add(
        names::SNAPPY,
        &era1,
        1,
        best(&one, runs, names::SNAPPY, || {
            let mut d = FramedDecoder::new();
            let mut n = 0usize;
            for c in &compressed {
                n += d.decompress(c).map_err(|e| e.to_string())?.len();
            }
            std::hint::black_box(n);
            Ok(())
        })?,
    );
    add(
        names::KECCAK,
        &era1,
        1,
        best(&one, runs, names::KECCAK, || {
            let x = decompressed
                .iter()
                .map(|d| keccak256(d)[0])
                .fold(0u8, |a, b| a ^ b);
            std::hint::black_box(x);
            Ok(())
        })?,
    );
    // Floors for senders: each library alone, from (hash, r, s, parity) to the address (keccak of the key).
    let ctx = secp256k1::Secp256k1::verification_only();
    add(
        names::RAW_LIBSECP,
        &era1,
        1,
        best(&one, runs, names::RAW_LIBSECP, || {
            use secp256k1::ecdsa::{RecoverableSignature, RecoveryId};
            let mut x = 0u8;
            for (h, r, s, y) in &sigs {
                let mut rs = [0u8; 64];
                rs[..32].copy_from_slice(r);
                rs[32..].copy_from_slice(s);
                let id = if *y {
                    RecoveryId::One
                } else {
                    RecoveryId::Zero
                };
                let sig = RecoverableSignature::from_compact(&rs, id).map_err(|e| e.to_string())?;
                let pk = ctx
                    .recover_ecdsa(secp256k1::Message::from_digest(*h), &sig)
                    .map_err(|e| e.to_string())?;
                x ^= keccak256(&pk.serialize_uncompressed()[1..])[12];
            }
            std::hint::black_box(x);
            Ok(())
        })?,
    );
    add(
        names::RAW_K256,
        &era1,
        1,
        best(&one, runs, names::RAW_K256, || {
            use k256::ecdsa::{RecoveryId, Signature, VerifyingKey};
            let mut x = 0u8;
            for (h, r, s, y) in &sigs {
                let sig = Signature::from_scalars(*r, *s).map_err(|e| e.to_string())?;
                let vk = VerifyingKey::recover_from_prehash(h, &sig, RecoveryId::new(*y, false))
                    .map_err(|e| e.to_string())?;
                x ^= keccak256(&vk.to_sec1_point(false).as_bytes()[1..])[12];
            }
            std::hint::black_box(x);
            Ok(())
        })?,
    );

    // The signer alone, in a tight loop: decode, signing hash, checks, recovery. Set beside the floor and the
    // pipeline, it tells the signer's own overhead from what interleaving with the rest of the pipeline costs.
    for (backend, signer) in &signers {
        let name = names::signer_alone(backend);
        let t = best(&one, runs, &name, || {
            let mut x = 0u8;
            for (e, homestead) in &encoded {
                let tx = crate::execution::transaction::TxView::decode_canonical(e)
                    .map_err(|e| e.to_string())?;
                x ^= signer
                    .recover_sender(&tx, *homestead)
                    .map_err(|e| e.to_string())?[0];
            }
            std::hint::black_box(x);
            Ok(())
        })?;
        add(&name, &era1, 1, t);
    }

    let verify = |signer: Option<&'static Signer>| {
        let opts = VerifyOptions {
            senders: signer.is_some(),
            signer,
            ..Default::default()
        };
        let p = input.clone();
        move || {
            let r = crate::verify::era1::verify_file(&p, &opts);
            match (r.ok, r.sender_errors) {
                (false, _) => Err(format!("{:?}", r.errors)),
                (true, Some(n)) if n > 0 => Err(format!("{n} sender errors")),
                _ => Ok(()),
            }
        }
    };
    add(
        names::VERIFY,
        &era1,
        1,
        best(&one, runs, names::VERIFY, verify(None))?,
    );
    for (backend, signer) in &signers {
        let name = names::verify_senders(backend);
        add(
            &name,
            &era1,
            1,
            best(&one, runs, &name, verify(Some(*signer)))?,
        );
    }

    let export_to = |signer: Option<&'static Signer>, name: &str| {
        let opts = ExportOptions {
            out: dir.join(name),
            datasets: datasets::ALL.to_vec(),
            senders: signer.is_some(),
            signer_backend: SignerBackend::default(),
            signer,
            network: None,
            overwrite: true,
            clean_stale: false,
            parquet: ParquetOptions::default(),
        };
        let input = input.clone();
        move || {
            let o = export(std::slice::from_ref(&input), &opts, &Progress::hidden())
                .map_err(|e| crate::error::render(&e))?;
            match o.first() {
                Some(o) if o.ok => Ok(()),
                Some(o) => Err(format!("{:?}", o.errors)),
                None => Err("no outcome".into()),
            }
        }
    };
    add(
        names::EXPORT_NO_SENDERS,
        &era1,
        1,
        best(
            &one,
            runs,
            names::EXPORT_NO_SENDERS,
            export_to(None, "out-nosend-1"),
        )?,
    );
    for (threads, p) in [(1, &one), (2, &two)] {
        for (backend, signer) in &signers {
            let name = names::export_senders(backend, threads);
            let to = format!("out-send-{backend}-{threads}");
            add(
                &name,
                &era1,
                threads,
                best(p, runs, &name, export_to(Some(*signer), &to))?,
            );
        }
    }
    // Remote input beside local files: the same files exported from a loopback HTTP mirror (fetched by the
    // prefetcher into a cache bounded at two files while the worker exports) and from the local folder. One
    // worker thread, so the mirror and the download have the other core: the mirror is not the bottleneck.
    let mut m = o.clone();
    m.files = MIRROR_FILES as u64;
    let mirror_dir = dir.join("mirror");
    let mirror_files = crate::synth::era1::write_once(&mirror_dir, &m)?;
    let mut mirror_bytes = Vec::with_capacity(mirror_files.len());
    // A checksums.txt beside the files, as public mirrors publish: each download is checked against it.
    let mut sums = String::new();
    for f in &mirror_files {
        mirror_bytes.push(size_of(f)?);
        let io = |source| BenchError::Io {
            path: f.clone(),
            source,
        };
        let sha = hex::encode(sha256::sha256(&std::fs::read(f).map_err(io)?));
        let name = f.file_name().map(|n| n.to_string_lossy().into_owned());
        sums.push_str(&format!("{sha}  {}\n", name.unwrap_or_default()));
    }
    let sums_path = mirror_dir.join("checksums.txt");
    std::fs::write(&sums_path, sums).map_err(|source| BenchError::Io {
        path: sums_path,
        source,
    })?;
    let set = BenchArchive {
        kind: "era1 x3",
        path: mirror_dir.clone(),
        blocks: m.blocks * mirror_files.len() as u64,
        transactions: m.blocks * u64::from(m.txs_per_block) * mirror_files.len() as u64,
        bytes: mirror_bytes.iter().sum(),
    };
    let cache = crate::store::cache::CacheOptions {
        dir: dir.join("cache"),
        max_bytes: 2 * mirror_bytes.iter().copied().max().unwrap_or(0),
        keep: false,
    };
    let server = mirror::Mirror::start(&mirror_dir).map_err(|source| BenchError::Io {
        path: mirror_dir.clone(),
        source,
    })?;
    let export_set = |inputs: Vec<String>, out: &str| {
        let opts = ExportOptions {
            out: dir.join(out),
            datasets: datasets::ALL.to_vec(),
            senders: false,
            signer_backend: SignerBackend::default(),
            signer: None,
            network: None,
            overwrite: true,
            clean_stale: false,
            parquet: ParquetOptions::default(),
        };
        let cache = &cache;
        move || {
            let o = crate::pipeline::stream::export_inputs(&inputs, &opts, cache)
                .map_err(|e| crate::error::render(&e))?;
            match o.iter().find(|o| !o.ok) {
                _ if o.len() != MIRROR_FILES => Err(format!("{} outcomes", o.len())),
                Some(bad) => Err(format!("{}: {:?}", bad.file, bad.errors)),
                None => Ok(()),
            }
        }
    };
    let local_inputs = mirror_files
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    add(
        names::SET_LOCAL,
        &set,
        1,
        best(
            &one,
            runs,
            names::SET_LOCAL,
            export_set(local_inputs, "out-set-local"),
        )?,
    );
    add(
        names::SET_HTTP,
        &set,
        1,
        best(
            &one,
            runs,
            names::SET_HTTP,
            export_set(vec![server.url()], "out-set-http"),
        )?,
    );
    drop(server);
    let remote_cache_max_bytes = cache.max_bytes;

    // Prune: verification on the light path (no receipts, no senders) and the manifest's lists.
    let prune_to = |name: &'static str| {
        let (input, out) = (input.clone(), dir.join(name));
        move || {
            crate::prune::run(
                std::slice::from_ref(&input),
                &out,
                &crate::prune::PruneOptions::default(),
            )
            .map(drop)
            .map_err(|e| crate::error::render(&e))
        }
    };
    // Its floor (issue 12, item 5): snappy of every header and body, keccak of every header and transaction, and
    // the transactions trie over them (each leaf holds a whole transaction: a second keccak pass), as the
    // light verification path computes them, and nothing else.
    add(
        names::PRUNE_FLOOR,
        &era1,
        1,
        best(&one, runs, names::PRUNE_FLOOR, || {
            prune_floor(&input).map(|x| {
                std::hint::black_box(x);
            })
        })?,
    );
    for (name, threads, p, out) in [
        (names::PRUNE_1, 1, &one, "prune-1"),
        (names::PRUNE_2, 2, &two, "prune-2"),
    ] {
        add(name, &era1, threads, best(p, runs, name, prune_to(out))?);
    }
    // Floor for the Parquet side: re-encoding the batches the export produced, with the same writer settings.
    let batches = read_batches(&dir.join("out-nosend-1"))?;
    add(
        names::PARQUET,
        &era1,
        1,
        best(&one, runs, names::PARQUET, || {
            for (ds, bs) in &batches {
                let Some(schema) = bs.first().map(|b| b.schema()) else {
                    continue;
                };
                let p = dir.join("encode-only").join(format!("{ds}.parquet"));
                let mut sink = crate::sink::parquet::ParquetSink::create(
                    &p,
                    schema,
                    &ParquetOptions::default(),
                )
                .map_err(|e| e.to_string())?;
                for b in bs {
                    sink.write(b).map_err(|e| e.to_string())?;
                }
                sink.commit().map_err(|e| e.to_string())?;
            }
            Ok(())
        })?,
    );

    // The era file: count the SHA-256 blocks its verification hashes (on the real path), then time that many
    // blocks through the batched hasher (the tighter floor) and the verification itself.
    let verify_era = || {
        let p = era_input.clone();
        move || {
            let r = crate::verify::era::verify_file(&p, &VerifyOptions::default());
            if r.ok {
                Ok(())
            } else {
                Err(format!("{:?}", r.errors))
            }
        }
    };
    sha256::set_hash_counting(true);
    let _ = sha256::take_hash_count();
    let counted = one.install(verify_era());
    let era_sha256_blocks = sha256::take_hash_count();
    sha256::set_hash_counting(false);
    counted.map_err(|detail| BenchError::Stage {
        stage: names::ERA_1.into(),
        detail,
    })?;
    const BATCH: usize = 4096;
    let blocks: Vec<u8> = (0..64 * BATCH).map(|i| (i * 131 % 251) as u8).collect();
    let reps = (era_sha256_blocks as usize).div_ceil(BATCH).max(1);
    let batch_seconds = best(&one, runs, names::ERA_FLOOR, || {
        let mut hashed = vec![0u8; 32 * BATCH];
        for _ in 0..reps {
            sha256::hash_blocks(std::hint::black_box(&blocks), &mut hashed);
        }
        std::hint::black_box(&hashed);
        Ok(())
    })?;
    let per_block = |s: f64| s / (reps * BATCH) as f64;
    let sha256_block_ns = per_block(batch_seconds.wall) * 1e9;
    add(
        names::ERA_FLOOR,
        &era,
        1,
        Timing {
            wall: era_sha256_blocks as f64 * per_block(batch_seconds.wall),
            cpu: batch_seconds
                .cpu
                .map(|c| era_sha256_blocks as f64 * per_block(c)),
            rss: batch_seconds.rss,
        },
    );
    add(
        names::ERA_1,
        &era,
        1,
        best(&one, runs, names::ERA_1, verify_era())?,
    );
    add(
        names::ERA_2,
        &era,
        2,
        best(&two, runs, names::ERA_2, verify_era())?,
    );
    let load_average_end = loadavg();

    let mut report = BenchReport {
        load_average_start,
        load_average_end,
        archives: vec![era1, era],
        measurements: out,
        ratios: Vec::new(),
        era_sha256_blocks,
        sha256_block_ns,
        remote_cache_max_bytes,
    };
    report.ratios = ratios(&report);
    Ok(report)
}

/// Seconds of a stage by name (wall-clock or CPU time), `None` when it was not measured.
type Seconds<'a> = &'a dyn Fn(&str) -> Option<f64>;

/// The ratios the goals are stated in, from one run's measurements.
fn ratios(r: &BenchReport) -> Vec<Ratio> {
    let mut out = Vec::new();
    // `f` computes the ratio from a lookup of seconds by stage name; it runs once on wall times and once on
    // CPU times (which only one-thread stages have).
    let mut push = |name: String,
                    formula: String,
                    goal: Option<f64>,
                    f: &dyn Fn(Seconds<'_>) -> Option<f64>| {
        let wall = |n: &str| r.get(n).map(|m| m.seconds);
        let cpu = |n: &str| r.get(n).and_then(|m| m.cpu_seconds);
        if let Some(value) = f(&wall) {
            out.push(Ratio {
                name,
                formula,
                value,
                cpu_value: f(&cpu),
                goal,
            });
        }
    };
    let lib = SignerBackend::Libsecp256k1.name();
    let k = SignerBackend::K256.name();
    // Senders inside the pipeline: what recovery adds to verification, against the raw library doing only that.
    for (backend, floor, goal) in [
        (lib, names::RAW_LIBSECP, Some(0.95)),
        (k, names::RAW_K256, None),
    ] {
        let with = names::verify_senders(backend);
        push(
            format!("senders inside the pipeline ({backend}), per core, ÷ raw {backend}"),
            format!("[{floor}] / ([{with}] - [{}])", names::VERIFY),
            goal,
            &|s| Some(s(floor)? / (s(&with)? - s(names::VERIFY)?)),
        );
    }
    // The signer in a tight loop (its own overhead: decoding, signing hash, checks).
    for (backend, floor) in [(lib, names::RAW_LIBSECP), (k, names::RAW_K256)] {
        let alone = names::signer_alone(backend);
        push(
            format!("signer alone ({backend}) ÷ raw {backend}"),
            format!("[{floor}] / [{alone}]"),
            None,
            &|s| Some(s(floor)? / s(&alone)?),
        );
    }
    // The same inside export, where more work (Arrow columns, Parquet) runs between recoveries.
    for (backend, floor) in [(lib, names::RAW_LIBSECP), (k, names::RAW_K256)] {
        let with = names::export_senders(backend, 1);
        push(
            format!("senders inside export ({backend}), per core, ÷ raw {backend}"),
            format!("[{floor}] / ([{with}] - [{}])", names::EXPORT_NO_SENDERS),
            None,
            &|s| Some(s(floor)? / (s(&with)? - s(names::EXPORT_NO_SENDERS)?)),
        );
    }
    push(
        "remote input (loopback HTTP mirror, prefetched, bounded cache) ÷ local files".into(),
        format!("[{}] / [{}]", names::SET_LOCAL, names::SET_HTTP),
        Some(0.9),
        &|s| Some(s(names::SET_LOCAL)? / s(names::SET_HTTP)?),
    );
    push(
        "raw libsecp256k1 recovery speed-up over raw k256".into(),
        format!("[{}] / [{}]", names::RAW_K256, names::RAW_LIBSECP),
        None,
        &|s| Some(s(names::RAW_K256)? / s(names::RAW_LIBSECP)?),
    );
    for threads in [1, 2] {
        let (a, b) = (
            names::export_senders(k, threads),
            names::export_senders(lib, threads),
        );
        let t = if threads == 1 { "thread" } else { "threads" };
        push(
            format!("export with senders, libsecp256k1 speed-up over k256, {threads} {t}"),
            format!("[{a}] / [{b}]"),
            Some(1.7),
            &|s| Some(s(&a)? / s(&b)?),
        );
    }
    for backend in [lib, k] {
        let (a, b) = (
            names::export_senders(backend, 1),
            names::export_senders(backend, 2),
        );
        push(
            format!("export with senders ({backend}), 2 threads speed-up over 1"),
            format!("[{a}] / [{b}]"),
            (backend == lib).then_some(1.85),
            &|s| Some(s(&a)? / s(&b)?),
        );
    }
    push(
        "prune, 1 thread, ÷ its floor with the transactions root (fraction of the floor's speed)"
            .into(),
        format!("[{}] / [{}]", names::PRUNE_FLOOR, names::PRUNE_1),
        Some(0.8),
        &|s| Some(s(names::PRUNE_FLOOR)? / s(names::PRUNE_1)?),
    );
    push(
        "prune, 2 threads speed-up over 1 (one file)".into(),
        format!("[{}] / [{}]", names::PRUNE_1, names::PRUNE_2),
        None,
        &|s| Some(s(names::PRUNE_1)? / s(names::PRUNE_2)?),
    );
    push(
        "era verification, 1 thread, ÷ its sha256 floor (fraction of the floor's speed)".into(),
        format!("[{}] / [{}]", names::ERA_FLOOR, names::ERA_1),
        None,
        &|s| Some(s(names::ERA_FLOOR)? / s(names::ERA_1)?),
    );
    push(
        "era verification, 2 threads speed-up over 1".into(),
        format!("[{}] / [{}]", names::ERA_1, names::ERA_2),
        None,
        &|s| Some(s(names::ERA_1)? / s(names::ERA_2)?),
    );
    out
}

/// Prune's floor with the transactions root: for every block, decompress the header and the body (reused
/// decoders), then hash the header, every transaction and every node of the transactions trie in one batch
/// (`ordered_root_and_hashes`, as the light verification path does). Returns a checksum so nothing is optimised
/// away.
fn prune_floor(path: &Path) -> Result<u64, String> {
    use crate::execution::body::BodyView;
    use crate::formats::era1::{self, BlockDecoders, Era1File};
    let file = Era1File::open(path).map_err(|e| e.to_string())?;
    let mut dec = BlockDecoders::default();
    let (mut acc, mut hashes) = (0u64, Vec::new());
    for i in 0..file.block_count() {
        let t = file.block(i).map_err(|e| e.to_string())?;
        let h = era1::decompress(&mut dec.header, &t.header, path, t.number)
            .map_err(|e| e.to_string())?;
        let b =
            era1::decompress(&mut dec.body, &t.body, path, t.number).map_err(|e| e.to_string())?;
        let body = BodyView::decode(b).map_err(|e| e.to_string())?;
        let items = body
            .transaction_encodings()
            .collect::<Result<Vec<&[u8]>, _>>()
            .map_err(|e| e.to_string())?;
        let root = crate::execution::trie::ordered_root_and_hashes(&items, &[h], &mut hashes);
        acc = acc.wrapping_add(u64::from(root.0[0]));
        for o in &hashes {
            acc = acc.wrapping_add(u64::from(o[0]));
        }
    }
    Ok(acc)
}

/// A signature to recover: (signing hash, r, s, y parity).
type Sig = ([u8; 32], [u8; 32], [u8; 32], bool);

/// A transaction's canonical encoding and whether its block is at or after Homestead.
type Encoded = (Vec<u8>, bool);

/// The signature of every transaction in the file, and its canonical encoding.
fn signatures(input: &Path, net: &Network) -> Result<(Vec<Sig>, Vec<Encoded>), BenchError> {
    use crate::execution::body::BodyView;
    use crate::execution::transaction::TxView;
    let f = crate::formats::era1::Era1File::open(input).map_err(decode_err("era1 file"))?;
    let mut dec = FramedDecoder::new();
    let pad = |b: &[u8]| {
        let mut o = [0u8; 32];
        o[32 - b.len().min(32)..].copy_from_slice(&b[b.len().saturating_sub(32)..]);
        o
    };
    let mut out = Vec::new();
    let mut encoded = Vec::new();
    for i in 0..f.block_count() {
        let t = f.block(i).map_err(decode_err("era1 block"))?;
        let homestead = net.is_homestead(t.number);
        let raw = dec
            .decompress(t.body.data)
            .map_err(decode_err("era1 body"))?;
        let body = BodyView::decode(raw).map_err(decode_err("era1 body"))?;
        for item in body.transactions() {
            let item = item.map_err(decode_err("body item"))?;
            let tx = TxView::decode(item.raw).map_err(decode_err("transaction"))?;
            out.push((
                tx.signing_hash().0,
                pad(tx.r()),
                pad(tx.s()),
                tx.y_parity().unwrap_or(false),
            ));
            encoded.push((tx.canonical().to_vec(), homestead));
        }
    }
    Ok((out, encoded))
}

/// The batches of every dataset an era1 export writes (era-only datasets such as `withdrawals` get no file
/// from an era1 source), by dataset name.
fn read_batches(
    out: &Path,
) -> Result<Vec<(String, Vec<arrow::record_batch::RecordBatch>)>, BenchError> {
    let mut all = Vec::new();
    for d in datasets::ALL
        .iter()
        .filter(|d| d.sources().contains(&ArchiveKind::Era1))
    {
        let mut bs = Vec::new();
        // Files sit in `network=<name>` partition folders; a dataset with no rows has no folder at all.
        let mut files = Vec::new();
        let mut dirs = vec![out.join(d.name())];
        while let Some(dir) = dirs.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for e in entries.flatten() {
                match e.file_type() {
                    Ok(t) if t.is_dir() => dirs.push(e.path()),
                    _ => files.push(e.path()),
                }
            }
        }
        files.sort();
        for path in files {
            let f = std::fs::File::open(&path).map_err(|source| BenchError::Io {
                path: path.clone(),
                source,
            })?;
            let r = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(f)
                .and_then(|b| b.build())
                .map_err(decode_err("exported parquet"))?;
            for b in r {
                bs.push(b.map_err(decode_err("exported parquet"))?);
            }
        }
        all.push((d.name().to_string(), bs));
    }
    Ok(all)
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
        let (a, b) = if m.archive == "era1" {
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
    println!(
        "era verification hashes {} sha256 blocks; {:.1} ns each in a batch (this run)",
        r.era_sha256_blocks, r.sha256_block_ns
    );
    println!(
        "remote input: the same {MIRROR_FILES} files from an in-process loopback HTTP mirror (no Python), fetched ahead of the worker into a cache bounded at {:.1} MB (two files; --cache-max-bytes)",
        r.remote_cache_max_bytes as f64 / 1e6
    );
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
    if let Some(rss) = crate::pipeline::report::peak_rss_bytes() {
        println!(
            "peak RSS of this process: {:.1} MiB",
            rss as f64 / (1 << 20) as f64
        );
    }
}
