//! Extending an earlier manifest instead of rebuilding it: a scheduled rolling prune adds, each run, the blocks
//! that left the window since the last one, reading only the archives past the earlier manifest's range.
//!
//! The earlier manifest at the destination is reused when it is one this run would have started: same network
//! and first block, same list formats, the same sources over its range and the same gaps, and a range that ends
//! at or before the new one. It is re-checked first ([`super::check::check`]: every list's checksum, order and
//! count). Its lists are carried into the new directory and the new blocks appended, so the result is
//! byte-identical to a build from scratch over the same inputs (`eraflow prune check --rebuild` proves it).
//! Anything else — a damaged or foreign manifest, another range start, a source that changed — is said once and
//! the manifest is built from scratch.

use super::manifest::{self, BlockRange, Manifest, SourceFile};
use super::options::{OutputFormat, PruneOptions};
use super::plan::Plan;
use crate::network::Network;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// An earlier manifest the new one extends.
pub(super) struct Prior {
    /// Its directory (the destination, replaced when the new one is installed).
    pub(super) dir: PathBuf,
    /// Its manifest, checked.
    pub(super) manifest: Manifest,
}

impl Prior {
    /// The first block the new run reads.
    pub(super) fn next_block(&self) -> u64 {
        self.manifest.range.last.saturating_add(1)
    }

    /// The sources carried over whole: all but one whose file reaches past the earlier range (it is read again
    /// for its remaining blocks, see [`Prior::partial`]).
    pub(super) fn kept_sources(&self) -> Vec<SourceFile> {
        let last = self.manifest.range.last;
        self.manifest
            .sources
            .iter()
            .filter(|s| s.file_blocks.last <= last)
            .cloned()
            .collect()
    }

    /// The source whose file reaches past the earlier range, if the range ended inside a file.
    pub(super) fn partial(&self, name: &str) -> Option<&SourceFile> {
        let last = self.manifest.range.last;
        self.manifest
            .sources
            .iter()
            .find(|s| s.name == name && s.file_blocks.last > last)
    }

    /// The listed hash of block `number` (`None` when it is outside the range or in a gap), with the name of the
    /// source holding it: what the first archive read must chain to.
    pub(super) fn block_hash(&self, number: u64) -> Option<(String, [u8; 32])> {
        let m = &self.manifest;
        let mut index = 0u64;
        let mut at = None;
        for r in manifest::covered(m.range, &m.gaps) {
            if (r.first..=r.last).contains(&number) {
                at = Some(index + (number - r.first));
                break;
            }
            index += r.len();
        }
        let at = at?;
        let source = m
            .sources
            .iter()
            .find(|s| (s.included.first..=s.included.last).contains(&number))?;
        let mut f = std::fs::File::open(self.dir.join(manifest::BLOCK_HASHES)).ok()?;
        f.seek(SeekFrom::Start(at.checked_mul(32)?)).ok()?;
        let mut h = [0u8; 32];
        f.read_exact(&mut h).ok()?;
        Some((source.name.clone(), h))
    }
}

/// The earlier manifest at `out` when the run planned as `plan` extends it; otherwise `None`, and why is logged.
pub(super) fn prior(out: &Path, plan: &Plan, net: &Network, opts: &PruneOptions) -> Option<Prior> {
    if !out.join(manifest::MANIFEST).is_file() {
        return None;
    }
    match reusable(out, plan, net, opts) {
        Ok(manifest) => {
            tracing::info!(
                out = %out.display(),
                through = manifest.range.last,
                "extending the earlier manifest: only blocks after its range are read"
            );
            Some(Prior {
                dir: out.to_path_buf(),
                manifest,
            })
        }
        Err(why) => {
            tracing::warn!(out = %out.display(), "the earlier manifest is rebuilt from scratch: {why}");
            None
        }
    }
}

