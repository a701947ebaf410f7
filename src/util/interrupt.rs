//! SIGTERM and SIGINT for scheduled runs: the first one asks the run to stop — it takes no new file, finishes
//! the files it is in (so no temporary file is left and every output is whole), writes its run report with
//! status `interrupted` and exits 128 + the signal (143 for SIGTERM, 130 for SIGINT). A second signal of the
//! same kind exits at once with that code; the temporaries it leaves are removed by the next run.
//!
//! One process-wide flag, set by the handler and read between files ([`requested`]); library callers (a
//! Python binding, a test) may set it themselves with [`request`].

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// SIGINT's number.
pub const SIGINT: i32 = signal_hook::consts::SIGINT;
/// SIGTERM's number.
pub const SIGTERM: i32 = signal_hook::consts::SIGTERM;

struct State {
    stop: Arc<AtomicBool>,
    signal: Arc<AtomicUsize>,
}

fn state() -> &'static State {
    static S: OnceLock<State> = OnceLock::new();
    S.get_or_init(|| State {
        stop: Arc::new(AtomicBool::new(false)),
        signal: Arc::new(AtomicUsize::new(0)),
    })
}

/// Installs the SIGTERM and SIGINT handlers (once per process; later calls do nothing).
pub fn install() -> std::io::Result<()> {
    static DONE: OnceLock<()> = OnceLock::new();
    if DONE.get().is_some() {
        return Ok(());
    }
    let s = state();
    for sig in [SIGTERM, SIGINT] {
        // In registration order: a second signal exits at once; the first sets the flag and names the signal.
        signal_hook::flag::register_conditional_shutdown(sig, 128 + sig, Arc::clone(&s.stop))?;
        signal_hook::flag::register_usize(sig, Arc::clone(&s.signal), sig as usize)?;
        signal_hook::flag::register(sig, Arc::clone(&s.stop))?;
    }
    let _ = DONE.set(());
    Ok(())
}

/// The signal that asked the run to stop, if one did.
pub fn requested() -> Option<i32> {
    let s = state();
    if !s.stop.load(Ordering::SeqCst) {
        return None;
    }
    match s.signal.load(Ordering::SeqCst) {
        0 => Some(SIGTERM),
        n => Some(n as i32),
    }
}

/// The process-wide stop flag itself, for work that waits on something else than files (downloads): it is
/// set by the first signal, and by [`request`].
pub fn flag() -> Arc<AtomicBool> {
    Arc::clone(&state().stop)
}

/// Asks the run to stop as if `signal` had arrived.
pub fn request(signal: i32) {
    let s = state();
    s.signal.store(signal as usize, Ordering::SeqCst);
    s.stop.store(true, Ordering::SeqCst);
}
