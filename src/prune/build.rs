//! Building a manifest directory: verifying the planned archives in block order while the lists are written,
//! then writing the manifest and installing the finished directory in place of the destination.

use super::error::{io_at, PruneError};
use super::extend::Prior;
use super::extsort::{Hash32, SortStats};
use super::lists::{write_json, ChunkOut, Lists};
use super::manifest::{self, BlockRange, Manifest, Ranges, SourceFile, Totals, WindowRecord};
use super::options::PruneOptions;
use super::plan::{pick_network, plan, scan_inputs, Input, Plan};
use super::source::LocalFiles;
pub use super::source::{Held, InputSource};
use crate::formats::{Archive, ExecutionArchive};
use crate::network::Network;
use crate::verify::report::FileReport;
use crate::verify::{BlockHashes, VerifiedBlock, VerifyOptions, Visitor};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// What a successful run produced.
#[derive(Debug, Clone)]
pub struct PruneSummary {
    /// The manifest as written.
    pub manifest: Manifest,
    /// Where it was written.
    pub out: PathBuf,
    /// Inputs that hold no block of the range (not read).
    pub skipped: Vec<String>,
    /// What the hash sort did.
    pub sort: SortStats,
    /// The last block of the earlier manifest this one extends (its lists carried over, only later blocks
    /// read); `None` when built from scratch.
    pub extended: Option<u64>,
    /// The inputs this run verified and listed blocks of (file names, in block order): extending, only those
    /// past the earlier manifest's range — what a scheduled run's log shows it read.
    pub read: Vec<String>,
}

/// Builds the manifest directory `out` from era1 archives `paths` (any order). Nothing appears at `out` unless
/// every contributing file verified and every output was written; an earlier manifest directory there is
/// replaced, anything else is refused.
pub fn run(paths: &[PathBuf], out: &Path, opts: &PruneOptions) -> Result<PruneSummary, PruneError> {
    run_from(paths, out, opts, &mut LocalFiles)
}

/// [`run`] over inputs whose full copies come from `source` (remote files: `paths` then name local copies
/// holding their index only, fetched whole in plan order).
pub fn run_from(
    paths: &[PathBuf],
    out: &Path,
    opts: &PruneOptions,
    source: &mut dyn InputSource,
) -> Result<PruneSummary, PruneError> {
    if paths.is_empty() {
        return Err(PruneError::NoInputs);
    }
    check_destination(out)?;
    let inputs = scan_inputs(paths)?;
    let net = pick_network(opts.network.as_ref(), &inputs)?;
    let (plan, window) = match opts.window {
        None => (plan(inputs, &net, opts)?, None),
        Some(w) => {
            if let Some(u) = opts.until_block {
                return Err(PruneError::EmptyRange(format!(
                    "--until-block {u} and a window ({}) both end the range: pass one",
                    w.describe()
                )));
            }
            let (until, record) =
                super::window::first_kept_block(&inputs, &net, w, &verify_options(&net), source)?;
            let ended = PruneOptions {
                until_block: Some(until),
                ..opts.clone()
            };
            let mut p = plan(inputs, &net, &ended)?;
            // The end was derived, not given.
            p.explicit = opts.from_block.is_some();
            (p, Some(record))
        }
    };

    let parent = out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(parent).map_err(io_at(parent))?;
    let base = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "prune".into());
    remove_dead_leftovers(parent, &base);
    let prior = if opts.from_scratch {
        None
    } else {
        super::extend::prior(out, &plan, &net, opts)
    };
    let tmp = parent.join(format!(".{base}.tmp-{}", std::process::id()));
    remove_dir(&tmp);
    fs::create_dir_all(&tmp).map_err(io_at(&tmp))?;
    // Extending an earlier manifest reads only the archives past its range.
    let next = prior.as_ref().map_or(0, Prior::next_block);
    let to_read: Vec<_> = plan
        .selected
        .iter()
        .filter(|i| i.last >= next && next <= plan.range.last)
        .collect();
    let selected: Vec<PathBuf> = to_read.iter().map(|i| i.path.clone()).collect();
    let read: Vec<String> = to_read.iter().map(|i| i.name.clone()).collect();
    let result = source
        .planned(&selected)
        .and_then(|()| build(&plan, &net, &tmp, opts, window, prior.as_ref(), source));
    let (manifest, sort) = match result {
        Ok(r) => r,
        Err(e) => {
            remove_dir(&tmp);
            return Err(e);
        }
    };
    if let Err(e) = install(&tmp, out) {
        remove_dir(&tmp);
        return Err(e);
    }
    Ok(PruneSummary {
        manifest,
        out: out.to_path_buf(),
        skipped: plan.skipped,
        sort,
        extended: prior.map(|p| p.manifest.range.last),
        read,
    })
}

