//! The Portal header proofs a default-profile ere file carries, built for every block of an input archive before
//! `eraflow convert --to ere` writes anything, and checked as they are built:
//!
//! - Pre-merge blocks (type 0): from the archive's own epoch record, the header records its block hashes and
//!   total difficulties make. Its root must be the accumulator's entry for the era (mainnet's is embedded,
//!   EIP-7643), so each proof reaches that trusted root, not the file's own claim; an era that is not the
//!   network's is refused ([`ProofError::NotCanonicalEra`]).
//! - Post-merge blocks (types 1 to 3): from era files. A block's timestamp fixes its beacon slot
//!   (`genesis_time + 12 * slot`, the genesis time read from an era file's state); the era file of that slot's
//!   period (era `slot / 8192 + 1`) holds the beacon block, whose execution payload must carry the block's hash,
//!   and the state at the period's end, whose `block_roots` and `state_roots` are the period's ([`Period`]; one
//!   state read per period, so an era's blocks cost about two states). Each proof is checked against that state's
//!   roots: `historical_roots` for type 1 (mainnet's embedded ones where they exist, so a mainnet type 1 proof is
//!   proven at write time), the state's own `historical_summaries` for types 2 and 3. Whether that state is
//!   canonical is for a verifier to check against summaries it trusts. The era files are not verified here
//!   (`eraflow verify` does that); what a proof rests on is re-derived from them instead: the beacon block's root
//!   must be its slot's entry of the period's `block_roots`, and the period's roots must be the state's entries.
//!
//! A proof is handed out only for the block hash it was built for ([`ArchiveProofs::record`]), so a block that
//! verification later reads differently gets none.

use crate::canonical::build::{beacon_proof, EpochRecordProofs, PeriodProofs};
use crate::canonical::{
    verify_proof, AnchorError, Anchors, BlockId, BuildError, HistoricalHashesAccumulator,
    HistoricalRoots, HistoricalSummaries, NotProven, ProofType, ERA_BLOCKS, PERIOD_SLOTS,
};
use crate::consensus::{BeaconBlock, BeaconState, Fork, SignedBeaconBlock, SszError};
use crate::execution::header::HeaderView;
use crate::execution::rlp::RlpError;
use crate::formats::era::EraFile;
use crate::formats::execution::{decompress, MAX_HEADER_BYTES};
use crate::formats::snappy::FramedDecoder;
use crate::formats::MappedArchive;
use crate::formats::{ArchiveName, ExecutionArchive, FormatError, FormatErrorKind};
use crate::network::Network;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `SECONDS_PER_SLOT`: a payload's timestamp is `genesis_time + 12 * slot`.
const SECONDS_PER_SLOT: u64 = 12;

fn hex32(root: &[u8; 32]) -> String {
    format!("0x{}", hex::encode(root))
}

