//! Inputs from an HTTP mirror (a loopback `python3 -m http.server` serving era1 and era files beside a
//! `checksums.txt`): fetched into the cache, checked, exported to the same bytes as the local files, the cache
//! emptied after; a file whose bytes do not match its published sha256 fails alone (exit 1, naming the URL,
//! expected and actual sha256) and gets no outputs.

use crate::s3_output::free_port;
use crate::util::snapshot;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// `tests/python/range_server.py` (http.server with Range support) on 127.0.0.1 serving `dir`, killed when
/// dropped.
pub struct Mirror {
    child: Child,
    port: u16,
}

impl Drop for Mirror {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Mirror {
    pub fn start(dir: &Path, cut: Option<&str>) -> Option<Mirror> {
        Mirror::start_with(dir, cut, &[])
    }

    /// With `hostile` ("name=mode,..."): the named files misbehave as `range_server.py` describes.
    pub fn start_hostile(dir: &Path, cut: Option<&str>, hostile: &str) -> Option<Mirror> {
        Mirror::start_with(dir, cut, &[("HOSTILE", hostile)])
    }

    /// With environment variables for `range_server.py` (HOSTILE, NORANGE, AUTH, TOKEN, HEADER, RATE).
    pub fn start_with(dir: &Path, cut: Option<&str>, env: &[(&str, &str)]) -> Option<Mirror> {
        Mirror::spawn(|port| {
            let mut c = Command::new("python3");
            c.envs(env.iter().copied())
                .arg(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/tests/python/range_server.py"
                ))
                .arg(port.to_string())
                .arg(dir)
                .args(cut);
            c
        })
    }

    /// `python3 -m http.server` itself (which ignores Range) serving `dir`.
    pub fn plain_http_server(dir: &Path) -> Option<Mirror> {
        Mirror::spawn(|port| {
            let mut c = Command::new("python3");
            c.args(["-m", "http.server", "--bind", "127.0.0.1", "-d"])
                .arg(dir)
                .arg(port.to_string());
            c
        })
    }

    /// Starts the server `command` makes for a free port and waits until it listens.
    fn spawn(command: impl FnOnce(u16) -> Command) -> Option<Mirror> {
        let port = free_port();
        let child = command(port)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        let Ok(child) = child else {
            if std::env::var_os("ERAFLOW_REQUIRE_S3").is_some() {
                panic!("python3 is required for the HTTP mirror tests (ERAFLOW_REQUIRE_S3 is set)");
            }
            crate::skip::skip("HTTP mirror checks", "python3 not found");
            return None;
        };
        let m = Mirror { child, port };
        let t0 = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                t0.elapsed() < Duration::from_secs(30),
                "http.server did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(m)
    }

    /// Its URL.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/", self.port)
    }
}

/// Synthetic era1 and era files, plus links to real ones, in `dir`, with a `checksums.txt`; `corrupt` names
/// a file whose listed sha256 is wrong.
pub fn mirror_dir(dir: &Path, corrupt: Option<usize>) -> Vec<PathBuf> {
    let net = eraflow::network::Network::by_name("synthnet").unwrap();
    let mut o = eraflow::synth::era1::SynthOptions::new(net.clone());
    o.blocks = 200;
    o.txs_per_block = 2;
    o.files = 2;
    let mut files = eraflow::synth::era1::write(dir, &o).unwrap();
    let mut e = eraflow::synth::era::EraSynthOptions::new(net.clone());
    e.era =
        eraflow::synth::era::EraSynthOptions::era_of_fork(&net, eraflow::consensus::Fork::Deneb)
            .unwrap();
    e.blocks = 5;
    e.validators = 64;
    files.extend(eraflow::synth::era::write(dir, &e).unwrap());
    for rel in [
        "era1/sepolia-00000-643a00f7.era1",
        "era/mainnet-00000-4b363db9.era",
    ] {
        if let Some(real) = crate::testdata::file(rel) {
            let link = dir.join(real.file_name().unwrap());
            std::os::unix::fs::symlink(&real, &link).unwrap();
            files.push(link);
        }
    }
    files.sort();
    let mut sums = String::new();
    for (i, f) in files.iter().enumerate() {
        let mut sha = hex::encode(eraflow::crypto::sha256::sha256(&std::fs::read(f).unwrap()));
        if corrupt == Some(i) {
            sha = format!(
                "{}{}",
                if sha.starts_with('0') { "1" } else { "0" },
                &sha[1..]
            );
        }
        sums.push_str(&format!(
            "{sha}  {}\n",
            f.file_name().unwrap().to_string_lossy()
        ));
    }
    std::fs::write(dir.join("checksums.txt"), sums).unwrap();
    files
}