/// Removes what killed prunes into the same output left beside it: their `.<out>.tmp-<pid>/` (sort spills, tens
/// of GB on mainnet) and `.<out>.old-<pid>/`, when that process is gone. A live prune's are left alone.
fn remove_dead_leftovers(parent: &Path, base: &str) {
    let Ok(rd) = fs::read_dir(parent) else {
        return;
    };
    for e in rd.flatten() {
        let name = e.file_name();
        let name = name.to_string_lossy();
        let pid = [".tmp-", ".old-"].iter().find_map(|kind| {
            name.strip_prefix('.')
                .and_then(|n| n.strip_prefix(base))
                .and_then(|n| n.strip_prefix(kind))
                .and_then(|pid| pid.parse::<u32>().ok())
        });
        if let Some(pid) = pid {
            if !crate::util::fs::process_alive(pid) && e.file_type().is_ok_and(|t| t.is_dir()) {
                tracing::info!(dir = %e.path().display(), "removing a dead prune's leftovers");
                remove_dir(&e.path());
            }
        }
    }
}

/// Renames the finished temporary directory to `out`, replacing an earlier manifest directory.
fn install(tmp: &Path, out: &Path) -> Result<(), PruneError> {
    check_destination(out)?;
    // The files inside were committed without syncing the directory: persist their names once, here. Best
    // effort, like `AtomicFile::commit`: syncing a directory is not supported everywhere.
    if let Ok(d) = fs::File::open(tmp) {
        let _ = d.sync_all();
    }
    let old = out.with_file_name(format!(
        ".{}.old-{}",
        out.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        std::process::id()
    ));
    let had_old = out.exists();
    if had_old {
        fs::rename(out, &old).map_err(io_at(out))?;
    }
    fs::rename(tmp, out).map_err(io_at(out))?;
    if let Some(p) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        if let Ok(d) = fs::File::open(p) {
            let _ = d.sync_all();
        }
    }
    if had_old {
        remove_dir(&old);
    }
    Ok(())
}

/// Checks the destination may be replaced: absent, empty, or an earlier manifest directory.
fn check_destination(out: &Path) -> Result<(), PruneError> {
    if !out.exists() {
        return Ok(());
    }
    if !out.is_dir() {
        return Err(PruneError::OutputExists(out.display().to_string()));
    }
    let empty = fs::read_dir(out).map_err(io_at(out))?.next().is_none();
    if empty || out.join(manifest::MANIFEST).is_file() {
        Ok(())
    } else {
        Err(PruneError::OutputExists(out.display().to_string()))
    }
}

/// Removes a directory tree, ignoring absence.
fn remove_dir(p: &Path) {
    let _ = fs::remove_dir_all(p);
}

/// The prune visitor: keeps block and transaction hashes of blocks inside `[from, until)`.
struct PruneVisitor {
    file_first: u64,
    from: u64,
    until: u64,
}