/// Why the proofs of an archive could not be built.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ProofError {
    /// The archive or an era file could not be read where a proof needed it.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// A header does not decode.
    #[error("{}: block {number}: header: {source}", .file.display())]
    Header {
        /// The archive.
        file: PathBuf,
        /// The block.
        number: u64,
        /// What is wrong with its RLP.
        #[source]
        source: RlpError,
    },
    /// Pre-merge blocks, and no accumulator for the network: type 0 proofs cannot be made.
    #[error("{}: no accumulator for network {network}: use --profile noproofs", .file.display())]
    NoAccumulator {
        /// The archive.
        file: PathBuf,
        /// The network's name.
        network: String,
    },
    /// The epoch record the archive's pre-merge blocks make is not the accumulator's entry for their era: not
    /// the network's canonical blocks (or not all of them).
    #[error("era {era} of {} is not {network}'s canonical era: accumulator root {}, expected {}", .file.display(), hex32(.found), hex32(.expected))]
    NotCanonicalEra {
        /// The archive.
        file: PathBuf,
        /// Its era.
        era: u64,
        /// The network's name.
        network: String,
        /// The root of the epoch record the file's blocks make.
        found: [u8; 32],
        /// The accumulator's entry for the era.
        expected: [u8; 32],
    },
    /// The era is past the accumulator, or some other reason the era's root cannot be checked.
    #[error("{}: {source}", .file.display())]
    Accumulator {
        /// The archive.
        file: PathBuf,
        /// Why.
        #[source]
        source: NotProven,
    },
    /// Pre-merge blocks whose record positions would not be their numbers: the archive starts mid-era.
    #[error("{}: its pre-merge blocks start at block {first}, not at their era's first block {}: their epoch record would be incomplete", .file.display(), .first - .first % ERA_BLOCKS)]
    NotEraStart {
        /// The archive.
        file: PathBuf,
        /// Its first block.
        first: u64,
    },
    /// One block's proof.
    #[error("{}: block {number}: {source}", .file.display())]
    Block {
        /// The archive.
        file: PathBuf,
        /// The block.
        number: u64,
        /// Why its proof could not be made (boxed: the error stays small on the success path).
        #[source]
        source: Box<BlockProofError>,
    },
    /// Two era files of one era: which one to take is not for the converter to guess.
    #[error("{} and {} are both era {era}: pass one era file per era", .first.display(), .second.display())]
    DuplicateEra {
        /// The era.
        era: u64,
        /// The first file of that era.
        first: PathBuf,
        /// The second.
        second: PathBuf,
    },
    /// An era file's state does not decode.
    #[error("{}: BeaconState: {source}", .era_file.display())]
    EraState {
        /// The era file.
        era_file: PathBuf,
        /// What is wrong with its SSZ.
        #[source]
        source: SszError,
    },
    /// A period's `block_roots` and `state_roots` cannot be read as a historical batch.
    #[error("{}: the period's historical batch: {source}", .era_file.display())]
    EraBatch {
        /// Where the period was read from.
        era_file: PathBuf,
        /// What is wrong.
        #[source]
        source: BuildError,
    },
    /// A state that ends no period: its roots are not one period's.
    #[error("{}: the state at slot {slot} ends no period (its slot must be a multiple of 8192 after genesis)", .era_file.display())]
    NotPeriodEnd {
        /// Where the state was read from.
        era_file: PathBuf,
        /// Its slot.
        slot: u64,
    },
    /// An era file's state holds `historical_roots` or `historical_summaries` that cannot be read as such.
    #[error("{}: {source}", .era_file.display())]
    EraAnchor {
        /// The era file.
        era_file: PathBuf,
        /// What is wrong.
        #[source]
        source: AnchorError,
    },
    /// An era file named for another network than the blocks'.
    #[error("{}: an era file of network {found}, and the blocks are {expected}'s", .era_file.display())]
    EraNetwork {
        /// The era file.
        era_file: PathBuf,
        /// The network its name says.
        found: String,
        /// The blocks' network.
        expected: String,
    },
    /// Era files whose states disagree on the genesis time are not of one chain.
    #[error("{}: genesis time {found}, and {} says {expected}: the era files are not of one chain", .era_file.display(), .other.display())]
    GenesisTime {
        /// The era file.
        era_file: PathBuf,
        /// Its state's genesis time.
        found: u64,
        /// The era file the genesis time was first read from.
        other: PathBuf,
        /// That file's genesis time.
        expected: u64,
    },
}

