//! Default-profile ere files written by `eraflow convert` (#20): the real mainnet era1 files become ere files whose
//! every type 0 proof verifies against the embedded accumulator; real mainnet beacon blocks, put in era files
//! with their periods' real roots, give the published Portal proofs of types 1 to 3 byte for byte; a synthetic
//! chain crossing Bellatrix, Capella and Deneb converts end to end with proofs of each type that verify against
//! anchors taken from its own era files; any flipped bit in a written proof fails; non-canonical eras, networks
//! without an accumulator and post-merge blocks without their beacon blocks are refused, by name, and nothing is
//! written for them.

use crate::canonical::{json_vectors, summaries_bytes, vector, SUMMARIES_SLOT, VECTORS};
use crate::testdata;
use crate::util::{eraflow, ere_from_era_payloads, files_in, run, unpack_era};
use eraflow::canonical::{
    verify_proof, Anchor, Anchors, BlockId, HistoricalHashesAccumulator, HistoricalRoots,
    HistoricalSummaries, ProofType,
};
use eraflow::consensus::{self, BeaconBlock, BeaconState, Fork};
use eraflow::convert::proofs::{prove_archive, EraFiles};
use eraflow::convert::{convert, ConvertOptions, Converted};
use eraflow::execution::header::HeaderView;
use eraflow::formats::era::EraWriter;
use eraflow::formats::ere::{EreBlock, EreFile, EreWriter};
use eraflow::formats::execution::decompress;
use eraflow::formats::snappy::FramedDecoder;
use eraflow::formats::MappedArchive;
use eraflow::formats::{ArchiveName, EreProfile, ExecutionArchive};
use eraflow::network::Network;
use eraflow::synth::era::{EraSynthOptions, GENESIS_TIME};
use eraflow::verify::{verify_archives, VerifyOptions};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn mainnet() -> Network {
    Network::by_name("mainnet").unwrap()
}

fn to_ere(out: &Path, profile: Option<EreProfile>, era_files: &[PathBuf]) -> ConvertOptions {
    ConvertOptions {
        to: "ere".parse().unwrap(),
        out: out.to_path_buf(),
        profile,
        network: None,
        era_files: era_files.to_vec(),
        accumulator: None,
    }
}

const DEFAULT: EreProfile = EreProfile {
    no_proofs: false,
    no_receipts: false,
};

fn errors(c: &Converted) -> Vec<String> {
    c.report.errors.iter().map(|e| e.to_string()).collect()
}

/// Each block's id and its `Proof` record's type and SSZ, in block order.
fn proofs_of(path: &Path) -> Vec<(BlockId, u64, Vec<u8>)> {
    let ere = EreFile::open(path).unwrap();
    let mut dec = FramedDecoder::new();
    (0..ere.block_count())
        .map(|i| {
            let r = ere.block(i).unwrap();
            let header = decompress(&mut dec, &r.header, path, r.number)
                .unwrap()
                .to_vec();
            let raw = decompress(&mut dec, &r.proof.unwrap(), path, r.number).unwrap();
            let p = eraflow::verify::proof::decode(raw).unwrap();
            let id = BlockId::of(&HeaderView::decode(&header).unwrap());
            assert_eq!(id.number, r.number);
            (id, p.proof_type, p.ssz.to_vec())
        })
        .collect()
}

/// Every bit of `ssz` flipped in turn makes the proof fail, and fail as a wrong proof, not for want of an anchor.
fn every_flipped_bit_fails(net: &Network, id: &BlockId, ty: u64, ssz: &[u8], anchors: &Anchors) {
    let mut bad = ssz.to_vec();
    for bit in 0..8 * bad.len() {
        bad[bit / 8] ^= 1 << (bit % 8);
        match verify_proof(net, id, ty, &bad, anchors) {
            Ok(p) => panic!("block {}: bit {bit} flipped still proves {p:?}", id.number),
            Err(e) => assert!(!e.is_unanchored(), "block {}, bit {bit}: {e}", id.number),
        }
        bad[bit / 8] ^= 1 << (bit % 8);
    }
    verify_proof(net, id, ty, &bad, anchors).unwrap();
}

