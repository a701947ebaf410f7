//! `eraflow prune` on synthetic archives: the external sort spills and still gives the in-memory result,
//! overlaps, broken chains and unverified files stop the run with no partial manifest.

use crate::util::listing;
use eraflow::network::Network;
use eraflow::prune::check::check;
use eraflow::prune::{run, PruneError, PruneOptions};
use eraflow::synth::era1::{write, SynthOptions};
use std::path::{Path, PathBuf};

fn synth(dir: &Path, era: u64, files: u64, blocks: u64, txs: u32, seed: u64) -> Vec<PathBuf> {
    let mut o = SynthOptions::new(Network::by_name("synthnet").unwrap());
    o.era = era;
    o.files = files;
    o.blocks = blocks;
    o.txs_per_block = txs;
    o.seed = seed;
    write(dir, &o).unwrap()
}

#[test]
fn tiny_memory_budget_spills_and_gives_the_in_memory_result() {
    let d = tempfile::tempdir().unwrap();
    // Three short files (300 of 8192 blocks each), so the range has gaps: allowed and recorded.
    let files = synth(&d.path().join("in"), 0, 3, 300, 6, 7);
    let base = PruneOptions {
        allow_gaps: true,
        ..Default::default()
    };
    let mem = run(&files, &d.path().join("mem"), &base).unwrap();
    assert_eq!(mem.sort.runs_spilled, 0);
    assert_eq!(mem.manifest.totals.transactions, 3 * 300 * 6);
    assert_eq!(mem.manifest.gaps.len(), 2);
    // 1 KiB = 32 hashes per run: 169 runs, more than one merge can take, so intermediate passes run too.
    let spill = run(
        &files,
        &d.path().join("spill"),
        &PruneOptions {
            memory_budget: 1024,
            ..base.clone()
        },
    )
    .unwrap();
    assert!(spill.sort.runs_spilled > 100, "{:?}", spill.sort);
    assert!(spill.sort.merge_passes > 0, "{:?}", spill.sort);
    let (a, b) = (
        listing(&d.path().join("mem")),
        listing(&d.path().join("spill")),
    );
    assert_eq!(a.len(), 5);
    for ((na, ba), (nb, bb)) in a.iter().zip(&b) {
        assert_eq!(na, nb);
        assert!(ba == bb, "{na} differs between in-memory and spilled sort");
    }
    let tx = &a.iter().find(|(n, _)| n == "tx_hashes.bin").unwrap().1;
    assert_eq!(tx.len(), 3 * 300 * 6 * 32);
    assert!(tx
        .chunks_exact(32)
        .zip(tx.chunks_exact(32).skip(1))
        .all(|(x, y)| x < y));
    // No spill directory or temporary file survives.
    assert!(!d.path().join("spill/.spill").exists());
    check(&d.path().join("spill")).unwrap();
}

#[test]
fn overlapping_files_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let a = synth(&d.path().join("a"), 0, 1, 50, 1, 1);
    let b = synth(&d.path().join("b"), 0, 1, 50, 1, 2);
    let out = d.path().join("m");
    let e = run(
        &[a[0].clone(), b[0].clone()],
        &out,
        &PruneOptions::default(),
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            PruneError::Overlap {
                a_first: 0,
                b_first: 0,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.is_data_error());
    assert!(!out.exists());
    // Even --allow-gaps does not allow overlaps.
    let e = run(
        &[a[0].clone(), b[0].clone()],
        &out,
        &PruneOptions {
            allow_gaps: true,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(matches!(e, PruneError::Overlap { .. }), "{e}");
}

#[test]
fn adjacent_files_that_do_not_chain_are_refused() {
    let d = tempfile::tempdir().unwrap();
    // A full era 0 (no transactions: cheap) and an era 1 from another seed: adjacent but unrelated.
    let a = synth(&d.path().join("a"), 0, 1, 8192, 0, 1);
    let b = synth(&d.path().join("b"), 1, 1, 20, 0, 2);
    let out = d.path().join("m");
    let e = run(
        &[a[0].clone(), b[0].clone()],
        &out,
        &PruneOptions::default(),
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            PruneError::Discontinuity {
                block: 8192,
                what: "parent hash",
                ..
            }
        ),
        "{e}"
    );
    assert!(!out.exists());
}

#[test]
fn an_unverified_file_stops_the_run_with_nothing_written() {
    let d = tempfile::tempdir().unwrap();
    let files = synth(&d.path().join("in"), 0, 1, 200, 3, 3);
    let mut bytes = std::fs::read(&files[0]).unwrap();
    // Flip a byte in the middle of the block data (a compressed header or body).
    let pos = bytes.len() / 3;
    bytes[pos] ^= 0x40;
    std::fs::write(&files[0], &bytes).unwrap();
    let out = d.path().join("m");
    let e = run(&files, &out, &PruneOptions::default()).unwrap_err();
    assert!(e.is_data_error(), "{e}");
    let msg = e.to_string();
    assert!(
        msg.contains(&*files[0].file_name().unwrap().to_string_lossy()),
        "{msg}"
    );
    assert!(!out.exists());
    let left: Vec<_> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        left,
        vec![std::ffi::OsString::from("in")],
        "temporary output left behind"
    );
}

#[test]
fn a_foreign_directory_is_never_replaced() {
    let d = tempfile::tempdir().unwrap();
    let files = synth(&d.path().join("in"), 0, 1, 10, 1, 1);
    let out = d.path().join("precious");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("notes.txt"), b"mine").unwrap();
    let e = run(&files, &out, &PruneOptions::default()).unwrap_err();
    assert!(matches!(e, PruneError::OutputExists(_)), "{e}");
    assert_eq!(std::fs::read(out.join("notes.txt")).unwrap(), b"mine");
}

