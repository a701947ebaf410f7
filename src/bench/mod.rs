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
use crate::crypto::keccak::{self, keccak256};
use crate::crypto::sha256;
use crate::crypto::signer::{SignatureAlgorithm, Signer, SignerBackend};
use crate::datasets;
use crate::export::progress::Progress;
use crate::export::{export, ExportOptions};
use crate::formats::e2store::{E2StoreReader, RecordType};
use crate::formats::snappy::FramedDecoder;
use crate::formats::MappedArchive;
use crate::network::Network;
use crate::sink::parquet::ParquetOptions;
use crate::synth::era1::SynthError;
use crate::verify::execution::VerifyOptions;
use std::path::{Path, PathBuf};

mod consensus;
mod delta;
mod floors;
mod measure;
mod mirror;
mod names;
mod report;

pub use consensus::ConsensusFacts;
pub use report::{print, BenchArchive, BenchReport, Measurement, Ratio};

use floors::{prune_floor, read_batches, signatures};
use measure::{best, loadavg, pool, Timing};
use report::ratios;

/// Files of the remote-input lines. The first is fetched before any work can start (at 20 MB/s per connection,
/// about 0.4 s for an 8192-block file even over 3 connections), a fixed cost the other files' throughput is
/// measured beside: 8 files (~180 MB, ~3.5 s of export) keep it to a tenth of the run, where 3 made it a third.
const MIRROR_FILES: usize = 8;

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
    /// Validators of the big state the `validators` lines read (1,000,000 on the command line).
    pub state_validators: usize,
    /// Measure the consensus datasets' lines only (operation datasets' cost on era exports, `validators`).
    pub only_consensus: bool,
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

pub(super) fn decode_err<E: std::error::Error + Send + Sync + 'static>(
    what: &'static str,
) -> impl FnOnce(E) -> BenchError {
    move |e| BenchError::Decode {
        what,
        source: Box::new(e),
    }
}

/// Runs the benchmark in `dir`: synthesises (once) an era1 file of `opts.blocks` blocks and an era file of at
/// most 8192 of them, then measures every stage and floor `opts.runs` times, keeping the best. The lines are
/// measured, and reported, in this order: the era1 file's floors, its signers, verification, export, the remote
/// set, prune and the Parquet floor; then the ere file, the era file and the consensus datasets.
pub fn run(dir: &Path, opts: &BenchOptions) -> Result<BenchReport, BenchError> {
    if opts.only_consensus {
        return run_consensus(dir, opts);
    }
    let b = Bench::prepare(dir, opts)?;
    let load_average_start = loadavg();
    let mut lines = Lines(Vec::new());
    b.codec_floors(&mut lines)?;
    b.recovery_floors(&mut lines)?;
    b.signer_alone(&mut lines)?;
    b.era1_verify(&mut lines)?;
    b.era1_export(&mut lines)?;
    let remote_cache_max_bytes = b.remote_set(&mut lines)?;
    b.prune(&mut lines)?;
    b.parquet_floor(&mut lines)?;
    let ere_keccak_lengths = b.ere_verify(&mut lines)?;
    b.ere_export(&mut lines)?;
    let (era_sha256_blocks, sha256_block_ns) = b.era_verify(&mut lines)?;
    let (more, consensus) =
        consensus::measure(dir, opts, &b.one, &mut |n, a, t, x| lines.add(n, a, t, x))?;
    let load_average_end = loadavg();

    let mut archives = vec![b.era1, b.ere, b.era];
    archives.extend(more);
    let mut report = BenchReport {
        load_average_start,
        load_average_end,
        archives,
        measurements: lines.0,
        ratios: Vec::new(),
        era_sha256_blocks,
        sha256_block_ns,
        remote_cache_max_bytes,
        ere_keccak_messages: ere_keccak_lengths.len() as u64,
        ere_keccak_bytes: ere_keccak_lengths.iter().map(|&l| u64::from(l)).sum(),
        consensus: Some(consensus),
    };
    report.ratios = ratios(&report);
    Ok(report)
}

/// The measured lines, in the order they were taken (the report's order).
struct Lines(Vec<Measurement>);

impl Lines {
    /// Adds the line of stage `name` on archive `a` with `threads` workers.
    fn add(&mut self, name: &str, a: &BenchArchive, threads: usize, t: Timing) {
        self.0.push(Measurement::new(name, a, threads, t));
    }
}

