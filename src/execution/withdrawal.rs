//! Withdrawals ([EIP-4895](https://eips.ethereum.org/EIPS/eip-4895)): from Shanghai on, a body's third list holds
//! `[index, validator_index, address, amount]` per withdrawal (amount in gwei), and the header's
//! `withdrawals_root` is the ordered trie of their RLP encodings. The beacon chain carries the same withdrawals
//! in SSZ inside its execution payloads; both decode to [`Withdrawal`].

use super::rlp::{self, Item, ListIter, RlpError};

/// One withdrawal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Withdrawal {
    /// Global withdrawal index.
    pub index: u64,
    /// Validator index.
    pub validator_index: u64,
    /// Execution address credited.
    pub address: [u8; 20],
    /// Amount in Gwei.
    pub amount: u64,
}

impl Withdrawal {
    /// Decodes one element of a body's withdrawal list.
    pub fn decode(item: &Item<'_>) -> Result<Withdrawal, RlpError> {
        if !item.is_list {
            return Err(RlpError::new(
                "withdrawal",
                "expected a list, found a string",
            ));
        }
        let mut it = ListIter::new(item.payload, "withdrawal field");
        let mut next = |name: &str| {
            it.next()
                .ok_or_else(|| RlpError::new("withdrawal", format!("missing {name}")))?
        };
        let index = rlp::as_u64(&next("index")?, "withdrawal index")?;
        let validator_index = rlp::as_u64(&next("validator_index")?, "withdrawal validator_index")?;
        let address = *rlp::as_fixed::<20>(&next("address")?, "withdrawal address")?;
        let amount = rlp::as_u64(&next("amount")?, "withdrawal amount")?;
        if it.next().is_some() {
            return Err(RlpError::new("withdrawal", "more than 4 fields"));
        }
        Ok(Withdrawal {
            index,
            validator_index,
            address,
            amount,
        })
    }

    /// The RLP encoding: an element of a body's withdrawal list, and a leaf of the withdrawals trie.
    pub fn encode(&self) -> Vec<u8> {
        use alloy_rlp::Encodable;
        let mut f = Vec::with_capacity(64);
        self.index.encode(&mut f);
        self.validator_index.encode(&mut f);
        self.address.as_slice().encode(&mut f);
        self.amount.encode(&mut f);
        super::header::wrap_list(&f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_errors() {
        let w = Withdrawal {
            index: 17,
            validator_index: 1_015_710,
            address: [0xab; 20],
            amount: 32_000_000_000,
        };
        let enc = w.encode();
        let mut buf = &enc[..];
        let item = rlp::next_item(&mut buf, "test").unwrap();
        assert_eq!(Withdrawal::decode(&item).unwrap(), w);
        // A string where a list belongs, and a list with an extra field.
        let s = rlp::next_item(&mut &[0x82, 1, 2][..], "t").unwrap();
        assert!(Withdrawal::decode(&s).is_err());
        let mut f = enc[1..].to_vec();
        f.push(0x01);
        let long = super::super::header::wrap_list(&f);
        let item = rlp::next_item(&mut &long[..], "t").unwrap();
        assert!(Withdrawal::decode(&item)
            .unwrap_err()
            .message
            .contains("more than 4"));
    }
}
