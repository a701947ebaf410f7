//! The one tokio runtime and the one retry policy of every remote request: mirror downloads and listings,
//! object-store reads and writes, beacon-node answers. eraflow's work runs on rayon workers (and the main
//! thread) that block on each call; the runtime's two threads only drive the connections, so its size does not
//! grow with the work.
//!
//! The policy is written once here. Mirrors (our own retry loop in [`super::fetch`], which also cuts stalled
//! bodies) read it directly; object-store and beacon clients get it as `object_store`'s [`RetryConfig`], so a
//! request is never retried by two loops at once (object-store inputs are built with the store's own retries
//! off, as [`super::fetch`] retries them).

use object_store::{BackoffConfig, RetryConfig};
use std::sync::OnceLock;
use std::time::Duration;

/// The runtime every remote request of this process runs on, started on first use (TLS provider first:
/// [`super::tls::install`]).
pub fn runtime() -> std::io::Result<&'static tokio::runtime::Runtime> {
    static RT: OnceLock<std::io::Result<tokio::runtime::Runtime>> = OnceLock::new();
    super::tls::install();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("eraflow-io")
            .enable_all()
            .build()
    })
    .as_ref()
    .map_err(|e| std::io::Error::new(e.kind(), e.to_string()))
}

/// How a request that failed in transport (or with a server's temporary failure) is tried again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retry {
    /// Attempts in all, the first included.
    pub attempts: u32,
    /// The wait before the second attempt; each later wait doubles it.
    pub first_wait: Duration,
    /// The longest wait.
    pub max_wait: Duration,
    /// No new attempt after this long since the first (credentials and payloads of a signed request must
    /// stay valid).
    pub give_up_after: Duration,
}

/// The policy of every remote request: 6 attempts, waiting 0.2 s, 0.4 s, ... at most 6.4 s between them.
pub const RETRY: Retry = Retry {
    attempts: 6,
    first_wait: Duration::from_millis(200),
    max_wait: Duration::from_millis(6400),
    give_up_after: Duration::from_secs(180),
};

impl Retry {
    /// The wait before attempt `attempt` (1 = the first retry).
    pub fn wait(&self, attempt: u32) -> Duration {
        let doubled = self
            .first_wait
            .saturating_mul(1u32 << attempt.saturating_sub(1).min(16));
        doubled.min(self.max_wait)
    }

    /// The policy as `object_store` takes it (its backoff adds jitter up to the wait).
    pub fn object_store(&self) -> RetryConfig {
        RetryConfig {
            backoff: BackoffConfig {
                init_backoff: self.first_wait,
                max_backoff: self.max_wait,
                base: 2.0,
            },
            max_retries: self.attempts.saturating_sub(1) as usize,
            retry_timeout: self.give_up_after,
        }
    }

    /// No retries: for clients whose every request is already retried by our own loop.
    pub fn none() -> RetryConfig {
        RetryConfig {
            max_retries: 0,
            ..RETRY.object_store()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_double_up_to_the_cap() {
        let w: Vec<u64> = (1..=8).map(|a| RETRY.wait(a).as_millis() as u64).collect();
        assert_eq!(w, [200, 400, 800, 1600, 3200, 6400, 6400, 6400]);
        assert_eq!(RETRY.object_store().max_retries, 5);
        assert_eq!(Retry::none().max_retries, 0);
    }

    #[test]
    fn one_runtime_per_process() {
        let a = runtime().expect("runtime") as *const _;
        let b = runtime().expect("runtime") as *const _;
        assert_eq!(a, b);
    }
}
