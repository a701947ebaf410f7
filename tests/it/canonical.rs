//! Canonical history against real mainnet data: every published Portal header proof (pre-merge, Bellatrix,
//! Capella, Deneb) verifies against the embedded accumulator and `historical_roots` and the historical
//! summaries of slot 11476992; any flipped bit in a proof, a header or an anchor makes it fail with a reason; a
//! proof of the wrong type fails; the real era1 files are proven canonical by their accumulator roots, and a
//! synthetic "mainnet" one is not; proofs rebuilt from the epoch record and the beacon blocks equal the
//! published bytes; an ere file's `Proof` record verifies end to end. The published vectors are read here for
//! `ere_proofs` too.

use crate::testdata;
use eraflow::canonical::build::{beacon_proof, EpochRecordProofs, PeriodProofs};
use eraflow::canonical::{
    canonical_era1_root, verify_proof, Anchor, Anchors, BlockId, HistoricalHashesAccumulator,
    HistoricalRoots, HistoricalSummaries, NotProven, ProofType, Step,
};
use eraflow::execution::header::HeaderView;
use eraflow::formats::MappedArchive;
use eraflow::network::Network;
use std::path::Path;

/// The slot of the state the test data's historical summaries come from.
pub(crate) const SUMMARIES_SLOT: u64 = 11476992;

/// The Portal `headers_with_proof` vectors with a YAML file of their own, and the anchor each must reach.
pub(crate) const VECTORS: &[(u64, &str)] = &[
    (14764013, "accumulator"),
    (15537392, "accumulator"),
    (15537393, "accumulator"),
    (15537394, "historical_roots"),
    (15539558, "historical_roots"),
    (15547621, "historical_roots"),
    (15555729, "historical_roots"),
    (17034869, "historical_roots"),
    (17034870, "historical_summaries@11476992"),
    (17042287, "historical_summaries@11476992"),
    (17062257, "historical_summaries@11476992"),
    (19426586, "historical_summaries@11476992"),
    (19426587, "historical_summaries@11476992"),
    (22162263, "historical_summaries@11476992"),
];

fn mainnet() -> Network {
    Network::by_name("mainnet").unwrap()
}

fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s.trim().trim_matches('"').trim_start_matches("0x")).unwrap()
}

/// A Portal `BlockHeaderWithProof` content value: `Container(header: ByteList, proof: ByteList)`, two offsets
/// then the header's RLP and the proof's SSZ.
pub(crate) struct HeaderWithProof {
    pub(crate) content_key: Vec<u8>,
    pub(crate) header: Vec<u8>,
    pub(crate) proof: Vec<u8>,
}

fn split(content_key: Vec<u8>, value: &[u8]) -> HeaderWithProof {
    let offset = |at: usize| u32::from_le_bytes(value[at..at + 4].try_into().unwrap()) as usize;
    assert_eq!(offset(0), 8, "the header starts after the two offsets");
    let proof_at = offset(4);
    HeaderWithProof {
        content_key,
        header: value[8..proof_at].to_vec(),
        proof: value[proof_at..].to_vec(),
    }
}

/// `key: "0x..."` in a content YAML file.
fn yaml_hex(text: &str, key: &str) -> Vec<u8> {
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))
        .unwrap_or_else(|| panic!("no {key}"));
    unhex(line)
}

pub(crate) fn vector(dir: &Path, number: u64) -> HeaderWithProof {
    let text =
        std::fs::read_to_string(dir.join(format!("portal/headers_with_proof/{number}.yaml")))
            .unwrap();
    split(
        yaml_hex(&text, "content_key"),
        &yaml_hex(&text, "content_value"),
    )
}

