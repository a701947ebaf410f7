//! `--out s3://bucket/prefix` against a real S3-compatible server (moto) on loopback: exactly the layout and
//! bytes of a local run, reruns skip through the remote completion records, concurrent writers lose nothing,
//! and Polars reads the objects.
//!
//! Needs `moto_server` (`python3 -m pip install 'moto[server]'`); `.ci/run` installs it and sets
//! ERAFLOW_REQUIRE_S3=1, which turns its absence from a loud skip into a failure.

use crate::util::snapshot;
use object_store::aws::AmazonS3Builder;
use object_store::{ObjectStore, ObjectStoreExt};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A moto S3 server on 127.0.0.1, killed when dropped.
pub struct Moto {
    child: Child,
    /// Its port.
    pub port: u16,
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The requests in moto's request log `log` (one line each: `"GET /bucket/key HTTP/1.1" 200 -`), from the
/// `from`-th on.
pub fn logged_requests(log: &Path, from: usize) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .filter(|l| l.contains(" HTTP/1.1\" "))
        .skip(from)
        .map(str::to_string)
        .collect()
}

/// A free loopback port (bound, read, released).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Moto {
    /// Starts moto, or `None` (after a loud skip) when it is not installed and ERAFLOW_REQUIRE_S3 is unset.
    pub fn start() -> Option<Moto> {
        Moto::start_logging(None)
    }

    /// [`Moto::start`], its request log (one line per request: `"GET /bucket/key HTTP/1.1" 200 -`) written to
    /// `log` when given.
    pub fn start_logging(log: Option<&Path>) -> Option<Moto> {
        Moto::start_with(log, &[])
    }

    /// [`Moto::start_logging`] with moto's own settings in `env` (`S3_UPLOAD_PART_MIN_SIZE`, ...).
    pub fn start_with(log: Option<&Path>, env: &[(&str, &str)]) -> Option<Moto> {
        let port = free_port();
        let child = Command::new("moto_server")
            .envs(env.iter().copied())
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(match log {
                Some(p) => Stdio::from(std::fs::File::create(p).unwrap()),
                None => Stdio::null(),
            })
            .spawn();
        let Ok(child) = child else {
            if std::env::var_os("ERAFLOW_REQUIRE_S3").is_some() {
                panic!("moto_server is required (ERAFLOW_REQUIRE_S3 is set): pip install 'moto[server]'");
            }
            crate::skip::skip(
                "S3 checks",
                "moto_server not found (python3 -m pip install 'moto[server]')",
            );
            return None;
        };
        let moto = Moto { child, port };
        let t0 = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(t0.elapsed() < Duration::from_secs(60), "moto did not start");
            std::thread::sleep(Duration::from_millis(100));
        }
        Some(moto)
    }

    /// `http://127.0.0.1:<port>`.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Sends one unsigned request (moto takes them) with an empty body and returns the whole response,
    /// asserting it is a 200.
    pub fn request(&self, method: &str, target: &str) -> String {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        write!(
            s,
            "{method} {target} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            self.port
        )
        .unwrap();
        let mut r = String::new();
        s.read_to_string(&mut r).unwrap();
        assert!(r.starts_with("HTTP/1.1 200"), "{method} {target}: {r}");
        r
    }

    /// Creates a bucket.
    pub fn bucket(&self, name: &str) {
        self.request("PUT", &format!("/{name}"));
    }

    /// The environment an eraflow process needs to reach this server.
    pub fn env(&self, c: &mut Command) {
        c.env("AWS_ENDPOINT_URL", self.endpoint())
            .env("AWS_ALLOW_HTTP", "true")
            .env("AWS_ACCESS_KEY_ID", "testing")
            .env("AWS_SECRET_ACCESS_KEY", "testing")
            .env("AWS_REGION", "us-east-1")
            .env_remove("AWS_PROFILE")
            .env_remove("AWS_SESSION_TOKEN");
    }

    /// The object-store client of `bucket`, and a runtime to drive it.
    fn store(&self, bucket: &str) -> (object_store::aws::AmazonS3, tokio::runtime::Runtime) {
        // The process's TLS provider, which eraflow installs before its own clients (src/store/tls.rs): a test
        // run alone would otherwise build this client first, and reqwest refuses to without one.
        eraflow::store::tls::install();
        let store = AmazonS3Builder::new()
            .with_endpoint(self.endpoint())
            .with_allow_http(true)
            .with_bucket_name(bucket)
            .with_access_key_id("testing")
            .with_secret_access_key("testing")
            .with_region("us-east-1")
            .build()
            .unwrap();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        (store, rt)
    }

    /// Uploads `files` to `prefix/<file name>` of `bucket`.
    pub fn put_files(&self, bucket: &str, prefix: &str, files: &[PathBuf]) {
        let (store, rt) = self.store(bucket);
        for f in files {
            let key = format!("{prefix}/{}", f.file_name().unwrap().to_string_lossy());
            let bytes = std::fs::read(f).unwrap();
            rt.block_on(store.put(&object_store::path::Path::from(key), bytes.into()))
                .unwrap();
        }
    }

    /// Every object under `prefix/` of `bucket` as (key relative to the prefix, bytes [`crate::util::normalized`]),
    /// sorted.
    pub fn objects(&self, bucket: &str, prefix: &str) -> Vec<(PathBuf, Vec<u8>)> {
        let (store, rt) = self.store(bucket);
        rt.block_on(async {
            let mut out = Vec::new();
            let mut dirs = vec![object_store::path::Path::from(prefix)];
            while let Some(d) = dirs.pop() {
                let l = store.list_with_delimiter(Some(&d)).await.unwrap();
                dirs.extend(l.common_prefixes);
                for o in l.objects {
                    let b = store.get(&o.location).await.unwrap().bytes().await.unwrap();
                    let rel = o
                        .location
                        .as_ref()
                        .strip_prefix(&format!("{prefix}/"))
                        .unwrap();
                    out.push((
                        PathBuf::from(rel),
                        crate::util::normalized(Path::new(rel), b.to_vec()),
                    ));
                }
            }
            out.sort();
            out
        })
    }
}