/// What every line of a run measures on: the synthetic inputs (made before any clock starts), the worker pools
/// and the signers.
struct Bench<'a> {
    dir: &'a Path,
    /// Timed repetitions of each stage.
    runs: usize,
    /// The one- and two-thread pools.
    one: rayon::ThreadPool,
    two: rayon::ThreadPool,
    /// How the era1 file was synthesised (the remote set's files are more of the same).
    era1_options: crate::synth::era1::SynthOptions,
    era1: BenchArchive,
    /// The ere file of the era1 file's blocks, without proofs.
    ere: BenchArchive,
    era: BenchArchive,
    /// The ere file of the same blocks with a header proof per block, and the accumulator they prove against.
    ere_proofs: PathBuf,
    own_accumulator: std::sync::Arc<crate::canonical::EpochRoots>,
    /// Every transaction's signature in the era1 file, and its canonical encoding.
    sigs: Vec<floors::Sig>,
    encoded: Vec<floors::Encoded>,
    /// One signer per backend, by backend name.
    signers: Vec<(&'static str, &'static Signer)>,
}

impl<'a> Bench<'a> {
    /// Synthesises the inputs (once: `write_once` and [`ere_of`] keep what is there) and builds the pools and
    /// signers.
    fn prepare(dir: &'a Path, opts: &BenchOptions) -> Result<Bench<'a>, BenchError> {
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
        // The ere file of the era1 file's blocks, by the converter (kept beside it; made again with it).
        let noproofs = crate::formats::EreProfile {
            no_proofs: true,
            no_receipts: false,
        };
        let ere_input = ere_of(&input, &dir.join("ere-archive"), noproofs, None)?;
        // And with a header proof per block (type 0), against synthnet's own accumulator: the era1 file's root
        // is the entry of its era (a private network's accumulator, as `--accumulator` gives it).
        let own_accumulator = {
            let f =
                crate::formats::era1::Era1File::open(&input).map_err(decode_err("era1 file"))?;
            let mut roots =
                vec![[0u8; 32]; (f.first_block() / crate::formats::era1::BLOCKS_PER_ERA) as usize];
            roots.push(*f.accumulator_root());
            std::sync::Arc::new(crate::canonical::EpochRoots(roots))
        };
        let ere_proofs = ere_of(
            &input,
            &dir.join("ere-proofs-archive"),
            crate::formats::EreProfile::default(),
            Some(own_accumulator.clone()),
        )?;

        let era1 = archive_file("era1", &input, opts.blocks, opts.txs_per_block)?;
        let ere = archive_file("ere", &ere_input, opts.blocks, opts.txs_per_block)?;
        let era = archive_file("era", &era_input, e.blocks, e.txs_per_block)?;
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
        Ok(Bench {
            dir,
            runs: opts.runs,
            one: pool(1)?,
            two: pool(2)?,
            era1_options: o,
            era1,
            ere,
            era,
            ere_proofs,
            own_accumulator,
            sigs,
            encoded,
            signers,
        })
    }

    /// Floors of decoding: snappy decompression of every header, body and receipts record of the era1 file, and
    /// keccak of each decompressed record.
    fn codec_floors(&self, lines: &mut Lines) -> Result<(), BenchError> {
        let (one, runs) = (&self.one, self.runs);
        let input = &self.era1.path;
        let bytes = read_archive(input)?;
        let compressed = records(
            &bytes,
            &[
                RecordType::COMPRESSED_HEADER,
                RecordType::COMPRESSED_BODY,
                RecordType::COMPRESSED_RECEIPTS,
            ],
        );
        let mut dec = FramedDecoder::new();
        let decompressed: Vec<Vec<u8>> = compressed
            .iter()
            .map(|c| dec.decompress(c).map(<[u8]>::to_vec))
            .collect::<Result<_, _>>()
            .map_err(decode_err("snappy records"))?;
        lines.add(
            names::SNAPPY,
            &self.era1,
            1,
            best(one, runs, names::SNAPPY, || {
                std::hint::black_box(decompress_all(&compressed)?);
                Ok(())
            })?,
        );
        lines.add(
            names::KECCAK,
            &self.era1,
            1,
            best(one, runs, names::KECCAK, || {
                let x = decompressed
                    .iter()
                    .map(|d| keccak256(d)[0])
                    .fold(0u8, |a, b| a ^ b);
                std::hint::black_box(x);
                Ok(())
            })?,
        );
        Ok(())
    }

    /// Floors for senders: each library alone, from (hash, r, s, parity) to the address (keccak of the key).
    fn recovery_floors(&self, lines: &mut Lines) -> Result<(), BenchError> {
        let (one, runs, sigs) = (&self.one, self.runs, &self.sigs);
        let ctx = secp256k1::Secp256k1::verification_only();
        lines.add(
            names::RAW_LIBSECP,
            &self.era1,
            1,
            best(one, runs, names::RAW_LIBSECP, || {
                use secp256k1::ecdsa::{RecoverableSignature, RecoveryId};
                let mut x = 0u8;
                for (h, r, s, y) in sigs {
                    let mut rs = [0u8; 64];
                    rs[..32].copy_from_slice(r);
                    rs[32..].copy_from_slice(s);
                    let id = if *y {
                        RecoveryId::One
                    } else {
                        RecoveryId::Zero
                    };
                    let sig =
                        RecoverableSignature::from_compact(&rs, id).map_err(|e| e.to_string())?;
                    let pk = ctx
                        .recover_ecdsa(secp256k1::Message::from_digest(*h), &sig)
                        .map_err(|e| e.to_string())?;
                    x ^= keccak256(&pk.serialize_uncompressed()[1..])[12];
                }
                std::hint::black_box(x);
                Ok(())
            })?,
        );
        lines.add(
            names::RAW_K256,
            &self.era1,
            1,
            best(one, runs, names::RAW_K256, || {
                use k256::ecdsa::{RecoveryId, Signature, VerifyingKey};
                let mut x = 0u8;
                for (h, r, s, y) in sigs {
                    let sig = Signature::from_scalars(*r, *s).map_err(|e| e.to_string())?;
                    let vk =
                        VerifyingKey::recover_from_prehash(h, &sig, RecoveryId::new(*y, false))
                            .map_err(|e| e.to_string())?;
                    x ^= keccak256(&vk.to_sec1_point(false).as_bytes()[1..])[12];
                }
                std::hint::black_box(x);
                Ok(())
            })?,
        );
        Ok(())
    }

    /// The signer alone, in a tight loop: decode, signing hash, checks, recovery. Set beside the floor and the
    /// pipeline, it tells the signer's own overhead from what interleaving with the rest of the pipeline costs.
    fn signer_alone(&self, lines: &mut Lines) -> Result<(), BenchError> {
        for (backend, signer) in &self.signers {
            let name = names::signer_alone(backend);
            let t = best(&self.one, self.runs, &name, || {
                let mut x = 0u8;
                for (e, homestead) in &self.encoded {
                    let tx = crate::execution::transaction::TxView::decode_canonical(e)
                        .map_err(|e| e.to_string())?;
                    x ^= signer
                        .recover_sender(&tx, *homestead)
                        .map_err(|e| e.to_string())?[0];
                }
                std::hint::black_box(x);
                Ok(())
            })?;
            lines.add(&name, &self.era1, 1, t);
        }
        Ok(())
    }

    /// Verification of the era1 file, without senders, then with them on each backend.
    fn era1_verify(&self, lines: &mut Lines) -> Result<(), BenchError> {
        let verify = |signer: Option<&'static Signer>| {
            let opts = VerifyOptions {
                senders: signer.is_some(),
                signer,
                ..Default::default()
            };
            let p = self.era1.path.clone();
            move || {
                let r = crate::verify::file(&p, &opts);
                match (r.ok, r.sender_errors) {
                    (false, _) => Err(format!("{:?}", r.errors)),
                    (true, Some(n)) if n > 0 => Err(format!("{n} sender errors")),
                    _ => Ok(()),
                }
            }
        };
        lines.add(
            names::VERIFY,
            &self.era1,
            1,
            best(&self.one, self.runs, names::VERIFY, verify(None))?,
        );
        for (backend, signer) in &self.signers {
            let name = names::verify_senders(backend);
            lines.add(
                &name,
                &self.era1,
                1,
                best(&self.one, self.runs, &name, verify(Some(*signer)))?,
            );
        }
        Ok(())
    }

