//! The fuzz targets on the stable toolchain: every committed input of `fuzz/corpus/<target>/` (the minimised
//! corpus, and every crash input found, named `crash-*`) runs through the same body the fuzzer runs
//! (`eraflow::fuzzing`), so a fixed crash stays fixed. `write_seeds` (ignored) made the seeds the corpus was
//! minimised from; see `docs/reliability.md`.

use eraflow::fuzzing::TARGETS;
use std::path::{Path, PathBuf};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz")
}

#[test]
fn every_target_has_a_fuzz_target_file_and_a_corpus() {
    let mut files: Vec<String> = std::fs::read_dir(fuzz_dir().join("fuzz_targets"))
        .unwrap()
        .map(|e| {
            e.unwrap()
                .path()
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    files.sort();
    let mut names: Vec<String> = TARGETS.iter().map(|t| t.0.to_string()).collect();
    names.sort();
    assert_eq!(
        files, names,
        "fuzz/fuzz_targets/ and eraflow::fuzzing::TARGETS"
    );
    let manifest = std::fs::read_to_string(fuzz_dir().join("Cargo.toml")).unwrap();
    for n in &names {
        assert!(
            manifest.contains(&format!("path = \"fuzz_targets/{n}.rs\"")),
            "fuzz/Cargo.toml lacks {n}"
        );
    }
}

#[test]
fn the_committed_corpus_runs_clean_through_every_target() {
    let mut total = 0;
    for (name, body) in TARGETS {
        let dir = fuzz_dir().join("corpus").join(name);
        let mut inputs: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        inputs.sort();
        assert!(!inputs.is_empty(), "no corpus for {name}");
        for p in &inputs {
            let bytes = std::fs::read(p).unwrap();
            if let Err(e) = std::panic::catch_unwind(|| body(&bytes)) {
                let msg = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                panic!("fuzz target {name} panics on {}: {msg}", p.display());
            }
        }
        total += inputs.len();
    }
    eprintln!("replayed {total} fuzz inputs");
}

/// Writes the seeds the corpus was minimised from into `$ERAFLOW_FUZZ_SEEDS/<target>/`: pieces of the real
/// archives and SSZ objects of the shared test data, and synthetic ones for what the real data lacks.
/// `ERAFLOW_FUZZ_SEEDS=/tmp/seeds cargo test --test it write_seeds -- --ignored`
#[test]
#[ignore]
fn write_seeds() {
    let Some(out) = std::env::var_os("ERAFLOW_FUZZ_SEEDS").map(PathBuf::from) else {
        panic!("set ERAFLOW_FUZZ_SEEDS to the directory to write seeds to");
    };
    let Some(data) = crate::testdata::dir("fuzz seeds") else {
        panic!("the seeds need the shared test data");
    };
    seeds::write(&out, &data);
}

mod seeds {
    use eraflow::consensus::{synth, ALL_FORKS};
    use eraflow::formats::e2store::{E2StoreReader, RecordType};
    use eraflow::formats::era::EraWriter;
    use eraflow::formats::era1::{Era1File, Era1Writer};
    use eraflow::formats::execution::{decompress, total_difficulty, BlockDecoders};
    use eraflow::formats::snappy::FramedDecoder;
    use eraflow::formats::MappedArchive;
    use eraflow::network::Network;
    use std::path::Path;

    struct Seeds<'a> {
        out: &'a Path,
        n: usize,
    }

    impl Seeds<'_> {
        fn add(&mut self, target: &str, bytes: &[u8]) {
            let dir = self.out.join(target);
            std::fs::create_dir_all(&dir).unwrap();
            let h = hex::encode(&eraflow::crypto::sha256::sha256(bytes)[..8]);
            std::fs::write(dir.join(format!("seed-{h}")), bytes).unwrap();
            self.n += 1;
        }
    }

    /// The first `blocks` blocks of an era1 file as an era1 file of their own.
    fn mini_era1(src: &Path, blocks: u64, dir: &Path) -> Vec<u8> {
        let f = Era1File::open(src).unwrap();
        let mut dec = BlockDecoders::default();
        let network = f.name().map_or("synthnet".into(), |n| n.network.clone());
        let mut w = Era1Writer::create(dir, &network).unwrap();
        for i in 0..blocks.min(f.block_count()) {
            let t = f.block(i).unwrap();
            let h = decompress(&mut dec.header, &t.header, src, t.number)
                .unwrap()
                .to_vec();
            let b = decompress(&mut dec.body, &t.body, src, t.number)
                .unwrap()
                .to_vec();
            let r = decompress(&mut dec.receipts, &t.receipts, src, t.number)
                .unwrap()
                .to_vec();
            w.add_block(t.number, &h, &b, &r, total_difficulty(&t.total_difficulty))
                .unwrap();
        }
        let p = w.finish().unwrap();
        let bytes = std::fs::read(&p).unwrap();
        std::fs::remove_file(p).unwrap();
        bytes
    }

    /// Decompressed headers, transactions and receipt lists, and compressed records, of `blocks` blocks.
    fn block_parts(s: &mut Seeds<'_>, src: &Path, blocks: &[u64]) {
        let f = Era1File::open(src).unwrap();
        let mut dec = BlockDecoders::default();
        for &i in blocks {
            let t = f.block(i).unwrap();
            s.add("snappy", t.header.data);
            s.add("snappy", t.body.data);
            s.add("snappy", t.receipts.data);
            let h = decompress(&mut dec.header, &t.header, src, t.number)
                .unwrap()
                .to_vec();
            s.add("header", &h);
            let b = decompress(&mut dec.body, &t.body, src, t.number).unwrap();
            let body = eraflow::execution::body::BodyView::decode(b).unwrap();
            for tx in body.transactions().take(3) {
                s.add("transaction", tx.unwrap().raw);
            }
            for o in body.ommers().take(1) {
                s.add("header", o.unwrap().raw);
            }
            let r = decompress(&mut dec.receipts, &t.receipts, src, t.number).unwrap();
            s.add("receipts", r);
        }
    }

    /// Blocks of `src` that hold transactions (up to `n`).
    fn blocks_with_txs(src: &Path, n: usize) -> Vec<u64> {
        let f = Era1File::open(src).unwrap();
        let mut dec = BlockDecoders::default();
        (0..f.block_count())
            .filter(|&i| {
                let t = f.block(i).unwrap();
                let b = decompress(&mut dec.body, &t.body, src, t.number).unwrap();
                eraflow::execution::body::BodyView::decode(b)
                    .unwrap()
                    .transactions()
                    .next()
                    .is_some()
            })
            .take(n)
            .collect()
    }

    pub fn write(out: &Path, data: &Path) {
        let tmp = tempfile::tempdir().unwrap();
        let mut s = Seeds { out, n: 0 };
        let real_era1 = [
            "era1/mainnet-00000-5ec1ffb8.era1",
            "era1/mainnet-00001-a5364e9a.era1",
            "era1/sepolia-00000-643a00f7.era1",
            "era1/sepolia-00021-b8814b14.era1",
        ];
        for rel in real_era1 {
            let p = data.join(rel);
            for blocks in [1, 2] {
                let mini = mini_era1(&p, blocks, tmp.path());
                s.add("era1", &mini);
                s.add("e2store", &mini);
            }
            let bytes = std::fs::read(&p).unwrap();
            s.add("e2store", &bytes[..4096]);
            block_parts(&mut s, &p, &[0, 1]);
        }
        let sepolia21 = data.join(real_era1[3]);
        block_parts(&mut s, &sepolia21, &blocks_with_txs(&sepolia21, 6));

        // Synthetic era1: every pre-merge transaction kind, logs, both receipt forms.
        let mut o = eraflow::synth::era1::SynthOptions::new(Network::by_name("synthnet").unwrap());
        o.blocks = 4100;
        o.txs_per_block = 3;
        let synth1 = eraflow::synth::era1::write(&tmp.path().join("s1"), &o)
            .unwrap()
            .remove(0);
        for blocks in [1, 3] {
            let mini = mini_era1(&synth1, blocks, tmp.path());
            s.add("era1", &mini);
        }
        block_parts(&mut s, &synth1, &[1, 2, 2049, 2050, 4097, 4098]);

        // era files: the real genesis ones with their state cut to a stub (the index target does not read it),
        // and synthetic ones whose blocks are small stand-ins.
        for rel in [
            "era/mainnet-00000-4b363db9.era",
            "era/sepolia-00000-d8ea171f.era",
        ] {
            let p = data.join(rel);
            let f = eraflow::formats::era::EraFile::open(&p).unwrap();
            let name = eraflow::formats::ArchiveName::of_path(&p).unwrap();
            let w = EraWriter::create(tmp.path(), &name.network, 0).unwrap();
            let st = w
                .finish(b"a stand-in for the state", &name.short_root)
                .unwrap();
            s.add("era_index", &std::fs::read(&st).unwrap());
            std::fs::remove_file(st).unwrap();
            s.add("e2store", &f.bytes()[..4096]);
            let state = FramedDecoder::new()
                .decompress(f.state_record().unwrap().data)
                .unwrap()
                .to_vec();
            s.add(
                "snappy",
                &eraflow::formats::snappy::compress_framed(&state[..4096]),
            );
        }
        for (era, slots) in [(1u64, vec![0u64, 5, 8191]), (3, vec![16384, 20000])] {
            let mut w = EraWriter::create(tmp.path(), "synthnet", era).unwrap();
            for slot in slots {
                w.add_block(slot, format!("block at {slot}").as_bytes())
                    .unwrap();
            }
            let p = w.finish(b"state", &[0, 0, 0, 0]).unwrap();
            let bytes = std::fs::read(&p).unwrap();
            std::fs::remove_file(p).unwrap();
            s.add("era_index", &bytes);
            s.add("e2store", &bytes);
        }

        // Beacon blocks: the spec tests' random phase0 blocks, real mainnet blocks (signed bellatrix; unsigned
        // bellatrix, capella, deneb from the portal tests), erigon's test chains, and synthetic ones of
        // every fork.
        let fork_byte =
            |f: eraflow::consensus::Fork| ALL_FORKS.iter().position(|x| *x == f).unwrap() as u8;
        let with = |sel: u8, b: &[u8]| [&[sel][..], b].concat();
        for case in 0..5 {
            let p = data.join(format!(
                "ssz/spec-tests-v1.0.0/mainnet/phase0/ssz_static/SignedBeaconBlock/ssz_random/case_{case}/serialized.ssz"
            ));
            if let Ok(b) = std::fs::read(p) {
                s.add("beacon_block", &with(0, &b));
            }
        }
        if let Ok(b) = std::fs::read(data.join("ssz/trin/signed_beacon_block_15537397.ssz")) {
            s.add(
                "beacon_block",
                &with(fork_byte(eraflow::consensus::Fork::Bellatrix), &b),
            );
        }
        for dir in std::fs::read_dir(data.join("ssz/portal"))
            .unwrap()
            .flatten()
        {
            let p = dir.path().join("block.ssz");
            let Ok(b) = std::fs::read(&p) else { continue };
            // Unsigned BeaconBlocks: the fork is whichever reads them.
            for f in ALL_FORKS {
                if eraflow::consensus::BeaconBlock::new(&b, eraflow::consensus::Spec::mainnet(f))
                    .is_ok_and(|x| x.body().is_ok())
                {
                    s.add("beacon_block", &with(0x80 | fork_byte(f), &b));
                    break;
                }
            }
        }
        for chain in ["chain-bellatrix", "chain-capella", "chain-phase0"] {
            let dir = data.join("ssz/erigon").join(chain);
            for k in [0, 1] {
                let Ok(c) = std::fs::read(dir.join(format!("blocks_{k}.ssz_snappy"))) else {
                    continue;
                };
                let b = snap::raw::Decoder::new().decompress_vec(&c).unwrap();
                for f in ALL_FORKS {
                    if eraflow::consensus::SignedBeaconBlock::new(
                        &b,
                        eraflow::consensus::Spec::mainnet(f),
                    )
                    .is_ok_and(|x| x.message().is_ok_and(|m| m.body().is_ok()))
                    {
                        s.add("beacon_block", &with(fork_byte(f), &b));
                        break;
                    }
                }
            }
        }
        for f in ALL_FORKS {
            s.add(
                "beacon_block",
                &with(
                    fork_byte(f),
                    &synth::signed_block(eraflow::consensus::Spec::mainnet(f), 100, 7),
                ),
            );
            // The state target: each fork's template untouched, and with a few edits near the end.
            s.add("beacon_state", &[fork_byte(f), 0, 0]);
            s.add(
                "beacon_state",
                &[fork_byte(f), 0, 0, 4, 0, 0, 0x80, 1, 200, 0, 0, 0x80, 0x40],
            );
        }
        // Post-merge transactions of types 3 and 4 come from a synthetic era file's payloads.
        let net = Network::by_name("synthnet").unwrap();
        let mut eo = eraflow::synth::era::EraSynthOptions::new(net.clone());
        eo.era = eraflow::synth::era::EraSynthOptions::era_of_fork(
            &net,
            eraflow::consensus::Fork::Electra,
        )
        .unwrap();
        eo.blocks = 2;
        eo.validators = 4;
        eo.txs_per_block = 5;
        let era = eraflow::synth::era::write(&tmp.path().join("se"), &eo)
            .unwrap()
            .remove(0);
        let (blocks, _) = crate::util::unpack_era(&era);
        for (_, b) in &blocks {
            s.add(
                "beacon_block",
                &with(fork_byte(eraflow::consensus::Fork::Electra), b),
            );
            let m = eraflow::consensus::SignedBeaconBlock::new(
                b,
                eraflow::consensus::Spec::mainnet(eraflow::consensus::Fork::Electra),
            )
            .unwrap()
            .message()
            .unwrap();
            let body = m.body().unwrap();
            let p = body.execution_payload().unwrap().unwrap();
            for t in p.transactions().unwrap() {
                // A typed transaction as a block body holds it: an RLP string around type || payload.
                let mut item = Vec::new();
                alloy_rlp::Header {
                    list: false,
                    payload_length: t.len(),
                }
                .encode(&mut item);
                item.extend_from_slice(t);
                s.add("transaction", &item);
            }
        }
        // ere files: a pre-merge era of every pre-merge kind, synthnet's merge era (merge, Shanghai, Cancun and
        // Prague blocks) and a post-merge one, in both profiles, small; and the slim receipt lists they hold.
        for (era, first, blocks) in [(0u64, 0u64, 3u64), (122, 0, 2), (122, 577, 2), (123, 0, 2)] {
            for no_receipts in [false, true] {
                let dir = tmp.path().join(format!("ere-{era}-{first}-{no_receipts}"));
                let mut chain = eraflow::synth::era1::SynthOptions::new(net.clone());
                (chain.era, chain.blocks, chain.txs_per_block) = (era, first + blocks, 5);
                let opts = eraflow::synth::ere::EreSynthOptions {
                    chain,
                    profile: eraflow::formats::EreProfile {
                        no_proofs: true,
                        no_receipts,
                    },
                };
                let p = eraflow::synth::ere::write(&dir, &opts).unwrap().remove(0);
                let f = eraflow::formats::ere::EreFile::open(&p).unwrap();
                if first == 0 {
                    s.add("ere", &std::fs::read(&p).unwrap());
                }
                let mut dec = BlockDecoders::default();
                for i in first..first + blocks {
                    if let Some(r) = f.block(i).unwrap().receipts {
                        s.add("slim_receipts", dec.receipts.decompress(r.data).unwrap());
                    }
                }
            }
        }
        // Raw framing oddities.
        s.add(
            "snappy",
            &[0xff, 6, 0, 0, b's', b'N', b'a', b'P', b'p', b'Y'],
        );
        s.add(
            "snappy",
            &eraflow::formats::snappy::compress_framed(&[0u8; 70_000]),
        );
        for r in E2StoreReader::new(&std::fs::read(&synth1).unwrap()[..2048])
            .flatten()
            .take(4)
        {
            if r.kind == RecordType::COMPRESSED_BODY {
                s.add("snappy", r.data);
            }
        }
        eprintln!("wrote {} seeds to {}", s.n, out.display());
    }
}