/// Why one block's proof could not be made.
#[derive(Debug, Clone, thiserror::Error)]
pub enum BlockProofError {
    /// A pre-merge block without a total difficulty: its header record needs one.
    #[error("it is pre-merge and has no total difficulty, which its header record needs")]
    NoTotalDifficulty,
    /// A post-merge block, and no era files to take its beacon block from.
    #[error("it is post-merge: its proof needs the era file holding its beacon block (pass --era-files)")]
    NoEraFiles,
    /// The timestamp falls between beacon slots: no payload can have it.
    #[error(
        "timestamp {timestamp} is no beacon slot's (genesis time {genesis_time}, 12-second slots)"
    )]
    NoSlot {
        /// The header's timestamp.
        timestamp: u64,
        /// The beacon chain's genesis time.
        genesis_time: u64,
    },
    /// The era file holding the block's beacon block was not given.
    #[error("its beacon block (slot {slot}) is in the era file of era {era}, and no era file given is of that era")]
    NoEraFile {
        /// The slot of the block's timestamp.
        slot: u64,
        /// The era whose file holds that slot.
        era: u64,
    },
    /// The era file has no beacon block at the block's slot.
    #[error("{} has no beacon block at slot {slot}, the slot of the block's timestamp", .era_file.display())]
    EmptySlot {
        /// The slot of the block's timestamp.
        slot: u64,
        /// The era file.
        era_file: PathBuf,
    },
    /// The beacon block does not decode.
    #[error("{}: beacon block at slot {slot}: {source}", .era_file.display())]
    BeaconBlock {
        /// Its slot.
        slot: u64,
        /// The era file.
        era_file: PathBuf,
        /// What is wrong with its SSZ.
        #[source]
        source: SszError,
    },
    /// The beacon block at the block's slot carries another execution block.
    #[error("the beacon block at slot {slot} carries execution block {}, not this one ({})", hex32(.found), hex32(.expected))]
    OtherPayload {
        /// The beacon block's slot.
        slot: u64,
        /// The block's hash.
        expected: [u8; 32],
        /// The payload's `block_hash`.
        found: [u8; 32],
    },
    /// The network's execution fork times and its consensus forks disagree about the block.
    #[error("it needs a proof of type {} ({}) by its number and timestamp, and its beacon block at slot {slot} is {fork}: type {} ({})", .expected.code(), .expected.name(), .found.code(), .found.name())]
    TypeMismatch {
        /// The beacon block's slot.
        slot: u64,
        /// Its fork.
        fork: Fork,
        /// The type the block needs.
        expected: ProofType,
        /// The type its beacon block gives.
        found: ProofType,
    },
    /// The builder refused its inputs.
    #[error(transparent)]
    Build(BuildError),
    /// The proof built does not reach the roots it was built from.
    #[error("the proof built does not verify against the roots it was built from: {0}")]
    Unproven(#[source] NotProven),
    /// No proof was built for the block: it is not in the archive the proofs were built for.
    #[error("no proof was built for it ({count} were built, from block {first})")]
    NotBuilt {
        /// The first block proofs were built for.
        first: u64,
        /// How many were built.
        count: usize,
    },
    /// The block verification read has another hash than the one its proof was built for.
    #[error("its proof was built for block hash {}, and the verified header's hash is {}", hex32(.expected), hex32(.found))]
    OtherHash {
        /// The hash the proof was built for.
        expected: [u8; 32],
        /// The verified header's hash.
        found: [u8; 32],
    },
}

/// RLP `[proof-type, ssz(proof)]`: an ere `Proof` record, uncompressed.
pub fn encode_record(proof_type: ProofType, ssz: &[u8]) -> Vec<u8> {
    use alloy_rlp::Encodable;
    let mut fields = Vec::with_capacity(ssz.len() + 8);
    proof_type.code().encode(&mut fields);
    ssz.encode(&mut fields);
    let mut out = Vec::with_capacity(fields.len() + 4);
    alloy_rlp::Header {
        list: true,
        payload_length: fields.len(),
    }
    .encode(&mut out);
    out.extend(fields);
    out
}

/// Era files by era, mapped with their indices read; a period's state is read only when a block needs it.
pub struct EraFiles {
    files: BTreeMap<u64, EraFile>,
}

impl EraFiles {
    /// Opens each era file (refusing two of one era).
    pub fn open(paths: &[PathBuf]) -> Result<EraFiles, ProofError> {
        let mut files: BTreeMap<u64, EraFile> = BTreeMap::new();
        for p in paths {
            let f = EraFile::open(p)?;
            if let Some(other) = files.get(&f.era()) {
                return Err(ProofError::DuplicateEra {
                    era: f.era(),
                    first: other.path().to_path_buf(),
                    second: p.clone(),
                });
            }
            files.insert(f.era(), f);
        }
        Ok(EraFiles { files })
    }

    /// Number of files.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// True when no file was given.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The genesis time of the first file's state: the first 8 bytes of its SSZ, so only the state's first
    /// snappy chunk is decompressed (a mainnet state is hundreds of megabytes).
    fn genesis_time(&self) -> Result<Option<(u64, &Path)>, ProofError> {
        use std::io::Read;
        let Some(f) = self.files.values().next() else {
            return Ok(None);
        };
        let record = f.state_record()?;
        let mut first = [0u8; 8];
        snap::read::FrameDecoder::new(record.data)
            .read_exact(&mut first)
            .map_err(|e| {
                FormatError::at(
                    record.offset,
                    FormatErrorKind::Snappy(format!("the state's genesis_time: {e}")),
                )
                .in_file(f.path())
            })?;
        Ok(Some((u64::from_le_bytes(first), f.path())))
    }

