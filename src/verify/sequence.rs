//! The checks of an era1 or ere file that need its blocks in order, after the parallel pass: parent hashes,
//! total difficulty, the merge (mined blocks before proof-of-stake ones), the accumulator against its record,
//! the genesis hash, and the file name (era, hash, profile). What differs by kind: era1 roots its accumulator over
//! every block and names the file by the accumulator root; ere roots it over the pre-merge blocks only (when it
//! has total difficulties), may lack it, and names the file by its last block's hash and its profile.

use super::report::FileReport;
use super::tally::BlockFacts;
use super::{hex0x, mismatch};
use crate::execution::accumulator::HeaderRecords;
use crate::formats::execution::BLOCKS_PER_ERA;
use crate::formats::{ArchiveName, ExecutionArchive};
use crate::network::Network;
use alloy_primitives::U256;
use std::path::Path;

/// OpenEthereum's AuRa score rule (`calculate_score`, enforced from genesis on gnosis and chiado: their chain specs
/// set no `validateScoreTransition` and no empty steps): a block's difficulty is `2^128 - 1 + parent_step - step`,
/// and steps strictly increase. `None` when `difficulty` follows it; else what was expected and found.
fn aura_difficulty(
    parent_step: u64,
    step: u64,
    difficulty: U256,
) -> Option<(&'static str, String, String)> {
    if step <= parent_step {
        return Some((
            "AuRa step (strictly above the parent's)",
            format!("> {parent_step}"),
            step.to_string(),
        ));
    }
    let want = U256::from(u128::MAX) + U256::from(parent_step) - U256::from(step);
    (difficulty != want).then(|| {
        (
            "AuRa difficulty (2^128 - 1 + parent step - step)",
            want.to_string(),
            difficulty.to_string(),
        )
    })
}

/// Checks that need blocks in order: parent hashes, total difficulty, the merge, accumulator, genesis, file name.
pub(super) fn sequential_checks(
    file: &ExecutionArchive,
    facts: &[BlockFacts],
    network: Option<&Network>,
    name: Option<&ArchiveName>,
    report: &mut FileReport,
) {
    let path = file.path();
    let off = |i: usize| file.header_offset(i as u64);
    let all_ok = facts.iter().all(|f| f.ok);
    // Files of pre-merge history (era1): every block's header record; ere: the pre-merge blocks' (mined,
    // difficulty above zero).
    let all_pre_merge = !file.holds().post_merge;
    let mut records = HeaderRecords::with_capacity(facts.len());
    let mut prev_td: Option<U256> = None;
    let mut pre_merge = 0u64;
    let mut first_pos: Option<usize> = None;
    for (i, f) in facts.iter().enumerate() {
        let mined = !f.difficulty.is_zero();
        if let Some(td) = &f.td_le {
            if all_pre_merge || mined {
                records.push(&f.hash, td);
            }
        }
        if !f.ok {
            prev_td = None;
            continue;
        }
        let number = file.first_block() + i as u64;
        if mined {
            pre_merge += 1;
            if let Some(p) = first_pos {
                report.error(
                    mismatch(
                        off(i),
                        "difficulty",
                        format!(
                            "0 (block {} before it is proof-of-stake)",
                            file.first_block() + p as u64
                        ),
                        f.difficulty,
                    )
                    .in_file(path)
                    .in_block(number),
                );
            }
        } else if first_pos.is_none() {
            first_pos = Some(i);
        }
        if let Some(td_le) = f.td_le {
            let at = Located {
                offset: off(i),
                path,
                number,
            };
            prev_td = Some(check_total_difficulty(
                prev_td,
                td_le,
                f.difficulty,
                i == 0,
                at,
                report,
            ));
        }
        if let (Some(step), Some(parent_step)) = (
            f.aura_step,
            i.checked_sub(1)
                .filter(|&p| facts[p].ok)
                .and_then(|p| facts[p].aura_step),
        ) {
            if let Some(e) = aura_difficulty(parent_step, step, f.difficulty) {
                report.error(
                    mismatch(off(i), e.0, e.1, e.2)
                        .in_file(path)
                        .in_block(number),
                );
            }
        }
        if i > 0 && facts[i - 1].ok && f.parent != facts[i - 1].hash {
            report.error(
                mismatch(
                    off(i),
                    "parent hash",
                    hex0x(&facts[i - 1].hash),
                    hex0x(&f.parent),
                )
                .in_file(path)
                .in_block(number),
            );
        }
    }
    if let (Some(first), Some(last)) = (facts.first(), facts.last()) {
        report.first_block_hash = Some(hex0x(&first.hash));
        report.last_block_hash = Some(hex0x(&last.hash));
        report.final_total_difficulty = last.td_le.map(|td| U256::from_le_bytes(td).to_string());
    }
    if let Some(ere) = &mut report.ere {
        ere.pre_merge_blocks = pre_merge;
        let mut slots = facts.iter().filter(|f| f.ok).filter_map(|f| f.slot);
        ere.slots = slots
            .next()
            .map(|first| (first, slots.next_back().unwrap_or(first)));
    }
    if let Some(net) = network {
        check_genesis(file, facts, net, report);
    }
    accumulator_checks(file, &records, pre_merge, facts, all_ok, report);
    if !file.first_block().is_multiple_of(BLOCKS_PER_ERA) {
        report.error(
            mismatch(
                file.index_offset(),
                "first block",
                "a multiple of 8192",
                file.first_block(),
            )
            .in_file(path),
        );
    }
    if let Some(name) = name {
        name_checks(file, name, facts, network, report);
    }
}