    /// Export of the era1 file with every dataset: without senders, then with them on each backend, on one and
    /// two threads.
    fn era1_export(&self, lines: &mut Lines) -> Result<(), BenchError> {
        let export_to = |signer: Option<&'static Signer>, name: &str| {
            export_stage(self.dir, &self.era1.path, signer, name)
        };
        lines.add(
            names::EXPORT_NO_SENDERS,
            &self.era1,
            1,
            best(
                &self.one,
                self.runs,
                names::EXPORT_NO_SENDERS,
                export_to(None, "out-nosend-1"),
            )?,
        );
        for (threads, p) in [(1, &self.one), (2, &self.two)] {
            for (backend, signer) in &self.signers {
                let name = names::export_senders(backend, threads);
                let to = format!("out-send-{backend}-{threads}");
                lines.add(
                    &name,
                    &self.era1,
                    threads,
                    best(p, self.runs, &name, export_to(Some(*signer), &to))?,
                );
            }
        }
        Ok(())
    }

    /// The remote set's era1 files in `dir/mirror`, with a checksums.txt beside them as public mirrors publish
    /// (each download is checked against it): the archive they make and their sizes.
    fn mirror_set(&self) -> Result<(BenchArchive, Vec<PathBuf>, Vec<u64>), BenchError> {
        let mut m = self.era1_options.clone();
        m.files = MIRROR_FILES as u64;
        let mirror_dir = self.dir.join("mirror");
        let mirror_files = crate::synth::era1::write_once(&mirror_dir, &m)?.paths;
        let mut mirror_bytes = Vec::with_capacity(mirror_files.len());
        let mut sums = String::new();
        for f in &mirror_files {
            mirror_bytes.push(size_of(f)?);
            let sha = hex::encode(sha256::sha256(&read_archive(f)?));
            let name = f.file_name().map(|n| n.to_string_lossy().into_owned());
            sums.push_str(&format!("{sha}  {}\n", name.unwrap_or_default()));
        }
        let sums_path = mirror_dir.join("checksums.txt");
        std::fs::write(&sums_path, sums).map_err(|source| BenchError::Io {
            path: sums_path,
            source,
        })?;
        let set = BenchArchive {
            kind: "era1 x8",
            path: mirror_dir,
            blocks: m.blocks * mirror_files.len() as u64,
            transactions: m.blocks * u64::from(m.txs_per_block) * mirror_files.len() as u64,
            bytes: mirror_bytes.iter().sum(),
        };
        Ok((set, mirror_files, mirror_bytes))
    }

    /// Remote input beside local files: the same files exported from a loopback HTTP mirror (fetched by the
    /// prefetcher into a cache bounded at two files while the worker exports) and from the local folder. One
    /// worker thread, so the mirror and the download have the other core: the mirror is not the bottleneck.
    /// Returns the cache bound.
    fn remote_set(&self, lines: &mut Lines) -> Result<u64, BenchError> {
        let (one, runs, dir) = (&self.one, self.runs, self.dir);
        let (set, mirror_files, mirror_bytes) = self.mirror_set()?;
        let mirror_dir = &set.path;
        let cache = crate::store::cache::CacheOptions {
            dir: dir.join("cache"),
            max_bytes: 2 * mirror_bytes.iter().copied().max().unwrap_or(0),
            keep: false,
            // As configs/default.toml.
            downloads: 4,
        };
        let one_connection = crate::store::cache::CacheOptions {
            downloads: 1,
            ..cache.clone()
        };
        let mirror_io = |source| BenchError::Io {
            path: mirror_dir.clone(),
            source,
        };
        let server = mirror::Mirror::start(mirror_dir).map_err(mirror_io)?;
        let local_inputs = mirror_files
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        lines.add(
            names::SET_LOCAL,
            &set,
            1,
            best(
                one,
                runs,
                names::SET_LOCAL,
                export_set_stage(dir, local_inputs, "out-set-local", &cache),
            )?,
        );
        let mut delta = best(
            one,
            runs,
            names::SET_DELTA,
            export_set_delta_stage(dir, &mirror_files),
        )?;
        // Its commits run on the I/O runtime's threads, which this thread's CPU time leaves out: wall time only.
        delta.cpu = None;
        lines.add(names::SET_DELTA, &set, 1, delta);
        lines.add(
            names::SET_HTTP,
            &set,
            1,
            best(
                one,
                runs,
                names::SET_HTTP,
                export_set_stage(dir, vec![server.url()], "out-set-http", &cache),
            )?,
        );
        drop(server);
        // A mirror whose every connection is slower than the export: one connection at a time bounds the run by
        // the mirror; several (files side by side, ranges of a big file) by the export again.
        let slow = mirror::Mirror::start_throttled(mirror_dir, Some(mirror::SLOW_BYTES_PER_SECOND))
            .map_err(mirror_io)?;
        for (name, c) in [
            (names::SET_SLOW_1, &one_connection),
            (names::SET_SLOW_4, &cache),
        ] {
            lines.add(
                name,
                &set,
                1,
                best(
                    one,
                    runs,
                    name,
                    export_set_stage(dir, vec![slow.url()], "out-set-slow", c),
                )?,
            );
        }
        drop(slow);
        Ok(cache.max_bytes)
    }

    /// Prune: verification on the light path (no receipts, no senders) and the manifest's lists, on one and two
    /// threads, after its floor.
    fn prune(&self, lines: &mut Lines) -> Result<(), BenchError> {
        let input = &self.era1.path;
        let prune_to = |name: &'static str| {
            let (input, out) = (input.clone(), self.dir.join(name));
            move || {
                crate::prune::run(
                    std::slice::from_ref(&input),
                    &out,
                    // Every run reads the file again: a rerun would otherwise extend (find complete) the
                    // manifest the run before wrote and measure nothing.
                    &crate::prune::PruneOptions {
                        from_scratch: true,
                        ..Default::default()
                    },
                )
                .map(drop)
                .map_err(|e| crate::error::render(&e))
            }
        };
        // Its floor (issue 12, item 5): snappy of every header and body, keccak of every header, ommers list and
        // transaction, and the transactions trie over them (each leaf holds a whole transaction: a second keccak
        // pass), as the light verification path computes them, and nothing else: checked here, message for
        // message, so a ratio to it measures overhead and never work the floor leaves out.
        keccak::set_recording(true);
        let _ = keccak::take_recorded();
        let counted = self.one.install(prune_to("prune-count"));
        let mut pruned = keccak::take_recorded();
        let floor_run = prune_floor(input);
        let mut floor = keccak::take_recorded();
        keccak::set_recording(false);
        let stage_err = |detail: String| BenchError::Stage {
            stage: names::PRUNE_FLOOR.into(),
            detail,
        };
        counted.map_err(stage_err)?;
        floor_run.map_err(stage_err)?;
        pruned.sort_unstable();
        floor.sort_unstable();
        if pruned != floor {
            return Err(stage_err(format!(
                "the floor hashes {} keccak messages ({} bytes), prune {} ({} bytes)",
                floor.len(),
                floor.iter().map(|&l| u64::from(l)).sum::<u64>(),
                pruned.len(),
                pruned.iter().map(|&l| u64::from(l)).sum::<u64>()
            )));
        }
        lines.add(
            names::PRUNE_FLOOR,
            &self.era1,
            1,
            best(&self.one, self.runs, names::PRUNE_FLOOR, || {
                prune_floor(input).map(|x| {
                    std::hint::black_box(x);
                })
            })?,
        );
        for (name, threads, p, out) in [
            (names::PRUNE_1, 1, &self.one, "prune-1"),
            (names::PRUNE_2, 2, &self.two, "prune-2"),
        ] {
            lines.add(
                name,
                &self.era1,
                threads,
                best(p, self.runs, name, prune_to(out))?,
            );
        }
        Ok(())
    }

    /// Floor for the Parquet side: re-encoding the batches the export without senders produced, with the same
    /// writer settings.
    fn parquet_floor(&self, lines: &mut Lines) -> Result<(), BenchError> {
        let dir = self.dir;
        let batches = read_batches(&dir.join("out-nosend-1"))?;
        self.table_optimize(&batches, lines)?;
        lines.add(
            names::PARQUET,
            &self.era1,
            1,
            best(&self.one, self.runs, names::PARQUET, || {
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
        Ok(())
    }

    /// `eraflow table optimize` of [`delta::FILES`] small files of the era1 file's transactions, beside a plain
    /// rewrite of the same files: once each (an optimize leaves nothing to do), wall time (its commit runs on the
    /// I/O threads).
    fn table_optimize(
        &self,
        batches: &[(String, Vec<arrow_array::RecordBatch>)],
        lines: &mut Lines,
    ) -> Result<(), BenchError> {
        let tx = batches
            .iter()
            .find(|(d, _)| d == "transactions")
            .map(|(_, b)| b.as_slice())
            .unwrap_or_default();
        let stage = |detail| BenchError::Stage {
            stage: names::TABLE_OPTIMIZE.to_string(),
            detail,
        };
        let (out, files) = delta::small_files_table(self.dir, tx).map_err(stage)?;
        let dest = self.dir.join("optimize-floor.parquet");
        let mut floor = best(&self.one, 1, names::OPTIMIZE_FLOOR, || {
            delta::rewrite(&files, &dest)
        })?;
        let mut optimize = best(&self.one, 1, names::TABLE_OPTIMIZE, || {
            delta::optimize(&out, files.len())
        })?;
        floor.cpu = None;
        optimize.cpu = None;
        lines.add(names::OPTIMIZE_FLOOR, &self.era1, 1, floor);
        lines.add(names::TABLE_OPTIMIZE, &self.era1, 1, optimize);
        let _ = std::fs::remove_dir_all(&out);
        Ok(())
    }

    /// The ere file of the same blocks: count the keccak permutations its verification runs (on the real path),
    /// then time that many permutations and the snappy decompression of its records (the floor), its
    /// verification, and the verification of the file with proofs. Returns the lengths of the messages hashed.
    fn ere_verify(&self, lines: &mut Lines) -> Result<Vec<u32>, BenchError> {
        let (one, runs, ere) = (&self.one, self.runs, &self.ere);
        let verify_ere = || verify_stage(&ere.path, crate::verify::file);
        let verify_ere_proofs = || {
            let (input, opts) = (
                self.ere_proofs.clone(),
                VerifyOptions {
                    accumulator: Some(self.own_accumulator.clone()),
                    ..Default::default()
                },
            );
            move || {
                let r = crate::verify::file(&input, &opts);
                match (r.ok, r.canonical) {
                    (true, Some(true)) => Ok(()),
                    _ => Err(format!("canonical {:?}: {:?}", r.canonical, r.errors)),
                }
            }
        };
        keccak::set_recording(true);
        let _ = keccak::take_recorded();
        let counted = one.install(verify_ere());
        keccak::set_recording(false);
        let lengths = keccak::take_recorded();
        counted.map_err(|detail| BenchError::Stage {
            stage: names::ERE_VERIFY.into(),
            detail,
        })?;
        let ere_bytes = read_archive(&ere.path)?;
        let ere_compressed = records(
            &ere_bytes,
            &[
                RecordType::COMPRESSED_HEADER,
                RecordType::COMPRESSED_BODY,
                RecordType::COMPRESSED_SLIM_RECEIPTS,
            ],
        );
        // The floor: every message verification hashed, by length, from one buffer (no copies), then the snappy
        // decompression of every header, body and receipts record.
        let floor =
            KeccakFloor::new(&lengths).with_snappy(one, runs, names::ERE_FLOOR, &ere_compressed)?;
        lines.add(names::ERE_FLOOR, ere, 1, floor);
        lines.add(
            names::ERE_VERIFY,
            ere,
            1,
            best(one, runs, names::ERE_VERIFY, verify_ere())?,
        );
        lines.add(
            names::ERE_VERIFY_PROOFS,
            ere,
            1,
            best(one, runs, names::ERE_VERIFY_PROOFS, verify_ere_proofs())?,
        );
        Ok(lengths)
    }

    /// Export of the ere file with every dataset, without senders, then with them (the first backend).
    fn ere_export(&self, lines: &mut Lines) -> Result<(), BenchError> {
        let (one, runs, ere) = (&self.one, self.runs, &self.ere);
        let export_ere = |signer: Option<&'static Signer>, name: &str| {
            export_stage(self.dir, &ere.path, signer, name)
        };
        lines.add(
            names::ERE_EXPORT_NO_SENDERS,
            ere,
            1,
            best(
                one,
                runs,
                names::ERE_EXPORT_NO_SENDERS,
                export_ere(None, "out-ere-nosend-1"),
            )?,
        );
        if let Some((backend, signer)) = self.signers.first() {
            let name = names::ere_export_senders(backend);
            lines.add(
                &name,
                ere,
                1,
                best(
                    one,
                    runs,
                    &name,
                    export_ere(Some(*signer), "out-ere-send-1"),
                )?,
            );
        }
        Ok(())
    }

    /// The era file: count the SHA-256 blocks its verification hashes (on the real path), then time that many
    /// blocks through the batched hasher (the tighter floor) and the verification itself, on one and two
    /// threads. Returns the blocks counted and the cost of one in ns.
    fn era_verify(&self, lines: &mut Lines) -> Result<(u64, f64), BenchError> {
        let (one, runs, era) = (&self.one, self.runs, &self.era);
        let verify_era = || verify_stage(&era.path, crate::verify::file);
        sha256::set_hash_counting(true);
        keccak::set_recording(true);
        let _ = sha256::take_hash_count();
        let _ = keccak::take_recorded();
        let counted = one.install(verify_era());
        let era_sha256_blocks = sha256::take_hash_count();
        sha256::set_hash_counting(false);
        keccak::set_recording(false);
        let keccak_lengths = keccak::take_recorded();
        counted.map_err(|detail| BenchError::Stage {
            stage: names::ERA_1.into(),
            detail,
        })?;
        const BATCH: usize = 4096;
        let blocks = filler(64 * BATCH);
        let reps = (era_sha256_blocks as usize).div_ceil(BATCH).max(1);
        let batch_seconds = best(one, runs, names::ERA_FLOOR, || {
            let mut hashed = vec![0u8; 32 * BATCH];
            for _ in 0..reps {
                sha256::hash_blocks(std::hint::black_box(&blocks), &mut hashed);
            }
            std::hint::black_box(&hashed);
            Ok(())
        })?;
        let per_block = |s: f64| s / (reps * BATCH) as f64;
        let sha256_block_ns = per_block(batch_seconds.wall) * 1e9;
        let sha256_floor = Timing {
            wall: era_sha256_blocks as f64 * per_block(batch_seconds.wall),
            cpu: batch_seconds
                .cpu
                .map(|c| era_sha256_blocks as f64 * per_block(c)),
            rss: batch_seconds.rss,
        };
        lines.add(names::ERA_FLOOR, era, 1, sha256_floor);
        // The floor of every primitive verification runs, as the ere and prune floors count theirs: the sha256
        // floor above, plus the keccak messages it hashed (payloads' block hashes, transactions and withdrawals
        // tries), by length from one buffer, and the snappy decompression of every block and state record.
        let era_bytes = read_archive(&era.path)?;
        let era_compressed = records(
            &era_bytes,
            &[
                RecordType::COMPRESSED_SIGNED_BEACON_BLOCK,
                RecordType::COMPRESSED_BEACON_STATE,
            ],
        );
        let rest = KeccakFloor::new(&keccak_lengths).with_snappy(
            one,
            runs,
            names::ERA_FLOOR_ALL,
            &era_compressed,
        )?;
        // Plus the sha256 floor just measured (the same blocks' cost, scaled to the file's count).
        let all = Timing {
            wall: sha256_floor.wall + rest.wall,
            cpu: sha256_floor.cpu.zip(rest.cpu).map(|(a, b)| a + b),
            rss: sha256_floor.rss.max(rest.rss),
        };
        drop(era_compressed);
        drop(era_bytes);
        lines.add(names::ERA_FLOOR_ALL, era, 1, all);
        lines.add(
            names::ERA_1,
            era,
            1,
            best(one, runs, names::ERA_1, verify_era())?,
        );
        lines.add(
            names::ERA_2,
            era,
            2,
            best(&self.two, runs, names::ERA_2, verify_era())?,
        );
        Ok((era_sha256_blocks, sha256_block_ns))
    }
}

/// The archive of `kind` at `path` (its size read here), holding `blocks` blocks of `txs_per_block` each.
fn archive_file(
    kind: &'static str,
    path: &Path,
    blocks: u64,
    txs_per_block: u32,
) -> Result<BenchArchive, BenchError> {
    Ok(BenchArchive {
        kind,
        path: path.to_path_buf(),
        blocks,
        transactions: blocks * u64::from(txs_per_block),
        bytes: size_of(path)?,
    })
}

/// The size of file `p`.
fn size_of(p: &Path) -> Result<u64, BenchError> {
    std::fs::metadata(p)
        .map(|m| m.len())
        .map_err(|source| BenchError::Io {
            path: p.to_path_buf(),
            source,
        })
}

/// The data of every record of `kinds` in the e2store file `bytes`.
fn records<'b>(bytes: &'b [u8], kinds: &[RecordType]) -> Vec<&'b [u8]> {
    E2StoreReader::new(bytes)
        .filter_map(Result::ok)
        .filter(|r| kinds.contains(&r.kind))
        .map(|r| r.data)
        .collect()
}

