//! Remote inputs: listing an HTTP(S) mirror (a `checksums.txt` of `<sha256>  <file name>` lines beside the
//! files, else an HTML index page), a single file URL, or an object-store prefix (`s3://`, `gs://`, `az://`),
//! and fetching each file into a local cache folder: ranged GETs of bounded chunks, read as they arrive and
//! written straight to the cache, each retried with backoff on a transport failure (so an interrupted download
//! resumes where it stopped), the bytes hashed and checked against the published sha256. A partial or
//! mismatching download is never handed on: that file fails, naming the URL, expected and actual.
//!
//! - **Any HTTP server.** A server that ignores `Range` (answers `200` with the whole file, as
//!   `python3 -m http.server` does) is read with one bounded plain GET: at most the declared size, hashed as it
//!   arrives, restarted from the beginning on a transport failure (resuming needs ranges).
//! - **In parallel.** The downloads of a run share [`Downloads`]: at most `connections` requests at once, and a
//!   file of [`PARALLEL_FROM`] bytes or more is fetched as that many ranges at once (written at their offsets,
//!   hashed in order as the written prefix grows), when the server honours ranges.
//! - **Never stuck.** A request or body that sends nothing for the read timeout is cut and retried like any
//!   transport failure; a stop (the run ending, a signal) ends every download within [`TICK`], and the
//!   partial file is removed with its temporary name.
//!
//! Nothing from outside gets further than it should. A listed name with a path separator or `..` is refused
//! (the listing fails), so nothing is written outside the cache folder; other names that are not era, ere or
//! era1 file names ([`crate::formats::ArchiveName::parse`]: a README, a backup copy) are skipped, said once per
//! listing; a file with an archive's extension but no canonical name (`blocks.era1`) too, said apart, with what
//! a canonical name looks like. A response is trusted for no more than was asked: one that sends more than its
//! range or than the declared size (whatever its Content-Length says, an endless body included) is cut off
//! there, one whose Content-Range or Content-Length gives another total size than declared fails, so memory
//! stays at one network buffer per request. HTTP redirects are followed only within the mirror's origin
//! ([`super::http`]).

use super::http::{HttpFailure, HttpHeader, HttpSource};
use super::remote::RemoteError;
use super::runtime::{Retry, RETRY};
use super::url::RemoteUrl;
use crate::formats::{ArchiveKind, ArchiveName};
use crate::util::fs::AtomicFile;
use futures_util::StreamExt;
use object_store::path::Path as ObjPath;
use object_store::{GetOptions, GetRange, ObjectStore, ObjectStoreExt};
use std::future::Future;
use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Bytes per ranged GET.
pub const CHUNK_BYTES: u64 = 8 << 20;
/// Attempts per request before the file fails: the one policy's ([`RETRY`]).
pub const ATTEMPTS: u32 = RETRY.attempts;
/// Files at least this big are fetched as several ranges at once (where the server honours ranges).
pub const PARALLEL_FROM: u64 = 2 * CHUNK_BYTES;
/// Bytes of the start of a file a skeleton holds (an archive's version record).
pub const SKELETON_HEAD: u64 = 64 << 10;
/// Bytes of the end of a file a skeleton holds: an archive's index and accumulator (an ere index of 8192
/// blocks of five components is 320 KiB).
pub const SKELETON_TAIL: u64 = 1 << 20;
/// How often a waiting request looks at the stop flags and the read timeout.
pub const TICK: Duration = Duration::from_millis(50);
/// The read timeout when the job names none.
pub const DEFAULT_READ_TIMEOUT: Duration = Duration::from_secs(30);
/// Bytes a listing (`checksums.txt`, an index page) may hold.
const LISTING_BYTES: u64 = 64 << 20;

/// How remote inputs are read: the job's settings.
#[derive(Debug, Clone)]
pub struct FetchSettings {
    /// A request or body that sends nothing for this long is cut and retried.
    pub read_timeout: Duration,
    /// Headers sent with every request to an http(s) input (their values are never shown).
    pub http_headers: Vec<HttpHeader>,
}

impl Default for FetchSettings {
    fn default() -> FetchSettings {
        FetchSettings {
            read_timeout: DEFAULT_READ_TIMEOUT,
            http_headers: Vec::new(),
        }
    }
}