/// The earlier manifest, checked, when this run extends it; else why not.
fn reusable(
    out: &Path,
    plan: &Plan,
    net: &Network,
    opts: &PruneOptions,
) -> Result<Manifest, String> {
    let m = super::check::check(out)
        .map_err(|e| format!("it does not check: {e}"))?
        .manifest;
    if m.format_version != manifest::FORMAT_VERSION {
        return Err(format!("its format is {}", m.format_version));
    }
    if m.network != net.name || m.chain_id != net.chain_id {
        return Err(format!(
            "it is of network {} (chain {})",
            m.network, m.chain_id
        ));
    }
    if m.range.first != plan.range.first {
        return Err(format!(
            "it starts at block {}, this run at {}",
            m.range.first, plan.range.first
        ));
    }
    if m.range.last > plan.range.last {
        return Err(format!(
            "it reaches block {}, past this run's end {}",
            m.range.last, plan.range.last
        ));
    }
    let text = m.files.contains_key(manifest::TX_HASHES_TXT);
    if text != (opts.format == OutputFormat::Text) {
        return Err("its list formats differ from this run's (--format)".into());
    }
    // The same gaps over its range (a new gap may only start after it).
    let clipped: Vec<BlockRange> = plan
        .gaps
        .iter()
        .filter(|g| g.first <= m.range.last)
        .map(|g| BlockRange {
            first: g.first,
            last: g.last.min(m.range.last),
        })
        .collect();
    if clipped != m.gaps {
        return Err("its gaps differ from this run's".into());
    }
    // The same sources, in order, over its range: names, blocks and sizes (a remote input's local skeleton has
    // its file's size). Their bytes are not read again: `prune check --rebuild` or `--from-scratch` do that.
    let planned: Vec<(&str, u64, u64, Option<u64>)> = plan
        .selected
        .iter()
        .filter(|i| i.first <= m.range.last)
        .map(|i| {
            let size = std::fs::metadata(&i.path).ok().map(|m| m.len());
            (i.name.as_str(), i.first, i.last, size)
        })
        .collect();
    let had: Vec<(&str, u64, u64, Option<u64>)> = m
        .sources
        .iter()
        .map(|s| {
            (
                s.name.as_str(),
                s.file_blocks.first,
                s.file_blocks.last,
                Some(s.size),
            )
        })
        .collect();
    if planned != had {
        return Err("its sources differ from this run's inputs over its range".into());
    }
    Ok(m)
}

/// What a manifest and one built from scratch over the same inputs disagree on: each list file's checksum,
/// the sources, totals, range, gaps and network. The window record and whether the range was explicit say how
/// the range was chosen, not what is listed, and are not compared. Empty when they agree.
pub fn differences(have: &Manifest, scratch: &Manifest) -> Vec<String> {
    let mut out = Vec::new();
    let mut field = |name: &str, same: bool, a: String, b: String| {
        if !same {
            out.push(format!("{name}: {a} here, {b} from scratch"));
        }
    };
    field(
        "network",
        (&have.network, have.chain_id) == (&scratch.network, scratch.chain_id),
        have.network.clone(),
        scratch.network.clone(),
    );
    field(
        "range",
        have.range == scratch.range,
        format!("{:?}", have.range),
        format!("{:?}", scratch.range),
    );
    field(
        "gaps",
        have.gaps == scratch.gaps,
        format!("{:?}", have.gaps),
        format!("{:?}", scratch.gaps),
    );
    field(
        "totals",
        have.totals == scratch.totals,
        format!("{:?}", have.totals),
        format!("{:?}", scratch.totals),
    );
    let names: std::collections::BTreeSet<&String> =
        have.files.keys().chain(scratch.files.keys()).collect();
    for name in names {
        let (a, b) = (have.files.get(name), scratch.files.get(name));
        let show = |f: Option<&manifest::ListFile>| {
            f.map_or("absent".into(), |f| format!("sha256 {}", f.sha256))
        };
        field(name, a == b, show(a), show(b));
    }
    if have.sources != scratch.sources {
        let show = |s: &[SourceFile]| {
            s.iter()
                .map(|s| format!("{} {:?} sha256 {}", s.name, s.included, s.sha256))
                .collect::<Vec<_>>()
                .join(", ")
        };
        field(
            "sources",
            false,
            show(&have.sources),
            show(&scratch.sources),
        );
    }
    out
}

/// The options that build `m`'s range from scratch: its network, first and end block, gap policy and formats.
pub fn scratch_options(m: &Manifest, network: Network) -> PruneOptions {
    PruneOptions {
        network: Some(network),
        from_block: Some(m.range.first),
        until_block: Some(m.range.last.saturating_add(1)),
        allow_gaps: !m.gaps.is_empty(),
        format: if m.files.contains_key(manifest::TX_HASHES_TXT) {
            OutputFormat::Text
        } else {
            OutputFormat::Binary
        },
        from_scratch: true,
        ..PruneOptions::default()
    }
}
