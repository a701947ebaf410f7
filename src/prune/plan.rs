//! Planning a run from the inputs' indexes alone: which archives cover which blocks, which network they
//! belong to, the block range to include and the gaps in it.

use super::error::PruneError;
use super::manifest::BlockRange;
use super::options::PruneOptions;
use crate::formats::ArchiveName;
use crate::formats::ExecutionArchive;
use crate::network::Network;
use std::path::PathBuf;

/// One input archive's block range, known from its index before verification.
pub(super) struct Input {
    /// Where the archive is.
    pub(super) path: PathBuf,
    /// Its file name, used in the manifest and in errors.
    pub(super) name: String,
    /// Its first block.
    pub(super) first: u64,
    /// Its last block.
    pub(super) last: u64,
}

/// Reads every input's index (cheap: no block is read, so a remote file's skeleton will do) and returns them
/// sorted by first block.
pub(super) fn scan_inputs(paths: &[PathBuf]) -> Result<Vec<Input>, PruneError> {
    let mut inputs = Vec::with_capacity(paths.len());
    for p in paths {
        let (first, last) = ExecutionArchive::block_span(p).map_err(PruneError::Open)?;
        inputs.push(Input {
            path: p.clone(),
            name: p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| p.display().to_string()),
            first,
            last,
        });
    }
    inputs.sort_by(|a, b| (a.first, &a.name).cmp(&(b.first, &b.name)));
    // Files of two networks hold the same block numbers: said as what it is, before it reads as an overlap.
    let networks: std::collections::BTreeSet<String> = inputs
        .iter()
        .filter_map(|i| ArchiveName::parse(&i.name).ok().map(|n| n.network))
        .collect();
    if networks.len() > 1 {
        return Err(PruneError::Networks(networks.into_iter().collect()));
    }
    for w in inputs.windows(2) {
        if w[1].first <= w[0].last {
            return Err(PruneError::Overlap {
                a: w[0].name.clone(),
                a_first: w[0].first,
                a_last: w[0].last,
                b: w[1].name.clone(),
                b_first: w[1].first,
                b_last: w[1].last,
            });
        }
    }
    Ok(inputs)
}

/// The network: the option, else the one all file names agree on.
pub(super) fn pick_network(opt: Option<&Network>, inputs: &[Input]) -> Result<Network, PruneError> {
    if let Some(n) = opt {
        return Ok(n.clone());
    }
    let mut name: Option<String> = None;
    for i in inputs {
        let parsed = ArchiveName::parse(&i.name)
            .and_then(|n| {
                if n.holds().execution_blocks {
                    Ok(n)
                } else {
                    Err(crate::formats::FormatErrorKind::FileName(format!(
                        "'{}' is not an era1 or ere file",
                        i.name
                    )))
                }
            })
            .map_err(|e| {
                PruneError::Network(format!(
                    "{}: {e}; pass --network to name the network",
                    i.name
                ))
            })?;
        match &name {
            None => name = Some(parsed.network),
            Some(n) if *n != parsed.network => {
                return Err(PruneError::Network(format!(
                    "inputs mix networks '{n}' and '{}' ({}); one manifest covers one network",
                    parsed.network, i.name
                )))
            }
            Some(_) => {}
        }
    }
    let name = name.ok_or(PruneError::NoInputs)?;
    Ok(Network::by_name(&name)?)
}

/// The resolved plan: inclusive range, whether explicit, files in it, gaps, files skipped.
pub(super) struct Plan {
    /// Blocks to include.
    pub(super) range: BlockRange,
    /// Whether `--from-block` or `--until-block` set the range.
    pub(super) explicit: bool,
    /// Inputs holding blocks of the range, in block order.
    pub(super) selected: Vec<Input>,
    /// Parts of the range no input covers (only with `allow_gaps`).
    pub(super) gaps: Vec<BlockRange>,
    /// Names of inputs outside the range.
    pub(super) skipped: Vec<String>,
}

/// Resolves the range and gaps over `inputs` (sorted, non-overlapping, from [`scan_inputs`]).
pub(super) fn plan(
    inputs: Vec<Input>,
    net: &Network,
    opts: &PruneOptions,
) -> Result<Plan, PruneError> {
    let (Some(first_in), Some(last_in)) = (inputs.first(), inputs.last()) else {
        return Err(PruneError::NoInputs);
    };
    let (inputs_first, inputs_last) = (first_in.first, last_in.last);
    if opts.until_block.is_none() {
        if let Some(i) = inputs.iter().find(|i| i.last >= net.first_pos_block) {
            return Err(PruneError::CrossesMerge {
                file: i.name.clone(),
                first: i.first,
                last: i.last,
                network: net.name.clone(),
                first_pos_block: net.first_pos_block,
            });
        }
    }
    let from = opts.from_block.unwrap_or(inputs_first);
    let until = opts
        .until_block
        .unwrap_or_else(|| inputs_last.saturating_add(1));
    if from >= until {
        return Err(PruneError::EmptyRange(format!(
            "--from-block {from} is not below the end {until} (exclusive)"
        )));
    }
    let range = BlockRange {
        first: from,
        last: until - 1,
    };
    let (selected, outside): (Vec<Input>, Vec<Input>) = inputs
        .into_iter()
        .partition(|i| i.last >= range.first && i.first <= range.last);
    if selected.is_empty() {
        return Err(PruneError::EmptyRange(format!(
            "no input file holds a block in {}..={}",
            range.first, range.last
        )));
    }
    let mut gaps = Vec::new();
    let mut next = range.first;
    let mut prev_name: Option<&str> = None;
    for i in &selected {
        if i.first > next {
            gaps.push((
                BlockRange {
                    first: next,
                    last: i.first - 1,
                },
                format!(
                    "after {}, before {}",
                    prev_name.unwrap_or("the range start"),
                    i.name
                ),
            ));
        }
        next = i.last.saturating_add(1);
        prev_name = Some(&i.name);
    }
    if next <= range.last {
        gaps.push((
            BlockRange {
                first: next,
                last: range.last,
            },
            format!(
                "after {}, before the range end",
                prev_name.unwrap_or("the range start")
            ),
        ));
    }
    if let Some((g, context)) = gaps.first() {
        if !opts.allow_gaps {
            return Err(PruneError::Gap {
                first: g.first,
                last: g.last,
                context: context.clone(),
            });
        }
    }
    Ok(Plan {
        range,
        explicit: opts.from_block.is_some() || opts.until_block.is_some(),
        selected,
        gaps: gaps.into_iter().map(|(g, _)| g).collect(),
        skipped: outside.into_iter().map(|i| i.name).collect(),
    })
}