/// Why a remote input could not be listed or fetched.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// The object store could not be set up or a request to it failed.
    #[error(transparent)]
    Remote(#[from] RemoteError),
    /// An HTTP request was answered with something no retry changes (a status, a refused redirect).
    #[error("{url}")]
    Http {
        /// The URL, redacted.
        url: String,
        /// What came back.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// Every attempt at a request failed before any byte came.
    #[error("{url}: failed after {attempts} attempts")]
    Failed {
        /// The URL, redacted.
        url: String,
        /// Attempts made.
        attempts: u32,
        /// Why the last one failed.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A listed name that could write outside the cache folder (a path separator, `..`).
    #[error("{url}: refusing listed name '{name}' (a file name may not hold '/', '\\' or '..')")]
    BadName {
        /// The listing, redacted.
        url: String,
        /// The name as listed.
        name: String,
    },
    /// The listing names no archive file.
    #[error("{0}: lists no .era1, .ere, .erae or .era files")]
    Empty(String),
    /// The file is bigger than allowed (its declared size, or the whole cache limit).
    #[error("{url}: {size} bytes is more than the {limit} allowed")]
    TooBig {
        /// The file, redacted.
        url: String,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// The bytes do not hash to the published sha256.
    #[error("{url}: sha256 mismatch: expected {expected}, got {actual}")]
    Checksum {
        /// The file, redacted.
        url: String,
        /// The published sha256.
        expected: String,
        /// What the download hashed to.
        actual: String,
    },
    /// A response sent more bytes than the range asked for (cut off there).
    #[error("{url}: bytes {start}..{end}: the server sent more than the {} bytes asked for; cut off", .end - .start)]
    Overlong {
        /// The file, redacted.
        url: String,
        /// The range asked for.
        start: u64,
        /// Its end (exclusive).
        end: u64,
    },
    /// A response gave the file another total size than the size declared before the download.
    #[error("{url}: declared size {declared} bytes, but {by} says {found}")]
    SizeChanged {
        /// The file, redacted.
        url: String,
        /// The size declared (HEAD).
        declared: u64,
        /// The total the response gives.
        found: u64,
        /// Which response (`a ranged response`, `a whole response`).
        by: &'static str,
    },
    /// Every attempt at a range ended early.
    #[error("{url}: bytes {start}..{end}: expected {} bytes, got {found} after {attempts} attempts", .end - .start)]
    Short {
        /// The file, redacted.
        url: String,
        /// The range asked for.
        start: u64,
        /// Its end (exclusive).
        end: u64,
        /// Bytes received of it.
        found: u64,
        /// Attempts made.
        attempts: u32,
        /// Why the last attempt stopped, when it failed rather than ended.
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
    /// The run ended while the file was being fetched.
    #[error("{url}: fetch stopped: the run is ending")]
    Stopped {
        /// The file, redacted.
        url: String,
    },
    /// The cache folder could not be written.
    #[error("{}", .path.display())]
    Cache {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The runtime downloads run on could not be started.
    #[error("starting the download runtime")]
    Runtime(#[source] std::io::Error),
}

/// Nothing arrived for the read timeout.
#[derive(Debug, thiserror::Error)]
#[error("nothing received for {0:.1} s (read timeout)")]
pub struct Stalled(pub f64);

/// Where the bytes of a response go: called with each piece and its offset in the file.
type Sink<'a> = dyn FnMut(u64, &[u8]) -> Result<(), FetchError> + 'a;

/// How one request failed.
enum Attempt {
    /// A transport failure, a stall, a server failing for now: worth another attempt.
    Retry(Box<dyn std::error::Error + Send + Sync>),
    /// The server said or sent something no retry can mend, or the run is ending.
    Fatal(FetchError),
}

impl Attempt {
    fn http(url: &str) -> impl Fn(HttpFailure) -> Attempt + '_ {
        move |e| match e {
            HttpFailure::Transient(e) => Attempt::Retry(e),
            HttpFailure::Final(source) => Attempt::Fatal(FetchError::Http {
                url: url.to_string(),
                source,
            }),
        }
    }

    /// Transport failures (connect, request, timeout, a body cut off) are retried; what the server answered
    /// and object_store refused would only be answered again.
    fn store<'a>(
        url: &'a str,
        imds: Option<&'a str>,
    ) -> impl Fn(object_store::Error) -> Attempt + 'a {
        move |e| {
            use object_store::client::{HttpError, HttpErrorKind};
            let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(&e);
            while let Some(c) = cause {
                if let Some(h) = c.downcast_ref::<HttpError>() {
                    if matches!(
                        h.kind(),
                        HttpErrorKind::Connect
                            | HttpErrorKind::Request
                            | HttpErrorKind::Timeout
                            | HttpErrorKind::Interrupted
                    ) {
                        return Attempt::Retry(Box::new(e));
                    }
                    break;
                }
                cause = c.source();
            }
            Attempt::Fatal(FetchError::Remote(super::remote::request_error(
                url.to_string(),
                imds,
                e,
            )))
        }
    }
}

/// Why waiting on the network ended before the answer.
enum Cut {
    Stopped,
    TimedOut(f64),
}

/// Awaits `fut`, looking every [`TICK`] whether to stop, and giving up after `timeout` without an answer.
async fn guard<F: Future>(
    fut: F,
    timeout: Option<Duration>,
    stop: &dyn Fn() -> bool,
) -> Result<F::Output, Cut> {
    let mut fut = std::pin::pin!(fut);
    let started = tokio::time::Instant::now();
    loop {
        match tokio::time::timeout(TICK, fut.as_mut()).await {
            Ok(v) => return Ok(v),
            Err(_) if stop() => return Err(Cut::Stopped),
            Err(_) => {
                let waited = started.elapsed();
                if timeout.is_some_and(|t| waited >= t) {
                    return Err(Cut::TimedOut(waited.as_secs_f64()));
                }
            }
        }
    }
}

/// Waits before attempt `attempt` as the one policy says ([`RETRY`]), in short steps so that a stop is heard.
async fn backoff(attempt: u32, stop: &dyn Fn() -> bool) {
    let until = tokio::time::Instant::now() + RETRY.wait(attempt);
    while tokio::time::Instant::now() < until && !stop() {
        tokio::time::sleep(TICK.min(until - tokio::time::Instant::now())).await;
    }
}

/// The process's one runtime ([`super::runtime`]).
fn runtime() -> Result<&'static tokio::runtime::Runtime, FetchError> {
    super::runtime::runtime().map_err(FetchError::Runtime)
}

/// What the downloads of one run share: when to stop, and how many requests may be open at once.
pub struct Downloads {
    stop: Vec<Arc<AtomicBool>>,
    connections: Arc<tokio::sync::Semaphore>,
    limit: usize,
}

impl Downloads {
    /// At most `connections` requests at once (at least one); every download stops when any of `stop` is set.
    pub fn new(connections: usize, stop: Vec<Arc<AtomicBool>>) -> Downloads {
        let limit = connections.max(1);
        Downloads {
            stop,
            connections: Arc::new(tokio::sync::Semaphore::new(limit)),
            limit,
        }
    }

    /// Whether the downloads are to stop.
    pub fn stopped(&self) -> bool {
        self.stop.iter().any(|s| s.load(Ordering::Relaxed))
    }
}

/// One remote archive file.
#[derive(Debug, Clone)]
pub struct RemoteFile {
    /// Its file name (checked).
    pub name: String,
    /// Its URL, redacted.
    pub url: String,
    /// The published sha256, when the mirror publishes one.
    pub sha256: Option<String>,
    /// Its path under the store's authority.
    key: String,
}

/// How a location is read.
enum Backend {
    Http(HttpSource),
    Store(Arc<dyn ObjectStore>),
}

/// A response being read: whether it is the whole file (a server ignoring ranges), the total size it gives,
/// and the connection it holds.
struct Body {
    whole: bool,
    total: Option<u64>,
    inner: BodyInner,
    _permit: Option<tokio::sync::OwnedSemaphorePermit>,
}

enum BodyInner {
    Http(super::http::Response),
    Store(futures_util::stream::BoxStream<'static, object_store::Result<bytes::Bytes>>),
}

impl Body {
    async fn next(&mut self, url: &str) -> Result<Option<bytes::Bytes>, Attempt> {
        match &mut self.inner {
            BodyInner::Http(r) => r.chunk().await.map_err(Attempt::http(url)),
            BodyInner::Store(s) => s
                .next()
                .await
                .transpose()
                .map_err(Attempt::store(url, None)),
        }
    }
}

/// A mirror or prefix, and the client that reads it.
pub struct Remote {
    url: RemoteUrl,
    backend: Backend,
    read_timeout: Duration,
    /// The instance metadata endpoint, when it is the only source of S3 credentials.
    imds: Option<String>,
}

fn base(url: &RemoteUrl) -> String {
    format!("{}://{}", url.scheme().name(), url.authority())
}

/// Whether a listed name could lead outside the cache folder (or is no file name at all): refused.
pub fn unsafe_name(name: &str) -> bool {
    name.is_empty() || name.contains(['/', '\\', '\0']) || name.contains("..")
}

/// Where sequential bytes go: the file, and the hash of everything so far.
struct Sequential<'a> {
    file: &'a mut AtomicFile,
    hasher: sha2::Sha256,
    path: &'a Path,
}

impl Sequential<'_> {
    fn put(&mut self, bytes: &[u8]) -> Result<(), FetchError> {
        sha2::Digest::update(&mut self.hasher, bytes);
        self.file
            .write_all(bytes)
            .map_err(|source| FetchError::Cache {
                path: self.path.to_path_buf(),
                source,
            })
    }
}

impl Remote {
    /// The client for `url`: plain HTTP(S) (TLS verified, plain http only when the URL says so; its
    /// user-info, query string and `settings.http_headers` sent with every request), or an object store
    /// configured from the environment.
    pub fn open(url: &RemoteUrl, settings: &FetchSettings) -> Result<Remote, FetchError> {
        let open = |source| RemoteError::Open {
            url: url.redacted(),
            source,
        };
        // An object store for s3://, gs://, az://; none for http(s), read with eraflow's own client.
        let (store, imds) = super::remote::object_store_of(url, base(url), Retry::none(), open)?;
        let backend = match store {
            Some(s) => Backend::Store(s as Arc<dyn ObjectStore>),
            None => Backend::Http(HttpSource::new(url, &settings.http_headers).map_err(|e| {
                FetchError::Http {
                    url: url.redacted(),
                    source: Box::new(e.without_url()),
                }
            })?),
        };
        Ok(Remote {
            url: url.clone(),
            backend,
            read_timeout: settings.read_timeout,
            imds,
        })
    }

    /// The URL (redacted) of `key`.
    fn shown(&self, key: &str) -> String {
        format!("{}/{key}", base(&self.url))
    }

    /// `op` (one request), retried with backoff on transport failures and stalls, until `stop`.
    async fn retried<T, Fut: Future<Output = Result<T, Attempt>>>(
        &self,
        shown: &str,
        stop: &dyn Fn() -> bool,
        mut op: impl FnMut() -> Fut,
    ) -> Result<T, FetchError> {
        let mut attempt = 0;
        loop {
            if stop() {
                return Err(FetchError::Stopped { url: shown.into() });
            }
            let e = match guard(op(), Some(self.read_timeout), stop).await {
                Ok(Ok(v)) => return Ok(v),
                Ok(Err(Attempt::Fatal(e))) => return Err(e),
                Ok(Err(Attempt::Retry(e))) => e,
                Err(Cut::Stopped) => return Err(FetchError::Stopped { url: shown.into() }),
                Err(Cut::TimedOut(s)) => Box::new(Stalled(s)),
            };
            attempt += 1;
            if attempt >= ATTEMPTS {
                return Err(FetchError::Failed {
                    url: shown.into(),
                    attempts: attempt,
                    source: e,
                });
            }
            backoff(attempt, stop).await;
        }
    }

    /// A small file (a listing) whole; `None` when there is none (the server answers a status of `absent`,
    /// or it is bigger than a listing may be).
    fn get_small(
        &self,
        key: &str,
        absent: &[u16],
        stop: &dyn Fn() -> bool,
    ) -> Result<Option<Vec<u8>>, FetchError> {
        let shown = &self.shown(key);
        runtime()?.block_on(self.retried(shown, stop, || async move {
            match &self.backend {
                Backend::Http(h) => h
                    .get_small(key, LISTING_BYTES, absent)
                    .await
                    .map_err(Attempt::http(shown)),
                Backend::Store(s) => match s.get(&ObjPath::from(key)).await {
                    Ok(r) if r.meta.size > LISTING_BYTES => Ok(None),
                    Ok(r) => r
                        .bytes()
                        .await
                        .map(|b| Some(b.to_vec()))
                        .map_err(Attempt::store(shown, self.imds.as_deref())),
                    Err(object_store::Error::NotFound { .. }) => Ok(None),
                    Err(e) => Err(Attempt::store(shown, self.imds.as_deref())(e)),
                },
            }
        }))
    }

    /// The archive files the URL names: itself when it names one, else the files its `checksums.txt` lists
    /// (with their sha256), else those an HTML index (HTTP) or a listing (object stores) shows. A listed name
    /// that could lead outside the cache folder fails the listing; other names that are not archive names
    /// are skipped, said once. Requests stop when `stop` says so.
    pub fn list(&self, stop: &dyn Fn() -> bool) -> Result<Vec<RemoteFile>, FetchError> {
        let path = self.url.path().trim_end_matches('/');
        let file = |name: &str, sha: Option<String>, dir: &str| {
            let key = match dir.is_empty() {
                true => name.to_string(),
                false => format!("{dir}/{name}"),
            };
            RemoteFile {
                name: name.into(),
                url: self.shown(&key),
                sha256: sha,
                key,
            }
        };
        let last = path.rsplit('/').next().unwrap_or("");
        if ArchiveName::parse(last).is_ok() && !unsafe_name(last) {
            let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
            let sums = self.checksums(dir, stop)?;
            let sha = sums.and_then(|s| s.into_iter().find(|(_, n)| n == last).map(|(h, _)| h));
            return Ok(vec![file(last, sha, dir)]);
        }
        let listed: Vec<(String, Option<String>)> = match self.checksums(path, stop)? {
            Some(sums) => sums.into_iter().map(|(h, n)| (n, Some(h))).collect(),
            None => self
                .index(path, stop)?
                .into_iter()
                .map(|n| (n, None))
                .collect(),
        };
        let mut out = Vec::new();
        let (mut skipped, mut odd) = (Vec::new(), Vec::new());
        for (name, sha) in listed {
            if unsafe_name(&name) {
                return Err(FetchError::BadName {
                    url: self.url.redacted(),
                    name,
                });
            }
            match ArchiveName::parse(&name) {
                Ok(_) => out.push(file(&name, sha, path)),
                // An archive's extension on a name that does not say its network, era and root: most likely a
                // renamed archive the user expected to be read, so it is told apart from a README.
                Err(_) if ArchiveKind::of(Path::new(&name)).is_some() => odd.push(name),
                Err(_) => skipped.push(name),
            }
        }
        for v in [&mut skipped, &mut odd] {
            v.sort();
            v.dedup();
        }
        if !skipped.is_empty() {
            tracing::warn!(
                "{}: skipped {} listed names that are not era1, ere or era file names: {}",
                self.url,
                skipped.len(),
                skipped.join(", ")
            );
        }
        if !odd.is_empty() {
            tracing::warn!(
                "{}: skipped {} listed archive files whose names are not canonical archive names \
                 (expected {}): {}",
                self.url,
                odd.len(),
                ArchiveName::PATTERN,
                odd.join(", ")
            );
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        out.dedup_by(|a, b| a.name == b.name);
        if out.is_empty() {
            return Err(FetchError::Empty(self.url.redacted()));
        }
        Ok(out)
    }

    /// `<dir>/checksums.txt` as (sha256, name) pairs, when there is one.
    fn checksums(
        &self,
        dir: &str,
        stop: &dyn Fn() -> bool,
    ) -> Result<Option<Vec<(String, String)>>, FetchError> {
        let key = match dir.is_empty() {
            true => "checksums.txt".to_string(),
            false => format!("{dir}/checksums.txt"),
        };
        // A token or signature that opens the files may not open a listing beside them: no checksums then.
        let Some(text) = self.get_small(&key, &[401, 403, 404, 410], stop)? else {
            return Ok(None);
        };
        let text = String::from_utf8_lossy(&text);
        let mut out = Vec::new();
        for line in text.lines() {
            // `<sha256><space><space or *><name>`: the name is the rest of the line, spaces and all.
            let Some((sha, rest)) = line.trim_start().split_once(char::is_whitespace) else {
                continue;
            };
            let name = rest.trim_start().trim_start_matches('*').trim_end();
            if sha.len() == 64 && sha.bytes().all(|b| b.is_ascii_hexdigit()) && !name.is_empty() {
                out.push((sha.to_ascii_lowercase(), name.to_string()));
            }
        }
        Ok(Some(out))
    }

    /// Names under `dir`: an object-store listing, or the `href`s of an HTTP index page that name a file with an
    /// archive's extension in the page's own folder (other links are the page's navigation, not listed files;
    /// a non-canonical archive name is kept, for [`Self::list`] to say it was skipped).
    fn index(&self, dir: &str, stop: &dyn Fn() -> bool) -> Result<Vec<String>, FetchError> {
        if let Backend::Http(_) = &self.backend {
            let key = match dir.is_empty() {
                true => String::new(),
                false => format!("{dir}/"),
            };
            let page = self.get_small(&key, &[404, 410], stop)?.unwrap_or_default();
            let page = String::from_utf8_lossy(&page);
            return Ok(page
                .split("href=\"")
                .skip(1)
                .filter_map(|s| s.split(['"', '?', '#']).next())
                .filter_map(|h| crate::store::url::percent_decode(h.trim_start_matches("./")))
                .filter(|h| !unsafe_name(h) && ArchiveKind::of(Path::new(h)).is_some())
                .collect());
        }
        let Backend::Store(store) = &self.backend else {
            return Ok(Vec::new());
        };
        let key = &ObjPath::from(dir);
        let shown = &self.shown(dir);
        let l = runtime()?.block_on(self.retried(shown, stop, || async move {
            store
                .list_with_delimiter(Some(key))
                .await
                .map_err(Attempt::store(shown, self.imds.as_deref()))
        }))?;
        Ok(l.objects
            .iter()
            .filter_map(|o| o.location.filename())
            .map(str::to_string)
            .collect())
    }

    /// The size of `f` as the store declares it (a HEAD request): what the cache reserves for it.
    pub fn size(&self, f: &RemoteFile, stop: &dyn Fn() -> bool) -> Result<u64, FetchError> {
        runtime()?.block_on(self.retried(&f.url, stop, || async move {
            match &self.backend {
                Backend::Http(h) => h.size(&f.key).await.map_err(Attempt::http(&f.url)),
                Backend::Store(s) => s
                    .head(&ObjPath::from(f.key.as_str()))
                    .await
                    .map(|m| m.size)
                    .map_err(Attempt::store(&f.url, self.imds.as_deref())),
            }
        }))
    }

    /// One GET of `range` of `f` (all of it when `None`), on one of the run's connections.
    async fn open_body(
        &self,
        f: &RemoteFile,
        range: Option<Range<u64>>,
        dl: &Downloads,
    ) -> Result<Body, Attempt> {
        let stop = || dl.stopped();
        let permit = match guard(dl.connections.clone().acquire_owned(), None, &stop).await {
            Ok(Ok(p)) => Some(p),
            Ok(Err(_)) => None,
            Err(_) => return Err(Attempt::Fatal(FetchError::Stopped { url: f.url.clone() })),
        };
        match &self.backend {
            Backend::Http(h) => {
                let r = h.get(&f.key, range).await.map_err(Attempt::http(&f.url))?;
                Ok(Body {
                    whole: r.whole,
                    total: r.total,
                    inner: BodyInner::Http(r),
                    _permit: permit,
                })
            }
            Backend::Store(s) => {
                let opts = GetOptions {
                    range: range.map(GetRange::Bounded),
                    ..GetOptions::default()
                };
                let r = s
                    .get_opts(&ObjPath::from(f.key.as_str()), opts)
                    .await
                    .map_err(Attempt::store(&f.url, self.imds.as_deref()))?;
                Ok(Body {
                    whole: false,
                    total: Some(r.meta.size),
                    inner: BodyInner::Store(r.into_stream()),
                    _permit: permit,
                })
            }
        }
    }

    /// A GET of `range` of `f` that must be answered with that range of a file of `size` bytes.
    async fn open_range(
        &self,
        f: &RemoteFile,
        range: Range<u64>,
        size: u64,
        dl: &Downloads,
    ) -> Result<Body, Attempt> {
        let (start, end) = (range.start, range.end);
        let body = self.open_body(f, Some(range), dl).await?;
        if body.whole {
            return Err(Attempt::Fatal(FetchError::Http {
                url: f.url.clone(),
                source: Box::new(super::http::BadResponse(format!(
                    "asked for bytes {start}..{end}, the server sent the whole file"
                ))),
            }));
        }
        match body.total {
            Some(t) if t == size => Ok(body),
            found => Err(Attempt::Fatal(FetchError::SizeChanged {
                url: f.url.clone(),
                declared: size,
                found: found.unwrap_or(0),
                by: "a ranged response",
            })),
        }
    }

    /// Reads `body` (bytes from `*at` on, at most up to `end`) into `sink` at their offsets, advancing `*at`.
    /// More than asked for is cut off and fails the file; a stall or a transport failure is an attempt to
    /// retry.
    async fn drain(
        &self,
        f: &RemoteFile,
        body: &mut Body,
        at: &mut u64,
        end: u64,
        dl: &Downloads,
        sink: &mut Sink<'_>,
    ) -> Result<(), Attempt> {
        let stop = || dl.stopped();
        let began = *at;
        loop {
            let piece = match guard(body.next(&f.url), Some(self.read_timeout), &stop).await {
                Ok(Ok(Some(b))) => b,
                Ok(Ok(None)) => return Ok(()),
                Ok(Err(a)) => return Err(a),
                Err(Cut::Stopped) => {
                    return Err(Attempt::Fatal(FetchError::Stopped { url: f.url.clone() }))
                }
                Err(Cut::TimedOut(s)) => return Err(Attempt::Retry(Box::new(Stalled(s)))),
            };
            if *at + piece.len() as u64 > end {
                return Err(Attempt::Fatal(FetchError::Overlong {
                    url: f.url.clone(),
                    start: began,
                    end,
                }));
            }
            sink(*at, &piece).map_err(Attempt::Fatal)?;
            *at += piece.len() as u64;
        }
    }

    /// Fetches `range` of `f` into `sink`, each attempt asking for what is still missing (a cut-off response
    /// resumes where it stopped); `first` is a response already open for the whole range.
    async fn fetch_range(
        &self,
        f: &RemoteFile,
        range: Range<u64>,
        size: u64,
        dl: &Downloads,
        mut first: Option<Body>,
        sink: &mut Sink<'_>,
    ) -> Result<(), FetchError> {
        let stop = || dl.stopped();
        let mut at = range.start;
        let mut attempt = 0;
        while at < range.end {
            if stop() {
                return Err(FetchError::Stopped { url: f.url.clone() });
            }
            let began = at;
            let r: Result<(), Attempt> = async {
                let mut body = match first.take() {
                    Some(b) => b,
                    None => {
                        self.timed(f, self.open_range(f, at..range.end, size, dl), &stop)
                            .await?
                    }
                };
                self.drain(f, &mut body, &mut at, range.end, dl, sink).await
            }
            .await;
            let reason = match r {
                Ok(()) if at == range.end => break,
                Ok(()) => None,
                Err(Attempt::Fatal(e)) => return Err(e),
                Err(Attempt::Retry(e)) => Some(e),
            };
            attempt += 1;
            if attempt >= ATTEMPTS {
                return Err(match reason {
                    // Nothing came, every time: say why.
                    Some(source) if at == began => FetchError::Failed {
                        url: f.url.clone(),
                        attempts: attempt,
                        source,
                    },
                    // Bytes came, then the body stopped: say how many of how many.
                    source => FetchError::Short {
                        url: f.url.clone(),
                        start: began,
                        end: range.end,
                        found: at - began,
                        attempts: attempt,
                        source,
                    },
                });
            }
            backoff(attempt, &stop).await;
        }
        Ok(())
    }

    /// `open` (one request for `f`) within the read timeout, until `stop`: a stall is retried, a stop is final.
    async fn timed(
        &self,
        f: &RemoteFile,
        open: impl Future<Output = Result<Body, Attempt>>,
        stop: &dyn Fn() -> bool,
    ) -> Result<Body, Attempt> {
        match guard(open, Some(self.read_timeout), stop).await {
            Ok(b) => b,
            Err(Cut::Stopped) => Err(Attempt::Fatal(FetchError::Stopped { url: f.url.clone() })),
            Err(Cut::TimedOut(s)) => Err(Attempt::Retry(Box::new(Stalled(s)))),
        }
    }

    /// The whole file from a server that ignores ranges: one plain GET, bounded by the declared size, hashed
    /// as it arrives; a failed attempt starts again from the first byte.
    async fn plain(
        &self,
        f: &RemoteFile,
        size: u64,
        out: &mut Sequential<'_>,
        dl: &Downloads,
        mut first: Option<Body>,
    ) -> Result<(), FetchError> {
        let stop = || dl.stopped();
        let mut attempt = 0;
        loop {
            if stop() {
                return Err(FetchError::Stopped { url: f.url.clone() });
            }
            out.file.rewind().map_err(|source| FetchError::Cache {
                path: out.path.to_path_buf(),
                source,
            })?;
            out.hasher = <sha2::Sha256 as sha2::Digest>::new();
            let mut at = 0;
            let r: Result<(), Attempt> = async {
                let mut body = match first.take() {
                    Some(b) => b,
                    None => self.timed(f, self.open_body(f, None, dl), &stop).await?,
                };
                if let Some(found) = body.total.filter(|&t| t != size) {
                    return Err(Attempt::Fatal(FetchError::SizeChanged {
                        url: f.url.clone(),
                        declared: size,
                        found,
                        by: "a whole response",
                    }));
                }
                self.drain(f, &mut body, &mut at, size, dl, &mut |_, b| out.put(b))
                    .await
            }
            .await;
            let reason = match r {
                Ok(()) if at == size => return Ok(()),
                Ok(()) => None,
                Err(Attempt::Fatal(e)) => return Err(e),
                Err(Attempt::Retry(e)) => Some(e),
            };
            attempt += 1;
            if attempt >= ATTEMPTS {
                return Err(FetchError::Short {
                    url: f.url.clone(),
                    start: 0,
                    end: size,
                    found: at,
                    attempts: attempt,
                    source: reason,
                });
            }
            backoff(attempt, &stop).await;
        }
    }

    /// The chunks of a big file, up to the run's connection limit at once (the first on `first`, the answer
    /// already open), each written at its offset; the hash follows the written prefix as it grows (read back
    /// from the page cache).
    async fn parallel(
        &self,
        f: &RemoteFile,
        size: u64,
        out: &mut Sequential<'_>,
        dl: &Downloads,
        first: Body,
    ) -> Result<(), FetchError> {
        let cache = |source| FetchError::Cache {
            path: out.path.to_path_buf(),
            source,
        };
        let path = out.path;
        let file = out.file.positioned().map_err(cache)?;
        let mut first = Some(first);
        let chunks: Vec<(Range<u64>, Option<Body>)> = (0..size.div_ceil(CHUNK_BYTES))
            .map(|i| {
                let r = i * CHUNK_BYTES..((i + 1) * CHUNK_BYTES).min(size);
                (r, first.take())
            })
            .collect();
        let mut hashed = 0;
        let mut done = std::collections::BTreeMap::new();
        let mut parts =
            futures_util::stream::iter(chunks.into_iter().map(|(r, first)| async move {
                let mut sink = |at: u64, b: &[u8]| {
                    write_at(file, b, at).map_err(|source| FetchError::Cache {
                        path: path.to_path_buf(),
                        source,
                    })
                };
                self.fetch_range(f, r.clone(), size, dl, first, &mut sink)
                    .await
                    .map(|()| r)
            }))
            .buffer_unordered(dl.limit);
        let mut buf = vec![0u8; 1 << 20];
        while let Some(r) = parts.next().await {
            // The first failure fails the file; dropping the stream ends the other ranges.
            let r = r?;
            done.insert(r.start, r.end);
            while let Some(end) = done.remove(&hashed) {
                while hashed < end {
                    let n = (end - hashed).min(buf.len() as u64) as usize;
                    read_at(file, &mut buf[..n], hashed).map_err(cache)?;
                    sha2::Digest::update(&mut out.hasher, &buf[..n]);
                    hashed += n as u64;
                }
            }
        }
        Ok(())
    }

    /// Fetches the `size` bytes of `f` into `dest` (under a temporary name beside it until they are whole and
    /// hash to the published sha256; ranges, or one plain GET from a server that ignores them). A failed,
    /// stopped or mismatching download leaves nothing behind: the temporary file is removed.
    pub fn fetch(
        &self,
        f: &RemoteFile,
        size: u64,
        dest: &Path,
        dl: &Downloads,
    ) -> Result<(), FetchError> {
        let cache = |source| FetchError::Cache {
            path: dest.to_path_buf(),
            source,
        };
        let mut file = AtomicFile::create(dest).map_err(cache)?;
        let mut out = Sequential {
            file: &mut file,
            hasher: <sha2::Sha256 as sha2::Digest>::new(),
            path: dest,
        };
        runtime()?.block_on(self.download(f, size, &mut out, dl))?;
        let actual = hex::encode(sha2::Digest::finalize(out.hasher));
        if let Some(expected) = &f.sha256 {
            if *expected != actual {
                return Err(FetchError::Checksum {
                    url: f.url.clone(),
                    expected: expected.clone(),
                    actual,
                });
            }
        }
        file.commit().map_err(cache)
    }

    /// The first [`SKELETON_HEAD`] and last [`SKELETON_TAIL`] bytes of `f` at their offsets in a sparse local
    /// file of its size at `dest`: enough to read an archive's index (what planning a prune needs) without
    /// fetching it. Needs a server that honours ranges. Returns the size.
    pub fn skeleton(&self, f: &RemoteFile, dest: &Path, dl: &Downloads) -> Result<u64, FetchError> {
        let cache = |source| FetchError::Cache {
            path: dest.to_path_buf(),
            source,
        };
        let size = self.size(f, &|| dl.stopped())?;
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(dest)
            .map_err(cache)?;
        file.set_len(size).map_err(cache)?;
        let head = 0..size.min(SKELETON_HEAD);
        let tail = size.saturating_sub(SKELETON_TAIL).max(head.end)..size;
        runtime()?.block_on(async {
            for r in [head, tail].into_iter().filter(|r| !r.is_empty()) {
                let mut sink = |at: u64, b: &[u8]| write_at(&file, b, at).map_err(cache);
                self.fetch_range(f, r, size, dl, None, &mut sink).await?;
            }
            Ok::<(), FetchError>(())
        })?;
        Ok(size)
    }

    async fn download(
        &self,
        f: &RemoteFile,
        size: u64,
        out: &mut Sequential<'_>,
        dl: &Downloads,
    ) -> Result<(), FetchError> {
        if size == 0 {
            return Ok(());
        }
        let stop = || dl.stopped();
        let first_end = size.min(CHUNK_BYTES);
        // The first answer tells whether the server honours ranges.
        let first = self
            .retried(&f.url, &stop, || self.open_body(f, Some(0..first_end), dl))
            .await?;
        if first.whole {
            return self.plain(f, size, out, dl, Some(first)).await;
        }
        if first.total != Some(size) {
            return Err(FetchError::SizeChanged {
                url: f.url.clone(),
                declared: size,
                found: first.total.unwrap_or(0),
                by: "a ranged response",
            });
        }
        if size >= PARALLEL_FROM && dl.limit > 1 {
            // Every chunk at once, the first on the answer already open: waiting for it before asking for the
            // others would make each big file cost two chunk times on a slow connection instead of one.
            return self.parallel(f, size, out, dl, first).await;
        }
        self.fetch_range(f, 0..first_end, size, dl, Some(first), &mut |_, b| {
            out.put(b)
        })
        .await?;
        let mut at = first_end;
        while at < size {
            let end = (at + CHUNK_BYTES).min(size);
            self.fetch_range(f, at..end, size, dl, None, &mut |_, b| out.put(b))
                .await?;
            at = end;
        }
        Ok(())
    }
}

/// Writes `bytes` at `at` of `file` (a seek, then a write: callers on one thread, as the futures of one
/// download are).
fn write_at(file: &std::fs::File, bytes: &[u8], at: u64) -> std::io::Result<()> {
    use std::io::Seek;
    let mut f = file;
    f.seek(std::io::SeekFrom::Start(at))?;
    f.write_all(bytes)
}

/// Reads `buf.len()` bytes at `at` of `file`.
fn read_at(file: &std::fs::File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    use std::io::{Read, Seek};
    let mut f = file;
    f.seek(std::io::SeekFrom::Start(at))?;
    f.read_exact(buf)
}
