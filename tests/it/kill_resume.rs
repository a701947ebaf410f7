//! A scheduled job killed at any moment and rerun must end with the same bytes as an uninterrupted run, and
//! must never leave a partial file under a final name.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn eraflow() -> Command {
    Command::new(env!("CARGO_BIN_EXE_eraflow"))
}

fn outputs(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut v = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                // Run reports, and the inputs' kept hashes (named by this machine's inodes), differ by run.
                if !p.ends_with("runs") && !p.ends_with("hashes") {
                    stack.push(p);
                }
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_path_buf();
                let bytes = crate::util::normalized(&rel, std::fs::read(&p).unwrap());
                v.push((rel, bytes));
            }
        }
    }
    v.sort();
    v
}

#[test]
fn killed_export_resumes_to_identical_bytes() {
    let src = tempfile::tempdir().unwrap();
    let st = eraflow()
        .args(["synth", "--out"])
        .arg(src.path())
        .args([
            "--files",
            "3",
            "--blocks",
            "8192",
            "--txs-per-block",
            "2",
            "--era",
            "0",
        ])
        .status()
        .unwrap();
    assert!(st.success());
    let export = |out: &Path| {
        let mut c = eraflow();
        c.args(["--threads", "2", "export", "--out"])
            .arg(out)
            .arg(src.path());
        c
    };
    let reference = tempfile::tempdir().unwrap();
    assert!(export(reference.path()).status().unwrap().success());
    let expected = outputs(reference.path());
    assert!(expected
        .iter()
        .any(|(p, _)| p.to_string_lossy().ends_with(".parquet")));

    let out = tempfile::tempdir().unwrap();
    // Kill at growing delays: early (nothing written), mid-file, between files.
    for delay_ms in [30u64, 150, 400, 800, 1500] {
        let mut child = export(out.path()).spawn().unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        for (p, _) in outputs(out.path()) {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let got = crate::util::normalized(&p, std::fs::read(out.path().join(&p)).unwrap());
            if name == "manifest.json" {
                // Mid-run the manifest lists fewer sources, but only outputs that exist in full.
                let m: serde_json::Value = serde_json::from_slice(&got).unwrap_or_else(|e| {
                    panic!("manifest not valid JSON after kill at {delay_ms} ms: {e}")
                });
                for src in m["sources"].as_object().unwrap().values() {
                    for o in src["outputs"].as_array().unwrap() {
                        let f = out.path().join(o["path"].as_str().unwrap());
                        let bytes = std::fs::read(&f)
                            .unwrap_or_else(|_| panic!("manifest lists missing {f:?}"));
                        assert_eq!(bytes.len() as u64, o["bytes"].as_u64().unwrap(), "{f:?}");
                    }
                }
                continue;
            }
            // Any other file under a final name must be complete: equal to the reference file of that name.
            let want = expected.iter().find(|(q, _)| *q == p).map(|(_, b)| b);
            assert!(
                Some(&got) == want,
                "partial or wrong file under final name {p:?} after kill at {delay_ms} ms ({} bytes, reference {:?})",
                got.len(),
                want.map(|w| w.len())
            );
        }
    }
    let st = export(out.path()).status().unwrap();
    assert!(st.success());
    let got: Vec<_> = outputs(out.path())
        .into_iter()
        .filter(|(p, _)| !p.to_string_lossy().ends_with(".tmp"))
        .collect();
    assert_eq!(
        got, expected,
        "after kills and a rerun, outputs differ from an uninterrupted run"
    );
    assert!(
        outputs(out.path())
            .iter()
            .all(|(p, _)| !p.to_string_lossy().ends_with(".tmp")),
        "stale temporaries left"
    );
}
