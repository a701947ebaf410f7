//! Rolling prune lists (`--keep-epochs`, `--keep-blocks`): the cut-off is counted back from the newest input
//! block, found by headers, and checked here against the synthetic chain's own timestamp rule (block n at
//! 1,600,000,000 + 13 n seconds), computed independently of eraflow's search.

use eraflow::formats::EreProfile;
use eraflow::network::Network;
use eraflow::prune::check::check;
use eraflow::prune::{run, PruneError, PruneOptions, Window};
use eraflow::synth::era1::SynthOptions;
use eraflow::synth::ere::EreSynthOptions;
use std::path::{Path, PathBuf};

/// The first era wholly after synthnet's merge (block 1,000,000).
const POST_MERGE_ERA: u64 = 123;

fn synthnet() -> Network {
    Network::by_name("synthnet").unwrap()
}

/// `files` whole post-merge ere files of synthnet from `era`, 1 transaction per block.
fn ere_files(dir: &Path, era: u64, files: u64) -> Vec<PathBuf> {
    eraflow::synth::ere::write(
        dir,
        &EreSynthOptions {
            chain: SynthOptions {
                era,
                files,
                blocks: 8192,
                txs_per_block: 1,
                ..SynthOptions::new(synthnet())
            },
            profile: EreProfile {
                no_proofs: true,
                no_receipts: false,
            },
        },
    )
    .unwrap()
}

/// The synthetic chain's timestamp of block `n`.
fn timestamp(n: u64) -> u64 {
    1_600_000_000 + 13 * n
}

/// The first block whose timestamp is within `epochs` epochs of block `newest`'s, by linear search over the
/// synthetic timestamp rule (32 slots of 12 s per epoch on synthnet).
fn first_kept_by_time(newest: u64, epochs: u64) -> u64 {
    let cutoff = timestamp(newest) - epochs * 32 * 12;
    (0..=newest).find(|&b| timestamp(b) >= cutoff).unwrap()
}

fn window(w: Window) -> PruneOptions {
    PruneOptions {
        window: Some(w),
        ..Default::default()
    }
}

#[test]
fn an_epoch_window_cuts_where_the_timestamps_say_and_records_it() {
    let d = tempfile::tempdir().unwrap();
    let files = ere_files(&d.path().join("in"), POST_MERGE_ERA, 3);
    let first = POST_MERGE_ERA * 8192;
    let newest = first + 3 * 8192 - 1;
    let net = synthnet();
    assert_eq!((net.slots_per_epoch(), net.seconds_per_slot()), (32, 12));
    // 300 epochs = 115,200 s = 8,861 blocks of 13 s: the cut-off falls in the middle file, above the bound
    // (one block per slot: 9,600 blocks back) the search starts from.
    for epochs in [300u64, 1, 700] {
        let out = d.path().join(format!("out-{epochs}"));
        let s = run(&files, &out, &window(Window::Epochs(epochs))).unwrap();
        let kept = first_kept_by_time(newest, epochs);
        let m = &s.manifest;
        assert_eq!(m.range.first, first, "{epochs}");
        assert_eq!(m.range.last, kept - 1, "{epochs}");
        assert!(!m.explicit_range);
        let w = m.window.as_ref().unwrap();
        assert_eq!(
            (
                w.keep_epochs,
                w.keep_blocks,
                w.reference_block,
                w.first_kept_block
            ),
            (Some(epochs), None, newest, kept)
        );
        assert_eq!(w.reference_timestamp, timestamp(newest));
        assert_eq!(
            w.reference_file,
            files[2].file_name().unwrap().to_string_lossy()
        );
        assert_eq!(m.totals.blocks, kept - first);
        assert_eq!(m.totals.transactions, kept - first);
        // The written directory checks, window and all.
        let c = check(&out).unwrap();
        assert_eq!(c.manifest.totals.blocks, kept - first);
    }
    // The same window twice: byte-identical manifests.
    let again = d.path().join("again");
    run(&files, &again, &window(Window::Epochs(300))).unwrap();
    assert_eq!(
        std::fs::read(again.join("manifest.json")).unwrap(),
        std::fs::read(d.path().join("out-300/manifest.json")).unwrap()
    );
}