/// The ten consecutive pre-merge vectors of `1000001-1000010.json`.
pub(crate) fn json_vectors(dir: &Path) -> Vec<(u64, HeaderWithProof)> {
    let text = std::fs::read_to_string(dir.join("portal/headers_with_proof/1000001-1000010.json"))
        .unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut v: Vec<(u64, HeaderWithProof)> = json
        .as_object()
        .unwrap()
        .iter()
        .map(|(number, item)| {
            let hex = |k: &str| unhex(item[k].as_str().unwrap());
            (
                number.parse().unwrap(),
                split(hex("content_key"), &hex("content_value")),
            )
        })
        .collect();
    v.sort_by_key(|(n, _)| *n);
    v
}

pub(crate) fn summaries_bytes(dir: &Path) -> Vec<u8> {
    std::fs::read(dir.join(format!(
        "ssz/portal/historical_summaries_at_slot_{SUMMARIES_SLOT}.ssz"
    )))
    .unwrap()
}

fn summaries(dir: &Path) -> HistoricalSummaries {
    HistoricalSummaries::from_ssz(&mainnet(), SUMMARIES_SLOT, &summaries_bytes(dir)).unwrap()
}

/// Verifies `header` (RLP) with `proof` of the type its fork needs.
fn verify(
    header: &[u8],
    proof: &[u8],
    anchors: &Anchors<'_>,
) -> Result<eraflow::canonical::Proven, NotProven> {
    let n = mainnet();
    let h = HeaderView::decode(header).unwrap();
    let block = BlockId::of(&h);
    let ty = ProofType::for_block(&n, block.number, block.timestamp);
    verify_proof(&n, &block, ty.code(), proof, anchors)
}

#[test]
fn embedded_anchors_are_the_published_files() {
    let Some(dir) = testdata::dir("canonical: embedded anchors") else {
        return;
    };
    let acc =
        std::fs::read(dir.join("portal/accumulator/historical_hashes_accumulator.ssz")).unwrap();
    assert_eq!(
        HistoricalHashesAccumulator::from_ssz(&acc).unwrap(),
        HistoricalHashesAccumulator::mainnet()
    );
    let roots = std::fs::read(dir.join("ssz/trin/historical_roots.ssz")).unwrap();
    assert_eq!(
        HistoricalRoots::from_ssz(&roots).unwrap(),
        HistoricalRoots::mainnet()
    );
    // The summaries' count is the one a state at their slot holds.
    let s = summaries(&dir);
    assert_eq!((s.len(), s.covered_until()), (643, SUMMARIES_SLOT));
    let e =
        HistoricalSummaries::from_ssz(&mainnet(), SUMMARIES_SLOT + 8192, &summaries_bytes(&dir))
            .unwrap_err();
    assert!(e.to_string().contains("expected 644 entries"), "{e}");
}

#[test]
fn every_published_header_proof_verifies() {
    let Some(dir) = testdata::dir("canonical: published header proofs") else {
        return;
    };
    let s = summaries(&dir);
    let anchors = Anchors::embedded(&mainnet()).with_summaries(&s);
    let mut checked = 0;
    let yaml = VECTORS
        .iter()
        .map(|&(n, anchor)| (n, vector(&dir, n), anchor));
    let json = json_vectors(&dir)
        .into_iter()
        .map(|(n, v)| (n, v, "accumulator"));
    for (number, v, anchor) in yaml.chain(json) {
        let h = HeaderView::decode(&v.header).unwrap();
        assert_eq!(h.number(), number);
        // The content key is the selector 0x00 and the block hash: the header is the one the vector names.
        assert_eq!(&v.content_key[1..], &h.hash().0[..], "block {number}");
        let proven =
            verify(&v.header, &v.proof, &anchors).unwrap_or_else(|e| panic!("block {number}: {e}"));
        assert_eq!(proven.anchor.to_string(), anchor, "block {number}");
        match proven.anchor {
            Anchor::Accumulator { era } => {
                assert_eq!(era, number / 8192);
                assert_eq!(
                    &proven.root,
                    HistoricalHashesAccumulator::mainnet()
                        .epoch_root(era)
                        .unwrap()
                );
            }
            Anchor::HistoricalRoots { index } => {
                assert_eq!(&proven.root, HistoricalRoots::mainnet().get(index).unwrap());
            }
            Anchor::HistoricalSummaries { state_slot, index } => {
                assert_eq!(state_slot, SUMMARIES_SLOT);
                assert_eq!(proven.root, s.block_summary_root(index).unwrap());
            }
        }
        checked += 1;
    }
    assert_eq!(checked, 24);
}

