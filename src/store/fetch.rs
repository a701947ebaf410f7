//! Remote inputs: listing an HTTP(S) mirror (a `checksums.txt` of `<sha256>  <file name>` lines beside the
//! files, else an HTML index page), a single file URL, or an object-store prefix (`s3://`, `gs://`, `az://`),
//! and fetching each file into a local cache folder: ranged GETs of bounded chunks, read as they arrive and
//! written straight to the cache, each retried with backoff on a transport failure (so an interrupted download
//! resumes where it stopped), the bytes hashed while they arrive and checked against the published sha256. A
//! partial or mismatching download is never handed on: that file fails, naming the URL, expected and actual.
//!
//! Nothing from outside gets further than it should. A listed name is a file name only: one with a path
//! separator, `..`, or not an era/era1 name ([`crate::formats::ArchiveName::parse`]) is refused, so nothing is
//! written outside the cache folder. A response is trusted for no more than was asked: one that sends more
//! than its range (whatever its Content-Length says, an endless body included) is cut off there, one whose
//! Content-Range gives another total size than declared fails, and a server that ignores ranges is refused
//! by object_store before its body is read; so memory stays at one network buffer per download. HTTP
//! redirects are followed only within the mirror's origin (`SameOrigin`).

use super::remote::RemoteError;
use super::url::{RemoteUrl, Scheme};
use crate::formats::ArchiveName;
use object_store::path::Path as ObjPath;
use object_store::{ClientOptions, GetOptions, GetRange, ObjectStore, ObjectStoreExt};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Bytes per ranged GET.
pub const CHUNK_BYTES: u64 = 8 << 20;
/// Attempts per chunk before the file fails.
pub const ATTEMPTS: u32 = 6;

/// Why a remote input could not be listed or fetched.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// The store could not be set up or a request failed.
    #[error(transparent)]
    Remote(#[from] RemoteError),
    /// A listed name that is not a plain era/era1 file name.
    #[error("{url}: refusing listed name '{name}' (not an era or era1 file name)")]
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
    #[error("{url}: declared size {declared} bytes, but a ranged response says {found}")]
    SizeChanged {
        /// The file, redacted.
        url: String,
        /// The size declared (HEAD).
        declared: u64,
        /// The total in the response's Content-Range.
        found: u64,
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
        source: Option<Box<object_store::Error>>,
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
}

/// How one ranged GET failed.
enum Attempt {
    /// A failed request or a body cut off: worth another attempt.
    Retry(object_store::Error),
    /// The server said or sent something no retry can mend.
    Fatal(FetchError),
}

impl Attempt {
    /// Transport failures (connect, request, timeout, a body cut off) are retried; what the server answered
    /// and object_store refused (no Content-Length, range not supported, a redirect elsewhere, a status it
    /// already retried) would only be answered again.
    fn of(e: object_store::Error) -> Attempt {
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
                    return Attempt::Retry(e);
                }
                break;
            }
            cause = c.source();
        }
        Attempt::Fatal(FetchError::Remote(RemoteError::Request {
            location: String::new(),
            source: e,
        }))
    }
}