/// The bytes of the archive at `path`, read whole (the bench's archives are small): for a floor that
/// decompresses or hashes its records, or a mirror's checksum.
fn read_archive(path: &Path) -> Result<Vec<u8>, BenchError> {
    std::fs::read(path).map_err(|source| BenchError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// `len` bytes of a fixed pattern, the input of the hashing floors.
fn filler(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 131 % 251) as u8).collect()
}

/// A keccak floor: messages of the lengths a stage hashed (recorded in order), hashed from one buffer (no
/// copies) at shifting offsets.
struct KeccakFloor<'l> {
    lengths: &'l [u32],
    source: Vec<u8>,
}

impl<'l> KeccakFloor<'l> {
    fn new(lengths: &'l [u32]) -> Self {
        let longest = lengths.iter().copied().max().unwrap_or(0) as usize;
        KeccakFloor {
            lengths,
            source: filler(longest + 64),
        }
    }

    /// Hashes every message once.
    fn hash(&self) {
        let mut x = 0u8;
        for (i, &l) in self.lengths.iter().enumerate() {
            let from = i % 64;
            x ^= keccak256(std::hint::black_box(&self.source[from..from + l as usize]))[0];
        }
        std::hint::black_box(x);
    }

    /// The best of `runs` timed runs on `pool` of hashing every message, then snappy-decompressing every
    /// record of `compressed`: the floor of a verification's keccak and decompression.
    fn with_snappy(
        &self,
        pool: &rayon::ThreadPool,
        runs: usize,
        stage: &str,
        compressed: &[&[u8]],
    ) -> Result<Timing, BenchError> {
        best(pool, runs, stage, || {
            self.hash();
            std::hint::black_box(decompress_all(compressed)?);
            Ok(())
        })
    }
}

