//! Which input gives which rows when inputs of one run hold the same blocks (see [`SourcePlan`]).

use crate::datasets::Dataset;
use crate::formats::{Holds, Receipts, BLOCKS_PER_ERA};
use crate::network::Network;
use std::path::PathBuf;

/// Which input gives which rows when inputs of one run hold the same blocks, decided from file names alone (so
/// remote files not fetched yet are planned like local ones), the same way every run:
///
/// - execution files of one network and era of different kinds or profiles (an era1 and an ere file, or ere
///   files of two profiles) hold the same blocks: only those of the first kind with receipts are exported, the
///   others are not read ([`FileOutcome::same_blocks_as`]): ere (default profile, then `noproofs`), then era1,
///   then ere without receipts;
/// - when a network's ere files in the run reach past the merge, its era files give the beacon-chain datasets
///   only: `blocks`, `transactions` and `withdrawals` of post-merge blocks come from the ere files, which carry
///   receipts (and so `gas_used`, `success` and logs) that era files lack.
#[derive(Debug, Default)]
pub(crate) struct SourcePlan {
    /// Execution inputs left out, by file name: the name of the input of the same blocks that is exported.
    same_blocks: std::collections::HashMap<String, String>,
    /// Networks whose era files give no execution rows in this run.
    execution_from_ere: std::collections::BTreeSet<String>,
}

impl SourcePlan {
    /// Plans `names` (paths or URLs; only their file names are read), each on `network` or the one its name names.
    pub(crate) fn new(names: &[PathBuf], network: Option<&Network>) -> SourcePlan {
        use crate::formats::ArchiveName;
        let mut plan = SourcePlan::default();
        let mut by_era: std::collections::BTreeMap<(String, u64), Vec<(u8, String)>> =
            Default::default();
        for p in names {
            let Some(file) = p.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            let Ok(name) = ArchiveName::parse(file) else {
                continue;
            };
            let net_name = network.map_or(name.network.clone(), |n| n.name.clone());
            let holds = name.holds();
            let Some(rank) = rank(holds) else {
                continue;
            };
            if holds.post_merge && holds.receipts != Receipts::None {
                let first_pos = network
                    .cloned()
                    .or_else(|| Network::by_name(&name.network).ok())
                    .map(|n| n.first_pos_block);
                let last = name.era.saturating_mul(BLOCKS_PER_ERA) + BLOCKS_PER_ERA - 1;
                if first_pos.is_some_and(|f| last >= f) {
                    plan.execution_from_ere.insert(net_name.clone());
                }
            }
            by_era
                .entry((net_name, name.era))
                .or_default()
                .push((rank, file.to_string()));
        }
        // Files of the same kind and profile in one era are different chains (or a partial file beside a full
        // one), exported as before; only other kinds and profiles of the era step aside for the best one.
        for (_, mut files) in by_era {
            files.sort();
            let Some((best, kept)) = files.first().cloned() else {
                continue;
            };
            for (rank, other) in files {
                if rank != best {
                    plan.same_blocks.insert(other, kept.clone());
                }
            }
        }
        plan
    }

    /// The input exported instead of `source`, when `source` holds blocks another input gives.
    pub(crate) fn same_blocks_as(&self, source: &str) -> Option<&str> {
        self.same_blocks.get(source).map(String::as_str)
    }

    /// Whether `dataset` takes rows from a source holding `holds` (by its kind, see [`ArchiveKind::holds`]) on
    /// `network`: not execution rows of an era file when the run's ere files give that network's post-merge
    /// execution rows.
    ///
    /// [`ArchiveKind::holds`]: crate::formats::ArchiveKind::holds
    pub(super) fn gives(&self, holds: Holds, network: &str, dataset: &dyn Dataset) -> bool {
        let need = dataset.needs();
        holds.has(need)
            && !(!holds.execution_blocks
                && need.is_execution()
                && self.execution_from_ere.contains(network))
    }

    /// What the plan adds to a dataset's fingerprint for `source`: an era file whose execution rows come from
    /// ere files instead is complete without them, and redone (to drop them) when that changes.
    pub(super) fn fingerprint(
        &self,
        source: &str,
        network: Option<&Network>,
        dataset: &dyn Dataset,
    ) -> String {
        let Some(name) = crate::formats::ArchiveName::parse(source).ok() else {
            return String::new();
        };
        let net = network.map_or(name.network.as_str(), |n| n.name.as_str());
        let holds = name.kind.holds();
        if holds.beacon_blocks && !self.gives(holds, net, dataset) {
            ";execution_rows=ere".into()
        } else {
            String::new()
        }
    }
}

/// Which of the execution files of one era is exported, best first, by what each holds: receipts (they give
/// `gas_used`, `success` and logs), slim ones with proofs, then without, then full ones; files without
/// receipts last. `None` for files holding no execution blocks (era files).
fn rank(holds: Holds) -> Option<u8> {
    if !holds.execution_blocks {
        return None;
    }
    Some(match (holds.receipts, holds.proofs) {
        (Receipts::Slim, true) => 0,
        (Receipts::Slim, false) => 1,
        (Receipts::Full, _) => 2,
        (Receipts::None, _) => 3,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::ArchiveKind::{self, Era, Era1, Ere};

    #[test]
    fn datasets_come_from_the_kinds_that_hold_what_they_need() {
        let from = |name: &str| -> Vec<ArchiveKind> {
            let d = crate::datasets::by_names(&[name]).unwrap()[0];
            ArchiveKind::ALL
                .into_iter()
                .filter(|k| k.holds().has(d.needs()))
                .collect()
        };
        assert_eq!(from("blocks"), [Era1, Era, Ere]);
        assert_eq!(from("transactions"), [Era1, Era, Ere]);
        assert_eq!(from("uncles"), [Era1, Ere]);
        assert_eq!(from("logs"), [Era1, Ere]);
        assert_eq!(from("withdrawals"), [Era, Ere]);
        assert_eq!(from("beacon_blocks"), [Era]);
        assert_eq!(from("attestations"), [Era]);
        assert_eq!(from("validators"), [Era]);
    }

    #[test]
    fn an_eras_execution_files_give_way_to_the_one_holding_most() {
        let names: Vec<PathBuf> = [
            "mainnet-00003-00000000.era1",
            "mainnet-00003-11111111-noreceipts.ere",
            "mainnet-00003-22222222-noproofs.ere",
            "mainnet-00003-33333333.ere",
            "mainnet-00004-44444444.era",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        let plan = SourcePlan::new(&names, None);
        for other in &names[..3] {
            let name = other.to_str().unwrap();
            assert_eq!(
                plan.same_blocks_as(name),
                Some("mainnet-00003-33333333.ere"),
                "{name}"
            );
        }
        assert_eq!(plan.same_blocks_as("mainnet-00003-33333333.ere"), None);
        assert_eq!(plan.same_blocks_as("mainnet-00004-44444444.era"), None);
        let plan = SourcePlan::new(&names[..2], None);
        assert_eq!(
            plan.same_blocks_as("mainnet-00003-11111111-noreceipts.ere"),
            Some("mainnet-00003-00000000.era1")
        );
    }
}
