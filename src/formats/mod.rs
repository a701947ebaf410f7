//! File formats as plain types over bytes: e2store records, snappy framing, the era1, ere and era layouts, the
//! execution archives era1 and ere share ([`ExecutionArchive`], [`execution::BlockRecords`]), and the archive
//! kinds and names ([`ArchiveKind`], [`ArchiveName`], [`Archive`]).
//! Nothing here knows about RLP or SSZ contents; it hands out record slices of the memory map.

pub mod archive;
pub mod e2store;
pub mod era;
pub mod era1;
pub mod ere;
pub mod error;
pub mod execution;
pub mod mapped;
pub mod snappy;

pub use archive::{Archive, ArchiveKind, ArchiveName, EreProfile, UnknownArchiveKind};
pub use error::{FormatError, FormatErrorKind, IoError, Position};
pub use execution::ExecutionArchive;
