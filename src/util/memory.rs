//! The process's own memory, as run reports, `prune` and `eraflow bench` quote it.

/// Peak resident memory of this process in bytes (Linux `VmHWM`), when known.
pub fn peak_rss_bytes() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// glibc's `M_MMAP_THRESHOLD` as eraflow sets it: 128 KiB, glibc's own starting value, now fixed.
pub const MMAP_THRESHOLD: i32 = 128 << 10;

/// Keeps freed big buffers from staying in the process's resident memory: glibc's allocator serves blocks of
/// at least [`MMAP_THRESHOLD`] bytes with their own mapping, returned to the kernel when freed.
///
/// Why: glibc starts at 128 KiB but raises the threshold to the size of each mapped block freed (up to 32
/// MiB), after which the big buffers of an export (Arrow arrays, Parquet pages, decompressed records) come
/// from the per-thread heaps, which keep their freed space resident. Measured on mainnet-sized files
/// (docs/performance.md, "The allocator's moving threshold"): the 2-thread export of a Fulu era of 1.1M
/// validators peaked at 995-998 MiB resident with the moving threshold, 880-889 MiB with it fixed, and a dense
/// ere's at 1060 MiB against 938 MiB, for 0-3% more CPU (the mappings' system time). Setting
/// `MALLOC_MMAP_THRESHOLD_` in the environment keeps
/// the operator's value instead. Called once, first thing in `main`; elsewhere (other allocators, other
/// systems) it does nothing.
pub fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if let Some(v) = mmap_threshold(std::env::var_os("MALLOC_MMAP_THRESHOLD_").is_some()) {
        // SAFETY: mallopt only changes the allocator's parameters; called before any thread is started.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, v);
        }
    }
}

/// The threshold to set: none when the operator chose one in the environment.
#[cfg_attr(not(all(target_os = "linux", target_env = "gnu")), allow(dead_code))]
fn mmap_threshold(set_in_environment: bool) -> Option<i32> {
    (!set_in_environment).then_some(MMAP_THRESHOLD)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_operators_threshold_wins() {
        assert_eq!(mmap_threshold(false), Some(128 * 1024));
        assert_eq!(mmap_threshold(true), None);
    }
}
