//! An output store in an object store (`s3://bucket/prefix`, `gs://…`, `az://…`) through the `object_store`
//! crate, with exactly the layout of a local output directory. Outputs are written to a local staging
//! directory first, as for a local run, then uploaded: a single PUT, or a multipart upload completed only when
//! every part is in, so an object appears only when complete. Completion records are written with a
//! conditional put (put-if-absent, then replace-if-unchanged by ETag), and `manifest.json` is updated by ETag
//! too, so concurrent writers never lose each other's entries.
//!
//! Credentials, region and endpoint come from the environment variables `object_store` reads
//! (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`, `AWS_ENDPOINT_URL`, `AWS_ALLOW_HTTP`,
//! `GOOGLE_SERVICE_ACCOUNT`, `AZURE_STORAGE_ACCOUNT_NAME`, ...). object_store is async: a current-thread
//! tokio runtime lives here and is only entered between files, never on the workers' hot path.

use super::output::{record_matches, Check, OutputProof, Proven};
use super::url::{RemoteUrl, Scheme};
use crate::sink::manifest::{CompletionRecord, Manifest};
use object_store::path::Path as ObjPath;
use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, UpdateVersion};
use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::sync::{Mutex, PoisonError};

/// Files at most this big are uploaded with one PUT; bigger ones as a multipart upload of parts this size.
pub const PART_BYTES: usize = 16 << 20;

/// Why the object store could not be used.
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    /// The store could not be set up from the URL and the environment.
    #[error("{url}")]
    Open {
        /// The URL, redacted.
        url: String,
        /// The cause.
        #[source]
        source: object_store::Error,
    },
    /// The scheme cannot hold outputs.
    #[error("{url}: {} locations are inputs only", .scheme.name())]
    ReadOnly {
        /// The URL, redacted.
        url: String,
        /// Its scheme.
        scheme: Scheme,
    },
    /// A request failed.
    #[error("{location}")]
    Request {
        /// The object's URL, redacted.
        location: String,
        /// The cause.
        #[source]
        source: object_store::Error,
    },
    /// A staged file could not be read.
    #[error("{}", .path.display())]
    Local {
        /// The staged file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// An S3 endpoint of plain http without `AWS_ALLOW_HTTP=true` (object_store would refuse every request with
    /// "URL scheme is not allowed").
    #[error("{url}: the endpoint {endpoint} is plain http: set AWS_ALLOW_HTTP=true to use it (TLS is verified otherwise)")]
    PlainHttp {
        /// The URL, redacted.
        url: String,
        /// The endpoint (`AWS_ENDPOINT_URL`).
        endpoint: String,
    },
    /// No credentials in the environment, and the instance metadata service (the last place object_store looks)
    /// gave none: said once, as what it is, not as the metadata service's HTTP error on every request.
    #[error("{url}: no credentials found (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_WEB_IDENTITY_TOKEN_FILE, AWS_CONTAINER_CREDENTIALS_RELATIVE_URI, or run with an instance role; the instance metadata service at {endpoint} gave none: {reason})")]
    NoCredentials {
        /// The URL, redacted.
        url: String,
        /// The metadata service asked.
        endpoint: String,
        /// Its answer, in one line.
        reason: String,
    },
    /// The URL's backend was left out of this build (a cargo feature).
    #[error("{url}: this eraflow was built without {scheme} support (cargo feature `{feature}`; the default build has it)")]
    NotBuilt {
        /// The URL, redacted.
        url: String,
        /// Its scheme.
        scheme: &'static str,
        /// The cargo feature that brings it.
        feature: &'static str,
    },
    /// Another writer kept changing an object this one tried to update.
    #[error("{location}: changed by other writers on every one of {attempts} attempts")]
    Contended {
        /// The object's URL, redacted.
        location: String,
        /// Attempts made.
        attempts: usize,
    },
}

/// The runtime `object_store`'s async calls are driven on: one thread, its own, as eraflow's work runs on
/// rayon workers that block on each call.
pub fn runtime() -> Result<tokio::runtime::Runtime, RemoteError> {
    // Every remote path builds its runtime before its first client.
    super::tls::install();
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|source| RemoteError::Local {
            path: PathBuf::from("tokio runtime"),
            source,
        })
}

