//! The binary's own modules (not part of the library): clap arguments, the flags-to-job layer, and standard
//! output without panics.

pub mod args;
pub mod flags;
#[macro_use]
pub mod output;
