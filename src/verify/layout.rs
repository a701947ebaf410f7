//! The record layout against the index, walked record by record in file order: each kind's layout is the only
//! part of verification that differs between era1 and ere files. era1: block tuples in order, each header where
//! the index says. ere: each component's records in block order, each where its index entry says, exactly as
//! many as the index has blocks, and no records of a component the index does not list; the optional
//! `AccumulatorRoot` right before the index.

use super::report::FileReport;
use crate::formats::e2store::{E2StoreReader, RecordType};
use crate::formats::era1::Era1File;
use crate::formats::ere::{Component, EreFile};
use crate::formats::MappedArchive;
use crate::formats::{ExecutionArchive, FormatError, FormatErrorKind};
use std::collections::BTreeMap;

/// Walks every record of `file` in order, checking it against the index, and counts record types into the
/// report.
pub(super) fn walk_records(file: &ExecutionArchive, report: &mut FileReport) {
    match file {
        ExecutionArchive::Era1(f) => walk_era1(f, report),
        ExecutionArchive::Ere(f) => walk_ere(f, report),
    }
}

/// Record counts by type name (counted by type bytes, named once: naming allocates).
fn named_counts(by_kind: Vec<([u8; 2], u64)>) -> BTreeMap<String, u64> {
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    for (kind, n) in by_kind {
        *counts.entry(RecordType(kind).name()).or_default() += n;
    }
    counts
}

/// Counts one record of type `kind` in a short list: a file holds a handful of types, and a linear search beats a
/// map lookup per record.
fn count(by_kind: &mut Vec<([u8; 2], u64)>, kind: RecordType) {
    match by_kind.iter_mut().find(|(k, _)| *k == kind.0) {
        Some((_, n)) => *n += 1,
        None => by_kind.push((kind.0, 1)),
    }
}

/// Walks every record of an era1 file in order: checks the tuple order against the index and counts record types.
fn walk_era1(file: &Era1File, report: &mut FileReport) {
    let index = file.index();
    let mut next_block = 0usize;
    // Counted by type and named once at the end: naming allocates, and there are four records per block. A
    // file holds a handful of types: a short list searched linearly beats a map lookup per record.
    let mut by_kind: Vec<([u8; 2], u64)> = Vec::new();
    let bytes = file.bytes();
    for rec in E2StoreReader::new(bytes) {
        let rec = match rec {
            Ok(r) => r,
            Err(e) => {
                report.error(e.in_file(file.path()));
                break;
            }
        };
        match by_kind.iter_mut().find(|(k, _)| *k == rec.kind.0) {
            Some((_, n)) => *n += 1,
            None => by_kind.push((rec.kind.0, 1)),
        }
        if rec.kind == RecordType::COMPRESSED_HEADER {
            prefetch_tuples(bytes, &index.offsets, next_block);
            let expected = index.offsets.get(next_block).copied();
            if expected != Some(rec.offset) {
                report.error(
                    FormatError::at(
                        rec.offset,
                        FormatErrorKind::Index(format!(
                            "header record #{next_block} is here, but the index says {}",
                            expected.map_or("nothing".to_string(), |o| format!("offset {o}"))
                        )),
                    )
                    .in_file(file.path())
                    .in_block(index.start + next_block as u64),
                );
            }
            next_block += 1;
        }
    }
    if next_block as u64 != index.len() {
        report.error(
            FormatError::at(
                index.record_offset,
                FormatErrorKind::Mismatch {
                    what: "block count",
                    expected: format!("{} (index)", index.len()),
                    found: format!("{next_block} header records"),
                },
            )
            .in_file(file.path()),
        );
    }
    report.record_counts = named_counts(by_kind);
}

/// Blocks between the stages of [`prefetch_tuples`]: far enough ahead to cover a memory access.
const PREFETCH_STEP: usize = 4;

/// Hints the CPU to fetch the record headers of blocks ahead of `block`, which the walk reaches later: each
/// record's position depends on the previous record's length, so without this every record header is a cache
/// miss in a chain. Staged through the index: the header record of block `block + 4 step`, then the body,
/// receipts and total-difficulty record headers of blocks `3`, `2` and `1` steps ahead, each located from
/// record headers fetched one stage earlier. Only hints: nothing read here is trusted or reported.
#[inline]
fn prefetch_tuples(bytes: &[u8], offsets: &[u64], block: usize) {
    let at = |k: usize| offsets.get(block + k * PREFETCH_STEP).copied();
    // The end of the record starting at `pos`, if its header is in the file.
    let next = |pos: u64| -> Option<u64> {
        let start = usize::try_from(pos).ok()?;
        let h = bytes.get(start..start.checked_add(8)?)?;
        let len = u32::from_le_bytes([h[2], h[3], h[4], h[5]]);
        pos.checked_add(8 + u64::from(len))
    };
    prefetch(bytes, at(4));
    let body = at(3).and_then(next);
    prefetch(bytes, body);
    let receipts = at(2).and_then(next).and_then(next);
    prefetch(bytes, receipts);
    let td = at(1).and_then(next).and_then(next).and_then(next);
    prefetch(bytes, td);
}

