//! Helpers more than one test module needs: one copy each.

use arrow_array::RecordBatch;
use eraflow::datasets;
use eraflow::export::ExportOptions;
use eraflow::formats::era::EraFile;
use eraflow::formats::snappy::FramedDecoder;
use eraflow::formats::MappedArchive;
use std::path::{Path, PathBuf};

/// Export options writing every dataset to `out`, with or without sender recovery.
pub fn export_opts(out: &Path, senders: bool) -> ExportOptions {
    ExportOptions {
        senders,
        ..ExportOptions::new(out.to_path_buf(), datasets::all_with_senders(senders))
    }
}

/// The export's default datasets, as `configs/default.toml` lists them (what the command exports without
/// `--datasets`).
pub fn default_datasets() -> Vec<String> {
    let config: toml::Value = toml::from_str(eraflow::pipeline::config::DEFAULTS).unwrap();
    config["export"]["datasets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

/// A whole Parquet file as one record batch.
pub fn read_parquet(path: &Path) -> RecordBatch {
    let f = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let builder =
        parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(f).unwrap();
    let schema = builder.schema().clone();
    let batches: Vec<RecordBatch> = builder.build().unwrap().map(|b| b.unwrap()).collect();
    arrow_select::concat::concat_batches(&schema, &batches).unwrap()
}

/// Every file under `dir`, recursively, sorted.
pub fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = walk(dir);
    v.sort();
    v
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// (path relative to `dir`, bytes) of every output file under `dir`, sorted; run reports (`runs/`) and the
/// inputs' kept hashes (`_eraflow/hashes/`, named by this machine's devices and inodes) left out, eraflow's
/// JSON files [`normalized`].
pub fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    files_in(dir)
        .into_iter()
        .filter(|p| !p.to_string_lossy().contains("/runs/"))
        .map(|p| p.strip_prefix(dir).unwrap().to_path_buf())
        .filter(|rel| !rel.starts_with("_eraflow/hashes"))
        .map(|rel| {
            let bytes = std::fs::read(dir.join(&rel)).unwrap();
            (rel.clone(), normalized(&rel, bytes))
        })
        .collect()
}

/// A file of an output as it compares across runs: completion records and manifests without what proves an
/// output unchanged (its modification time or ETag, a record's ETag), which differs from write to write of the
/// same bytes; anything else as it is.
pub fn normalized(rel: &Path, bytes: Vec<u8>) -> Vec<u8> {
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                m.remove("mtime_ns");
                m.remove("etag");
                m.remove("record_etags");
                m.values_mut().for_each(strip);
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let json = rel.starts_with("_eraflow") && rel.extension().is_some_and(|e| e == "json");
    match json
        .then(|| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
        .flatten()
    {
        Some(mut v) => {
            strip(&mut v);
            serde_json::to_vec_pretty(&v).unwrap()
        }
        None => bytes,
    }
}

/// `0x` and lowercase hex.
pub fn hex0x(h: &[u8]) -> String {
    format!("0x{}", hex::encode(h))
}

/// The decompressed blocks (slot, bytes) and state of an era file.
pub fn unpack_era(p: &Path) -> (Vec<(u64, Vec<u8>)>, Vec<u8>) {
    let f = EraFile::open(p).unwrap();
    let mut dec = FramedDecoder::new();
    let mut blocks = Vec::new();
    let idx = f.block_index().unwrap();
    for i in 0..idx.offsets.len() as u64 {
        let slot = idx.start_slot + i;
        if let Some(r) = f.block_record(slot).unwrap() {
            blocks.push((slot, dec.decompress(r.data).unwrap().to_vec()));
        }
    }
    let state = dec
        .decompress(f.state_record().unwrap().data)
        .unwrap()
        .to_vec();
    (blocks, state)
}

/// Writes a synthnet era file from parts (as [`unpack_era`] gives them) in `dir`, under the name of `like` (its
/// hash8 kept, whatever the parts now hash to).
pub fn repack_era(
    dir: &Path,
    like: &Path,
    era: u64,
    blocks: &[(u64, Vec<u8>)],
    state: &[u8],
) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let mut w = eraflow::formats::era::EraWriter::create(dir, "synthnet", era).unwrap();
    for (slot, b) in blocks {
        w.add_block(*slot, b).unwrap();
    }
    let name = like.file_name().unwrap().to_str().unwrap();
    let hash = hex::decode(&name[name.len() - 12..name.len() - 4]).unwrap();
    w.finish(state, &hash).unwrap()
}

/// `tests/crosscheck` when node and its npm packages are installed (`npm ci --prefix tests/crosscheck`); else
/// `None` after a loud SKIP line naming `what` (a panic when `ERAFLOW_REQUIRE_CROSSCHECK` is set, as in CI).
pub fn lodestar(what: &str) -> Option<PathBuf> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/crosscheck");
    let missing = !here.join("node_modules/@lodestar/types").exists();
    if missing && std::env::var_os("ERAFLOW_REQUIRE_CROSSCHECK").is_some() {
        panic!("ERAFLOW_REQUIRE_CROSSCHECK is set but tests/crosscheck/node_modules is missing (npm ci --prefix tests/crosscheck)");
    }
    if missing
        || std::process::Command::new("node")
            .arg("--version")
            .output()
            .is_err()
    {
        crate::skip::skip(
            what,
            "node or tests/crosscheck/node_modules missing (npm ci --prefix tests/crosscheck)",
        );
        return None;
    }
    Some(here)
}

