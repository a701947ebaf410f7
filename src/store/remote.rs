//! An object store (`s3://bucket/prefix`, `gs://…`, `az://…`) as a [`Storage`], through the `object_store`
//! crate, with exactly the layout of a local output directory. Outputs are written to a local staging
//! directory first, as for a local run, then published: a single PUT, or a multipart upload completed only when
//! every part is in, so an object appears only when complete. Conditional puts are the store's own
//! (put-if-absent, replace-if-ETag-matches), so concurrent writers never lose each other's records or
//! manifest entries without any lock.
//!
//! Credentials, region and endpoint come from the environment variables `object_store` reads
//! (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`, `AWS_ENDPOINT_URL`, `AWS_ALLOW_HTTP`,
//! `GOOGLE_SERVICE_ACCOUNT`, `AZURE_STORAGE_ACCOUNT_NAME`, ...). object_store is async: its calls run on the
//! process's one runtime ([`super::runtime`]), entered between files, never on the workers' hot path, and are
//! retried by the one policy ([`super::runtime::RETRY`]).

pub use super::error::RemoteError;
use super::error::StoreError;
use super::storage::{Guard, Meta, Put, PutIf, Storage, Version};
use super::url::{RemoteUrl, Scheme};
use crate::sink::manifest::OutputEntry;
use object_store::multipart::MultipartStore;
use object_store::path::Path as ObjPath;
use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, UpdateVersion};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Files at most this big are uploaded with one PUT; bigger ones as a multipart upload of parts this size.
pub const PART_BYTES: usize = 16 << 20;
/// The environment variable that sets another part size (bytes): for tests, and stores with other limits (AWS
/// refuses parts under 5 MiB but the last).
pub const PART_BYTES_ENV: &str = "ERAFLOW_UPLOAD_PART_BYTES";
/// Where an output keeps the multipart uploads in flight, one record each ([`UploadRecord`]).
pub const UPLOADS_DIR: &str = "_eraflow/uploads";
/// A recorded upload older than this is aborted by any run, whoever started it: no upload of one output file
/// takes a day, and a writer on another machine cannot be asked whether it is alive. The same age as the
/// lifecycle rule docs/remote.md gives (`DaysAfterInitiation: 1`).
pub const STALE_UPLOAD_AGE: Duration = Duration::from_secs(24 * 3600);

/// An object store that can also be driven part by part, by upload id (S3, GCS and Azure all can): so an upload
/// a killed run left can be aborted by its id, which `object_store` gives no way to list.
pub(super) trait Store: ObjectStore + MultipartStore {}
impl<T: ObjectStore + MultipartStore> Store for T {}

/// Which process, on which machine, started an upload: enough to tell, from the same machine, that it is gone.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Writer {
    /// Host name (for people reading the record).
    pub host: Option<String>,
    /// The kernel's boot id: another machine, or this one rebooted, has another.
    pub boot_id: Option<String>,
    /// The PID namespace (`pid:[…]`): containers on one kernel have their own, where a pid means another process.
    pub pid_ns: Option<String>,
    /// Process id.
    pub pid: u32,
    /// The process's start time (clock ticks after boot), so a reused pid is not taken for it.
    pub start_ticks: Option<u64>,
}

/// `/proc/<pid>/stat`'s start time (field 22).
fn start_ticks(pid: &str) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after `(comm)` start at field 3; comm may itself hold ')'.
    stat.rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(19)?
        .parse()
        .ok()
}

impl Writer {
    /// This process (on Linux; elsewhere only its pid, so that nothing of it is ever taken for dead).
    pub fn this() -> Writer {
        let read = |p: &str| {
            std::fs::read_to_string(p)
                .ok()
                .map(|s| s.trim().to_string())
        };
        Writer {
            host: read("/proc/sys/kernel/hostname"),
            boot_id: read("/proc/sys/kernel/random/boot_id"),
            pid_ns: std::fs::read_link("/proc/self/ns/pid")
                .ok()
                .map(|p| p.to_string_lossy().into_owned()),
            pid: std::process::id(),
            start_ticks: start_ticks("self"),
        }
    }

