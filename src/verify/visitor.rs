//! The one visitor verification runs over an archive of any kind ([`Visitor`]): consumers (export, convert,
//! prune, read) do their work on each block as it verifies, so every block is decompressed and decoded once.

use super::verified::{BlockHashes, VerifiedBeaconBlock, VerifiedBlock, VerifiedState};

/// Work done on what verification checks: execution blocks (era1, ere), beacon blocks and the era state (era).
/// Every hook but [`start_chunk`](Visitor::start_chunk) defaults to nothing, so a visitor implements those of
/// the archives it reads. Verification is generic over the visitor: each hook is a direct, inlinable call.
///
/// Blocks (or slots) are visited in parallel chunks; each chunk's output is handed back in chain order.
/// Outputs of a file that fails verification must be discarded by the caller (the report says `ok: false`).
pub trait Visitor: Sync {
    /// What one chunk of consecutive blocks or slots produces.
    type Chunk: Send;

    /// A fresh output for the chunk starting at block (or slot) `first`.
    fn start_chunk(&self, first: u64) -> Self::Chunk;

    /// Adds one verified execution block (era1, ere) to `chunk`.
    fn block(&self, chunk: &mut Self::Chunk, block: &VerifiedBlock<'_>) {
        let _ = (chunk, block);
    }

    /// Whether [`block`](Self::block) reads `block.transactions`. A visitor that needs only hashes (prune
    /// manifests) returns false and implements [`block_hashed`](Self::block_hashed): when receipts are
    /// skipped and no senders are asked for, verification then checks the transactions root without decoding
    /// every transaction field, and hashes the header, the transactions and the trie leaves once each, in one
    /// pass (see [`crate::execution::trie::ordered_root_and_hashes`]).
    fn needs_decoded_transactions(&self) -> bool {
        true
    }

    /// Adds one verified execution block to `chunk` on that light path: `block.transactions` is empty,
    /// `hashes` holds the block hash and each transaction's hash. The default ignores the hashes.
    fn block_hashed(
        &self,
        chunk: &mut Self::Chunk,
        block: &VerifiedBlock<'_>,
        hashes: &BlockHashes<'_>,
    ) {
        let _ = hashes;
        self.block(chunk, block)
    }

    /// Adds one verified beacon block (era) to `chunk`.
    fn beacon_block(&self, chunk: &mut Self::Chunk, block: &VerifiedBeaconBlock<'_>) {
        let _ = (chunk, block);
    }

    /// Whether [`state`](Self::state) has work (an era state's registry is read only then).
    fn wants_state(&self) -> bool {
        false
    }

    /// Work on an era's state, before its blocks: outputs go to `emit` as chunks, like blocks' (export streams
    /// the validator registry through it in bounded chunks).
    fn state(&self, state: &VerifiedState<'_>, emit: &mut dyn FnMut(Self::Chunk)) {
        let _ = (state, emit);
    }
}

/// The visitor of plain verification: does nothing.
pub struct NoVisitor;

impl Visitor for NoVisitor {
    type Chunk = ();
    fn start_chunk(&self, _: u64) {}
}