/// `eraflow verify --json` of one file, parsed.
fn verify_json(file: &Path, network: Option<&Path>) -> serde_json::Value {
    let mut cmd = eraflow();
    cmd.arg("verify").arg("--json").arg(file);
    if let Some(n) = network {
        cmd.arg("--network").arg(n);
    }
    let (code, out, err) = run(&mut cmd);
    assert_eq!(code, Some(0), "{out}{err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[test]
fn real_mainnet_era1_files_become_ere_files_whose_every_proof_verifies() {
    let Some(dir) = testdata::dir("ere proofs: mainnet era1 to ere") else {
        return;
    };
    let inputs: Vec<PathBuf> = ["mainnet-00000-5ec1ffb8.era1", "mainnet-00001-a5364e9a.era1"]
        .iter()
        .map(|n| dir.join("era1").join(n))
        .collect();
    let tmp = tempfile::tempdir().unwrap();
    // No profile given: mainnet has an accumulator, so the default profile.
    let converted = convert(&inputs, &to_ere(tmp.path(), None, &[]));
    // Published proofs, by block: none falls in eras 0 and 1 today (the earliest is of era 122, rebuilt from the
    // published epoch record in `canonical`), but any that does must be what the converter wrote.
    let mut published: BTreeMap<u64, Vec<u8>> = json_vectors(&dir)
        .into_iter()
        .map(|(n, v)| (n, v.proof))
        .collect();
    for &(n, _) in VECTORS {
        published.insert(n, vector(&dir, n).proof);
    }
    let n = mainnet();
    let anchors = Anchors::embedded(&n);
    for (era, c) in converted.iter().enumerate() {
        let era = era as u64;
        let out = c
            .output
            .clone()
            .unwrap_or_else(|| panic!("{:#?}", c.report));
        let name = ArchiveName::of_path(&out).unwrap();
        assert_eq!((name.era, name.profile), (era, DEFAULT));
        assert!(!out.to_string_lossy().contains("noproofs"), "{out:?}");
        let proofs = proofs_of(&out);
        assert_eq!(proofs.len(), 8192);
        for (id, ty, ssz) in &proofs {
            assert_eq!(*ty, 0, "block {}", id.number);
            let p = verify_proof(&n, id, *ty, ssz, &anchors)
                .unwrap_or_else(|e| panic!("block {}: {e}", id.number));
            assert_eq!(p.anchor, Anchor::Accumulator { era });
            if let Some(want) = published.get(&id.number) {
                assert_eq!(ssz, want, "block {}: the published proof", id.number);
            }
        }
        // A flipped bit anywhere in a written proof fails: the first, a middle and the last block of the era.
        for i in [0, 4095, 8191] {
            let (id, ty, ssz) = &proofs[i];
            every_flipped_bit_fails(&n, id, *ty, ssz, &anchors);
        }
        // `eraflow verify` passes the file and counts its proofs by type.
        let v = verify_json(&out, None);
        assert_eq!(v["ok"], true, "{v}");
        assert_eq!(v["ere"]["profile"], "default", "{v}");
        assert_eq!(
            v["ere"]["proof_types"],
            serde_json::json!({"0": 8192}),
            "{v}"
        );
    }
}

#[test]
fn the_command_line_writes_proofs_by_default_on_mainnet_only() {
    let Some(dir) = testdata::dir("ere proofs: convert on the command line") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let mainnet0 = dir.join("era1/mainnet-00000-5ec1ffb8.era1");
    let sepolia = dir.join("era1/sepolia-00000-643a00f7.era1");
    let convert = |args: &[&str], input: &Path| {
        run(eraflow()
            .args(["convert", "--to", "ere", "--out"])
            .arg(&out)
            .args(args)
            .arg(input))
    };
    let (code, stdout, err) = convert(&[], &mainnet0);
    assert_eq!(code, Some(0), "{stdout}{err}");
    assert_eq!(
        stdout.trim(),
        out.join("mainnet-00000-a6860fef.ere").display().to_string()
    );
    // Sepolia: no accumulator, so noproofs unless the default profile is asked for, which is refused.
    let (code, stdout, err) = convert(&[], &sepolia);
    assert_eq!(code, Some(0), "{stdout}{err}");
    assert!(stdout.trim().ends_with("-noproofs.ere"), "{stdout}");
    let (code, stdout, err) = convert(&["--profile", "default"], &sepolia);
    assert_eq!(code, Some(1), "{stdout}{err}");
    let message = format!(
        "{}: no accumulator for network sepolia: use --profile noproofs",
        sepolia.display()
    );
    assert!(stdout.contains(&message), "{stdout}{err}");
    assert_eq!(files_in(&out).len(), 2, "nothing more written");
    // The flag is documented.
    let (_, help, _) = run(eraflow().args(["convert", "--help"]));
    assert!(
        help.contains("--era-files") && help.contains("noproofs"),
        "{help}"
    );
}

#[test]
fn sepolia_is_refused_the_default_profile() {
    let Some(file) = testdata::file("era1/sepolia-00021-b8814b14.era1") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let c = convert(
        std::slice::from_ref(&file),
        &to_ere(tmp.path(), Some(DEFAULT), &[]),
    )
    .remove(0);
    assert!(c.output.is_none());
    assert_eq!(
        errors(&c),
        [format!(
            "{}: no accumulator for network sepolia: use --profile noproofs",
            file.display()
        )]
    );
    assert!(files_in(tmp.path()).is_empty());
}

#[test]
fn a_synthetic_era1_file_claiming_to_be_mainnet_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let mut o = eraflow::synth::era1::SynthOptions::new(mainnet());
    o.blocks = 16;
    o.txs_per_block = 0;
    let path = eraflow::synth::era1::write(&tmp.path().join("in"), &o)
        .unwrap()
        .remove(0);
    let out = tmp.path().join("out");
    let c = convert(std::slice::from_ref(&path), &to_ere(&out, None, &[])).remove(0);
    assert!(c.output.is_none());
    let found = *eraflow::formats::era1::Era1File::open(&path)
        .unwrap()
        .accumulator_root();
    let expected = HistoricalHashesAccumulator::mainnet()
        .epoch_root(0)
        .unwrap();
    assert_eq!(
        errors(&c),
        [format!(
            "era 0 of {} is not mainnet's canonical era: accumulator root 0x{}, expected 0x{}",
            path.display(),
            hex::encode(found),
            hex::encode(expected)
        )]
    );
    assert!(!out.exists() || files_in(&out).is_empty());
}

/// The era and state slot of the real beacon block `block.ssz`, and an era file of that era holding it (with a
/// zero signature) and a made-up state carrying the period's real roots: its `block_roots` (and `state_roots`
/// when published), mainnet's `historical_roots` as of that slot, and the real `historical_summaries` as of that
/// slot (a prefix of those of slot 11476992).
fn real_era_file(dir: &Path, number: u64, out: &Path) -> PathBuf {
    let n = mainnet();
    let base = dir.join(format!("ssz/portal/{number}"));
    let message = std::fs::read(base.join("block.ssz")).unwrap();
    let slot = consensus::slot_of(&message, consensus::Kind::Block).unwrap();
    let era = slot / 8192 + 1;
    let state_slot = era * 8192;
    let batch = match std::fs::read(base.join("historical_batch.ssz")) {
        Ok(b) => b,
        Err(_) => [
            std::fs::read(base.join("block_roots.ssz")).unwrap(),
            vec![0u8; 8192 * 32],
        ]
        .concat(),
    };
    let spec = consensus::Spec::at_slot(state_slot, &n);
    let fork = spec.fork;
    let capella = Fork::Capella.activation_slot(&n).unwrap();
    let roots = std::fs::read(dir.join("ssz/trin/historical_roots.ssz")).unwrap();
    let roots = &roots[..roots.len().min(32 * era as usize)];
    let summaries = summaries_bytes(dir);
    let summaries = &summaries[..64 * (state_slot.saturating_sub(capella) / 8192) as usize];
    let (genesis_time, slot_le) = (GENESIS_TIME.to_le_bytes(), state_slot.to_le_bytes());
    let mut fields: Vec<(&str, &[u8])> = vec![
        ("genesis_time", &genesis_time),
        ("slot", &slot_le),
        ("block_roots", &batch[..8192 * 32]),
        ("state_roots", &batch[8192 * 32..]),
        ("historical_roots", roots),
    ];
    if fork >= Fork::Capella {
        fields.push(("historical_summaries", summaries));
    }
    let state = consensus::ssz::with_fields(
        spec.state_schema(),
        &consensus::synth::state(spec, 1, number),
        &fields,
    )
    .unwrap();
    let signed = [&100u32.to_le_bytes()[..], &[0u8; 96], &message].concat();
    std::fs::create_dir_all(out).unwrap();
    let mut w = EraWriter::create(out, "mainnet", era).unwrap();
    w.add_block(slot, &signed).unwrap();
    w.finish(&state, &[0; 4]).unwrap()
}

#[test]
fn real_beacon_blocks_in_era_files_give_the_published_proofs() {
    let Some(dir) = testdata::dir("ere proofs: real beacon blocks") else {
        return;
    };
    assert_eq!(GENESIS_TIME, 1_606_824_023, "mainnet's genesis time");
    let n = mainnet();
    let tmp = tempfile::tempdir().unwrap();
    let mut types = BTreeMap::new();
    for &(number, _) in VECTORS.iter().filter(|(b, _)| n.is_merged(*b)) {
        let v = vector(&dir, number);
        let h = HeaderView::decode(&v.header).unwrap();
        let at = tmp.path().join(number.to_string());
        let era_file = real_era_file(&dir, number, &at.join("era"));
        // A one-block ere file: proofs are built from headers, before (and apart from) verification.
        let mut w = EreWriter::create(&at.join("ere"), "mainnet").unwrap();
        w.add_block(&EreBlock {
            number,
            header: &v.header,
            body: &[0xc2, 0xc0, 0xc0],
            slim_receipts: None,
            total_difficulty: None,
            pre_merge: false,
            proof: None,
        })
        .unwrap();
        let ere = ExecutionArchive::open(&w.finish().unwrap()).unwrap();
        let era_files = EraFiles::open(&[era_file]).unwrap();
        let proofs = prove_archive(
            &ere,
            &n,
            HistoricalHashesAccumulator::of(&n),
            Some(&era_files),
        )
        .unwrap_or_else(|e| panic!("block {number}: {e}"));
        let record = proofs.record(number, &h.hash().0).unwrap();
        let p = eraflow::verify::proof::decode(record).unwrap();
        assert_eq!(p.ssz, &v.proof[..], "block {number}: the published proof");
        let ty = ProofType::for_block(&n, number, h.timestamp());
        assert_eq!(p.proof_type, ty.code());
        *types.entry(ty.code()).or_insert(0) += 1;
        // Handed out only for the hash it was built for.
        let e = proofs.record(number, &[0; 32]).unwrap_err();
        assert!(
            e.to_string().contains("its proof was built for block hash"),
            "{e}"
        );
    }
    assert_eq!(types, BTreeMap::from([(1, 5), (2, 4), (3, 2)]));
}

/// The real beacon block of a published proof and the period holding it, straight from the test data: the
/// per-block builder of the era-file path gives the published bytes.
#[test]
fn the_per_block_builder_gives_the_published_proofs() {
    let Some(dir) = testdata::dir("ere proofs: per-block builder") else {
        return;
    };
    use eraflow::convert::proofs::{beacon_block_proof, Period};
    let n = mainnet();
    let summaries =
        HistoricalSummaries::from_ssz(&n, SUMMARIES_SLOT, &summaries_bytes(&dir)).unwrap();
    let roots = std::fs::read(dir.join("ssz/trin/historical_roots.ssz")).unwrap();
    for &(number, _) in VECTORS.iter().filter(|(b, _)| n.is_merged(*b)) {
        let base = dir.join(format!("ssz/portal/{number}"));
        let message = std::fs::read(base.join("block.ssz")).unwrap();
        let slot = consensus::slot_of(&message, consensus::Kind::Block).unwrap();
        let block = BeaconBlock::new(&message, consensus::Spec::at_slot(slot, &n)).unwrap();
        let batch = match std::fs::read(base.join("historical_batch.ssz")) {
            Ok(b) => b,
            Err(_) => [
                std::fs::read(base.join("block_roots.ssz")).unwrap(),
                vec![0u8; 8192 * 32],
            ]
            .concat(),
        };
        let period = Period::new(&base, &batch, &roots, Some(summaries.clone())).unwrap();
        let v = vector(&dir, number);
        let id = BlockId::of(&HeaderView::decode(&v.header).unwrap());
        let record = beacon_block_proof(&n, &id, &block, &period)
            .unwrap_or_else(|e| panic!("block {number}: {e}"));
        assert_eq!(
            eraflow::verify::proof::decode(&record).unwrap().ssz,
            &v.proof[..],
            "block {number}"
        );
        // Roots the period's own do not lead to: refused, nothing handed out. A type 1 proof reaches mainnet's
        // embedded historical_roots, whatever the period's state says, so a batch with other state_roots fails;
        // types 2 and 3 reach the summaries given.
        let ty = ProofType::for_block(&n, number, id.timestamp);
        let wrong = if ty == ProofType::HistoricalRoots {
            let zeroed = [&batch[..8192 * 32], &[0u8; 8192 * 32][..]].concat();
            Period::new(&base, &zeroed, &roots, None).unwrap()
        } else {
            let zeros = vec![0u8; summaries_bytes(&dir).len()];
            let other = HistoricalSummaries::from_ssz(&n, SUMMARIES_SLOT, &zeros).unwrap();
            Period::new(&base, &batch, &roots, Some(other)).unwrap()
        };
        let e = beacon_block_proof(&n, &id, &block, &wrong).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("the proof built does not verify against the roots it was built from: beacon block proof"),
            "block {number}: {e}"
        );
        // Another block's hash: this beacon block does not carry it.
        let other = BlockId {
            hash: [1; 32],
            ..id
        };
        let e = beacon_block_proof(&n, &other, &block, &period).unwrap_err();
        assert!(
            e.to_string().starts_with(&format!(
                "the beacon block at slot {slot} carries execution block 0x"
            )),
            "{e}"
        );
    }
}

