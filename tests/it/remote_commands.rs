//! `eraflow plan`, `verify` and `prune` over remote inputs (issue 23, item 4 and the audit's `plan` finding):
//! a mirror URL, one file's URL and an `s3://` prefix are listed as a run lists them, verified through the same
//! cache and checks as an export, and pruned from the files the plan selects.

use crate::http_input::{cached, mirror_dir, text, Mirror};
use crate::s3_output::Moto;
use crate::util::eraflow;
use std::path::{Path, PathBuf};

fn name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

/// `eraflow plan --json` of a pipeline over `inputs` (TOML strings), with extra arguments.
fn plan(work: &Path, inputs: &[String], extra: &[&str], moto: Option<&Moto>) -> serde_json::Value {
    let pipeline = work.join("plan.toml");
    let list: Vec<String> = inputs.iter().map(|i| format!("{i:?}")).collect();
    std::fs::write(
        &pipeline,
        format!(
            "name = \"p\"\ninputs = [{}]\nout = {:?}\n\n[export]\nsenders = false\n",
            list.join(", "),
            work.join("out").display().to_string()
        ),
    )
    .unwrap();
    let mut c = eraflow();
    if let Some(m) = moto {
        m.env(&mut c);
    }
    let r = c
        .arg("plan")
        .arg(&pipeline)
        .arg("--json")
        .args(extra)
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", text(&r));
    serde_json::from_slice(&r.stdout).unwrap()
}

/// The planned files as (file name, kind, network, era, shard key), and their paths.
fn planned(p: &serde_json::Value) -> (Vec<String>, Vec<String>) {
    let files = p["files"].as_array().unwrap();
    let paths: Vec<String> = files
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_string())
        .collect();
    let facts = files
        .iter()
        .map(|f| {
            let path = f["path"].as_str().unwrap();
            format!(
                "{} {} {} {} {}",
                path.rsplit('/').next().unwrap(),
                f["kind"],
                f["network"],
                f["era"],
                f["shard_key"]
            )
        })
        .collect();
    (facts, paths)
}

#[test]
fn plan_lists_a_mirror_one_file_and_an_s3_prefix_as_a_run_would() {
    let work = tempfile::tempdir().unwrap();
    let src = work.path().join("mirror");
    std::fs::create_dir_all(&src).unwrap();
    let files = mirror_dir(&src, None);
    let Some(mirror) = Mirror::start(&src, None) else {
        return;
    };
    let local = plan(work.path(), &[src.display().to_string()], &[], None);
    let remote = plan(work.path(), &[mirror.url()], &[], None);
    let (want, _) = planned(&local);
    let (got, paths) = planned(&remote);
    assert_eq!(got, want);
    let names: Vec<String> = files.iter().map(|f| name(f)).collect();
    assert_eq!(
        paths,
        names
            .iter()
            .map(|n| format!("{}{n}", mirror.url()))
            .collect::<Vec<_>>()
    );
    // A shard takes the same files from the mirror as from the folder.
    let (want, _) = planned(&plan(
        work.path(),
        &[src.display().to_string()],
        &["--shard", "1/2"],
        None,
    ));
    let (got, _) = planned(&plan(
        work.path(),
        &[mirror.url()],
        &["--shard", "1/2"],
        None,
    ));
    assert_eq!(got, want);
    // One file's URL.
    let one = format!("{}{}", mirror.url(), names[1]);
    let (_, paths) = planned(&plan(work.path(), std::slice::from_ref(&one), &[], None));
    assert_eq!(paths, [one]);
    // An s3:// prefix.
    let Some(moto) = Moto::start() else { return };
    moto.bucket("eraflow-in");
    moto.put_files("eraflow-in", "mainnet/era", &files);
    let (got, paths) = planned(&plan(
        work.path(),
        &["s3://eraflow-in/mainnet/era/".to_string()],
        &[],
        Some(&moto),
    ));
    assert_eq!(got, planned(&local).0);
    assert!(
        paths
            .iter()
            .zip(&names)
            .all(|(p, n)| *p == format!("s3://eraflow-in/mainnet/era/{n}")),
        "{paths:?}"
    );
}

