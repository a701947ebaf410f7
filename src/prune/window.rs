//! Rolling history expiry: the cut-off block of the history a node keeps, measured from the newest verified
//! archive of the inputs.
//!
//! [EIP-4444](https://eips.ethereum.org/EIPS/eip-4444) now keeps execution history for `HISTORY_PRUNE_EPOCHS`
//! epochs; a node may drop bodies and receipts of every older block. The window is counted back from the newest
//! block of the inputs (the last block of the newest archive, which is verified first: it alone decides how far
//! the manifest reaches). A node at the chain's head is ahead of its archives, so its own cut-off is later than
//! the manifest's: the manifest never lists a block the node must still serve.
//!
//! - `--keep-epochs N`: a block is kept when its slot is within `N * SLOTS_PER_EPOCH` slots of the newest block's,
//!   i.e. its timestamp is at least the newest block's minus `N * SLOTS_PER_EPOCH * SECONDS_PER_SLOT` seconds
//!   (after the merge a block's timestamp is its slot's). The first kept block is found by reading headers, from
//!   the last block that must have left the window (at most one block per slot) onwards: a file or two.
//! - `--keep-blocks N`: the newest N blocks are kept.

use super::error::PruneError;
use super::manifest::WindowRecord;
use super::options::Window;
use super::plan::Input;
use super::source::{Held, InputSource};
use crate::formats::ExecutionArchive;
use crate::network::Network;
use crate::verify::VerifyOptions;

/// The first block a node keeps under `window`, counted back from the newest block of `inputs` (sorted by
/// block, non-overlapping), with its record. Reads the newest archive whole (verified: it alone moves the
/// cut-off) and, for an epoch window, the headers of the file or two around the cut-off; `source` supplies the
/// full copies (the build asks for the files around the cut-off again).
pub(super) fn first_kept_block(
    inputs: &[Input],
    net: &Network,
    window: Window,
    verify: &VerifyOptions,
    source: &mut dyn InputSource,
) -> Result<(u64, WindowRecord), PruneError> {
    let newest = inputs.last().ok_or(PruneError::NoInputs)?;
    let first_in = inputs.first().map_or(0, |i| i.first);
    let reference_block = newest.last;
    // Which files may hold the cut-off: for a block window none (the number says it); for an epoch window the
    // files from the last block that has certainly left it. After the merge there is at most one block per slot,
    // so the block `N * SLOTS_PER_EPOCH` below the newest is at least that many slots older; before it blocks are
    // not slots, and every file is a candidate.
    let bound = match window {
        Window::Blocks(_) => reference_block,
        Window::Epochs(n) => {
            let bound = n
                .checked_mul(net.slots_per_epoch())
                .map_or(0, |slots| reference_block.saturating_sub(slots));
            if bound > net.first_pos_block {
                bound
            } else {
                first_in
            }
        }
    };
    let candidates: Vec<&Input> = match window {
        Window::Blocks(_) => Vec::new(),
        Window::Epochs(_) => inputs
            .iter()
            .filter(|i| i.last >= bound && i.path != newest.path)
            .collect(),
    };
    let order: Vec<_> = std::iter::once(newest.path.clone())
        .chain(candidates.iter().map(|i| i.path.clone()))
        .collect();
    source.planned(&order)?;
    let held = source.open(&newest.path)?;
    let report = crate::verify::file(held.path(), verify);
    if !report.ok {
        return Err(PruneError::unverified(&newest.name, &report));
    }
    let reference = Headers::open(&held, newest)?;
    let reference_timestamp = reference.timestamp(reference_block)?;
    let first_kept = match window {
        Window::Blocks(n) => (reference_block + 1).saturating_sub(n),
        Window::Epochs(n) => {
            let span = n
                .checked_mul(net.slots_per_epoch())
                .and_then(|s| s.checked_mul(net.seconds_per_slot()));
            match span {
                // A window longer than time itself keeps everything.
                None => 0,
                Some(span) => {
                    let cutoff = reference_timestamp.saturating_sub(span);
                    let mut found = None;
                    for input in &candidates {
                        let h = source.open(&input.path)?;
                        let headers = Headers::open(&h, input)?;
                        if let Some(b) = headers.first_at_or_after(cutoff, bound)? {
                            found = Some(b);
                            break;
                        }
                    }
                    match found {
                        Some(b) => b,
                        // The newest block itself is in the window: its file holds the cut-off.
                        None => reference
                            .first_at_or_after(cutoff, bound)?
                            .unwrap_or(reference_block),
                    }
                }
            }
        }
    };
    let record = WindowRecord {
        keep_epochs: match window {
            Window::Epochs(n) => Some(n),
            Window::Blocks(_) => None,
        },
        keep_blocks: match window {
            Window::Blocks(n) => Some(n),
            Window::Epochs(_) => None,
        },
        reference_block,
        reference_timestamp,
        reference_file: newest.name.clone(),
        first_kept_block: first_kept,
    };
    if first_kept <= first_in {
        return Err(PruneError::EmptyRange(format!(
            "no block of the inputs has left the window yet: the node keeps blocks from {first_kept} \
             ({}, counted back from block {reference_block} of {}), and the inputs start at {first_in}",
            window.describe(),
            newest.name
        )));
    }
    Ok((first_kept, record))
}

/// An archive's headers, read one at a time.
struct Headers<'a> {
    file: ExecutionArchive,
    input: &'a Input,
}

impl<'a> Headers<'a> {
    fn open(held: &Held, input: &'a Input) -> Result<Headers<'a>, PruneError> {
        let file = ExecutionArchive::open(held.path()).map_err(PruneError::Open)?;
        Ok(Headers { file, input })
    }

    /// The timestamp of block `number` of the file.
    fn timestamp(&self, number: u64) -> Result<u64, PruneError> {
        let mut dec = crate::formats::execution::BlockDecoders::default();
        self.timestamp_with(&mut dec, number)
    }

    fn timestamp_with(
        &self,
        dec: &mut crate::formats::execution::BlockDecoders,
        number: u64,
    ) -> Result<u64, PruneError> {
        let unreadable = |e: String| PruneError::Unverified {
            file: self.input.name.clone(),
            errors: vec![format!("block {number}: header: {e}").into()],
        };
        let i = number - self.file.first_block();
        let rec = self.file.block(i).map_err(PruneError::Open)?;
        let raw = crate::formats::execution::decompress(
            &mut dec.header,
            &rec.header,
            self.file.path(),
            number,
        )
        .map_err(PruneError::Open)?;
        let h = crate::execution::header::HeaderView::decode(raw)
            .map_err(|e| unreadable(e.to_string()))?;
        Ok(h.timestamp())
    }

    /// The first block from `from` on whose timestamp is at least `cutoff` (headers read in block order:
    /// timestamps increase, which the build verifies for every block it lists).
    fn first_at_or_after(&self, cutoff: u64, from: u64) -> Result<Option<u64>, PruneError> {
        let mut dec = crate::formats::execution::BlockDecoders::default();
        for number in from.max(self.file.first_block())..=self.file.last_block() {
            if self.timestamp_with(&mut dec, number)? >= cutoff {
                return Ok(Some(number));
            }
        }
        Ok(None)
    }
}
