//! The consensus datasets' lines (#21): what the block-operation datasets add to an era export, and the
//! `validators` dataset from a big state beside its floor, "Parquet encode of the same rows", with the memory an
//! export of that state needs.
//!
//! - Operations: the same era file exported (1 thread, without senders, so the datasets' share is not hidden
//!   behind signature recovery) with the execution datasets and `beacon_blocks`, then with every operation
//!   dataset too; on a Deneb era (64-128 attestations per block, as mainnet before Electra: the heavy case) and
//!   an Electra one (at most 8, each aggregating committees).
//! - Validators: an era file whose state holds `state_validators` validators (1,000,000 by default) and one
//!   block. The stage is the dataset's own path, from the decompressed state to a finished Parquet file
//!   (registry read, rows built chunk by chunk, encoded); the floor writes the same rows, built beforehand, with
//!   the same writer properties. Beside them, the whole export of that file with `validators` (verification
//!   included: the state root of a million validators) and its peak memory.

use super::measure::{best, Timing};
use super::report::BenchArchive;
use super::{
    archive_file, decode_err, export_datasets_stage, names, size_of, BenchError, BenchOptions,
};
use crate::consensus::registry::Registry;
use crate::consensus::{BeaconState, Fork, Spec};
use crate::datasets::{self, Dataset, ExportContext};
use crate::formats::era::EraFile;
use crate::formats::MappedArchive;
use crate::network::Network;
use crate::sink::parquet::{FileLayout, ParquetOptions, ParquetSink};
use crate::synth::era::{write_once, EraSynthOptions};
use crate::verify::era::VerifiedState;
use arrow_array::RecordBatch;
use std::path::Path;

/// Validators per chunk, as export streams them.
const CHUNK: usize = 1 << 15;

/// What the consensus lines found besides their timings.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ConsensusFacts {
    /// Validators in the big state.
    pub state_validators: usize,
    /// Bytes of the `validators` file with eraflow's layout (delta-encoded `validator_index`, dictionaries).
    pub validators_file_bytes: u64,
    /// Bytes of the same rows with every column at Parquet's defaults (no delta; binary dictionaries off, as
    /// for other datasets), for comparison.
    pub validators_plain_file_bytes: u64,
    /// Bytes of the big state's era file (its mapped pages count in the export's RSS).
    pub state_file_bytes: u64,
}

/// The datasets of an era export without and with the operation datasets.
fn era_datasets(with_operations: bool) -> Vec<&'static dyn Dataset> {
    let base = ["blocks", "transactions", "withdrawals", "beacon_blocks"];
    datasets::ALL
        .iter()
        .copied()
        .filter(|d| crate::formats::ArchiveKind::Era.holds().has(d.needs()) && !d.reads_state())
        .filter(|d| with_operations || base.contains(&d.name()))
        .collect()
}

/// Measures the consensus lines into `add` (stage name, archive, threads, timing): the operation datasets',
/// then `validators`'.
pub(super) fn measure(
    dir: &Path,
    opts: &BenchOptions,
    one: &rayon::ThreadPool,
    add: &mut dyn FnMut(&str, &BenchArchive, usize, Timing),
) -> Result<(Vec<BenchArchive>, ConsensusFacts), BenchError> {
    let net = Network::by_name("synthnet").map_err(decode_err("the synthnet preset"))?;
    let mut archives = operations(dir, opts, one, add, &net)?;
    let (state_archive, facts) = validators(dir, opts, one, add, &net)?;
    archives.push(state_archive);
    Ok((archives, facts))
}

/// The same era export without and with the operation datasets, on a Deneb era and an Electra one: their
/// archives.
fn operations(
    dir: &Path,
    opts: &BenchOptions,
    one: &rayon::ThreadPool,
    add: &mut dyn FnMut(&str, &BenchArchive, usize, Timing),
    net: &Network,
) -> Result<Vec<BenchArchive>, BenchError> {
    let mut archives = Vec::new();
    for fork in [Fork::Deneb, Fork::Electra] {
        let mut e = EraSynthOptions::new(net.clone());
        e.era = EraSynthOptions::era_of_fork(net, fork)?;
        e.blocks = opts.blocks.min(crate::formats::era::SLOTS_PER_ERA);
        e.txs_per_block = opts.txs_per_block;
        e.validators = opts.validators;
        let input = write_once(&dir.join(format!("era-{fork}")), &e)?.remove(0);
        let archive = archive_file("era", &input, e.blocks, e.txs_per_block)?;
        for with in [false, true] {
            let name = names::era_export_operations(fork.name(), with);
            let f = export_datasets_stage(
                &input,
                dir.join(format!("out-ops-{fork}-{with}")),
                era_datasets(with),
                None,
            );
            add(&name, &archive, 1, best(one, opts.runs, &name, f)?);
        }
        archives.push(archive);
    }
    Ok(archives)
}

