//! Standard output and standard error without panics. `println!` panics when stdout is a closed pipe
//! (`eraflow verify DIR | head -1`) or a full device (`> /dev/full`); every line the command line prints goes
//! through [`Output`] instead, and every message on stderr through [`note!`](crate::note).
//!
//! - A **broken pipe** on stdout means the reader has seen enough: further lines are dropped quietly and the
//!   command exits with the status its work earned (0, 1 or 2), as if the lines had been read. eraflow prints
//!   only after its work is done (files verified, outputs and the run report written), so that status is
//!   known and is the one a script wants, also under `set -o pipefail`; a 141 (death by SIGPIPE) would hide a
//!   failed file behind a status that says nothing about the data.
//! - Any **other write error** on stdout (`/dev/full`: ENOSPC) is an I/O error: it is reported once on stderr
//!   and the command exits 2. The work is not undone: outputs and the run report are already written.
//! - Messages on **stderr** are best effort: a failure to write one is ignored (there is nowhere left to say
//!   so).

use std::fmt::Display;
use std::io::{self, Write};

/// Writes a line to stderr, ignoring a failure to do so (`eprintln!` would panic).
#[macro_export]
macro_rules! note {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// Writing to standard output failed with something other than a broken pipe.
#[derive(Debug, thiserror::Error)]
#[error("writing to standard output")]
pub struct StdoutError(#[source] pub io::Error);

enum State {
    Open,
    /// The reader went away: drop the rest quietly.
    Closed,
    /// A write failed: drop the rest, report this once at the end.
    Failed(io::Error),
}

/// Standard output, line by line, recording (not panicking on) the first failure.
pub struct Output {
    out: io::StdoutLock<'static>,
    state: State,
}

impl Output {
    /// The process's standard output.
    pub fn stdout() -> Output {
        Output {
            out: io::stdout().lock(),
            state: State::Open,
        }
    }

    /// Writes `line` and a newline, unless an earlier write failed.
    pub fn line(&mut self, line: impl Display) {
        if let State::Open = self.state {
            if let Err(e) = writeln!(self.out, "{line}") {
                self.fail(e);
            }
        }
    }

    fn fail(&mut self, e: io::Error) {
        self.state = if e.kind() == io::ErrorKind::BrokenPipe {
            State::Closed
        } else {
            State::Failed(e)
        };
    }

    /// Flushes; `Err` when a write failed for another reason than a broken pipe.
    pub fn finish(mut self) -> Result<(), StdoutError> {
        if let State::Open = self.state {
            if let Err(e) = self.out.flush() {
                self.fail(e);
            }
        }
        match self.state {
            State::Failed(e) => Err(StdoutError(e)),
            State::Open | State::Closed => Ok(()),
        }
    }
}

/// Sets up logging on stderr: text or JSON lines, at `info` (the Delta crates at `warn`; `warn` with `quiet`, which
/// also hides progress bars); `RUST_LOG` overrides the level. Each line is written whole between progress-bar
/// redraws.
pub fn init_logs(quiet: bool, format: super::args::LogFormat) {
    use tracing_subscriber::EnvFilter;
    eraflow::export::progress::show_progress_bars(!quiet);
    // The Delta crates log every snapshot they build at info: theirs from warn up.
    let level = match quiet {
        true => "warn",
        false => "info,buoyant_kernel=warn,buoyant_kernel_engine=warn,deltalake_core=warn",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(level));
    let fmt = tracing_subscriber::fmt()
        .with_writer(|| LogLine(Vec::new()))
        .with_env_filter(filter)
        .with_ansi(false);
    let _ = match format {
        super::args::LogFormat::Text => fmt.try_init(),
        super::args::LogFormat::Json => fmt.json().flatten_event(true).try_init(),
    };
}

/// One log line, buffered so that it reaches stderr in one write, with the bars suspended.
struct LogLine(Vec<u8>);

impl Write for LogLine {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for LogLine {
    fn drop(&mut self) {
        if !self.0.is_empty() {
            // Best effort, like every stderr message (see the module's comment).
            eraflow::export::progress::suspend_bars(|| {
                let _ = io::stderr().write_all(&self.0);
            });
        }
    }
}