    /// Reads the period whose blocks the era file of `era` holds, with its state's genesis time; `None` when no
    /// file of that era was given.
    fn period(&self, network: &Network, era: u64) -> Option<Result<(Period, u64), ProofError>> {
        let f = self.files.get(&era)?;
        Some(read_period(network, f))
    }
}

/// Decompresses an era file's state and takes from it what proofs of the period's blocks need.
fn read_period(network: &Network, f: &EraFile) -> Result<(Period, u64), ProofError> {
    let path = f.path();
    if let Some(name) = ArchiveName::of_path(path).filter(|n| n.network != network.name) {
        return Err(ProofError::EraNetwork {
            era_file: path.to_path_buf(),
            found: name.network,
            expected: network.name.clone(),
        });
    }
    let record = f.state_record()?;
    let mut dec = crate::formats::era::state_decoder();
    let bytes = dec
        .decompress(record.data)
        .map_err(|k| FormatError::at(record.offset, k).in_file(path))?;
    let fork = crate::consensus::Spec::at_slot(f.state_slot(), network);
    let state = BeaconState::new(bytes, fork).map_err(|source| ProofError::EraState {
        era_file: path.to_path_buf(),
        source,
    })?;
    if state.slot() != f.state_slot() {
        return Err(FormatError::at(
            record.offset,
            FormatErrorKind::Mismatch {
                what: "state slot",
                expected: format!("{} (slot index)", f.state_slot()),
                found: state.slot().to_string(),
            },
        )
        .in_file(path)
        .into());
    }
    Ok((
        Period::from_state(network, &state, path)?,
        state.genesis_time(),
    ))
}

/// One period of beacon history (8192 slots) as the state at its end records it: what proofs of its blocks are
/// built from and checked against.
#[derive(Debug, Clone)]
pub struct Period {
    /// Where the period was read from (an era file), for messages.
    source: PathBuf,
    proofs: PeriodProofs,
    /// The state's `historical_roots`, SSZ (checked to read as such).
    historical_roots: Vec<u8>,
    /// The state's `historical_summaries` (Capella on).
    summaries: Option<HistoricalSummaries>,
}

impl Period {
    /// From the parts of the state at the period's end: its historical batch (`block_roots || state_roots`), its
    /// `historical_roots` (SSZ), its `historical_summaries` (Capella on). `path` names where they came from.
    pub fn new(
        path: &Path,
        historical_batch: &[u8],
        historical_roots: &[u8],
        summaries: Option<HistoricalSummaries>,
    ) -> Result<Period, ProofError> {
        let era_file = || path.to_path_buf();
        let proofs = PeriodProofs::from_historical_batch(historical_batch).map_err(|source| {
            ProofError::EraBatch {
                era_file: era_file(),
                source,
            }
        })?;
        HistoricalRoots::from_ssz(historical_roots).map_err(|source| ProofError::EraAnchor {
            era_file: era_file(),
            source,
        })?;
        Ok(Period {
            source: era_file(),
            proofs,
            historical_roots: historical_roots.to_vec(),
            summaries,
        })
    }

    /// From the state at the end of a period (slot a multiple of 8192, after genesis), read from `path`.
    pub fn from_state(
        network: &Network,
        state: &BeaconState<'_>,
        path: &Path,
    ) -> Result<Period, ProofError> {
        let slot = state.slot();
        if slot == 0 || !slot.is_multiple_of(PERIOD_SLOTS) {
            return Err(ProofError::NotPeriodEnd {
                era_file: path.to_path_buf(),
                slot,
            });
        }
        let summaries = if state.fork() >= Fork::Capella {
            Some(
                HistoricalSummaries::from_state(network, state).map_err(|source| {
                    ProofError::EraAnchor {
                        era_file: path.to_path_buf(),
                        source,
                    }
                })?,
            )
        } else {
            None
        };
        let batch = [state.block_roots(), state.state_roots()].concat();
        Period::new(
            path,
            &batch,
            state.field("historical_roots").unwrap_or_default(),
            summaries,
        )
    }

