//! `eraflow convert`: execution archives rewritten from one record layout into the other, from verified input
//! only. era1 to ere keeps every block, turns receipts into slim ones, keeps the total difficulty and the
//! accumulator root, and adds each block's Portal header proof (the default profile; see [`proofs`]):
//! the default on networks with an accumulator (mainnet), `noproofs` elsewhere. ere to ere adds the proofs a
//! `noproofs` file lacks, post-merge ones from era files. ere to era1 rebuilds full receipts with their blooms,
//! for pre-merge ere files with receipts and total difficulty. A converted file appears under its canonical name
//! only once the input verified and the output is complete; proofs are built and checked before any block is
//! written, and never for a block other than the one verified.

pub mod proofs;

use crate::canonical::HistoricalHashesAccumulator;
use crate::execution::receipt;
use crate::formats::era1::Era1Writer;
use crate::formats::ere::{EreBlock, EreWriter};
use crate::formats::{
    Archive, ArchiveKind, EreProfile, ExecutionArchive, FormatError, FormatErrorKind, Receipts,
};
use crate::network::Network;
use crate::verify::report::{FileReport, ReportError};
use crate::verify::VerifyOptions;
use crate::verify::{VerifiedBlock, Visitor};
use alloy_primitives::U256;
use proofs::{prove_archive, ArchiveProofs, EraFiles, ProofError};
use std::path::{Path, PathBuf};

/// What to convert into.
#[derive(Debug, Clone)]
pub struct ConvertOptions {
    /// `ere` or `era1`.
    pub to: ArchiveKind,
    /// Directory the new files are written to.
    pub out: PathBuf,
    /// ere output: the components to leave out. `None` picks per input: from era1, the default profile (with
    /// proofs) where the network has an accumulator (mainnet), else `noproofs`; from ere, proofs added and
    /// receipts kept as the input has them.
    pub profile: Option<EreProfile>,
    /// Network to verify the inputs against; `None`: each file's name says.
    pub network: Option<Network>,
    /// Era files holding the beacon blocks of the inputs' post-merge blocks, and the states at the end of their
    /// periods: where proofs of types 1 to 3 are built from. Unused without proofs or post-merge blocks.
    pub era_files: Vec<PathBuf>,
    /// The network's own pre-merge accumulator, for a network without an embedded one (mainnet's is): type-0
    /// proofs are built for the eras whose roots it holds.
    pub accumulator: Option<std::sync::Arc<crate::canonical::EpochRoots>>,
}

/// One input's conversion.
#[derive(Debug)]
pub struct Converted {
    /// The input file.
    pub input: PathBuf,
    /// The file written, when the input verified and converted.
    pub output: Option<PathBuf>,
    /// The input's verification report; conversion failures are added to its errors.
    pub report: FileReport,
}

/// One block as the writer takes it: uncompressed RLP of its parts.
struct Block {
    number: u64,
    /// The verified header's hash: a proof is attached only when it was built for this hash.
    hash: [u8; 32],
    header: Vec<u8>,
    body: Vec<u8>,
    /// Slim receipts (to ere) or full receipts (to era1); `None` when left out.
    receipts: Option<Vec<u8>>,
    total_difficulty: Option<U256>,
    pre_merge: bool,
}

/// Copies each verified block into the target layout's parts.
struct ConvertVisitor {
    to: ArchiveKind,
    receipts: bool,
}

impl Visitor for ConvertVisitor {
    type Chunk = Vec<Block>;
    fn start_chunk(&self, _: u64) -> Vec<Block> {
        Vec::new()
    }
    fn block(&self, chunk: &mut Vec<Block>, b: &VerifiedBlock<'_>) {
        let receipts = self.receipts.then(|| match self.to.holds().receipts {
            Receipts::Slim => receipt::encode_slim_list(b.receipts.iter().copied()),
            _ => receipt::encode_list(
                &b.receipts
                    .iter()
                    .map(|r| r.canonical().to_vec())
                    .collect::<Vec<_>>(),
            ),
        });
        chunk.push(Block {
            number: b.number,
            hash: b.header.hash().0,
            header: b.header.raw().to_vec(),
            body: b.body.raw().to_vec(),
            receipts,
            total_difficulty: b.total_difficulty,
            pre_merge: !b.header.difficulty().is_zero(),
        });
    }
}