/// The published beacon-block proofs (`ssz/portal/proofs/*.yaml`) are the parts of the header proofs' SSZ.
#[test]
fn published_beacon_block_proofs_are_the_header_proofs() {
    let Some(dir) = testdata::dir("canonical: beacon block proofs") else {
        return;
    };
    for &(number, _) in VECTORS.iter().filter(|(n, _)| *n >= 15537394) {
        let text = std::fs::read_to_string(dir.join(format!(
            "ssz/portal/proofs/beacon_block_proof-{number}.yaml"
        )))
        .unwrap();
        // Keys, each followed by one value or a list of values on the next lines.
        let mut fields: Vec<(String, Vec<String>)> = Vec::new();
        for line in text.lines() {
            let t = line.trim();
            if let Some(item) = t.strip_prefix("- ") {
                fields.last_mut().unwrap().1.push(item.into());
            } else if let Some((k, v)) = t.split_once(':') {
                let v = v.trim();
                fields.push((k.into(), if v.is_empty() { vec![] } else { vec![v.into()] }));
            } else if !t.is_empty() {
                fields.last_mut().unwrap().1.push(t.into());
            }
        }
        let get = |k: &str| &fields.iter().find(|f| f.0 == k).unwrap().1;
        let mut ssz = Vec::new();
        for k in [
            "beacon_block_proof",
            "beacon_block_root",
            "execution_block_proof",
        ] {
            for r in get(k) {
                ssz.extend(unhex(r));
            }
        }
        let slot: u64 = get("slot")[0].parse().unwrap();
        ssz.extend(slot.to_le_bytes());
        let v = vector(&dir, number);
        assert_eq!(ssz, v.proof, "block {number}");
        let h = HeaderView::decode(&v.header).unwrap();
        assert_eq!(unhex(&get("execution_block_header")[0]), h.hash().0);
    }
}

/// How a tampered input failed.
fn failed(r: Result<eraflow::canonical::Proven, NotProven>, what: &str) -> NotProven {
    match r {
        Ok(p) => panic!("{what}: still proven by {}", p.anchor),
        Err(e) => {
            assert!(!e.is_unanchored(), "{what}: {e}");
            assert!(!e.to_string().is_empty());
            e
        }
    }
}

#[test]
fn any_flipped_bit_in_a_proof_fails() {
    let Some(dir) = testdata::dir("canonical: flipped proof bits") else {
        return;
    };
    let s = summaries(&dir);
    let anchors = Anchors::embedded(&mainnet()).with_summaries(&s);
    for &(number, _) in VECTORS {
        let v = vector(&dir, number);
        for bit in 0..v.proof.len() * 8 {
            let mut p = v.proof.clone();
            p[bit / 8] ^= 1 << (bit % 8);
            // Flips in the slot included: the header's timestamp fixes it (else the sibling of an empty slot,
            // which repeats the previous block's root, would take the same branch to the same root).
            failed(
                verify(&v.header, &p, &anchors),
                &format!("block {number}, proof bit {bit}"),
            );
        }
    }
}

#[test]
fn any_flipped_bit_in_a_header_fails() {
    let Some(dir) = testdata::dir("canonical: flipped header bits") else {
        return;
    };
    let s = summaries(&dir);
    let anchors = Anchors::embedded(&mainnet()).with_summaries(&s);
    let n = mainnet();
    for &(number, _) in VECTORS {
        let v = vector(&dir, number);
        let mut tried = 0;
        for bit in 0..v.header.len() * 8 {
            let mut h = v.header.clone();
            h[bit / 8] ^= 1 << (bit % 8);
            // A flip that breaks the RLP leaves no header to prove.
            let Ok(view) = HeaderView::decode(&h) else {
                continue;
            };
            let block = BlockId::of(&view);
            // The proof keeps the type of the real block (a file's record says its type).
            let ty = ProofType::for_block(
                &n,
                number,
                HeaderView::decode(&v.header).unwrap().timestamp(),
            );
            let r = verify_proof(&n, &block, ty.code(), &v.proof, &anchors);
            failed(r, &format!("block {number}, header bit {bit}"));
            tried += 1;
        }
        assert!(
            tried > v.header.len() * 4,
            "block {number}: {tried} decodable flips"
        );
    }
}

