//! The TLS provider of every HTTPS request (object stores, mirrors, beacon nodes): rustls on ring, installed once
//! as the process default before any client is built. reqwest is built without a provider of its own
//! (`rustls-no-provider`), which keeps aws-lc-rs and its C library out of the build.

use std::sync::Once;

static INSTALL: Once = Once::new();

/// Installs ring as the process's rustls provider, once; a no-op when one is installed already (by this process's
/// host, e.g. the Python module loaded beside another user of rustls).
pub fn install() {
    INSTALL.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}