/// synthnet with its execution forks at its consensus forks' first slots (a payload's timestamp is
/// `GENESIS_TIME + 12 * slot`), and its merge just before execution era 200 starts: the payloads of era files
/// 5 to 10 (Bellatrix, Capella, Deneb, two each) then make one post-merge ere file of era 200.
fn proof_net() -> Network {
    let mut n = Network::by_name("synthnet").unwrap();
    let consensus = n.clone();
    let per_slot = n.seconds_per_slot();
    let time = |f: Fork| Some(GENESIS_TIME + per_slot * f.activation_slot(&consensus).unwrap());
    n.forks.shanghai_time = time(Fork::Capella);
    n.forks.cancun_time = time(Fork::Deneb);
    n.forks.prague_time = time(Fork::Electra);
    n.first_pos_block = 200 * 8192 - 1;
    n
}

/// Blocks per synthetic era file.
const BLOCKS: u64 = 8;

/// The synthetic era files (eras 5 to 10) and the noproofs-noreceipts ere file of their payloads, the last
/// block's header changed by `edit_last`.
fn synthetic_chain(
    dir: &Path,
    edit_last: impl Fn(&mut eraflow::execution::header::HeaderFields),
) -> (Vec<PathBuf>, PathBuf) {
    let net = proof_net();
    let era_files = eraflow::synth::era::write(
        &dir.join("era"),
        &EraSynthOptions {
            era: 5,
            files: 6,
            blocks: BLOCKS,
            validators: 16,
            txs_per_block: 2,
            ..EraSynthOptions::new(net.clone())
        },
    )
    .unwrap();
    let ere = ere_from_era_payloads(&era_files, &net, &dir.join("ere"), edit_last);
    (era_files, ere)
}