#[test]
fn a_block_window_keeps_the_newest_blocks() {
    let d = tempfile::tempdir().unwrap();
    let files = ere_files(&d.path().join("in"), POST_MERGE_ERA, 2);
    let first = POST_MERGE_ERA * 8192;
    let newest = first + 2 * 8192 - 1;
    let s = run(&files, &d.path().join("out"), &window(Window::Blocks(1000))).unwrap();
    assert_eq!(s.manifest.range.last, newest - 1000);
    assert_eq!(
        s.manifest.window.as_ref().unwrap().first_kept_block,
        newest + 1 - 1000
    );
    // Only the first file is read for its blocks; the newest is verified for the reference.
    assert_eq!(s.manifest.sources.len(), 2);
    assert_eq!(s.manifest.sources[1].included.last, newest - 1000);
}

#[test]
fn a_window_that_keeps_everything_or_clashes_with_an_end_is_refused_before_writing() {
    let d = tempfile::tempdir().unwrap();
    let files = ere_files(&d.path().join("in"), POST_MERGE_ERA, 1);
    let out = d.path().join("out");
    // 8192 blocks of 13 s are 3,550 epochs of 30 s... of 384 s: 278 epochs; 10,000 keep them all.
    let e = run(&files, &out, &window(Window::Epochs(10_000))).unwrap_err();
    assert!(
        matches!(&e, PruneError::EmptyRange(m) if m.contains("no block of the inputs has left the window")),
        "{e}"
    );
    let e = run(&files, &out, &window(Window::Blocks(8192))).unwrap_err();
    assert!(matches!(e, PruneError::EmptyRange(_)), "{e}");
    let e = run(
        &files,
        &out,
        &PruneOptions {
            until_block: Some(POST_MERGE_ERA * 8192 + 5),
            ..window(Window::Blocks(10))
        },
    )
    .unwrap_err();
    assert!(e.to_string().contains("both end the range"), "{e}");
    assert!(!out.exists());
}

#[test]
fn a_damaged_newest_file_stops_the_window_before_anything_is_read() {
    let d = tempfile::tempdir().unwrap();
    let files = ere_files(&d.path().join("in"), POST_MERGE_ERA, 2);
    // Flip a byte inside the newest file's last header record's payload: its timestamp (or hash) no longer
    // verifies, and it alone decides the cut-off.
    let newest = &files[1];
    let mut bytes = std::fs::read(newest).unwrap();
    let f = eraflow::formats::ExecutionArchive::open(newest).unwrap();
    let at = f.header_offset(f.block_count() - 1) as usize + 8 + 20;
    drop(f);
    bytes[at] ^= 0x55;
    std::fs::write(newest, &bytes).unwrap();
    let out = d.path().join("out");
    let e = run(&files, &out, &window(Window::Blocks(100))).unwrap_err();
    match &e {
        PruneError::Unverified { file, .. } => {
            assert_eq!(file, &newest.file_name().unwrap().to_string_lossy())
        }
        other => panic!("{other}"),
    }
    assert!(!out.exists());
}

#[test]
fn the_keep_epochs_flag_defaults_to_eip_4444s_window() {
    assert_eq!(eraflow::prune::HISTORY_PRUNE_EPOCHS, 33_024);
    let d = tempfile::tempdir().unwrap();
    let files = ere_files(&d.path().join("in"), POST_MERGE_ERA, 1);
    // One file of 8192 blocks holds ~278 epochs: the default window keeps all of it, which the CLI says.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_eraflow"))
        .args(["prune", "-q", "--keep-epochs", "--out"])
        .arg(d.path().join("out"))
        .arg(&files[0])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("the last 33024 epochs"), "{err}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_eraflow"))
        .args(["prune", "-q", "--keep-epochs", "100", "--out"])
        .arg(d.path().join("out"))
        .arg(&files[0])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.path().join("out/manifest.json")).unwrap())
            .unwrap();
    assert_eq!(m["window"]["keep_epochs"], 100);
    let newest = POST_MERGE_ERA * 8192 + 8191;
    assert_eq!(
        m["window"]["first_kept_block"],
        first_kept_by_time(newest, 100)
    );
}
