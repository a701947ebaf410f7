//! A scheduled rerun with nothing new costs metadata, not bytes (issue 23, item 1): an input unchanged since it
//! was hashed is not read again (its sha256 kept by device, inode, size and times), an output is proven by its
//! size and modification time as its record says, and the run report says which proof was used. A full
//! re-hash stays available (`--verify-outputs`); records from before outputs' times were recorded are proven
//! by their hash once, then get the time.

use crate::util::{eraflow, snapshot};
use std::path::{Path, PathBuf};

fn export(out: &Path, inputs: &[PathBuf], flags: &[&str]) -> serde_json::Value {
    let r = eraflow()
        .args([
            "--threads",
            "1",
            "export",
            "--no-senders",
            "--json",
            "--out",
        ])
        .arg(out)
        .args(flags)
        .args(inputs)
        .output()
        .unwrap();
    assert!(
        r.status.success(),
        "{}{}",
        String::from_utf8_lossy(&r.stdout),
        String::from_utf8_lossy(&r.stderr)
    );
    serde_json::from_slice(&r.stdout).unwrap()
}

/// (input file name, skipped, proof of the input, proof of the outputs) per file of the export stage.
fn proofs(report: &serde_json::Value) -> Vec<(String, bool, String, String)> {
    report["stages"][0]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["file"]
                    .as_str()
                    .unwrap()
                    .rsplit('/')
                    .next()
                    .unwrap()
                    .to_string(),
                f["skipped"].as_bool().unwrap(),
                f["proof"]["input"].as_str().unwrap_or("-").to_string(),
                f["proof"]["outputs"].as_str().unwrap_or("-").to_string(),
            )
        })
        .collect()
}

fn name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

#[test]
fn a_rerun_proves_unchanged_inputs_and_outputs_from_their_metadata() {
    let work = tempfile::tempdir().unwrap();
    let net = eraflow::network::Network::by_name("synthnet").unwrap();
    let mut o = eraflow::synth::era1::SynthOptions::new(net);
    (o.files, o.blocks, o.txs_per_block) = (2, 64, 2);
    let inputs = eraflow::synth::era1::write(&work.path().join("in"), &o).unwrap();
    let out = work.path().join("out");
    let first = export(&out, &inputs, &[]);
    assert!(proofs(&first).iter().all(|p| !p.1), "{first}");
    let expected = snapshot(&out);

    // Nothing new: neither inputs nor outputs are read.
    let again = export(&out, &inputs, &[]);
    for (file, skipped, input, outputs) in proofs(&again) {
        assert!(skipped, "{file}");
        assert_eq!(
            (input.as_str(), outputs.as_str()),
            ("stat", "size+mtime"),
            "{file}"
        );
    }
    assert_eq!(snapshot(&out), expected);

    // An input rewritten in place (same bytes, its modification time put back) is hashed again: its change
    // time moved, which no one can put back.
    let mtime = std::fs::metadata(&inputs[0]).unwrap().modified().unwrap();
    let bytes = std::fs::read(&inputs[0]).unwrap();
    std::fs::write(&inputs[0], &bytes).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&inputs[0])
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    let p = proofs(&export(&out, &inputs, &[]));
    assert_eq!(p[0].2, "sha256", "{p:?}");
    assert_eq!(p[1].2, "stat", "{p:?}");
    assert!(p.iter().all(|x| x.1), "{p:?}");
    // ... and then is known again.
    let p = proofs(&export(&out, &inputs, &[]));
    assert!(p.iter().all(|x| x.2 == "stat"), "{p:?}");

    // An output changed in place with its size and time put back passes the metadata proof (the documented
    // limit), and not --verify-outputs, which hashes everything and redoes the dataset it belongs to.
    let record = out.join(format!("_eraflow/sources/{}/blocks.json", name(&inputs[1])));
    let rec: serde_json::Value = serde_json::from_slice(&std::fs::read(&record).unwrap()).unwrap();
    let output = out.join(rec["output"]["path"].as_str().unwrap());
    let good = std::fs::read(&output).unwrap();
    let when = std::fs::metadata(&output).unwrap().modified().unwrap();
    let mut bad = good.clone();
    let mid = bad.len() / 2;
    bad[mid] ^= 0xff;
    std::fs::write(&output, &bad).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&output)
        .unwrap()
        .set_modified(when)
        .unwrap();
    let p = proofs(&export(&out, &inputs, &[]));
    assert!(p.iter().all(|x| x.1 && x.3 == "size+mtime"), "{p:?}");
    let full = export(&out, &inputs, &["--verify-outputs"]);
    let p = proofs(&full);
    assert_eq!(
        p[0],
        (name(&inputs[0]), true, "sha256".into(), "sha256".into())
    );
    assert!(!p[1].1, "the changed output was not redone: {p:?}");
    assert_eq!(std::fs::read(&output).unwrap(), good);
    assert_eq!(snapshot(&out), expected);

    // A record from before outputs' times were recorded: proven by its hash once, then by its metadata.
    let sources = out.join("_eraflow/sources");
    for f in crate::util::files_in(&sources) {
        let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&f).unwrap()).unwrap();
        if let Some(o) = v["output"].as_object_mut() {
            o.remove("mtime_ns");
        }
        std::fs::write(&f, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    }
    let p = proofs(&export(&out, &inputs, &[]));
    assert!(p.iter().all(|x| x.1 && x.3 == "sha256"), "{p:?}");
    let p = proofs(&export(&out, &inputs, &[]));
    assert!(p.iter().all(|x| x.1 && x.3 == "size+mtime"), "{p:?}");
    assert_eq!(snapshot(&out), expected);
}

#[test]
fn a_run_s_verify_stage_takes_unchanged_inputs_from_their_stamp() {
    let work = tempfile::tempdir().unwrap();
    let net = eraflow::network::Network::by_name("synthnet").unwrap();
    let mut o = eraflow::synth::era1::SynthOptions::new(net);
    (o.files, o.blocks, o.txs_per_block) = (2, 32, 1);
    let inputs = eraflow::synth::era1::write(&work.path().join("in"), &o).unwrap();
    let out = work.path().join("out");
    let pipeline = work.path().join("p.toml");
    std::fs::write(
        &pipeline,
        format!(
            "name = \"daily\"\ninputs = [{:?}]\nout = {:?}\n\n[verify]\nsenders = false\n",
            work.path().join("in").display().to_string(),
            out.display().to_string()
        ),
    )
    .unwrap();
    let run = || {
        let r = eraflow()
            .args(["--threads", "1", "run", "--json"])
            .arg(&pipeline)
            .output()
            .unwrap();
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
        serde_json::from_slice::<serde_json::Value>(&r.stdout).unwrap()
    };
    run();
    // Each input's hash is kept under its identity beside the verification cache.
    let kept = crate::util::files_in(&out.join("_eraflow/hashes"));
    assert_eq!(kept.len(), inputs.len(), "{kept:?}");
    let r = run();
    let files = r["stages"][0]["files"].as_array().unwrap();
    assert!(files.iter().all(|f| f["skipped"] == true), "{r}");
}
