//! Verification: everything in an archive that can be checked against something else is checked here.
//! Execution archives (era1 and ere files) share one block path ([`execution`]); era files have their own
//! ([`era`]); the checks between files run once every file has its report ([`links`]).

pub mod anchor;
pub mod bid;
pub mod canonical;
pub mod era;
mod era_state;
pub mod execution;
mod layout;
pub mod links;
pub mod payload;
pub mod proof;
mod receipts;
pub mod render;
pub mod report;
mod sequence;
mod tally;
pub mod verified;
pub mod visitor;

use crate::crypto::signer::{self, SignatureAlgorithm, Signer, SignerBackend, SignerError};
use crate::formats::{Archive, ArchiveKind, FormatError, FormatErrorKind};
use crate::network::Network;
use report::FileReport;
use std::path::{Path, PathBuf};

pub use verified::{
    BlockHashes, VerifiedBeaconBlock, VerifiedBlock, VerifiedPayload, VerifiedState,
};
pub use visitor::{NoVisitor, Visitor};

/// Verifies one opened archive of any kind completely and runs `visitor` over what passes its checks: every
/// execution block (era1, ere), or an era file's state and beacon blocks. `emit` gets each chunk's output in
/// chain order, a bounded window of chunks at a time (memory does not grow with the file), while the workers
/// verify the next window. Whether the file as a whole verified is only known from the returned report.
///
/// Takes the file the caller opened: export and prune read the same map for the file's sha256, and a second
/// map of the file would double its pages in the process's RSS.
pub fn archive<V: Visitor>(
    file: &Archive,
    opts: &VerifyOptions,
    visitor: &V,
    mut emit: impl FnMut(V::Chunk) + Send,
) -> FileReport {
    let mut report = FileReport::start(file.path(), file.kind().extension());
    match file {
        Archive::Execution(f) => {
            execution::verify_execution(f, opts, visitor, &mut emit, &mut report)
        }
        Archive::Era(f) => era::verify_era(f, opts, visitor, &mut emit, &mut report),
    }
    // Last: whatever was read must still be the file (it did not shrink under the map or get rewritten).
    if let Err(e) = file.check_unchanged() {
        report.error(e);
    }
    report
}

/// [`archive`] on the file at `path`, opened as the kind it is read as; a file that does not open fails its
/// report.
pub fn file_with<V: Visitor>(
    path: &Path,
    opts: &VerifyOptions,
    visitor: &V,
    emit: impl FnMut(V::Chunk) + Send,
) -> FileReport {
    match Archive::open(path) {
        Ok(file) => archive(&file, opts, visitor, emit),
        Err(e) => FileReport::failed(path, ArchiveKind::read_as(path).extension(), e),
    }
}

/// Verifies the file at `path` completely and returns its report (never panics; errors are in the report).
pub fn file(path: &Path, opts: &VerifyOptions) -> FileReport {
    file_with(path, opts, &NoVisitor, |_| {})
}

/// How to verify.
#[derive(Debug, Clone, Default)]
pub struct VerifyOptions {
    /// Network to check fork rules against; `None` takes it from each file name.
    pub network: Option<Network>,
    /// Also compute the sha256 of each file for the report.
    pub checksum: bool,
    /// Also recover every transaction's sender with `signer`, or else the process-wide signer (which must be
    /// initialised, with the algorithm of the files' network, before calling).
    pub senders: bool,
    /// Skip receipts entirely (no decompression, no receipts root, blooms or gas checks): for paths that
    /// need only headers and transactions, like prune manifests.
    pub skip_receipts: bool,
    /// The signer senders are recovered with; `None`: the process signer ([`signer::global`]). Set only to
    /// compare signers side by side in one process (`eraflow bench`); jobs leave it `None`.
    pub signer: Option<&'static Signer>,
    /// Trusted `(slot, state root)` pairs era states are compared with (see [`crate::verify::anchor`]).
    pub trusted_states: Option<std::sync::Arc<anchor::TrustedStates>>,
    /// A beacon state's `historical_summaries`, against which ere files' proofs of Capella and later blocks are
    /// checked (the embedded accumulator and `historical_roots` serve the earlier ones); see [`crate::canonical`].
    pub historical_summaries: Option<std::sync::Arc<crate::canonical::HistoricalSummaries>>,
    /// The network's own pre-merge accumulator, for a network without an embedded one (mainnet's is): era roots
    /// and type-0 proofs are checked against it.
    pub accumulator: Option<std::sync::Arc<crate::canonical::EpochRoots>>,
}

