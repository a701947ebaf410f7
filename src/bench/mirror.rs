//! A loopback HTTP mirror for `eraflow bench`: serves the files of one folder to eraflow's own HTTP client
//! (object_store), so the remote-input path can be timed beside local files in one run without Python or a
//! network. The smallest server that client needs: `GET` (whole, or one `Range: bytes=a-b`) and `HEAD` of
//! plain file names, one request per connection. Bench only: it trusts its one client and is never shipped as
//! a server.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Bytes per second each connection of a throttled mirror sends: a mirror one connection cannot keep up with
/// (local export runs at ~29 MB/s per thread here), which several connections at once can.
pub const SLOW_BYTES_PER_SECOND: u64 = 20_000_000;

/// A running mirror; stopped when dropped.
pub struct Mirror {
    port: u16,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Mirror {
    /// Serves `dir` on 127.0.0.1 (a free port).
    pub fn start(dir: &Path) -> std::io::Result<Mirror> {
        Mirror::start_throttled(dir, None)
    }

    /// [`Mirror::start`], each connection sending at most `rate` bytes per second when given.
    pub fn start_throttled(dir: &Path, rate: Option<u64>) -> std::io::Result<Mirror> {
        let listener = TcpListener::bind(("127.0.0.1", 0))?;
        let port = listener.local_addr()?.port();
        let stop = Arc::new(AtomicBool::new(false));
        let (dir, flag) = (dir.to_path_buf(), stop.clone());
        let thread = std::thread::Builder::new()
            .name("bench-mirror".into())
            .spawn(move || {
                for conn in listener.incoming() {
                    if flag.load(Ordering::Relaxed) {
                        return;
                    }
                    let Ok(conn) = conn else { continue };
                    let dir = dir.clone();
                    // A thread per connection: the client's HEAD and ranged GETs may overlap.
                    let _ = std::thread::Builder::new()
                        .name("bench-mirror-conn".into())
                        .spawn(move || {
                            let _ = serve(conn, &dir, rate);
                        });
                }
            })?;
        Ok(Mirror {
            port,
            stop,
            thread: Some(thread),
        })
    }

    /// The mirror's URL (with the trailing slash of a folder).
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/", self.port)
    }
}

impl Drop for Mirror {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        // Wakes the accept loop, which then sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Answers one request on `conn` (at most `rate` bytes per second of body when given).
fn serve(conn: TcpStream, dir: &Path, rate: Option<u64>) -> std::io::Result<()> {
    let mut reader = BufReader::new(conn.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let mut range: Option<(u64, Option<u64>)> = None;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            if k.eq_ignore_ascii_case("range") {
                range = v.trim().strip_prefix("bytes=").and_then(|r| {
                    let (a, b) = r.split_once('-')?;
                    Some((a.parse().ok()?, b.parse().ok()))
                });
            }
        }
    }
    let mut out = conn;
    let name = target.trim_start_matches('/');
    let path: Option<PathBuf> =
        (!name.is_empty() && !name.contains(['/', '\\']) && !name.starts_with('.'))
            .then(|| dir.join(name));
    let file = path.as_ref().and_then(|p| std::fs::File::open(p).ok());
    let Some(mut file) = file else {
        return out.write_all(
            b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        );
    };
    let size = file.metadata()?.len();
    let (status, start, end) = match range {
        Some((a, b)) => {
            let end = b.map_or(size, |b| (b + 1).min(size));
            ("206 Partial Content", a.min(end), end)
        }
        None => ("200 OK", 0, size),
    };
    let mut head = format!(
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nAccept-Ranges: bytes\r\nConnection: close\r\n",
        if method == "HEAD" { size } else { end - start }
    );
    if range.is_some() {
        head.push_str(&format!(
            "Content-Range: bytes {start}-{}/{size}\r\n",
            end.saturating_sub(1)
        ));
    }
    head.push_str("\r\n");
    out.write_all(head.as_bytes())?;
    if method == "GET" {
        std::io::Seek::seek(&mut file, std::io::SeekFrom::Start(start))?;
        let mut body = file.take(end - start);
        match rate {
            None => {
                std::io::copy(&mut body, &mut out)?;
            }
            // Paced in twentieths of a second: the rate holds from the first byte.
            Some(rate) => {
                let step = (rate / 20).max(1);
                let t0 = std::time::Instant::now();
                let mut sent = 0u64;
                loop {
                    let n = std::io::copy(&mut (&mut body).take(step), &mut out)?;
                    if n == 0 {
                        break;
                    }
                    sent += n;
                    let due = std::time::Duration::from_secs_f64(sent as f64 / rate as f64);
                    if let Some(wait) = due.checked_sub(t0.elapsed()) {
                        std::thread::sleep(wait);
                    }
                }
            }
        }
    }
    out.flush()
}
