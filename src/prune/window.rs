//! Rolling history expiry: the cut-off block of the history a node keeps, measured from the newest verified
//! archive of the inputs.
//!
//! [EIP-4444](https://eips.ethereum.org/EIPS/eip-4444) now keeps execution history for `HISTORY_PRUNE_EPOCHS`
//! epochs; a node may drop bodies and receipts of every older block. The window is counted back from the newest
//! block of the inputs (the last block of the newest archive, which is verified first: it alone decides how far
//! the manifest reaches). A node at the chain's head is ahead of its archives, so its own cut-off is later than
//! the manifest's: the manifest never lists a block the node must still serve. That holds only when the newest
//! archive is the node's chain: the files after the listed blocks must link up to it (`check_linked`).
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
use std::path::Path;

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
    check_linked(inputs, first_kept, &reference, source)?;
    Ok((first_kept, record))
}

/// Refuses a window whose newest file is not the same chain as the blocks it would list. The build chains the
/// files it reads, up to the one holding the last listed block (`first_kept - 1`); the files after it, up to
/// the newest (`newest`, verified whole), are read for nothing else, so here each must start at the block after
/// the one before and have that file's last block as its first block's parent. Without this a file of another
/// chain named for the network moved the cut-off, and the lists named blocks the node still needs. Only two
/// headers of each file are read, from the file as given where they are there (a remote file's skeleton holds
/// its start and end), else from its full copy: the window may span a hundred files.
fn check_linked(
    inputs: &[Input],
    first_kept: u64,
    newest: &Headers<'_>,
    source: &mut dyn InputSource,
) -> Result<(), PruneError> {
    let last_listed = first_kept.saturating_sub(1);
    let Some(start) = inputs.iter().rposition(|i| i.first <= last_listed) else {
        return Ok(());
    };
    let Some((_, older)) = inputs.split_last() else {
        return Ok(());
    };
    let between = older.get(start..).unwrap_or_default();
    if between.is_empty() {
        // The newest file holds the last listed block: the build reads it, and its chain with it.
        return Ok(());
    }
    let mut ends: Vec<Option<Ends>> = between
        .iter()
        .map(|i| Headers::at(&i.path, i).and_then(|h| h.ends()).ok())
        .collect();
    let fetch: Vec<_> = between
        .iter()
        .zip(&ends)
        .filter(|(_, e)| e.is_none())
        .map(|(i, _)| i.path.clone())
        .collect();
    if !fetch.is_empty() {
        source.planned(&fetch)?;
    }
    // The last block of the file before: its number, hash and file.
    let mut prev: Option<(u64, [u8; 32], &str)> = None;
    for (input, e) in between.iter().zip(ends.iter_mut()) {
        let found = match e.take() {
            Some(found) => found,
            None => {
                let held = source.open(&input.path)?;
                Headers::open(&held, input)?.ends()?
            }
        };
        if let Some(p) = prev {
            chained(p, input, &found.first_parent)?;
        }
        prev = Some((input.last, found.last_hash, &input.name));
    }
    match prev {
        Some(p) => chained(p, newest.input, &newest.ends()?.first_parent),
        None => Ok(()),
    }
}

/// `input`, whose first block's parent hash is `parent`, follows `prev` (the last block of the file before: its
/// number, hash and file): it starts at the next block, and that block is its first block's parent.
fn chained(
    (prev_number, prev_hash, prev_file): (u64, [u8; 32], &str),
    input: &Input,
    parent: &[u8; 32],
) -> Result<(), PruneError> {
    let broken = |what: &'static str, expected: String, found: String| PruneError::Discontinuity {
        file: input.name.clone(),
        block: input.first,
        previous: prev_file.to_string(),
        what,
        expected,
        found,
    };
    if prev_number.checked_add(1) != Some(input.first) {
        return Err(broken(
            "first block (no file between them links the two)",
            format!("block {}", prev_number.saturating_add(1)),
            format!("block {}", input.first),
        ));
    }
    if *parent != prev_hash {
        return Err(broken(
            "parent hash",
            format!("0x{}", hex::encode(prev_hash)),
            format!("0x{}", hex::encode(parent)),
        ));
    }
    Ok(())
}

/// What links a file to its neighbours: its first block's parent hash and its last block's hash.
struct Ends {
    first_parent: [u8; 32],
    last_hash: [u8; 32],
}

/// An archive's headers, read one at a time.
struct Headers<'a> {
    file: ExecutionArchive,
    input: &'a Input,
}

impl<'a> Headers<'a> {
    fn open(held: &Held, input: &'a Input) -> Result<Headers<'a>, PruneError> {
        Headers::at(held.path(), input)
    }

    /// The archive at `path`, which may be `input`'s skeleton (only its start and end are there).
    fn at(path: &Path, input: &'a Input) -> Result<Headers<'a>, PruneError> {
        let file = ExecutionArchive::open(path).map_err(PruneError::Open)?;
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
        self.with_header(dec, number, |_, h| h.timestamp())
    }

    /// The parent hash of block `number` and its own hash (of its header).
    fn link_with(
        &self,
        dec: &mut crate::formats::execution::BlockDecoders,
        number: u64,
    ) -> Result<([u8; 32], [u8; 32]), PruneError> {
        self.with_header(dec, number, |raw, h| {
            (*h.parent_hash(), crate::crypto::keccak::keccak256(raw).0)
        })
    }

    /// The parent hash of the file's first block and the hash of its last.
    fn ends(&self) -> Result<Ends, PruneError> {
        let mut dec = crate::formats::execution::BlockDecoders::default();
        let (first_parent, _) = self.link_with(&mut dec, self.file.first_block())?;
        let (_, last_hash) = self.link_with(&mut dec, self.file.last_block())?;
        Ok(Ends {
            first_parent,
            last_hash,
        })
    }

    /// `f` of block `number`'s header, raw and decoded.
    fn with_header<T>(
        &self,
        dec: &mut crate::formats::execution::BlockDecoders,
        number: u64,
        f: impl FnOnce(&[u8], &crate::execution::header::HeaderView<'_>) -> T,
    ) -> Result<T, PruneError> {
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
        Ok(f(raw, &h))
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
