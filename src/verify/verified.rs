//! What verification hands a [`super::Visitor`]: views of one execution block, one beacon block (with its
//! payload) and one era state that passed their checks. Plain views over the file's decoded bytes, kept apart
//! from the checks so the visitor trait and both verification paths can name them without importing each other.

use crate::consensus::registry::Registry;
use crate::consensus::{BeaconBlock, BeaconBlockBody, BeaconState, ExecutionPayload, Withdrawal};
use crate::crypto::keccak::B256;
use crate::crypto::signer::SenderError;
use crate::execution::body::BodyView;
use crate::execution::header::{HeaderFields, HeaderView};
use crate::execution::receipt::{LogView, ReceiptView};
use crate::execution::transaction::TxView;
use alloy_primitives::U256;

/// One block that passed every per-block check, as handed to a [`super::Visitor`].
pub struct VerifiedBlock<'a> {
    /// Its block number.
    pub number: u64,
    /// Its header.
    pub header: HeaderView<'a>,
    /// Its body (transactions and ommers).
    pub body: BodyView<'a>,
    /// Decoded transactions, in order.
    pub transactions: &'a [TxView<'a>],
    /// Recovered senders, parallel to `transactions`; empty unless senders were requested.
    pub senders: &'a [Result<[u8; 20], SenderError>],
    /// Decoded receipts, parallel to `transactions`; empty when receipts are skipped or the file has none (an
    /// ere file of the `noreceipts` profile). Rebuilt with their blooms from an ere file's slim receipts, so they
    /// read the same from either kind.
    pub receipts: &'a [ReceiptView<'a>],
    /// Withdrawals of the body (Shanghai on), in order; empty before.
    pub withdrawals: &'a [Withdrawal],
    /// Total difficulty after this block (checked against the chain in the sequential pass); `None` where the
    /// file has none (post-merge ere files).
    pub total_difficulty: Option<U256>,
    /// keccak256 of the header: the block hash (verification computes it for the chain link anyway).
    pub hash: [u8; 32],
    /// The transactions' hashes, each computed on first use and then shared by every dataset of the block.
    pub tx_hashes: &'a TxHashes,
    /// The receipts' logs in block order, walked on first use and then shared (see [`VerifiedBlock::logs`]).
    pub logs: &'a BlockLogs<'a>,
}

impl<'a> VerifiedBlock<'a> {
    /// The hash of transaction `i` (`i < transactions.len()`), hashed once however many datasets ask: the token
    /// datasets, `logs`, `transactions` and `contracts` each name it, and re-hashing it per dataset cost a fifth
    /// of an export's CPU on a log-heavy archive.
    pub fn tx_hash(&self, i: usize) -> [u8; 32] {
        *self.tx_hashes.cells[i].get_or_init(|| self.transactions[i].hash().0)
    }

    /// The block's logs in order, each with its transaction and block-wide log index: the receipts' RLP is
    /// walked once however many datasets read logs (`logs`, the token datasets, every decoded event), views
    /// into the receipts, nothing copied. A log that does not decode (verification has checked every receipt
    /// against the receipts root, so none) is left out, as `ReceiptView::logs().flatten()` leaves it; so is a
    /// receipt past the last transaction (verification checked their counts are equal): every log's
    /// `transaction_index` names a transaction.
    pub fn logs(&self) -> &'a [BlockLog<'a>] {
        self.logs.0.get_or_init(|| {
            let mut out = Vec::new();
            for (ti, r) in self
                .receipts
                .iter()
                .take(self.transactions.len())
                .enumerate()
            {
                for log in r.logs().flatten() {
                    out.push(BlockLog {
                        transaction_index: ti as u32,
                        log_index: out.len() as u32,
                        log,
                    });
                }
            }
            out
        })
    }
}