/// A mismatch error at `offset`: what was checked, what was expected, what was found.
pub(crate) fn mismatch(
    offset: u64,
    what: &'static str,
    expected: impl ToString,
    found: impl ToString,
) -> FormatError {
    FormatError::at(
        offset,
        FormatErrorKind::Mismatch {
            what,
            expected: expected.to_string(),
            found: found.to_string(),
        },
    )
}

/// A forced network that contradicts the file's name — a name naming another known preset — is one clear error
/// (not fifty decoding errors from reading one network's blocks with another's fork rules). A name naming no
/// known preset (a private network) takes the forced one.
pub(crate) fn check_network_matches_name(
    forced: Option<&Network>,
    name: Option<&crate::formats::ArchiveName>,
    path: &Path,
) -> Result<(), String> {
    match (forced, name) {
        (Some(n), Some(named))
            if n.name != named.network && Network::by_name(&named.network).is_ok() =>
        {
            Err(format!(
            "{}: the file name names network '{}', but the job forces network '{}'; drop --network (each file's network then comes from its name) or pass files of '{}'",
            path.display(),
            named.network,
            n.name,
            n.name
        ))
        }
        _ => Ok(()),
    }
}

/// `0x`-prefixed lower-case hex.
pub(crate) fn hex0x(b: &[u8]) -> String {
    format!("0x{}", hex::encode(b))
}

/// The signer when senders are asked for (the options' own, else the process-wide one): looked up once per
/// file, never per transaction, and refused (as a report error) when the file's network signs with another
/// curve. `Err(())` means the error is
/// in the report and the file cannot be verified with senders.
pub(crate) fn process_signer(
    opts: &VerifyOptions,
    network: Option<&Network>,
    path: &Path,
    report: &mut FileReport,
) -> Result<Option<&'static Signer>, ()> {
    if !opts.senders {
        return Ok(None);
    }
    match opts.signer.map_or_else(signer::global, Ok) {
        Ok(s) => {
            let want = network.map_or("secp256k1", |n| n.signature_algorithm.as_str());
            if s.algorithm().name() != want {
                report.error(format!(
                    "{}: network {} signs with {want}, but this process recovers senders with {}; run such files separately",
                    path.display(),
                    report.network,
                    s.algorithm().name()
                ));
                return Err(());
            }
            Ok(Some(s))
        }
        Err(e) => {
            report.error(format!("{}: senders requested: {e}", path.display()));
            Err(())
        }
    }
}

/// Most blocks (era1) or slots (era) per parallel work unit: big enough to amortise scheduling, small enough to
/// balance 2-64 threads.
pub(crate) const CHUNK_BLOCKS: u64 = 256;

/// Most archive bytes (compressed block records) per parallel work unit. What a chunk's consumer holds (an
/// export's Arrow rows: ~3x the compressed bytes on synthetic blocks) grows with its blocks' bytes, not their
/// count, so chunks are cut by bytes too: the chunks in flight ([`pipelined_windows`]) then bound a worker's
/// memory whatever its blocks hold, where 256 full blocks could take hundreds of MB. A block bigger than this
/// is a chunk of its own.
pub(crate) const CHUNK_BYTES: u64 = 2 << 20;

/// Splits items `0..n` (blocks, slots) into consecutive chunks of at most [`CHUNK_BLOCKS`] items and, unless one
/// item alone is bigger, at most [`CHUNK_BYTES`] bytes, where `size(i)` is item `i`'s bytes in the archive.
/// Boundaries depend on the file alone (never on the thread count), so outputs written chunk by chunk are the
/// same bytes whatever the parallelism.
pub(crate) fn chunk_ranges(n: u64, size: impl Fn(u64) -> u64) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    let (mut start, mut bytes) = (0u64, 0u64);
    for i in 0..n {
        let b = size(i);
        if i > start && (i - start >= CHUNK_BLOCKS || bytes.saturating_add(b) > CHUNK_BYTES) {
            out.push((start, i));
            (start, bytes) = (i, 0);
        }
        bytes = bytes.saturating_add(b);
    }
    if start < n {
        out.push((start, n));
    }
    out
}