/// The writer of the target layout.
enum Writer {
    Ere(EreWriter),
    Era1(Era1Writer),
}

/// A write failure as a report error: an I/O error (exit 2) names the output directory.
fn write_failed(dir: &Path, e: std::io::Error) -> ReportError {
    FormatError::at(0, FormatErrorKind::Io(e.into()))
        .in_file(dir)
        .into()
}

impl Writer {
    fn add(
        &mut self,
        b: &Block,
        dir: &Path,
        proofs: Option<&ArchiveProofs>,
    ) -> Result<(), ReportError> {
        match self {
            Writer::Ere(w) => {
                let proof = proofs.map(|p| p.record(b.number, &b.hash)).transpose()?;
                w.add_block(&EreBlock {
                    number: b.number,
                    header: &b.header,
                    body: &b.body,
                    slim_receipts: b.receipts.as_deref(),
                    total_difficulty: b.total_difficulty,
                    pre_merge: b.pre_merge,
                    proof,
                })
                .map_err(|e| write_failed(dir, e))
            }
            Writer::Era1(w) => {
                let (Some(receipts), Some(td), true) =
                    (&b.receipts, b.total_difficulty, b.pre_merge)
                else {
                    return Err(ReportError::Check(format!(
                        "block {}: era1 holds pre-merge blocks with receipts and total difficulty only",
                        b.number
                    )));
                };
                w.add_block(b.number, &b.header, &b.body, receipts, td)
                    .map_err(|e| write_failed(dir, e))
            }
        }
    }

    fn finish(self) -> std::io::Result<PathBuf> {
        match self {
            Writer::Ere(w) => w.finish(),
            Writer::Era1(w) => w.finish(),
        }
    }
}

/// Converts every file (one after another, each verified across all threads); one result per input, in order.
pub fn convert(files: &[PathBuf], opts: &ConvertOptions) -> Vec<Converted> {
    // Opened once for all inputs; each input reads the states its blocks need.
    let era_files = if opts.era_files.is_empty() {
        Ok(None)
    } else {
        EraFiles::open(&opts.era_files).map(Some)
    };
    files
        .iter()
        .map(|f| convert_one(f, opts, &era_files))
        .collect()
}

/// A proof failure as a report error: read failures keep their location (and their exit code).
impl From<ProofError> for ReportError {
    fn from(e: ProofError) -> Self {
        match e {
            ProofError::Format(f) => ReportError::Format(f),
            e => ReportError::Check(e.to_string()),
        }
    }
}

