//! Output file names: one Parquet file per (source archive, dataset), under a `network=<name>` partition folder
//! of its dataset (which DuckDB, Polars, pyarrow and Spark read as a `network` column, so networks never mix
//! unnoticed), named so that a listing sorts in chain order and two sources never share a name.

use crate::formats::era::SLOTS_PER_ERA;

/// The partition folder of a dataset's files of one network, relative to the output directory.
pub fn partition(dataset: &str, network: &str) -> String {
    format!("{dataset}/network={network}")
}

/// Output file of a dataset for an era1 file's execution block range, relative to the output directory:
/// `<dataset>/network=<network>/<network>__<dataset>__<first:08>_to_<last:08>.parquet`.
pub fn output_path(dataset: &str, network: &str, first: u64, last: u64) -> String {
    let dir = partition(dataset, network);
    format!("{dir}/{network}__{dataset}__{first:08}_to_{last:08}.parquet")
}

/// Output file of a dataset for an era file: its era number and the slot range its blocks may occupy
/// (`(era - 1) * 8192 ..= era * 8192 - 1`; era 0, which holds only the genesis state, is slot 0). Distinct era
/// files never share a name (each era number is one slot range), names never clash with era1 outputs (`era_`
/// where those have digits), and in a directory listing they sort after every era1 output and in era order, so
/// lexical order is chain order.
pub fn era_output_path(dataset: &str, network: &str, era: u64) -> String {
    let (first, last) = era_slot_range(era);
    let dir = partition(dataset, network);
    format!("{dir}/{network}__{dataset}__era_{era:05}__slots_{first:08}_to_{last:08}.parquet")
}

/// The slots whose blocks an era file holds (era 0: only slot 0, the genesis state).
pub fn era_slot_range(era: u64) -> (u64, u64) {
    match era {
        0 => (0, 0),
        e => (
            (e - 1).saturating_mul(SLOTS_PER_ERA),
            e.saturating_mul(SLOTS_PER_ERA).saturating_sub(1),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_sort_in_chain_order() {
        assert_eq!(
            output_path("blocks", "mainnet", 0, 8191),
            "blocks/network=mainnet/mainnet__blocks__00000000_to_00008191.parquet"
        );
        assert_eq!(
            era_output_path("blocks", "mainnet", 2),
            "blocks/network=mainnet/mainnet__blocks__era_00002__slots_00008192_to_00016383.parquet"
        );
        assert_eq!(era_slot_range(0), (0, 0));
        assert!(
            output_path("blocks", "m", 15_000_000, 15_008_191) < era_output_path("blocks", "m", 1)
        );
    }
}