/// Anchors as a verifier would take them from the last era file's state (after verifying it): its frozen
/// `historical_roots` and its `historical_summaries`.
fn anchors_of(era_file: &Path, net: &Network) -> (Vec<u8>, HistoricalSummaries) {
    let (_, state) = unpack_era(era_file);
    let slot = consensus::slot_of(&state, consensus::Kind::State).unwrap();
    let state = BeaconState::new(&state, consensus::Spec::at_slot(slot, net)).unwrap();
    (
        state.field("historical_roots").unwrap().to_vec(),
        HistoricalSummaries::from_state(net, &state).unwrap(),
    )
}

#[test]
fn a_synthetic_post_merge_era_converts_with_proofs_of_every_beacon_type() {
    let net = proof_net();
    let tmp = tempfile::tempdir().unwrap();
    let (era_files, ere) = synthetic_chain(tmp.path(), |_| {});
    let first = EreFile::open(&ere).unwrap().first_block();
    assert_eq!(first, 200 * 8192);
    assert!(ere.to_string_lossy().ends_with("-noproofs-noreceipts.ere"));
    let out = tmp.path().join("out");
    let c = convert(
        std::slice::from_ref(&ere),
        &ConvertOptions {
            network: Some(net.clone()),
            ..to_ere(&out, None, &era_files)
        },
    )
    .remove(0);
    let written = c.output.unwrap_or_else(|| panic!("{:#?}", c.report));
    // Proofs added, receipts still absent.
    assert!(
        written.to_string_lossy().ends_with("-noreceipts.ere")
            && !written.to_string_lossy().contains("noproofs"),
        "{written:?}"
    );
    let (roots, summaries) = anchors_of(era_files.last().unwrap(), &net);
    let anchors = Anchors {
        accumulator: None,
        historical_roots: Some(HistoricalRoots::from_ssz(&roots).unwrap()),
        historical_summaries: Some(&summaries),
    };
    let proofs = proofs_of(&written);
    assert_eq!(proofs.len() as u64, 6 * BLOCKS);
    let mut types = BTreeMap::new();
    for (i, (id, ty, ssz)) in proofs.iter().enumerate() {
        // Two era files per fork, BLOCKS payloads each.
        let expected = 1 + i as u64 / (2 * BLOCKS);
        assert_eq!(*ty, expected, "block {}", id.number);
        *types.entry(*ty).or_insert(0u64) += 1;
        let p = verify_proof(&net, id, *ty, ssz, &anchors)
            .unwrap_or_else(|e| panic!("block {}: {e}", id.number));
        let slot = (id.timestamp - GENESIS_TIME) / net.seconds_per_slot();
        let want = if *ty == 1 {
            Anchor::HistoricalRoots { index: slot / 8192 }
        } else {
            Anchor::HistoricalSummaries {
                state_slot: 10 * 8192,
                index: slot / 8192 - 6,
            }
        };
        assert_eq!(p.anchor, want, "block {}", id.number);
    }
    assert_eq!(types, BTreeMap::from([(1, 16), (2, 16), (3, 16)]));
    // A flipped bit anywhere in a proof of each type fails.
    for i in [0, 2 * BLOCKS as usize, 6 * BLOCKS as usize - 1] {
        let (id, ty, ssz) = &proofs[i];
        every_flipped_bit_fails(&net, id, *ty, ssz, &anchors);
    }
    // The file verifies, its proofs counted by type.
    let r = verify_archives(
        std::slice::from_ref(&written),
        &VerifyOptions {
            network: Some(net.clone()),
            ..Default::default()
        },
    )
    .remove(0);
    assert!(r.ok, "{:#?}", r.errors);
    let ere = r.ere.unwrap();
    assert_eq!(ere.profile, "noreceipts");
    assert_eq!(
        ere.proof_types,
        BTreeMap::from([("1".into(), 16), ("2".into(), 16), ("3".into(), 16)])
    );
    // A file with proofs is not rewritten.
    let again = convert(
        std::slice::from_ref(&written),
        &ConvertOptions {
            network: Some(net.clone()),
            ..to_ere(&tmp.path().join("again"), None, &era_files)
        },
    )
    .remove(0);
    assert!(again.output.is_none());
    assert!(
        errors(&again)[0].ends_with(
            "already an ere file (noreceipts profile): ere is rewritten only to add header proofs to a noproofs file"
        ),
        "{:?}",
        errors(&again)
    );
}