/// The S3 client of `base` from the environment, refused before any request when its endpoint is plain http
/// without `AWS_ALLOW_HTTP=true`; with the instance metadata endpoint when that is the only place credentials can
/// come from (so a failure there reads as "no credentials").
#[cfg(feature = "s3")]
pub(super) fn s3_builder(
    redacted: &str,
    base: String,
) -> Result<(object_store::aws::AmazonS3Builder, Option<String>), RemoteError> {
    use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey as K};
    use object_store::ClientConfigKey;
    let b = AmazonS3Builder::from_env().with_url(base);
    let get = |k: K| b.get_config_value(&k).filter(|v| !v.is_empty());
    let allow_http = get(K::Client(ClientConfigKey::AllowHttp)).is_some_and(|v| v == "true");
    if let Some(endpoint) = get(K::Endpoint).filter(|e| e.starts_with("http://")) {
        if !allow_http {
            return Err(RemoteError::PlainHttp {
                url: redacted.to_string(),
                endpoint,
            });
        }
    }
    let other_source = [
        K::AccessKeyId,
        K::WebIdentityTokenFile,
        K::ContainerCredentialsRelativeUri,
        K::ContainerCredentialsFullUri,
    ]
    .into_iter()
    .any(|k| get(k).is_some())
        || get(K::SkipSignature).is_some_and(|v| v == "true");
    let imds = (!other_source)
        .then(|| get(K::MetadataEndpoint).unwrap_or_else(|| "http://169.254.169.254".into()));
    Ok((b, imds))
}

/// The error of a request, or "no credentials" when it failed at the metadata service `imds` (the only source
/// of credentials there was).
pub(super) fn request_error(
    location: String,
    imds: Option<&str>,
    source: object_store::Error,
) -> RemoteError {
    if let Some(endpoint) = imds {
        let text = crate::error::render(&source);
        if text.contains(endpoint) {
            // The innermost cause in one line: "403 Forbidden: ...", "Connection refused", ...
            let mut inner: &dyn std::error::Error = &source;
            while let Some(s) = inner.source() {
                inner = s;
            }
            let reason: String = inner
                .to_string()
                .lines()
                .next()
                .unwrap_or("")
                .chars()
                .take(160)
                .collect();
            let url = location.split('/').take(3).collect::<Vec<_>>().join("/");
            return RemoteError::NoCredentials {
                url,
                endpoint: endpoint.to_string(),
                reason,
            };
        }
    }
    RemoteError::Request { location, source }
}

/// An object store (none for http(s)) and the instance metadata endpoint when it is S3's only credentials.
pub(super) type Opened = (Option<Arc<dyn ObjectStore>>, Option<String>);

/// The object store of an `s3://`, `gs://` or `az://` URL (`base`: scheme and bucket) from the environment, with
/// the instance metadata endpoint when that is S3's only source of credentials; `None` for http(s), which is no
/// object store. A backend this build was made without is [`RemoteError::NotBuilt`].
pub(super) fn object_store_of(
    url: &RemoteUrl,
    base: String,
    open: impl Fn(object_store::Error) -> RemoteError,
) -> Result<Opened, RemoteError> {
    // Before any client is built: reqwest (built without a provider of its own) panics otherwise.
    super::tls::install();
    // Used only by the backends this build has.
    let _ = (&base, &open);
    let not_built = |scheme: &'static str, feature: &'static str| RemoteError::NotBuilt {
        url: url.redacted(),
        scheme,
        feature,
    };
    let _ = &not_built; // used only by the backends this build lacks
    Ok(match url.scheme() {
        #[cfg(feature = "s3")]
        Scheme::S3 => {
            let (b, imds) = s3_builder(&url.redacted(), base)?;
            (Some(Arc::new(b.build().map_err(open)?)), imds)
        }
        #[cfg(not(feature = "s3"))]
        Scheme::S3 => return Err(not_built("S3", "s3")),
        #[cfg(feature = "gcs")]
        Scheme::Gs => (
            Some(Arc::new(
                object_store::gcp::GoogleCloudStorageBuilder::from_env()
                    .with_url(base)
                    .build()
                    .map_err(open)?,
            )),
            None,
        ),
        #[cfg(not(feature = "gcs"))]
        Scheme::Gs => return Err(not_built("Google Cloud Storage", "gcs")),
        #[cfg(feature = "azure")]
        Scheme::Az => (
            Some(Arc::new(
                object_store::azure::MicrosoftAzureBuilder::from_env()
                    .with_url(base)
                    .build()
                    .map_err(open)?,
            )),
            None,
        ),
        #[cfg(not(feature = "azure"))]
        Scheme::Az => return Err(not_built("Azure Blob Storage", "azure")),
        Scheme::Http | Scheme::Https => (None, None),
    })
}