/// Works through `chunks` a window at a time: `work` processes one window (in parallel, on the current rayon
/// pool) and `absorb` takes its results, in order, while the NEXT window is being worked on. The serial part
/// (merging facts, writing Parquet) then overlaps the parallel part instead of leaving the other workers idle
/// between windows; at most two windows' results are held at once. On one thread it is plain sequential work.
pub(crate) fn pipelined_windows<C: Sync, R: Send>(
    chunks: &[C],
    window: usize,
    work: impl Fn(&[C]) -> Vec<R> + Sync,
    mut absorb: impl FnMut(Vec<R>) + Send,
) {
    let mut pending: Option<Vec<R>> = None;
    for group in chunks.chunks(window.max(1)) {
        let previous = pending.take();
        let absorb = &mut absorb;
        let ((), results) = rayon::join(
            move || {
                if let Some(p) = previous {
                    absorb(p)
                }
            },
            || work(group),
        );
        pending = Some(results);
    }
    if let Some(p) = pending {
        absorb(p);
    }
}

/// Per-file reports kept from earlier runs, by file content: a file whose bytes passed the same checks before
/// is not verified again (the checks between files always run). Implemented over an output store by
/// [`crate::pipeline::verify_cache`]; the verifier only asks and tells.
pub trait ReportCache: Sync {
    /// The passing report kept for the file at `path` (its bytes, these checks, this eraflow version), with
    /// `file` set to `path` and `from_cache` set.
    fn get(&self, path: &Path) -> Option<FileReport>;
    /// Keeps the passing report `report` of the file at `path` (called before the checks between files).
    fn put(&self, path: &Path, report: &FileReport);
}

/// Verifies a mixed list of archives: execution files (era1 and ere, in parallel, chained by parent hash and
/// total difficulty, files of the same blocks compared) and era files (chained by boundary block root and
/// execution head); then ere files are compared with the era files' payloads of the same blocks. Reports come
/// execution files first, then era, each in input order.
pub fn verify_archives(paths: &[PathBuf], opts: &VerifyOptions) -> Vec<FileReport> {
    verify_archives_until(paths, opts, &|| false)
}

/// Splits archives into execution files (era1, ere) and beacon files (era), by their names.
fn split_kinds(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<PathBuf>) {
    paths.iter().cloned().partition(|p| !is_beacon(p))
}

/// Whether the file at `path` holds beacon blocks (an era file), by its name.
fn is_beacon(path: &Path) -> bool {
    crate::formats::Holds::of_path(path).beacon_blocks
}

/// Whether the file at `path` holds header proofs (an ere file of a profile with them), by its name.
fn has_proofs(path: &Path) -> bool {
    crate::formats::ArchiveName::of_path(path).is_some_and(|n| n.holds().proofs)
}

/// [`verify_archives`], starting no file once `stop()` is true (a scheduled run asked to stop): the files
/// already begun finish, the others have no report, and the checks across files cover the reported ones.
pub fn verify_archives_until(
    paths: &[PathBuf],
    opts: &VerifyOptions,
    stop: &(dyn Fn() -> bool + Sync),
) -> Vec<FileReport> {
    verify_all(paths, opts, stop, None)
}

/// The one ladder of [`verify_archives_until`] and [`verify_archives_cached`]: the files' own checks, then
/// the checks across them, every file still on disk.
fn verify_all(
    paths: &[PathBuf],
    opts: &VerifyOptions,
    stop: &(dyn Fn() -> bool + Sync),
    cache: Option<&dyn ReportCache>,
) -> Vec<FileReport> {
    link(verify_batch(paths, opts, stop, cache), opts, &|_| true)
}

/// A file's own report, and what the checks across files need from the file itself when it will be gone by
/// then (an execution file's first parent hash; `None` for a file that stays on disk, read when needed).
pub type Verified = (FileReport, Option<String>);