#[test]
fn any_flipped_bit_in_an_anchor_fails() {
    let Some(dir) = testdata::dir("canonical: flipped anchor bits") else {
        return;
    };
    let acc_bytes =
        std::fs::read(dir.join("portal/accumulator/historical_hashes_accumulator.ssz")).unwrap();
    let roots_bytes = std::fs::read(dir.join("ssz/trin/historical_roots.ssz")).unwrap();
    let summaries_bytes = summaries_bytes(&dir);
    let good = summaries(&dir);
    for &(number, _) in VECTORS {
        let v = vector(&dir, number);
        let proven = verify(
            &v.header,
            &v.proof,
            &Anchors::embedded(&mainnet()).with_summaries(&good),
        )
        .unwrap();
        for bit in 0..256 {
            let flip = |bytes: &[u8], at: usize| {
                let mut b = bytes.to_vec();
                b[at + bit / 8] ^= 1 << (bit % 8);
                b
            };
            let (acc, roots, sums);
            let mut anchors = Anchors::embedded(&mainnet()).with_summaries(&good);
            match proven.anchor {
                Anchor::Accumulator { era } => {
                    acc = flip(&acc_bytes, 8 + 32 * era as usize);
                    anchors.accumulator =
                        Some(HistoricalHashesAccumulator::from_ssz(&acc).unwrap());
                }
                Anchor::HistoricalRoots { index } => {
                    roots = flip(&roots_bytes, 32 * index as usize);
                    anchors.historical_roots = Some(HistoricalRoots::from_ssz(&roots).unwrap());
                }
                Anchor::HistoricalSummaries { index, .. } => {
                    sums = HistoricalSummaries::from_ssz(
                        &mainnet(),
                        SUMMARIES_SLOT,
                        &flip(&summaries_bytes, 64 * index as usize),
                    )
                    .unwrap();
                    anchors.historical_summaries = Some(&sums);
                }
            }
            let e = failed(
                verify(&v.header, &v.proof, &anchors),
                &format!("block {number}, anchor bit {bit}"),
            );
            let NotProven::Mismatch {
                expected, found, ..
            } = e
            else {
                panic!("block {number}, anchor bit {bit}: {e}");
            };
            // The proof still reaches the real root; the tampered one is what it was held to.
            assert_eq!(found, proven.root);
            assert_ne!(expected, proven.root);
        }
    }
}

