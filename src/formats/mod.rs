//! File formats as plain types over bytes: e2store records, snappy framing, era1 and era layouts, and the
//! archive kinds and names ([`ArchiveKind`], [`ArchiveName`], [`Archive`]).
//! Nothing here knows about RLP or SSZ contents; it hands out record slices of the memory map.

pub mod archive;
pub mod e2store;
pub mod era;
pub mod era1;
pub mod error;
pub mod mapped;
pub mod snappy;

pub use archive::{Archive, ArchiveKind, ArchiveName, UnknownArchiveKind};
pub use error::{FormatError, FormatErrorKind, IoError, Position};