#[test]
fn post_merge_blocks_without_their_beacon_blocks_are_refused_by_name() {
    let net = proof_net();
    let tmp = tempfile::tempdir().unwrap();
    // The last block's header differs from its payload (a gas limit one higher): a sound ere file of another chain.
    let (era_files, ere) = synthetic_chain(tmp.path(), |h| h.gas_limit += 1);
    let f = EreFile::open(&ere).unwrap();
    let (first, last) = (f.first_block(), f.first_block() + f.block_count() - 1);
    let out = tmp.path().join("out");
    let attempt = |era_files: &[PathBuf], profile| {
        let c = convert(
            std::slice::from_ref(&ere),
            &ConvertOptions {
                network: Some(net.clone()),
                ..to_ere(&out, profile, era_files)
            },
        )
        .remove(0);
        assert!(c.output.is_none());
        errors(&c)
    };
    let at = |number: u64| format!("{}: block {number}: ", ere.display());
    assert_eq!(
        attempt(&[], None),
        [at(first)
            + "it is post-merge: its proof needs the era file holding its beacon block (pass --era-files)"]
    );
    // Era 10's file left out: the first block whose beacon block it holds is named.
    let (blocks, _) = unpack_era(&era_files[5]);
    let slot = blocks[0].0;
    assert_eq!(
        attempt(&era_files[..5], None),
        [at(first + 5 * BLOCKS)
            + &format!(
                "its beacon block (slot {slot}) is in the era file of era 10, and no era file given is of that era"
            )]
    );
    // The last block is not the one its slot's beacon block carries.
    let (slot, bytes) = blocks.last().unwrap();
    let signed =
        consensus::SignedBeaconBlock::new(bytes, consensus::Spec::at_slot(*slot, &net)).unwrap();
    let payload_hash = signed
        .message()
        .unwrap()
        .body()
        .unwrap()
        .execution_payload()
        .unwrap()
        .unwrap()
        .block_hash()
        .to_vec();
    let mut dec = FramedDecoder::new();
    let r = f.block(f.block_count() - 1).unwrap();
    let header = decompress(&mut dec, &r.header, &ere, last).unwrap();
    let hash = HeaderView::decode(header).unwrap().hash();
    assert_eq!(
        attempt(&era_files, None),
        [at(last)
            + &format!(
                "the beacon block at slot {slot} carries execution block 0x{}, not this one (0x{})",
                hex::encode(&payload_hash),
                hex::encode(hash)
            )]
    );
    // Receipts cannot be added.
    let e = attempt(&era_files, Some(DEFAULT));
    assert!(
        e[0].ends_with("the file has no receipts, so the default profile (with receipts) cannot be written: use --profile noreceipts"),
        "{e:?}"
    );
    // Era files of another network (by name), or two of one era.
    let renamed = tmp.path().join("othernet").join(
        era_files[5]
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .replace("synthnet", "othernet"),
    );
    std::fs::create_dir_all(renamed.parent().unwrap()).unwrap();
    std::fs::copy(&era_files[5], &renamed).unwrap();
    let mut mixed = era_files[..5].to_vec();
    mixed.push(renamed.clone());
    assert_eq!(
        attempt(&mixed, None),
        [format!(
            "{}: an era file of network othernet, and the blocks are synthnet's",
            renamed.display()
        )]
    );
    mixed.push(era_files[5].clone());
    assert_eq!(
        attempt(&mixed, None),
        [format!(
            "{} and {} are both era 10: pass one era file per era",
            renamed.display(),
            era_files[5].display()
        )]
    );
    // Nothing was written, not even a partial file.
    assert!(
        !out.exists() || files_in(&out).is_empty(),
        "{:?}",
        files_in(&out)
    );
}

