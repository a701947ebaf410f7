//! Small helpers below every other module: atomic file output ([`fs`]), dates ([`time`]), the process's peak
//! memory ([`memory`]) and the stop-between-files signal flag ([`interrupt`]). Nothing here knows an archive.

pub mod fs;
pub mod interrupt;
pub mod memory;
pub mod time;