#[test]
fn proofs_of_the_wrong_type_fail() {
    let Some(dir) = testdata::dir("canonical: wrong proof types") else {
        return;
    };
    let s = summaries(&dir);
    let anchors = Anchors::embedded(&mainnet()).with_summaries(&s);
    let n = mainnet();
    for &(number, _) in VECTORS {
        let v = vector(&dir, number);
        let h = HeaderView::decode(&v.header).unwrap();
        let block = BlockId::of(&h);
        let right = ProofType::for_block(&n, block.number, block.timestamp);
        for ty in ProofType::ALL.into_iter().filter(|t| *t != right) {
            let e = verify_proof(&n, &block, ty.code(), &v.proof, &anchors).unwrap_err();
            assert_eq!(
                e,
                NotProven::WrongProofType {
                    number,
                    expected: right,
                    found: ty
                }
            );
        }
        for code in [4, 5, 255, u64::MAX] {
            let e = verify_proof(&n, &block, code, &v.proof, &anchors).unwrap_err();
            assert_eq!(e, NotProven::UnsupportedProofType { found: code });
        }
    }
    // Right type, another block's proof: it proves that block, not this one. Its slot is another's...
    let a = vector(&dir, 15539558);
    let b = vector(&dir, 15547621);
    let e = failed(
        verify(&a.header, &b.proof, &anchors),
        "another block's proof",
    );
    assert!(matches!(e, NotProven::SlotNotTimestamp { .. }), "{e}");
    // ...and with the slot put right, the execution branch leads elsewhere.
    let mut p = b.proof.clone();
    let slot = 4700013 + (HeaderView::decode(&a.header).unwrap().timestamp() - 1663224179) / 12;
    p[832..].copy_from_slice(&slot.to_le_bytes());
    let e = failed(
        verify(&a.header, &p, &anchors),
        "another block's proof, slot put right",
    );
    assert!(
        matches!(
            e,
            NotProven::Mismatch {
                step: Step::ExecutionBlock,
                ..
            }
        ),
        "{e}"
    );
    // The transition blocks: the last Bellatrix block's proof, read as the first Capella block's, is too long.
    let last = vector(&dir, 17034869);
    let first = vector(&dir, 17034870);
    let e = failed(
        verify(&first.header, &last.proof, &anchors),
        "a Bellatrix proof for Capella",
    );
    assert_eq!(
        e.to_string(),
        "BlockProofHistoricalSummariesCapella (type 2): expected 808 bytes, found 840 (overlong)"
    );
}

#[test]
fn post_capella_proofs_need_summaries_that_cover_them() {
    let Some(dir) = testdata::dir("canonical: summaries coverage") else {
        return;
    };
    let v = vector(&dir, 22162263);
    // No summaries: unanchored, not failed.
    let e = verify(&v.header, &v.proof, &Anchors::embedded(&mainnet())).unwrap_err();
    assert_eq!(e, NotProven::NoHistoricalSummaries);
    assert!(e.is_unanchored());
    // Summaries of an earlier state: the first 600 entries, as the state at the end of period 600 held them.
    let capella = 194048 * 32;
    let older = capella + 600 * 8192;
    let s = HistoricalSummaries::from_ssz(&mainnet(), older, &summaries_bytes(&dir)[..600 * 64])
        .unwrap();
    let e = verify(
        &v.header,
        &v.proof,
        &Anchors::embedded(&mainnet()).with_summaries(&s),
    )
    .unwrap_err();
    assert!(e.is_unanchored(), "{e}");
    let NotProven::NotCovered { slot, .. } = e else {
        panic!("{e}")
    };
    assert_eq!(
        e.to_string(),
        format!("historical summaries of slot {older} do not cover slot {slot} (they cover slots before {older})")
    );
    // The Capella blocks are early enough for those summaries.
    let early = vector(&dir, 17034870);
    let p = verify(
        &early.header,
        &early.proof,
        &Anchors::embedded(&mainnet()).with_summaries(&s),
    )
    .unwrap();
    assert_eq!(
        p.anchor.to_string(),
        format!("historical_summaries@{older}")
    );
    // Another network has no embedded anchors: a pre-merge proof is unanchored there.
    let sepolia = Network::by_name("sepolia").unwrap();
    let pre = vector(&dir, 14764013);
    let h = HeaderView::decode(&pre.header).unwrap();
    let e = verify_proof(
        &sepolia,
        &BlockId::of(&h),
        2,
        &pre.proof,
        &Anchors::embedded(&sepolia),
    );
    // (Sepolia merged at block 1450409: block 14764013 is Cancun there by timestamp.)
    assert!(matches!(e, Err(NotProven::WrongProofType { .. })), "{e:?}");
    let e = verify_proof(
        &sepolia,
        &BlockId {
            number: 5,
            ..BlockId::of(&h)
        },
        0,
        &pre.proof,
        &Anchors::embedded(&sepolia),
    );
    assert_eq!(
        e.unwrap_err(),
        NotProven::NoAccumulator {
            network: "sepolia".into()
        }
    );
}

