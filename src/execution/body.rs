//! Block bodies: `[transactions, ommers]`, plus `withdrawals` from Shanghai on ([EIP-4895]).
//!
//! Transactions are handed out as list items exactly as stored: a legacy transaction is an RLP list, a typed
//! one ([EIP-2718]) an RLP string whose payload is `type || rlp(fields)`.
//!
//! [EIP-4895]: https://eips.ethereum.org/EIPS/eip-4895
//! [EIP-2718]: https://eips.ethereum.org/EIPS/eip-2718

use super::rlp::{self, envelope_canonical, Item, ListIter, RlpError};

/// A decoded body: slices of the transaction, ommer and withdrawal lists.
#[derive(Debug, Clone, Copy)]
pub struct BodyView<'a> {
    raw: &'a [u8],
    transactions: Item<'a>,
    ommers: Item<'a>,
    withdrawals: Option<Item<'a>>,
}

impl<'a> BodyView<'a> {
    /// Decodes a body from its RLP encoding.
    pub fn decode(raw: &'a [u8]) -> Result<Self, RlpError> {
        let list = rlp::single_list(raw, "body")?;
        let mut it = ListIter::new(list.payload, "body");
        let transactions = it
            .next()
            .ok_or_else(|| RlpError::new("body", "missing transaction list"))??;
        let ommers = it
            .next()
            .ok_or_else(|| RlpError::new("body", "missing ommers list"))??;
        let withdrawals = it.next().transpose()?;
        if let Some(extra) = it.next() {
            extra?;
            return Err(RlpError::new("body", "expected 2 or 3 lists, found more"));
        }
        for (item, name) in [(&transactions, "transactions"), (&ommers, "ommers")]
            .into_iter()
            .chain(withdrawals.as_ref().map(|w| (w, "withdrawals")))
        {
            if !item.is_list {
                return Err(RlpError::new(name, "expected a list, found a string"));
            }
        }
        Ok(BodyView {
            raw,
            transactions,
            ommers,
            withdrawals,
        })
    }

    /// The whole RLP encoding.
    pub fn raw(&self) -> &'a [u8] {
        self.raw
    }

    /// Each transaction as stored in the body (see the module doc).
    pub fn transactions(&self) -> ListIter<'a> {
        ListIter::new(self.transactions.payload, "transaction")
    }

    /// The canonical encoding of each transaction: the transactions-trie value and the pre-image of its hash.
    pub fn transaction_encodings(&self) -> impl Iterator<Item = Result<&'a [u8], RlpError>> {
        self.transactions()
            .map(|r| r.map(|it| envelope_canonical(&it)))
    }

    /// Each ommer header's RLP encoding.
    pub fn ommers(&self) -> ListIter<'a> {
        ListIter::new(self.ommers.payload, "ommer")
    }

    /// The RLP encoding of the ommers list: its keccak is the header's `ommers_hash`.
    pub fn ommers_rlp(&self) -> &'a [u8] {
        self.ommers.raw
    }

    /// Each withdrawal's RLP encoding, from Shanghai on.
    pub fn withdrawals(&self) -> Option<ListIter<'a>> {
        self.withdrawals
            .map(|w| ListIter::new(w.payload, "withdrawal"))
    }
}

/// Encodes a body from already-encoded transaction items and ommer headers (writer and synth side).
pub fn encode_body(tx_items: &[Vec<u8>], ommer_headers: &[Vec<u8>]) -> Vec<u8> {
    let txs = super::header::wrap_list(&tx_items.concat());
    let ommers = super::header::wrap_list(&ommer_headers.concat());
    super::header::wrap_list(&[txs, ommers].concat())
}