    /// Where the period was read from.
    pub fn source(&self) -> &Path {
        &self.source
    }

    /// What a proof of the period's blocks must reach: mainnet's embedded `historical_roots` where they exist,
    /// else the state's; the state's `historical_summaries`.
    fn anchors(&self, network: &Network) -> Anchors<'_> {
        Anchors {
            accumulator: None,
            historical_roots: HistoricalRoots::of(network)
                .or_else(|| HistoricalRoots::from_ssz(&self.historical_roots).ok()),
            historical_summaries: self.summaries.as_ref(),
        }
    }
}

/// The `Proof` record of post-merge execution block `block`, from the beacon block carrying its payload and the
/// period holding that beacon block, checked against the period's roots (see the module docs).
pub fn beacon_block_proof(
    network: &Network,
    block: &BlockId,
    beacon_block: &BeaconBlock<'_>,
    period: &Period,
) -> Result<Vec<u8>, BlockProofError> {
    let slot = beacon_block.slot();
    // A block without a payload is refused by the builder, which names its fork.
    if let Some(Ok(p)) = beacon_block.body().ok().and_then(|b| b.execution_payload()) {
        let found: [u8; 32] = p.block_hash().try_into().unwrap_or_default();
        if found != block.hash {
            return Err(BlockProofError::OtherPayload {
                slot,
                expected: block.hash,
                found,
            });
        }
    }
    let (found, ssz) = beacon_proof(network, beacon_block.bytes(), &period.proofs)
        .map_err(BlockProofError::Build)?;
    let expected = ProofType::for_block(network, block.number, block.timestamp);
    if found != expected {
        return Err(BlockProofError::TypeMismatch {
            slot,
            fork: beacon_block.fork(),
            expected,
            found,
        });
    }
    verify_proof(network, block, found.code(), &ssz, &period.anchors(network))
        .map_err(BlockProofError::Unproven)?;
    Ok(encode_record(found, &ssz))
}

/// The `Proof` records of every block of an archive, in block order, each with the block hash it was built for.
#[derive(Debug, Clone)]
pub struct ArchiveProofs {
    file: PathBuf,
    first: u64,
    blocks: Vec<Proved>,
}

/// One block's proof: the block hash it was built for, and its `Proof` record.
type Proved = ([u8; 32], Vec<u8>);

impl ArchiveProofs {
    /// The `Proof` record of block `number`, when `hash` is the hash it was built for.
    pub fn record(&self, number: u64, hash: &[u8; 32]) -> Result<&[u8], ProofError> {
        let entry = number
            .checked_sub(self.first)
            .and_then(|i| self.blocks.get(usize::try_from(i).ok()?));
        let failed = |source| ProofError::Block {
            file: self.file.clone(),
            number,
            source: Box::new(source),
        };
        let Some((expected, record)) = entry else {
            return Err(failed(BlockProofError::NotBuilt {
                first: self.first,
                count: self.blocks.len(),
            }));
        };
        if expected != hash {
            return Err(failed(BlockProofError::OtherHash {
                expected: *expected,
                found: *hash,
            }));
        }
        Ok(record)
    }

    /// Number of blocks.
    pub fn len(&self) -> usize {
        self.blocks.len()
    }

    /// True for an archive without blocks.
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }
}

/// What a proof needs of one block, read from the archive ahead of verification.
struct BlockHead {
    id: BlockId,
    /// The TotalDifficulty record (32 bytes little-endian), when the archive has one.
    td: Option<[u8; 32]>,
}

/// Builds the proof of every block of `file` (see the module docs): type 0 from its epoch record against
/// `accumulator` (`None`: the network has none, and pre-merge blocks are refused), types 1 to 3 from
/// `era_files`.
pub fn prove_archive(
    file: &ExecutionArchive,
    network: &Network,
    accumulator: Option<HistoricalHashesAccumulator<'_>>,
    era_files: Option<&EraFiles>,
) -> Result<ArchiveProofs, ProofError> {
    let heads = read_heads(file)?;
    // Merged is monotonic in the block number: pre-merge blocks come first.
    let split = heads
        .iter()
        .position(|h| network.is_merged(h.id.number))
        .unwrap_or(heads.len());
    let (pre, post) = heads.split_at(split);
    let mut blocks = Vec::with_capacity(heads.len());
    if !pre.is_empty() {
        blocks.extend(prove_pre_merge(file.path(), network, accumulator, pre)?);
    }
    if !post.is_empty() {
        blocks.extend(prove_post_merge(file.path(), network, era_files, post)?);
    }
    Ok(ArchiveProofs {
        file: file.path().to_path_buf(),
        first: file.first_block(),
        blocks,
    })
}