#[test]
fn real_era1_files_are_canonical_by_their_accumulator_roots() {
    let Some(dir) = testdata::dir("canonical: real era1 files") else {
        return;
    };
    let n = mainnet();
    for (name, era) in [
        ("mainnet-00000-5ec1ffb8.era1", 0),
        ("mainnet-00001-a5364e9a.era1", 1),
    ] {
        let f = eraflow::formats::era1::Era1File::open(&dir.join("era1").join(name)).unwrap();
        assert_eq!(f.first_block() / 8192, era);
        let p = canonical_era1_root(&n, era, f.accumulator_root()).unwrap();
        assert_eq!(p.anchor, Anchor::Accumulator { era });
        // The same root is not era 2's.
        let e = canonical_era1_root(&n, era + 1, f.accumulator_root()).unwrap_err();
        assert!(
            matches!(e, NotProven::Mismatch { .. }) && !e.is_unanchored(),
            "{e}"
        );
    }
    // Sepolia's files: no accumulator to prove them by.
    let f = eraflow::formats::era1::Era1File::open(&dir.join("era1/sepolia-00000-643a00f7.era1"))
        .unwrap();
    let e = canonical_era1_root(
        &Network::by_name("sepolia").unwrap(),
        0,
        f.accumulator_root(),
    )
    .unwrap_err();
    assert!(e.is_unanchored(), "{e}");
}

#[test]
fn a_synthetic_file_claiming_to_be_mainnet_is_not_canonical() {
    let tmp = tempfile::tempdir().unwrap();
    let mut o = eraflow::synth::era1::SynthOptions::new(mainnet());
    o.blocks = 16;
    o.txs_per_block = 0;
    let path = eraflow::synth::era1::write(tmp.path(), &o)
        .unwrap()
        .remove(0);
    assert!(path
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .starts_with("mainnet-00000-"));
    let f = eraflow::formats::era1::Era1File::open(&path).unwrap();
    let e = canonical_era1_root(&mainnet(), 0, f.accumulator_root()).unwrap_err();
    let NotProven::Mismatch {
        step: Step::EraRoot { era: 0 },
        expected,
        found,
    } = e
    else {
        panic!("{e}")
    };
    assert_eq!(&found, f.accumulator_root());
    assert_eq!(
        e.to_string(),
        format!(
            "accumulator root: expected 0x{} (the accumulator's epoch record root of era 0), found 0x{} (the file's accumulator root)",
            hex::encode(expected),
            hex::encode(found)
        )
    );
}

#[test]
fn type_0_proofs_rebuilt_from_the_epoch_record_are_the_published_ones() {
    let Some(dir) = testdata::dir("canonical: epoch record 122") else {
        return;
    };
    let record = std::fs::read(dir.join("portal/accumulator/epoch-record-00122.ssz")).unwrap();
    let proofs = EpochRecordProofs::new(&record).unwrap();
    assert_eq!(proofs.len(), 8192);
    assert_eq!(
        &proofs.root(),
        HistoricalHashesAccumulator::mainnet()
            .epoch_root(122)
            .unwrap()
    );
    for (number, v) in json_vectors(&dir) {
        assert_eq!(number / 8192, 122);
        assert_eq!(proofs.proof(number).unwrap(), v.proof, "block {number}");
    }
    let v = vector(&dir, 14764013);
    assert_ne!(
        proofs.proof(14764013).unwrap(),
        v.proof,
        "another era's record"
    );
}