/// Snappy-decompresses every record with one reused decoder: the bytes they held.
fn decompress_all(compressed: &[&[u8]]) -> Result<usize, String> {
    let mut d = FramedDecoder::new();
    let mut n = 0usize;
    for c in compressed {
        n += d.decompress(c).map_err(|e| e.to_string())?.len();
    }
    Ok(n)
}

/// A stage exporting the remote set's `inputs` (local files or a mirror's URL) with every dataset, no senders,
/// into `dir/out` through the remote-input path with `cache`: it fails unless every file was exported.
fn export_set_stage(
    dir: &Path,
    inputs: Vec<String>,
    out: &str,
    cache: &crate::store::cache::CacheOptions,
) -> impl Fn() -> Result<(), String> + Sync + Send {
    let opts = ExportOptions {
        overwrite: true,
        ..ExportOptions::new(dir.join(out), datasets::all_with_senders(false))
    };
    let cache = cache.clone();
    move || {
        let o = crate::pipeline::stream::export_inputs(&inputs, &opts, &cache)
            .map_err(|e| crate::error::render(&e))?;
        match o.iter().find(|o| !o.ok) {
            _ if o.len() != MIRROR_FILES => Err(format!("{} outcomes", o.len())),
            Some(bad) => Err(format!("{}: {:?}", bad.file, bad.errors)),
            None => Ok(()),
        }
    }
}

