//! Exit codes of the binary, one case per line of the operator's audit (issue 14, items 6, 8 and 9): 0 done,
//! 1 a data check failed, 2 usage or I/O. Each case runs `eraflow` and asserts the code and that the message
//! names what is wrong.

use crate::util::{eraflow, run, synth_era1};
use std::path::Path;

fn code(args: &[&str]) -> (Option<i32>, String) {
    let (c, out, err) = run(eraflow().args(args));
    (c, format!("{out}{err}"))
}

fn expect(args: &[&str], want: i32, needle: &str) {
    let (c, msg) = code(args);
    assert_eq!(c, Some(want), "eraflow {args:?}: {msg}");
    assert!(
        msg.contains(needle),
        "eraflow {args:?}: expected '{needle}' in: {msg}"
    );
    assert!(!msg.contains("panicked"), "eraflow {args:?}: {msg}");
}

fn args(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn bad_export_options_are_usage_errors_wherever_they_are_set() {
    let d = tempfile::tempdir().unwrap();
    let input = synth_era1(&d.path().join("in"), 20, 1);
    let out = d.path().join("out");
    let export = |extra: &[&str]| {
        let mut a = vec!["export", "--out", s(&out)];
        a.extend_from_slice(extra);
        a.push(s(&input));
        a.into_iter().map(String::from).collect::<Vec<_>>()
    };
    expect(&args(&export(&["--compression", "bogus"])), 2, "bogus");
    expect(
        &args(&export(&["--compression-level", "99"])),
        2,
        "compression_level 99",
    );
    expect(
        &args(&export(&["--row-group-size", "0"])),
        2,
        "row_group_size",
    );
    // The same through a pipeline file, and through --set.
    let pipeline = d.path().join("p.toml");
    std::fs::write(
        &pipeline,
        format!(
            "name = \"p\"\ninputs = [\"{}\"]\nout = \"{}\"\n[export]\nrow_group_size = 0\n",
            s(&input),
            s(&out)
        ),
    )
    .unwrap();
    expect(&["run", s(&pipeline)], 2, "row_group_size");
    std::fs::write(
        &pipeline,
        format!(
            "name = \"p\"\ninputs = [\"{}\"]\nout = \"{}\"\n[export]\n",
            s(&input),
            s(&out)
        ),
    )
    .unwrap();
    expect(
        &["run", s(&pipeline), "--set", "export.row_group_size=0"],
        2,
        "row_group_size",
    );
    expect(
        &["run", s(&pipeline), "--set", "export.compression=bogus"],
        2,
        "bogus",
    );
    assert!(!out.exists(), "a refused job wrote {out:?}");
}

#[test]
fn threads_beyond_the_cap_and_inspect_of_a_directory_are_usage_errors() {
    let d = tempfile::tempdir().unwrap();
    let input = synth_era1(&d.path().join("in"), 5, 1);
    expect(
        &["--threads", "100000", "verify", s(&input)],
        2,
        "more than 1024",
    );
    expect(&["inspect", s(&d.path().join("in"))], 2, "is a directory");
    expect(
        &["verify", s(&d.path().join("nothing-here"))],
        2,
        "no such file",
    );
}

#[test]
fn output_in_the_way_is_an_io_error_and_the_run_report_is_still_written() {
    let d = tempfile::tempdir().unwrap();
    let input = synth_era1(&d.path().join("in"), 20, 2);
    // A directory where a Parquet output must go.
    let out = d.path().join("out1");
    let rel = eraflow::sink::names::output_path("blocks", "synthnet", 0, 19);
    std::fs::create_dir_all(out.join(&rel)).unwrap();
    expect(&["export", "--out", s(&out), s(&input)], 2, &rel);
    assert_eq!(
        std::fs::read_dir(out.join("_eraflow/runs"))
            .unwrap()
            .count(),
        1,
        "no run report"
    );
    // A directory where manifest.json must go.
    let out = d.path().join("out2");
    std::fs::create_dir_all(out.join("_eraflow/manifest.json")).unwrap();
    expect(&["export", "--out", s(&out), s(&input)], 2, "manifest.json");
    assert_eq!(
        std::fs::read_dir(out.join("_eraflow/runs"))
            .unwrap()
            .count(),
        1
    );
}

/// "Disk full": every write past a few KB fails (RLIMIT_FSIZE, with SIGXFSZ ignored so the write returns
/// EFBIG instead of killing the process), as writes do on a full disk. The Parquet outputs fail; the run
/// report, which is small, is still written.
#[test]
fn a_write_that_fails_is_an_io_error() {
    let d = tempfile::tempdir().unwrap();
    let input = synth_era1(&d.path().join("in"), 400, 8);
    let out = d.path().join("out");
    let (c, stdout, stderr) = run(std::process::Command::new("sh").arg("-c").arg(format!(
        "trap '' XFSZ; ulimit -f 64; exec '{}' export --out '{}' '{}'",
        env!("CARGO_BIN_EXE_eraflow"),
        s(&out),
        s(&input)
    )));
    let msg = format!("{stdout}{stderr}");
    assert_eq!(c, Some(2), "{msg}");
    assert!(msg.contains("File too large"), "{msg}");
    assert!(!msg.contains("panicked"), "{msg}");
    assert_eq!(
        std::fs::read_dir(out.join("_eraflow/runs"))
            .unwrap()
            .count(),
        1
    );
}

/// An input the user cannot read is an I/O error (2), not a failed check (1). Root reads anything, so as
/// root the binary runs as `nobody` through `setpriv`; without it the test is skipped, loudly.
#[test]
fn an_unreadable_input_is_an_io_error() {
    use std::os::unix::fs::PermissionsExt;
    let d = tempfile::tempdir().unwrap();
    let input = synth_era1(&d.path().join("in"), 5, 1);
    std::fs::set_permissions(&input, std::fs::Permissions::from_mode(0o000)).unwrap();
    for dir in [d.path(), &d.path().join("in")] {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let root = std::fs::metadata("/proc/self")
        .map(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0)
        .unwrap_or(false);
    let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"]
        .into_iter()
        .find(|p| Path::new(p).exists());
    if root && setpriv.is_none() {
        crate::skip::skip(
            "unreadable inputs",
            "running as root and no setpriv to drop to nobody",
        );
        return;
    }
    let cmd = || match (root, setpriv) {
        (true, Some(setpriv)) => {
            let mut c = std::process::Command::new(setpriv);
            c.args([
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                env!("CARGO_BIN_EXE_eraflow"),
            ]);
            c
        }
        _ => eraflow(),
    };
    // verify, and prune (whose manifest folder nobody may write: in a fresh world-writable folder).
    let out = d.path().join("manifest");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o777)).unwrap();
    for args in [
        vec!["verify", s(&input)],
        vec!["prune", "--out", s(&out), s(&input)],
    ] {
        let (c, stdout, err) = run(cmd().args(&args));
        let msg = format!("{stdout}{err}");
        assert_eq!(c, Some(2), "{args:?}: {msg}");
        assert!(msg.contains("Permission denied"), "{args:?}: {msg}");
    }
}

