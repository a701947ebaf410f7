//! What a location is: a local path, or an object-store URL (`s3://bucket/prefix`, `gs://…`, `az://…`,
//! `http(s)://…`, `file://…`). Anything that looks like a URL but names no known scheme is refused as a usage
//! error, so `--out s3:/bucket` or `--out ftp://x` never becomes a local folder with a colon in its name.
//!
//! A URL can carry secrets (user-info, the query string of a presigned URL): its `Display` redacts them, so it
//! can appear in logs, run reports, manifests and error messages.

use std::fmt;
use std::path::PathBuf;

/// An object-store scheme eraflow knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// Plain HTTP (only when the URL says so).
    Http,
    /// HTTPS.
    Https,
    /// Amazon S3 and S3-compatible stores.
    S3,
    /// Google Cloud Storage.
    Gs,
    /// Azure Blob Storage.
    Az,
}

impl Scheme {
    /// The URL spelling.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Http => "http",
            Scheme::Https => "https",
            Scheme::S3 => "s3",
            Scheme::Gs => "gs",
            Scheme::Az => "az",
        }
    }

    fn parse(s: &str) -> Option<Scheme> {
        Some(match s.to_ascii_lowercase().as_str() {
            "http" => Scheme::Http,
            "https" => Scheme::Https,
            "s3" => Scheme::S3,
            "gs" => Scheme::Gs,
            "az" => Scheme::Az,
            _ => return None,
        })
    }
}

/// A remote location: a known scheme, an authority (bucket, container or host) and a path. Holds the URL as
/// given (which may carry credentials); `Display` shows it redacted.
#[derive(Clone, PartialEq, Eq)]
pub struct RemoteUrl {
    scheme: Scheme,
    /// The whole URL as given: use only to talk to the store, never to show.
    url: String,
    /// The bucket, container or host (without user-info).
    authority: String,
    /// The path after the authority, without its leading `/`, the query or the fragment.
    path: String,
}

impl RemoteUrl {
    /// The scheme.
    pub fn scheme(&self) -> Scheme {
        self.scheme
    }

    /// The bucket (s3, gs), container (az) or `host[:port]` (http, https).
    pub fn authority(&self) -> &str {
        &self.authority
    }

    /// The key prefix or path after the authority (no leading `/`).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The URL as given, secrets included: only for the client that talks to the store.
    pub fn expose(&self) -> &str {
        &self.url
    }

    /// The URL without user-info, query string or fragment: safe to log, report or record.
    pub fn redacted(&self) -> String {
        let mut s = format!("{}://{}", self.scheme.name(), self.authority);
        if !self.path.is_empty() {
            s.push('/');
            s.push_str(&self.path);
        }
        if self.url.contains('?') {
            s.push_str("?<redacted>");
        }
        s
    }
}

impl fmt::Display for RemoteUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.redacted())
    }
}

impl fmt::Debug for RemoteUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RemoteUrl({})", self.redacted())
    }
}

/// Where inputs are read from or outputs written to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A local path (also what a `file://` URL names).
    Local(PathBuf),
    /// An object-store or HTTP URL.
    Remote(RemoteUrl),
}

/// Why a string is not a location. Its `Display` shows the string redacted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LocationError {
    /// `scheme://…` with a scheme eraflow does not know.
    #[error("{shown}: unknown scheme '{scheme}' (s3, gs, az, http, https or file; a local path with a colon is written ./{shown})")]
    UnknownScheme {
        /// The scheme as given.
        scheme: String,
        /// The location, redacted.
        shown: String,
    },
    /// `word:` without `//` after it: neither a URL nor (unambiguously) a local path.
    #[error("{shown}: looks like a URL but is not <scheme>://… (a local path with a colon is written ./{shown})")]
    NotAUrl {
        /// The location, redacted.
        shown: String,
    },
    /// A known scheme whose URL is unusable (no bucket, a `file://` URL naming another host, ...).
    #[error("{shown}: {reason}")]
    Malformed {
        /// The location, redacted.
        shown: String,
        /// What is wrong with it.
        reason: &'static str,
    },
}

/// The scheme of `s` when it starts like a URL (`[A-Za-z][A-Za-z0-9+.-]*:`), and the rest after the colon.
fn split_scheme(s: &str) -> Option<(&str, &str)> {
    let (scheme, rest) = s.split_once(':')?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-')))
    .then_some((scheme, rest))
}

/// `s` with anything after `//user:pass@` and `?` replaced, for messages about strings that did not parse.
fn redact_raw(s: &str) -> String {
    let mut out = s.split(['?', '#']).next().unwrap_or("").to_string();
    if let Some(i) = out.find("://") {
        let after = &out[i + 3..];
        let auth_end = after.find('/').unwrap_or(after.len());
        if let Some(at) = after[..auth_end].rfind('@') {
            out = format!("{}://{}", &out[..i], &after[at + 1..]);
        }
    }
    if s.contains('?') {
        out.push_str("?<redacted>");
    }
    out
}

/// Decodes `%XX` escapes (file URLs, links of an index page); `None` when an escape is broken or the result
/// is not UTF-8.
pub(crate) fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

