//! era1 decode + verify throughput beside its floors, all measured in the same run:
//! - accumulator hash_tree_root of 8192 records vs the raw `compress256` calls it needs;
//! - full verification of a synthetic era (8192 blocks, 4 txs each) on one thread vs snappy decompression of the
//!   same records (ours, and the `snap` crate's FrameDecoder as the peer) and keccak256 of the same bytes.
//!
//! Run: `cargo bench --features bench --bench era1`. Throughputs are per byte of archive file, so ratios read directly.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use eraflow::execution::accumulator::HeaderRecords;
use eraflow::formats::e2store::{E2StoreReader, RecordType};
use eraflow::formats::snappy::FramedDecoder;
use eraflow::network::Network;
use eraflow::verify::{file as verify_file, VerifyOptions};
use std::hint::black_box;
use std::io::Read;

fn one_thread<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(f)
}

fn accumulator(c: &mut Criterion) {
    let mut records = HeaderRecords::with_capacity(8192);
    for i in 0..8192u32 {
        let mut h = [0u8; 32];
        h[..4].copy_from_slice(&i.to_le_bytes());
        records.push(&h, &[7u8; 32]);
    }
    // Compressions an 8192-record accumulator needs: (8192 leaves + 8191 inner nodes + 1 length mix-in) hashes
    // of one 64-byte block, each two compress256 calls (message block + constant padding block).
    let compressions = 2 * (8192 + 8191 + 1);
    let blocks = vec![[0x5au8; 64]; compressions];
    let mut g = c.benchmark_group("accumulator");
    g.throughput(Throughput::Elements(8192));
    g.bench_function("eraflow_root_8192_records", |b| {
        b.iter(|| black_box(records.root()))
    });
    g.bench_function("floor_raw_compress256_same_count", |b| {
        b.iter(|| {
            let mut state = [0u32; 8];
            for blk in &blocks {
                sha2::block_api::compress256(&mut state, std::slice::from_ref(blk));
            }
            black_box(state)
        })
    });
    g.finish();
}

fn decode_verify(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let mut opts = eraflow::synth::era1::SynthOptions::new(Network::by_name("synthnet").unwrap());
    opts.txs_per_block = 4;
    let path = eraflow::synth::era1::write(dir.path(), &opts)
        .unwrap()
        .remove(0);
    let bytes = std::fs::read(&path).unwrap();
    let compressed: Vec<&[u8]> = E2StoreReader::new(&bytes)
        .map(|r| r.unwrap())
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
        .map(|c| dec.decompress(c).unwrap().to_vec())
        .collect();

    let mut g = c.benchmark_group("era1_decode_verify");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.sample_size(10);
    g.bench_function("eraflow_verify_1_thread", |b| {
        b.iter(|| one_thread(|| black_box(verify_file(&path, &VerifyOptions::default()).ok)))
    });
    g.bench_function("floor_snappy_eraflow_decoder", |b| {
        b.iter(|| {
            let mut n = 0;
            for c in &compressed {
                n += dec.decompress(c).unwrap().len();
            }
            black_box(n)
        })
    });
    g.bench_function("peer_snappy_snap_framedecoder_per_record", |b| {
        let mut out = Vec::new();
        b.iter(|| {
            let mut n = 0;
            for c in &compressed {
                out.clear();
                n += snap::read::FrameDecoder::new(*c)
                    .read_to_end(&mut out)
                    .unwrap();
            }
            black_box(n)
        })
    });
    g.bench_function("floor_keccak256_of_decompressed", |b| {
        b.iter(|| {
            for d in &decompressed {
                black_box(eraflow::crypto::keccak::keccak256(d));
            }
        })
    });
    g.finish();
}

criterion_group!(benches, accumulator, decode_verify);
criterion_main!(benches);