#[test]
fn network_presets_refuse_unknown_keys_and_bad_hex() {
    let d = tempfile::tempdir().unwrap();
    let input = synth_era1(&d.path().join("in"), 5, 1);
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/networks/synthnet.toml"),
    )
    .unwrap();
    let preset = d.path().join("private.toml");
    // A misspelt key must not leave the default (secp256k1) silently in force.
    std::fs::write(
        &preset,
        text.replace(
            "signature_algorithm = \"secp256k1\"",
            "signature_algoritm = \"secp256r1\"",
        ),
    )
    .unwrap();
    let (c, msg) = code(&["verify", "--network", s(&preset), s(&input)]);
    assert_eq!(c, Some(2), "{msg}");
    assert!(
        msg.contains("signature_algoritm") && msg.contains("private.toml"),
        "{msg}"
    );
    // A genesis hash that is not hex: refused when the preset is loaded, not a failed check later.
    std::fs::write(
        &preset,
        text.replace(
            "genesis_hash = \"0x0000000000000000000000000000000000000000000000000000000000000000\"",
            "genesis_hash = \"0xnothex\"",
        ),
    )
    .unwrap();
    let (c, msg) = code(&["verify", "--network", s(&preset), s(&input)]);
    assert_eq!(c, Some(2), "{msg}");
    assert!(
        msg.contains("genesis_hash") && msg.contains("0xnothex"),
        "{msg}"
    );
    std::fs::write(&preset, text.replace("0x5e7a11ce", "0x5e7a11cg")).unwrap();
    let (c, msg) = code(&["verify", "--network", s(&preset), s(&input)]);
    assert_eq!(c, Some(2), "{msg}");
    assert!(msg.contains("genesis_validators_root"), "{msg}");
}

#[test]
fn a_file_named_for_an_unknown_network_fails_unless_the_network_is_given() {
    let d = tempfile::tempdir().unwrap();
    let input = synth_era1(&d.path().join("in"), 20, 2);
    let name = input.file_name().unwrap().to_str().unwrap();
    let renamed = input.with_file_name(name.replace("synthnet-", "foonet-"));
    std::fs::rename(&input, &renamed).unwrap();
    let (c, msg) = code(&["verify", s(&renamed)]);
    assert_eq!(c, Some(1), "{msg}");
    assert!(
        msg.contains("foonet") && msg.contains("--network") && msg.contains("FAIL"),
        "{msg}"
    );
    let (c, msg) = code(&["verify", "--network", "synthnet", s(&renamed)]);
    assert_eq!(c, Some(0), "{msg}");
    // A name that is not canonical at all keeps today's behaviour: the name itself is the error.
    let odd = renamed.with_file_name("odd.era1");
    std::fs::rename(&renamed, &odd).unwrap();
    let (c, msg) = code(&["verify", s(&odd)]);
    assert_eq!(c, Some(1), "{msg}");
    assert!(msg.contains("file name"), "{msg}");
}

