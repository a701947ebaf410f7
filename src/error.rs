//! Rendering errors once, at the edge. Error types keep their cause as a `#[source]` and say only their own
//! part in `Display` (`path`, `what was being done`); [`render`] joins the chain with `: `, so each layer's
//! prefix appears exactly once whoever prints it (the command line, a run report, the Python package).
//!
//! [`ExitStatus`] is the one definition of how a command ended, as the process exit code scripts rely on; it
//! sits here, below every layer, so each layer can say what its own failures mean.

use std::error::Error;

/// `error: cause: cause …` for an error and its sources. A source whose text its parent's message already
/// contains is skipped, so older `"{path}: {source}"`-style messages do not repeat their cause.
pub fn render(e: &(dyn Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut next = e.source();
    while let Some(s) = next {
        let msg = s.to_string();
        if !msg.is_empty() && !out.contains(&msg) {
            if !out.is_empty() {
                out.push_str(": ");
            }
            out.push_str(&msg);
        }
        next = s.source();
    }
    out
}

/// How a command ended, as a process exit code: the one definition scripts and schedulers rely on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum ExitStatus {
    /// 0: everything verified, the job succeeded.
    #[default]
    Ok,
    /// 1: a check failed or data was bad (the other files were still done).
    DataErrors,
    /// 2: usage or I/O error.
    Usage,
    /// 128 + the signal (143 SIGTERM, 130 SIGINT): stopped between files; a rerun does the rest.
    Interrupted(u8),
}

impl ExitStatus {
    /// The process exit code.
    pub fn code(self) -> u8 {
        match self {
            ExitStatus::Ok => 0,
            ExitStatus::DataErrors => 1,
            ExitStatus::Usage => 2,
            ExitStatus::Interrupted(signal) => 128u8.saturating_add(signal),
        }
    }
}

impl From<ExitStatus> for u8 {
    fn from(s: ExitStatus) -> u8 {
        s.code()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("/out/x.parquet")]
    struct Outer(#[source] std::io::Error);

    #[derive(Debug, thiserror::Error)]
    #[error("prune: {0}")]
    struct Repeats(#[source] std::io::Error);

    #[test]
    fn chain_is_joined_once() {
        let e = Outer(std::io::Error::other("disk full"));
        assert_eq!(render(&e), "/out/x.parquet: disk full");
        let e = Repeats(std::io::Error::other("disk full"));
        assert_eq!(render(&e), "prune: disk full");
    }
}
