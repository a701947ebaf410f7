//! Timing a stage: best wall-clock and worker CPU time over repeated runs, and the memory a run adds.

use super::BenchError;
use std::time::Instant;

pub(super) fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

pub(super) fn pool(threads: usize) -> Result<rayon::ThreadPool, BenchError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|source| BenchError::Pool { threads, source })
}

/// CPU time of the calling thread in ns (Linux `/proc/thread-self/schedstat`; exact to a scheduler tick),
/// `None` elsewhere.
pub(super) fn thread_cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// A stage's best wall-clock time, and on a one-thread pool its best worker CPU time, in seconds; the most
/// memory one of its runs added (see [`Measurement::peak_rss_added_bytes`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct Timing {
    pub(super) wall: f64,
    pub(super) cpu: Option<f64>,
    pub(super) rss: Option<u64>,
}

/// A `/proc/self/status` field in bytes (Linux).
pub(super) fn status_bytes(key: &str) -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with(key))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Starts measuring the peak RSS of what runs next: frees what the allocator holds unused (so memory an earlier
/// stage freed is not silently reused and undercounted), resets the kernel's high-water mark (`5` to
/// `/proc/self/clear_refs`, Linux 4.0+) and returns the RSS now. `None` when the mark cannot be reset.
pub(super) fn start_peak_rss() -> Option<u64> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free heap pages to the system; it has no other effect.
    unsafe {
        libc::malloc_trim(0);
    }
    std::fs::write("/proc/self/clear_refs", "5").ok()?;
    status_bytes("VmRSS:")
}

/// Best of `runs` timings of `f` in `pool`; every run must return `Ok`.
pub(super) fn best(
    pool: &rayon::ThreadPool,
    runs: usize,
    stage: &str,
    f: impl Fn() -> Result<(), String> + Sync + Send,
) -> Result<Timing, BenchError> {
    let one_thread = pool.current_num_threads() == 1;
    let mut best = Timing {
        wall: f64::INFINITY,
        cpu: None,
        rss: None,
    };
    for _ in 0..runs.max(1) {
        let rss0 = start_peak_rss();
        let t = Instant::now();
        let cpu = pool
            .install(|| {
                let c0 = thread_cpu_ns();
                f().map(|()| c0.zip(thread_cpu_ns()).map(|(a, b)| (b - a) as f64 / 1e9))
            })
            .map_err(|detail| BenchError::Stage {
                stage: stage.to_string(),
                detail,
            })?;
        best.wall = best.wall.min(t.elapsed().as_secs_f64());
        if let Some(added) = rss0
            .zip(status_bytes("VmHWM:"))
            .map(|(a, b)| b.saturating_sub(a))
        {
            best.rss = Some(best.rss.map_or(added, |r| r.max(added)));
        }
        if let (true, Some(c)) = (one_thread, cpu) {
            best.cpu = Some(best.cpu.map_or(c, |b: f64| b.min(c)));
        }
    }
    Ok(best)
}
