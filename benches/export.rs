//! Export throughput beside its floors, same run: decode + verify only, and Parquet encoding of the same rows.
//! `eraflow bench` prints the same comparison as ratios; this gives criterion's statistics.
//!
//! Run: `cargo bench --features bench --bench export` (`-- export_decoded_events` for the user-event ratio alone).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use eraflow::crypto::signer::{self, SignatureAlgorithm};
use eraflow::datasets;
use eraflow::export::progress::Progress;
use eraflow::export::{export, ExportOptions};
use eraflow::network::Network;
use eraflow::sink::parquet::ParquetOptions;
use eraflow::verify::{file as verify_file, file_with as verify_file_with, VerifyOptions};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let mut o = eraflow::synth::era1::SynthOptions::new(Network::by_name("synthnet").unwrap());
    o.blocks = 1024;
    o.txs_per_block = 4;
    let input = eraflow::synth::era1::write(&dir.path().join("in"), &o)
        .unwrap()
        .remove(0);
    let size = std::fs::metadata(&input).unwrap().len();
    signer::init(SignatureAlgorithm::Secp256k1).unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let run = |senders: bool, out: &str| {
        let opts = ExportOptions {
            senders,
            overwrite: true,
            ..ExportOptions::new(dir.path().join(out), datasets::all_with_senders(senders))
        };
        pool.install(|| {
            export(std::slice::from_ref(&input), &opts, &Progress::hidden()).unwrap()[0].ok
        })
    };
    let mut g = c.benchmark_group("export_1_thread");
    g.throughput(Throughput::Bytes(size));
    g.sample_size(10);
    g.bench_function("floor_decode_verify_only", |b| {
        b.iter(|| pool.install(|| black_box(verify_file(&input, &VerifyOptions::default()).ok)))
    });
    g.bench_function("export_without_senders", |b| {
        b.iter(|| black_box(run(false, "a")))
    });
    g.bench_function("export_with_senders", |b| {
        b.iter(|| black_box(run(true, "b")))
    });
    // Floor for the Parquet side: re-encode the rows the export wrote (written here once more, so a filtered run
    // that skipped the export above has them too; `contracts` needs senders and is not among them).
    run(false, "a");
    let mut batches = Vec::new();
    for d in datasets::all_with_senders(false) {
        for path in files_under(&dir.path().join("a").join(d.name())) {
            let f = std::fs::File::open(path).unwrap();
            let r = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(f)
                .unwrap()
                .build()
                .unwrap();
            batches.push((d.schema(), r.map(|b| b.unwrap()).collect::<Vec<_>>()));
        }
    }
    g.bench_function("floor_parquet_encode_only", |b| {
        b.iter(|| {
            for (i, (schema, bs)) in batches.iter().enumerate() {
                let p = dir.path().join("enc").join(format!("{i}.parquet"));
                let mut s = eraflow::sink::parquet::ParquetSink::create(
                    &p,
                    schema.clone(),
                    &ParquetOptions::default(),
                )
                .unwrap();
                for batch in bs {
                    s.write(batch).unwrap();
                }
                black_box(s.commit().unwrap());
            }
        })
    });
    g.finish();

    // The token datasets' cost on a log-heavy archive (every successful receipt holds 1-5 token events or
    // look-alikes): the same export, senders off, without and with them. The bound: at most 10% more.
    let mut t = o.clone();
    (t.tokens, t.txs_per_block) = (true, 8);
    let tokens_input = eraflow::synth::era1::write(&dir.path().join("tokens-in"), &t)
        .unwrap()
        .remove(0);
    let logs = ["blocks", "transactions", "logs"];
    let tokens = [
        "erc20_transfers",
        "erc721_transfers",
        "erc1155_transfers",
        "erc20_approvals",
        "approvals_for_all",
    ];
    let export_of = |names: Vec<&str>, out: &str| {
        let opts = ExportOptions {
            overwrite: true,
            ..ExportOptions::new(dir.path().join(out), datasets::by_names(&names).unwrap())
        };
        let (input, pool) = (tokens_input.clone(), &pool);
        move || {
            pool.install(|| {
                export(std::slice::from_ref(&input), &opts, &Progress::hidden()).unwrap()[0].ok
            })
        }
    };
    let without = export_of(logs.to_vec(), "t0");
    let with = export_of([&logs[..], &tokens[..]].concat(), "t1");
    let mut g = c.benchmark_group("export_token_datasets_1_thread");
    g.throughput(Throughput::Bytes(
        std::fs::metadata(&tokens_input).unwrap().len(),
    ));
    g.sample_size(10);
    g.bench_function("blocks_transactions_logs", |b| {
        b.iter(|| black_box(without()))
    });
    g.bench_function("plus_token_datasets", |b| b.iter(|| black_box(with())));
    g.finish();
}

/// Every file below `dir` (its `network=` partitions), sorted; none when there is no `dir` (a dataset without
/// rows in this archive writes no file).
fn files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        match e.file_type().unwrap().is_dir() {
            true => out.extend(files_under(&e.path())),
            false => out.push(e.path()),
        }
    }
    out.sort();
    out
}