/// An output prefix in an object store.
pub struct RemoteOutput {
    url: RemoteUrl,
    store: Arc<dyn ObjectStore>,
    prefix: String,
    rt: tokio::runtime::Runtime,
    /// The instance metadata endpoint, when it is the only source of credentials.
    imds: Option<String>,
    /// The prefix as listed at the first completeness check of the run.
    index: Mutex<Option<Arc<Index>>>,
    /// Whether this run wrote a completion record.
    wrote: AtomicBool,
    /// `manifest.json` as [`RemoteOutput::open`] read it (`Some(None)`: there was none), taken by the first
    /// listing instead of reading it again.
    opened_manifest: Mutex<Option<Option<Manifest>>>,
}

/// An output prefix as listed once: its records' ETags, its other objects' sizes and ETags, its manifest.
#[derive(Debug, Default)]
struct Index {
    /// ETag (bare) of every completion record, by (source, dataset).
    records: HashMap<(String, String), String>,
    /// Size and ETag (bare) of every other object, by path under the prefix.
    objects: HashMap<String, (u64, Option<String>)>,
    manifest: Option<Manifest>,
    /// The manifest sums up exactly the records listed, each with the ETag listed.
    current: bool,
}

/// What a listing says of a record.
enum Listed {
    /// There is none.
    Absent,
    /// There is one, and the manifest sums up that very version: here it is.
    Known(Box<CompletionRecord>),
    /// There is one the manifest does not sum up (or not that version): read it.
    Unknown,
}

impl Index {
    fn record(&self, source: &str, dataset: &str) -> Listed {
        let Some(tag) = self.records.get(&(source.to_string(), dataset.to_string())) else {
            return Listed::Absent;
        };
        let known = self
            .manifest
            .as_ref()
            .and_then(|m| m.sources.get(source))
            .filter(|e| {
                e.record_etags
                    .get(dataset)
                    .is_some_and(|t| bare_etag(t) == tag)
            })
            .and_then(|e| e.record(source, dataset));
        match known {
            Some(r) => Listed::Known(Box::new(r)),
            None => Listed::Unknown,
        }
    }
}

/// An object read back whole as a stream: [`RemoteOutput::hash_object`].
#[derive(Debug, Clone)]
pub struct HashedObject {
    /// Its size.
    pub bytes: u64,
    /// Lower-case hex sha256 of its bytes.
    pub sha256: String,
    /// Its ETag, as the GET answered it.
    pub etag: Option<String>,
}

/// An ETag without its quotes or weak marker: stores quote it in some answers and not in others.
fn bare_etag(t: &str) -> &str {
    t.trim_start_matches("W/").trim_matches('"')
}

impl std::fmt::Debug for RemoteOutput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RemoteOutput({})", self.url)
    }
}

/// How often a conditional update is retried when another writer got in between.
const ATTEMPTS: usize = 50;

impl RemoteOutput {
    /// The store of `url`, configured from the environment, read once before any work: a store that cannot be
    /// used (no credentials, no bucket, refused) fails the job once with its cause, instead of every file
    /// failing with it. That read is `manifest.json`, kept for the run's listing of the prefix.
    pub fn open(url: &RemoteUrl) -> Result<RemoteOutput, RemoteError> {
        let out = RemoteOutput::connect(url)?;
        let manifest = out
            .get(&format!("{}/manifest.json", super::output::META_DIR))?
            .and_then(|(b, _)| serde_json::from_slice::<Manifest>(&b).ok());
        *out.opened_manifest
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(manifest);
        Ok(out)
    }