/// A stage exporting the local `inputs` with the set's datasets into Delta tables, each run into a new output
/// (tables created, then every source committed): what a plain run of the same inputs is compared with.
fn export_set_delta_stage(
    dir: &Path,
    inputs: &[PathBuf],
) -> impl Fn() -> Result<(), String> + Sync + Send {
    let runs = std::sync::atomic::AtomicU64::new(0);
    let (dir, inputs) = (dir.to_path_buf(), inputs.to_vec());
    move || {
        let n = runs.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let out = dir.join(format!("out-set-delta-{n}"));
        let _ = std::fs::remove_dir_all(&out);
        let opts = ExportOptions {
            table_format: crate::store::delta::TableFormat::Delta,
            ..ExportOptions::new(out.clone(), datasets::all_with_senders(false))
        };
        let o =
            export(&inputs, &opts, &Progress::hidden()).map_err(|e| crate::error::render(&e))?;
        let _ = std::fs::remove_dir_all(&out);
        match o.iter().find(|o| !o.ok) {
            _ if o.len() != MIRROR_FILES => Err(format!("{} outcomes", o.len())),
            Some(bad) => Err(format!("{}: {:?}", bad.file, bad.errors)),
            None => Ok(()),
        }
    }
}

/// [`run`] with only the consensus datasets' lines (`eraflow bench --consensus`): the other report fields are
/// zero.
fn run_consensus(dir: &Path, opts: &BenchOptions) -> Result<BenchReport, BenchError> {
    let one = pool(1)?;
    let load_average_start = loadavg();
    let mut lines = Lines(Vec::new());
    let (archives, consensus) =
        consensus::measure(dir, opts, &one, &mut |n, a, t, x| lines.add(n, a, t, x))?;
    let mut report = BenchReport {
        load_average_start,
        load_average_end: loadavg(),
        archives,
        measurements: lines.0,
        ratios: Vec::new(),
        era_sha256_blocks: 0,
        sha256_block_ns: 0.0,
        remote_cache_max_bytes: 0,
        ere_keccak_messages: 0,
        ere_keccak_bytes: 0,
        consensus: Some(consensus),
    };
    report.ratios = ratios(&report);
    Ok(report)
}