impl Visitor for PruneVisitor {
    type Chunk = ChunkOut;
    fn start_chunk(&self, _first_block: u64) -> ChunkOut {
        ChunkOut {
            first_parent: None,
            blocks: Vec::new(),
            txs: Vec::new(),
        }
    }
    fn needs_decoded_transactions(&self) -> bool {
        false
    }
    fn block_hashed(
        &self,
        chunk: &mut ChunkOut,
        block: &VerifiedBlock<'_>,
        hashes: &BlockHashes<'_>,
    ) {
        if block.number == self.file_first {
            chunk.first_parent = Some(*block.header.parent_hash());
        }
        if block.number < self.from || block.number >= self.until {
            return;
        }
        chunk.blocks.push((block.number, hashes.block));
        chunk.txs.reserve(hashes.transactions.len());
        for (i, h) in hashes.transactions.iter().enumerate() {
            // A block cannot hold 2^32 transactions (gas limits); saturate rather than wrap if one claimed to.
            let idx = u32::try_from(i).unwrap_or(u32::MAX);
            chunk.txs.push((*h, block.number, idx));
        }
    }
    fn block(&self, chunk: &mut ChunkOut, block: &VerifiedBlock<'_>) {
        if block.number == self.file_first {
            chunk.first_parent = Some(*block.header.parent_hash());
        }
        if block.number < self.from || block.number >= self.until {
            return;
        }
        chunk.blocks.push((block.number, block.hash));
        for i in 0..block.transactions.len() {
            // A block cannot hold 2^32 transactions (gas limits); saturate rather than wrap if one claimed to.
            let idx = u32::try_from(i).unwrap_or(u32::MAX);
            chunk.txs.push((block.tx_hash(i), block.number, idx));
        }
    }
}

/// How prune verifies an archive: light (receipts are not read, senders never recovered); the file's sha256
/// is computed beside verification instead (see `file_sha256`).
fn verify_options(net: &Network) -> VerifyOptions {
    VerifyOptions {
        network: Some(net.clone()),
        checksum: false,
        senders: false,
        skip_receipts: true,
        signer: None,
        trusted_states: None,
        historical_summaries: None,
        accumulator: None,
    }
}

/// Verified chunks queued for the writer thread: enough to ride out a slow write, bounded so memory does
/// not grow when writing falls behind.
const WRITE_QUEUE: usize = 8;

/// The sha256 of a whole archive (recorded in the manifest), computed on a helper thread while the same file
/// is verified, so it costs no time on the verification threads when a core is free. It reads the map
/// verification reads: a second map of the file would count its pages twice in the process's RSS.
fn file_sha256(file: &Archive) -> String {
    hex::encode(crate::crypto::sha256::sha256(file.bytes()))
}

/// Verifies the planned files in block order and writes every output into `dir`; manifest last.
///
/// Three kinds of work overlap: verification (on the caller's rayon pool), each file's sha256 (a helper
/// thread per file) and list writing (one writer thread fed verified chunks in block order through a bounded
/// channel). At the end the list files are committed (fsync'd) concurrently while the transaction hashes are
/// sorted and written.
fn build(
    plan: &Plan,
    net: &Network,
    dir: &Path,
    opts: &PruneOptions,
    window: Option<WindowRecord>,
    prior: Option<&Prior>,
    source: &mut dyn InputSource,
) -> Result<(Manifest, SortStats), PruneError> {
    let mut lists = Lists::create(dir, opts)?;
    if let Some(p) = prior {
        lists.seed(&p.dir, p.manifest.totals.transactions)?;
    }
    let verify_opts = verify_options(net);
    let (sources, lists) = std::thread::scope(|s| -> Result<_, PruneError> {
        let (send, recv) = std::sync::mpsc::sync_channel::<ChunkOut>(WRITE_QUEUE);
        let writer = s.spawn(move || -> Result<Lists, PruneError> {
            let mut lists = lists;
            for chunk in recv {
                lists.add(&chunk)?;
            }
            Ok(lists)
        });
        let sources = verify_inputs(plan, &verify_opts, &send, prior, source);
        drop(send);
        let written = writer.join().map_err(|_| PruneError::Io {
            path: dir.display().to_string(),
            source: io::Error::other("list writer thread panicked"),
        });
        // A verification failure names the file; it wins over a write error it may have caused.
        let sources = sources?;
        Ok((sources, written??))
    })?;
    let ranges = Ranges::new(
        &net.name,
        net.chain_id,
        manifest::covered(plan.range, &plan.gaps),
    );
    let (files, sort) = lists.finish(&ranges)?;

    let totals = Totals {
        blocks: sources.iter().map(|s| s.blocks).sum(),
        transactions: sources.iter().map(|s| s.transactions).sum(),
        archive_bytes: sources.iter().map(|s| s.size).sum(),
    };
    let manifest = Manifest {
        format_version: manifest::FORMAT_VERSION.into(),
        eraflow_version: env!("CARGO_PKG_VERSION").into(),
        network: net.name.clone(),
        chain_id: net.chain_id,
        first_pos_block: net.first_pos_block,
        range: plan.range,
        explicit_range: plan.explicit,
        window,
        gaps: plan.gaps.clone(),
        sources,
        totals,
        files,
    };
    write_json(&dir.join(manifest::MANIFEST), &manifest)?;
    Ok((manifest, sort))
}

