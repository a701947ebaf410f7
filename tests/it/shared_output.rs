//! One output directory, many writers: completion is recorded per (source, dataset), so concurrent exports
//! lose nothing and never delete each other's temporaries, and a rerun makes exactly the datasets that are not
//! complete.

use crate::util::{export_opts, files_in, snapshot};
use eraflow::consensus::Fork;
use eraflow::datasets;
use eraflow::export::export;
use eraflow::export::progress::{FileOutcome, Progress};
use eraflow::formats::ArchiveKind;
use eraflow::network::Network;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Four small synthetic era1 files and two deneb era files.
fn inputs(dir: &Path) -> Vec<PathBuf> {
    let net = Network::by_name("synthnet").unwrap();
    let mut o = eraflow::synth::era1::SynthOptions::new(net.clone());
    o.blocks = 400;
    o.txs_per_block = 2;
    o.files = 4;
    let mut v = eraflow::synth::era1::write(&dir.join("era1"), &o).unwrap();
    let mut e = eraflow::synth::era::EraSynthOptions::new(net.clone());
    e.era = eraflow::synth::era::EraSynthOptions::era_of_fork(&net, Fork::Deneb).unwrap();
    e.files = 2;
    e.blocks = 6;
    e.validators = 64;
    e.txs_per_block = 2;
    v.extend(eraflow::synth::era::write(&dir.join("era"), &e).unwrap());
    v
}

fn rows_written(o: &FileOutcome) -> BTreeSet<&str> {
    o.rows.keys().map(|k| k.as_str()).collect()
}

fn run(inputs: &[PathBuf], out: &Path, names: Option<&[&str]>) -> Vec<FileOutcome> {
    let mut opts = export_opts(out, false);
    if let Some(n) = names {
        let n: Vec<String> = n.iter().map(|s| s.to_string()).collect();
        opts.datasets = datasets::by_names(&n).unwrap();
    }
    let o = export(inputs, &opts, &Progress::hidden()).unwrap();
    assert!(o.iter().all(|f| f.ok), "{o:?}");
    o
}

fn modified(p: &Path) -> std::time::SystemTime {
    std::fs::metadata(p).unwrap().modified().unwrap()
}

#[test]
fn completeness_is_per_dataset() {
    let src = tempfile::tempdir().unwrap();
    let inputs = inputs(src.path());
    let reference = tempfile::tempdir().unwrap();
    run(&inputs, reference.path(), None);
    let expected = snapshot(reference.path());

    // Adding datasets exports only them; the outputs already there are not rewritten.
    let out = tempfile::tempdir().unwrap();
    run(&inputs, out.path(), Some(&["blocks"]));
    let blocks: Vec<PathBuf> = files_in(&out.path().join("blocks"));
    let stamps: Vec<_> = blocks.iter().map(|p| modified(p)).collect();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let o = run(&inputs, out.path(), None);
    assert_eq!(
        rows_written(&o[0]),
        BTreeSet::from_iter(
            [
                "logs",
                "transactions",
                "uncles",
                "raw_transactions",
                "native_transfers"
            ]
            .into_iter()
            .chain(crate::tokens::TOKENS.iter().copied())
        )
    );
    // An era file: every era dataset but blocks (the beacon-chain operations and validators included).
    let era_datasets: BTreeSet<&str> = datasets::ALL
        .iter()
        .filter(|d| ArchiveKind::Era.holds().has(d.needs()) && d.name() != "blocks")
        .map(|d| d.name())
        .collect();
    assert!(era_datasets.contains("attestations") && era_datasets.contains("validators"));
    assert_eq!(rows_written(&o[5]), era_datasets);
    assert_eq!(
        stamps,
        blocks.iter().map(|p| modified(p)).collect::<Vec<_>>()
    );
    assert_eq!(expected, snapshot(out.path()));
    assert!(run(&inputs, out.path(), None).iter().all(|f| f.skipped));

    // Deleting one dataset's outputs and records redoes just that dataset.
    for p in files_in(&out.path().join("transactions")) {
        std::fs::remove_file(p).unwrap();
    }
    for p in files_in(&out.path().join("_eraflow/sources")) {
        if p.ends_with("transactions.json") {
            std::fs::remove_file(p).unwrap();
        }
    }
    let o = run(&inputs, out.path(), None);
    assert!(o
        .iter()
        .all(|f| !f.skipped && rows_written(f) == BTreeSet::from(["transactions"])));
    assert_eq!(expected, snapshot(out.path()));

    // A record whose output is gone, or another record missing, redoes only that dataset of that source.
    std::fs::remove_file(&files_in(&out.path().join("logs"))[1]).unwrap();
    let first_source = inputs[0].file_name().unwrap().to_str().unwrap();
    std::fs::remove_file(
        out.path()
            .join(format!("_eraflow/sources/{first_source}/uncles.json")),
    )
    .unwrap();
    let o = run(&inputs, out.path(), None);
    assert_eq!(rows_written(&o[0]), BTreeSet::from(["uncles"]));
    assert_eq!(rows_written(&o[1]), BTreeSet::from(["logs"]));
    assert!(o[2..].iter().all(|f| f.skipped));
    assert_eq!(expected, snapshot(out.path()));
}