fn eraflow() -> Command {
    Command::new(env!("CARGO_BIN_EXE_eraflow"))
}

/// `eraflow --threads 1 export --no-senders --out OUT INPUTS...`, reaching `moto` if given.
fn export_cmd(moto: Option<&Moto>, out: &str, inputs: &[PathBuf]) -> Command {
    let mut c = eraflow();
    if let Some(m) = moto {
        m.env(&mut c);
    }
    c.args(["--threads", "1", "export", "--no-senders", "--out", out])
        .args(inputs);
    c
}

fn export(moto: Option<&Moto>, out: &str, inputs: &[PathBuf]) -> std::process::Output {
    export_cmd(moto, out, inputs).output().unwrap()
}

fn ok(r: &std::process::Output) {
    assert!(
        r.status.success(),
        "{}{}",
        String::from_utf8_lossy(&r.stdout),
        String::from_utf8_lossy(&r.stderr)
    );
}

/// What a local run leaves that an object store mirrors: everything but lock files and run reports.
fn mirrored(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    snapshot(dir)
        .into_iter()
        .filter(|(p, _)| !p.starts_with("_eraflow/locks"))
        .collect()
}

fn without_runs(v: Vec<(PathBuf, Vec<u8>)>) -> Vec<(PathBuf, Vec<u8>)> {
    v.into_iter()
        .filter(|(p, _)| !p.starts_with("_eraflow/runs"))
        .collect()
}

fn inputs(dir: &Path) -> Vec<PathBuf> {
    let net = eraflow::network::Network::by_name("synthnet").unwrap();
    let mut o = eraflow::synth::era1::SynthOptions::new(net.clone());
    o.blocks = 300;
    o.txs_per_block = 2;
    o.files = 3;
    let mut v = eraflow::synth::era1::write(&dir.join("era1"), &o).unwrap();
    let mut e = eraflow::synth::era::EraSynthOptions::new(net.clone());
    e.era =
        eraflow::synth::era::EraSynthOptions::era_of_fork(&net, eraflow::consensus::Fork::Deneb)
            .unwrap();
    e.files = 1;
    e.blocks = 6;
    e.validators = 64;
    e.txs_per_block = 2;
    v.extend(eraflow::synth::era::write(&dir.join("era"), &e).unwrap());
    v
}