/// Verifies files that stay on disk until [`link`] has run, each on its own: era files first, one at a time
/// (each uses every thread for its state root and blocks), as their latest state's historical summaries
/// anchor the proofs of the ere files; then execution files in parallel. Starts no file once `stop()` is true;
/// each file's report comes from `cache` when it has one, and new passing ones are kept there.
pub fn verify_batch(
    paths: &[PathBuf],
    opts: &VerifyOptions,
    stop: &(dyn Fn() -> bool + Sync),
    cache: Option<&dyn ReportCache>,
) -> Vec<Verified> {
    let (execution, era) = split_kinds(paths);
    let era_reports = each(&era, opts, stop, &|_| cache, false);
    // Summaries come only from an era file whose links hold; the links themselves are checked by `link`.
    let mut linked = era_reports.clone();
    links::link_era(&mut linked, opts);
    let exec_opts = with_era_summaries(opts, &linked, &execution);
    // Summaries taken from this run's era files are not part of the cache's key: files whose proofs they
    // check are verified again.
    let derived = exec_opts.historical_summaries.is_some() && opts.historical_summaries.is_none();
    let cache_for = |p: &Path| cache.filter(|_| !(derived && has_proofs(p)));
    let reports = each(&execution, &exec_opts, stop, &cache_for, true);
    reports
        .into_iter()
        .chain(era_reports)
        .map(|r| (r, None))
        .collect()
}

/// A cache to take a file's report from and keep it in, or none.
type CacheFor<'a> = dyn Fn(&Path) -> Option<&'a dyn ReportCache> + Sync + 'a;

/// Verifies each of `paths` on its own ([`file`], or the report `cache_for` the file has), in parallel or one
/// at a time, starting none once `stop()` is true. Reports come in input order; the checks across files are
/// the caller's.
fn each<'a>(
    paths: &[PathBuf],
    opts: &VerifyOptions,
    stop: &(dyn Fn() -> bool + Sync),
    cache_for: &CacheFor<'a>,
    parallel: bool,
) -> Vec<FileReport> {
    use rayon::prelude::*;
    let one = |p: &PathBuf| match cache_for(p) {
        Some(cache) => cache.get(p).unwrap_or_else(|| {
            let r = file(p, opts);
            if r.ok {
                cache.put(p, &r);
            }
            r
        }),
        None => file(p, opts),
    };
    match parallel {
        true => paths.par_iter().filter(|_| !stop()).map(one).collect(),
        false => paths.iter().filter(|_| !stop()).map(one).collect(),
    }
}

/// `opts` with the historical summaries of the latest verified era state among `era_reports`, when none were
/// given and some of `execution` are ere files with proofs (Capella and later blocks need them).
fn with_era_summaries(
    opts: &VerifyOptions,
    era_reports: &[FileReport],
    execution: &[PathBuf],
) -> VerifyOptions {
    let mut opts = opts.clone();
    let proofs = execution.iter().any(|p| has_proofs(p));
    if opts.historical_summaries.is_some() || !proofs {
        return opts;
    }
    let latest = era_reports
        .iter()
        .filter(|r| r.ok)
        .filter_map(|r| Some((r.beacon.as_ref()?.state_slot, r)))
        .max_by_key(|(slot, _)| *slot);
    if let Some((_, r)) = latest {
        let network = opts
            .network
            .clone()
            .or_else(|| Network::by_name(&r.network).ok());
        if let Some(net) = network {
            match canonical::summaries_from_era_file(Path::new(&r.file), &net) {
                Ok(s) => opts.historical_summaries = Some(std::sync::Arc::new(s)),
                Err(e) => tracing::warn!(error = %e, "no historical summaries from the era files"),
            }
        }
    }
    opts
}

/// [`verify_archives_until`], taking each file's own report from `cache` when it has one and keeping every
/// new passing one there; the checks between files run over all the reports, as without a cache.
pub fn verify_archives_cached(
    paths: &[PathBuf],
    opts: &VerifyOptions,
    stop: &(dyn Fn() -> bool + Sync),
    cache: &dyn ReportCache,
) -> Vec<FileReport> {
    verify_all(paths, opts, stop, Some(cache))
}

/// Verifies one file of a stream whose files do not stay on disk (remote inputs, removed from the cache after
/// use): its report, and what the checks across files later need from the file itself (an execution file's
/// first parent hash), read while it is there. [`link`] runs those checks at the end.
pub fn verify_one(path: &Path, opts: &VerifyOptions) -> Verified {
    let report = file(path, opts);
    match is_beacon(path) {
        true => (report, None),
        false => (report, links::first_parent_hash(path)),
    }
}