#[test]
fn beacon_proofs_rebuilt_from_beacon_blocks_are_the_published_ones() {
    let Some(dir) = testdata::dir("canonical: beacon blocks") else {
        return;
    };
    let n = mainnet();
    let s = summaries(&dir);
    for &(number, _) in VECTORS.iter().filter(|(n, _)| *n >= 15537394) {
        let base = dir.join(format!("ssz/portal/{number}"));
        let block = std::fs::read(base.join("block.ssz")).unwrap();
        let batch = base.join("historical_batch.ssz");
        let period = if batch.exists() {
            PeriodProofs::from_historical_batch(&std::fs::read(batch).unwrap()).unwrap()
        } else {
            PeriodProofs::from_block_roots(&std::fs::read(base.join("block_roots.ssz")).unwrap())
                .unwrap()
        };
        let (ty, proof) =
            beacon_proof(&n, &block, &period).unwrap_or_else(|e| panic!("block {number}: {e}"));
        let v = vector(&dir, number);
        assert_eq!(proof, v.proof, "block {number}");
        let h = HeaderView::decode(&v.header).unwrap();
        assert_eq!(ty, ProofType::for_block(&n, number, h.timestamp()));
        // The period's root is the anchor's entry.
        let slot = u64::from_le_bytes(proof[proof.len() - 8..].try_into().unwrap());
        if ty == ProofType::HistoricalRoots {
            let root = period.historical_root().unwrap();
            assert_eq!(&root, HistoricalRoots::mainnet().get(slot / 8192).unwrap());
        } else {
            let index = s.index_of(slot).unwrap();
            assert_eq!(
                Some(period.block_summary_root()),
                s.block_summary_root(index)
            );
        }
    }
    // A Bellatrix block needs its batch, and a block is only in its own period.
    let bellatrix = std::fs::read(dir.join("ssz/portal/15539558/block.ssz")).unwrap();
    let roots_only = PeriodProofs::from_block_roots(
        &std::fs::read(dir.join("ssz/portal/15539558/historical_batch.ssz")).unwrap()[..8192 * 32],
    )
    .unwrap();
    let e = beacon_proof(&n, &bellatrix, &roots_only).unwrap_err();
    assert!(
        e.to_string()
            .contains("needs the period's historical batch"),
        "{e}"
    );
    let other = PeriodProofs::from_block_roots(
        &std::fs::read(dir.join("ssz/portal/22162263/block_roots.ssz")).unwrap(),
    )
    .unwrap();
    let e = beacon_proof(&n, &bellatrix, &other).unwrap_err();
    assert!(e.to_string().contains("the block's root is 0x"), "{e}");
}

#[test]
fn an_ere_proof_record_verifies_end_to_end() {
    let Some(dir) = testdata::dir("canonical: ere proof record") else {
        return;
    };
    let text =
        std::fs::read_to_string(dir.join("portal/block_data/block-data-15537394.yaml")).unwrap();
    let v = vector(&dir, 15537394);
    assert_eq!(yaml_hex(&text, "header"), v.header);
    // rlp([proof-type, ssz(proof)]), as a default-profile ere file's Proof record holds it.
    let mut fields = Vec::new();
    alloy_rlp::Encodable::encode(&1u64, &mut fields);
    alloy_rlp::Encodable::encode(&v.proof[..], &mut fields);
    let mut record = Vec::new();
    alloy_rlp::Header {
        list: true,
        payload_length: fields.len(),
    }
    .encode(&mut record);
    record.extend(fields);
    let tmp = tempfile::tempdir().unwrap();
    let mut w = eraflow::formats::ere::EreWriter::create(tmp.path(), "mainnet").unwrap();
    let body = yaml_hex(&text, "body");
    let receipts = yaml_hex(&text, "receipts");
    w.add_block(&eraflow::formats::ere::EreBlock {
        number: 15537394,
        header: &v.header,
        body: &body,
        slim_receipts: Some(&receipts),
        total_difficulty: None,
        pre_merge: false,
        proof: Some(&record),
    })
    .unwrap();
    let path = w.finish().unwrap();
    let ere = eraflow::formats::ere::EreFile::open(&path).unwrap();
    let records = ere.block(0).unwrap();
    let mut dec = eraflow::formats::snappy::FramedDecoder::new();
    let header =
        eraflow::formats::execution::decompress(&mut dec, &records.header, &path, 15537394)
            .unwrap()
            .to_vec();
    let raw =
        eraflow::formats::execution::decompress(&mut dec, &records.proof.unwrap(), &path, 15537394)
            .unwrap();
    let proof = eraflow::verify::proof::decode(raw).unwrap();
    let h = HeaderView::decode(&header).unwrap();
    let p = verify_proof(
        &mainnet(),
        &BlockId::of(&h),
        proof.proof_type,
        proof.ssz,
        &Anchors::embedded(&mainnet()),
    )
    .unwrap();
    assert_eq!(
        p.anchor,
        Anchor::HistoricalRoots {
            index: 4700013 / 8192
        }
    );
}

