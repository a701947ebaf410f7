//! Prune-manifest throughput beside its floor, in one run (issue 5), single thread ("per core"):
//! - floor: for every block of a synthetic era1 file, snappy-decompress the header and body records (reused
//!   decoders) and keccak256 the header and the transaction bytes (each canonical encoding, found by walking
//!   the body RLP), one message at a time;
//! - eraflow: `prune::run` over the same file on a one-thread rayon pool: full verification without receipts
//!   (block hashes, header chain, transactions root, ommers, accumulator) plus every output written
//!   (block_hashes.bin, tx_hashes.bin via the external sort, tx_locations.parquet, ranges.json, manifest.json,
//!   all fsync'd), goal >= 0.8 of the floor. Besides the verification thread, `prune::run` uses a helper thread
//!   for the file's sha256 and one for writing the lists; the process CPU time per run is printed too, so the
//!   per-core cost is known as well as the wall time;
//! - `prune::run` on two threads (the machine's two cores), for the mainnet projection;
//! - the floor plus the transactions root (`floor_with_tx_root`): the floor's work and the trie's leaf and
//!   branch hashes, i.e. the least a verification that checks the transactions root must hash;
//! - verification alone as prune runs it (`verify_light`: no receipts, no sha256, the light transaction path);
//! - the same on a file without transactions, to split the cost into per-block and per-transaction parts
//!   for the mainnet projection in docs/prune.md.
//!
//! Each `prune::run` writes into a fresh output directory (the previous one is removed outside the timing), as
//! a real run does; replacing an earlier manifest would add the unlinking of its files.
//!
//! Run: `CARGO_TARGET_DIR=target cargo bench --features bench --bench prune`

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use eraflow::crypto::keccak::keccak256;
use eraflow::execution::body::BodyView;
use eraflow::execution::trie::ordered_root_and_hashes;
use eraflow::formats::era1::Era1File;
use eraflow::formats::execution::{decompress, BlockDecoders};
use eraflow::formats::MappedArchive;
use eraflow::network::Network;
use eraflow::prune::{run, PruneOptions};
use eraflow::synth::era1::{write, SynthOptions};
use eraflow::verify::{file_with, BlockHashes, VerifiedBlock, VerifyOptions, Visitor};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A visitor that asks for the light transaction path, as prune's does, and keeps nothing.
struct Light;

impl Visitor for Light {
    type Chunk = ();
    fn start_chunk(&self, _: u64) {}
    fn block(&self, _: &mut (), _: &VerifiedBlock<'_>) {}
    fn needs_decoded_transactions(&self) -> bool {
        false
    }
    fn block_hashed(&self, _: &mut (), _: &VerifiedBlock<'_>, h: &BlockHashes<'_>) {
        black_box(h.block);
    }
}

/// CPU time (user + system) of the whole process so far, in clock ticks of /proc (usually 10 ms): covers the
/// helper threads too. `None` where /proc is unavailable.
fn cpu_ticks() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which is in parentheses and may hold spaces); utime and stime are the
    // 14th and 15th fields of the line.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
}

/// Wall and process CPU milliseconds per call of `f`, over `n` calls (`setup` runs before each, untimed but
/// inside the CPU window, so keep it cheap).
fn wall_and_cpu(n: u32, mut setup: impl FnMut(), mut f: impl FnMut()) -> (f64, Option<f64>) {
    let (mut wall, mut cpu) = (Duration::ZERO, 0u64);
    for _ in 0..n {
        setup();
        let (t0, c0) = (Instant::now(), cpu_ticks());
        f();
        wall += t0.elapsed();
        cpu += cpu_ticks().unwrap_or(0).saturating_sub(c0.unwrap_or(0));
    }
    let per = wall.as_secs_f64() * 1e3 / f64::from(n);
    // Clock ticks are 10 ms on Linux (USER_HZ = 100).
    let cpu_ms = cpu_ticks().map(|_| cpu as f64 * 10.0 / f64::from(n));
    (per, cpu_ms)
}

/// Blocks per synthetic file (a full era, crossing synthnet's Byzantium and London forks).
const BLOCKS: u64 = 8192;

fn synth(dir: &Path, txs: u32) -> PathBuf {
    let mut o = SynthOptions::new(Network::by_name("synthnet").expect("preset"));
    o.blocks = BLOCKS;
    o.txs_per_block = txs;
    o.seed = 5;
    write(&dir.join(format!("txs{txs}")), &o).expect("synth")[0].clone()
}

/// The floor: decompress header + body, keccak the header and every transaction's bytes. Returns a checksum
/// so nothing is optimised away.
fn floor(path: &Path) -> u64 {
    let file = Era1File::open(path).expect("open");
    let mut dec = BlockDecoders::default();
    let mut acc = 0u64;
    for i in 0..file.block_count() {
        let t = file.block(i).expect("block");
        let h = decompress(&mut dec.header, &t.header, path, t.number).expect("header");
        acc ^= keccak256(h).0[0] as u64;
        let b = decompress(&mut dec.body, &t.body, path, t.number).expect("body");
        let body = BodyView::decode(b).expect("body rlp");
        for tx in body.transaction_encodings() {
            acc = acc.wrapping_add(keccak256(tx.expect("tx")).0[0] as u64);
        }
    }
    acc
}