/// A network of `preset` whose forks come every 2 eras (synthnet's schedule, in slots).
pub fn preset_network(preset: eraflow::consensus::Preset) -> eraflow::network::Network {
    let mut n = eraflow::network::Network::by_name("synthnet").unwrap();
    if preset == eraflow::consensus::Preset::Gnosis {
        let c = &mut n.consensus;
        // Half-length epochs: twice the epochs keep every fork at synthnet's slot.
        for e in [
            &mut c.altair_epoch,
            &mut c.bellatrix_epoch,
            &mut c.capella_epoch,
            &mut c.deneb_epoch,
            &mut c.electra_epoch,
            &mut c.fulu_epoch,
        ] {
            *e *= 2;
        }
        c.preset = eraflow::consensus::Preset::Gnosis;
        c.seconds_per_slot = 5;
        n.name = "synthgnosis".into();
    }
    n
}

/// The `eraflow` binary, for command-line tests.
pub fn eraflow() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_eraflow"))
}

/// `eraflow synth`: `files` chained synthnet era1 files of `blocks` blocks (2 transactions each) from era 0
/// in `dir`; their paths, sorted.
pub fn synth_era1_files(dir: &Path, files: u64, blocks: u64) -> Vec<PathBuf> {
    let out = eraflow()
        .args(["synth", "--era", "0", "--txs-per-block", "2", "--out"])
        .arg(dir)
        .args([
            "--files",
            &files.to_string(),
            "--blocks",
            &blocks.to_string(),
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "synth: {out:?}");
    let mut v: Vec<PathBuf> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(PathBuf::from)
        .collect();
    v.sort();
    v
}

/// A synthetic synthnet era1 file of `blocks` blocks from era 0, written into `dir`.
pub fn synth_era1(dir: &Path, blocks: u64, txs_per_block: u32) -> PathBuf {
    let mut o = eraflow::synth::era1::SynthOptions::new(
        eraflow::network::Network::by_name("synthnet").unwrap(),
    );
    o.blocks = blocks;
    o.txs_per_block = txs_per_block;
    eraflow::synth::era1::write(dir, &o).unwrap().remove(0)
}

/// Rewrites the era1 file `src` into `dir` through the writer, block by block: `edit(number, header, body,
/// receipts)` may change a block's uncompressed RLP (the writer compresses it; the accumulator and the name
/// follow the new header hashes). Returns the new file.
pub fn rewrite_era1(
    src: &Path,
    dir: &Path,
    mut edit: impl FnMut(u64, &mut Vec<u8>, &mut Vec<u8>, &mut Vec<u8>),
) -> PathBuf {
    use eraflow::formats::era1::{Era1File, Era1Writer};
    use eraflow::formats::execution::{decompress, total_difficulty, BlockDecoders};
    let f = Era1File::open(src).unwrap();
    let network = f.name().map(|n| n.network.clone()).unwrap();
    let mut dec = BlockDecoders::default();
    std::fs::create_dir_all(dir).unwrap();
    let mut w = Era1Writer::create(dir, &network).unwrap();
    for i in 0..f.block_count() {
        let t = f.block(i).unwrap();
        let mut header = decompress(&mut dec.header, &t.header, src, t.number)
            .unwrap()
            .to_vec();
        let mut body = decompress(&mut dec.body, &t.body, src, t.number)
            .unwrap()
            .to_vec();
        let mut receipts = decompress(&mut dec.receipts, &t.receipts, src, t.number)
            .unwrap()
            .to_vec();
        edit(t.number, &mut header, &mut body, &mut receipts);
        w.add_block(
            t.number,
            &header,
            &body,
            &receipts,
            total_difficulty(&t.total_difficulty),
        )
        .unwrap();
    }
    w.finish().unwrap()
}

/// Runs `cmd` and returns (exit code, stdout, stderr); `None` as the code when a signal ended it.
pub fn run(cmd: &mut std::process::Command) -> (Option<i32>, String, String) {
    let o = cmd.output().unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The execution blocks of synthetic era files' payloads, in file order: number, header fields, body RLP (the
/// blocks before Gloas: after it blocks carry bids, not payloads).
pub fn era_payload_blocks(
    era_files: &[PathBuf],
    net: &eraflow::network::Network,
) -> Vec<(u64, eraflow::execution::header::HeaderFields, Vec<u8>)> {
    use eraflow::consensus::{Fork, SignedBeaconBlock};
    use eraflow::execution::header::wrap_list;
    use eraflow::execution::tx_request::TxRequest;
    let blocks: Vec<(u64, Vec<u8>)> = era_files.iter().flat_map(|f| unpack_era(f).0).collect();
    blocks
        .into_iter()
        .filter(|(slot, _)| net.gloas_slot().is_none_or(|g| *slot < g))
        .map(|(slot, bytes)| {
            let signed =
                SignedBeaconBlock::new(&bytes, eraflow::consensus::Spec::at_slot(slot, net))
                    .unwrap();
            let block = signed.message().unwrap();
            let fields = eraflow::verify::payload::header_from_payload(&block).unwrap();
            let payload = block.body().unwrap().execution_payload().unwrap().unwrap();
            let txs: Vec<Vec<u8>> = payload
                .transactions()
                .unwrap()
                .map(TxRequest::body_item)
                .collect();
            let mut body = vec![wrap_list(&txs.concat()), wrap_list(&[])];
            // Withdrawals from Capella's payloads (Shanghai's bodies) on.
            if payload.fork() >= Fork::Capella {
                let withdrawals: Vec<Vec<u8>> = payload
                    .withdrawals()
                    .unwrap()
                    .iter()
                    .map(|w| w.encode())
                    .collect();
                body.push(wrap_list(&withdrawals.concat()));
            }
            (payload.block_number(), fields, wrap_list(&body.concat()))
        })
        .collect()
}

/// An ere file (no receipts: era files carry none) holding the execution payloads of synthetic era files, block
/// for block in file order; `edit_last` may change the last block's header before it is written.
pub fn ere_from_era_payloads(
    era_files: &[PathBuf],
    net: &eraflow::network::Network,
    out: &Path,
    edit_last: impl Fn(&mut eraflow::execution::header::HeaderFields),
) -> PathBuf {
    ere_of_blocks(
        era_payload_blocks(era_files, net),
        &net.name,
        out,
        edit_last,
    )
}

/// An ere file (no receipts) of `blocks` (number, header fields, body RLP) in order, each header chained to the
/// one before it (asserted); `edit_last` may change the last block's header before it is written.
pub fn ere_of_blocks(
    mut blocks: Vec<(u64, eraflow::execution::header::HeaderFields, Vec<u8>)>,
    network: &str,
    out: &Path,
    edit_last: impl Fn(&mut eraflow::execution::header::HeaderFields),
) -> PathBuf {
    use eraflow::formats::ere::{EreBlock, EreWriter};
    if let Some((_, fields, _)) = blocks.last_mut() {
        edit_last(fields);
    }
    let mut w = EreWriter::create(out, network).unwrap();
    let mut parent = None;
    for (number, fields, body) in blocks {
        if let Some(p) = parent {
            assert_eq!(fields.parent_hash.0, p, "block {number}");
        }
        let raw = fields.encode();
        parent = Some(eraflow::crypto::keccak::keccak256(&raw).0);
        w.add_block(&EreBlock {
            number,
            header: &raw,
            body: &body,
            slim_receipts: None,
            total_difficulty: None,
            pre_merge: false,
            proof: None,
        })
        .unwrap();
    }
    w.finish().unwrap()
}

/// Runs `cmd`, asserts it succeeded, and returns its stdout and stderr (`what` names it in the failure).
pub fn run_ok(cmd: &mut std::process::Command, what: &str) -> String {
    let o = cmd.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.status.success(), "{what}: {text}");
    text
}

/// Runs `tests/python/<script>` with `args`, asserts it succeeded, and returns its stdout and stderr.
pub fn python_ok(script: &str, args: &[&str]) -> String {
    let path = format!("{}/tests/python/{script}", env!("CARGO_MANIFEST_DIR"));
    run_ok(
        std::process::Command::new("python3").arg(path).args(args),
        &format!("{script} {args:?}"),
    )
}

/// Synthnet archives full of token events and look-alikes (`synth --tokens`, 2 transactions a block): an era1
/// file from genesis of `era1_blocks` blocks under `dir/era1`, and an ere file (no proofs, slim receipts) of era 3
/// with `ere_blocks` blocks under `dir/ere`.
pub fn token_archives(
    dir: &Path,
    era1_blocks: u64,
    ere_blocks: u64,
) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let net = eraflow::network::Network::by_name("synthnet").unwrap();
    let mut o = eraflow::synth::era1::SynthOptions::new(net);
    (o.blocks, o.txs_per_block, o.tokens) = (era1_blocks, 2, true);
    let era1 = eraflow::synth::era1::write(&dir.join("era1"), &o).unwrap();
    let ere = eraflow::synth::ere::write(
        &dir.join("ere"),
        &eraflow::synth::ere::EreSynthOptions {
            chain: eraflow::synth::era1::SynthOptions {
                era: 3,
                blocks: ere_blocks,
                seed: 7,
                ..o
            },
            profile: eraflow::formats::EreProfile {
                no_proofs: true,
                no_receipts: false,
            },
        },
    )
    .unwrap();
    (era1, ere)
}