    /// Whether this writer is certainly gone, as `me` (a process on this machine) can tell: only a writer of the
    /// same kernel boot and PID namespace can be looked up, and it is gone when its pid is not running or is
    /// running another process (another start time). Anything else is not known to be gone.
    pub fn gone(&self, me: &Writer) -> bool {
        let same = |a: &Option<String>, b: &Option<String>| a.is_some() && a == b;
        if !(same(&self.boot_id, &me.boot_id) && same(&self.pid_ns, &me.pid_ns)) {
            return false;
        }
        if self.pid == me.pid {
            return self.start_ticks != me.start_ticks;
        }
        !crate::util::fs::process_alive(self.pid)
            || (self.start_ticks.is_some()
                && start_ticks(&self.pid.to_string()) != self.start_ticks)
    }
}

/// A multipart upload in flight, kept at `_eraflow/uploads/<hash>.json` from its start until it is completed or
/// aborted: a run killed meanwhile leaves it, and a later run aborts the upload by its id
/// ([`Storage::abort_dead_uploads`]) instead of leaving its parts billed in the bucket.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct UploadRecord {
    /// The object's key in the bucket.
    pub key: String,
    /// The store's upload id.
    pub upload_id: String,
    /// When it was started (seconds since the Unix epoch).
    pub started: u64,
    /// Who started it.
    pub writer: Writer,
}

