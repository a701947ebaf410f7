//! `eraflow verify --outputs OUT`: the full check behind a scheduled rerun's metadata proofs (issue 23, item
//! 1). Every output an export's completion records name is read back and hashed; an output changed in place
//! with its size and modification time put back (which no metadata proof can see), cut short, or gone fails
//! the command (exit 1), naming the output, what was recorded and what was found.

use crate::util::eraflow;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub(crate) fn inputs(dir: &Path) -> Vec<PathBuf> {
    let net = eraflow::network::Network::by_name("synthnet").unwrap();
    let mut o = eraflow::synth::era1::SynthOptions::new(net);
    (o.files, o.blocks, o.txs_per_block) = (2, 64, 2);
    eraflow::synth::era1::write(dir, &o).unwrap()
}

/// `eraflow verify --outputs OUT [--json]`, run by `c` (an `eraflow` command, with an object store's environment
/// when OUT is one).
pub(crate) fn verify_outputs_by(mut c: Command, out: &str, json: bool) -> Output {
    c.args(["verify", "--outputs", out]);
    if json {
        c.arg("--json");
    }
    c.output().unwrap()
}

fn verify_outputs(out: &str, json: bool) -> Output {
    verify_outputs_by(eraflow(), out, json)
}

/// (path, status, the whole line) per JSON line.
pub(crate) fn verdicts(r: &Output) -> Vec<(String, String, serde_json::Value)> {
    String::from_utf8_lossy(&r.stdout)
        .lines()
        .map(|l| {
            let v: serde_json::Value =
                serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}"));
            (
                v["path"].as_str().unwrap_or("-").to_string(),
                v["status"].as_str().unwrap().to_string(),
                v,
            )
        })
        .collect()
}

fn export(out: &str, inputs: &[PathBuf]) {
    let r = eraflow()
        .args(["--threads", "1", "export", "--no-senders", "--out", out])
        .args(inputs)
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
}

/// Rewrites `p` with `bytes`, its modification time put back.
fn rewrite_keeping_mtime(p: &Path, bytes: &[u8]) {
    let when = std::fs::metadata(p).unwrap().modified().unwrap();
    std::fs::write(p, bytes).unwrap();
    std::fs::File::options()
        .write(true)
        .open(p)
        .unwrap()
        .set_modified(when)
        .unwrap();
}

#[test]
fn every_output_is_read_back_and_what_differs_is_named() {
    let work = tempfile::tempdir().unwrap();
    let inputs = inputs(&work.path().join("in"));
    let out = work.path().join("out");
    let out_s = out.to_str().unwrap();
    export(out_s, &inputs);
    let records = crate::util::files_in(&out.join("_eraflow/sources")).len();

    let r = verify_outputs(out_s, true);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let v = verdicts(&r);
    assert_eq!(v.len(), records);
    assert!(v.iter().all(|x| x.1 == "ok" || x.1 == "no_output"), "{v:?}");
    assert!(v.iter().any(|x| x.1 == "ok"));
    // Sorted by source and dataset, whatever the order hashing finished in.
    let keys: Vec<_> = v
        .iter()
        .map(|x| (x.2["source"].to_string(), x.2["dataset"].to_string()))
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);

    // Three outputs of one dataset each: a byte flipped (size and time kept), cut short, removed.
    let outputs: Vec<String> = v
        .iter()
        .filter(|x| x.1 == "ok")
        .map(|x| x.0.clone())
        .collect();
    let (flipped, cut, gone) = (&outputs[0], &outputs[1], &outputs[2]);
    let mut bytes = std::fs::read(out.join(flipped)).unwrap();
    let recorded_sha = hex::encode(eraflow::crypto::sha256::sha256(&bytes));
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x01;
    rewrite_keeping_mtime(&out.join(flipped), &bytes);
    let short = std::fs::read(out.join(cut)).unwrap();
    rewrite_keeping_mtime(&out.join(cut), &short[..short.len() - 1]);
    std::fs::remove_file(out.join(gone)).unwrap();

    let r = verify_outputs(out_s, true);
    assert_eq!(
        r.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
    let v = verdicts(&r);
    let of = |p: &str| v.iter().find(|x| x.0 == p).unwrap().2.clone();
    assert_eq!(of(flipped)["status"], "sha256");
    assert_eq!(of(flipped)["expected"], recorded_sha.as_str());
    assert_ne!(of(flipped)["found"], recorded_sha.as_str());
    assert_eq!(of(cut)["status"], "size");
    assert_eq!(of(cut)["expected"], short.len() as u64);
    assert_eq!(of(cut)["found"], short.len() as u64 - 1);
    assert_eq!(of(gone)["status"], "missing");
    assert_eq!(v.iter().filter(|x| x.1 == "ok").count(), outputs.len() - 3);

    // The human summary names each, and the count.
    let r = verify_outputs(out_s, false);
    assert_eq!(r.status.code(), Some(1));
    let text = String::from_utf8_lossy(&r.stdout);
    for p in [flipped, cut, gone] {
        assert!(text.contains(&format!("FAILED {out_s}/{p}")), "{text}");
    }
    assert!(text.contains(&format!("{records} records")), "{text}");
    assert!(text.contains("3 failed"), "{text}");

    // Not an output: a usage error, before anything is read.
    let r = verify_outputs(work.path().join("in").to_str().unwrap(), true);
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("not an eraflow output"));
}