/// The floor plus the transactions root: decompress header and body, then hash the header, every transaction
/// and every leaf and branch of the transactions trie (`ordered_root_and_hashes`, as the light verification
/// does). Not a target: it shows how much of the gap to the floor is the root check itself, which needs a
/// second keccak pass over every transaction's bytes (each trie leaf holds the whole transaction).
fn floor_with_tx_root(path: &Path) -> u64 {
    let file = Era1File::open(path).expect("open");
    let mut dec = BlockDecoders::default();
    let mut acc = 0u64;
    let mut hashes = Vec::new();
    for i in 0..file.block_count() {
        let t = file.block(i).expect("block");
        let h = decompress(&mut dec.header, &t.header, path, t.number).expect("header");
        let b = decompress(&mut dec.body, &t.body, path, t.number).expect("body");
        let body = BodyView::decode(b).expect("body rlp");
        let items: Vec<&[u8]> = body
            .transaction_encodings()
            .map(|tx| tx.expect("tx"))
            .collect();
        let root = ordered_root_and_hashes(&items, &[h], &mut hashes);
        acc = acc.wrapping_add(root.0[0] as u64);
        for o in &hashes {
            acc = acc.wrapping_add(o[0] as u64);
        }
    }
    acc
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    let pool2 = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("pool");
    for txs in [8u32, 0] {
        let path = synth(dir.path(), txs);
        let size = std::fs::metadata(&path).expect("size").len();
        let n_tx = BLOCKS * u64::from(txs);
        eprintln!(
            "prune bench file: {} blocks, {} txs, {} bytes ({:.1} bytes/tx incl. block overhead)",
            BLOCKS,
            n_tx,
            size,
            size as f64 / n_tx.max(1) as f64
        );
        let out = dir.path().join(format!("out{txs}"));
        let fresh = || {
            let _ = std::fs::remove_dir_all(&out);
        };
        let prune_once = || {
            black_box(
                run(std::slice::from_ref(&path), &out, &PruneOptions::default()).expect("prune"),
            );
        };
        let mut g = c.benchmark_group(format!("prune_{txs}tx_per_block"));
        g.sample_size(10);
        g.measurement_time(Duration::from_secs(8));
        g.throughput(Throughput::Bytes(size));
        g.bench_function("floor_decompress_keccak_mb", |b| {
            b.iter(|| pool.install(|| black_box(floor(&path))))
        });
        if txs > 0 {
            g.bench_function("floor_with_tx_root_mb", |b| {
                b.iter(|| pool.install(|| black_box(floor_with_tx_root(&path))))
            });
        }
        // Verification alone as prune runs it (no receipts, no signer, light transaction path; the file's
        // sha256 runs on a helper thread in prune and is left out here): what of the manifest's cost is the
        // verification the issue demands and what is writing the lists.
        let vopts = VerifyOptions {
            checksum: false,
            skip_receipts: true,
            senders: false,
            network: None,
            signer: None,
            trusted_states: None,
            historical_summaries: None,
            accumulator: None,
        };
        g.bench_function("verify_light_mb", |b| {
            b.iter(|| pool.install(|| black_box(file_with(&path, &vopts, &Light, |_| {}).ok)))
        });
        g.bench_function("manifest_mb", |b| {
            b.iter_batched(fresh, |_| pool.install(prune_once), BatchSize::PerIteration)
        });
        // Both cores (shared with other work on this machine: a pessimistic figure for the projection).
        g.bench_function("manifest_2_threads_mb", |b| {
            b.iter_batched(
                fresh,
                |_| pool2.install(prune_once),
                BatchSize::PerIteration,
            )
        });
        g.finish();
        // Process CPU time beside wall time (criterion reports wall only): the per-core cost when the helper
        // threads have no free core, for the projection.
        let (fw, fc) = wall_and_cpu(
            10,
            || {},
            || {
                pool.install(|| black_box(floor(&path)));
            },
        );
        let (mw, mc) = wall_and_cpu(10, fresh, || pool.install(prune_once));
        let show = |c: Option<f64>| c.map_or("n/a".to_string(), |c| format!("{c:.1} ms"));
        eprintln!(
            "prune_{txs}tx_per_block cpu: floor wall {fw:.1} ms cpu {}; manifest (1 thread) wall {mw:.1} ms cpu {}; \
             ratio wall {:.2}, cpu {}",
            show(fc),
            show(mc),
            fw / mw,
            match (fc, mc) {
                (Some(f), Some(m)) if m > 0.0 => format!("{:.2}", f / m),
                _ => "n/a".into(),
            }
        );
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