impl UploadRecord {
    /// The record's key relative to the output root.
    pub fn rel(&self) -> String {
        let h =
            crate::crypto::sha256::sha256(format!("{}\n{}", self.key, self.upload_id).as_bytes());
        format!("{UPLOADS_DIR}/{}.json", &hex::encode(h)[..32])
    }
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
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
pub(super) type Opened = (Option<Arc<dyn Store>>, Option<String>);

/// The object store of an `s3://`, `gs://` or `az://` URL (`base`: scheme and bucket) from the environment, with
/// the instance metadata endpoint when that is S3's only source of credentials; `None` for http(s), which is no
/// object store. A backend this build was made without is [`RemoteError::NotBuilt`].
pub(super) fn object_store_of(
    url: &RemoteUrl,
    base: String,
    retry: object_store::RetryConfig,
    open: impl Fn(object_store::Error) -> RemoteError,
) -> Result<Opened, RemoteError> {
    // Before any client is built: reqwest (built without a provider of its own) panics otherwise.
    super::tls::install();
    // Used only by the backends this build has.
    let _ = (&base, &open, &retry);
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
            (
                Some(Arc::new(b.with_retry(retry).build().map_err(open)?)),
                imds,
            )
        }
        #[cfg(not(feature = "s3"))]
        Scheme::S3 => return Err(not_built("S3", "s3")),
        #[cfg(feature = "gcs")]
        Scheme::Gs => (
            Some(Arc::new(
                object_store::gcp::GoogleCloudStorageBuilder::from_env()
                    .with_url(base)
                    .with_retry(retry)
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
                    .with_retry(retry)
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

/// An output prefix in an object store, as a [`Storage`].
pub struct ObjectStorage {
    url: RemoteUrl,
    store: Arc<dyn Store>,
    prefix: String,
    /// Bytes per part of a multipart upload ([`PART_BYTES`], or [`PART_BYTES_ENV`]).
    part_bytes: usize,
    rt: &'static tokio::runtime::Runtime,
    /// The instance metadata endpoint, when it is the only source of credentials.
    imds: Option<String>,
}

impl std::fmt::Debug for ObjectStorage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ObjectStorage({})", self.url)
    }
}

fn version_of(e_tag: Option<String>, version: Option<String>) -> Version {
    Version::Object { e_tag, version }
}

fn meta_of(o: &object_store::ObjectMeta) -> Meta {
    Meta {
        size: o.size,
        version: version_of(o.e_tag.clone(), o.version.clone()),
        modified: Some(o.last_modified.into()),
    }
}

impl ObjectStorage {
    /// The store of `url`, configured from the environment, without a request.
    pub fn connect(url: &RemoteUrl) -> Result<ObjectStorage, RemoteError> {
        let open = |source| RemoteError::Open {
            url: url.redacted(),
            source,
        };
        let base = format!("{}://{}", url.scheme().name(), url.authority());
        let (store, imds) = object_store_of(url, base, super::runtime::RETRY.object_store(), open)?;
        let store: Arc<dyn Store> = match store {
            Some(s) => s,
            None => {
                let scheme = url.scheme();
                return Err(RemoteError::ReadOnly {
                    url: url.redacted(),
                    scheme,
                });
            }
        };
        let rt = super::runtime::runtime().map_err(|source| RemoteError::Local {
            path: PathBuf::from("tokio runtime"),
            source,
        })?;
        let part_bytes =
            match std::env::var(PART_BYTES_ENV) {
                Err(_) => PART_BYTES,
                Ok(v) => v.trim().parse().ok().filter(|&n: &usize| n > 0).ok_or(
                    RemoteError::Setting {
                        name: PART_BYTES_ENV,
                        value: v,
                        expected: "a number of bytes above 0",
                    },
                )?,
            };
        Ok(ObjectStorage {
            url: url.clone(),
            store,
            prefix: url.path().trim_matches('/').to_string(),
            part_bytes,
            rt,
            imds,
        })
    }

    fn key(&self, rel: &str) -> ObjPath {
        match (self.prefix.is_empty(), rel.trim_matches('/')) {
            (true, rel) => ObjPath::from(rel),
            (false, "") => ObjPath::from(self.prefix.as_str()),
            (false, rel) => ObjPath::from(format!("{}/{rel}", self.prefix)),
        }
    }

    fn request(&self, rel: &str, source: object_store::Error) -> StoreError {
        request_error(self.location(rel), self.imds.as_deref(), source).into()
    }

    /// A put of `bytes` at `rel` as `mode` says: a conflict when another writer got in first.
    fn put_mode(&self, rel: &str, bytes: Vec<u8>, mode: PutMode) -> Result<Put, StoreError> {
        let r = self.rt.block_on(self.store.put_opts(
            &self.key(rel),
            PutPayload::from(bytes),
            PutOptions::from(mode),
        ));
        match r {
            Ok(_) => Ok(Put::Done),
            Err(
                object_store::Error::AlreadyExists { .. }
                | object_store::Error::Precondition { .. },
            ) => Ok(Put::Conflict),
            Err(e) => Err(self.request(rel, e)),
        }
    }

    /// Uploads the staged file `local` to `rel`: one PUT, or a multipart upload completed only when whole, and
    /// recorded while in flight ([`UploadRecord`]) so a later run can abort it should this process die. Returns
    /// the ETag the store gave the object, when it gives one.
    fn upload(&self, rel: &str, local: &Path) -> Result<Option<String>, StoreError> {
        let io = |source| StoreError::Local {
            path: local.to_path_buf(),
            source,
        };
        let mut f = std::fs::File::open(local).map_err(io)?;
        let size = f.metadata().map_err(io)?.len();
        let key = self.key(rel);
        let part_bytes = self.part_bytes;
        let part = move |f: &mut std::fs::File| -> Result<Vec<u8>, StoreError> {
            let mut buf = Vec::with_capacity(part_bytes);
            f.by_ref()
                .take(part_bytes as u64)
                .read_to_end(&mut buf)
                .map_err(io)?;
            Ok(buf)
        };
        if size <= part_bytes as u64 {
            let buf = part(&mut f)?;
            return self.rt.block_on(async {
                self.store
                    .put(&key, PutPayload::from(buf))
                    .await
                    .map(|r| r.e_tag)
                    .map_err(|e| self.request(rel, e))
            });
        }
        let id = self
            .rt
            .block_on(self.store.create_multipart(&key))
            .map_err(|e| self.request(rel, e))?;
        let record = UploadRecord {
            key: key.to_string(),
            upload_id: id.clone(),
            started: unix_now(),
            writer: Writer::this(),
        };
        let record_rel = record.rel();
        let result = (|| {
            let bytes = serde_json::to_vec_pretty(&record).map_err(|e| io(e.into()))?;
            self.put(&record_rel, bytes)?;
            self.rt.block_on(async {
                let mut parts = Vec::new();
                loop {
                    let buf = part(&mut f)?;
                    if buf.is_empty() {
                        break;
                    }
                    let p = self
                        .store
                        .put_part(&key, &id, parts.len(), PutPayload::from(buf))
                        .await
                        .map_err(|e| self.request(rel, e))?;
                    parts.push(p);
                }
                let done = self
                    .store
                    .complete_multipart(&key, &id, parts)
                    .await
                    .map_err(|e| self.request(rel, e))?;
                Ok(done.e_tag)
            })
        })();
        if result.is_err() {
            // Nothing appears under the key; the parts are dropped.
            let _ = self.rt.block_on(self.store.abort_multipart(&key, &id));
        }
        // Best effort: a record left behind names an upload that is no more, which a later run drops.
        let _ = self.delete(&record_rel);
        result
    }
}

impl Storage for ObjectStorage {
    fn name(&self) -> String {
        self.url.redacted()
    }

    fn tables_root(&self) -> Option<super::delta::TablesRoot> {
        let prefix = match self.prefix.as_str() {
            "" => String::new(),
            p => format!("{p}/"),
        };
        let base = format!(
            "{}://{}/{prefix}",
            self.url.scheme().name(),
            self.url.authority()
        );
        let url = url::Url::parse(&base).ok()?;
        let store: Arc<dyn ObjectStore> = self.store.clone();
        Some(super::delta::TablesRoot::Object(store, url))
    }

    fn location(&self, rel: &str) -> String {
        format!(
            "{}://{}/{}",
            self.url.scheme().name(),
            self.url.authority(),
            self.key(rel)
        )
    }

    fn get(&self, rel: &str) -> Result<Option<(Vec<u8>, Version)>, StoreError> {
        let key = self.key(rel);
        self.rt.block_on(async {
            match self.store.get(&key).await {
                Ok(r) => {
                    let v = version_of(r.meta.e_tag.clone(), r.meta.version.clone());
                    let b = r.bytes().await.map_err(|e| self.request(rel, e))?;
                    Ok(Some((Vec::from(b), v)))
                }
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(e) => Err(self.request(rel, e)),
            }
        })
    }

    fn head(&self, rel: &str) -> Result<Option<Meta>, StoreError> {
        match self.rt.block_on(self.store.head(&self.key(rel))) {
            Ok(m) => Ok(Some(meta_of(&m))),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(self.request(rel, e)),
        }
    }

    fn stream(
        &self,
        rel: &str,
        chunk: &mut dyn FnMut(&[u8]) -> Result<(), StoreError>,
    ) -> Result<Option<Version>, StoreError> {
        use futures_util::StreamExt;
        let key = self.key(rel);
        self.rt.block_on(async {
            let r = match self.store.get(&key).await {
                Ok(r) => r,
                Err(object_store::Error::NotFound { .. }) => return Ok(None),
                Err(e) => return Err(self.request(rel, e)),
            };
            let v = version_of(r.meta.e_tag.clone(), r.meta.version.clone());
            let mut body = r.into_stream();
            while let Some(part) = body.next().await {
                chunk(&part.map_err(|e| self.request(rel, e))?)?;
            }
            Ok(Some(v))
        })
    }

    fn get_range(&self, rel: &str, range: std::ops::Range<u64>) -> Result<Vec<u8>, StoreError> {
        self.rt
            .block_on(self.store.get_range(&self.key(rel), range))
            .map(Vec::from)
            .map_err(|e| self.request(rel, e))
    }

    fn list(&self, prefix: &str) -> Result<Vec<(String, Meta)>, StoreError> {
        let dir = self.key(prefix);
        let dir = (!dir.as_ref().is_empty()).then_some(dir);
        let listed: Vec<object_store::ObjectMeta> = self.rt.block_on(async {
            use futures_util::TryStreamExt;
            self.store
                .list(dir.as_ref())
                .try_collect()
                .await
                .map_err(|e| self.request(prefix, e))
        })?;
        Ok(listed
            .iter()
            .filter_map(|o| {
                let key = o.location.as_ref();
                let rel = match self.prefix.is_empty() {
                    true => key,
                    false => key.strip_prefix(&self.prefix)?.strip_prefix('/')?,
                };
                Some((rel.to_string(), meta_of(o)))
            })
            .collect())
    }

    fn put_if(&self, rel: &str, bytes: Vec<u8>, cond: PutIf<'_>) -> Result<Put, StoreError> {
        // The store checks the condition itself, atomically with the write.
        let mode = match cond {
            PutIf::Any => PutMode::Overwrite,
            PutIf::Absent => PutMode::Create,
            PutIf::Matches(Version::Object { e_tag, version }) => PutMode::Update(UpdateVersion {
                e_tag: e_tag.clone(),
                version: version.clone(),
            }),
            // A local file's version never matches an object.
            PutIf::Matches(Version::Local { .. }) => return Ok(Put::Conflict),
        };
        self.put_mode(rel, bytes, mode)
    }

    fn publish(&self, rel: &str, staged: &Path) -> Result<Version, StoreError> {
        let e_tag = self.upload(rel, staged)?;
        let _ = std::fs::remove_file(staged);
        Ok(version_of(e_tag, None))
    }

    fn delete(&self, rel: &str) -> Result<(), StoreError> {
        match self.rt.block_on(self.store.delete(&self.key(rel))) {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(self.request(rel, e)),
        }
    }

    fn lock(&self, _name: &str) -> Result<Option<Guard>, StoreError> {
        Ok(None)
    }

    /// Aborts the multipart uploads recorded under this output ([`UploadRecord`]) whose writer is gone: one on
    /// this machine that is no longer running, or any older than [`STALE_UPLOAD_AGE`]. Another live writer's
    /// upload (a shard writing into the same prefix, here or elsewhere) is kept. Returns how many were aborted.
    /// An upload a killed run started but had not recorded yet is left to the bucket's lifecycle rule.
    fn abort_dead_uploads(&self) -> Result<usize, StoreError> {
        let me = Writer::this();
        let now = unix_now();
        let old = |t: u64| now.saturating_sub(t) > STALE_UPLOAD_AGE.as_secs();
        let mut aborted = 0;
        for (rel, meta) in self.list(&format!("{UPLOADS_DIR}/"))? {
            let Some((bytes, _)) = self.get(&rel)? else {
                continue; // completed meanwhile
            };
            let Ok(r) = serde_json::from_slice::<UploadRecord>(&bytes) else {
                // Not one of ours to act on; dropped once nothing can be writing it.
                let written = meta
                    .modified
                    .and_then(|t| t.duration_since(UNIX_EPOCH).ok());
                if written.is_some_and(|t| old(t.as_secs())) {
                    self.delete(&rel)?;
                }
                continue;
            };
            // Only uploads into this output: a record copied or edited by hand aborts nothing elsewhere.
            let ours = match self.prefix.is_empty() {
                true => true,
                false => r.key.starts_with(&format!("{}/", self.prefix)),
            };
            if !ours || !(r.writer.gone(&me) || old(r.started)) {
                continue;
            }
            let key = ObjPath::from(r.key.as_str());
            match self
                .rt
                .block_on(self.store.abort_multipart(&key, &r.upload_id))
            {
                // Gone already: completed (the object stays), or aborted by another run.
                Ok(()) | Err(object_store::Error::NotFound { .. }) => {}
                Err(e) => return Err(self.request(&rel, e)),
            }
            tracing::info!(key = %r.key, upload_id = %r.upload_id, pid = r.writer.pid,
                "aborted a dead run's incomplete multipart upload");
            aborted += 1;
            self.delete(&rel)?;
        }
        Ok(aborted)
    }

    fn recorded(&self, o: &OutputEntry) -> Version {
        version_of(o.etag.clone(), None)
    }

    fn listing(&self) -> bool {
        true
    }
}
