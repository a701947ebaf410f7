//! File formats as plain types over bytes: e2store records, snappy framing, era1 and era layouts.
//! Nothing here knows about RLP or SSZ contents; it hands out record slices of the memory map.

pub mod e2store;
pub mod era;
pub mod era1;
pub mod error;
pub mod snappy;

pub use error::{FormatError, FormatErrorKind, Position};