#[test]
fn s3_output_has_the_layout_and_bytes_of_a_local_run() {
    let Some(moto) = Moto::start() else { return };
    moto.bucket("eraflow-out");
    let src = tempfile::tempdir().unwrap();
    let mut inputs = inputs(src.path());
    inputs.extend(crate::testdata::file("era1/sepolia-00000-643a00f7.era1"));
    inputs.extend(crate::testdata::file("era/mainnet-00000-4b363db9.era"));
    let local = tempfile::tempdir().unwrap();
    ok(&export(None, local.path().to_str().unwrap(), &inputs));
    let expected = mirrored(local.path());

    ok(&export(Some(&moto), "s3://eraflow-out/a/b", &inputs));
    let got = moto.objects("eraflow-out", "a/b");
    let runs = got
        .iter()
        .filter(|(p, _)| p.starts_with("_eraflow/runs"))
        .count();
    assert_eq!(runs, 1, "one run report");
    let got = without_runs(got);
    assert_eq!(
        got.iter().map(|g| &g.0).collect::<Vec<_>>(),
        expected.iter().map(|e| &e.0).collect::<Vec<_>>()
    );
    for ((p, a), (_, b)) in got.iter().zip(&expected) {
        assert!(a == b, "{p:?} differs from the local run's");
    }
    // A rerun proves every dataset complete from the remote records and writes nothing new.
    let r = export(Some(&moto), "s3://eraflow-out/a/b", &inputs);
    ok(&r);
    let text = String::from_utf8_lossy(&r.stdout);
    assert!(
        text.contains(&format!("0 done, {} skipped", inputs.len())),
        "{text}"
    );
    assert_eq!(without_runs(moto.objects("eraflow-out", "a/b")), got);

    // Polars reads the objects with the same row counts as the local files.
    let script = r#"
import sys, json, polars as pl
endpoint, local = sys.argv[1], sys.argv[2]
opts = {"aws_endpoint_url": endpoint, "aws_access_key_id": "testing", "aws_secret_access_key": "testing",
        "aws_region": "us-east-1", "aws_allow_http": "true"}
out = {}
for ds in ["blocks", "transactions", "logs", "withdrawals", "beacon_blocks"]:
    remote = pl.scan_parquet(f"s3://eraflow-out/a/b/{ds}/*/*.parquet", storage_options=opts, hive_partitioning=True).select(pl.len()).collect().item()
    here = pl.scan_parquet(f"{local}/{ds}/*/*.parquet", hive_partitioning=True).select(pl.len()).collect().item()
    out[ds] = [remote, here]
print(json.dumps(out))
"#;
    if !crate::skip::python_has(
        "polars",
        "polars",
        "ERAFLOW_REQUIRE_PY_READERS",
        "Polars over S3",
    ) {
        return;
    }
    let r = Command::new("python3")
        .args(["-c", script, &moto.endpoint()])
        .arg(local.path())
        .output()
        .unwrap();
    ok(&r);
    let counts: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    for (ds, pair) in counts.as_object().unwrap() {
        assert_eq!(pair[0], pair[1], "{ds}: {counts}");
        assert!(pair[0].as_u64().unwrap() > 0, "{ds}: {counts}");
    }
}