/// One log of a block (see [`VerifiedBlock::logs`]).
#[derive(Clone, Copy)]
pub struct BlockLog<'a> {
    /// The position of its transaction in the block.
    pub transaction_index: u32,
    /// Its position among the block's logs (what the `log_index` columns hold).
    pub log_index: u32,
    /// The log.
    pub log: LogView<'a>,
}

/// The lazily walked logs of one block (see [`VerifiedBlock::logs`]).
#[derive(Default)]
pub struct BlockLogs<'a>(std::cell::OnceCell<Vec<BlockLog<'a>>>);

/// The lazily computed transaction hashes of one block (see [`VerifiedBlock::tx_hash`]).
pub struct TxHashes {
    cells: Vec<std::cell::OnceCell<[u8; 32]>>,
}

impl TxHashes {
    /// Room for the hashes of `n` transactions, none computed yet.
    pub fn new(n: usize) -> Self {
        TxHashes {
            cells: (0..n).map(|_| std::cell::OnceCell::new()).collect(),
        }
    }

    /// The hashes already known (the light path hashes every transaction with the trie leaves).
    pub fn known(hashes: &[[u8; 32]]) -> Self {
        TxHashes {
            cells: hashes
                .iter()
                .map(|h| std::cell::OnceCell::from(*h))
                .collect(),
        }
    }
}

/// Hashes the light verification path computed anyway, handed to [`super::Visitor::block_hashed`] so the
/// visitor does not hash the same bytes again.
pub struct BlockHashes<'a> {
    /// keccak256 of the header: the block hash.
    pub block: [u8; 32],
    /// Each transaction's hash, in block order.
    pub transactions: &'a [[u8; 32]],
}

/// A post-merge execution payload that passed its checks, as handed to a [`super::Visitor`].
pub struct VerifiedPayload<'a> {
    /// The payload view.
    pub payload: &'a ExecutionPayload<'a>,
    /// The execution header rebuilt from the payload; its keccak is `block_hash` (checked).
    pub header: &'a HeaderFields,
    /// The execution block hash.
    pub block_hash: B256,
    /// Decoded transactions, in order.
    pub transactions: &'a [TxView<'a>],
    /// Recovered senders, parallel to `transactions`; empty unless senders were requested.
    pub senders: &'a [Result<[u8; 20], SenderError>],
    /// Withdrawals (capella on).
    pub withdrawals: &'a [Withdrawal],
}

/// One beacon block that passed every per-block check.
pub struct VerifiedBeaconBlock<'a> {
    /// Its slot.
    pub slot: u64,
    /// hash_tree_root of the block message (equal to `state.block_roots[slot % 8192]`).
    pub root: [u8; 32],
    /// The block message.
    pub block: &'a BeaconBlock<'a>,
    /// Its body, validated (read once here for every dataset).
    pub body: &'a BeaconBlockBody<'a>,
    /// The execution payload, for blocks after the merge (`None` before bellatrix, for the empty payloads
    /// of bellatrix blocks before the merge, and from Gloas on, whose blocks carry a bid instead).
    pub execution: Option<VerifiedPayload<'a>>,
    /// The proposer's BLS signature over the block (96 bytes; not checked).
    pub signature: &'a [u8],
    /// The block record's size in the file (snappy-framed) and the `SignedBeaconBlock`'s serialized size.
    pub sizes: (u64, u64),
    /// Gloas: whether this block's bid builds on its parent's revealed payload (`Some(false)`: withheld);
    /// `None` before Gloas and when the parent is not in the same file.
    pub parent_payload_revealed: Option<bool>,
}

/// The era file's BeaconState once its root is computed and its own checks ran (genesis validators root,
/// historical accumulator, file name), with its validator registry read column by column.
pub struct VerifiedState<'a> {
    /// The state's slot (`era * 8192`).
    pub slot: u64,
    /// The era number.
    pub era: u64,
    /// hash_tree_root of the state.
    pub root: [u8; 32],
    /// The state view.
    pub state: &'a BeaconState<'a>,
    /// Its registry.
    pub registry: &'a Registry<'a>,
}
