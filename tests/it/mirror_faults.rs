//! What an operator's fault audit found on the remote input paths (issue 23), each against a real loopback
//! server (`tests/python/range_server.py`, or `python3 -m http.server` itself) and a real `eraflow` process:
//! a mirror that stalls mid-body, a signal during such a download, a listing that names other files, an
//! authenticated mirror, a server that ignores `Range`, big files fetched as parallel ranges, and processes
//! sharing one cache folder.

use crate::http_input::{cached, export, export_with, manifest_sources, text, Mirror};
use crate::util::{eraflow, snapshot};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `n` synthnet era1 files of 40 blocks in `dir`, with a `checksums.txt`; their paths, sorted.
fn small_mirror(dir: &Path, n: u64) -> Vec<PathBuf> {
    let net = eraflow::network::Network::by_name("synthnet").unwrap();
    let mut o = eraflow::synth::era1::SynthOptions::new(net);
    o.blocks = 40;
    o.txs_per_block = 1;
    o.files = n;
    let files = eraflow::synth::era1::write(dir, &o).unwrap();
    std::fs::write(dir.join("checksums.txt"), sums(&files)).unwrap();
    files
}

fn sha(p: &Path) -> String {
    hex::encode(eraflow::crypto::sha256::sha256(&std::fs::read(p).unwrap()))
}

fn name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

fn sums(files: &[PathBuf]) -> String {
    files
        .iter()
        .map(|f| format!("{}  {}\n", sha(f), name(f)))
        .collect()
}

/// Runs `cmd` to its end, failing the test (after killing it) when it is still running after `limit`:
/// (exit code, stdout and stderr).
fn run_within(cmd: &mut Command, limit: Duration) -> (Option<i32>, String) {
    let logs = tempfile::tempdir().unwrap();
    let (out, err) = (logs.path().join("out"), logs.path().join("err"));
    let mut child = cmd
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if t0.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "still running after {limit:?}: {}{}",
                std::fs::read_to_string(&out).unwrap_or_default(),
                std::fs::read_to_string(&err).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let text = format!(
        "{}{}",
        std::fs::read_to_string(&out).unwrap_or_default(),
        std::fs::read_to_string(&err).unwrap_or_default()
    );
    (status.code(), text)
}

/// The files a mirror answered GETs for since the last call (from its `.requests` log, then emptied).
fn gets(mirror_dir: &Path) -> Vec<String> {
    let log = mirror_dir.join(".requests");
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let _ = std::fs::remove_file(&log);
    let mut v: Vec<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix("GET ").map(str::to_string))
        .filter(|n| n.ends_with(".era1"))
        .collect();
    v.sort();
    v
}

