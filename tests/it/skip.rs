//! Skipped checks that cannot be mistaken for passes. libtest captures a passing test's output, so a skip
//! printed with `eprintln!` vanishes behind an `ok`; [`skip`] writes to the terminal directly (past the capture),
//! names the test (libtest runs each test on a thread named after it), and counts it, and the count with every
//! reason is printed when the test binary exits, after libtest's own summary.

use std::io::Write;
use std::sync::Mutex;

static SKIPPED: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Records that the running test skipped `what` because of `why` (the dependency that is missing and how to get
/// it), and says so on stderr now.
pub fn skip(what: &str, why: &str) {
    let test = std::thread::current()
        .name()
        .unwrap_or("(unnamed test)")
        .to_string();
    let line = format!("{test}: {what}: {why}");
    // Straight to the file descriptor: libtest captures `eprintln!`, not writes to `std::io::stderr()`.
    let _ = writeln!(std::io::stderr(), "\n!!!!! SKIPPED {line} !!!!!");
    let mut all = SKIPPED.lock().unwrap_or_else(|e| e.into_inner());
    if all.is_empty() {
        // SAFETY: `summary` is a plain `extern "C" fn()` that only reads a static; atexit runs it once.
        unsafe {
            libc::atexit(summary);
        }
    }
    all.push(line);
}

/// Whether `python3` imports `imports` (`"duckdb, polars"`): when not, a panic where the environment variable
/// `require` is set (CI installs them: a missing one is a failure there), else a loud skip of `what` naming the
/// `pip` packages that enable it.
// Test binaries that include this file without checking Python (tests/prune_signer.rs) leave it unused.
#[allow(dead_code)]
pub fn python_has(imports: &str, pip: &str, require: &str, what: &str) -> bool {
    // The probe's stderr is captured: a missing module is one line of cause in the skip, not a traceback.
    let cause = match std::process::Command::new("python3")
        .args(["-c", &format!("import {imports}")])
        .output()
    {
        Ok(o) if o.status.success() => return true,
        Ok(o) => last_line(&String::from_utf8_lossy(&o.stderr))
            .unwrap_or_else(|| format!("python3 exited with {}", o.status)),
        Err(e) => format!("python3: {e}"),
    };
    if std::env::var_os(require).is_some() {
        panic!("python3 that imports {imports} is required ({require} is set): {cause}; pip install {pip}");
    }
    skip(
        what,
        &format!("python3 does not import {imports}: {cause} (pip install {pip})"),
    );
    false
}

/// The last non-empty line of a process's stderr: a Python traceback's cause (`ModuleNotFoundError: No module
/// named 'polars'`).
#[allow(dead_code)] // as python_has
fn last_line(stderr: &str) -> Option<String> {
    stderr
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .map(String::from)
}

/// Printed at exit: how many checks were skipped and why, so the end of a run says what it did not check.
extern "C" fn summary() {
    let all = SKIPPED.lock().unwrap_or_else(|e| e.into_inner());
    let mut err = std::io::stderr();
    let _ = writeln!(
        err,
        "\n!!!!! {} check{} SKIPPED (not run, not passed); each names what enables it:",
        all.len(),
        if all.len() == 1 { "" } else { "s" }
    );
    for l in all.iter() {
        let _ = writeln!(err, "  SKIPPED {l}");
    }
    let _ = writeln!(err);
}
