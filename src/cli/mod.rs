//! The binary's own modules (not part of the library): clap arguments and the flags-to-job layer.

pub mod args;
pub mod flags;
