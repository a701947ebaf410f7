//! The one error type of the format layer: it names the file, the byte offset of the record, the block when
//! known, and what was expected against what was found, so a user can open the file at that offset.

use std::fmt;
use std::path::{Path, PathBuf};

/// What went wrong, without the location (see [`FormatError`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatErrorKind {
    /// The input ended inside a record header or its data, or a file is too short for the trailer its
    /// index declares.
    #[error("truncated: expected {expected} more bytes, found {found}")]
    Truncated {
        /// Bytes the header, length field or index called for from this offset.
        expected: u64,
        /// Bytes actually left in the input from this offset.
        found: u64,
    },
    /// An e2store record header's last two bytes (reserved, must be zero) are not zero: usually a sign of
    /// reading from a wrong offset or of a file that is not e2store.
    #[error("e2store header reserved bytes must be zero, found {found:#06x}")]
    ReservedNotZero {
        /// The reserved field, as a little-endian u16.
        found: u16,
    },
    /// A record's length field exceeds [`MAX_RECORD_LEN`](super::e2store::MAX_RECORD_LEN) (a guard against
    /// allocating for garbage input).
    #[error("record length {found} exceeds the cap of {cap} bytes")]
    RecordTooLarge {
        /// The declared data length, in bytes.
        found: u64,
        /// The cap, in bytes.
        cap: u64,
    },
    /// A record of another type sits where the layout requires a specific one (e.g. a `CompressedBody` after
    /// each `CompressedHeader` of an era1 block tuple).
    #[error("expected a {expected} record, found type {found}")]
    UnexpectedRecord {
        /// Name of the record type the layout requires (`"CompressedHeader"`, `"SlotIndex"`, ...).
        expected: &'static str,
        /// The type found, as [`RecordType::name`](super::e2store::RecordType::name) renders it (name and hex).
        found: String,
    },
    /// A snappy framed stream is malformed (bad chunk header, missing stream identifier, reserved chunk type,
    /// undecodable compressed chunk); the message gives the offset within the stream.
    #[error("snappy framing: {0}")]
    Snappy(String),
    /// A snappy data chunk decompressed, but its masked CRC-32C does not match the bytes it produced.
    #[error("snappy CRC32C mismatch: expected {expected:#010x}, found {found:#010x}")]
    SnappyCrc {
        /// The masked CRC stored in the chunk.
        expected: u32,
        /// The masked CRC of the decompressed bytes.
        found: u32,
    },
    /// A snappy stream would decompress past the decoder's output cap (see
    /// [`FramedDecoder::with_max_output`](super::snappy::FramedDecoder::with_max_output)): a guard against
    /// decompression bombs.
    #[error("decompressed size {found} exceeds the cap of {cap} bytes")]
    DecompressedTooLarge {
        /// Bytes the stream had produced including the chunk that crossed the cap.
        found: u64,
        /// The cap, in bytes.
        cap: u64,
    },
    /// An era1 block index or era slot index is inconsistent (wrong size for its count, a count out of range,
    /// an entry pointing outside the file's records, no entry for a requested block); era verification also
    /// reports here SSZ content of a record that does not decode (`"BeaconState: ..."`).
    #[error("index: {0}")]
    Index(String),
    /// The RLP inside a decompressed era1 record (header, body, receipts, transaction) did not decode.
    #[error("RLP: {0}")]
    Rlp(String),
    /// A value read from the file disagrees with what the layout or another record implies (an accumulator
    /// that is not 32 bytes, a block slot index that does not start 8192 slots before the state's, ...).
    #[error("{what}: expected {expected}, found {found}")]
    Mismatch {
        /// What was compared (`"accumulator length"`, `"block count"`, ...).
        what: &'static str,
        /// The value the format or the other source requires, rendered for the message.
        expected: String,
        /// The value in the file, rendered for the message.
        found: String,
    },
    /// A file name is not canonical: `<network>-<era:05>-<hash8>.era1` for era1 files, `.era` for era files.
    #[error("file name: {0}")]
    FileName(String),
    /// Opening, reading or memory-mapping the file failed; the OS error is kept as the source.
    #[error("I/O: {0}")]
    Io(#[source] IoError),
    /// The file changed while it was being read (shrank under its memory map, or was written to): what was
    /// read cannot be trusted, so the file fails, as an I/O error. See [`super::mapped`].
    #[error("I/O: the file changed while it was being read ({0}); rerun once it is complete")]
    Changed(String),
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
    /// What went wrong.
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

    /// Whether the file could not be read at all (opened, mapped, or it changed while read): an I/O failure,
    /// which says nothing about the data (exit 2, not 1).
    pub fn is_io(&self) -> bool {
        matches!(
            self.kind,
            FormatErrorKind::Io(_) | FormatErrorKind::Changed(_)
        )
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

    /// Names the execution block (era1 files), unless a block or slot is already named: the innermost
    /// caller, which knows the most precise position, wins.
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

impl std::error::Error for FormatError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&self.kind)
    }
}

/// An OS error inside a [`FormatError`]: shared, so format errors stay cheap to clone, and compared by kind and
/// message, so errors stay comparable in tests.
#[derive(Debug, Clone)]
pub struct IoError(pub std::sync::Arc<std::io::Error>);

impl From<std::io::Error> for IoError {
    fn from(e: std::io::Error) -> Self {
        IoError(std::sync::Arc::new(e))
    }
}

impl PartialEq for IoError {
    fn eq(&self, other: &Self) -> bool {
        self.0.kind() == other.0.kind() && self.0.to_string() == other.0.to_string()
    }
}

impl Eq for IoError {}

impl fmt::Display for IoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for IoError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}