/// A stage exporting `input` with every dataset into `dir/name`, recovering senders with `signer` when given: it
/// fails unless the file verified and its outputs were written.
fn export_stage(
    dir: &Path,
    input: &Path,
    signer: Option<&'static Signer>,
    name: &str,
) -> impl Fn() -> Result<(), String> + Sync + Send {
    let all = datasets::all_with_senders(signer.is_some());
    export_datasets_stage(input, dir.join(name), all, signer)
}

/// A stage exporting `input` with `datasets` into `out` (overwriting), recovering senders with `signer` when
/// given: it fails unless the file verified and its outputs were written.
pub(super) fn export_datasets_stage(
    input: &Path,
    out: PathBuf,
    datasets: Vec<&'static dyn datasets::Dataset>,
    signer: Option<&'static Signer>,
) -> impl Fn() -> Result<(), String> + Sync + Send {
    let opts = ExportOptions {
        senders: signer.is_some(),
        signer,
        overwrite: true,
        ..ExportOptions::new(out, datasets)
    };
    let input = input.to_path_buf();
    move || {
        let o = export(std::slice::from_ref(&input), &opts, &Progress::hidden())
            .map_err(|e| crate::error::render(&e))?;
        match o.first() {
            Some(o) if o.ok => Ok(()),
            Some(o) => Err(format!("{:?}", o.errors)),
            None => Err("no outcome".into()),
        }
    }
}