    /// The store of `url`, configured from the environment, without a request: for a store the job has
    /// already used (its run report's upload).
    pub fn connect(url: &RemoteUrl) -> Result<RemoteOutput, RemoteError> {
        let open = |source| RemoteError::Open {
            url: url.redacted(),
            source,
        };
        let base = format!("{}://{}", url.scheme().name(), url.authority());
        let (store, imds) = object_store_of(url, base, open)?;
        let store: Arc<dyn ObjectStore> = match store {
            Some(s) => s,
            None => {
                let scheme = url.scheme();
                return Err(RemoteError::ReadOnly {
                    url: url.redacted(),
                    scheme,
                });
            }
        };
        let rt = runtime()?;
        Ok(RemoteOutput {
            url: url.clone(),
            store,
            prefix: url.path().trim_matches('/').to_string(),
            rt,
            imds,
            index: Mutex::new(None),
            wrote: AtomicBool::new(false),
            opened_manifest: Mutex::new(None),
        })
    }

    /// The output's URL, redacted.
    pub fn url(&self) -> &RemoteUrl {
        &self.url
    }

    fn key(&self, rel: &str) -> ObjPath {
        match self.prefix.is_empty() {
            true => ObjPath::from(rel),
            false => ObjPath::from(format!("{}/{rel}", self.prefix)),
        }
    }

    /// The redacted URL of the object at `rel`.
    pub fn location(&self, rel: &str) -> String {
        format!(
            "{}://{}/{}",
            self.url.scheme().name(),
            self.url.authority(),
            self.key(rel)
        )
    }

    fn request(&self, rel: &str, source: object_store::Error) -> RemoteError {
        request_error(self.location(rel), self.imds.as_deref(), source)
    }

    /// The bytes and version of the object at `rel`, `None` when there is none.
    fn get(&self, rel: &str) -> Result<Option<(Vec<u8>, UpdateVersion)>, RemoteError> {
        let key = self.key(rel);
        self.rt.block_on(async {
            match self.store.get(&key).await {
                Ok(r) => {
                    let version = UpdateVersion {
                        e_tag: r.meta.e_tag.clone(),
                        version: r.meta.version.clone(),
                    };
                    let b = r.bytes().await.map_err(|e| self.request(rel, e))?;
                    Ok(Some((Vec::from(b), version)))
                }
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(e) => Err(self.request(rel, e)),
            }
        })
    }

    /// Uploads the staged file `local` to `rel`: one PUT, or a multipart upload completed only when whole.
    /// Returns the ETag the store gave the object, when it gives one.
    pub fn upload(&self, rel: &str, local: &Path) -> Result<Option<String>, RemoteError> {
        let io = |source| RemoteError::Local {
            path: local.to_path_buf(),
            source,
        };
        let mut f = std::fs::File::open(local).map_err(io)?;
        let size = f.metadata().map_err(io)?.len();
        let key = self.key(rel);
        let part = move |f: &mut std::fs::File| -> Result<Vec<u8>, RemoteError> {
            let mut buf = Vec::with_capacity(PART_BYTES);
            f.by_ref()
                .take(PART_BYTES as u64)
                .read_to_end(&mut buf)
                .map_err(io)?;
            Ok(buf)
        };
        if size <= PART_BYTES as u64 {
            let buf = part(&mut f)?;
            return self.rt.block_on(async {
                self.store
                    .put(&key, PutPayload::from(buf))
                    .await
                    .map(|r| r.e_tag)
                    .map_err(|e| self.request(rel, e))
            });
        }
        self.rt.block_on(async {
            let mut up = self
                .store
                .put_multipart(&key)
                .await
                .map_err(|e| self.request(rel, e))?;
            let result: Result<Option<String>, RemoteError> = async {
                loop {
                    let buf = part(&mut f)?;
                    if buf.is_empty() {
                        break;
                    }
                    up.put_part(PutPayload::from(buf))
                        .await
                        .map_err(|e| self.request(rel, e))?;
                }
                let done = up.complete().await.map_err(|e| self.request(rel, e))?;
                Ok(done.e_tag)
            }
            .await;
            if result.is_err() {
                // Nothing appears under the key; the parts are dropped.
                let _ = up.abort().await;
            }
            result
        })
    }

