//! The HTTP(S) client of a mirror: plain `reqwest`, so that eraflow decides what a response may be.
//!
//! - **Any server.** A ranged GET answered with the whole file (`200`, as `python3 -m http.server` answers) is
//!   handed back as such ([`Response::whole`]); the caller reads it as one bounded plain GET.
//! - **Credentials.** User-info of the mirror's URL becomes basic auth, its query string (a token, a presigned
//!   signature) is kept on every request made for that URL, and the job's `http_headers` are sent with each;
//!   none of them ever appears in a message: errors name the URL without user-info or query string.
//! - **Redirects** are followed only within the mirror's origin (scheme, host and port: `/dir` to `/dir/`);
//!   one to anywhere else fails the request, naming where it pointed, so bytes from another host are never
//!   taken for the mirror's.
//! - **No total timeout** (a slow mirror is not a failed one): the caller bounds the time without a byte
//!   ([`super::fetch`]'s read timeout); connecting is bounded here.

use super::url::{RemoteUrl, Scheme};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, CONTENT_LENGTH, CONTENT_RANGE, RANGE};
use std::ops::Range;
use std::time::Duration;

/// A header for every request to an http(s) input: `Name: value`, the value never shown.
#[derive(Clone)]
pub struct HttpHeader {
    name: HeaderName,
    value: HeaderValue,
}

impl std::fmt::Debug for HttpHeader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: <redacted>", self.name)
    }
}

impl std::str::FromStr for HttpHeader {
    type Err = String;
    /// `Name: value` (the value may be empty). The error names the header but never shows its value.
    fn from_str(s: &str) -> Result<HttpHeader, String> {
        let (name, value) = s
            .split_once(':')
            .ok_or_else(|| "expected `Name: value`".to_string())?;
        let name = HeaderName::from_bytes(name.trim().as_bytes())
            .map_err(|_| format!("'{}' is not a header name", name.trim()))?;
        let mut value = HeaderValue::from_str(value.trim())
            .map_err(|_| format!("{name}: the value is not a valid header value"))?;
        value.set_sensitive(true);
        Ok(HttpHeader { name, value })
    }
}

/// A redirect to another host, refused.
#[derive(Debug, thiserror::Error)]
#[error("redirect to another host refused: {0}")]
struct RedirectRefused(String);

/// An answer no retry would change (a status other than a server's temporary failure).
#[derive(Debug, thiserror::Error)]
#[error("HTTP {status}{}", .expected.map(|e| format!(" (expected {e})")).unwrap_or_default())]
pub struct StatusError {
    /// The status received.
    pub status: u16,
    /// What was asked for, when that says more than the status.
    pub expected: Option<&'static str>,
}

/// A response whose headers say something other than what was asked for.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BadResponse(pub String);

/// `scheme://host:port` of a URL, the port spelled out (so `http://h` and `http://h:80` are one origin).
fn origin_of(u: &reqwest::Url) -> String {
    format!(
        "{}://{}:{}",
        u.scheme(),
        u.host_str().unwrap_or_default(),
        u.port_or_known_default().unwrap_or_default()
    )
}