/// Ten user events (`--decode`: the token events as user ABIs, one limited to a contract, three the archive
/// does not hold) against the `logs` dataset on the same log-heavy archive. The bound: decoding the ten
/// keeps at least 0.8 of `logs`' rows/s, i.e. logs go through the ten decoders at 0.8 of the rate `logs`
/// writes them. Criterion times the exports; the ratio is printed from the builders alone (timed inside the
/// verification visitor: verification is the same for both), then end to end, interleaved in this run.
fn decoded_events(c: &mut Criterion) {
    use eraflow::datasets::{decoded, Dataset, DatasetBuilder, ExportContext};
    use eraflow::verify::{VerifiedBlock, Visitor};
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::Instant;
    const SPECS: [&str; 10] = [
        "Transfer(address indexed from, address indexed to, uint256 value)",
        "nft=Transfer(address indexed from, address indexed to, uint256 indexed tokenId)",
        "one=Transfer(address indexed from, address indexed to, uint256 value)@0xe100000000000000000000000000000000000001",
        "Approval(address indexed owner, address indexed spender, uint256 value)",
        "ApprovalForAll(address indexed owner, address indexed operator, bool approved)",
        "TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)",
        "TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)",
        "Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to)",
        "Sync(uint112 reserve0, uint112 reserve1)",
        "Deposit(address indexed dst, uint256 wad)",
    ];
    let specs: Vec<String> = SPECS.iter().map(|s| s.to_string()).collect();
    let events = decoded::from_specs(&specs).unwrap();
    let logs = datasets::by_names(&["logs"]).unwrap();
    // The token group's archive: every successful receipt holds 1-5 token events or look-alikes.
    let dir = tempfile::tempdir().unwrap();
    let mut o = eraflow::synth::era1::SynthOptions::new(Network::by_name("synthnet").unwrap());
    (o.blocks, o.txs_per_block, o.tokens) = (1024, 8, true);
    let input = &eraflow::synth::era1::write(&dir.path().join("in"), &o)
        .unwrap()
        .remove(0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();

    /// Builds the datasets' batches of every verified block (no Parquet), keeping their row counts.
    /// Builds the datasets' batches of every verified block (no Parquet), timing the builders alone (their
    /// blocks and their batches' finish) in nanoseconds.
    struct Build(Vec<&'static dyn Dataset>, AtomicU64);
    impl Visitor for Build {
        type Chunk = Vec<Box<dyn DatasetBuilder>>;
        fn start_chunk(&self, _: u64) -> Self::Chunk {
            let ctx = ExportContext {
                chain_id: 1,
                signer: None,
            };
            self.0.iter().map(|d| d.builder(ctx)).collect()
        }
        fn block(&self, chunk: &mut Self::Chunk, block: &VerifiedBlock<'_>) {
            let start = Instant::now();
            for b in chunk {
                b.add_block(block);
            }
            self.1
                .fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
        }
    }
    // (builder seconds, rows)
    let build = |ds: &[&'static dyn Dataset]| {
        let v = Build(ds.to_vec(), AtomicU64::new(0));
        let mut rows = 0usize;
        let r = pool.install(|| {
            verify_file_with(input, &VerifyOptions::default(), &v, |chunk| {
                let start = Instant::now();
                rows += chunk
                    .into_iter()
                    .map(|b| b.finish().num_rows())
                    .sum::<usize>();
                v.1.fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
            })
        });
        assert!(r.errors.is_empty(), "{:?}", r.errors);
        (v.1.load(Ordering::Relaxed) as f64 / 1e9, rows)
    };
    let export_of = |ds: &[&'static dyn Dataset], out: &str| {
        let opts = ExportOptions {
            overwrite: true,
            ..ExportOptions::new(dir.path().join(out), ds.to_vec())
        };
        let start = Instant::now();
        let ok = pool.install(|| {
            export(
                std::slice::from_ref(&input.to_path_buf()),
                &opts,
                &Progress::hidden(),
            )
        });
        assert!(ok.unwrap()[0].ok);
        start.elapsed().as_secs_f64()
    };

    let mut g = c.benchmark_group("export_decoded_events_1_thread");
    g.throughput(Throughput::Bytes(std::fs::metadata(input).unwrap().len()));
    g.sample_size(10);
    g.bench_function("logs", |b| b.iter(|| black_box(export_of(&logs, "l"))));
    g.bench_function("ten_decoded_events", |b| {
        b.iter(|| black_box(export_of(&events, "d")))
    });
    g.finish();

    // Interleaved, the fastest of five of each (the least disturbed by the machine's other work).
    let (mut t_logs, mut t_dec, mut e_logs, mut e_dec) = (f64::MAX, f64::MAX, f64::MAX, f64::MAX);
    let (mut n_logs, mut n_dec) = (0, 0);
    for _ in 0..5 {
        let (t, n) = build(&logs);
        (t_logs, n_logs) = (t_logs.min(t), n);
        let (t, n) = build(&events);
        (t_dec, n_dec) = (t_dec.min(t), n);
        e_logs = e_logs.min(export_of(&logs, "l"));
        e_dec = e_dec.min(export_of(&events, "d"));
    }
    let rate = |t: f64| n_logs as f64 / t.max(1e-9);
    eprintln!(
        "decoded events vs logs (1 thread, {n_logs} logs, {n_dec} rows of the 10 events):\n  \
         builders alone: logs {:.0} rows/s, 10 events {:.0} logs/s ({:.0} rows/s), ratio {:.2} (bound: >= 0.8)\n  \
         export end to end (verification and one Parquet file per dataset included): logs {e_logs:.3}s, \
         10 events {e_dec:.3}s, ratio {:.2}",
        rate(t_logs),
        rate(t_dec),
        n_dec as f64 / t_dec.max(1e-9),
        t_logs / t_dec,
        e_logs / e_dec,
    );
}

criterion_group!(benches, bench, decoded_events);
criterion_main!(benches);