#[test]
fn cli_exit_codes_for_prune_and_check() {
    let bin = env!("CARGO_BIN_EXE_eraflow");
    let d = tempfile::tempdir().unwrap();
    let files = synth(&d.path().join("in"), 0, 1, 40, 2, 9);
    let out = d.path().join("m");
    let code = |args: &[&str]| {
        std::process::Command::new(bin)
            .args(args)
            .output()
            .unwrap()
            .status
            .code()
    };
    let input = files[0].to_str().unwrap();
    let out_s = out.to_str().unwrap();
    assert_eq!(
        code(&["prune", "--out", out_s, "--format", "text", input]),
        Some(0)
    );
    assert!(out.join("tx_hashes.txt").exists());
    assert_eq!(code(&["prune", "check", out_s]), Some(0));
    // Usage: missing --out, unknown format, an empty range, no manifest to check.
    assert_eq!(code(&["prune", input]), Some(2));
    assert_eq!(
        code(&["prune", "--out", out_s, "--format", "csv", input]),
        Some(2)
    );
    assert_eq!(
        code(&[
            "prune",
            "--out",
            out_s,
            "--from-block",
            "30",
            "--until-block",
            "30",
            input
        ]),
        Some(2)
    );
    assert_eq!(
        code(&["prune", "check", d.path().join("none").to_str().unwrap()]),
        Some(2)
    );
    // Data: a gap (explicit end past the file), and a corrupted list.
    assert_eq!(
        code(&["prune", "--out", out_s, "--until-block", "100", input]),
        Some(1)
    );
    let p = out.join("block_hashes.bin");
    let mut b = std::fs::read(&p).unwrap();
    b[5] ^= 1;
    std::fs::write(&p, b).unwrap();
    assert_eq!(code(&["prune", "check", out_s]), Some(1));
}

/// Prune verifies through the light transaction path (no field decoding; header, transaction and trie-leaf
/// hashes in one pass). On every synthetic transaction kind, across Byzantium and London, it must
/// give what the full path gives: the same block and transaction hashes and the same report.
#[test]
fn light_verification_path_agrees_with_the_full_one() {
    use eraflow::verify::{file_with, BlockHashes, VerifiedBlock, VerifyOptions, Visitor};
    struct Full;
    impl Visitor for Full {
        type Chunk = Vec<[u8; 32]>;
        fn start_chunk(&self, _: u64) -> Self::Chunk {
            Vec::new()
        }
        fn block(&self, c: &mut Self::Chunk, b: &VerifiedBlock<'_>) {
            c.push(b.header.hash().0);
            c.extend(b.transactions.iter().map(|t| t.hash().0));
        }
    }
    struct Light;
    impl Visitor for Light {
        type Chunk = Vec<[u8; 32]>;
        fn start_chunk(&self, _: u64) -> Self::Chunk {
            Vec::new()
        }
        fn block(&self, _: &mut Self::Chunk, _: &VerifiedBlock<'_>) {
            panic!("the light path calls visit_hashed");
        }
        fn needs_decoded_transactions(&self) -> bool {
            false
        }
        fn block_hashed(&self, c: &mut Self::Chunk, b: &VerifiedBlock<'_>, h: &BlockHashes<'_>) {
            assert!(b.transactions.is_empty());
            c.push(h.block);
            c.extend_from_slice(h.transactions);
        }
    }
    let d = tempfile::tempdir().unwrap();
    let file = synth(&d.path().join("in"), 0, 1, 4200, 3, 11).remove(0);
    let opts = VerifyOptions {
        skip_receipts: true,
        ..Default::default()
    };
    let (mut full, mut light) = (Vec::new(), Vec::new());
    let rf = file_with(&file, &opts, &Full, |c| full.extend(c));
    let rl = file_with(&file, &opts, &Light, |c| light.extend(c));
    assert!(rf.ok && rl.ok, "{:?} {:?}", rf.errors, rl.errors);
    assert_eq!(full.len(), 4200 * 4);
    assert_eq!(full, light);
    assert!(rf.tx_kinds.len() >= 4, "{:?}", rf.tx_kinds);
    let json = |r: &eraflow::verify::report::FileReport| serde_json::to_value(r).unwrap();
    assert_eq!(json(&rf), json(&rl));
}

/// A killed prune's temporary directory (`.OUT.tmp-PID/`, its sort spills) and a half-installed old one are
/// removed by the next prune into the same output once that process is gone; a live prune's are kept, and so
/// are another output's.
#[test]
fn a_dead_prunes_leftovers_are_removed_a_live_ones_kept() {
    let d = tempfile::tempdir().unwrap();
    let files = synth(&d.path().join("in"), 0, 1, 32, 1, 1);
    let out = d.path().join("manifest");
    let mut alive = std::process::Command::new("sleep")
        .arg("60")
        .spawn()
        .unwrap();
    // Past the largest pid Linux hands out: never a live process.
    let dead_tmp = d.path().join(".manifest.tmp-4194305");
    let dead_old = d.path().join(".manifest.old-4194306");
    let live = d.path().join(format!(".manifest.tmp-{}", alive.id()));
    let other = d.path().join(".other.tmp-4194305");
    for dir in [&dead_tmp, &dead_old, &live, &other] {
        std::fs::create_dir_all(dir.join("spill")).unwrap();
        std::fs::write(dir.join("spill/run-0"), b"hashes").unwrap();
    }
    run(&files, &out, &PruneOptions::default()).unwrap();
    check(&out).unwrap();
    let left = (
        dead_tmp.exists(),
        dead_old.exists(),
        live.exists(),
        other.exists(),
    );
    let _ = alive.kill();
    let _ = alive.wait();
    assert_eq!(left, (false, false, true, true));
}