/// Where a block's record is, for locating its errors.
#[derive(Clone, Copy)]
struct Located<'a> {
    offset: u64,
    path: &'a Path,
    number: u64,
}

/// A block's total difficulty (`td_le`) against the one before it plus its difficulty; the first block of
/// the file gives the initial total difficulty. Returns the block's.
fn check_total_difficulty(
    prev_td: Option<U256>,
    td_le: [u8; 32],
    difficulty: U256,
    first: bool,
    at: Located<'_>,
    report: &mut FileReport,
) -> U256 {
    // Post-merge blocks have difficulty 0, so a merge-transition file's repeated final total difficulty
    // passes this same rule.
    let td = U256::from_le_bytes(td_le);
    let error = |expected: String| {
        mismatch(at.offset, "total difficulty", expected, td)
            .in_file(at.path)
            .in_block(at.number)
    };
    match prev_td {
        Some(p) if p.checked_add(difficulty) != Some(td) => {
            report.error(error(format!(
                "{} + {} = {}",
                p,
                difficulty,
                p.saturating_add(difficulty)
            )));
        }
        None if first => match td.checked_sub(difficulty) {
            Some(initial) => report.initial_total_difficulty = Some(initial.to_string()),
            None => report.error(error(format!(">= difficulty {difficulty}"))),
        },
        _ => {}
    }
    td
}

/// A file starting at block 0 starts with the network's genesis block (where the network names one).
fn check_genesis(
    file: &ExecutionArchive,
    facts: &[BlockFacts],
    net: &Network,
    report: &mut FileReport,
) {
    if file.first_block() == 0 && facts.first().is_some_and(|f| f.ok) {
        let got = hex0x(&facts[0].hash);
        if got != net.genesis_hash
            && !net
                .genesis_hash
                .trim_start_matches("0x")
                .trim_start_matches('0')
                .is_empty()
        {
            report.error(
                mismatch(
                    file.header_offset(0),
                    "genesis hash",
                    &net.genesis_hash,
                    got,
                )
                .in_file(file.path())
                .in_block(0),
            );
        }
    }
}

