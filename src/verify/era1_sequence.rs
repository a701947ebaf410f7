//! The era1 checks that need blocks in order, after the parallel pass: parent hashes, total difficulty, the
//! accumulator against its record and the file name, and the genesis hash.

use super::era1::BlockFacts;
use super::report::FileReport;
use super::{hex0x, mismatch};
use crate::execution::accumulator::HeaderRecords;
use crate::formats::era1::{Era1File, BLOCKS_PER_ERA};
use crate::formats::ArchiveName;
use crate::network::Network;
use alloy_primitives::U256;

/// Checks that need blocks in order: parent hashes, total difficulty, accumulator, file name, genesis.
pub(super) fn sequential_checks(
    file: &Era1File,
    facts: &[BlockFacts],
    network: Option<&Network>,
    name: Option<&ArchiveName>,
    report: &mut FileReport,
) {
    let path = file.path();
    let off = |i: usize| file.index().offsets.get(i).copied().unwrap_or(0);
    let all_ok = facts.iter().all(|f| f.ok);
    let mut records = HeaderRecords::with_capacity(facts.len());
    let mut prev_td: Option<U256> = None;
    for (i, f) in facts.iter().enumerate() {
        records.push(&f.hash, &f.td_le);
        if !f.ok {
            prev_td = None;
            continue;
        }
        let number = file.first_block() + i as u64;
        let td = U256::from_le_bytes(f.td_le);
        match prev_td {
            Some(p) if p.checked_add(f.difficulty) != Some(td) => {
                report.error(
                    mismatch(
                        off(i),
                        "total difficulty",
                        format!(
                            "{} + {} = {}",
                            p,
                            f.difficulty,
                            p.saturating_add(f.difficulty)
                        ),
                        td,
                    )
                    .in_file(path)
                    .in_block(number),
                );
            }
            None if i == 0 => match td.checked_sub(f.difficulty) {
                Some(initial) => report.initial_total_difficulty = Some(initial.to_string()),
                None => report.error(
                    mismatch(
                        off(i),
                        "total difficulty",
                        format!(">= difficulty {}", f.difficulty),
                        td,
                    )
                    .in_file(path)
                    .in_block(number),
                ),
            },
            _ => {}
        }
        prev_td = Some(td);
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
        report.final_total_difficulty = Some(U256::from_le_bytes(last.td_le).to_string());
    }
    if let Some(net) = network {
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
                    mismatch(off(0), "genesis hash", &net.genesis_hash, got)
                        .in_file(path)
                        .in_block(0),
                );
            }
        }
    }
    // Accumulator: only meaningful once every block hash is known.
    if let Some(root) = records.root() {
        report.accumulator_root = Some(hex0x(&root));
        if all_ok && root != *file.accumulator_root() {
            report.error(
                mismatch(
                    file.accumulator_offset(),
                    "accumulator root",
                    hex0x(file.accumulator_root()),
                    hex0x(&root),
                )
                .in_file(path),
            );
        }
    }
    if !file.first_block().is_multiple_of(BLOCKS_PER_ERA) {
        report.error(
            mismatch(
                file.index().record_offset,
                "first block",
                "a multiple of 8192",
                file.first_block(),
            )
            .in_file(path),
        );
    }
    if let Some(name) = name {
        let era = file.first_block() / BLOCKS_PER_ERA;
        if name.era != era {
            report.error(mismatch(0, "era in file name", era, name.era).in_file(path));
        }
        if name.short_root != file.accumulator_root()[..4] {
            report.error(
                mismatch(
                    0,
                    "file name hash (accumulator root prefix)",
                    hex::encode(&file.accumulator_root()[..4]),
                    hex::encode(name.short_root),
                )
                .in_file(path),
            );
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
}