/// Each block's number, timestamp, hash and total difficulty, its header checked to carry its position's number.
fn read_heads(file: &ExecutionArchive) -> Result<Vec<BlockHead>, ProofError> {
    let path = file.path();
    let mut dec = FramedDecoder::with_max_output(MAX_HEADER_BYTES);
    (0..file.block_count())
        .map(|i| {
            let r = file.block(i)?;
            let raw = decompress(&mut dec, &r.header, path, r.number)?;
            let h = HeaderView::decode(raw).map_err(|source| ProofError::Header {
                file: path.to_path_buf(),
                number: r.number,
                source,
            })?;
            if h.number() != r.number {
                return Err(FormatError::at(
                    r.header.offset,
                    FormatErrorKind::Mismatch {
                        what: "header number",
                        expected: r.number.to_string(),
                        found: h.number().to_string(),
                    },
                )
                .in_file(path)
                .in_block(r.number)
                .into());
            }
            Ok(BlockHead {
                id: BlockId::of(&h),
                td: r
                    .total_difficulty
                    .as_ref()
                    .and_then(|t| t.data.try_into().ok()),
            })
        })
        .collect()
}

/// Type 0 proofs of the pre-merge blocks `heads` (the first blocks of an era), once their epoch record's root is
/// the accumulator's entry for the era.
fn prove_pre_merge(
    path: &Path,
    network: &Network,
    accumulator: Option<HistoricalHashesAccumulator<'_>>,
    heads: &[BlockHead],
) -> Result<Vec<Proved>, ProofError> {
    let accumulator = accumulator.ok_or_else(|| ProofError::NoAccumulator {
        file: path.to_path_buf(),
        network: network.name.clone(),
    })?;
    let first = heads.first().map_or(0, |h| h.id.number);
    if !first.is_multiple_of(ERA_BLOCKS) {
        return Err(ProofError::NotEraStart {
            file: path.to_path_buf(),
            first,
        });
    }
    let era = first / ERA_BLOCKS;
    let block_err = |number, source| ProofError::Block {
        file: path.to_path_buf(),
        number,
        source: Box::new(source),
    };
    let mut record = Vec::with_capacity(64 * heads.len());
    for h in heads {
        let td =
            h.td.ok_or_else(|| block_err(h.id.number, BlockProofError::NoTotalDifficulty))?;
        record.extend_from_slice(&h.id.hash);
        record.extend_from_slice(&td);
    }
    let proofs =
        EpochRecordProofs::new(&record).map_err(|e| block_err(first, BlockProofError::Build(e)))?;
    match accumulator.check_era_root(era, &proofs.root()) {
        Ok(_) => {}
        Err(NotProven::Mismatch {
            expected, found, ..
        }) => {
            return Err(ProofError::NotCanonicalEra {
                file: path.to_path_buf(),
                era,
                network: network.name.clone(),
                found,
                expected,
            })
        }
        Err(source) => {
            return Err(ProofError::Accumulator {
                file: path.to_path_buf(),
                source,
            })
        }
    }
    let anchors = Anchors {
        accumulator: Some(accumulator),
        ..Default::default()
    };
    heads
        .par_iter()
        .map(|h| {
            let ty = ProofType::HistoricalHashesAccumulator;
            let ssz = proofs
                .proof(h.id.number)
                .map_err(|e| block_err(h.id.number, BlockProofError::Build(e)))?;
            verify_proof(network, &h.id, ty.code(), &ssz, &anchors)
                .map_err(|e| block_err(h.id.number, BlockProofError::Unproven(e)))?;
            Ok((h.id.hash, encode_record(ty, &ssz)))
        })
        .collect()
}

