//! The export visitor: verified blocks (era1, ere) and beacon blocks and states (era) into one builder per
//! dataset per chunk.

use crate::datasets::{Dataset, DatasetBuilder, DatasetError, ExportContext};
use crate::verify::era::{BeaconVisitor, VerifiedBeaconBlock, VerifiedState};
use crate::verify::execution::{BlockVisitor, VerifiedBlock};

/// The visitor that fills one builder per dataset per chunk (era1 blocks, or era beacon blocks).
pub(crate) struct ExportVisitor<'a> {
    pub(crate) datasets: &'a [&'static dyn Dataset],
    pub(crate) ctx: ExportContext,
}

impl BlockVisitor for ExportVisitor<'_> {
    type Chunk = (u64, u64, Vec<Box<dyn DatasetBuilder>>);
    fn start_chunk(&self, _: u64) -> Self::Chunk {
        (
            0,
            0,
            self.datasets.iter().map(|d| d.builder(self.ctx)).collect(),
        )
    }
    fn visit(&self, chunk: &mut Self::Chunk, block: &VerifiedBlock<'_>) {
        chunk.0 += 1;
        chunk.1 += block.transactions.len() as u64;
        for b in &mut chunk.2 {
            b.add_block(block);
        }
    }
}

/// What one chunk of an era file's slots produced: beacon blocks, transactions, one builder per dataset, and
/// the first dataset error (which discards the file's outputs).
pub(crate) struct EraChunk {
    pub(crate) blocks: u64,
    pub(crate) transactions: u64,
    pub(crate) builders: Vec<Box<dyn DatasetBuilder>>,
    pub(crate) error: Option<DatasetError>,
}

impl BeaconVisitor for ExportVisitor<'_> {
    type Chunk = EraChunk;
    fn start_chunk(&self, _: u64) -> EraChunk {
        EraChunk {
            blocks: 0,
            transactions: 0,
            builders: self.datasets.iter().map(|d| d.builder(self.ctx)).collect(),
            error: None,
        }
    }
    fn visit(&self, chunk: &mut EraChunk, block: &VerifiedBeaconBlock<'_>) {
        chunk.blocks += 1;
        chunk.transactions += block
            .execution
            .as_ref()
            .map_or(0, |x| x.transactions.len() as u64);
        for b in &mut chunk.builders {
            if let Err(e) = b.add_beacon_block(block) {
                chunk.error.get_or_insert(e);
            }
        }
    }
    fn wants_state(&self) -> bool {
        self.datasets.iter().any(|d| d.reads_state())
    }
    /// The registry in chunks of [`STATE_CHUNK`] validators, each written before the next is read, so a
    /// 2-million-validator state never has its rows in memory at once.
    fn visit_state(&self, state: &VerifiedState<'_>, emit: &mut dyn FnMut(EraChunk)) {
        let n = state.registry.len();
        for start in (0..n).step_by(STATE_CHUNK) {
            let mut chunk = BeaconVisitor::start_chunk(self, state.slot);
            for (b, d) in chunk.builders.iter_mut().zip(self.datasets) {
                if !d.reads_state() {
                    continue;
                }
                if let Err(e) = b.add_state(state, start..(start + STATE_CHUNK).min(n)) {
                    chunk.error.get_or_insert(e);
                }
            }
            emit(chunk);
        }
    }
}

/// Validators per chunk of a state dataset: ~3 MiB of builder memory, a few per row group.
pub(super) const STATE_CHUNK: usize = 1 << 15;