#[test]
fn era_files_are_taken_on_the_command_line() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, ere) = synthetic_chain(tmp.path(), |_| {});
    // The network as a preset file: synthnet's with proof_net's changes.
    let net = proof_net();
    let toml = include_str!("../../configs/networks/synthnet.toml")
        .lines()
        .map(|l| match l.split(" = ").next() {
            Some("first_pos_block") => format!("first_pos_block = {}", net.first_pos_block),
            Some("shanghai_time") => {
                format!("shanghai_time = {}", net.forks.shanghai_time.unwrap())
            }
            Some("cancun_time") => format!("cancun_time = {}", net.forks.cancun_time.unwrap()),
            Some("prague_time") => format!("prague_time = {}", net.forks.prague_time.unwrap()),
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    let preset = tmp.path().join("synthnet.toml");
    std::fs::write(&preset, toml).unwrap();
    assert_eq!(Network::from_file(&preset).unwrap().forks, net.forks);
    let out = tmp.path().join("out");
    // A directory of era files (the ere file beside them is not one).
    let (code, stdout, err) = run(eraflow()
        .args(["convert", "--to", "ere", "--out"])
        .arg(&out)
        .arg("--network")
        .arg(&preset)
        .arg("--era-files")
        .arg(tmp.path().join("era"))
        .arg(&ere));
    assert_eq!(code, Some(0), "{stdout}{err}");
    let written = PathBuf::from(stdout.trim());
    assert!(
        written.to_string_lossy().ends_with("-noreceipts.ere"),
        "{stdout}"
    );
    let v = verify_json(&written, Some(&preset));
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(
        v["ere"]["proof_types"],
        serde_json::json!({"1": 16, "2": 16, "3": 16}),
        "{v}"
    );
}

/// An accumulator whose only non-zero entry is `root`, for `era`.
fn accumulator_ssz(era: u64, root: &[u8; 32]) -> Vec<u8> {
    let mut roots = vec![0u8; 32 * (era as usize + 1)];
    roots[32 * era as usize..].copy_from_slice(root);
    [
        &8u32.to_le_bytes()[..],
        &(8 + roots.len() as u32).to_le_bytes(),
        &roots,
    ]
    .concat()
}

#[test]
fn a_merge_transition_era_mixes_accumulator_and_beacon_proofs() {
    use eraflow::formats::execution::{total_difficulty, BlockDecoders};
    let tmp = tempfile::tempdir().unwrap();
    // Era 200 of a synthnet whose merge comes 8 blocks in: 8 mined blocks, then the payloads of two Bellatrix era
    // files. The era synthesiser numbers its first payload one past `first_pos_block`, so its chain is made
    // with the merge one block earlier than the network the proofs are built for.
    let premerge = 8;
    let mut net = proof_net();
    net.first_pos_block = 200 * 8192 + premerge;
    let era_net = Network {
        first_pos_block: net.first_pos_block - 1,
        ..net.clone()
    };
    let era_paths = eraflow::synth::era::write(
        &tmp.path().join("era"),
        &EraSynthOptions {
            era: 5,
            files: 2,
            blocks: BLOCKS,
            validators: 16,
            txs_per_block: 2,
            ..EraSynthOptions::new(era_net.clone())
        },
    )
    .unwrap();
    // The mined blocks, as a synthetic ere file of their own: its accumulator root is their epoch record's.
    let mined = eraflow::synth::ere::write(
        &tmp.path().join("mined"),
        &eraflow::synth::ere::EreSynthOptions {
            chain: eraflow::synth::era1::SynthOptions {
                era: 200,
                blocks: premerge,
                txs_per_block: 0,
                ..eraflow::synth::era1::SynthOptions::new(net.clone())
            },
            profile: EreProfile {
                no_proofs: true,
                no_receipts: true,
            },
        },
    )
    .unwrap()
    .remove(0);
    let a = ExecutionArchive::open(&mined).unwrap();
    let mined_root = *a.accumulator().unwrap().0;
    // One ere file of both, the final total difficulty repeated over the post-merge blocks.
    let mut w = EreWriter::create(&tmp.path().join("ere"), &net.name).unwrap();
    let mut dec = BlockDecoders::default();
    let mut td = None;
    for i in 0..a.block_count() {
        let r = a.block(i).unwrap();
        let header = decompress(&mut dec.header, &r.header, &mined, r.number).unwrap();
        let body = decompress(&mut dec.body, &r.body, &mined, r.number).unwrap();
        td = Some(total_difficulty(r.total_difficulty.as_ref().unwrap()));
        w.add_block(&EreBlock {
            number: r.number,
            header,
            body,
            slim_receipts: None,
            total_difficulty: td,
            pre_merge: true,
            proof: None,
        })
        .unwrap();
    }
    for (number, fields, body) in crate::util::era_payload_blocks(&era_paths, &era_net) {
        w.add_block(&EreBlock {
            number,
            header: &fields.encode(),
            body: &body,
            slim_receipts: None,
            total_difficulty: td,
            pre_merge: false,
            proof: None,
        })
        .unwrap();
    }
    let ere_path = w.finish().unwrap();
    let ere = ExecutionArchive::open(&ere_path).unwrap();
    assert_eq!(ere.block_count(), premerge + 2 * BLOCKS);
    let era_files = EraFiles::open(&era_paths).unwrap();

    let acc_ssz = accumulator_ssz(200, &mined_root);
    let acc = HistoricalHashesAccumulator::from_ssz(&acc_ssz).unwrap();
    let proofs = prove_archive(&ere, &net, Some(acc), Some(&era_files)).unwrap();
    let (roots, _) = anchors_of(&era_paths[1], &net);
    let anchors = Anchors {
        accumulator: Some(acc),
        historical_roots: Some(HistoricalRoots::from_ssz(&roots).unwrap()),
        historical_summaries: None,
    };
    let mut dec = FramedDecoder::new();
    let mut types = BTreeMap::new();
    for i in 0..ere.block_count() {
        let r = ere.block(i).unwrap();
        let header = decompress(&mut dec, &r.header, &ere_path, r.number).unwrap();
        let id = BlockId::of(&HeaderView::decode(header).unwrap());
        let p =
            eraflow::verify::proof::decode(proofs.record(id.number, &id.hash).unwrap()).unwrap();
        *types.entry(p.proof_type).or_insert(0u64) += 1;
        let proven = verify_proof(&net, &id, p.proof_type, p.ssz, &anchors)
            .unwrap_or_else(|e| panic!("block {}: {e}", id.number));
        assert_eq!(
            matches!(proven.anchor, Anchor::Accumulator { era: 200 }),
            i < premerge,
            "block {}: {:?}",
            id.number,
            proven.anchor
        );
    }
    assert_eq!(types, BTreeMap::from([(0, premerge), (1, 2 * BLOCKS)]));

    // Another accumulator entry for the era: the mined blocks are not the network's.
    let other = accumulator_ssz(200, &[7; 32]);
    let e = prove_archive(
        &ere,
        &net,
        Some(HistoricalHashesAccumulator::from_ssz(&other).unwrap()),
        Some(&era_files),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "era 200 of {} is not synthnet's canonical era: accumulator root 0x{}, expected 0x{}",
            ere_path.display(),
            hex::encode(mined_root),
            hex::encode([7; 32])
        )
    );
}