/// A stage verifying `input` with `verify` (default options): it fails unless the file verified.
fn verify_stage(
    input: &Path,
    verify: fn(&Path, &VerifyOptions) -> crate::verify::report::FileReport,
) -> impl Fn() -> Result<(), String> + Sync + Send {
    let input = input.to_path_buf();
    move || {
        let r = verify(&input, &VerifyOptions::default());
        if r.ok {
            Ok(())
        } else {
            Err(format!("{:?}", r.errors))
        }
    }
}

/// The ere file of `era1`'s blocks in `dir`, converted once (again when the era1 file is newer).
fn ere_of(
    era1: &Path,
    dir: &Path,
    profile: crate::formats::EreProfile,
    accumulator: Option<std::sync::Arc<crate::canonical::EpochRoots>>,
) -> Result<PathBuf, BenchError> {
    let existing = std::fs::read_dir(dir).ok().and_then(|rd| {
        rd.flatten()
            .map(|e| e.path())
            .find(|p| crate::formats::ArchiveKind::of(p) == Some(crate::formats::ArchiveKind::Ere))
    });
    let newer = |a: &Path, b: &Path| {
        let m = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
        m(a) >= m(b)
    };
    if let Some(p) = existing.filter(|p| newer(p, era1)) {
        return Ok(p);
    }
    let _ = std::fs::remove_dir_all(dir);
    let opts = crate::convert::ConvertOptions {
        to: crate::formats::ArchiveKind::Ere,
        out: dir.to_path_buf(),
        profile: Some(profile),
        network: None,
        era_files: Vec::new(),
        accumulator,
    };
    let c = crate::convert::convert(&[era1.to_path_buf()], &opts).remove(0);
    c.output.ok_or_else(|| BenchError::Stage {
        stage: "converting the bench's era1 file to ere".into(),
        detail: format!("{:?}", c.report.errors),
    })
}