/// `rlp([proof_type, proof])`: a `Proof` record's content.
fn proof_record(proof_type: u64, proof: &[u8]) -> Vec<u8> {
    let mut fields = Vec::new();
    alloy_rlp::Encodable::encode(&proof_type, &mut fields);
    alloy_rlp::Encodable::encode(proof, &mut fields);
    let mut record = Vec::new();
    alloy_rlp::Header {
        list: true,
        payload_length: fields.len(),
    }
    .encode(&mut record);
    record.extend(fields);
    record
}

#[test]
fn verify_checks_the_proofs_of_real_blocks_in_ere_files() {
    // Real mainnet blocks with their slim receipts and their published proofs, each as a one-block
    // default-profile ere file, through `verify`: every proof reaches its anchor (only the lone block's start,
    // not a multiple of 8192, is an error), and a flipped bit in any one fails the file naming the proof.
    let Some(dir) = testdata::dir("canonical: verify ere proofs") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let opts = eraflow::verify::VerifyOptions {
        network: Some(mainnet()),
        historical_summaries: Some(std::sync::Arc::new(summaries(&dir))),
        ..Default::default()
    };
    for number in [
        14764013u64,
        15537393,
        15537394,
        15547621,
        17034869,
        17034870,
        17062257,
        19426586,
        19426587,
        22162263,
    ] {
        let text = std::fs::read_to_string(
            dir.join(format!("portal/block_data/block-data-{number}.yaml")),
        )
        .unwrap();
        let v = vector(&dir, number);
        let h = HeaderView::decode(&v.header).unwrap();
        let ty = ProofType::for_block(&mainnet(), number, h.timestamp());
        let write = |proof: &[u8], sub: &str| {
            let mut w =
                eraflow::formats::ere::EreWriter::create(&tmp.path().join(sub), "mainnet").unwrap();
            let (body, receipts) = (yaml_hex(&text, "body"), yaml_hex(&text, "receipts"));
            w.add_block(&eraflow::formats::ere::EreBlock {
                number,
                header: &v.header,
                body: &body,
                slim_receipts: Some(&receipts),
                total_difficulty: None,
                pre_merge: false,
                proof: Some(&proof_record(ty.code(), proof)),
            })
            .unwrap();
            w.finish().unwrap()
        };
        let good = write(&v.proof, &format!("{number}"));
        assert!(
            !good.to_string_lossy().contains("noproofs"),
            "{}",
            good.display()
        );
        let r = eraflow::verify::file(&good, &opts);
        let errors: Vec<String> = r.errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(errors.len(), 1, "block {number}: {errors:#?}");
        assert!(
            errors[0].contains("first block"),
            "block {number}: {errors:#?}"
        );
        assert_eq!(
            r.ere
                .as_ref()
                .unwrap()
                .proof_types
                .get(&ty.code().to_string()),
            Some(&1),
            "block {number}"
        );
        let mut bad = v.proof.clone();
        let mid = bad.len() / 2;
        bad[mid] ^= 0x10;
        let flipped = write(&bad, &format!("{number}-flipped"));
        let r = eraflow::verify::file(&flipped, &opts);
        let all: String = r.errors.iter().map(|e| e.to_string() + "\n").collect();
        assert!(
            all.contains("(block ") && all.contains("proof (not the canonical chain)"),
            "block {number}: {all}"
        );
    }
}