fn convert_one(
    path: &Path,
    opts: &ConvertOptions,
    era_files: &Result<Option<EraFiles>, ProofError>,
) -> Converted {
    let failed = |report: FileReport| Converted {
        input: path.to_path_buf(),
        output: None,
        report,
    };
    let file = match ExecutionArchive::open(path) {
        Ok(f) => f,
        Err(e) => {
            let kind = ArchiveKind::of(path).unwrap_or(ArchiveKind::Era1);
            let mut report = FileReport::start(path, kind.extension());
            report.error(e);
            return failed(report);
        }
    };
    let refuse = |message: String| {
        let mut report = FileReport::start(path, file.kind().extension());
        report.error(ReportError::Check(format!("{}: {message}", path.display())));
        failed(report)
    };
    if !opts.to.holds().execution_blocks {
        return refuse(format!(
            "cannot convert to {}: execution archives convert to ere or era1",
            opts.to
        ));
    }
    // An ere input's profile; era1 has none.
    let input = match &file {
        ExecutionArchive::Ere(f) => Some(f.profile()),
        _ => None,
    };
    match (input, opts.to) {
        (None, ArchiveKind::Era1) => return refuse("already an era1 file".into()),
        (Some(p), ArchiveKind::Era1) if p.no_receipts => {
            return refuse(
                "an ere file without receipts cannot become era1 (era1 files hold receipts)".into(),
            )
        }
        _ => {}
    }
    let network = match (&opts.network, file.name()) {
        (Some(n), _) => n.clone(),
        (None, Some(name)) => match Network::by_name(&name.network) {
            Ok(n) => n,
            Err(e) => return refuse(format!("{e}; pass --network")),
        },
        (None, None) => {
            return refuse("the file name does not say its network; pass --network".into())
        }
    };
    let accumulator = opts
        .accumulator
        .as_ref()
        .map(|a| a.view())
        .or_else(|| HistoricalHashesAccumulator::of(&network));
    let profile = opts.profile.unwrap_or(match input {
        Some(p) => EreProfile {
            no_proofs: false,
            no_receipts: p.no_receipts,
        },
        None => EreProfile {
            no_proofs: accumulator.is_none(),
            no_receipts: false,
        },
    });
    if let (Some(input), ArchiveKind::Ere) = (input, opts.to) {
        if !input.no_proofs || profile.no_proofs {
            return refuse(format!(
                "already an ere file ({} profile): ere is rewritten only to add header proofs to a noproofs file",
                input.name()
            ));
        }
        if input.no_receipts && !profile.no_receipts {
            return refuse(format!(
                "the file has no receipts, so the {} profile (with receipts) cannot be written: use --profile noreceipts",
                profile.name()
            ));
        }
    }
    // Every proof is built (and checked) before a block is written.
    let proofs = if opts.to == ArchiveKind::Ere && !profile.no_proofs {
        let built = match era_files {
            Ok(era_files) => prove_archive(&file, &network, accumulator, era_files.as_ref()),
            Err(e) => Err(e.clone()),
        };
        match built {
            Ok(p) => Some(p),
            Err(e) => {
                let mut report = FileReport::start(path, file.kind().extension());
                report.error(e);
                return failed(report);
            }
        }
    } else {
        None
    };
    if let Err(e) = std::fs::create_dir_all(&opts.out) {
        return refuse(format!("creating {}: {e}", opts.out.display()));
    }
    let writer = match opts.to {
        ArchiveKind::Ere => EreWriter::create(&opts.out, &network.name).map(Writer::Ere),
        _ => Era1Writer::create(&opts.out, &network.name).map(Writer::Era1),
    };
    let mut writer = match writer {
        Ok(w) => w,
        Err(e) => return refuse(format!("writing into {}: {e}", opts.out.display())),
    };
    let visitor = ConvertVisitor {
        to: opts.to,
        receipts: opts.to == ArchiveKind::Era1 || !profile.no_receipts,
    };
    let vopts = VerifyOptions {
        network: Some(network),
        ..Default::default()
    };
    let mut write_error: Option<ReportError> = None;
    let file = Archive::Execution(file);
    let mut report = crate::verify::archive(&file, &vopts, &visitor, |blocks: Vec<Block>| {
        for b in &blocks {
            if write_error.is_none() {
                write_error = writer.add(b, &opts.out, proofs.as_ref()).err();
            }
        }
    });
    if let Some(e) = write_error {
        report.error(e);
    }
    if !report.ok {
        // Dropping the writer removes its temporary files: nothing appears from an input that did not verify.
        drop(writer);
        return failed(report);
    }
    match writer.finish() {
        Ok(out) => Converted {
            input: path.to_path_buf(),
            output: Some(out),
            report,
        },
        Err(e) => {
            report.error(write_failed(&opts.out, e));
            failed(report)
        }
    }
}