pub fn export(out: &Path, cache: &Path, inputs: &[String]) -> std::process::Output {
    export_with(out, cache, inputs, &[])
}

pub fn export_with(
    out: &Path,
    cache: &Path,
    inputs: &[String],
    flags: &[String],
) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_eraflow"))
        .args(["--threads", "1", "export", "--no-senders", "--out"])
        .arg(out)
        .arg("--cache-dir")
        .arg(cache)
        .args(flags)
        .args(inputs)
        .output()
        .unwrap()
}

pub fn text(r: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&r.stdout),
        String::from_utf8_lossy(&r.stderr)
    )
}

/// What a cache folder holds besides its lock files (`.locks/`, which stay): archives and temporaries.
pub fn cached(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n != eraflow::store::cache::LOCKS)
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// The archive files the mirror was asked for since the last call (HEAD or GET), and the log emptied.
pub fn requested(mirror_dir: &Path) -> Vec<String> {
    let log = mirror_dir.join(".requests");
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let _ = std::fs::remove_file(&log);
    let mut names: Vec<String> = text
        .lines()
        .filter_map(|l| l.split_once(' ').map(|(_, n)| n.to_string()))
        .filter(|n| n.ends_with(".era1") || n.ends_with(".era"))
        .collect();
    names.sort();
    names.dedup();
    names
}

/// The sources of the manifest under `out`.
pub fn manifest_sources(out: &Path) -> Vec<String> {
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("_eraflow/manifest.json")).unwrap())
            .unwrap();
    m["sources"].as_object().unwrap().keys().cloned().collect()
}

/// The export stage of the (only) run report under `out`.
pub fn export_files(out: &Path) -> Vec<serde_json::Value> {
    let runs: Vec<_> = std::fs::read_dir(out.join("_eraflow/runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&runs[0]).unwrap()).unwrap();
    r["stages"][0]["files"].as_array().unwrap().clone()
}

fn without_runs(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    snapshot(dir)
}

#[test]
fn a_mirror_exports_like_local_files() {
    let src = tempfile::tempdir().unwrap();
    let files = mirror_dir(src.path(), None);
    // The first download of the real era1 file is cut off halfway: it is retried and resumed.
    let Some(mirror) = Mirror::start(src.path(), Some("sepolia-00000-643a00f7.era1")) else {
        return;
    };
    let (local, remote, cache) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    let paths: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    let r = export(local.path(), cache.path(), &paths);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let r = export(remote.path(), cache.path(), &[mirror.url()]);
    assert!(
        r.status.success(),
        "{}{}",
        String::from_utf8_lossy(&r.stdout),
        String::from_utf8_lossy(&r.stderr)
    );
    assert_eq!(without_runs(local.path()), without_runs(remote.path()));
    if files
        .iter()
        .any(|f| f.ends_with("sepolia-00000-643a00f7.era1"))
    {
        assert!(
            src.path().join(".cut").exists(),
            "the download was never cut"
        );
    }
    assert_eq!(
        cached(cache.path()).len(),
        0,
        "fetched files are removed after the run"
    );
    // One file of the mirror by its URL.
    let one = tempfile::tempdir().unwrap();
    let name = files[0].file_name().unwrap().to_string_lossy().into_owned();
    let r = export(
        one.path(),
        cache.path(),
        &[format!("{}{name}", mirror.url())],
    );
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
}

#[test]
fn a_file_that_does_not_match_its_checksum_fails_alone() {
    let src = tempfile::tempdir().unwrap();
    let files = mirror_dir(src.path(), Some(1));
    let Some(mirror) = Mirror::start(src.path(), None) else {
        return;
    };
    let (out, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let r = export(out.path(), cache.path(), &[mirror.url()]);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&r.stdout),
        String::from_utf8_lossy(&r.stderr)
    );
    assert_eq!(r.status.code(), Some(1), "{text}");
    let bad = files[1].file_name().unwrap().to_string_lossy().into_owned();
    let actual = hex::encode(eraflow::crypto::sha256::sha256(
        &std::fs::read(&files[1]).unwrap(),
    ));
    assert!(text.contains(&format!("{}{bad}", mirror.url())), "{text}");
    assert!(
        text.contains(&format!("got {actual}")) && text.contains("expected "),
        "{text}"
    );
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("_eraflow/manifest.json")).unwrap())
            .unwrap();
    let sources = m["sources"].as_object().unwrap();
    assert_eq!(sources.len(), files.len() - 1, "{m}");
    assert!(!sources.contains_key(&bad));
    assert_eq!(cached(cache.path()).len(), 0);
}