/// The accumulator root: recomputed over the header records (era1: every block; ere: the pre-merge ones) and
/// compared with the file's record. An ere file may leave the record out (the spec makes it optional) but must
/// not have one without pre-merge blocks.
fn accumulator_checks(
    file: &ExecutionArchive,
    records: &HeaderRecords,
    pre_merge: u64,
    facts: &[BlockFacts],
    all_ok: bool,
    report: &mut FileReport,
) {
    let path = file.path();
    let has_td = facts.first().is_some_and(|f| f.td_le.is_some());
    match (file.accumulator(), pre_merge > 0) {
        (Some((_, at)), false) if file.holds().post_merge => {
            report.error(
                mismatch(
                    at,
                    "AccumulatorRoot",
                    "none (the accumulator covers pre-merge blocks, and this file has none)",
                    "a record",
                )
                .in_file(path),
            );
            return;
        }
        (None, true) => report.warnings.push(
            "no AccumulatorRoot record (optional in ere files): the pre-merge blocks' accumulator root was not checked against the file"
                .into(),
        ),
        _ => {}
    }
    if pre_merge > 0 && !has_td {
        report.warnings.push(
            "no TotalDifficulty records (optional in ere files): total difficulty and the accumulator root were not checked"
                .into(),
        );
        if let Some((_, at)) = file.accumulator() {
            report.error(
                mismatch(
                    at,
                    "AccumulatorRoot",
                    "TotalDifficulty records to compute it from",
                    "none",
                )
                .in_file(path),
            );
        }
        return;
    }
    // Only meaningful once every block hash is known.
    if records.is_empty() {
        return;
    }
    if let Some(root) = records.root() {
        report.accumulator_root = Some(hex0x(&root));
        if let (true, Some((stored, at))) = (all_ok, file.accumulator()) {
            if root != *stored {
                report.error(
                    mismatch(at, "accumulator root", hex0x(stored), hex0x(&root)).in_file(path),
                );
            }
        }
    }
}

/// The file name against the contents: its era, its hash (era1: the accumulator root's first 4 bytes; ere: the
/// last block hash's) and, for ere, its profile against the components present.
fn name_checks(
    file: &ExecutionArchive,
    name: &ArchiveName,
    facts: &[BlockFacts],
    network: Option<&Network>,
    report: &mut FileReport,
) {
    let path = file.path();
    let era = file.first_block() / BLOCKS_PER_ERA;
    if name.era != era {
        report.error(mismatch(0, "era in file name", era, name.era).in_file(path));
    }
    match file {
        ExecutionArchive::Era1(f) => {
            if name.short_root != f.accumulator_root()[..4] {
                report.error(
                    mismatch(
                        0,
                        "file name hash (accumulator root prefix)",
                        hex::encode(&f.accumulator_root()[..4]),
                        hex::encode(name.short_root),
                    )
                    .in_file(path),
                );
            }
        }
        ExecutionArchive::Ere(f) => {
            if let Some(last) = facts.last().filter(|l| l.ok) {
                if name.short_root != last.hash[..4] {
                    report.error(
                        mismatch(
                            0,
                            "file name hash (last block hash prefix)",
                            hex::encode(&last.hash[..4]),
                            hex::encode(name.short_root),
                        )
                        .in_file(path),
                    );
                }
            }
            if name.profile != f.profile() {
                report.error(
                    mismatch(
                        0,
                        "profile in file name",
                        format!(
                            "{} (the components present: {})",
                            f.profile().name(),
                            f.index()
                                .order()
                                .iter()
                                .map(|c| c.name())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                        name.profile.name(),
                    )
                    .in_file(path),
                );
            }
        }
    }
    if let Some(net) = network {
        if net.name != name.network {
            report.warnings.push(format!(
                "file name says network '{}', verified as '{}'",
                name.network, net.name
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aura_difficulty_follows_the_step_gap() {
        let max = U256::from(u128::MAX);
        // One step after the parent: 2^128 - 2; three steps (two skipped): 2^128 - 4.
        assert_eq!(aura_difficulty(10, 11, max - U256::from(1u8)), None);
        assert_eq!(aura_difficulty(10, 13, max - U256::from(3u8)), None);
        let e = aura_difficulty(10, 13, max - U256::from(1u8)).unwrap();
        assert!(e.0.contains("AuRa difficulty"), "{e:?}");
        assert!(aura_difficulty(10, 10, max).unwrap().0.contains("step"));
    }
}