/// Every file directly in `dir` by name, with its bytes, sorted by name (a manifest directory, compared byte
/// for byte).
pub fn listing(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

/// Every error of a verification report, one a line.
pub fn report_errors(r: &eraflow::verify::report::FileReport) -> String {
    r.errors
        .iter()
        .map(|e| e.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Builds each dataset's rows of verified blocks directly (a one-block file does not start its era, so export
/// refuses it; every per-block check still runs).
pub struct Rows {
    pub datasets: Vec<&'static dyn datasets::Dataset>,
    pub ctx: datasets::ExportContext,
}

impl eraflow::verify::Visitor for Rows {
    type Chunk = Vec<Box<dyn datasets::DatasetBuilder>>;
    fn start_chunk(&self, _: u64) -> Self::Chunk {
        self.datasets.iter().map(|d| d.builder(self.ctx)).collect()
    }
    fn block(&self, chunk: &mut Self::Chunk, block: &eraflow::verify::VerifiedBlock<'_>) {
        for b in chunk {
            b.add_block(block);
        }
    }
}

/// Each real mainnet block of the Portal block data (`portal/block_data/*.yaml`: header, body, slim receipts),
/// in name order, written under `tmp` as a one-block ere file with the project's writer: (number, path).
pub fn portal_block_files(data: &Path, tmp: &Path) -> Vec<(u64, PathBuf)> {
    use eraflow::formats::ere::{EreBlock, EreWriter};
    let mut yamls: Vec<_> = std::fs::read_dir(data.join("portal/block_data"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    yamls.sort();
    yamls
        .into_iter()
        .map(|yaml| {
            let text = std::fs::read_to_string(&yaml).unwrap();
            let field = |key: &str| {
                let line = text
                    .lines()
                    .find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))
                    .unwrap_or_else(|| panic!("{}: no {key}", yaml.display()));
                hex::decode(line.trim().trim_start_matches("0x")).unwrap()
            };
            let (header, body, receipts) = (field("header"), field("body"), field("receipts"));
            let number = eraflow::execution::header::HeaderView::decode(&header)
                .unwrap()
                .number();
            let mut w = EreWriter::create(&tmp.join(number.to_string()), "mainnet").unwrap();
            w.add_block(&EreBlock {
                number,
                header: &header,
                body: &body,
                slim_receipts: Some(&receipts),
                total_difficulty: None,
                pre_merge: false,
                proof: None,
            })
            .unwrap();
            (number, w.finish().unwrap())
        })
        .collect()
}

/// Writes `batch` as `OUT/<dataset>/network=mainnet/<number:09>.parquet` (the layout the Python oracles read).
pub fn write_rows(out: &Path, dataset: &str, number: u64, batch: &RecordBatch) {
    let dir = out.join(dataset).join("network=mainnet");
    std::fs::create_dir_all(&dir).unwrap();
    let file = std::fs::File::create(dir.join(format!("{number:09}.parquet"))).unwrap();
    let mut w = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), None).unwrap();
    w.write(batch).unwrap();
    w.close().unwrap();
}
