//! Where inputs and outputs may be: local paths, `file://` URLs and object-store URLs. Anything that is neither
//! a known scheme nor a local path is a usage error (exit 2) before any work, never a local folder with a colon
//! in its name; secrets in a URL never reach the message.

use std::process::Command;

fn eraflow() -> Command {
    Command::new(env!("CARGO_BIN_EXE_eraflow"))
}

#[test]
fn unknown_or_unsupported_out_is_a_usage_error_and_writes_nothing() {
    let src = tempfile::tempdir().unwrap();
    let mut o = eraflow::synth::era1::SynthOptions::new(
        eraflow::network::Network::by_name("synthnet").unwrap(),
    );
    o.blocks = 20;
    o.txs_per_block = 1;
    let input = eraflow::synth::era1::write(src.path(), &o)
        .unwrap()
        .remove(0);
    for out in [
        "s3:bucket/x",
        "ftp://user:hunter2@host/x",
        "gopher://h/x?sig=s3cr3t",
        "s3://",
    ] {
        let cwd = tempfile::tempdir().unwrap();
        let r = eraflow()
            .current_dir(cwd.path())
            .args(["export", "--no-senders", "--out", out])
            .arg(&input)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "{out}: {err}");
        assert!(err.contains("out: "), "{out}: {err}");
        assert!(
            !err.contains("hunter2") && !err.contains("s3cr3t"),
            "{out}: {err}"
        );
        assert_eq!(
            std::fs::read_dir(cwd.path()).unwrap().count(),
            0,
            "{out}: something was written locally"
        );
    }
    // A file:// URL is a local path, for inputs and outputs alike.
    let out = tempfile::tempdir().unwrap();
    let r = eraflow()
        .args(["export", "--no-senders", "--datasets", "blocks", "--out"])
        .arg(format!("file://{}", out.path().join("o").display()))
        .arg(format!("file://{}", input.display()))
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert!(out
        .path()
        .join("o/blocks/network=synthnet/synthnet__blocks__00000000_to_00000019.parquet")
        .exists());
}

#[test]
fn pipeline_locations_are_checked_before_any_work() {
    use eraflow::error::ExitStatus;
    use eraflow::pipeline::config::Layers;
    use eraflow::pipeline::{Job, JobError};
    let load = |sets: &[String]| {
        let mut flags = toml::Table::new();
        flags.insert("name".into(), "t".into());
        flags.insert("export".into(), toml::Value::Table(Default::default()));
        Job::load(Layers {
            sets,
            flags,
            ..Default::default()
        })
    };
    for (set, key) in [
        ("out=ftp://x/y", "out"),
        ("out=s3:x", "out"),
        ("inputs=[\"nope://a/b\"]", "inputs"),
    ] {
        let e = load(&["out=/tmp/x".into(), set.into()]).err().unwrap();
        assert_eq!(e.exit_status(), ExitStatus::Usage, "{set}");
        assert!(
            matches!(&e, JobError::Location { key: k, .. } if *k == key),
            "{set}: {e:?}"
        );
    }
    let job = load(&["out=file:///tmp/x".into()]).unwrap();
    assert_eq!(job.out.as_deref(), Some(std::path::Path::new("/tmp/x")));
    assert!(job.remote_out.is_none());
    // An object-store out is staged locally and published there; http(s) is for inputs only.
    let job = load(&["out=s3://user:hunter2@bucket/p?sig=x".into()]).unwrap();
    assert_eq!(
        job.remote_out.as_ref().unwrap().to_string(),
        "s3://bucket/p?<redacted>"
    );
    assert!(job.out.unwrap().starts_with(std::env::temp_dir()));
    let e = load(&["out=https://h/p".into()]).err().unwrap();
    assert_eq!(e.exit_status(), ExitStatus::Usage);
    // Remote inputs are kept as given, to be listed and fetched when the job runs.
    let job = load(&["out=/tmp/x".into(), "inputs=[\"https://h/era1/\"]".into()]).unwrap();
    assert_eq!(job.inputs, ["https://h/era1/"]);
}