    /// Puts `bytes` at `rel` if nothing is there, else replaces what is there when it is still the version
    /// read (`keep` decides, from the current bytes, that nothing needs writing).
    fn put_conditional(
        &self,
        rel: &str,
        mut bytes: impl FnMut(Option<&[u8]>) -> Option<Vec<u8>>,
    ) -> Result<(), RemoteError> {
        let key = self.key(rel);
        for _ in 0..ATTEMPTS {
            let current = self.get(rel)?;
            let Some(new) = bytes(current.as_ref().map(|(b, _)| b.as_slice())) else {
                return Ok(());
            };
            let mode = match current {
                None => PutMode::Create,
                Some((_, v)) => PutMode::Update(v),
            };
            let r = self.rt.block_on(self.store.put_opts(
                &key,
                PutPayload::from(new),
                PutOptions::from(mode),
            ));
            match r {
                Ok(_) => return Ok(()),
                Err(
                    object_store::Error::AlreadyExists { .. }
                    | object_store::Error::Precondition { .. },
                ) => continue,
                Err(e) => return Err(self.request(rel, e)),
            }
        }
        Err(RemoteError::Contended {
            location: self.location(rel),
            attempts: ATTEMPTS,
        })
    }

    fn record_rel(source: &str, dataset: &str) -> String {
        format!(
            "{}/sources/{source}/{dataset}.json",
            super::output::META_DIR
        )
    }

    /// The record of (`source`, `dataset`), when one exists, parses and names what its key says.
    pub fn read_record(
        &self,
        source: &str,
        dataset: &str,
    ) -> Result<Option<CompletionRecord>, RemoteError> {
        Ok(self.read_tagged(source, dataset)?.map(|(r, _)| r))
    }

    /// [`RemoteOutput::read_record`], with the record's ETag.
    fn read_tagged(
        &self,
        source: &str,
        dataset: &str,
    ) -> Result<Option<(CompletionRecord, Option<String>)>, RemoteError> {
        Ok(self
            .get(&Self::record_rel(source, dataset))?
            .and_then(|(b, v)| {
                Some((
                    serde_json::from_slice::<CompletionRecord>(&b).ok()?,
                    v.e_tag,
                ))
            })
            .filter(|(r, _)| r.source == source && r.dataset == dataset))
    }

    /// The size, sha256 and ETag of the object at `rel`, read as a stream (never whole in memory); `None` when
    /// there is none. What `--verify-outputs` and `eraflow verify --outputs` prove an output by.
    pub fn hash_object(&self, rel: &str) -> Result<Option<HashedObject>, RemoteError> {
        use sha2::Digest;
        let (mut sha, mut bytes) = (sha2::Sha256::new(), 0u64);
        let etag = match self.stream_object(rel, |chunk| {
            bytes += chunk.len() as u64;
            sha.update(chunk);
            Ok(())
        }) {
            Ok(etag) => etag,
            Err(RemoteError::Request {
                source: object_store::Error::NotFound { .. },
                ..
            }) => return Ok(None),
            Err(e) => return Err(e),
        };
        Ok(Some(HashedObject {
            bytes,
            sha256: hex::encode(sha.finalize()),
            etag,
        }))
    }

    /// Reads the object at `rel` as it arrives, one response chunk at a time into `chunk` (never whole in
    /// memory); returns its ETag as the GET answered it.
    fn stream_object(
        &self,
        rel: &str,
        mut chunk: impl FnMut(&[u8]) -> Result<(), RemoteError>,
    ) -> Result<Option<String>, RemoteError> {
        use futures_util::StreamExt;
        let key = self.key(rel);
        self.rt.block_on(async {
            let r = self
                .store
                .get(&key)
                .await
                .map_err(|e| self.request(rel, e))?;
            let etag = r.meta.e_tag.clone();
            let mut body = r.into_stream();
            while let Some(part) = body.next().await {
                chunk(&part.map_err(|e| self.request(rel, e))?)?;
            }
            Ok(etag)
        })
    }

    /// The record of (`source`, `dataset`): from this run's listing when `check` allows and it can tell,
    /// else read.
    pub fn listed_record(
        &self,
        source: &str,
        dataset: &str,
        check: Check,
    ) -> Result<Option<CompletionRecord>, RemoteError> {
        if check == Check::Listed {
            let index = self.index()?;
            match index.record(source, dataset) {
                Listed::Absent => return Ok(None),
                Listed::Known(r) => return Ok(Some(*r)),
                Listed::Unknown => {}
            }
        }
        self.read_record(source, dataset)
    }