/// Waits before attempt `attempt` (0.2 s, doubling, at most 6.4 s), in short steps so that `stop` is heard.
fn backoff(attempt: u32, stop: &AtomicBool) {
    let until = std::time::Instant::now() + Duration::from_millis(100 << attempt.min(6));
    while std::time::Instant::now() < until && !stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The HTTP client of a mirror: object_store's reqwest client with its settings (timeouts, no transparent
/// decompression, TLS verified, plain http only when the URL says so), except that a redirect is followed only
/// within the mirror's own origin (scheme, host and port: `/dir` to `/dir/`); one to anywhere else fails the
/// request, naming where it pointed, so bytes from another host are never taken for the mirror's.
#[derive(Debug)]
struct SameOrigin {
    /// `scheme://host[:port]` of the mirror.
    origin: String,
    allow_http: bool,
}

/// A redirect to another host, refused.
#[derive(Debug, thiserror::Error)]
#[error("redirect to another host refused: {0}")]
struct RedirectRefused(String);

/// `scheme://host:port` of a URL, the port spelled out (so `http://h` and `http://h:80` are one origin).
fn origin_of(u: &reqwest::Url) -> String {
    format!(
        "{}://{}:{}",
        u.scheme(),
        u.host_str().unwrap_or_default(),
        u.port_or_known_default().unwrap_or_default()
    )
}

impl object_store::client::HttpConnector for SameOrigin {
    fn connect(&self, _: &ClientOptions) -> object_store::Result<object_store::client::HttpClient> {
        let origin = reqwest::Url::parse(&self.origin)
            .map(|u| origin_of(&u))
            .unwrap_or_default();
        let policy = reqwest::redirect::Policy::custom(move |a| {
            let to = origin_of(a.url());
            if to != origin {
                // Only where it pointed, without user-info or query string.
                let shown = format!("{to}{}", a.url().path());
                a.error(RedirectRefused(shown))
            } else if a.previous().len() >= 10 {
                a.error(RedirectRefused("more than 10 redirects".into()))
            } else {
                a.follow()
            }
        });
        // As object_store's defaults (client/mod.rs, `ClientOptions::client`).
        let client = reqwest::Client::builder()
            .redirect(policy)
            .user_agent(concat!("eraflow/", env!("CARGO_PKG_VERSION")))
            .timeout(Duration::from_secs(30))
            .connect_timeout(Duration::from_secs(5))
            .http1_only()
            .no_gzip()
            .no_brotli()
            .no_zstd()
            .no_deflate()
            .https_only(!self.allow_http)
            .build()
            .map_err(|e| object_store::Error::Generic {
                store: "HTTP",
                source: Box::new(e),
            })?;
        Ok(object_store::client::HttpClient::new(client))
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
    key: ObjPath,
}

/// A mirror or prefix, and the client that reads it.
pub struct Remote {
    url: RemoteUrl,
    store: Arc<dyn ObjectStore>,
    rt: tokio::runtime::Runtime,
    /// The instance metadata endpoint, when it is the only source of S3 credentials.
    imds: Option<String>,
}

fn base(url: &RemoteUrl) -> String {
    format!("{}://{}", url.scheme().name(), url.authority())
}

/// Whether `name` may be written into the cache: a plain era or era1 file name.
pub fn acceptable_name(name: &str) -> bool {
    !name.is_empty()
        && !name.contains(['/', '\\', '\0'])
        && !name.contains("..")
        && !name.starts_with('.')
        && ArchiveName::parse(name).is_ok()
}

impl Remote {
    /// The client for `url`, configured from the environment (object stores) or plain (HTTP; TLS verified,
    /// plain http only when the URL says so).
    pub fn open(url: &RemoteUrl) -> Result<Remote, RemoteError> {
        let open = |source| RemoteError::Open {
            url: url.redacted(),
            source,
        };
        super::tls::install();
        let (store, imds) = super::remote::object_store_of(url, base(url), open)?;
        let store: Arc<dyn ObjectStore> = match store {
            Some(s) => s,
            None => Arc::new(
                object_store::http::HttpBuilder::new()
                    .with_url(base(url))
                    .with_client_options(
                        ClientOptions::new().with_allow_http(url.scheme() == Scheme::Http),
                    )
                    .with_http_connector(SameOrigin {
                        origin: base(url),
                        allow_http: url.scheme() == Scheme::Http,
                    })
                    .build()
                    .map_err(open)?,
            ),
        };
        let rt = super::remote::runtime()?;
        Ok(Remote {
            url: url.clone(),
            store,
            rt,
            imds,
        })
    }

    fn shown(&self, key: &ObjPath) -> String {
        format!("{}/{key}", base(&self.url))
    }

    fn request(&self, key: &ObjPath, source: object_store::Error) -> RemoteError {
        super::remote::request_error(self.shown(key), self.imds.as_deref(), source)
    }

    fn get_small(&self, key: &ObjPath) -> Result<Option<Vec<u8>>, RemoteError> {
        self.rt.block_on(async {
            match self.store.get(key).await {
                Ok(r) => {
                    if r.meta.size > 64 << 20 {
                        return Ok(None);
                    }
                    Ok(Some(Vec::from(
                        r.bytes().await.map_err(|e| self.request(key, e))?,
                    )))
                }
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(e) => Err(self.request(key, e)),
            }
        })
    }

    /// The archive files the URL names: itself when it names one, else the files its `checksums.txt` lists
    /// (with their sha256), else those an HTML index (HTTP) or a listing (object stores) shows.
    pub fn list(&self) -> Result<Vec<RemoteFile>, FetchError> {
        let path = self.url.path().trim_end_matches('/');
        let file = |name: &str, sha: Option<String>, dir: &str| -> Result<RemoteFile, FetchError> {
            if !acceptable_name(name) {
                return Err(FetchError::BadName {
                    url: self.url.redacted(),
                    name: name.into(),
                });
            }
            let key = ObjPath::from(match dir.is_empty() {
                true => name.to_string(),
                false => format!("{dir}/{name}"),
            });
            Ok(RemoteFile {
                name: name.into(),
                url: self.shown(&key),
                sha256: sha,
                key,
            })
        };
        let last = path.rsplit('/').next().unwrap_or("");
        if ArchiveName::parse(last).is_ok() {
            let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
            let sums = self.checksums(dir)?;
            let sha = sums.and_then(|s| s.into_iter().find(|(_, n)| n == last).map(|(h, _)| h));
            return Ok(vec![file(last, sha, dir)?]);
        }
        let mut out = Vec::new();
        if let Some(sums) = self.checksums(path)? {
            for (sha, name) in sums {
                out.push(file(&name, Some(sha), path)?);
            }
        } else {
            for name in self.index(path)? {
                out.push(file(&name, None, path)?);
            }
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        out.dedup_by(|a, b| a.name == b.name);
        if out.is_empty() {
            return Err(FetchError::Empty(self.url.redacted()));
        }
        Ok(out)
    }

    /// `<dir>/checksums.txt` as (sha256, name) pairs, when there is one.
    fn checksums(&self, dir: &str) -> Result<Option<Vec<(String, String)>>, FetchError> {
        let key = ObjPath::from(match dir.is_empty() {
            true => "checksums.txt".to_string(),
            false => format!("{dir}/checksums.txt"),
        });
        let Some(text) = self.get_small(&key)? else {
            return Ok(None);
        };
        let text = String::from_utf8_lossy(&text);
        let mut out = Vec::new();
        for line in text.lines() {
            let mut parts = line.split_whitespace();
            let (Some(sha), Some(name)) = (parts.next(), parts.next()) else {
                continue;
            };
            let name = name.trim_start_matches('*');
            if sha.len() == 64 && sha.bytes().all(|b| b.is_ascii_hexdigit()) {
                out.push((sha.to_ascii_lowercase(), name.to_string()));
            }
        }
        Ok(Some(out))
    }

    /// Archive names under `dir`: an object-store listing, or the `href`s of an HTTP index page.
    fn index(&self, dir: &str) -> Result<Vec<String>, FetchError> {
        let key = ObjPath::from(dir);
        if matches!(self.url.scheme(), Scheme::Http | Scheme::Https) {
            let page = self.get_small(&key)?.unwrap_or_default();
            let page = String::from_utf8_lossy(&page);
            return Ok(page
                .split("href=\"")
                .skip(1)
                .filter_map(|s| s.split('"').next())
                .filter(|h| h.ends_with(".era1") || h.ends_with(".era"))
                .map(str::to_string)
                .collect());
        }
        let l = self
            .rt
            .block_on(self.store.list_with_delimiter(Some(&key)))
            .map_err(|e| self.request(&key, e))?;
        Ok(l.objects
            .iter()
            .filter_map(|o| o.location.filename())
            .filter(|n| n.ends_with(".era1") || n.ends_with(".era"))
            .map(str::to_string)
            .collect())
    }

    /// One ranged GET of `range` of `f` (of declared size `size`), its body handed to `sink` as it arrives.
    /// A response that says the file has another size, or that sends more than the range (a lying
    /// Content-Length, a server ignoring the range, an endless body), is cut off there and fails the file; a
    /// failed request or a body that stops early is for the caller to retry.
    async fn read_range(
        &self,
        f: &RemoteFile,
        range: std::ops::Range<u64>,
        size: u64,
        mut sink: impl FnMut(&[u8]) -> Result<(), FetchError>,
    ) -> Result<(), Attempt> {
        use futures_util::StreamExt;
        let opts = GetOptions {
            range: Some(GetRange::Bounded(range.clone())),
            ..GetOptions::default()
        };
        let r = self
            .store
            .get_opts(&f.key, opts)
            .await
            .map_err(Attempt::of)?;
        if r.meta.size != size {
            return Err(Attempt::Fatal(FetchError::SizeChanged {
                url: f.url.clone(),
                declared: size,
                found: r.meta.size,
            }));
        }
        let want = range.end - range.start;
        let mut got = 0u64;
        let mut body = r.into_stream();
        while let Some(part) = body.next().await {
            let bytes = part.map_err(Attempt::of)?;
            if got + bytes.len() as u64 > want {
                return Err(Attempt::Fatal(FetchError::Overlong {
                    url: f.url.clone(),
                    start: range.start,
                    end: range.end,
                }));
            }
            got += bytes.len() as u64;
            sink(&bytes).map_err(Attempt::Fatal)?;
        }
        Ok(())
    }

    /// The size of `f` as the store declares it (a HEAD request): what the cache reserves for it.
    pub fn size(&self, f: &RemoteFile) -> Result<u64, FetchError> {
        let meta = self
            .rt
            .block_on(self.store.head(&f.key))
            .map_err(|e| self.request(&f.key, e))?;
        Ok(meta.size)
    }

    /// Fetches the `size` bytes of `f` into `cache_dir/<name>` (ranged chunks, each retried with backoff),
    /// checks their sha256 against the published one, and returns the local path. A failed, stopped or
    /// mismatching download leaves nothing under the final name. `stop` is checked between chunks, so a run
    /// that ends does not wait for a whole file.
    pub fn fetch(
        &self,
        f: &RemoteFile,
        size: u64,
        cache_dir: &Path,
        stop: &AtomicBool,
    ) -> Result<PathBuf, FetchError> {
        let cache = |path: &Path, source| FetchError::Cache {
            path: path.to_path_buf(),
            source,
        };
        std::fs::create_dir_all(cache_dir).map_err(|e| cache(cache_dir, e))?;
        let dest = cache_dir.join(&f.name);
        let mut file = crate::fsutil::AtomicFile::create(&dest).map_err(|e| cache(&dest, e))?;
        let mut hasher = <sha2::Sha256 as sha2::Digest>::new();
        let mut at = 0u64;
        while at < size {
            let end = (at + CHUNK_BYTES).min(size);
            let short = |start, at, source| FetchError::Short {
                url: f.url.clone(),
                start,
                end,
                found: at - start,
                attempts: ATTEMPTS,
                source,
            };
            let mut attempt = 0;
            // Each attempt asks for what is still missing of the chunk: a cut-off response resumes where it
            // stopped.
            while at < end {
                if stop.load(Ordering::Relaxed) {
                    return Err(FetchError::Stopped { url: f.url.clone() });
                }
                let start = at;
                let r = self
                    .rt
                    .block_on(self.read_range(f, start..end, size, |bytes| {
                        sha2::Digest::update(&mut hasher, bytes);
                        file.write_all(bytes).map_err(|e| cache(&dest, e))?;
                        at += bytes.len() as u64;
                        Ok(())
                    }));
                match r {
                    Ok(()) if at == end => {}
                    Ok(()) | Err(Attempt::Retry(_)) if attempt + 1 < ATTEMPTS => {
                        attempt += 1;
                        backoff(attempt, stop);
                    }
                    Ok(()) => return Err(short(start, at, None)),
                    // Bytes came, then the body stopped: say how many of how many.
                    Err(Attempt::Retry(e)) if at > start => {
                        return Err(short(start, at, Some(Box::new(e))))
                    }
                    Err(Attempt::Retry(e)) => return Err(self.request(&f.key, e).into()),
                    Err(Attempt::Fatal(FetchError::Remote(RemoteError::Request {
                        source,
                        ..
                    }))) => return Err(self.request(&f.key, source).into()),
                    Err(Attempt::Fatal(e)) => return Err(e),
                }
            }
        }
        let actual = hex::encode(sha2::Digest::finalize(hasher));
        if let Some(expected) = &f.sha256 {
            if *expected != actual {
                return Err(FetchError::Checksum {
                    url: f.url.clone(),
                    expected: expected.clone(),
                    actual,
                });
            }
        }
        file.commit().map_err(|e| cache(&dest, e))?;
        Ok(dest)
    }
}