/// An era1 index whose block numbers would pass 2^64 - 1 is refused with the offset and the values, instead
/// of printing a wrapped range such as `blocks 18446744073709551605..=52`.
#[test]
fn an_index_starting_near_2_pow_64_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let input = synth_era1(&d.path().join("in"), 64, 1);
    let mut bytes = std::fs::read(&input).unwrap();
    let index_at = bytes.len() - (8 + 16 + 8 * 64);
    let start = u64::MAX - 10;
    bytes[index_at + 8..index_at + 16].copy_from_slice(&start.to_le_bytes());
    std::fs::write(&input, &bytes).unwrap();
    let (c, msg) = code(&["verify", s(&input)]);
    assert_eq!(c, Some(1), "{msg}");
    assert!(
        msg.contains(&format!("at byte offset {}", index_at + 8))
            && msg.contains(&start.to_string())
            && msg.contains("64 blocks"),
        "{msg}"
    );
    assert!(!msg.contains("..=52"), "{msg}");
    let (c, msg) = code(&["inspect", s(&input)]);
    assert_eq!(c, Some(1), "{msg}");
    assert!(!msg.contains("panicked"), "{msg}");
}

#[test]
fn prune_check_of_a_missing_garbled_or_truncated_manifest_fails_the_check() {
    let d = tempfile::tempdir().unwrap();
    let input = synth_era1(&d.path().join("in"), 20, 1);
    let out = d.path().join("prune");
    expect(&["prune", "--out", s(&out), s(&input)], 0, "");
    expect(&["prune", "check", s(&out)], 0, "");
    let manifest = out.join("manifest.json");
    let good = std::fs::read(&manifest).unwrap();
    // Truncated: a data fault, exit 1, naming the manifest.
    std::fs::write(&manifest, &good[..good.len() / 2]).unwrap();
    expect(&["prune", "check", s(&out)], 1, "manifest.json");
    std::fs::write(&manifest, b"garbage").unwrap();
    expect(&["prune", "check", s(&out)], 1, "not a prune manifest");
    std::fs::remove_file(&manifest).unwrap();
    expect(&["prune", "check", s(&out)], 1, "found no manifest.json");
    // A directory that is not there is a usage error.
    expect(
        &["prune", "check", s(&d.path().join("nowhere"))],
        2,
        "nowhere",
    );
}

#[test]
fn table_upkeep_of_a_plain_parquet_output_says_it_is_not_a_table_output() {
    let d = tempfile::tempdir().unwrap();
    let input = synth_era1(&d.path().join("in"), 20, 1);
    let out = d.path().join("out");
    expect(
        &[
            "export",
            "--out",
            s(&out),
            "--datasets",
            "blocks",
            s(&input),
        ],
        0,
        "",
    );
    // Nothing to check: a usage error naming why, not "0 tables, 0 failed" and exit 0.
    for cmd in [
        &["table", "check", s(&out)][..],
        &["table", "check", "--json", s(&out)],
        &["table", "optimize", s(&out)],
        &["table", "vacuum", "--dry-run", s(&out)],
    ] {
        let (c, stdout, stderr) = run(eraflow().args(cmd));
        assert_eq!(c, Some(2), "eraflow {cmd:?}: {stdout}{stderr}");
        assert!(stdout.is_empty(), "eraflow {cmd:?} printed: {stdout}");
        assert!(
            stderr.contains("not a table output") && stderr.contains(s(&out)),
            "eraflow {cmd:?}: {stderr}"
        );
        assert!(!stderr.contains("0 tables"), "eraflow {cmd:?}: {stderr}");
    }
    // Nor is a folder that is no output at all.
    expect(&["table", "check", s(&input)], 2, "not an eraflow output");
}

#[test]
fn commands_that_read_local_files_name_a_remote_input() {
    // verify, prune and plan take remote inputs (tests/it/remote_commands.rs); convert does not.
    let cmd = [
        "convert",
        "--to",
        "ere",
        "--out",
        "/nonexistent/c",
        "s3://bucket/era1/",
    ];
    expect(&cmd, 2, "reads local files; remote inputs stream through");
}

#[test]
fn a_failed_file_is_logged_with_its_rendered_error_not_its_debug_form() {
    let d = tempfile::tempdir().unwrap();
    let input = synth_era1(&d.path().join("in"), 16, 1);
    let mut bytes = std::fs::read(&input).unwrap();
    // A byte in the middle of the file: whatever record it lands in, the file fails verification.
    let at = bytes.len() / 2;
    bytes[at] ^= 0xff;
    std::fs::write(&input, bytes).unwrap();
    let out = d.path().join("out");
    // Not a terminal: the failure is a structured log line on stderr, then the summary on stdout.
    let (c, stdout, stderr) = run(eraflow().args(["export", "--out", s(&out), s(&input)]));
    assert_eq!(c, Some(1), "{stdout}{stderr}");
    let line = stderr
        .lines()
        .find(|l| l.contains("file failed"))
        .unwrap_or_else(|| panic!("no 'file failed' log line in: {stderr}"));
    let name = input.file_name().unwrap().to_str().unwrap();
    assert!(line.contains(name), "{line}");
    assert!(line.contains("at byte offset"), "{line}");
    for debug in ["FormatError {", "Verify(", "kind:"] {
        assert!(!line.contains(debug), "Debug form in the log line: {line}");
    }
}
