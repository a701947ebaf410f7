//! `eraflow bench`: measures the pipeline's stages beside their floors in one run and prints ratios, so a speed
//! claim is always relative to a primitive measured on the same machine at the same moment. The criterion
//! benches in `benches/` measure the same things with statistics; this is the quick, self-contained view.

use crate::crypto::keccak::keccak256;
use crate::crypto::signer::{self, SignatureAlgorithm};
use crate::datasets;
use crate::formats::e2store::{E2StoreReader, RecordType};
use crate::formats::snappy::FramedDecoder;
use crate::network::Network;
use crate::pipeline::export::{export, ExportOptions};
use crate::pipeline::report::Progress;
use crate::sink::parquet::ParquetOptions;
use crate::verify::era1::{verify_file, VerifyOptions};
use std::path::Path;
use std::time::Instant;

/// One measured line.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Measurement {
    /// What was measured; floors (the primitive a stage cannot beat) start with `floor:`.
    pub name: String,
    /// Best wall-clock time over the runs, in seconds, for the whole synthetic archive.
    pub seconds: f64,
    /// Blocks of the archive per second of `seconds`.
    pub blocks_per_second: f64,
    /// Transactions of the archive per second of `seconds`.
    pub transactions_per_second: f64,
    /// Archive file size in MB (10^6 bytes) per second of `seconds`, whatever part of the file the stage reads.
    pub archive_mb_per_second: f64,
}