/// Verifies every planned file in block order, sending each verified chunk to the writer through `send`, and
/// returns the manifest's source records. Stops at the first file that does not verify or chain.
fn verify_inputs(
    plan: &Plan,
    verify_opts: &VerifyOptions,
    send: &std::sync::mpsc::SyncSender<ChunkOut>,
    prior: Option<&Prior>,
    source: &mut dyn InputSource,
) -> Result<Vec<SourceFile>, PruneError> {
    // Extending an earlier manifest: its sources are kept and only blocks after its range are listed.
    let next = prior.map_or(plan.range.first, Prior::next_block);
    if let Some(p) = prior.filter(|_| next > plan.range.last) {
        // Nothing has left the window since: the earlier sources stand as they are.
        return Ok(p.manifest.sources.clone());
    }
    let mut sources = prior.map_or_else(
        || Vec::with_capacity(plan.selected.len()),
        Prior::kept_sources,
    );
    let to_read = || plan.selected.iter().filter(|i| i.last >= next);
    // Extending, the first archive read chains to the earlier manifest's listed hash of the block before it
    // (its total difficulty is not listed: that one link is checked by hash only).
    let mut prev: Option<PrevFile> = None;
    if let (Some(p), Some(first)) = (prior, to_read().next()) {
        if let Some(before) = first.first.checked_sub(1) {
            prev = p
                .block_hash(before)
                .map(|(name, h)| (name, before, format!("0x{}", hex::encode(h)), None));
        }
    }
    for input in to_read() {
        let held = source.open(&input.path)?;
        let file = match ExecutionArchive::open(held.path()) {
            Ok(f) => Archive::Execution(f),
            Err(e) => {
                return Err(PruneError::Unverified {
                    file: input.name.clone(),
                    errors: vec![e.into()],
                });
            }
        };
        let until = plan.range.last.saturating_add(1);
        let Some(read) = verify_input(&file, input, next, until, verify_opts, send)? else {
            // The writer's own error is reported by the caller.
            return Ok(sources);
        };
        let included = BlockRange {
            first: input.first.max(plan.range.first),
            last: input.last.min(plan.range.last),
        };
        let listed = BlockRange {
            first: input.first.max(next),
            last: included.last,
        };
        let (mut blocks, mut txs) = (read.blocks, read.txs);
        if blocks != listed.len() {
            return Err(PruneError::Unverified {
                file: input.name.clone(),
                errors: vec![format!(
                    "expected {} verified blocks in {}..={}, found {blocks}",
                    listed.len(),
                    listed.first,
                    listed.last
                )
                .into()],
            });
        }
        // A file the earlier manifest listed in part: its earlier blocks count too.
        if let Some(p) = prior.and_then(|p| p.partial(&input.name)) {
            blocks += p.blocks;
            txs += p.transactions;
        }
        let report = &read.report;
        if let Some(p) = &prev {
            chain_to_previous(p, input, read.first_parent, report)?;
        }
        prev = Some((
            input.name.clone(),
            input.last,
            report.last_block_hash.clone().unwrap_or_default(),
            report.final_total_difficulty.clone(),
        ));
        sources.push(SourceFile {
            name: input.name.clone(),
            sha256: read.sha256,
            size: report.file_size,
            file_blocks: BlockRange {
                first: input.first,
                last: input.last,
            },
            included,
            accumulator_root: report.accumulator_root.clone().unwrap_or_default(),
            blocks,
            transactions: txs,
        });
    }
    Ok(sources)
}

