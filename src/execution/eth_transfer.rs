//! [EIP-7708](https://eips.ethereum.org/EIPS/eip-7708) ETH-transfer logs, Amsterdam on: every non-zero ETH
//! transfer to a different account (a transaction's value, a `CALL`, `CREATE`/`CREATE2` or `SELFDESTRUCT` that
//! moves value) emits a LOG3 from `SYSTEM_ADDRESS` shaped exactly like an ERC-20 `Transfer`: topics
//! `[keccak256("Transfer(address,address,uint256)"), from, to]`, data the amount in wei. A transaction's own
//! value log comes before any log its execution emits.
//!
//! They are ETH, not a token: the token datasets leave them out (and count them), `native_transfers` reads them.
//! Draft versions of the EIP also had a LOG2 `Burn(address,uint256)`; it moves no ETH between accounts and is
//! read by neither.

use crate::execution::receipt::LogView;
use alloy_primitives::{address, b256, U256};

/// `SYSTEM_ADDRESS` ([EIP-4788](https://eips.ethereum.org/EIPS/eip-4788)), the emitter of every EIP-7708 log.
pub const SYSTEM_ADDRESS: [u8; 20] = address!("fffffffffffffffffffffffffffffffffffffffe").0 .0;

/// `keccak256("Transfer(address,address,uint256)")`: ERC-20's and ERC-721's `Transfer`, and EIP-7708's topic0.
pub const TRANSFER_TOPIC: [u8; 32] =
    b256!("ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef").0;

/// One ETH movement an EIP-7708 log records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EthTransfer<'a> {
    /// The account the ETH left.
    pub from: &'a [u8; 20],
    /// The account it reached.
    pub to: &'a [u8; 20],
    /// The amount, in wei.
    pub value: U256,
}

/// Whether `log` was emitted by `SYSTEM_ADDRESS`: no contract can emit from it, so such a log is the
/// protocol's, never a token's.
pub fn is_system_log(log: &LogView<'_>) -> bool {
    *log.address == SYSTEM_ADDRESS
}

/// The transfer an EIP-7708 log records, when `log` is one: from `SYSTEM_ADDRESS`, three topics, the first the
/// `Transfer` signature, two zero-padded addresses, and 32 bytes of data.
pub fn eth_transfer<'a>(log: &LogView<'a>) -> Option<EthTransfer<'a>> {
    if !is_system_log(log) || log.topic_count() != 3 {
        return None;
    }
    let mut topics = log.topics();
    if topics.next()? != &TRANSFER_TOPIC {
        return None;
    }
    let word_address = |w: &'a [u8; 32]| -> Option<&'a [u8; 20]> {
        let (pad, a) = w.split_at(12);
        pad.iter().all(|&b| b == 0).then(|| a.try_into().ok())?
    };
    let from = word_address(topics.next()?)?;
    let to = word_address(topics.next()?)?;
    let value: &[u8; 32] = log.data.try_into().ok()?;
    Some(EthTransfer {
        from,
        to,
        value: U256::from_be_bytes(*value),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::execution::receipt::{self, Outcome};

    /// One log's address, topics and data.
    type Log = ([u8; 20], Vec<[u8; 32]>, Vec<u8>);

    /// The canonical encoding of a receipt holding `logs`.
    fn decoded(logs: &[Log]) -> Vec<u8> {
        let owned: Vec<receipt::LogFields> = logs
            .iter()
            .map(|(a, t, d)| receipt::LogFields {
                address: *a,
                topics: t.clone(),
                data: d.clone(),
            })
            .collect();
        receipt::encode_receipt(2, Outcome::Status(true), 21_000, &owned).0
    }

    fn word(a: [u8; 20]) -> [u8; 32] {
        let mut w = [0u8; 32];
        w[12..].copy_from_slice(&a);
        w
    }

    #[test]
    fn only_the_system_address_and_the_exact_shape_are_transfers() {
        let (from, to) = ([1u8; 20], [2u8; 20]);
        let value = U256::from(10u64)
            .pow(U256::from(18u64))
            .to_be_bytes::<32>()
            .to_vec();
        let good = (
            SYSTEM_ADDRESS,
            vec![TRANSFER_TOPIC, word(from), word(to)],
            value.clone(),
        );
        let token = ([7u8; 20], good.1.clone(), value.clone());
        let mut padded = good.clone();
        padded.1[1][0] = 1;
        let short = (SYSTEM_ADDRESS, good.1.clone(), value[..31].to_vec());
        let four = (
            SYSTEM_ADDRESS,
            vec![TRANSFER_TOPIC, word(from), word(to), [0u8; 32]],
            Vec::new(),
        );
        let raw = decoded(&[good, token, padded, short, four]);
        let r = receipt::ReceiptView::decode_canonical(&raw).unwrap();
        let logs: Vec<LogView<'_>> = r.logs().map(Result::unwrap).collect();
        let t = eth_transfer(&logs[0]).unwrap();
        assert_eq!((t.from, t.to), (&from, &to));
        assert_eq!(t.value, U256::from(10u64).pow(U256::from(18u64)));
        assert!(eth_transfer(&logs[1]).is_none() && !is_system_log(&logs[1]));
        for l in &logs[2..] {
            assert!(eth_transfer(l).is_none() && is_system_log(l));
        }
    }
}