/// Runs `sets.len()` exporter processes at once into `out`, each over its own (overlapping) inputs.
fn concurrent(sets: &[Vec<PathBuf>], out: &Path) {
    let children: Vec<_> = sets
        .iter()
        .map(|set| {
            Command::new(env!("CARGO_BIN_EXE_eraflow"))
                .args(["--threads", "1", "export", "--no-senders", "--out"])
                .arg(out)
                .args(set)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let r = c.wait_with_output().unwrap();
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    }
}

#[test]
fn concurrent_writers_into_one_directory_lose_nothing() {
    let src = tempfile::tempdir().unwrap();
    let inputs = inputs(src.path());
    let reference = tempfile::tempdir().unwrap();
    // The command's default list (configs/default.toml): every dataset but the opt-in ones.
    let names = crate::util::default_datasets();
    let defaults: Vec<&str> = names.iter().map(String::as_str).collect();
    run(&inputs, reference.path(), Some(&defaults));
    let expected = snapshot(reference.path());
    let pick = |ix: &[usize]| ix.iter().map(|&i| inputs[i].clone()).collect::<Vec<_>>();
    let sets = [
        pick(&[0, 1, 2]),
        pick(&[1, 2, 3]),
        pick(&[2, 3, 4]),
        pick(&[5, 3, 0, 4]),
    ];
    for round in 0..2 {
        let out = tempfile::tempdir().unwrap();
        concurrent(&sets, out.path());
        let all = files_in(out.path());
        assert!(
            all.iter()
                .all(|p| !p.file_name().unwrap().to_string_lossy().ends_with(".tmp")),
            "round {round}: temporaries left: {all:?}"
        );
        let got = snapshot(out.path());
        assert_eq!(
            got.iter().map(|g| &g.0).collect::<Vec<_>>(),
            expected.iter().map(|e| &e.0).collect::<Vec<_>>(),
            "round {round}: other files than a single run's"
        );
        for ((p, a), (_, b)) in got.iter().zip(&expected) {
            assert!(a == b, "round {round}: {p:?} differs from a single run's");
        }
        let m: serde_json::Value = serde_json::from_slice(
            &std::fs::read(out.path().join("_eraflow/manifest.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(m["sources"].as_object().unwrap().len(), inputs.len());
        // One run report per process, none overwritten by another.
        assert_eq!(
            files_in(&out.path().join("_eraflow/runs")).len(),
            sets.len()
        );
    }
}

/// The `stale_outputs` of the export stage of the newest run report under `out`, and whether they were removed.
pub fn stale_in_report(out: &Path) -> (Vec<String>, bool) {
    // The newest by when it was written: names sort by the second a run started, then by pid, so two runs of
    // one second may sort either way.
    let newest = std::fs::read_dir(out.join("_eraflow/runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .max_by_key(|p| std::fs::metadata(p).unwrap().modified().unwrap())
        .unwrap();
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(newest).unwrap()).unwrap();
    let stage = &r["stages"][0];
    let paths = stage["stale_outputs"]
        .as_array()
        .map(|a| a.iter().map(|v| v.as_str().unwrap().to_string()).collect())
        .unwrap_or_default();
    (paths, stage["stale_removed"].as_bool().unwrap_or(false))
}

#[test]
fn outputs_no_record_lists_are_named_and_removed_by_clean_stale() {
    let d = tempfile::tempdir().unwrap();
    let input = crate::util::synth_era1(&d.path().join("in"), 64, 2);
    let out = d.path().join("out");
    let export = |extra: &[&str]| {
        let (c, stdout, err) = crate::util::run(
            crate::util::eraflow()
                .args(["export", "--no-senders", "--out", out.to_str().unwrap()])
                .args(extra)
                .arg(&input),
        );
        assert_eq!(c, Some(0), "{err}");
        stdout
    };
    export(&["--datasets", "blocks,transactions,logs"]);
    assert_eq!(stale_in_report(&out), (vec![], false));
    // The logs record is lost (deleted by hand): its Parquet file is listed by nothing any more.
    let source = input.file_name().unwrap().to_string_lossy().into_owned();
    std::fs::remove_file(out.join("_eraflow/sources").join(&source).join("logs.json")).unwrap();
    let logs = files_in(&out.join("logs"));
    assert_eq!(logs.len(), 1);
    let rel = logs[0]
        .strip_prefix(&out)
        .unwrap()
        .to_string_lossy()
        .into_owned();
    // A killed writer's temporary in a dataset the rerun does not select (its pid past any Linux hands out).
    let dead = logs[0].with_file_name(".x.parquet.4194305-0.tmp");
    std::fs::write(&dead, b"partial").unwrap();
    // A narrower rerun names the unlisted output and keeps it, and removes the dead writer's temporary.
    let text = export(&["--datasets", "blocks,transactions"]);
    assert!(!dead.exists());
    assert_eq!(stale_in_report(&out), (vec![rel.clone()], false));
    assert!(
        text.contains("1 outputs no completion record lists") && text.contains(&rel),
        "{text}"
    );
    assert!(logs[0].exists());
    // --clean-stale removes it; the listed outputs stay.
    let before = snapshot(&out.join("blocks"));
    export(&["--datasets", "blocks,transactions", "--clean-stale"]);
    assert_eq!(stale_in_report(&out), (vec![rel], true));
    assert!(!logs[0].exists());
    assert_eq!(snapshot(&out.join("blocks")), before);
    export(&["--datasets", "blocks,transactions"]);
    assert_eq!(stale_in_report(&out), (vec![], false));
}