#[test]
fn concurrent_writers_into_one_s3_prefix_lose_nothing() {
    let Some(moto) = Moto::start() else { return };
    moto.bucket("eraflow-shared");
    let src = tempfile::tempdir().unwrap();
    let inputs = inputs(src.path());
    let local = tempfile::tempdir().unwrap();
    ok(&export(None, local.path().to_str().unwrap(), &inputs));
    let expected = mirrored(local.path());
    let pick = |ix: &[usize]| ix.iter().map(|&i| inputs[i].clone()).collect::<Vec<_>>();
    let sets = [
        pick(&[0, 1]),
        pick(&[1, 2]),
        pick(&[2, 3]),
        pick(&[3, 0, 1]),
    ];
    let children: Vec<_> = sets
        .iter()
        .map(|set| {
            export_cmd(Some(&moto), "s3://eraflow-shared/p", set)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let pids: Vec<u32> = children.iter().map(|c| c.id()).collect();
    for c in children {
        ok(&c.wait_with_output().unwrap());
    }
    // Nothing staged is left behind by the writers.
    for pid in pids {
        let staged = std::env::temp_dir().join(format!("eraflow-staging-{pid}-0"));
        assert!(!staged.exists(), "{staged:?} left behind");
    }
    let got = moto.objects("eraflow-shared", "p");
    assert_eq!(
        got.iter()
            .filter(|(p, _)| p.starts_with("_eraflow/runs"))
            .count(),
        sets.len()
    );
    let got = without_runs(got);
    assert!(got
        .iter()
        .all(|(p, _)| !p.to_string_lossy().ends_with(".tmp")));
    assert_eq!(
        got.iter().map(|g| &g.0).collect::<Vec<_>>(),
        expected.iter().map(|e| &e.0).collect::<Vec<_>>()
    );
    for ((p, a), (_, b)) in got.iter().zip(&expected) {
        assert!(a == b, "{p:?} differs from a single run's");
    }
}

#[test]
fn a_killed_s3_export_leaves_no_staging_after_the_next_run() {
    let Some(moto) = Moto::start() else { return };
    moto.bucket("eraflow-killed");
    let src = tempfile::tempdir().unwrap();
    let inputs = inputs(src.path());
    // The processes' temp directory, where a remote output is staged.
    let tmp = tempfile::tempdir().unwrap();
    let run = || {
        let mut c = export_cmd(Some(&moto), "s3://eraflow-killed/p", &inputs);
        c.env("TMPDIR", tmp.path());
        c
    };
    let mut child = run()
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let staged = tmp.path().join(format!("eraflow-staging-{}-0", child.id()));
    let t0 = Instant::now();
    let has_staged =
        || std::fs::read_dir(staged.join("blocks")).is_ok_and(|mut d| d.next().is_some());
    while !has_staged() {
        assert!(
            t0.elapsed() < Duration::from_secs(60) && child.try_wait().unwrap().is_none(),
            "nothing was staged"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let st = Command::new("kill")
        .args(["-KILL", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    child.wait().unwrap();
    assert!(staged.exists());
    // A live run's staging (this process's) stays.
    let live = tmp
        .path()
        .join(format!("eraflow-staging-{}-0", std::process::id()));
    std::fs::create_dir_all(&live).unwrap();
    ok(&run().output().unwrap());
    assert!(!staged.exists(), "{staged:?} left behind by the rerun");
    assert!(live.exists(), "a live run's staging was removed");
    let left: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("eraflow-staging-"))
        .collect();
    assert_eq!(left, [format!("eraflow-staging-{}-0", std::process::id())]);
}

/// The incomplete multipart uploads of `bucket` (ListMultipartUploads; moto takes unsigned requests): (key,
/// upload id), sorted.
fn incomplete_uploads(moto: &Moto, bucket: &str) -> Vec<(String, String)> {
    let r = moto.request("GET", &format!("/{bucket}?uploads"));
    let field = |u: &str, tag: &str| {
        let open = format!("<{tag}>");
        between(u, &open, &format!("</{tag}>"))[open.len()..].to_string()
    };
    let mut v: Vec<(String, String)> = r
        .split("<Upload>")
        .skip(1)
        .map(|u| (field(u, "Key"), field(u, "UploadId")))
        .collect();
    v.sort();
    v
}

#[test]
fn a_rerun_aborts_the_multipart_upload_a_killed_export_left() {
    use eraflow::store::remote::{UploadRecord, Writer, PART_BYTES_ENV, UPLOADS_DIR};
    use object_store::multipart::MultipartStore;
    use object_store::path::Path as ObjPath;
    // Parts of 4 KiB (which moto is told to take) make every output above that a multipart upload.
    let env = [
        ("S3_UPLOAD_PART_MIN_SIZE", "4096"),
        ("MOTO_S3_DEFAULT_KEY_BUFFER_SIZE", "4096"),
    ];
    let Some(moto) = Moto::start_with(None, &env) else {
        return;
    };
    let bucket = "eraflow-uploads";
    moto.bucket(bucket);
    let (store, rt) = moto.store(bucket);
    // Uploads of other writers, recorded as eraflow records them: this process (a live shard on this machine),
    // another machine's recent one, which cannot be asked and is not old: both must stay. Another machine's
    // two days old one, and a dead writer's upload outside the prefix (a record copied by hand): only the
    // first may go.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let elsewhere = Writer {
        boot_id: Some("another machine".into()),
        ..Writer::this()
    };
    let dead = {
        let mut c = Command::new("true").spawn().unwrap();
        c.wait().unwrap();
        Writer {
            pid: c.id(),
            ..Writer::this()
        }
    };
    let mut kept = Vec::new();
    let mut stale = None;
    for (key, writer, started, keep) in [
        ("p/blocks/live.parquet", Writer::this(), now, true),
        ("p/blocks/recent.parquet", elsewhere.clone(), now, true),
        (
            "p/blocks/stale.parquet",
            elsewhere,
            now - 2 * 24 * 3600,
            false,
        ),
        ("q/blocks/dead.parquet", dead, now, true),
    ] {
        let id = rt
            .block_on(store.create_multipart(&ObjPath::from(key)))
            .unwrap();
        let r = UploadRecord {
            key: key.into(),
            upload_id: id.clone(),
            started,
            writer,
        };
        rt.block_on(store.put(
            &ObjPath::from(format!("p/{}", r.rel())),
            serde_json::to_vec(&r).unwrap().into(),
        ))
        .unwrap();
        match keep {
            true => kept.push((key.to_string(), id)),
            false => stale = Some(id),
        }
    }
    kept.sort();
    let stale = stale.unwrap();

    let src = tempfile::tempdir().unwrap();
    let inputs = inputs(src.path());
    let run = |part_bytes: Option<&str>| {
        let mut c = export_cmd(Some(&moto), "s3://eraflow-uploads/p", &inputs);
        if let Some(b) = part_bytes {
            c.env(PART_BYTES_ENV, b);
        }
        c
    };
    let mut child = run(Some("4096"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Killed once one of its uploads is recorded and still incomplete.
    let pid = child.id();
    let recorded = || -> Vec<String> {
        let l = rt
            .block_on(store.list_with_delimiter(Some(&ObjPath::from(format!("p/{UPLOADS_DIR}")))))
            .unwrap();
        l.objects
            .iter()
            .filter_map(|o| {
                let b =
                    rt.block_on(async { store.get(&o.location).await.ok()?.bytes().await.ok() })?;
                let r: UploadRecord = serde_json::from_slice(&b).ok()?;
                (r.writer.pid == pid).then_some(r.upload_id)
            })
            .collect()
    };
    let signal = |sig: &str| {
        let st = Command::new("kill")
            .args([sig, &pid.to_string()])
            .status()
            .unwrap();
        assert!(st.success());
    };
    let in_flight = || {
        let open = incomplete_uploads(&moto, bucket);
        recorded()
            .into_iter()
            .find(|id| open.iter().any(|(_, u)| u == id))
    };
    let t0 = Instant::now();
    let killed_id = loop {
        if in_flight().is_some() {
            // Stopped first, its last requests let through: killed only if an upload is still in flight then
            // (not completed between the look and the kill), else let go on.
            signal("-STOP");
            std::thread::sleep(Duration::from_millis(300));
            if let Some(id) = in_flight() {
                signal("-KILL");
                break id;
            }
            signal("-CONT");
        }
        assert!(
            t0.elapsed() < Duration::from_secs(120) && child.try_wait().unwrap().is_none(),
            "no multipart upload of the run was seen in flight"
        );
    };
    child.wait().unwrap();
    // What the kill leaves: the run's upload, incomplete, billed until aborted. The stale one went when the
    // killed run started, as any export into the prefix does.
    let left = incomplete_uploads(&moto, bucket);
    assert!(left.iter().any(|(_, u)| *u == killed_id), "{left:?}");
    assert!(!left.iter().any(|(_, u)| *u == stale), "{left:?}");
    assert_eq!(left.len(), kept.len() + 1, "{left:?}");

    // The rerun's own multipart uploads complete (moto takes its 4 KiB parts) and leave no record.
    ok(&run(Some("4096")).output().unwrap());
    // It aborted the killed run's upload, and nothing else.
    assert_eq!(incomplete_uploads(&moto, bucket), kept);
    let records: Vec<String> = rt
        .block_on(store.list_with_delimiter(Some(&ObjPath::from(format!("p/{UPLOADS_DIR}")))))
        .unwrap()
        .objects
        .iter()
        .map(|o| o.location.to_string())
        .collect();
    assert_eq!(records.len(), kept.len(), "{records:?}");
}

#[test]
fn a_no_op_rerun_into_s3_costs_metadata_requests_only() {
    let logs = tempfile::tempdir().unwrap();
    let log = logs.path().join("moto.log");
    let Some(moto) = Moto::start_logging(Some(&log)) else {
        return;
    };
    moto.bucket("eraflow-noop");
    let src = tempfile::tempdir().unwrap();
    let inputs = inputs(src.path());
    let out = "s3://eraflow-noop/daily";
    ok(&export(Some(&moto), out, &inputs));
    let requests = |from: usize| logged_requests(&log, from);
    let before = requests(0).len();
    assert!(before > 2 * inputs.len(), "the log holds no requests");
    // The same job again: nothing new.
    let r = export(Some(&moto), out, &inputs);
    ok(&r);
    let during = requests(before);
    assert!(
        during.len() <= 2 * inputs.len(),
        "{} requests for {} sources: {during:#?}",
        during.len(),
        inputs.len()
    );
    assert!(
        !during
            .iter()
            .any(|l| l.contains("\"GET ") && l.contains(".parquet")),
        "a Parquet object was read back: {during:#?}"
    );
    // The run report says how each source was proven.
    let text = String::from_utf8_lossy(&r.stdout);
    assert!(
        text.contains(&format!("0 done, {} skipped", inputs.len())),
        "{text}"
    );
    let reports: Vec<_> = moto
        .objects("eraflow-noop", "daily")
        .into_iter()
        .filter(|(p, _)| p.starts_with("_eraflow/runs"))
        .collect();
    assert_eq!(reports.len(), 2);
    let last: serde_json::Value = reports
        .iter()
        .map(|(_, b)| serde_json::from_slice::<serde_json::Value>(b).unwrap())
        .max_by_key(|r| {
            r["started_at"].as_u64().unwrap_or(0) * 1_000_000 + r["pid"].as_u64().unwrap_or(0)
        })
        .unwrap();
    for f in last["stages"][0]["files"].as_array().unwrap() {
        assert_eq!(f["skipped"], true, "{f}");
        assert_eq!(f["proof"]["input"], "stat", "{f}");
        assert_eq!(f["proof"]["outputs"], "etag", "{f}");
    }
    // --verify-outputs reads every output back (and so proves them by their hash).
    let before = requests(0).len();
    let mut c = eraflow();
    moto.env(&mut c);
    let r = c
        .args([
            "--threads",
            "1",
            "export",
            "--no-senders",
            "--verify-outputs",
            "--json",
            "--out",
            out,
        ])
        .args(&inputs)
        .output()
        .unwrap();
    ok(&r);
    let report: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    for f in report["stages"][0]["files"].as_array().unwrap() {
        assert_eq!(f["proof"]["input"], "sha256", "{f}");
        assert_eq!(f["proof"]["outputs"], "sha256", "{f}");
    }
    let during = requests(before);
    assert!(
        during
            .iter()
            .any(|l| l.contains("\"GET ") && l.contains(".parquet")),
        "{during:#?}"
    );
}

/// The part of a report page between two markers.
fn between<'a>(page: &'a str, from: &str, to: &str) -> &'a str {
    let a = page.find(from).unwrap_or_else(|| panic!("no {from}"));
    let b = page[a..].find(to).unwrap_or_else(|| panic!("no {to}")) + a;
    &page[a..b]
}

#[test]
fn the_report_of_an_s3_output_is_the_report_of_the_same_local_output() {
    let Some(moto) = Moto::start() else { return };
    moto.bucket("eraflow-report");
    let src = tempfile::tempdir().unwrap();
    let inputs = inputs(src.path());
    let local = tempfile::tempdir().unwrap();
    ok(&export(None, local.path().to_str().unwrap(), &inputs));
    ok(&export(Some(&moto), "s3://eraflow-report/p", &inputs));

    // The default place: the page is uploaded beside the outputs.
    let mut c = eraflow();
    moto.env(&mut c);
    let r = c
        .args(["report", "s3://eraflow-report/p"])
        .output()
        .unwrap();
    ok(&r);
    assert_eq!(
        String::from_utf8_lossy(&r.stdout).trim(),
        "s3://eraflow-report/p/_eraflow/report.html"
    );
    let objects = moto.objects("eraflow-report", "p");
    let page = objects
        .iter()
        .find(|(p, _)| p == Path::new("_eraflow/report.html"))
        .map(|(_, b)| String::from_utf8(b.clone()).unwrap())
        .expect("the page is uploaded");
    // --html: a local file.
    let html = local.path().join("s3.html");
    let mut c = eraflow();
    moto.env(&mut c);
    ok(&c
        .args(["report", "s3://eraflow-report/p", "--html"])
        .arg(&html)
        .output()
        .unwrap());
    assert_eq!(std::fs::read_to_string(&html).unwrap(), page);

    let local_page = local.path().join("local.html");
    ok(&eraflow()
        .arg("report")
        .arg(local.path())
        .arg("--html")
        .arg(&local_page)
        .output()
        .unwrap());
    let local_page = std::fs::read_to_string(&local_page).unwrap();
    crate::report::assert_sensible(&page);
    assert!(page.contains("<code>s3://eraflow-report/p</code>"));
    // Coverage, the charts and the datasets (sums, sizes, row groups read from the objects) are the local
    // output's; the runs differ (their times).
    for (from, to) in [
        ("<section id=\"coverage\">", "<section id=\"runs\">"),
        ("<section id=\"chain\">", "</main>"),
    ] {
        assert_eq!(between(&page, from, to), between(&local_page, from, to));
    }
    assert!(page.contains("Withdrawals per day") && page.contains("The newest 1 of 1 run report,"));
    assert_eq!(
        page.matches("<svg").count(),
        local_page.matches("<svg").count()
    );
}

#[test]
fn report_true_in_a_run_into_s3_uploads_the_page() {
    let Some(moto) = Moto::start() else { return };
    moto.bucket("eraflow-paged");
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("paged.toml");
    std::fs::write(
        &p,
        "name = \"paged\"\nnetwork = \"synthnet\"\ninputs = [\"archives\"]\nout = \"s3://eraflow-paged/o\"\nreport = true\n\n[synth]\nout = \"archives\"\nblocks = 100\n\n[export]\ndatasets = [\"blocks\", \"transactions\"]\n",
    )
    .unwrap();
    let mut c = eraflow();
    moto.env(&mut c);
    let r = c.args(["-q", "run"]).arg(&p).output().unwrap();
    ok(&r);
    assert!(
        String::from_utf8_lossy(&r.stderr)
            .contains("report: s3://eraflow-paged/o/_eraflow/report.html"),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
    let objects = moto.objects("eraflow-paged", "o");
    let page = objects
        .iter()
        .find(|(p, _)| p == Path::new("_eraflow/report.html"))
        .map(|(_, b)| String::from_utf8(b.clone()).unwrap())
        .expect("the page is uploaded");
    crate::report::assert_sensible(&page);
    assert!(
        page.contains("The newest 1 of 1 run report,") && page.contains("Transactions per day")
    );
}

/// `eraflow verify --outputs` of an object-store output: every object read back; one replaced by other bytes of
/// the same size is caught by its hash.
#[test]
fn verify_outputs_reads_an_object_store_output_back() {
    use crate::verify_outputs::{inputs, verdicts, verify_outputs_by};
    let Some(moto) = Moto::start() else { return };
    moto.bucket("eraflow-verify");
    let work = tempfile::tempdir().unwrap();
    let inputs = inputs(&work.path().join("in"));
    let url = "s3://eraflow-verify/daily";
    ok(&export(Some(&moto), url, &inputs));
    let verify = || {
        let mut c = eraflow();
        moto.env(&mut c);
        verify_outputs_by(c, url, true)
    };
    let r = verify();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let v = verdicts(&r);
    assert!(v.iter().all(|x| x.1 == "ok" || x.1 == "no_output"), "{v:?}");
    let first = v.iter().find(|x| x.1 == "ok").unwrap().0.clone();

    // The same object replaced by other bytes of the same size: caught by its hash.
    let objects = moto.objects("eraflow-verify", "daily");
    let (_, bytes) = objects
        .iter()
        .find(|(p, _)| p == Path::new(&first))
        .unwrap();
    let mut bad = bytes.clone();
    bad[0] ^= 0x01;
    let local = work.path().join("tampered").join(&first);
    std::fs::create_dir_all(local.parent().unwrap()).unwrap();
    std::fs::write(&local, &bad).unwrap();
    let dir = Path::new(&first).parent().unwrap().to_str().unwrap();
    moto.put_files("eraflow-verify", &format!("daily/{dir}"), &[local]);
    let r = verify();
    assert_eq!(
        r.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
    let v = verdicts(&r);
    assert_eq!(v.iter().find(|x| x.0 == first).unwrap().1, "sha256");
}