    /// The objects under the prefix, its records' ETags and `manifest.json`: listed once per run (one LIST
    /// request per 1,000 objects, one GET), what a rerun proves every complete source with.
    fn index(&self) -> Result<Arc<Index>, RemoteError> {
        let mut slot = self.index.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(i) = slot.as_ref() {
            return Ok(i.clone());
        }
        let records_dir = format!("{}/sources/", super::output::META_DIR);
        let prefix = (!self.prefix.is_empty()).then(|| ObjPath::from(self.prefix.as_str()));
        let listed: Vec<object_store::ObjectMeta> = self.rt.block_on(async {
            use futures_util::TryStreamExt;
            self.store
                .list(prefix.as_ref())
                .try_collect()
                .await
                .map_err(|e| self.request("", e))
        })?;
        let mut index = Index::default();
        for o in listed {
            let key = o.location.as_ref();
            let rel = match self.prefix.is_empty() {
                true => key,
                false => match key
                    .strip_prefix(&self.prefix)
                    .and_then(|k| k.strip_prefix('/'))
                {
                    Some(r) => r,
                    None => continue,
                },
            };
            let record = rel
                .strip_prefix(&records_dir)
                .and_then(|r| r.strip_suffix(".json"))
                .and_then(|r| r.split_once('/'));
            match record {
                Some((source, dataset)) if !dataset.contains('/') => {
                    index.records.insert(
                        (source.to_string(), dataset.to_string()),
                        o.e_tag
                            .as_deref()
                            .map(bare_etag)
                            .unwrap_or_default()
                            .to_string(),
                    );
                }
                _ => {
                    index.objects.insert(
                        rel.to_string(),
                        (o.size, o.e_tag.as_deref().map(|t| bare_etag(t).to_string())),
                    );
                }
            }
        }
        // Read at open, before the LIST, when it was: a record another writer adds in between is then listed
        // but not summed up, so it is read (`Listed::Unknown`), never taken from a stale manifest.
        let opened = self
            .opened_manifest
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        index.manifest = match opened {
            Some(m) => m,
            None => self
                .get(&format!("{}/manifest.json", super::output::META_DIR))?
                .and_then(|(b, _)| serde_json::from_slice::<Manifest>(&b).ok()),
        };
        index.current = index.manifest.as_ref().is_some_and(|m| {
            let summed: usize = m.sources.values().map(|e| e.record_etags.len()).sum();
            summed == index.records.len()
                && index.records.iter().all(|((source, dataset), tag)| {
                    m.sources
                        .get(source)
                        .and_then(|e| e.record_etags.get(dataset))
                        .is_some_and(|t| bare_etag(t) == tag)
                })
        });
        let index = Arc::new(index);
        *slot = Some(index.clone());
        Ok(index)
    }

