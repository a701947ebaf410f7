//! Deterministic synthetic archives: the fixtures that let a fresh clone test everything real files lack
//! (logs, [EIP-2930](https://eips.ethereum.org/EIPS/eip-2930), pre-EIP-155 signatures, post-state-root receipts), and
//! the embedded default of the README's main command.

pub mod blocks;
pub mod era;
pub mod era1;
pub mod ere;
pub mod operations;
pub mod options;
pub mod rng;
mod tokens;

use std::path::{Path, PathBuf};

/// The files a synth stage stands on, and whether this call wrote them (a rerun with the same options finds
/// them made and writes nothing). Derefs to the paths.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Synthesized {
    /// The files, in order.
    pub paths: Vec<PathBuf>,
    /// Written by this call (false: found complete from an earlier one).
    pub made: bool,
}

impl std::ops::Deref for Synthesized {
    type Target = Vec<PathBuf>;
    fn deref(&self) -> &Vec<PathBuf> {
        &self.paths
    }
}

impl std::ops::DerefMut for Synthesized {
    fn deref_mut(&mut self) -> &mut Vec<PathBuf> {
        &mut self.paths
    }
}

/// Runs `write` unless `dir/marker` records that these exact options (`options`, as `key=value` words) and this
/// eraflow version already produced files that all still exist; records them afterwards. Lets a scheduled
/// pipeline start with a synth stage cheaply.
fn once(
    dir: &Path,
    marker: &str,
    options: &str,
    write: impl FnOnce() -> Result<Vec<PathBuf>, era1::SynthError>,
) -> Result<Synthesized, era1::SynthError> {
    let fingerprint = &format!("{options} version={}\n", env!("CARGO_PKG_VERSION"));
    let marker = dir.join(marker);
    if let Ok(text) = std::fs::read_to_string(&marker) {
        if let Some((fp, names)) = text.split_once("--\n") {
            let paths: Vec<PathBuf> = names.lines().map(|n| dir.join(n)).collect();
            if fp == fingerprint && paths.iter().all(|p| p.exists()) {
                return Ok(Synthesized { paths, made: false });
            }
        }
    }
    let paths = write()?;
    let names: Vec<String> = paths
        .iter()
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    crate::util::fs::write_atomic(
        &marker,
        format!("{fingerprint}--\n{}\n", names.join("\n")).as_bytes(),
    )
    .map_err(|source| era1::SynthError::Io {
        path: marker.display().to_string(),
        source,
    })?;
    Ok(Synthesized { paths, made: true })
}