/// Decodes `%XX` escapes of user-info (a password may hold any byte); the text as given when broken.
fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = (b[i] == b'%')
            .then(|| s.get(i + 1..i + 3))
            .flatten()
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match hex {
            Some(v) => {
                out.push(v);
                i += 3;
            }
            None => {
                out.push(b[i]);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

/// An http(s) location and how to ask it for things.
#[derive(Debug)]
pub struct HttpSource {
    client: reqwest::Client,
    /// `scheme://host[:port]`, without user-info.
    origin: String,
    /// The query string of the URL as given (without `?`), sent with every request.
    query: Option<String>,
    /// Basic-auth user and password from the URL's user-info.
    auth: Option<(String, Option<String>)>,
    headers: HeaderMap,
}

/// Why a request failed: the transport (worth another attempt), or the answer.
#[derive(Debug)]
pub enum HttpFailure {
    /// Connecting, sending or reading failed, or the server failed for now (5xx, 429, 408).
    Transient(Box<dyn std::error::Error + Send + Sync>),
    /// The server answered something no retry changes (a refused redirect, 404, 403, ...).
    Final(Box<dyn std::error::Error + Send + Sync>),
}

impl HttpFailure {
    fn of(e: reqwest::Error) -> HttpFailure {
        let fatal = e.is_redirect() || e.is_builder();
        // reqwest's message would name the URL, query string and all.
        let e = Box::new(e.without_url());
        match fatal {
            true => HttpFailure::Final(e),
            false => HttpFailure::Transient(e),
        }
    }

    fn status(status: u16, expected: Option<&'static str>) -> HttpFailure {
        let e = Box::new(StatusError { status, expected });
        match status {
            408 | 429 | 500..=599 => HttpFailure::Transient(e),
            _ => HttpFailure::Final(e),
        }
    }
}

/// A response: whether it is the whole file rather than the range asked for, the file's total size as the
/// response gives it, and its body, read as it arrives.
#[derive(Debug)]
pub struct Response {
    /// `200` to a ranged request: the server ignores ranges and sends the whole file.
    pub whole: bool,
    /// The file's size: the total of the Content-Range (ranged), or the Content-Length (whole).
    pub total: Option<u64>,
    inner: reqwest::Response,
}

impl Response {
    /// The next piece of the body; `None` at its end.
    pub async fn chunk(&mut self) -> Result<Option<bytes::Bytes>, HttpFailure> {
        self.inner.chunk().await.map_err(HttpFailure::of)
    }
}

impl HttpSource {
    /// The client of `url` (http or https), sending `headers` with every request.
    pub fn new(url: &RemoteUrl, headers: &[HttpHeader]) -> Result<HttpSource, reqwest::Error> {
        let parsed = reqwest::Url::parse(url.expose()).ok();
        let auth = parsed
            .as_ref()
            .filter(|u| !u.username().is_empty() || u.password().is_some())
            .map(|u| (decode(u.username()), u.password().map(decode)));
        let query = parsed
            .as_ref()
            .and_then(|u| u.query())
            .filter(|q| !q.is_empty())
            .map(str::to_string);
        let origin = format!("{}://{}", url.scheme().name(), url.authority());
        let allowed = reqwest::Url::parse(&origin)
            .map(|u| origin_of(&u))
            .unwrap_or_default();
        let policy = reqwest::redirect::Policy::custom(move |a| {
            let to = origin_of(a.url());
            if to != allowed {
                // Only where it pointed, without user-info or query string.
                let shown = format!("{to}{}", a.url().path());
                a.error(RedirectRefused(shown))
            } else if a.previous().len() >= 10 {
                a.error(RedirectRefused("more than 10 redirects".into()))
            } else {
                a.follow()
            }
        });
        // reqwest is built without a TLS provider of its own (Cargo.toml): install the process's first.
        super::tls::install();
        let client = reqwest::Client::builder()
            .redirect(policy)
            .user_agent(concat!("eraflow/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(Duration::from_secs(5))
            .tcp_keepalive(Duration::from_secs(30))
            .http1_only()
            .https_only(url.scheme() == Scheme::Https)
            .build()?;
        let mut map = HeaderMap::new();
        for h in headers {
            map.append(h.name.clone(), h.value.clone());
        }
        Ok(HttpSource {
            client,
            origin,
            query,
            auth,
            headers: map,
        })
    }

    /// The URL of `key` (a path under the origin), with the query string of the URL as given.
    fn url(&self, key: &str) -> String {
        let mut u = format!("{}/{key}", self.origin);
        if let Some(q) = &self.query {
            u.push('?');
            u.push_str(q);
        }
        u
    }

    fn request(&self, method: reqwest::Method, key: &str) -> reqwest::RequestBuilder {
        let mut r = self
            .client
            .request(method, self.url(key))
            .headers(self.headers.clone());
        if let Some((user, pass)) = &self.auth {
            r = r.basic_auth(user, pass.as_deref());
        }
        r
    }

    /// The size the server declares for `key` (HEAD).
    pub async fn size(&self, key: &str) -> Result<u64, HttpFailure> {
        let r = self
            .request(reqwest::Method::HEAD, key)
            .send()
            .await
            .map_err(HttpFailure::of)?;
        if !r.status().is_success() {
            return Err(HttpFailure::status(r.status().as_u16(), None));
        }
        // The header itself: a HEAD response has no body to measure.
        header_u64(r.headers(), &CONTENT_LENGTH).ok_or_else(|| {
            HttpFailure::Final(Box::new(BadResponse(
                "HEAD gave no Content-Length: the size cannot be checked".into(),
            )))
        })
    }

    /// A GET of `key`: of `range` when given (a server may answer with the whole file instead), else whole.
    pub async fn get(&self, key: &str, range: Option<Range<u64>>) -> Result<Response, HttpFailure> {
        let mut req = self.request(reqwest::Method::GET, key);
        if let Some(r) = &range {
            req = req.header(
                RANGE,
                format!("bytes={}-{}", r.start, r.end.saturating_sub(1)),
            );
        }
        let inner = req.send().await.map_err(HttpFailure::of)?;
        match (inner.status().as_u16(), &range) {
            (206, Some(asked)) => {
                let (got, total) = inner
                    .headers()
                    .get(CONTENT_RANGE)
                    .and_then(|v| v.to_str().ok())
                    .and_then(parse_content_range)
                    .ok_or_else(|| {
                        HttpFailure::Final(Box::new(BadResponse(
                            "a partial response without a readable Content-Range".into(),
                        )))
                    })?;
                if got != *asked {
                    return Err(HttpFailure::Final(Box::new(BadResponse(format!(
                        "asked for bytes {}..{}, the response holds {}..{}",
                        asked.start, asked.end, got.start, got.end
                    )))));
                }
                Ok(Response {
                    whole: false,
                    total: Some(total),
                    inner,
                })
            }
            (200, _) => Ok(Response {
                whole: true,
                total: header_u64(inner.headers(), &CONTENT_LENGTH),
                inner,
            }),
            (s, Some(_)) => Err(HttpFailure::status(s, Some("206 or 200"))),
            (s, None) => Err(HttpFailure::status(s, Some("200"))),
        }
    }

    /// The body of `key` when it exists and holds at most `limit` bytes; `None` when the server answers one
    /// of the statuses `absent` (404, ...), or it is bigger.
    pub async fn get_small(
        &self,
        key: &str,
        limit: u64,
        absent: &[u16],
    ) -> Result<Option<Vec<u8>>, HttpFailure> {
        let mut r = match self.get(key, None).await {
            Ok(r) => r,
            Err(HttpFailure::Final(e))
                if e.downcast_ref::<StatusError>()
                    .is_some_and(|s| absent.contains(&s.status)) =>
            {
                return Ok(None)
            }
            Err(e) => return Err(e),
        };
        if r.total.is_some_and(|t| t > limit) {
            return Ok(None);
        }
        let mut out = Vec::new();
        while let Some(b) = r.chunk().await? {
            if (out.len() + b.len()) as u64 > limit {
                return Ok(None);
            }
            out.extend_from_slice(&b);
        }
        Ok(Some(out))
    }
}

fn header_u64(h: &HeaderMap, name: &HeaderName) -> Option<u64> {
    h.get(name)?.to_str().ok()?.trim().parse().ok()
}

/// `bytes a-b/total` as (a..b+1, total).
fn parse_content_range(v: &str) -> Option<(Range<u64>, u64)> {
    let rest = v.trim().strip_prefix("bytes ")?;
    let (range, total) = rest.split_once('/')?;
    let (a, b) = range.split_once('-')?;
    let (a, b): (u64, u64) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
    Some((a..b.checked_add(1)?, total.trim().parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_parse_and_never_show_their_value() {
        let h: HttpHeader = "Authorization: Bearer s3cr3t".parse().unwrap();
        assert!(!format!("{h:?}").contains("s3cr3t"));
        assert!("no colon".parse::<HttpHeader>().is_err());
        let e = "Bad Name: s3cr3t".parse::<HttpHeader>().unwrap_err();
        assert!(!e.contains("s3cr3t"), "{e}");
    }

    #[test]
    fn content_range_and_user_info() {
        assert_eq!(parse_content_range("bytes 0-9/100"), Some((0..10, 100)));
        assert_eq!(parse_content_range("bytes */100"), None);
        assert_eq!(decode("p%40ss%3Aw"), "p@ss:w");
        assert_eq!(decode("100%"), "100%");
    }
}