/// The checks across files over reports made by [`verify_batch`] and [`verify_one`]: execution files chained
/// by parent hash and total difficulty (files of the same blocks compared), era files by boundary root and
/// execution head, then ere blocks compared with the era files' payloads of the same blocks (and, past Gloas,
/// with their bids). `on_disk` says
/// whether a report's file is still there to read (a first parent hash, a block's hash); where it is gone, ere
/// blocks are compared with era payloads only where the era files' payload marks reach them. Reports come
/// execution files first, then era, each in the order given.
pub fn link(
    reports: Vec<Verified>,
    opts: &VerifyOptions,
    on_disk: &dyn Fn(&str) -> bool,
) -> Vec<FileReport> {
    use std::collections::HashMap;
    let mut parents: HashMap<String, String> = HashMap::new();
    let (mut era_reports, mut execution_reports) = (Vec::new(), Vec::new());
    for (r, parent) in reports {
        if let Some(p) = parent {
            parents.insert(r.file.clone(), p);
        }
        match is_beacon(Path::new(&r.file)) {
            true => era_reports.push(r),
            false => execution_reports.push(r),
        }
    }
    links::link_execution(&mut execution_reports, |r| match parents.get(&r.file) {
        Some(p) => Some(p.clone()),
        None if on_disk(&r.file) => links::first_parent_hash(Path::new(&r.file)),
        None => None,
    });
    links::link_era(&mut era_reports, opts);
    links::cross_check_payloads(
        &mut execution_reports,
        &mut era_reports,
        |r, n| match on_disk(&r.file) {
            true => links::block_hash_in(Path::new(&r.file), n),
            false => None,
        },
    );
    links::cross_check_bids(
        &mut execution_reports,
        &mut era_reports,
        |r, slot| match on_disk(&r.file) {
            true => links::ere_block_at_slot(Path::new(&r.file), slot),
            false => links::AtSlot::Unknown,
        },
        |r, slot| {
            let net = opts
                .network
                .clone()
                .or_else(|| Network::by_name(&r.network).ok());
            match (on_disk(&r.file), net) {
                (true, Some(net)) => links::era_bid_at_slot(Path::new(&r.file), slot, &net),
                _ => links::AtSlot::Unknown,
            }
        },
    );
    execution_reports.extend(era_reports);
    execution_reports
}

/// Chooses the process's one signature algorithm — `explicit`, else the network's, else the first file
/// whose name names a known network, else secp256k1 — and initialises it, on secp256k1 with `backend`, before
/// any worker starts.
pub fn init_signer(
    explicit: Option<SignatureAlgorithm>,
    backend: SignerBackend,
    network: Option<&Network>,
    files: &[PathBuf],
) -> Result<&'static Signer, SignerError> {
    let from_network = |n: &Network| SignatureAlgorithm::from_name(&n.signature_algorithm);
    let algorithm = match (explicit, network) {
        (Some(a), _) => a,
        (None, Some(n)) => from_network(n)?,
        (None, None) => files
            .iter()
            .find_map(|p| Network::by_name(&crate::formats::ArchiveName::of_path(p)?.network).ok())
            .map(|n| from_network(&n))
            .transpose()?
            .unwrap_or_default(),
    };
    signer::init_with(algorithm, backend)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_are_cut_by_count_and_by_bytes() {
        // Small blocks: by count.
        assert_eq!(
            chunk_ranges(600, |_| 10),
            [(0, 256), (256, 512), (512, 600)]
        );
        assert!(chunk_ranges(0, |_| 10).is_empty());
        // Big blocks: by bytes; a block over the limit stands alone, never splits or vanishes.
        let third = CHUNK_BYTES / 3;
        assert_eq!(chunk_ranges(7, |_| third), [(0, 3), (3, 6), (6, 7)]);
        let sizes = [1, CHUNK_BYTES * 5, 1, 1];
        assert_eq!(
            chunk_ranges(4, |i| sizes[i as usize]),
            [(0, 1), (1, 2), (2, 4)]
        );
        // Absurd sizes (a corrupt index) saturate instead of overflowing.
        assert_eq!(chunk_ranges(3, |_| u64::MAX), [(0, 1), (1, 2), (2, 3)]);
    }
}
