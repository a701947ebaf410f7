//! `eraflow convert`: execution archives rewritten from one record layout into the other, from verified input
//! only. era1 to ere keeps every block, turns receipts into slim ones, keeps the total difficulty and the
//! accumulator root (the `noproofs` profile: proofs need trusted roots, see the canonical-history work); ere to
//! era1 rebuilds full receipts with their blooms, for pre-merge ere files with receipts and total difficulty. A
//! converted file appears under its canonical name only once the input verified and the output is complete.

use crate::execution::receipt;
use crate::formats::era1::Era1Writer;
use crate::formats::ere::{EreBlock, EreWriter};
use crate::formats::{ArchiveKind, EreProfile, ExecutionArchive, FormatError, FormatErrorKind};
use crate::network::Network;
use crate::verify::execution::{verify_opened_with, BlockVisitor, VerifiedBlock};
use crate::verify::report::{FileReport, ReportError};
use crate::verify::VerifyOptions;
use alloy_primitives::U256;
use std::path::{Path, PathBuf};

/// What to convert into.
#[derive(Debug, Clone)]
pub struct ConvertOptions {
    /// `ere` or `era1`.
    pub to: ArchiveKind,
    /// Directory the new files are written to.
    pub out: PathBuf,
    /// ere output: the components to leave out (`noproofs`, or `noproofs-noreceipts`).
    pub profile: EreProfile,
    /// Network to verify the inputs against; `None`: each file's name says.
    pub network: Option<Network>,
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

impl BlockVisitor for ConvertVisitor {
    type Chunk = Vec<Block>;
    fn start_chunk(&self, _: u64) -> Vec<Block> {
        Vec::new()
    }
    fn visit(&self, chunk: &mut Vec<Block>, b: &VerifiedBlock<'_>) {
        let receipts = self.receipts.then(|| match self.to {
            ArchiveKind::Ere => receipt::encode_slim_list(b.receipts.iter().copied()),
            _ => receipt::encode_list(
                &b.receipts
                    .iter()
                    .map(|r| r.canonical().to_vec())
                    .collect::<Vec<_>>(),
            ),
        });
        chunk.push(Block {
            number: b.number,
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
    fn add(&mut self, b: &Block, dir: &Path) -> Result<(), ReportError> {
        match self {
            Writer::Ere(w) => w
                .add_block(&EreBlock {
                    number: b.number,
                    header: &b.header,
                    body: &b.body,
                    slim_receipts: b.receipts.as_deref(),
                    total_difficulty: b.total_difficulty,
                    pre_merge: b.pre_merge,
                    proof: None,
                })
                .map_err(|e| write_failed(dir, e)),
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

/// The ere profile an output may have: `noproofs` (the default) or `noproofs-noreceipts`; proofs need the
/// canonical-history work, so the other profiles are refused.
pub fn parse_profile(name: Option<&str>) -> Result<EreProfile, super::JobError> {
    match name.unwrap_or("noproofs") {
        "noproofs" => Ok(EreProfile {
            no_proofs: true,
            no_receipts: false,
        }),
        "noproofs-noreceipts" => Ok(EreProfile {
            no_proofs: true,
            no_receipts: true,
        }),
        other => Err(super::JobError::Invalid {
            key: "profile",
            message: format!(
                "'{other}': ere files are written without proofs here: noproofs (default) or noproofs-noreceipts"
            ),
        }),
    }
}

/// Converts every file (one after another, each verified across all threads); one result per input, in order.
pub fn convert(files: &[PathBuf], opts: &ConvertOptions) -> Vec<Converted> {
    files.iter().map(|f| convert_one(f, opts)).collect()
}

fn convert_one(path: &Path, opts: &ConvertOptions) -> Converted {
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
    if !opts.to.is_execution() {
        return refuse(format!(
            "cannot convert to {}: execution archives convert to ere or era1",
            opts.to
        ));
    }
    if file.kind() == opts.to {
        return refuse(format!("already an {} file", opts.to));
    }
    if let ExecutionArchive::Ere(f) = &file {
        if f.profile().no_receipts {
            return refuse(
                "an ere file without receipts cannot become era1 (era1 files hold receipts)".into(),
            );
        }
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
        receipts: opts.to == ArchiveKind::Era1 || !opts.profile.no_receipts,
    };
    let vopts = VerifyOptions {
        network: Some(network),
        ..Default::default()
    };
    let mut write_error: Option<ReportError> = None;
    let mut report = verify_opened_with(&file, &vopts, &visitor, |blocks: Vec<Block>| {
        for b in &blocks {
            if write_error.is_none() {
                write_error = writer.add(b, &opts.out).err();
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