/// A prefetch hint for the cache line holding `bytes[pos]` (nothing when out of range or not on x86-64).
#[inline(always)]
fn prefetch(bytes: &[u8], pos: Option<u64>) {
    let Some(p) = pos
        .and_then(|p| usize::try_from(p).ok())
        .and_then(|p| bytes.get(p))
    else {
        return;
    };
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults, and `p` points into `bytes` anyway.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            std::ptr::from_ref(p).cast(),
        )
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Walks every record of an ere file in order. Components may be grouped (the spec) or interleaved block by
/// block: only each component's own order is checked, against its index entries.
fn walk_ere(file: &EreFile, report: &mut FileReport) {
    let index = file.index();
    let path = file.path();
    let mut by_kind: Vec<([u8; 2], u64)> = Vec::new();
    // Records seen so far per component, in `Component::ALL` order.
    let mut seen = [0u64; 5];
    // Records of a component the index does not list: (component, first offset, count).
    let mut unlisted: Vec<(Component, u64, u64)> = Vec::new();
    let mut accumulators: Vec<u64> = Vec::new();
    let mut errors = 0usize;
    for rec in E2StoreReader::new(file.bytes()) {
        let rec = match rec {
            Ok(r) => r,
            Err(e) => {
                report.error(e.in_file(path));
                break;
            }
        };
        count(&mut by_kind, rec.kind);
        if rec.kind == RecordType::ACCUMULATOR {
            accumulators.push(rec.offset);
            continue;
        }
        let Some(c) = Component::of(rec.kind) else {
            continue; // Version, the index, other entries
        };
        if !index.has(c) {
            match unlisted.iter_mut().find(|(u, _, _)| *u == c) {
                Some((_, _, n)) => *n += 1,
                None => unlisted.push((c, rec.offset, 1)),
            }
            continue;
        }
        let k = seen[c.position()];
        seen[c.position()] += 1;
        let expected = if k < index.count {
            file.component_offset(k, c).ok().flatten()
        } else {
            None
        };
        // One error per mismatch would repeat itself 8192 times for a shifted section: name the first few.
        if expected != Some(rec.offset) && errors < 8 {
            errors += 1;
            report.error(
                FormatError::at(
                    rec.offset,
                    FormatErrorKind::Index(format!(
                        "{} record #{k} is here, but the index says {}",
                        c.name(),
                        expected.map_or("nothing".to_string(), |o| format!("offset {o}"))
                    )),
                )
                .in_file(path)
                .in_block(index.start.saturating_add(k)),
            );
        }
    }
    for c in index.order() {
        let n = seen[c.position()];
        if n != index.count {
            report.error(
                FormatError::at(
                    index.record_offset,
                    FormatErrorKind::Mismatch {
                        what: "block count",
                        expected: format!("{} (index)", index.count),
                        found: format!("{n} {} records", c.name()),
                    },
                )
                .in_file(path),
            );
        }
    }
    for (c, at, n) in unlisted {
        report.error(
            FormatError::at(
                at,
                FormatErrorKind::Mismatch {
                    what: "components",
                    expected: format!(
                        "{} entries per block ({}), so no {} records",
                        index.components,
                        index
                            .order()
                            .iter()
                            .map(|c| c.name())
                            .collect::<Vec<_>>()
                            .join(", "),
                        c.name()
                    ),
                    found: format!("{n} {} records", c.name()),
                },
            )
            .in_file(path),
        );
    }
    let expected_accumulator = file.accumulator().map(|(_, at)| at);
    for at in accumulators {
        if Some(at) != expected_accumulator {
            report.error(
                FormatError::at(
                    at,
                    FormatErrorKind::Index(
                        "an AccumulatorRoot record must come right before the DynamicBlockIndex, and only once"
                            .into(),
                    ),
                )
                .in_file(path),
            );
        }
    }
    report.record_counts = named_counts(by_kind);
}