impl Location {
    /// Reads a location: `scheme://…` with a known scheme, `file://` as a local path, anything else that
    /// starts like a URL (`word:`) refused, and every other string a local path.
    pub fn parse(s: &str) -> Result<Location, LocationError> {
        let Some((scheme, rest)) = split_scheme(s) else {
            return Ok(Location::Local(PathBuf::from(s)));
        };
        let shown = redact_raw(s);
        let Some(after) = rest.strip_prefix("//") else {
            return Err(LocationError::NotAUrl { shown });
        };
        let malformed = |reason| LocationError::Malformed {
            shown: shown.clone(),
            reason,
        };
        if scheme.eq_ignore_ascii_case("file") {
            let (host, path) = after.split_at(after.find('/').unwrap_or(after.len()));
            if !(host.is_empty() || host.eq_ignore_ascii_case("localhost")) {
                return Err(malformed(
                    "a file:// URL names a path on this machine (file:///path)",
                ));
            }
            if path.is_empty() || s.contains(['?', '#']) {
                return Err(malformed("a file:// URL is file:///absolute/path"));
            }
            let path = percent_decode(path)
                .ok_or_else(|| malformed("broken %-escape in a file:// URL"))?;
            return Ok(Location::Local(PathBuf::from(path)));
        }
        let Some(known) = Scheme::parse(scheme) else {
            return Err(LocationError::UnknownScheme {
                scheme: scheme.to_string(),
                shown,
            });
        };
        let without_query = after.split(['?', '#']).next().unwrap_or("");
        let (authority, path) = without_query.split_once('/').unwrap_or((without_query, ""));
        // User-info (`user:pass@host`) is dropped from what is shown, kept in `url` for the client.
        let authority = authority.rsplit('@').next().unwrap_or("").to_string();
        if authority.is_empty() {
            return Err(malformed(match known {
                Scheme::Http | Scheme::Https => "no host",
                _ => "no bucket or container",
            }));
        }
        Ok(Location::Remote(RemoteUrl {
            scheme: known,
            url: s.to_string(),
            authority,
            path: path.to_string(),
        }))
    }

    /// The local path, when the location is one.
    pub fn as_local(&self) -> Option<&std::path::Path> {
        match self {
            Location::Local(p) => Some(p),
            Location::Remote(_) => None,
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Local(p) => write!(f, "{}", p.display()),
            Location::Remote(u) => write!(f, "{u}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn remote(s: &str) -> RemoteUrl {
        match Location::parse(s).unwrap() {
            Location::Remote(u) => u,
            l => panic!("{s}: {l:?}"),
        }
    }

    #[test]
    fn local_paths_stay_local() {
        for s in [
            "out",
            "/data/out",
            "./s3:bucket",
            "a/b:c",
            "data/*.era1",
            "",
        ] {
            assert_eq!(
                Location::parse(s).unwrap(),
                Location::Local(PathBuf::from(s))
            );
        }
        assert_eq!(
            Location::parse("file:///data/my%20out").unwrap(),
            Location::Local(PathBuf::from("/data/my out"))
        );
        assert_eq!(
            Location::parse("file://localhost/x").unwrap(),
            Location::Local(PathBuf::from("/x"))
        );
    }

    #[test]
    fn known_schemes_parse_and_unknown_ones_are_refused() {
        let u = remote("s3://bucket/prefix/x");
        assert_eq!(
            (u.scheme(), u.authority(), u.path()),
            (Scheme::S3, "bucket", "prefix/x")
        );
        assert_eq!(remote("gs://b").path(), "");
        assert_eq!(remote("AZ://container/p").scheme(), Scheme::Az);
        assert_eq!(
            remote("http://127.0.0.1:8080/era1/").authority(),
            "127.0.0.1:8080"
        );
        assert!(matches!(
            Location::parse("ftp://host/x"),
            Err(LocationError::UnknownScheme { .. })
        ));
        assert!(matches!(
            Location::parse("s3:bucket/x"),
            Err(LocationError::NotAUrl { .. })
        ));
        assert!(matches!(
            Location::parse("s3://"),
            Err(LocationError::Malformed { .. })
        ));
        assert!(matches!(
            Location::parse("file://otherhost/x"),
            Err(LocationError::Malformed { .. })
        ));
    }

    #[test]
    fn secrets_never_show() {
        let u =
            remote("https://user:hunter2@mirror.example/era1/x.era1?X-Amz-Signature=s3cr3t&a=b");
        let shown = format!("{u} {u:?} {}", Location::Remote(u.clone()));
        assert!(
            !shown.contains("hunter2") && !shown.contains("s3cr3t"),
            "{shown}"
        );
        assert_eq!(
            u.to_string(),
            "https://mirror.example/era1/x.era1?<redacted>"
        );
        assert!(u.expose().contains("s3cr3t"));
        let e = Location::parse("ftp://user:hunter2@h/x?sig=s3cr3t").unwrap_err();
        let shown = e.to_string();
        assert!(
            !shown.contains("hunter2") && !shown.contains("s3cr3t"),
            "{shown}"
        );
    }
}
