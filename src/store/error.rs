//! Why a store could not be used: [`StoreError`] for the output protocol over any storage, [`RemoteError`] for
//! an object store's own failures. Below the storages and the protocol, which all return them.

use super::url::Scheme;
use std::io;
use std::path::PathBuf;

/// Why the output store could not record or publish something.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A local file (record, lock, manifest, staged output) could not be read or written.
    #[error("{}", .path.display())]
    Local {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// The object store refused or failed.
    #[error(transparent)]
    Remote(#[from] RemoteError),
    /// Another writer kept changing an object this one tried to update.
    #[error("{location}: changed by other writers on every one of {attempts} attempts")]
    Contended {
        /// The object, as the storage names it.
        location: String,
        /// Attempts made.
        attempts: usize,
    },
    /// A local output directory that does not exist.
    #[error("{}: no such directory", .0.display())]
    NoDirectory(PathBuf),
    /// A location that holds no eraflow output (the message says why).
    #[error("{0}")]
    NotAnOutput(String),
    /// A Delta table of the output could not be made, read or committed to.
    #[error(transparent)]
    Delta(#[from] super::delta::DeltaError),
}

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
        source: io::Error,
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
    /// An environment variable that eraflow reads has a value it cannot use.
    #[error("{name}={value:?}: expected {expected}")]
    Setting {
        /// The variable.
        name: &'static str,
        /// Its value.
        value: String,
        /// What it may be.
        expected: &'static str,
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
}
