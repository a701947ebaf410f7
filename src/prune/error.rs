//! Why no manifest was written.

use super::extsort::SortError;
use crate::formats::FormatError;
use crate::network::NetworkError;
use std::io;
use std::path::Path;

/// Why no manifest was written. Every variant names the file and block(s) involved.
#[derive(Debug, thiserror::Error)]
pub enum PruneError {
    /// No input files.
    #[error("prune: no input files")]
    NoInputs,
    /// An archive could not be opened or its index read.
    #[error("prune: {0}")]
    Open(#[source] FormatError),
    /// The network could not be determined or resolved.
    #[error("prune: {0}")]
    Network(String),
    /// The inputs are archives of more than one network (by their file names): a manifest covers one.
    #[error("prune: the inputs hold {} networks ({}); a manifest covers one network: pass one network's files (e.g. {}-*.era1) or its folder", count_word(.0.len()), .0.join(", "), .0[0])]
    Networks(Vec<String>),
    /// A network preset failed to load.
    #[error("prune: {0}")]
    Preset(#[from] NetworkError),
    /// `from_block >= until_block`, or no input block falls in the range.
    #[error("prune: empty range: {0}")]
    EmptyRange(String),
    /// The inputs reach the first proof-of-stake block and no explicit `--until-block` was given.
    #[error("prune: {file} holds blocks {first}..={last}, which reach {network}'s first proof-of-stake block {first_pos_block}; post-merge blocks are only included with an explicit --until-block (e.g. --until-block {first_pos_block} for pre-merge history only)")]
    CrossesMerge {
        /// The archive reaching past the merge.
        file: String,
        /// Its first block.
        first: u64,
        /// Its last block.
        last: u64,
        /// Network name.
        network: String,
        /// The network's first proof-of-stake block.
        first_pos_block: u64,
    },
    /// Two archives cover some of the same blocks.
    #[error("prune: {a} (blocks {a_first}..={a_last}) and {b} (blocks {b_first}..={b_last}) overlap; pass each block once")]
    Overlap {
        /// Earlier file.
        a: String,
        /// Its first block.
        a_first: u64,
        /// Its last block.
        a_last: u64,
        /// Later file.
        b: String,
        /// Its first block.
        b_first: u64,
        /// Its last block.
        b_last: u64,
    },
    /// Blocks in the range that no archive covers (without `--allow-gaps`).
    #[error("prune: gap: blocks {first}..={last} are in the range but in no input file ({context}); add the missing archives or pass --allow-gaps to record the gap")]
    Gap {
        /// First missing block.
        first: u64,
        /// Last missing block.
        last: u64,
        /// Neighbouring files.
        context: String,
    },
    /// An archive failed verification: nothing from it (or the run) is written.
    #[error("prune: {file} did not verify ({} error{}): {}", .errors.len(), if .errors.len() == 1 { "" } else { "s" }, .errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Unverified {
        /// The archive.
        file: String,
        /// The verifier's errors (bounded).
        errors: Vec<crate::verify::report::ReportError>,
    },
    /// Consecutive archives do not chain (parent hash or total difficulty across the boundary).
    #[error("prune: {file}: block {block}: {what}: expected {expected} (end of {previous}), found {found}")]
    Discontinuity {
        /// The later archive.
        file: String,
        /// Its first block.
        block: u64,
        /// The previous archive.
        previous: String,
        /// What did not chain.
        what: &'static str,
        /// Value from the previous file.
        expected: String,
        /// Value in this file.
        found: String,
    },
    /// Sorting transaction hashes failed (spill I/O or a duplicate hash).
    #[error("prune: {0}")]
    Sort(#[from] SortError),
    /// The destination exists and is not an earlier manifest directory; it is never overwritten.
    #[error("prune: {0}: exists and is not a prune manifest directory (no manifest.json); refusing to replace it")]
    OutputExists(String),
    /// Writing an output failed.
    #[error("prune: {path}: {source}")]
    Io {
        /// The file or directory.
        path: String,
        /// The underlying error.
        source: io::Error,
    },
    /// Writing the Parquet file failed.
    #[error("prune")]
    Parquet(#[source] crate::sink::parquet::SinkError),
    /// Building a batch of the Parquet file failed.
    #[error("prune: {path}")]
    Arrow {
        /// The file.
        path: String,
        /// What Arrow said.
        #[source]
        source: arrow_schema::ArrowError,
    },
}

impl PruneError {
    /// `file` did not verify: the errors of its report, with how many more were left out.
    pub(super) fn unverified(file: &str, report: &crate::verify::report::FileReport) -> PruneError {
        let mut errors = report.errors.clone();
        if report.errors_omitted > 0 {
            errors.push(format!("... and {} more", report.errors_omitted).into());
        }
        PruneError::Unverified {
            file: file.to_string(),
            errors,
        }
    }
    /// True when the data (archives) is at fault rather than usage or the environment: `eraflow prune` exits 1
    /// for these and 2 for the rest.
    pub fn is_data_error(&self) -> bool {
        if let PruneError::Open(e) = self {
            // A file that cannot be read (permissions, gone) is I/O; one that does not parse is bad data.
            return !e.is_io();
        }
        matches!(
            self,
            PruneError::Overlap { .. }
                | PruneError::Gap { .. }
                | PruneError::Unverified { .. }
                | PruneError::Discontinuity { .. }
                | PruneError::Sort(SortError::Duplicate(_))
        )
    }
}

/// "two", "three", ... for small counts, digits beyond.
fn count_word(n: usize) -> String {
    const WORDS: [&str; 9] = [
        "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    ];
    n.checked_sub(2)
        .and_then(|i| WORDS.get(i))
        .map_or_else(|| n.to_string(), |w| (*w).to_string())
}

/// Maps an I/O error to [`PruneError::Io`] naming `path`.
pub(super) fn io_at(path: &Path) -> impl FnOnce(io::Error) -> PruneError + '_ {
    move |source| PruneError::Io {
        path: path.display().to_string(),
        source,
    }
}