/// The status of the one run report under `out`.
/// Exports the mirror at `url` into fresh output and cache folders and asserts the run succeeded: the output
/// folder and what the run printed.
fn export_fresh(url: String) -> (tempfile::TempDir, String) {
    let (out, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let r = export(out.path(), cache.path(), &[url]);
    let t = text(&r);
    assert!(r.status.success(), "{t}");
    (out, t)
}

fn report_status(out: &Path) -> String {
    let runs: Vec<_> = std::fs::read_dir(out.join("_eraflow/runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&runs[0]).unwrap()).unwrap();
    r["status"].as_str().unwrap_or_default().to_string()
}

#[test]
fn a_stalled_mirror_is_cut_by_the_read_timeout_and_retried() {
    let src = tempfile::tempdir().unwrap();
    let files = small_mirror(src.path(), 3);
    let names: Vec<String> = files.iter().map(|f| name(f)).collect();
    // The first file stalls mid-body once (then is served), the second on every request.
    let hostile = format!("{}=stall,{}=stall-always", names[0], names[1]);
    let Some(mirror) = Mirror::start_hostile(src.path(), None, &hostile) else {
        return;
    };
    let (out, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (code, t) = run_within(
        eraflow()
            .args([
                "--threads",
                "1",
                "export",
                "--no-senders",
                "--read-timeout",
                "1",
            ])
            .arg("--out")
            .arg(out.path())
            .arg("--cache-dir")
            .arg(cache.path())
            .arg(mirror.url()),
        Duration::from_secs(90),
    );
    assert_eq!(code, Some(1), "{t}");
    // The stall was cut after a second, and the download resumed; the file that always stalls fails alone,
    // saying why.
    assert_eq!(
        manifest_sources(out.path()),
        [names[0].clone(), names[2].clone()]
    );
    let url = format!("{}{}", mirror.url(), names[1]);
    assert!(
        t.lines().any(|l| l.contains(&format!("{url}: "))
            && l.contains("after 6 attempts")
            && l.contains("nothing received for 1.")
            && l.contains("(read timeout)")),
        "{t}"
    );
    assert_eq!(cached(cache.path()), Vec::<String>::new());
}

#[test]
fn a_signal_stops_a_stalled_download_at_once_and_leaves_no_partial_file() {
    let src = tempfile::tempdir().unwrap();
    let files = small_mirror(src.path(), 1);
    let hostile = format!("{}=stall-always", name(&files[0]));
    let Some(mirror) = Mirror::start_hostile(src.path(), None, &hostile) else {
        return;
    };
    let (out, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    // The default read timeout (30 s): the signal, not the timeout, must end it.
    let mut child = eraflow()
        .args(["--threads", "1", "export", "--no-senders", "--out"])
        .arg(out.path())
        .arg("--cache-dir")
        .arg(cache.path())
        .arg(mirror.url())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Mid-download: the partial file is in the cache under its temporary name, and the mirror has stalled.
    let t0 = Instant::now();
    let partial = loop {
        let tmp: Vec<String> = cached(cache.path())
            .into_iter()
            .filter(|n| n.starts_with('.') && n.ends_with(".tmp"))
            .collect();
        if !tmp.is_empty()
            && std::fs::read_to_string(src.path().join(".requests"))
                .is_ok_and(|r| r.contains("GET "))
        {
            break tmp;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "the download never started"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    std::thread::sleep(Duration::from_millis(500));
    let st = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    let t1 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if t1.elapsed() > Duration::from_secs(5) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("still running 5 s after SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(143), "{partial:?}");
    assert_eq!(
        cached(cache.path()),
        Vec::<String>::new(),
        "{partial:?} left"
    );
    assert_eq!(report_status(out.path()), "interrupted");
}

#[test]
fn a_listing_skips_names_that_are_not_archives_and_says_so_once() {
    let src = tempfile::tempdir().unwrap();
    let files = small_mirror(src.path(), 2);
    let names: Vec<String> = files.iter().map(|f| name(f)).collect();
    // A README and a backup copy beside the archives, listed with their sha256 (as `sha256sum *` would).
    std::fs::write(src.path().join("README.md"), "# era1 files\n").unwrap();
    let backup = format!("{}.bak", names[0]);
    std::fs::copy(&files[0], src.path().join(&backup)).unwrap();
    let mut listing = sums(&files);
    listing.push_str(&format!(
        "{}  README.md\n{}  {backup}\n",
        sha(&src.path().join("README.md")),
        sha(&files[0])
    ));
    std::fs::write(src.path().join("checksums.txt"), listing).unwrap();
    let Some(mirror) = Mirror::start(src.path(), None) else {
        return;
    };
    let (out, t) = export_fresh(mirror.url());
    assert_eq!(manifest_sources(out.path()), names);
    let said: Vec<&str> = t.lines().filter(|l| l.contains("listed names")).collect();
    assert_eq!(said.len(), 1, "{t}");
    assert!(
        said[0].contains("skipped 2 listed names that are not era1, ere or era file names")
            && said[0].contains("README.md")
            && said[0].contains(&backup),
        "{t}"
    );
    // Neither was fetched.
    assert_eq!(gets(src.path()), names);
}

#[test]
fn a_listed_archive_file_without_a_canonical_name_is_said_to_be_skipped() {
    let src = tempfile::tempdir().unwrap();
    let files = small_mirror(src.path(), 2);
    let names: Vec<String> = files.iter().map(|f| name(f)).collect();
    // Archives renamed by hand: an archive's extension, but no network, era and root in the name.
    let odd = ["blocks.era1", "synthnet-1-abc.era1"];
    for n in odd {
        std::fs::copy(&files[0], src.path().join(n)).unwrap();
    }
    let said = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| l.contains("not canonical archive names"))
            .map(str::to_string)
            .collect()
    };
    let check = |t: &str| {
        let said = said(t);
        assert_eq!(said.len(), 1, "{t}");
        assert!(
            said[0].contains("skipped 2 listed archive files")
                && odd.iter().all(|n| said[0].contains(n))
                && said[0].contains("<network>-<era:05>-<short root:8 hex>.era1"),
            "{t}"
        );
    };
    // Linked from the index page the mirror serves (no checksums.txt), then listed in checksums.txt.
    std::fs::remove_file(src.path().join("checksums.txt")).unwrap();
    let Some(mirror) = Mirror::start(src.path(), None) else {
        return;
    };
    let (out, t) = export_fresh(mirror.url());
    check(&t);
    assert_eq!(manifest_sources(out.path()), names);
    assert_eq!(gets(src.path()), names);
    let mut listing = sums(&files);
    for n in odd {
        listing.push_str(&format!("{}  {n}\n", sha(&files[0])));
    }
    std::fs::write(src.path().join("checksums.txt"), listing).unwrap();
    let (_out, t) = export_fresh(mirror.url());
    check(&t);
    // Told apart from other names: the README-style message is not given for them.
    assert!(!t.contains("listed names that are not"), "{t}");
    assert_eq!(gets(src.path()), names);
}

#[test]
fn authenticated_mirrors_get_their_credentials_and_never_show_them() {
    let src = tempfile::tempdir().unwrap();
    let files = small_mirror(src.path(), 2);
    let (local, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let paths: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    assert!(export(local.path(), cache.path(), &paths).status.success());
    type Url = fn(&Mirror) -> String;
    let cases: [(&str, &str, Url, &[&str], &str); 3] = [
        // Basic auth from the URL's user-info (the password %-escaped in it).
        (
            "AUTH",
            "eraflow:p@ss:w0rd",
            |m| m.url().replace("http://", "http://eraflow:p%40ss%3Aw0rd@"),
            &[],
            "w0rd",
        ),
        // A token in the query string, kept on every request.
        (
            "TOKEN",
            "t0k3n",
            |m| format!("{}?token=t0k3n", m.url()),
            &[],
            "t0k3n",
        ),
        // A header from --http-header.
        (
            "HEADER",
            "X-Api-Key: k3y-s3cr3t",
            |m| m.url(),
            &["--http-header", "X-Api-Key: k3y-s3cr3t"],
            "k3y-s3cr3t",
        ),
    ];
    for (var, value, url, flags, secret) in cases {
        let Some(mirror) = Mirror::start_with(src.path(), None, &[(var, value)]) else {
            return;
        };
        // Without them, the mirror refuses (and the run says so).
        let out = tempfile::tempdir().unwrap();
        let r = export(out.path(), cache.path(), &[mirror.url()]);
        let t = text(&r);
        assert_eq!(r.status.code(), Some(2), "{var}: {t}");
        assert!(
            t.contains("HTTP 401") || t.contains("HTTP 403"),
            "{var}: {t}"
        );
        let _ = std::fs::remove_file(src.path().join(".refused"));
        // With them, every request is let through and the export is the local one's.
        let out = tempfile::tempdir().unwrap();
        let flags: Vec<String> = flags.iter().map(|s| s.to_string()).collect();
        let r = export_with(out.path(), cache.path(), &[url(&mirror)], &flags);
        let t = text(&r);
        assert!(r.status.success(), "{var}: {t}");
        assert!(
            !src.path().join(".refused").exists(),
            "{var}: {}",
            std::fs::read_to_string(src.path().join(".refused")).unwrap_or_default()
        );
        assert_eq!(snapshot(local.path()), snapshot(out.path()), "{var}");
        // Never shown: not in the output, the run report, the manifest or the records.
        assert!(!t.contains(secret), "{var}: {t}");
        for f in crate::util::files_in(&out.path().join("_eraflow")) {
            let body = String::from_utf8_lossy(&std::fs::read(&f).unwrap()).into_owned();
            assert!(!body.contains(secret), "{var}: {}: {body}", f.display());
        }
    }
}

#[test]
fn a_server_that_ignores_range_is_read_with_one_bounded_get() {
    let src = tempfile::tempdir().unwrap();
    let files = small_mirror(src.path(), 3);
    let (local, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let paths: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    assert!(export(local.path(), cache.path(), &paths).status.success());
    // A folder served the way most people serve one.
    let Some(plain) = Mirror::plain_http_server(src.path()) else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let r = export(out.path(), cache.path(), &[plain.url()]);
    assert!(r.status.success(), "{}", text(&r));
    assert_eq!(snapshot(local.path()), snapshot(out.path()));
    assert_eq!(cached(cache.path()), Vec::<String>::new());
    drop(plain);
    // A whole answer cut off halfway is fetched again from its first byte (resuming needs ranges).
    let first = name(&files[0]);
    let Some(mirror) = Mirror::start_with(src.path(), Some(&first), &[("NORANGE", "1")]) else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let r = export(out.path(), cache.path(), &[mirror.url()]);
    assert!(r.status.success(), "{}", text(&r));
    assert!(src.path().join(".cut").exists(), "the answer was never cut");
    assert_eq!(snapshot(local.path()), snapshot(out.path()));
    let got = gets(src.path());
    assert_eq!(got.iter().filter(|n| **n == first).count(), 2, "{got:?}");
}

#[test]
fn big_files_are_fetched_as_parallel_ranges_and_files_side_by_side() {
    let src = tempfile::tempdir().unwrap();
    // One file of three 8 MiB chunks, two small ones.
    let big = crate::util::synth_era1(src.path(), 8192, 4);
    assert!(std::fs::metadata(&big).unwrap().len() > eraflow::store::fetch::PARALLEL_FROM);
    let small = tempfile::tempdir().unwrap();
    let mut files = small_mirror(small.path(), 2);
    for f in &mut files {
        let to = src.path().join(name(f));
        std::fs::copy(&*f, &to).unwrap();
        *f = to;
    }
    files.push(big.clone());
    files.sort();
    std::fs::write(src.path().join("checksums.txt"), sums(&files)).unwrap();
    // Every connection is slow (16 MB/s): overlapping requests are seen from the server's side.
    let Some(mirror) = Mirror::start_with(src.path(), None, &[("RATE", "16000000")]) else {
        return;
    };
    let (local, out, cache) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    let paths: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    assert!(export(local.path(), cache.path(), &paths).status.success());
    let r = export_with(
        out.path(),
        cache.path(),
        &[mirror.url()],
        &["--download-concurrency".into(), "3".into()],
    );
    assert!(r.status.success(), "{}", text(&r));
    assert_eq!(snapshot(local.path()), snapshot(out.path()));
    let spans: Vec<(String, f64, f64)> = std::fs::read_to_string(src.path().join(".spans"))
        .unwrap()
        .lines()
        .map(|l| {
            let v: Vec<&str> = l.split(' ').collect();
            (
                v[0].to_string(),
                v[1].parse().unwrap(),
                v[2].parse().unwrap(),
            )
        })
        .filter(|s| s.0.ends_with(".era1"))
        .collect();
    let overlap = |a: &(String, f64, f64), b: &(String, f64, f64)| a.1 < b.2 && b.1 < a.2;
    let big_name = name(&big);
    let big_spans: Vec<_> = spans.iter().filter(|s| s.0 == big_name).collect();
    assert_eq!(big_spans.len(), 3, "{spans:?}");
    assert!(
        big_spans
            .iter()
            .enumerate()
            .any(|(i, a)| big_spans[i + 1..].iter().any(|b| overlap(a, b))),
        "ranges of the big file never overlapped: {spans:?}"
    );
    assert!(
        spans
            .iter()
            .enumerate()
            .any(|(i, a)| spans[i + 1..].iter().any(|b| a.0 != b.0 && overlap(a, b))),
        "no two files were downloaded at once: {spans:?}"
    );
    assert!(
        spans.len() <= files.len() + 2,
        "more requests than chunks: {spans:?}"
    );
}

#[test]
fn processes_share_one_cache_folder() {
    let src = tempfile::tempdir().unwrap();
    let files = small_mirror(src.path(), 3);
    let names: Vec<String> = files.iter().map(|f| name(f)).collect();
    let Some(mirror) = Mirror::start(src.path(), None) else {
        return;
    };
    let cache = tempfile::tempdir().unwrap();
    // Another process holds a whole copy of the first file: this one uses it, neither fetches it again nor
    // removes it.
    std::fs::copy(&files[0], cache.path().join(&names[0])).unwrap();
    let locks = cache.path().join(eraflow::store::cache::LOCKS);
    std::fs::create_dir_all(&locks).unwrap();
    let held = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(locks.join(format!("{}.lock", names[0])))
        .unwrap();
    held.lock_shared().unwrap();
    let out = tempfile::tempdir().unwrap();
    gets(src.path());
    let r = export(out.path(), cache.path(), &[mirror.url()]);
    assert!(r.status.success(), "{}", text(&r));
    assert_eq!(manifest_sources(out.path()), names);
    assert_eq!(gets(src.path()), names[1..]);
    assert_eq!(cached(cache.path()), [names[0].clone()]);
    drop(held);
    // Two exports at once over one cache folder: both complete, and the last user of each file removes it.
    let outs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let children: Vec<_> = outs
        .iter()
        .map(|o| {
            eraflow()
                .args(["--threads", "1", "export", "--no-senders", "--out"])
                .arg(o.path())
                .arg("--cache-dir")
                .arg(cache.path())
                .arg(mirror.url())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let r = c.wait_with_output().unwrap();
        assert!(r.status.success(), "{}", text(&r));
    }
    for o in &outs {
        assert_eq!(manifest_sources(o.path()), names);
    }
    assert_eq!(cached(cache.path()), Vec::<String>::new());
}