#[test]
fn verify_reads_a_mirror_through_the_cache_with_the_same_checks() {
    let src = tempfile::tempdir().unwrap();
    // The second file's published sha256 is wrong.
    let files = mirror_dir(src.path(), Some(1));
    let Some(mirror) = Mirror::start(src.path(), None) else {
        return;
    };
    let cache = tempfile::tempdir().unwrap();
    let verify = |inputs: &[String]| {
        eraflow()
            .args(["--threads", "1", "verify", "--json", "--cache-dir"])
            .arg(cache.path())
            .args(inputs)
            .output()
            .unwrap()
    };
    let paths: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    let local = verify(&paths);
    assert!(local.status.success(), "{}", text(&local));
    let remote = verify(&[mirror.url()]);
    assert_eq!(remote.status.code(), Some(1), "{}", text(&remote));
    let reports = |o: &std::process::Output| -> Vec<serde_json::Value> {
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let (local, remote) = (reports(&local), reports(&remote));
    assert_eq!(local.len(), files.len());
    assert_eq!(remote.len(), files.len());
    let bad = format!("{}{}", mirror.url(), name(&files[1]));
    for r in &remote {
        let file = r["file"].as_str().unwrap();
        assert!(file.starts_with(&mirror.url()), "{r}");
        if file == bad {
            assert_eq!(r["ok"], false, "{r}");
            assert!(
                r["errors"][0].as_str().unwrap().contains("sha256 mismatch"),
                "{r}"
            );
            continue;
        }
        // The same report as the local file's, but for its name.
        let mut l = local
            .iter()
            .find(|l| {
                l["file"]
                    .as_str()
                    .unwrap()
                    .ends_with(&file[mirror.url().len()..])
            })
            .unwrap()
            .clone();
        l["file"] = r["file"].clone();
        assert_eq!(*r, l);
    }
    assert_eq!(cached(cache.path()), Vec::<String>::new());
}

#[test]
fn prune_fetches_only_the_files_its_plan_selects() {
    let work = tempfile::tempdir().unwrap();
    let src = work.path().join("mirror");
    let net = eraflow::network::Network::by_name("synthnet").unwrap();
    let mut o = eraflow::synth::era1::SynthOptions::new(net);
    // Bigger than a skeleton's head: its index is read with two ranged GETs (head and tail).
    (o.files, o.blocks, o.txs_per_block) = (3, 300, 2);
    let files = eraflow::synth::era1::write(&src, &o).unwrap();
    for f in &files {
        assert!(std::fs::metadata(f).unwrap().len() > eraflow::store::fetch::SKELETON_HEAD);
    }
    publish(&src, &files);
    let Some(mirror) = Mirror::start(&src, None) else {
        return;
    };
    let prune = |out: &Path, inputs: &[String]| {
        eraflow()
            .args([
                "--threads",
                "1",
                "prune",
                "--allow-gaps",
                "--from-block",
                "8192",
            ])
            .arg("--out")
            .arg(out)
            .arg("--cache-dir")
            .arg(work.path().join("cache"))
            .args(inputs)
            .output()
            .unwrap()
    };
    let paths: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    let r = prune(&work.path().join("local"), &paths);
    assert!(r.status.success(), "{}", text(&r));
    let _ = std::fs::remove_file(src.join(".requests"));
    let r = prune(&work.path().join("remote"), &[mirror.url()]);
    assert!(r.status.success(), "{}", text(&r));
    let listing = |d: &Path| -> Vec<(PathBuf, Vec<u8>)> { crate::util::snapshot(d) };
    assert_eq!(
        listing(&work.path().join("local")),
        listing(&work.path().join("remote"))
    );
    // Each file's index was read from its first and last bytes (two ranged GETs); only the files in the
    // range were then fetched whole.
    let log = std::fs::read_to_string(src.join(".requests")).unwrap();
    let gets = |n: &str| log.lines().filter(|l| *l == format!("GET {n}")).count();
    assert_eq!(gets(&name(&files[0])), 2, "{log}");
    assert_eq!(gets(&name(&files[1])), 3, "{log}");
    assert_eq!(gets(&name(&files[2])), 3, "{log}");
    let left: Vec<String> = cached(&work.path().join("cache"));
    assert_eq!(left, Vec::<String>::new());
}

/// A mirror's `checksums.txt` for `files`.
fn publish(dir: &Path, files: &[PathBuf]) {
    let sums: String = files
        .iter()
        .map(|f| {
            let sha = hex::encode(eraflow::crypto::sha256::sha256(&std::fs::read(f).unwrap()));
            format!("{sha}  {}\n", name(f))
        })
        .collect();
    std::fs::write(dir.join("checksums.txt"), sums).unwrap();
}

#[test]
fn a_rolling_prune_over_a_mirror_fetches_the_newest_file_and_the_edge_then_extends_with_new_files_only(
) {
    let work = tempfile::tempdir().unwrap();
    let (src, spare) = (work.path().join("mirror"), work.path().join("spare"));
    let net = eraflow::network::Network::by_name("synthnet").unwrap();
    let mut chain = eraflow::synth::era1::SynthOptions::new(net);
    // Four whole post-merge eras; the mirror publishes three, then the fourth.
    (chain.era, chain.files, chain.blocks, chain.txs_per_block) = (123, 4, 8192, 1);
    let opts = eraflow::synth::ere::EreSynthOptions {
        chain,
        profile: eraflow::formats::EreProfile {
            no_proofs: true,
            no_receipts: false,
        },
    };
    let mut files = eraflow::synth::ere::write(&spare, &opts).unwrap();
    std::fs::create_dir_all(&src).unwrap();
    for f in files.iter_mut() {
        let to = src.join(name(f));
        std::fs::rename(&*f, &to).unwrap();
        *f = to;
    }
    let fourth = spare.join(name(&files[3]));
    std::fs::rename(&files[3], &fourth).unwrap();
    publish(&src, &files[..3]);
    let Some(mirror) = Mirror::start(&src, None) else {
        return;
    };
    // 300 epochs of 384 s are 8,861 synthetic blocks of 13 s: the edge falls inside the second-newest file.
    let prune = |out: &Path, inputs: &[String]| {
        eraflow()
            .args(["--threads", "1", "prune", "--keep-epochs", "300"])
            .arg("--out")
            .arg(out)
            .arg("--cache-dir")
            .arg(work.path().join("cache"))
            .args(inputs)
            .output()
            .unwrap()
    };
    let gets = |n: &str| {
        let log = std::fs::read_to_string(src.join(".requests")).unwrap_or_default();
        log.lines().filter(|l| *l == format!("GET {n}")).count()
    };
    let (local, remote) = (work.path().join("local"), work.path().join("remote"));
    let paths = |fs: &[PathBuf]| {
        fs.iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
    };
    assert!(prune(&local, &paths(&files[..3])).status.success());
    let _ = std::fs::remove_file(src.join(".requests"));
    let r = prune(&remote, &[mirror.url()]);
    assert!(r.status.success(), "{}", text(&r));
    assert_eq!(
        crate::util::snapshot(&local),
        crate::util::snapshot(&remote)
    );
    // Every index from its skeleton (2 GETs); the newest whole for the reference (once), the edge's file whole
    // for its headers, for its last header (the newest must link to it: an ere file's last header is not in its
    // skeleton) and again for the build (three times), the oldest whole for the build (once). A whole file
    // takes `w` ranged GETs (the files are the same size).
    let counts = |fs: &[PathBuf]| fs.iter().map(|f| gets(&name(f))).collect::<Vec<_>>();
    let day1 = counts(&files[..3]);
    let w = day1[0] - 2;
    assert!(w >= 1, "{day1:?}");
    assert_eq!(day1, [2 + w, 2 + 3 * w, 2 + w]);

    // The fourth era is published: the manifest is extended. The oldest file is not fetched (its index only);
    // the second is read again for its blocks past the earlier edge, the third holds the new edge.
    std::fs::rename(&fourth, &files[3]).unwrap();
    publish(&src, &files);
    let _ = std::fs::remove_file(src.join(".requests"));
    let r = prune(&remote, &[mirror.url()]);
    assert!(r.status.success(), "{}", text(&r));
    assert!(
        text(&r).contains("extended the earlier manifest"),
        "{}",
        text(&r)
    );
    assert_eq!(counts(&files), [2, 2 + w, 2 + 3 * w, 2 + w]);
    let _ = std::fs::remove_dir_all(&local);
    assert!(prune(&local, &paths(&files)).status.success());
    assert_eq!(
        crate::util::snapshot(&local),
        crate::util::snapshot(&remote)
    );
    assert_eq!(cached(&work.path().join("cache")), Vec::<String>::new());
}