#[test]
fn a_mirror_exports_into_s3_with_the_bytes_of_a_local_run() {
    let src = tempfile::tempdir().unwrap();
    let files = mirror_dir(src.path(), None);
    let Some(mirror) = Mirror::start(src.path(), None) else {
        return;
    };
    let Some(moto) = crate::s3_output::Moto::start() else {
        return;
    };
    moto.bucket("mirror-out");
    let (local, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let paths: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    assert!(export(local.path(), cache.path(), &paths).status.success());
    let mut c = Command::new(env!("CARGO_BIN_EXE_eraflow"));
    moto.env(&mut c);
    let r = c
        .args([
            "--threads",
            "1",
            "export",
            "--no-senders",
            "--out",
            "s3://mirror-out/x",
        ])
        .arg("--cache-dir")
        .arg(cache.path())
        .arg(mirror.url())
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let expected: Vec<_> = snapshot(local.path())
        .into_iter()
        .filter(|(p, _)| !p.starts_with("_eraflow/locks"))
        .collect();
    let got: Vec<_> = moto
        .objects("mirror-out", "x")
        .into_iter()
        .filter(|(p, _)| !p.starts_with("_eraflow/runs"))
        .collect();
    assert_eq!(
        got.iter().map(|g| &g.0).collect::<Vec<_>>(),
        expected.iter().map(|e| &e.0).collect::<Vec<_>>()
    );
    assert!(got == expected, "objects differ from the local run's files");
}

#[test]
fn a_hostile_listing_is_refused() {
    let src = tempfile::tempdir().unwrap();
    let files = mirror_dir(src.path(), None);
    let sums = std::fs::read_to_string(src.path().join("checksums.txt")).unwrap();
    let Some(mirror) = Mirror::start(src.path(), None) else {
        return;
    };
    let cache = tempfile::tempdir().unwrap();
    let name = files[0].file_name().unwrap().to_string_lossy().into_owned();
    let sha = &sums[..64];
    for evil in [
        format!("../{name}"),
        format!("sub/{name}"),
        format!("sub\\{name}"),
        format!("..{name}"),
    ] {
        std::fs::write(src.path().join("checksums.txt"), format!("{sha}  {evil}\n")).unwrap();
        let out = tempfile::tempdir().unwrap();
        let r = export(out.path(), cache.path(), &[mirror.url()]);
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "{evil}: {err}");
        assert!(err.contains("refusing listed name"), "{evil}: {err}");
        assert_eq!(cached(cache.path()).len(), 0, "{evil}");
    }
    // Credentials in a URL never reach a message or a report.
    let url = mirror.url().replace("http://", "http://user:hunter2@")
        + "nothing-here/?X-Amz-Signature=s3cr3t";
    let out = tempfile::tempdir().unwrap();
    let r = export(out.path(), cache.path(), &[url]);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&r.stdout),
        String::from_utf8_lossy(&r.stderr)
    );
    assert_ne!(r.status.code(), Some(0), "{text}");
    assert!(
        !text.contains("hunter2") && !text.contains("s3cr3t"),
        "{text}"
    );
}