    /// The record when it proves the dataset complete (made from source bytes with sha256 `sha256`, with
    /// `options`, at this schema version), and its output unchanged: by the size and ETag its upload returned
    /// (listed once per run for `Check::Listed`, the record then taken from `manifest.json` when it sums up
    /// the record with the ETag listed; HEADed for `Check::Fresh`), or read back and hashed (`Check::Full`, or
    /// a record from before ETags were recorded: that record then gets the ETag of the bytes hashed). Never
    /// a GET of an output otherwise.
    pub fn complete(
        &self,
        source: &str,
        dataset: &str,
        sha256: &str,
        options: &str,
        check: Check,
    ) -> Result<Option<Proven>, RemoteError> {
        if check == Check::Listed {
            let index = self.index()?;
            match index.record(source, dataset) {
                Listed::Absent => return Ok(None),
                Listed::Unknown => {}
                Listed::Known(r) => {
                    let r = *r;
                    if !record_matches(&r, sha256, options) {
                        return Ok(None);
                    }
                    let Some(o) = &r.output else {
                        return Ok(Some(Proven {
                            record: r,
                            output: OutputProof::None,
                        }));
                    };
                    match (index.objects.get(&o.path), &o.etag) {
                        (Some((size, Some(listed))), Some(recorded))
                            if *size == o.bytes && listed == bare_etag(recorded) =>
                        {
                            return Ok(Some(Proven {
                                record: r,
                                output: OutputProof::Etag,
                            }))
                        }
                        // No ETag recorded (an older record): proven below by its hash.
                        (Some(_), None) => {}
                        _ => return Ok(None),
                    }
                }
            }
        }
        let Some((r, tag)) = self.read_tagged(source, dataset)? else {
            return Ok(None);
        };
        if !record_matches(&r, sha256, options) {
            return Ok(None);
        }
        let Some(o) = &r.output else {
            return Ok(Some(Proven {
                record: r,
                output: OutputProof::None,
            }));
        };
        if check != Check::Full {
            if let Some(recorded) = &o.etag {
                let key = self.key(&o.path);
                let head = match self.rt.block_on(self.store.head(&key)) {
                    Ok(m) => Some(m),
                    Err(object_store::Error::NotFound { .. }) => None,
                    Err(e) => return Err(self.request(&o.path, e)),
                };
                let same = head.is_some_and(|m| {
                    m.size == o.bytes
                        && m.e_tag.as_deref().map(bare_etag) == Some(bare_etag(recorded))
                });
                return Ok(same.then_some(Proven {
                    record: r,
                    output: OutputProof::Etag,
                }));
            }
        }
        // Streamed: an output is as big as its source's share of a dataset, never held whole.
        let Some(found) = self.hash_object(&o.path)? else {
            return Ok(None);
        };
        if found.bytes != o.bytes || found.sha256 != o.sha256 {
            return Ok(None);
        }
        if o.etag.is_none() {
            if let (Some(etag), Some(tag)) = (found.etag, tag) {
                self.restamp(&r, etag, &tag);
            }
        }
        Ok(Some(Proven {
            record: r,
            output: OutputProof::Sha256,
        }))
    }

    /// Records `etag` (of the output bytes just hashed) in `r`, only if the record is still the version
    /// `tag`: best effort, as a record left as it was is only hashed again.
    fn restamp(&self, r: &CompletionRecord, etag: String, tag: &str) {
        let mut new = r.clone();
        if let Some(o) = new.output.as_mut() {
            o.etag = Some(etag);
        }
        let text = serde_json::to_vec_pretty(&new).expect("a record serialises");
        let key = self.key(&Self::record_rel(&r.source, &r.dataset));
        let mode = PutMode::Update(UpdateVersion {
            e_tag: Some(tag.to_string()),
            version: None,
        });
        let put = self
            .store
            .put_opts(&key, PutPayload::from(text), PutOptions::from(mode));
        if self.rt.block_on(put).is_ok() {
            self.wrote.store(true, Ordering::Relaxed);
        }
    }

    /// Writes a record: put-if-absent, or a replace of an older record by ETag.
    pub fn write_record(&self, r: &CompletionRecord) -> Result<(), RemoteError> {
        let text = serde_json::to_vec_pretty(r).expect("a record serialises");
        self.wrote.store(true, Ordering::Relaxed);
        self.put_conditional(&Self::record_rel(&r.source, &r.dataset), |cur| {
            (cur != Some(text.as_slice())).then(|| text.clone())
        })
    }

    /// Every record of `source`, or of every source when `None`, with its ETag.
    pub fn records(
        &self,
        source: Option<&str>,
    ) -> Result<Vec<(CompletionRecord, Option<String>)>, RemoteError> {
        let base = format!("{}/sources", super::output::META_DIR);
        let sources: Vec<String> = match source {
            Some(s) => vec![s.to_string()],
            None => {
                let dir = self.key(&base);
                let l = self
                    .rt
                    .block_on(self.store.list_with_delimiter(Some(&dir)))
                    .map_err(|e| self.request(&base, e))?;
                l.common_prefixes
                    .iter()
                    .filter_map(|p| p.filename().map(str::to_string))
                    .collect()
            }
        };
        let mut out = Vec::new();
        for s in sources {
            let rel = format!("{base}/{s}");
            let dir = self.key(&rel);
            let l = self
                .rt
                .block_on(self.store.list_with_delimiter(Some(&dir)))
                .map_err(|e| self.request(&rel, e))?;
            for o in l.objects {
                let Some(dataset) = o.location.filename().and_then(|n| n.strip_suffix(".json"))
                else {
                    continue;
                };
                out.extend(self.read_tagged(&s, dataset)?);
            }
        }
        Ok(out)
    }

