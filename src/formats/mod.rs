//! File formats as plain types over bytes, bottom to top: names and kinds ([`name`]: [`ArchiveKind`],
//! [`ArchiveName`], what each kind [`Holds`]), the e2store container ([`e2store`]: records, snappy framing, the
//! memory map and the [`MappedArchive`] trait every file type implements), one execution block's records
//! ([`block`]), one folder per format ([`era1`], [`ere`], [`era`]: reader and writer each), and on top the
//! execution archives era1 and ere share ([`ExecutionArchive`]) and an archive of any kind ([`Archive`]).
//! Nothing here knows about RLP or SSZ contents; it hands out record slices of the memory map.

pub mod archive;
pub mod block;
pub mod e2store;
pub mod era;
pub mod era1;
pub mod ere;
pub mod error;
pub mod execution;
pub mod name;

pub use archive::Archive;
pub use e2store::{mapped, snappy, MappedArchive};
pub use error::{FormatError, FormatErrorKind, IoError, Position};
pub use execution::ExecutionArchive;
pub use name::{
    ArchiveKind, ArchiveName, EreProfile, Holds, Need, Receipts, UnknownArchiveKind, BLOCKS_PER_ERA,
};
