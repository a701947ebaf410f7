//! The seam under the output protocol ([`super::output`]): a [`Storage`] is somewhere keyed bytes can be read,
//! listed, written only if absent or only if unchanged, and published from a staged file. A local directory
//! ([`super::local::LocalStorage`]) and an object store ([`super::remote::ObjectStorage`]) are the two today;
//! the protocol (completion records, the manifest, freshness proofs, locks) is written once over this trait.
//!
//! Keys (`rel`) are relative, `/`-separated paths under the storage's root, the same for every backend.

use super::error::StoreError;
use crate::sink::manifest::OutputEntry;
use std::io;
use std::path::{Path, PathBuf};

/// What proves an object unchanged since it was read or written, and what a conditional put is conditioned on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Version {
    /// A local file's size and modification time (nanoseconds since the Unix epoch; `None` when the file system
    /// gave none, or the file changed while it was read).
    Local {
        /// Its size.
        bytes: u64,
        /// Its modification time.
        mtime_ns: Option<u64>,
    },
    /// An object's ETag as the store answered it (quoted or not), and the store's own version id where it has
    /// one (Google Cloud Storage conditions on that).
    Object {
        /// The ETag.
        e_tag: Option<String>,
        /// The version id.
        version: Option<String>,
    },
}

/// An ETag without its quotes or weak marker: stores quote it in some answers and not in others.
pub fn bare_etag(t: &str) -> &str {
    t.trim_start_matches("W/").trim_matches('"')
}

impl Version {
    /// Whether this (found) version is `recorded`: the same size and modification time, or the same ETag. A
    /// version that is not known (no time, no ETag) proves nothing.
    pub fn proves(&self, recorded: &Version) -> bool {
        self.known() && self.token() == recorded.token()
    }

    /// What two versions of one object share when they are one: size and time, or the bare ETag.
    fn token(&self) -> Option<String> {
        match self {
            Version::Local { bytes, mtime_ns } => mtime_ns.map(|t| format!("{bytes}@{t}")),
            Version::Object { e_tag, .. } => {
                e_tag.as_deref().map(|t| format!("etag:{}", bare_etag(t)))
            }
        }
    }

    /// Whether the version says anything (a modification time, an ETag).
    pub fn known(&self) -> bool {
        self.token().is_some()
    }

    /// Whether an output whose version differs from the recorded one is taken as changed without reading it: an
    /// ETag changes only when the object is written again, while a modification time also changes with a copy
    /// or a `touch` (so a local output is hashed instead).
    pub fn mismatch_is_final(&self) -> bool {
        matches!(self, Version::Object { .. })
    }

    /// How an output is proven unchanged by a version of this kind.
    pub fn proof(&self) -> OutputProof {
        match self {
            Version::Local { .. } => OutputProof::SizeMtime,
            Version::Object { .. } => OutputProof::Etag,
        }
    }

    /// Records this version in `o` (its modification time or its ETag).
    pub fn stamp(&self, o: &mut OutputEntry) {
        match self {
            Version::Local { mtime_ns, .. } => o.mtime_ns = *mtime_ns,
            Version::Object { e_tag, .. } => o.etag = e_tag.clone(),
        }
    }

    /// The ETag a manifest keeps of a record read at this version (local records have none: they are read
    /// again, which costs nothing).
    pub fn tag(&self) -> Option<String> {
        match self {
            Version::Local { .. } => None,
            Version::Object { e_tag, .. } => e_tag.clone(),
        }
    }
}

/// What a listing or a HEAD says of an object.
#[derive(Debug, Clone)]
pub struct Meta {
    /// Its size.
    pub size: u64,
    /// Its version.
    pub version: Version,
    /// When it was last written, when known.
    pub modified: Option<std::time::SystemTime>,
}

/// How a conditional put went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Put {
    /// Written.
    Done,
    /// Not written: something was there already (put-if-absent), or not the version given (put-if-match).
    Conflict,
}

/// What a put is conditioned on (object_store's `PutMode`, in this seam's terms).
#[derive(Debug, Clone, Copy)]
pub enum PutIf<'a> {
    /// Always: replaces what is there.
    Any,
    /// Only if nothing is there.
    Absent,
    /// Only if what is there is still at this version.
    Matches(&'a Version),
}

impl PutIf<'_> {
    /// Whether the condition holds of an object now at `current` (`None`: there is none), for a storage that
    /// checks it itself rather than asking the store to.
    pub fn allows(&self, current: Option<&Version>) -> bool {
        match self {
            PutIf::Any => true,
            PutIf::Absent => current.is_none(),
            PutIf::Matches(recorded) => current.is_some_and(|c| c.proves(recorded)),
        }
    }
}

/// A lock held until dropped.
pub type Guard = Box<dyn Send>;

/// Somewhere outputs and eraflow's own files live (see the module documentation).
pub trait Storage: Send + Sync + std::fmt::Debug {
    /// The storage as a user names it: a directory's path, or a redacted URL.
    fn name(&self) -> String;

    /// Where Delta tables of this storage's datasets live; `None`: this storage cannot hold them.
    fn tables_root(&self) -> Option<super::delta::TablesRoot> {
        None
    }

    /// Where `rel` is, for messages and reports: a path, or a redacted URL.
    fn location(&self, rel: &str) -> String;