#[test]
fn files_stream_through_a_bounded_cache_and_complete_sources_are_not_fetched() {
    let src = tempfile::tempdir().unwrap();
    let files = mirror_dir(src.path(), None);
    let Some(mirror) = Mirror::start(src.path(), None) else {
        return;
    };
    let names: Vec<String> = files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let sizes: Vec<u64> = files
        .iter()
        .map(|f| std::fs::metadata(f).unwrap().len())
        .collect();
    let biggest = *sizes.iter().max().unwrap();
    assert!(sizes.iter().sum::<u64>() > biggest);
    let (local, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let paths: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    assert!(export(local.path(), cache.path(), &paths).status.success());

    // A cache that holds the biggest file but not all of them: each file leaves it once exported, so the
    // prefetcher always finds room and every file is done.
    let limit = vec!["--cache-max-bytes".to_string(), biggest.to_string()];
    let out = tempfile::tempdir().unwrap();
    requested(src.path());
    let r = export_with(out.path(), cache.path(), &[mirror.url()], &limit);
    assert!(r.status.success(), "{}", text(&r));
    assert_eq!(without_runs(local.path()), without_runs(out.path()));
    assert_eq!(requested(src.path()), names);
    assert_eq!(cached(cache.path()).len(), 0);

    // A rerun fetches nothing: every source is proven complete by its records, and reported as skipped.
    std::fs::remove_dir_all(out.path().join("_eraflow/runs")).unwrap();
    let r = export_with(out.path(), cache.path(), &[mirror.url()], &limit);
    assert!(r.status.success(), "{}", text(&r));
    assert_eq!(requested(src.path()), Vec::<String>::new());
    let done = export_files(out.path());
    assert_eq!(done.len(), files.len());
    assert!(done.iter().all(|f| f["skipped"] == true), "{done:?}");
    assert!(done
        .iter()
        .all(|f| f["file"].as_str().unwrap().starts_with(&mirror.url())));
    // ... unless --overwrite.
    let mut flags = limit.clone();
    flags.push("--overwrite".into());
    let r = export_with(out.path(), cache.path(), &[mirror.url()], &flags);
    assert!(r.status.success(), "{}", text(&r));
    assert_eq!(requested(src.path()), names);
    assert_eq!(without_runs(local.path()), without_runs(out.path()));

    // A file bigger than the whole cache fails alone, naming its URL, its size and the limit.
    let big = names[sizes.iter().position(|&s| s == biggest).unwrap()].clone();
    let small = vec!["--cache-max-bytes".to_string(), (biggest - 1).to_string()];
    let out = tempfile::tempdir().unwrap();
    let r = export_with(out.path(), cache.path(), &[mirror.url()], &small);
    let t = text(&r);
    assert_eq!(r.status.code(), Some(1), "{t}");
    assert!(
        t.contains(&format!(
            "{}{big}: {biggest} bytes is more than the {} allowed",
            mirror.url(),
            biggest - 1
        )),
        "{t}"
    );
    let mut rest = names.clone();
    rest.retain(|n| *n != big);
    assert_eq!(manifest_sources(out.path()), rest);
    assert_eq!(cached(cache.path()).len(), 0);

    // A shard takes its files by name, from the mirror as from a local folder; local and remote inputs mix.
    let out = tempfile::tempdir().unwrap();
    requested(src.path());
    let shard: eraflow::pipeline::shard::Shard = "1/2".parse().unwrap();
    let mut flags = limit.clone();
    flags.extend(["--shard".to_string(), "1/2".to_string()]);
    let r = export_with(
        out.path(),
        cache.path(),
        &[mirror.url(), paths[0].clone()],
        &flags,
    );
    assert!(r.status.success(), "{}", text(&r));
    let want: Vec<String> = names
        .iter()
        .filter(|n| shard.contains(Path::new(n)))
        .cloned()
        .collect();
    assert_eq!(manifest_sources(out.path()), want);
    // The local copy of names[0] went first (when in the shard): the mirror's is then complete, not fetched.
    let fetched: Vec<String> = want.iter().filter(|n| **n != names[0]).cloned().collect();
    assert_eq!(requested(src.path()), fetched);
}

#[test]
fn a_run_verifies_and_exports_each_fetched_file_once() {
    let src = tempfile::tempdir().unwrap();
    let files = mirror_dir(src.path(), None);
    let Some(mirror) = Mirror::start(src.path(), None) else {
        return;
    };
    let (work, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let out = work.path().join("out");
    let pipeline = work.path().join("p.toml");
    std::fs::write(
        &pipeline,
        format!(
            "name = \"mirror\"\ninputs = [\"{}\"]\nout = \"{}\"\ncache_dir = \"{}\"\n\n[verify]\nsenders = false\n\n[export]\nsenders = false\n",
            mirror.url(),
            out.display(),
            cache.path().display()
        ),
    )
    .unwrap();
    requested(src.path());
    let r = Command::new(env!("CARGO_BIN_EXE_eraflow"))
        .args(["--threads", "1", "run"])
        .arg(&pipeline)
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", text(&r));
    // Each file was fetched once for both stages.
    let log = std::fs::read_to_string(src.path().join(".requests")).unwrap();
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy();
        let gets = log.lines().filter(|l| *l == format!("GET {name}")).count() as u64;
        let chunks = std::fs::metadata(f)
            .unwrap()
            .len()
            .div_ceil(eraflow::store::fetch::CHUNK_BYTES);
        assert_eq!(gets, chunks, "{name}: {log}");
    }
    let runs: Vec<_> = std::fs::read_dir(out.join("_eraflow/runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&runs[0]).unwrap()).unwrap();
    let stages = report["stages"].as_array().unwrap();
    assert_eq!(stages.len(), 2, "{report}");
    for s in stages {
        let done = s["files"].as_array().unwrap();
        assert_eq!(done.len(), files.len(), "{s}");
        assert!(done
            .iter()
            .all(|f| f["ok"] == true && f["file"].as_str().unwrap().starts_with(&mirror.url())));
    }
    assert_eq!(manifest_sources(&out).len(), files.len());
    assert_eq!(cached(cache.path()).len(), 0);
}

#[test]
fn a_hostile_mirror_fails_each_bad_file_alone() {
    let work = tempfile::tempdir().unwrap();
    let src = work.path().join("mirror");
    let net = eraflow::network::Network::by_name("synthnet").unwrap();
    let mut o = eraflow::synth::era1::SynthOptions::new(net);
    o.blocks = 40;
    o.txs_per_block = 1;
    o.files = 7;
    let files = eraflow::synth::era1::write(&src, &o).unwrap();
    let mut sums = String::new();
    for f in &files {
        let sha = hex::encode(eraflow::crypto::sha256::sha256(&std::fs::read(f).unwrap()));
        sums.push_str(&format!(
            "{sha}  {}\n",
            f.file_name().unwrap().to_string_lossy()
        ));
    }
    std::fs::write(src.join("checksums.txt"), sums).unwrap();
    let names: Vec<String> = files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let modes = [
        "long",
        "endless",
        "endless200",
        "short",
        "head-lies",
        "redirect",
    ];
    let hostile: Vec<String> = modes
        .iter()
        .zip(&names)
        .map(|(m, n)| format!("{n}={m}"))
        .collect();
    let Some(mirror) = Mirror::start_hostile(&src, None, &hostile.join(",")) else {
        return;
    };
    let (out, cache) = (work.path().join("out"), work.path().join("cache"));
    let r = export(&out, &cache, &[mirror.url()]);
    let t = text(&r);
    assert_eq!(r.status.code(), Some(1), "{t}");
    let size = |i: usize| std::fs::metadata(&files[i]).unwrap().len();
    let url = |i: usize| format!("{}{}", mirror.url(), names[i]);
    // Each failure names the file's URL and what was expected against what came.
    for (i, want) in [
        (
            0,
            format!(
                "bytes 0..{}: the server sent more than the {} bytes asked for; cut off",
                size(0),
                size(0)
            ),
        ),
        (
            1,
            format!(
                "bytes 0..{}: the server sent more than the {} bytes asked for; cut off",
                size(1),
                size(1)
            ),
        ),
        // A whole answer to a range is read as a plain GET, within the declared size: this one declares 2^50.
        (
            2,
            format!(
                "declared size {} bytes, but a whole response says {}",
                size(2),
                1u64 << 50
            ),
        ),
        (3, format!("..{}: expected ", size(3))),
        (
            4,
            format!(
                "declared size {} bytes, but a ranged response says {}",
                size(4) / 2,
                size(4)
            ),
        ),
        (
            5,
            format!(
                "redirect to another host refused: http://127.0.0.2:{}/{}",
                mirror.port, names[5]
            ),
        ),
    ] {
        assert!(
            t.lines().any(|l| l.contains(&format!("{}: ", url(i)))
                && l.to_lowercase().contains(&want.to_lowercase())),
            "{}: want '{want}' in: {t}",
            modes[i]
        );
    }
    assert!(!src.join(".followed").exists(), "a redirect was followed");
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("_eraflow/manifest.json")).unwrap())
            .unwrap();
    let sources: Vec<&String> = m["sources"].as_object().unwrap().keys().collect();
    assert_eq!(sources, [&names[6]], "the good file is done");
    // Nothing left in the cache, nothing written beside it.
    assert_eq!(cached(&cache).len(), 0);
    let mut beside: Vec<String> = std::fs::read_dir(work.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    beside.sort();
    assert_eq!(beside, ["cache", "mirror", "out"]);
    // An endless body was cut off, not buffered.
    let runs: Vec<_> = std::fs::read_dir(out.join("_eraflow/runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&runs[0]).unwrap()).unwrap();
    let rss = report["peak_rss_bytes"].as_u64().unwrap_or(0);
    assert!(rss < 512 << 20, "peak RSS {rss}");
}

#[test]
fn ere_files_stream_from_a_mirror_like_local_ones() {
    // ere files of every kind of era (pre-merge under the legacy .erae name, the merge transition, post-merge),
    // published with a checksums.txt: the remote export gives the local export's bytes, with no special case.
    let src = tempfile::tempdir().unwrap();
    let net = eraflow::network::Network::by_name("synthnet").unwrap();
    let profile = eraflow::formats::EreProfile {
        no_proofs: true,
        no_receipts: false,
    };
    let mut files = Vec::new();
    for (era, blocks) in [(0u64, 64u64), (122, 700), (123, 64)] {
        let mut chain = eraflow::synth::era1::SynthOptions::new(net.clone());
        (chain.era, chain.blocks, chain.txs_per_block) = (era, blocks, 2);
        let opts = eraflow::synth::ere::EreSynthOptions { chain, profile };
        files.extend(eraflow::synth::ere::write(src.path(), &opts).unwrap());
    }
    let legacy = files[0].with_extension("erae");
    std::fs::rename(&files[0], &legacy).unwrap();
    files[0] = legacy;
    let mut sums = String::new();
    for f in &files {
        let sha = hex::encode(eraflow::crypto::sha256::sha256(&std::fs::read(f).unwrap()));
        sums.push_str(&format!(
            "{sha}  {}\n",
            f.file_name().unwrap().to_string_lossy()
        ));
    }
    std::fs::write(src.path().join("checksums.txt"), sums).unwrap();
    let Some(mirror) = Mirror::start(src.path(), None) else {
        return;
    };
    let (local, remote, cache) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    let paths: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    let r = export(local.path(), cache.path(), &paths);
    assert!(r.status.success(), "{}", text(&r));
    let r = export(remote.path(), cache.path(), &[mirror.url()]);
    assert!(r.status.success(), "{}", text(&r));
    assert_eq!(without_runs(local.path()), without_runs(remote.path()));
    let mut sources = manifest_sources(remote.path());
    sources.sort();
    assert_eq!(sources.len(), 3, "{sources:?}");
    assert!(sources[0].ends_with(".erae"), "{sources:?}");
    // Logs of post-merge blocks, from the slim receipts, came through the mirror.
    assert!(crate::util::files_in(&remote.path().join("logs"))
        .iter()
        .any(|p| p.to_string_lossy().contains("01007616_to_")));
}

/// Local and remote inputs are one stream with one runner: the checks across files hold a local file against
/// a fetched one as they hold two local files (two files of the same blocks that differ are both failed, naming
/// each other, the fetched one by its URL), and an export with remote inputs reports its output's stray files
/// as a local one does.
#[test]
fn local_and_fetched_files_are_checked_across_as_one_stream() {
    // `ours` and `theirs` under one folder, `a/` before `b/`: a finding about two files is told from the one
    // whose name sorts first, so `ours` leads both with `theirs` local and with `theirs` a URL (`/` < `h`).
    let (dir, src) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    let net = eraflow::network::Network::by_name("synthnet").unwrap();
    let synth = |dir: &Path, txs: u32| {
        let mut o = eraflow::synth::era1::SynthOptions::new(net.clone());
        (o.blocks, o.txs_per_block, o.files) = (64, txs, 1);
        eraflow::synth::era1::write(dir, &o).unwrap().remove(0)
    };
    // Era 0 of two different chains: the same blocks, other hashes.
    let (ours, theirs) = (synth(&a, 2), synth(&b, 3));
    let name = theirs.file_name().unwrap().to_string_lossy().into_owned();
    std::fs::copy(&theirs, src.path().join(&name)).unwrap();
    let sha = hex::encode(eraflow::crypto::sha256::sha256(
        &std::fs::read(&theirs).unwrap(),
    ));
    std::fs::write(src.path().join("checksums.txt"), format!("{sha}  {name}\n")).unwrap();
    let Some(mirror) = Mirror::start(src.path(), None) else {
        return;
    };
    let cache = tempfile::tempdir().unwrap();
    let verify = |inputs: &[String]| -> Vec<String> {
        let r = Command::new(env!("CARGO_BIN_EXE_eraflow"))
            .args(["--threads", "1", "verify", "--json", "--cache-dir"])
            .arg(cache.path())
            .args(inputs)
            .output()
            .unwrap();
        assert_eq!(r.status.code(), Some(1), "{}", text(&r));
        let reports: Vec<serde_json::Value> = String::from_utf8_lossy(&r.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(reports.len(), 2);
        assert!(reports.iter().all(|r| r["ok"] == false), "{reports:?}");
        reports.iter().map(|r| r["errors"].to_string()).collect()
    };
    let ours = ours.display().to_string();
    let local = verify(&[ours.clone(), theirs.display().to_string()]);
    let url = format!("{}{name}", mirror.url());
    let mixed = verify(&[ours.clone(), url.clone()]);
    for errors in [&local, &mixed] {
        assert!(errors[0].contains("first block hash"), "{errors:?}");
    }
    // The same findings, the fetched file named by its URL, never by its copy in the cache.
    assert!(
        mixed[0].contains(&url) && mixed[0].contains(&ours),
        "{mixed:?}"
    );
    assert!(
        !mixed
            .iter()
            .any(|e| e.contains(&cache.path().display().to_string())),
        "{mixed:?}"
    );
    assert_eq!(
        mixed[0].replace(&url, "THEIRS"),
        local[0].replace(&theirs.display().to_string(), "THEIRS")
    );

    // A stray Parquet file in the output is reported by an export of remote inputs too.
    let out = tempfile::tempdir().unwrap();
    let junk = out.path().join("blocks/network=synthnet/stray.parquet");
    std::fs::create_dir_all(junk.parent().unwrap()).unwrap();
    std::fs::write(&junk, b"not a record's output").unwrap();
    let r = export(out.path(), cache.path(), &[mirror.url()]);
    assert!(r.status.success(), "{}", text(&r));
    let (stale, removed) = crate::shared_output::stale_in_report(out.path());
    assert_eq!(stale, ["blocks/network=synthnet/stray.parquet"]);
    assert!(!removed);
}
