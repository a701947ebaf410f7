//! The export visitor: verified blocks (era1, ere) and beacon blocks and states (era) into one builder per
//! dataset per chunk.

use crate::crypto::signer::Signer;
use crate::datasets::{Dataset, DatasetBuilder, DatasetError, ExportContext};
use crate::network::Network;
use crate::verify::{VerifiedBeaconBlock, VerifiedBlock, VerifiedState, VerifyOptions, Visitor};

/// The visitor that fills one builder per dataset per chunk (of execution blocks, or of an era file's slots).
pub(crate) struct ExportVisitor<'a> {
    pub(crate) datasets: &'a [&'static dyn Dataset],
    pub(crate) ctx: ExportContext,
}

/// What one chunk produced: blocks, transactions, one builder per dataset, and the first dataset error (which
/// discards the file's outputs; only beacon blocks and states can have one).
pub(crate) struct ExportChunk {
    pub(crate) blocks: u64,
    pub(crate) transactions: u64,
    pub(crate) builders: Vec<Box<dyn DatasetBuilder>>,
    pub(crate) error: Option<DatasetError>,
}

impl<'a> ExportVisitor<'a> {
    /// The visitor filling `datasets` from a file of `network`, and the options of the verify pass that feeds
    /// it: senders recovered with `signer` when one is given, receipts decoded only when `needs_receipts`, no
    /// file checksum (export proves its inputs by their records, not their sha256).
    pub(crate) fn with_options(
        datasets: &'a [&'static dyn Dataset],
        network: &Network,
        signer: Option<&'static Signer>,
        needs_receipts: bool,
    ) -> (Self, VerifyOptions) {
        let visitor = ExportVisitor {
            datasets,
            ctx: ExportContext {
                chain_id: network.chain_id,
                signer,
            },
        };
        let opts = VerifyOptions {
            network: Some(network.clone()),
            senders: signer.is_some(),
            skip_receipts: !needs_receipts,
            signer,
            ..VerifyOptions::default()
        };
        (visitor, opts)
    }
}

impl Visitor for ExportVisitor<'_> {
    type Chunk = ExportChunk;
    fn start_chunk(&self, _: u64) -> ExportChunk {
        ExportChunk {
            blocks: 0,
            transactions: 0,
            builders: self.datasets.iter().map(|d| d.builder(self.ctx)).collect(),
            error: None,
        }
    }
    fn block(&self, chunk: &mut ExportChunk, block: &VerifiedBlock<'_>) {
        chunk.blocks += 1;
        chunk.transactions += block.transactions.len() as u64;
        for b in &mut chunk.builders {
            b.add_block(block);
        }
    }
    fn beacon_block(&self, chunk: &mut ExportChunk, block: &VerifiedBeaconBlock<'_>) {
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
    fn state(&self, state: &VerifiedState<'_>, emit: &mut dyn FnMut(ExportChunk)) {
        let n = state.registry.len();
        for start in (0..n).step_by(STATE_CHUNK) {
            let mut chunk = self.start_chunk(state.slot);
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