/// Proofs of types 1 to 3 of the post-merge blocks `heads`, from the era files holding their beacon blocks.
fn prove_post_merge(
    path: &Path,
    network: &Network,
    era_files: Option<&EraFiles>,
    heads: &[BlockHead],
) -> Result<Vec<Proved>, ProofError> {
    let block_err = |number, source| ProofError::Block {
        file: path.to_path_buf(),
        number,
        source: Box::new(source),
    };
    let first = heads.first().map_or(0, |h| h.id.number);
    let Some((files, (genesis_time, genesis_file))) = era_files
        .map(|f| Ok::<_, ProofError>(f.genesis_time()?.map(|g| (f, g))))
        .transpose()?
        .flatten()
    else {
        return Err(block_err(first, BlockProofError::NoEraFiles));
    };
    // Each block's slot, and the period of each slot read once (one state per era file), in block order.
    let mut periods: BTreeMap<u64, Period> = BTreeMap::new();
    let mut slots = Vec::with_capacity(heads.len());
    for h in heads {
        let ts = h.id.timestamp;
        let slot = ts
            .checked_sub(genesis_time)
            .filter(|s| s.is_multiple_of(SECONDS_PER_SLOT))
            .map(|s| s / SECONDS_PER_SLOT)
            .ok_or_else(|| {
                block_err(
                    h.id.number,
                    BlockProofError::NoSlot {
                        timestamp: ts,
                        genesis_time,
                    },
                )
            })?;
        let era = slot / PERIOD_SLOTS + 1;
        if let std::collections::btree_map::Entry::Vacant(entry) = periods.entry(era) {
            let (period, genesis) = files.period(network, era).ok_or_else(|| {
                block_err(h.id.number, BlockProofError::NoEraFile { slot, era })
            })??;
            if genesis != genesis_time {
                return Err(ProofError::GenesisTime {
                    era_file: period.source().to_path_buf(),
                    found: genesis,
                    other: genesis_file.to_path_buf(),
                    expected: genesis_time,
                });
            }
            entry.insert(period);
        }
        slots.push(slot);
    }
    heads
        .par_iter()
        .zip(&slots)
        .map_init(crate::formats::era::block_decoder, |dec, (h, &slot)| {
            let number = h.id.number;
            let era = slot / PERIOD_SLOTS + 1;
            let (Some(file), Some(period)) = (files.files.get(&era), periods.get(&era)) else {
                return Err(block_err(number, BlockProofError::NoEraFile { slot, era }));
            };
            let era_file = file.path();
            let record = file.block_record(slot)?.ok_or_else(|| {
                block_err(
                    number,
                    BlockProofError::EmptySlot {
                        slot,
                        era_file: era_file.to_path_buf(),
                    },
                )
            })?;
            let bytes = dec.decompress(record.data).map_err(|k| {
                FormatError::at(record.offset, k)
                    .in_file(era_file)
                    .in_slot(slot)
            })?;
            let ssz_err = |source| {
                block_err(
                    number,
                    BlockProofError::BeaconBlock {
                        slot,
                        era_file: era_file.to_path_buf(),
                        source,
                    },
                )
            };
            let signed =
                SignedBeaconBlock::new(bytes, crate::consensus::Spec::at_slot(slot, network))
                    .map_err(ssz_err)?;
            let block = signed.message().map_err(ssz_err)?;
            if block.slot() != slot {
                return Err(FormatError::at(
                    record.offset,
                    FormatErrorKind::Mismatch {
                        what: "beacon block slot",
                        expected: format!("{slot} (slot index)"),
                        found: block.slot().to_string(),
                    },
                )
                .in_file(era_file)
                .in_slot(slot)
                .into());
            }
            let proof = beacon_block_proof(network, &h.id, &block, period)
                .map_err(|e| block_err(number, e))?;
            Ok((h.id.hash, proof))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proof_records_decode_as_ere_reads_them() {
        for ty in ProofType::ALL {
            let ssz = vec![7u8; ty.ssz_len()];
            let record = encode_record(ty, &ssz);
            let p = crate::verify::proof::decode(&record).unwrap();
            assert_eq!((p.proof_type, p.ssz), (ty.code(), &ssz[..]));
        }
    }
}
