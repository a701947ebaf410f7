//! The binary's own modules (not part of the library): clap arguments, one function per command, the
//! flags-to-job layer, and standard output without panics.

// `output` first: its `note!` macro is textually scoped, so the modules after it can use it.
#[macro_use]
pub mod output;
pub mod args;
pub mod commands;
pub mod flags;