/// Best of `runs` wall-clock timings of `f` in a pool of `threads`.
fn best<T: Send>(threads: usize, runs: usize, f: impl Fn() -> T + Sync + Send) -> f64 {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool");
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(pool.install(&f));
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

/// Runs the benchmark on a synthetic era of `blocks` blocks with `txs` transactions each, in `dir`.
pub fn run(dir: &Path, blocks: u64, txs: u32, runs: usize) -> Result<Vec<Measurement>, String> {
    let net = Network::by_name("synthnet").map_err(|e| e.to_string())?;
    let mut o = crate::synth::era1::SynthOptions::new(net);
    o.blocks = blocks;
    o.txs_per_block = txs;
    let input = crate::synth::era1::write_once(&dir.join("archive"), &o)
        .map_err(|e| e.to_string())?
        .remove(0);
    let size = std::fs::metadata(&input).map_err(|e| e.to_string())?.len() as f64;
    let n_tx = blocks as f64 * txs as f64;
    let bytes = std::fs::read(&input).map_err(|e| e.to_string())?;
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
        .filter_map(|c| dec.decompress(c).ok().map(<[u8]>::to_vec))
        .collect();
    signer::init(SignatureAlgorithm::Secp256k1).map_err(|e| e.to_string())?;

    let mut out = Vec::new();
    let mut add = |name: &str, s: f64| {
        out.push(Measurement {
            name: name.into(),
            seconds: s,
            blocks_per_second: blocks as f64 / s,
            transactions_per_second: n_tx / s,
            archive_mb_per_second: size / 1e6 / s,
        })
    };
    add(
        "floor: snappy decompression (all records)",
        best(1, runs, || {
            let mut d = FramedDecoder::new();
            compressed
                .iter()
                .map(|c| d.decompress(c).map(|x| x.len()).unwrap_or(0))
                .sum::<usize>()
        }),
    );
    add(
        "floor: keccak256 of the decompressed bytes",
        best(1, runs, || {
            decompressed
                .iter()
                .map(|d| keccak256(d)[0])
                .fold(0u8, |a, b| a ^ b)
        }),
    );
    let export_to = |senders: bool, name: &str| {
        let out_dir = dir.join(name);
        let input = input.clone();
        move || {
            let opts = ExportOptions {
                out: out_dir.clone(),
                datasets: datasets::ALL.to_vec(),
                senders,
                network: None,
                overwrite: true,
                parquet: ParquetOptions::default(),
            };
            export(std::slice::from_ref(&input), &opts, &Progress::hidden())
                .map(|o| o[0].ok)
                .unwrap_or(false)
        }
    };
    let verify = |senders: bool| {
        let opts = VerifyOptions {
            senders,
            ..Default::default()
        };
        let p = input.clone();
        move || verify_file(&p, &opts).ok
    };
    // Floor for senders: raw k256 recovery (+ keccak of the key) of every transaction's signature.
    let sigs = signatures(&input)?;
    add(
        "floor: raw k256 recovery of every signature",
        best(1, runs, || {
            use k256::ecdsa::{RecoveryId, Signature, VerifyingKey};
            sigs.iter()
                .filter_map(|(h, r, s, y)| {
                    let sig = Signature::from_scalars(*r, *s).ok()?;
                    let vk =
                        VerifyingKey::recover_from_prehash(h, &sig, RecoveryId::new(*y, false))
                            .ok()?;
                    Some(keccak256(&vk.to_sec1_point(false).as_bytes()[1..])[12])
                })
                .fold(0u8, |a, b| a ^ b)
        }),
    );
    add("decode + verify, 1 thread", best(1, runs, verify(false)));
    add(
        "decode + verify + senders, 1 thread",
        best(1, runs, verify(true)),
    );
    add(
        "export without senders, 1 thread",
        best(1, runs, export_to(false, "out-nosend-1")),
    );
    add(
        "export with senders, 1 thread",
        best(1, runs, export_to(true, "out-send-1")),
    );
    add(
        "export with senders, 2 threads",
        best(2, runs, export_to(true, "out-send-2")),
    );
    // Floor for the Parquet side: re-encoding the batches the export produced, with the same writer settings.
    let batches = read_batches(&dir.join("out-nosend-1"))?;
    add(
        "floor: parquet encode of the same rows",
        best(1, runs, || {
            for (ds, bs) in &batches {
                let Some(schema) = bs.first().map(|b| b.schema()) else {
                    continue;
                };
                let p = dir.join("encode-only").join(format!("{ds}.parquet"));
                if let Ok(mut sink) = crate::sink::parquet::ParquetSink::create(
                    &p,
                    schema,
                    &ParquetOptions::default(),
                ) {
                    for b in bs {
                        let _ = sink.write(b);
                    }
                    let _ = sink.commit();
                }
            }
        }),
    );
    Ok(out)
}

/// A signature to recover: (signing hash, r, s, y parity).
type Sig = ([u8; 32], [u8; 32], [u8; 32], bool);

/// The signature of every transaction in the file.
fn signatures(input: &Path) -> Result<Vec<Sig>, String> {
    use crate::execution::body::BodyView;
    use crate::execution::transaction::TxView;
    let f = crate::formats::era1::Era1File::open(input).map_err(|e| e.to_string())?;
    let mut dec = FramedDecoder::new();
    let pad = |b: &[u8]| {
        let mut o = [0u8; 32];
        o[32 - b.len().min(32)..].copy_from_slice(&b[b.len().saturating_sub(32)..]);
        o
    };
    let mut out = Vec::new();
    for i in 0..f.block_count() {
        let t = f.block(i).map_err(|e| e.to_string())?;
        let raw = dec.decompress(t.body.data).map_err(|e| e.to_string())?;
        let body = BodyView::decode(raw).map_err(|e| e.to_string())?;
        for item in body.transactions() {
            let tx =
                TxView::decode(item.map_err(|e| e.to_string())?.raw).map_err(|e| e.to_string())?;
            out.push((
                tx.signing_hash().0,
                pad(tx.r()),
                pad(tx.s()),
                tx.y_parity().unwrap_or(false),
            ));
        }
    }
    Ok(out)
}

/// Every dataset's batches from an export directory, by dataset name.
fn read_batches(
    out: &Path,
) -> Result<Vec<(String, Vec<arrow::record_batch::RecordBatch>)>, String> {
    let mut all = Vec::new();
    for d in datasets::ALL {
        let mut bs = Vec::new();
        let dir = out.join(d.name());
        for e in std::fs::read_dir(&dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?
            .flatten()
        {
            let f = std::fs::File::open(e.path()).map_err(|e| e.to_string())?;
            let r = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(f)
                .and_then(|b| b.build())
                .map_err(|e| e.to_string())?;
            for b in r {
                bs.push(b.map_err(|e| e.to_string())?);
            }
        }
        all.push((d.name().to_string(), bs));
    }
    Ok(all)
}

/// Writes measurements with each one's ratio to the first two floors (the caller chooses where: a closed or
/// full standard output is the caller's error to handle, not a panic).
pub fn write(ms: &[Measurement], w: &mut dyn std::io::Write) -> std::io::Result<()> {
    let floor = ms.first().map_or(1.0, |m| m.seconds);
    let keccak = ms.get(1).map_or(1.0, |m| m.seconds);
    writeln!(
        w,
        "{:<44} {:>9} {:>11} {:>11} {:>9} {:>10} {:>10}",
        "stage", "seconds", "blocks/s", "txs/s", "MB/s", "÷snappy", "÷keccak"
    )?;
    for m in ms {
        writeln!(
            w,
            "{:<44} {:>9.3} {:>11.0} {:>11.0} {:>9.1} {:>10.2} {:>10.2}",
            m.name,
            m.seconds,
            m.blocks_per_second,
            m.transactions_per_second,
            m.archive_mb_per_second,
            m.seconds / floor,
            m.seconds / keccak
        )?;
    }
    if let (Some(one), Some(two)) = (
        ms.iter()
            .find(|m| m.name == "export with senders, 1 thread"),
        ms.iter()
            .find(|m| m.name == "export with senders, 2 threads"),
    ) {
        writeln!(
            w,
            "2-thread speed-up of export with senders: {:.2}x",
            one.seconds / two.seconds
        )?;
    }
    if let Some(rss) = crate::pipeline::report::peak_rss_bytes() {
        writeln!(
            w,
            "peak RSS of this process: {:.1} MiB",
            rss as f64 / (1 << 20) as f64
        )?;
    }
    Ok(())
}