/// The `validators` lines on the big state (one block, `state_validators` validators): the dataset's own path
/// and its floor, then the whole export of the file. Returns its archive and the facts.
fn validators(
    dir: &Path,
    opts: &BenchOptions,
    one: &rayon::ThreadPool,
    add: &mut dyn FnMut(&str, &BenchArchive, usize, Timing),
    net: &Network,
) -> Result<(BenchArchive, ConsensusFacts), BenchError> {
    let mut e = EraSynthOptions::new(net.clone());
    e.era = EraSynthOptions::era_of_fork(net, Fork::Electra)?;
    (e.blocks, e.txs_per_block, e.validators) = (1, 1, opts.state_validators);
    let input = write_once(&dir.join("era-big-state"), &e)?.remove(0);
    let state_archive = archive_file("state", &input, 1, 1)?;
    // The state, its registry and the batches are dropped on return: the export below maps its own.
    let facts = validators_dataset(dir, opts.runs, one, add, net, &state_archive)?;
    // The whole export of the big state's file with `validators`: verification (the state root) included, and
    // the memory it needs.
    let name = names::VALIDATORS_EXPORT;
    let dataset: &'static dyn Dataset = &datasets::validators::Validators;
    let f = export_datasets_stage(&input, dir.join("out-validators"), vec![dataset], None);
    add(name, &state_archive, 1, best(one, opts.runs, name, f)?);
    Ok((state_archive, facts))
}

/// The `validators` dataset's own path on the big state's file, from the decompressed state to a finished
/// Parquet file, beside its floor (the same rows, built beforehand); and the same rows at Parquet's defaults,
/// for their size.
fn validators_dataset(
    dir: &Path,
    runs: usize,
    one: &rayon::ThreadPool,
    add: &mut dyn FnMut(&str, &BenchArchive, usize, Timing),
    net: &Network,
    state_archive: &BenchArchive,
) -> Result<ConsensusFacts, BenchError> {
    let input = &state_archive.path;
    let file = EraFile::open(input).map_err(decode_err("era file"))?;
    let rec = file
        .state_record()
        .map_err(decode_err("era state record"))?;
    let mut dec = crate::formats::era::state_decoder();
    let bytes = dec
        .decompress(rec.data)
        .map_err(|k| decode_err("era state")(crate::formats::FormatError::at(rec.offset, k)))?
        .to_vec();
    drop(dec);
    let spec = Spec::at_slot(file.state_slot(), net);
    let state = BeaconState::new(&bytes, spec).map_err(decode_err("BeaconState"))?;
    let registry = Registry::new(&state).map_err(decode_err("the registry"))?;
    let verified = VerifiedState {
        slot: state.slot(),
        era: file.era(),
        // The root is what verification proves; the dataset never reads it.
        root: [0u8; 32],
        state: &state,
        registry: &registry,
    };
    let dataset: &'static dyn Dataset = &datasets::validators::Validators;
    let ctx = ExportContext {
        chain_id: net.chain_id,
        signer: None,
    };
    let layout = |plain: bool| {
        if plain {
            FileLayout::plain(dataset.schema())
        } else {
            FileLayout {
                schema: dataset.schema(),
                sort_columns: dataset.sort_columns(),
                dictionary_columns: dataset.dictionary_columns(),
                repeated_columns: dataset.repeated_columns(),
                delta_columns: dataset.delta_columns(),
                metadata: Vec::new(),
            }
        }
    };
    let parquet = ParquetOptions::default();
    let n = registry.len();
    let chunk_batch = |start: usize| -> Result<RecordBatch, String> {
        let mut b = dataset.builder(ctx);
        b.add_state(&verified, start..(start + CHUNK).min(n))
            .map_err(|e| e.to_string())?;
        Ok(b.finish())
    };
    let write_to =
        |path: &Path,
         plain: bool,
         batches: &mut dyn FnMut(&mut ParquetSink) -> Result<(), String>| {
            let mut sink = ParquetSink::create_dataset(path, &layout(plain), &parquet)
                .map_err(|e| crate::error::render(&e))?;
            batches(&mut sink)?;
            sink.commit().map_err(|e| crate::error::render(&e))?;
            Ok::<(), String>(())
        };
    let stage_path = dir.join("validators-stage.parquet");
    let stage = best(one, runs, names::VALIDATORS, || {
        write_to(&stage_path, false, &mut |sink| {
            for start in (0..n).step_by(CHUNK) {
                sink.write(&chunk_batch(start)?)
                    .map_err(|e| crate::error::render(&e))?;
            }
            Ok(())
        })
    })?;
    // The floor: the same rows, built before the clock starts.
    let batches: Vec<RecordBatch> = (0..n)
        .step_by(CHUNK)
        .map(chunk_batch)
        .collect::<Result<_, _>>()
        .map_err(|detail| BenchError::Stage {
            stage: names::VALIDATORS_FLOOR.into(),
            detail,
        })?;
    let floor_path = dir.join("validators-floor.parquet");
    let floor = best(one, runs, names::VALIDATORS_FLOOR, || {
        write_to(&floor_path, false, &mut |sink| {
            for b in &batches {
                sink.write(b).map_err(|e| crate::error::render(&e))?;
            }
            Ok(())
        })
    })?;
    let plain_path = dir.join("validators-plain.parquet");
    write_to(&plain_path, true, &mut |sink| {
        for b in &batches {
            sink.write(b).map_err(|e| crate::error::render(&e))?;
        }
        Ok(())
    })
    .map_err(|detail| BenchError::Stage {
        stage: "validators with Parquet's default encodings".into(),
        detail,
    })?;
    drop(batches);
    add(names::VALIDATORS_FLOOR, state_archive, 1, floor);
    add(names::VALIDATORS, state_archive, 1, stage);
    let facts = ConsensusFacts {
        state_validators: n,
        validators_file_bytes: size_of(&stage_path)?,
        validators_plain_file_bytes: size_of(&plain_path)?,
        state_file_bytes: state_archive.bytes,
    };
    Ok(facts)
}