    /// The bytes and version of `rel`, `None` when there is none (small objects: records, manifests, reports).
    fn get(&self, rel: &str) -> Result<Option<(Vec<u8>, Version)>, StoreError>;

    /// The size and version of `rel`, `None` when there is none.
    fn head(&self, rel: &str) -> Result<Option<Meta>, StoreError>;

    /// Reads `rel` as it comes, one chunk at a time into `chunk` (never whole in memory); `None` when there is
    /// none, else the version of the bytes read (a local file that changed meanwhile has no modification time).
    fn stream(
        &self,
        rel: &str,
        chunk: &mut dyn FnMut(&[u8]) -> Result<(), StoreError>,
    ) -> Result<Option<Version>, StoreError>;

    /// The bytes `range` of `rel` (a Parquet footer); by default read through [`Storage::stream`], which a
    /// storage that can read a range alone (an object store) does instead.
    fn get_range(&self, rel: &str, range: std::ops::Range<u64>) -> Result<Vec<u8>, StoreError> {
        let (mut at, mut out) = (0u64, Vec::new());
        self.stream(rel, &mut |chunk| {
            let end = at + chunk.len() as u64;
            let (a, z) = (range.start.clamp(at, end), range.end.clamp(at, end));
            out.extend_from_slice(&chunk[(a - at) as usize..(z - at) as usize]);
            at = end;
            Ok(())
        })?
        .ok_or_else(|| StoreError::Local {
            path: self.location(rel).into(),
            source: io::ErrorKind::NotFound.into(),
        })?;
        Ok(out)
    }

    /// Every object under the folder `prefix` (`""`: all), recursively, by key: files only, symlinks not
    /// followed, a missing folder being empty.
    fn list(&self, prefix: &str) -> Result<Vec<(String, Meta)>, StoreError>;

    /// Writes `bytes` at `rel` whole if `cond` holds, atomically with checking it (a conflict otherwise).
    fn put_if(&self, rel: &str, bytes: Vec<u8>, cond: PutIf<'_>) -> Result<Put, StoreError>;

    /// Writes `bytes` at `rel` whole, replacing what is there (small files: a report page).
    fn put(&self, rel: &str, bytes: Vec<u8>) -> Result<(), StoreError> {
        self.put_if(rel, bytes, PutIf::Any).map(|_| ())
    }

    /// Writes `bytes` at `rel` only if nothing is there.
    fn put_if_absent(&self, rel: &str, bytes: Vec<u8>) -> Result<Put, StoreError> {
        self.put_if(rel, bytes, PutIf::Absent)
    }

    /// Replaces what is at `rel` with `bytes` only if it is still at `version`.
    fn put_if_match(
        &self,
        rel: &str,
        bytes: Vec<u8>,
        version: &Version,
    ) -> Result<Put, StoreError> {
        self.put_if(rel, bytes, PutIf::Matches(version))
    }

    /// Moves the finished local file `staged` to `rel`, whole or not at all, and returns the version it has
    /// there (what a later run proves it unchanged by). `staged` is gone afterwards, unless it already was `rel`.
    fn publish(&self, rel: &str, staged: &Path) -> Result<Version, StoreError>;

    /// Removes `rel` (nothing when there is none).
    fn delete(&self, rel: &str) -> Result<(), StoreError>;

    /// Holds the lock `name` until the guard is dropped, where the storage has locks (a local disk); `None`
    /// where conditional puts stand in for them (an object store).
    fn lock(&self, name: &str) -> Result<Option<Guard>, StoreError>;

    /// The version an output's record says it was published at, in this storage's terms.
    fn recorded(&self, o: &OutputEntry) -> Version;

    /// Whether a run proves outputs from one listing of the whole storage, taking records from
    /// `manifest.json` when it sums up the very versions listed (an object store, where every request is a
    /// round trip), rather than by asking per file (a local disk).
    fn listing(&self) -> bool;

    /// Aborts the multipart uploads dead writers left in flight under this storage, which an object store keeps
    /// (and bills) until aborted; how many. Nothing where there are none (a local directory).
    fn abort_dead_uploads(&self) -> Result<usize, StoreError> {
        Ok(0)
    }

    /// The local file holding `rel`, when the storage is a local directory: read in place then.
    fn local_path(&self, _rel: &str) -> Option<PathBuf> {
        None
    }
}

/// The directory under the output root where eraflow keeps its own files.
pub const META_DIR: &str = "_eraflow";

/// Why a source or dataset name cannot key a record: it would leave `_eraflow/sources/`.
pub(crate) fn check_name(name: &str) -> io::Result<()> {
    if name.is_empty()
        || name == "."
        || name == ".."
        || name.contains(['/', '\\', '\0'])
        || name.starts_with('.')
    {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("'{name}' is not a plain file name"),
        ));
    }
    Ok(())
}

/// How an output was proven unchanged since its completion record was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub enum OutputProof {
    /// There is no output (a dataset that takes no rows from the source).
    #[serde(rename = "none")]
    None,
    /// A local output's size and modification time, as recorded.
    #[serde(rename = "size+mtime")]
    SizeMtime,
    /// An object-store output's size and ETag (listed or HEADed), as its upload returned them.
    #[serde(rename = "etag")]
    Etag,
    /// Read back whole and hashed (`--verify-outputs`, or a record from before metadata was recorded).
    #[serde(rename = "sha256")]
    Sha256,
}
