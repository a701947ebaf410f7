//! `--shard K/N`: N processes with K = 0..N-1 take every input exactly once, their outputs together are the
//! unsharded run's, and a bad shard is a usage error.

use crate::util::{eraflow, synth_era1_files};
use std::collections::BTreeMap;

#[test]
fn shards_cover_every_file_exactly_once() {
    let src = tempfile::tempdir().unwrap();
    let files = synth_era1_files(src.path(), 7, 32);
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for k in 0..4 {
        let out = eraflow()
            .args(["verify", "--json", "--shard", &format!("{k}/4")])
            .arg(src.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "shard {k}/4: {out:?}");
        for line in String::from_utf8(out.stdout).unwrap().lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let file = v["file"].as_str().unwrap().to_string();
            // Canonical names: era modulo N.
            assert_eq!(v["era"].as_u64().unwrap() % 4, k, "{file} in shard {k}");
            *seen.entry(file).or_default() += 1;
        }
    }
    let all: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    assert_eq!(seen.keys().cloned().collect::<Vec<_>>(), all);
    assert!(seen.values().all(|&n| n == 1), "{seen:?}");
}

#[test]
fn sharded_exports_together_equal_one_export() {
    let src = tempfile::tempdir().unwrap();
    synth_era1_files(src.path(), 5, 32);
    let whole = tempfile::tempdir().unwrap();
    let st = eraflow()
        .args(["--threads", "1", "export", "--no-senders", "--out"])
        .arg(whole.path())
        .arg(src.path())
        .status()
        .unwrap();
    assert!(st.success());
    // Three shards as separate processes at the same time into one output directory (a Kubernetes Indexed
    // Job's pods): together the unsharded export's bytes, manifest included.
    let sharded = tempfile::tempdir().unwrap();
    let children: Vec<_> = (0..3)
        .map(|k| {
            eraflow()
                .args(["--threads", "1", "export", "--no-senders", "--shard"])
                .arg(format!("{k}/3"))
                .arg("--out")
                .arg(sharded.path())
                .arg(src.path())
                .spawn()
                .unwrap()
        })
        .collect();
    for (k, mut c) in children.into_iter().enumerate() {
        assert!(c.wait().unwrap().success(), "shard {k}/3");
    }
    crate::schedule::assert_same_outputs(sharded.path(), whole.path());
}

#[test]
fn a_bad_shard_is_a_usage_error() {
    let src = tempfile::tempdir().unwrap();
    synth_era1_files(src.path(), 1, 8);
    let out = tempfile::tempdir().unwrap();
    for bad in ["4/4", "1/0", "x", "-1/2"] {
        let flag = format!("--shard={bad}");
        let out_dir = out.path().to_str().unwrap();
        for args in [
            vec!["verify", &flag],
            vec!["export", &flag, "--out", out_dir],
            vec!["prune", &flag, "--out", out_dir],
        ] {
            let o = eraflow().args(&args).arg(src.path()).output().unwrap();
            assert_eq!(o.status.code(), Some(2), "{args:?}: {o:?}");
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(err.contains("shard"), "{args:?}: {err}");
        }
    }
    let pipeline = src.path().join("p.toml");
    std::fs::write(
        &pipeline,
        format!(
            "name = \"p\"\ninputs = [{:?}]\nout = {:?}\nshard = \"3/3\"\n[verify]\n",
            src.path(),
            out.path()
        ),
    )
    .unwrap();
    let o = eraflow().arg("run").arg(&pipeline).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    // A good shard over the pipeline key (flag over file) runs; a shard holding no file is no error.
    let o = eraflow()
        .arg("run")
        .arg(&pipeline)
        .args(["--shard", "1/3"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
}
