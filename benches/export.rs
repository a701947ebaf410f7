//! Export throughput beside its floors, same run: decode + verify only, and Parquet encoding of the same rows.
//! `eraflow bench` prints the same comparison as ratios; this gives criterion's statistics.
//!
//! Run: `cargo bench --features bench --bench export`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use eraflow::crypto::signer::{self, SignatureAlgorithm};
use eraflow::datasets;
use eraflow::export::progress::Progress;
use eraflow::export::{export, ExportOptions};
use eraflow::network::Network;
use eraflow::sink::parquet::ParquetOptions;
use eraflow::verify::{file as verify_file, VerifyOptions};
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

criterion_group!(benches, bench);
criterion_main!(benches);
