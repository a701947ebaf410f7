//! The one way tests reach the real archive files in `../shared/data` (never copied into the repository).
//!
//! `ERAFLOW_TEST_DATA` overrides the location. When the data is absent the caller skips, and says so loudly on
//! stderr and in the count at the end of the run ([`crate::skip`]), so a green run without data is never mistaken
//! for a run that checked real chain data.

use std::path::PathBuf;

/// The test-data root (`$ERAFLOW_TEST_DATA`, default `../shared/data` relative to the crate root), or `None`
/// after printing a loud SKIP line naming `what` when it does not exist.
pub fn dir(what: &str) -> Option<PathBuf> {
    let root = match std::env::var_os("ERAFLOW_TEST_DATA") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data"),
    };
    if root.join("PROVENANCE.md").exists() {
        Some(root)
    } else {
        crate::skip::skip(
            what,
            &format!(
                "real test data not found at {} (set ERAFLOW_TEST_DATA)",
                root.display()
            ),
        );
        None
    }
}

/// A file under the test-data root, or `None` (with the loud skip) when the data is absent.
pub fn file(rel: &str) -> Option<PathBuf> {
    let p = dir(rel)?.join(rel);
    if p.exists() {
        Some(p)
    } else {
        crate::skip::skip(rel, &format!("{} missing from the test data", p.display()));
        None
    }
}