    /// Puts `source`'s records into `manifest.json` (or rebuilds it from every record when `source` is `None`
    /// or there is no manifest), by ETag so that no writer's update is lost.
    pub fn update_manifest(&self, source: Option<&str>) -> Result<(), RemoteError> {
        let rel = format!("{}/manifest.json", super::output::META_DIR);
        let fresh = match source {
            Some(s) => Some(Manifest::from_stamped(self.records(Some(s))?)),
            None => None,
        };
        let mut err = None;
        let r = self.put_conditional(&rel, |cur| {
            let current = cur.and_then(|b| serde_json::from_slice::<Manifest>(b).ok());
            let m = match (&fresh, current, source) {
                (Some(f), Some(mut m), Some(s)) => {
                    m.sources.remove(s);
                    m.sources.extend(f.sources.clone());
                    m
                }
                _ => {
                    // A whole rebuild lists the records after reading the version it replaces.
                    match self.records(None) {
                        Ok(r) => Manifest::from_stamped(r),
                        Err(e) => {
                            err = Some(e);
                            return None;
                        }
                    }
                }
            };
            Some(serde_json::to_vec_pretty(&m).expect("a manifest serialises"))
        });
        if let Some(e) = err {
            return Err(e);
        }
        r
    }

    /// Rebuilds `manifest.json` from every record, unless this run wrote no record and the manifest it
    /// listed at its start summed up exactly the records listed then (a rerun with nothing new: reading every
    /// record back would cost a request per record).
    pub fn rebuild_manifest(&self) -> Result<(), RemoteError> {
        let current = self
            .index
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .is_some_and(|i| i.current);
        if current && !self.wrote.load(Ordering::Relaxed) {
            return Ok(());
        }
        self.update_manifest(None)
    }

    /// The bytes of the object at `rel`, `None` when there is none (small objects: records, run reports).
    pub fn read(&self, rel: &str) -> Result<Option<Vec<u8>>, RemoteError> {
        Ok(self.get(rel)?.map(|(b, _)| b))
    }

    /// The names of the objects directly under the folder `rel` (not recursive), sorted.
    pub fn list_names(&self, rel: &str) -> Result<Vec<String>, RemoteError> {
        let dir = self.key(rel);
        let l = self
            .rt
            .block_on(self.store.list_with_delimiter(Some(&dir)))
            .map_err(|e| self.request(rel, e))?;
        let mut names: Vec<String> = l
            .objects
            .iter()
            .filter_map(|o| o.location.filename().map(str::to_string))
            .collect();
        names.sort();
        Ok(names)
    }

    /// The size in bytes of the object at `rel`.
    pub fn size(&self, rel: &str) -> Result<u64, RemoteError> {
        let key = self.key(rel);
        self.rt
            .block_on(self.store.head(&key))
            .map(|m| m.size)
            .map_err(|e| self.request(rel, e))
    }

    /// The bytes `range` of the object at `rel` (a Parquet footer).
    pub fn read_range(
        &self,
        rel: &str,
        range: std::ops::Range<u64>,
    ) -> Result<Vec<u8>, RemoteError> {
        let key = self.key(rel);
        self.rt
            .block_on(self.store.get_range(&key, range))
            .map(Vec::from)
            .map_err(|e| self.request(rel, e))
    }

    /// Streams the object at `rel` into the local file `local` (created or truncated), never holding more than
    /// one response chunk in memory: how `eraflow report` reads a remote Parquet output.
    pub fn download(&self, rel: &str, local: &Path) -> Result<(), RemoteError> {
        use std::io::Write;
        let io = |source| RemoteError::Local {
            path: local.to_path_buf(),
            source,
        };
        let mut f = std::io::BufWriter::new(std::fs::File::create(local).map_err(io)?);
        self.stream_object(rel, |part| f.write_all(part).map_err(io))?;
        f.flush().map_err(io)
    }

    /// Uploads a run report saved locally to `_eraflow/runs/<its file name>`.
    pub fn upload_report(&self, local: &Path) -> Result<(), RemoteError> {
        let name = local
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        self.upload(&format!("{}/runs/{name}", super::output::META_DIR), local)
            .map(|_| ())
    }
}
