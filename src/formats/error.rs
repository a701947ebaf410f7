//! The one error type of the format layer: it names the file, the byte offset of the record, the block when
//! known, and what was expected against what was found, so a user can open the file at that offset.

use std::fmt;
use std::path::{Path, PathBuf};

/// What went wrong, without the location (see [`FormatError`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatErrorKind {
    #[error("truncated: expected {expected} more bytes, found {found}")]
    Truncated { expected: u64, found: u64 },
    #[error("e2store header reserved bytes must be zero, found {found:#06x}")]
    ReservedNotZero { found: u16 },
    #[error("record length {found} exceeds the cap of {cap} bytes")]
    RecordTooLarge { found: u64, cap: u64 },
    #[error("expected a {expected} record, found type {found}")]
    UnexpectedRecord {
        expected: &'static str,
        found: String,
    },
    #[error("snappy framing: {0}")]
    Snappy(String),
    #[error("snappy CRC32C mismatch: expected {expected:#010x}, found {found:#010x}")]
    SnappyCrc { expected: u32, found: u32 },
    #[error("decompressed size {found} exceeds the cap of {cap} bytes")]
    DecompressedTooLarge { found: u64, cap: u64 },
    #[error("index: {0}")]
    Index(String),
    #[error("RLP: {0}")]
    Rlp(String),
    #[error("{what}: expected {expected}, found {found}")]
    Mismatch {
        what: &'static str,
        expected: String,
        found: String,
    },
    #[error("file name: {0}")]
    FileName(String),
    #[error("I/O: {0}")]
    Io(String),
}

/// Where in the chain an error is: an execution block number or a beacon slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    /// An execution block number.
    Block(u64),
    /// A beacon slot.
    Slot(u64),
}

/// A format error located in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatError {
    /// The archive file (empty when parsing bytes that came from no file).
    pub file: PathBuf,
    /// Byte offset of the record (or field) that failed, from the start of the file.
    pub offset: u64,
    /// The execution block (era1) or beacon slot (era) the error is about, when known.
    pub position: Option<Position>,
    pub kind: FormatErrorKind,
}

impl FormatError {
    /// An error at `offset` of bytes not yet tied to a file; [`FormatError::in_file`] adds the file.
    pub fn at(offset: u64, kind: FormatErrorKind) -> Self {
        FormatError {
            file: PathBuf::new(),
            offset,
            position: None,
            kind,
        }
    }

    /// Names the file the error happened in.
    pub fn in_file(mut self, file: &Path) -> Self {
        if self.file.as_os_str().is_empty() {
            self.file = file.to_path_buf();
        }
        self
    }

    /// Names the block (or slot) the error happened in.
    /// Names the beacon slot (era files), unless one is already named.
    pub fn in_slot(mut self, slot: u64) -> Self {
        self.position.get_or_insert(Position::Slot(slot));
        self
    }

    pub fn in_block(mut self, block: u64) -> Self {
        self.position.get_or_insert(Position::Block(block));
        self
    }
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.file.as_os_str().is_empty() {
            write!(f, "{}: ", self.file.display())?;
        }
        write!(f, "at byte offset {}", self.offset)?;
        match self.position {
            Some(Position::Block(b)) => write!(f, " (block {b})")?,
            Some(Position::Slot(s)) => write!(f, " (slot {s})")?,
            None => {}
        }
        write!(f, ": {}", self.kind)
    }
}

impl std::error::Error for FormatError {}
