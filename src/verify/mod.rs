//! Verification: everything in an archive that can be checked against something else is checked here.

pub mod era1;
pub mod payload;
pub mod report;