/// The previous file read: its name, last block, last block hash and final total difficulty.
type PrevFile = (String, u64, String, Option<String>);

/// One archive verified, its blocks in `[from, until)` sent to the writer.
struct ReadInput {
    report: FileReport,
    /// The whole file's sha256.
    sha256: String,
    /// The parent hash of the file's first block.
    first_parent: Option<Hash32>,
    /// Blocks and transactions sent to the writer.
    blocks: u64,
    txs: u64,
}

/// Verifies `file` (the input `input`), its sha256 computed beside it, sending the verified chunks of blocks
/// `[from, until)` through `send` in block order. `None` when the writer is gone (it failed: its error is
/// collected when it is joined).
fn verify_input(
    file: &Archive,
    input: &Input,
    from: u64,
    until: u64,
    verify_opts: &VerifyOptions,
    send: &std::sync::mpsc::SyncSender<ChunkOut>,
) -> Result<Option<ReadInput>, PruneError> {
    let visitor = PruneVisitor {
        file_first: input.first,
        from,
        until,
    };
    let mut first_parent: Option<Hash32> = None;
    let mut failure: Option<PruneError> = None;
    let mut writer_gone = false;
    let mut expected_block = input.first.max(from);
    let (mut blocks, mut txs) = (0u64, 0u64);
    let (report, sha) = std::thread::scope(|s| {
        let sha = s.spawn(|| file_sha256(file));
        let report = crate::verify::archive(file, verify_opts, &visitor, |chunk: ChunkOut| {
            if failure.is_some() || writer_gone {
                return;
            }
            if chunk.first_parent.is_some() {
                first_parent = chunk.first_parent;
            }
            for (number, _) in &chunk.blocks {
                if *number != expected_block {
                    // A block that failed its checks is not visited; the report will say why.
                    failure = Some(PruneError::Unverified {
                        file: input.name.clone(),
                        errors: vec![format!(
                        "block {expected_block} missing from the verified stream (found {number})"
                    )
                        .into()],
                    });
                    return;
                }
                expected_block += 1;
            }
            blocks += chunk.blocks.len() as u64;
            txs += chunk.txs.len() as u64;
            // A closed channel means the writer failed; its error is collected when it is joined.
            writer_gone = send.send(chunk).is_err();
        });
        (report, sha.join())
    });
    let sha = sha.map_err(|_| PruneError::Io {
        path: input.path.display().to_string(),
        source: io::Error::other("sha256 thread panicked"),
    });
    if !report.ok {
        return Err(PruneError::unverified(&input.name, &report));
    }
    if let Some(e) = failure {
        return Err(e);
    }
    if writer_gone {
        return Ok(None);
    }
    Ok(Some(ReadInput {
        report,
        sha256: sha?,
        first_parent,
        blocks,
        txs,
    }))
}

/// `input`, whose first block's parent hash is `first_parent`, chains to the previous file `prev` when the two
/// are adjacent: that parent is the previous last block's hash, and the total difficulty before its first block
/// the previous file's final one.
fn chain_to_previous(
    (pname, plast, phash, ptd): &PrevFile,
    input: &Input,
    first_parent: Option<Hash32>,
    report: &FileReport,
) -> Result<(), PruneError> {
    if plast.checked_add(1) != Some(input.first) {
        return Ok(());
    }
    let found = first_parent.map(|p| format!("0x{}", hex::encode(p)));
    if found.as_deref() != Some(phash.as_str()) {
        return Err(PruneError::Discontinuity {
            file: input.name.clone(),
            block: input.first,
            previous: pname.clone(),
            what: "parent hash",
            expected: phash.clone(),
            found: found.unwrap_or_else(|| "nothing".into()),
        });
    }
    if let (Some(p), Some(i)) = (ptd, &report.initial_total_difficulty) {
        if p != i {
            return Err(PruneError::Discontinuity {
                file: input.name.clone(),
                block: input.first,
                previous: pname.clone(),
                what: "total difficulty before the first block",
                expected: p.clone(),
                found: i.clone(),
            });
        }
    }
    Ok(())
}
