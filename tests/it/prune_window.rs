//! Rolling prune lists (`--keep-epochs`, `--keep-blocks`): the cut-off is counted back from the newest input
//! block, found by headers, and checked here against the synthetic chain's own timestamp rule (block n at
//! 1,600,000,000 + 13 n seconds), computed independently of eraflow's search.

use crate::util::listing;
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
    chain_files(dir, era, files, SynthOptions::new(synthnet()).seed)
}

/// [`ere_files`] of the chain `seed` gives: another seed is another chain under the same network name.
fn chain_files(dir: &Path, era: u64, files: u64, seed: u64) -> Vec<PathBuf> {
    eraflow::synth::ere::write(
        dir,
        &EreSynthOptions {
            chain: SynthOptions {
                era,
                files,
                blocks: 8192,
                txs_per_block: 1,
                seed,
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

/// Damages block `i`'s body record of `path` in place (a CRC no longer matches): verification of the file
/// fails, its index still reads. Returns the original bytes.
fn damage_body(path: &Path, i: u64) -> Vec<u8> {
    let original = std::fs::read(path).unwrap();
    let f = eraflow::formats::ExecutionArchive::open(path).unwrap();
    let at = f.block(i).unwrap().body.offset as usize + 8 + 12;
    drop(f);
    let mut bytes = original.clone();
    bytes[at] ^= 0x55;
    std::fs::write(path, &bytes).unwrap();
    original
}

#[test]
fn a_rolling_manifest_extends_reading_only_new_archives_and_equals_one_from_scratch() {
    let d = tempfile::tempdir().unwrap();
    let files = ere_files(&d.path().join("in"), POST_MERGE_ERA, 4);
    let first = POST_MERGE_ERA * 8192;
    let out = d.path().join("prune");
    for format in [
        eraflow::prune::OutputFormat::Binary,
        eraflow::prune::OutputFormat::Text,
    ] {
        let _ = std::fs::remove_dir_all(&out);
        let opts = PruneOptions {
            format,
            ..window(Window::Blocks(5000))
        };
        // Day 1: two archives; the window's edge falls inside the second.
        let day1 = run(&files[..2], &out, &opts).unwrap();
        assert_eq!(day1.extended, None);
        assert_eq!(day1.manifest.range.last, first + 2 * 8192 - 1 - 5000);
        // Day 2: a third archive. The first one is damaged now: extending never reads it (a build from
        // scratch would stop on it), the second is read again for its blocks past the earlier range.
        let original = damage_body(&files[0], 100);
        let day2 = run(&files[..3], &out, &opts).unwrap();
        assert_eq!(day2.extended, Some(day1.manifest.range.last));
        assert_eq!(day2.manifest.range.last, first + 3 * 8192 - 1 - 5000);
        let e = run(
            &files[..3],
            &d.path().join("scratch-damaged"),
            &PruneOptions {
                from_scratch: true,
                ..opts.clone()
            },
        )
        .unwrap_err();
        assert!(matches!(e, PruneError::Unverified { .. }), "{e}");
        std::fs::write(&files[0], original).unwrap();
        // Byte-identical to a build from scratch over the same archives, every file.
        let scratch = d.path().join("scratch");
        run(&files[..3], &scratch, &opts).unwrap();
        assert_eq!(listing(&out), listing(&scratch), "{format:?}");
        check(&out).unwrap();
        // Day 3 adds nothing that left the window twice: the same inputs again extend by nothing.
        let again = run(&files[..3], &out, &opts).unwrap();
        assert_eq!(again.extended, Some(day2.manifest.range.last));
        assert_eq!(listing(&out), listing(&scratch));
        // Day 4: the fourth archive, whole files only this time (the edge moves a full file).
        let day4 = run(&files, &out, &opts).unwrap();
        assert_eq!(day4.extended, Some(day2.manifest.range.last));
        let _ = std::fs::remove_dir_all(&scratch);
        run(&files, &scratch, &opts).unwrap();
        assert_eq!(listing(&out), listing(&scratch), "{format:?}");
        let _ = std::fs::remove_dir_all(&scratch);
    }
}

/// A scheduled rolling prune over six runs, a new era arriving before each: every run extends the manifest
/// reading only the archive the window's edge left in part and the new one (what it says it read), and each
/// result equals, file for file, a manifest built from scratch over the same archives, and checks.
#[test]
fn six_scheduled_runs_read_only_the_new_eras_and_equal_a_build_from_scratch() {
    let d = tempfile::tempdir().unwrap();
    let files = ere_files(&d.path().join("in"), POST_MERGE_ERA, 7);
    let names: Vec<String> = files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let first = POST_MERGE_ERA * 8192;
    let out = d.path().join("prune");
    let opts = window(Window::Blocks(5000));
    let day0 = run(&files[..1], &out, &opts).unwrap();
    assert_eq!(day0.read, names[..1]);
    for day in 1..=6usize {
        let inputs = &files[..=day];
        let s = run(inputs, &out, &opts).unwrap();
        // The edge (5,000 blocks before the newest) moved from the previous archive into the new one.
        assert_eq!(
            s.extended,
            Some(first + day as u64 * 8192 - 1 - 5000),
            "day {day}"
        );
        assert_eq!(
            s.manifest.range.last,
            first + (day as u64 + 1) * 8192 - 1 - 5000
        );
        assert_eq!(s.read, names[day - 1..=day], "day {day}: what it read");
        let scratch = d.path().join(format!("scratch-{day}"));
        let fresh = run(
            inputs,
            &scratch,
            &PruneOptions {
                from_scratch: true,
                ..opts.clone()
            },
        )
        .unwrap();
        assert_eq!(
            fresh.read,
            names[..=day],
            "day {day}: from scratch reads all"
        );
        assert_eq!(listing(&out), listing(&scratch), "day {day}");
        check(&out).unwrap();
        std::fs::remove_dir_all(&scratch).unwrap();
    }
}

#[test]
fn an_earlier_manifest_that_does_not_fit_or_check_is_rebuilt_from_scratch() {
    let d = tempfile::tempdir().unwrap();
    let files = ere_files(&d.path().join("in"), POST_MERGE_ERA, 3);
    let first = POST_MERGE_ERA * 8192;
    let out = d.path().join("prune");
    let opts = window(Window::Blocks(3000));
    let scratch = d.path().join("scratch");
    run(&files, &scratch, &opts).unwrap();
    // Another start: rebuilt.
    run(
        &files[..2],
        &out,
        &PruneOptions {
            from_block: Some(first + 10),
            ..opts.clone()
        },
    )
    .unwrap();
    let s = run(&files, &out, &opts).unwrap();
    assert_eq!(s.extended, None);
    assert_eq!(listing(&out), listing(&scratch));
    // A damaged list: the earlier manifest does not check, so nothing of it is trusted.
    let _ = std::fs::remove_dir_all(&out);
    run(&files[..2], &out, &opts).unwrap();
    let tx = out.join("tx_hashes.bin");
    let mut bytes = std::fs::read(&tx).unwrap();
    bytes[40] ^= 1;
    std::fs::write(&tx, bytes).unwrap();
    let s = run(&files, &out, &opts).unwrap();
    assert_eq!(s.extended, None);
    assert_eq!(listing(&out), listing(&scratch));
    // Another format: rebuilt.
    let _ = std::fs::remove_dir_all(&out);
    run(&files[..2], &out, &opts).unwrap();
    let s = run(
        &files,
        &out,
        &PruneOptions {
            format: eraflow::prune::OutputFormat::Text,
            ..opts.clone()
        },
    )
    .unwrap();
    assert_eq!(s.extended, None);
    assert!(out.join("tx_hashes.txt").is_file());
}

#[test]
fn prune_check_rebuild_proves_an_extended_manifest_equals_a_fresh_one() {
    let d = tempfile::tempdir().unwrap();
    let files = ere_files(&d.path().join("in"), POST_MERGE_ERA, 3);
    let out = d.path().join("prune");
    let eraflow = |args: &[&std::ffi::OsStr]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_eraflow"))
            .args(args)
            .output()
            .unwrap()
    };
    let os = |s: &str| std::ffi::OsString::from(s);
    let mut build = vec![
        os("prune"),
        os("-q"),
        os("--keep-blocks"),
        os("4000"),
        os("--out"),
        out.clone().into_os_string(),
    ];
    build.push(files[0].clone().into_os_string());
    build.push(files[1].clone().into_os_string());
    let r = eraflow(&build.iter().map(|s| s.as_os_str()).collect::<Vec<_>>());
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    build.push(files[2].clone().into_os_string());
    let r = eraflow(&build.iter().map(|s| s.as_os_str()).collect::<Vec<_>>());
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert!(
        String::from_utf8_lossy(&r.stderr).contains("extended the earlier manifest"),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
    // The command says what it read: the archive the edge fell inside, and the new one.
    let name = |f: &PathBuf| f.file_name().unwrap().to_string_lossy().into_owned();
    let said = format!(
        "note: read 2 archive(s): {}, {}",
        name(&files[1]),
        name(&files[2])
    );
    assert!(
        String::from_utf8_lossy(&r.stderr).contains(&said),
        "{said}\n{}",
        String::from_utf8_lossy(&r.stderr)
    );
    let check_args = |inputs: &[PathBuf]| {
        let mut v = vec![
            os("prune"),
            os("check"),
            out.clone().into_os_string(),
            os("--rebuild"),
        ];
        v.extend(inputs.iter().map(|p| p.clone().into_os_string()));
        v
    };
    let r = eraflow(
        &check_args(&files)
            .iter()
            .map(|s| s.as_os_str())
            .collect::<Vec<_>>(),
    );
    let stdout = String::from_utf8_lossy(&r.stdout);
    assert!(
        r.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&r.stderr)
    );
    assert!(
        stdout.contains("equals a manifest built from scratch"),
        "{stdout}"
    );
    // Other archives of the same blocks (another seed): every list differs, said file by file, exit 1.
    let other = eraflow::synth::ere::write(
        &d.path().join("other"),
        &EreSynthOptions {
            chain: SynthOptions {
                era: POST_MERGE_ERA,
                files: 3,
                blocks: 8192,
                txs_per_block: 1,
                seed: 99,
                ..SynthOptions::new(synthnet())
            },
            profile: EreProfile {
                no_proofs: true,
                no_receipts: false,
            },
        },
    )
    .unwrap();
    let r = eraflow(
        &check_args(&other)
            .iter()
            .map(|s| s.as_os_str())
            .collect::<Vec<_>>(),
    );
    let stdout = String::from_utf8_lossy(&r.stdout);
    assert_eq!(
        r.status.code(),
        Some(1),
        "{stdout}{}",
        String::from_utf8_lossy(&r.stderr)
    );
    assert!(
        stdout.contains("DIFF") && stdout.contains("tx_hashes.bin"),
        "{stdout}"
    );
    // Nothing of the scratch build is left beside the directory.
    let left: Vec<_> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("rebuild"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn the_shipped_rolling_pipeline_extends_its_manifest_run_after_run() {
    let d = tempfile::tempdir().unwrap();
    let (inputs, spare) = (d.path().join("in"), d.path().join("spare"));
    let files = ere_files(&spare, POST_MERGE_ERA, 4);
    std::fs::create_dir_all(&inputs).unwrap();
    for f in &files[..3] {
        std::fs::rename(f, inputs.join(f.file_name().unwrap())).unwrap();
    }
    let out = d.path().join("prune");
    let run_pipeline = || {
        let r = std::process::Command::new(env!("CARGO_BIN_EXE_eraflow"))
            .args(["run", "-q"])
            .arg(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/pipelines/prune-rolling.toml"
            ))
            .args(["--set", "network=\"synthnet\""])
            .arg("--set")
            .arg(format!("inputs=[\"{}\"]", inputs.display()))
            .arg("--set")
            .arg(format!("out=\"{}\"", d.path().join("reports").display()))
            .arg("--set")
            .arg(format!("prune.out=\"{}\"", out.display()))
            // 300 epochs: 8,861 synthetic blocks (the shipped 33,024 outlast any synthetic chain).
            .args(["--set", "prune.keep_epochs=300"])
            .output()
            .unwrap();
        assert!(
            r.status.success(),
            "{}{}",
            String::from_utf8_lossy(&r.stdout),
            String::from_utf8_lossy(&r.stderr)
        );
        String::from_utf8_lossy(&r.stderr).into_owned()
    };
    run_pipeline();
    let first = POST_MERGE_ERA * 8192;
    let m1 = check(&out).unwrap().manifest;
    assert_eq!(
        m1.range.last,
        first_kept_by_time(first + 3 * 8192 - 1, 300) - 1
    );
    // The next era arrives; the scheduled run extends: the oldest archive, damaged meanwhile, is not read (a
    // build from scratch would stop on it).
    std::fs::rename(&files[3], inputs.join(files[3].file_name().unwrap())).unwrap();
    let oldest = inputs.join(files[0].file_name().unwrap());
    let original = damage_body(&oldest, 7);
    run_pipeline();
    std::fs::write(&oldest, original).unwrap();
    let m2 = check(&out).unwrap().manifest;
    assert_eq!(
        m2.range.last,
        first_kept_by_time(first + 4 * 8192 - 1, 300) - 1
    );
    let moved: Vec<PathBuf> = files
        .iter()
        .map(|f| inputs.join(f.file_name().unwrap()))
        .collect();
    let scratch = d.path().join("scratch");
    run(&moved, &scratch, &window(Window::Epochs(300))).unwrap();
    assert_eq!(listing(&out), listing(&scratch));
}

#[test]
fn a_rolling_prune_refuses_to_be_sharded() {
    let d = tempfile::tempdir().unwrap();
    let files = ere_files(&d.path().join("in"), POST_MERGE_ERA, 1);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_eraflow"))
        .args([
            "prune",
            "-q",
            "--keep-blocks",
            "10",
            "--shard",
            "0/2",
            "--out",
        ])
        .arg(d.path().join("out"))
        .arg(&files[0])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("newest of all the inputs"), "{err}");
    assert!(!d.path().join("out").exists());
}

/// A zero-length window in a pipeline is refused naming the key that says it (`prune.keep_blocks`, not
/// `prune.keep_epochs`), before anything is read.
#[test]
fn a_zero_window_in_a_pipeline_names_its_key() {
    let d = tempfile::tempdir().unwrap();
    for (key, other) in [
        ("keep_blocks", "keep_epochs"),
        ("keep_epochs", "keep_blocks"),
    ] {
        let config = d.path().join(format!("{key}.toml"));
        std::fs::write(
            &config,
            format!(
                "name = \"zero\"\nnetwork = \"synthnet\"\ninputs = [\"{}\"]\nout = \"{}\"\n\n[prune]\nout = \"{}\"\n{key} = 0\n",
                d.path().join("in").display(),
                d.path().join("reports").display(),
                d.path().join("prune").display()
            ),
        )
        .unwrap();
        let r = std::process::Command::new(env!("CARGO_BIN_EXE_eraflow"))
            .args(["run", "-q"])
            .arg(&config)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "{err}");
        assert!(err.contains(&format!("prune.{key}")), "{err}");
        assert!(!err.contains(&format!("prune.{other}")), "{err}");
        assert!(!d.path().join("prune").exists());
    }
}

/// `eraflow prune -q --keep-blocks KEEP --out OUT INPUT`: its exit code and stderr.
fn prune_keeping(keep: u64, out: &Path, input: &Path) -> (Option<i32>, String) {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_eraflow"))
        .args(["prune", "-q", "--keep-blocks", &keep.to_string(), "--out"])
        .arg(out)
        .arg(input)
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// A window counted back from a file of another chain named for the same network (era 127 of another seed
/// after eras 123-126) put the cut-off 8,192 blocks past the one the node of eras 123-126 has: its lists named
/// blocks the node must keep. Building afresh and extending an earlier manifest are both refused, naming both
/// files and the parent hash that does not chain, with nothing written; the same chain's era 127, with a whole
/// file between the cut-off and it, is taken, and extends the earlier manifest.
#[test]
fn a_window_counted_from_a_file_of_another_chain_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let ours = ere_files(&d.path().join("ours"), POST_MERGE_ERA, 5);
    let foreign = chain_files(&d.path().join("foreign"), POST_MERGE_ERA + 4, 1, 99);
    let name = |p: &Path| p.file_name().unwrap().to_string_lossy().into_owned();
    let input = d.path().join("in");
    std::fs::create_dir_all(&input).unwrap();
    for f in &ours[..4] {
        std::fs::copy(f, input.join(name(f))).unwrap();
    }
    let refused = |code: Option<i32>, err: &str| {
        assert_eq!(code, Some(1), "{err}");
        assert!(
            err.contains(&name(&foreign[0]))
                && err.contains(&name(&ours[3]))
                && err.contains("parent hash"),
            "{err}"
        );
    };
    // An earlier manifest of eras 123-126, for the extending run below.
    let extended = d.path().join("extended");
    let (code, err) = prune_keeping(10_000, &extended, &input);
    assert_eq!(code, Some(0), "{err}");
    let earlier = std::fs::read(extended.join("manifest.json")).unwrap();

    let foreign_in = input.join(name(&foreign[0]));
    std::fs::copy(&foreign[0], &foreign_in).unwrap();
    let fresh = d.path().join("fresh");
    let (code, err) = prune_keeping(10_000, &fresh, &input);
    refused(code, &err);
    assert!(!fresh.exists());
    let (code, err) = prune_keeping(10_000, &extended, &input);
    refused(code, &err);
    assert_eq!(
        std::fs::read(extended.join("manifest.json")).unwrap(),
        earlier
    );

    // The same chain's era 127: linked through all of era 126 (20,000 blocks back is inside era 125).
    std::fs::remove_file(&foreign_in).unwrap();
    std::fs::copy(&ours[4], input.join(name(&ours[4]))).unwrap();
    let newest = (POST_MERGE_ERA + 5) * 8192 - 1;
    let linked = d.path().join("linked");
    let s = run(&ours, &linked, &window(Window::Blocks(20_000))).unwrap();
    assert_eq!(s.manifest.range.last, newest - 20_000);
    let (code, err) = prune_keeping(10_000, &extended, &input);
    assert_eq!(code, Some(0), "{err}");
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(extended.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m["range"]["last"], newest - 10_000);
}
