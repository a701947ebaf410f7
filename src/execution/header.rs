//! Block headers as zero-copy views over their RLP, for every fork: 15 fields before London, 16 with
//! `base_fee_per_gas` ([EIP-1559]), 17 with `withdrawals_root` ([EIP-4895]), 20 with the [EIP-4844]/[EIP-4788]
//! fields, 21 with `requests_hash` ([EIP-7685]), 23 with Amsterdam's `block_access_list_hash` ([EIP-7928]) and
//! `slot_number` ([EIP-7843]). The same view serves era1, ere and headers rebuilt from era execution payloads.
//!
//! Pre-merge headers of authority-round chains (gnosis, chiado: OpenEthereum's AuRa engine) hold the same
//! number of fields, but the two seal fields in place of `mixHash` and `nonce` are `step` (an integer, the
//! block time divided by the step duration) and `signature` (65 bytes, the step's validator over the unsealed
//! header): see [`Seal`]. A header is read as AuRa-sealed when its 15th field is 65 bytes, which no ethash nonce
//! (8 bytes) is; verification checks the kind against the network's `pre_merge_seal`.
//!
//! [EIP-1559]: https://eips.ethereum.org/EIPS/eip-1559
//! [EIP-4895]: https://eips.ethereum.org/EIPS/eip-4895
//! [EIP-4844]: https://eips.ethereum.org/EIPS/eip-4844
//! [EIP-4788]: https://eips.ethereum.org/EIPS/eip-4788
//! [EIP-7685]: https://eips.ethereum.org/EIPS/eip-7685
//! [EIP-7928]: https://eips.ethereum.org/EIPS/eip-7928
//! [EIP-7843]: https://eips.ethereum.org/EIPS/eip-7843

use super::rlp::{self, Item, ListIter, RlpError};
use crate::crypto::keccak::{keccak256, B256};
use alloy_primitives::U256;

/// Field positions in the header list (yellow paper §4.3, <https://ethereum.github.io/yellowpaper/paper.pdf>,
/// then EIPs in activation order).
pub mod field {
    /// `parentHash`: keccak256 of the parent header's RLP.
    pub const PARENT_HASH: usize = 0;
    /// `ommersHash`: keccak256 of the RLP list of ommer headers.
    pub const OMMERS_HASH: usize = 1;
    /// `beneficiary`: the 20-byte address credited with the block's fees (and pre-merge rewards).
    pub const BENEFICIARY: usize = 2;
    /// `stateRoot`: root of the state trie after the block.
    pub const STATE_ROOT: usize = 3;
    /// `transactionsRoot`: root of the ordered trie of the block's transactions.
    pub const TRANSACTIONS_ROOT: usize = 4;
    /// `receiptsRoot`: root of the ordered trie of the block's receipts.
    pub const RECEIPTS_ROOT: usize = 5;
    /// `logsBloom`: the 256-byte union of the receipts' blooms.
    pub const LOGS_BLOOM: usize = 6;
    /// `difficulty`: proof-of-work difficulty (0 after the merge).
    pub const DIFFICULTY: usize = 7;
    /// `number`: the block number.
    pub const NUMBER: usize = 8;
    /// `gasLimit`: most gas the block's transactions may use.
    pub const GAS_LIMIT: usize = 9;
    /// `gasUsed`: gas used by all the block's transactions.
    pub const GAS_USED: usize = 10;
    /// `timestamp`: Unix seconds.
    pub const TIMESTAMP: usize = 11;
    /// `extraData`: up to 32 bytes chosen by the block's producer.
    pub const EXTRA_DATA: usize = 12;
    /// `mixHash`: proof-of-work mix hash; the beacon chain's `prev_randao` after the merge.
    pub const MIX_HASH: usize = 13;
    /// `nonce`: 8-byte proof-of-work nonce (zero after the merge).
    pub const NONCE: usize = 14;
    /// `baseFeePerGas`, from London on ([EIP-1559](https://eips.ethereum.org/EIPS/eip-1559)).
    pub const BASE_FEE: usize = 15;
    /// `withdrawalsRoot`, from Shanghai on ([EIP-4895](https://eips.ethereum.org/EIPS/eip-4895)).
    pub const WITHDRAWALS_ROOT: usize = 16;
    /// `blobGasUsed`, from Cancun on ([EIP-4844](https://eips.ethereum.org/EIPS/eip-4844)).
    pub const BLOB_GAS_USED: usize = 17;
    /// `excessBlobGas`, from Cancun on ([EIP-4844](https://eips.ethereum.org/EIPS/eip-4844)).
    pub const EXCESS_BLOB_GAS: usize = 18;
    /// `parentBeaconBlockRoot`, from Cancun on ([EIP-4788](https://eips.ethereum.org/EIPS/eip-4788)).
    pub const PARENT_BEACON_BLOCK_ROOT: usize = 19;
    /// `requestsHash`, from Prague on ([EIP-7685](https://eips.ethereum.org/EIPS/eip-7685)).
    pub const REQUESTS_HASH: usize = 20;
    /// `blockAccessListHash`, from Amsterdam on ([EIP-7928](https://eips.ethereum.org/EIPS/eip-7928)): keccak256
    /// of the RLP block access list, which no archive carries.
    pub const BLOCK_ACCESS_LIST_HASH: usize = 21;
    /// `slotNumber`, from Amsterdam on ([EIP-7843](https://eips.ethereum.org/EIPS/eip-7843)): the beacon slot
    /// the block was built for.
    pub const SLOT_NUMBER: usize = 22;
}

/// Most fields a header has had (Amsterdam).
pub const MAX_FIELDS: usize = 23;

/// The field counts a header may have, one per fork that changed it (execution-specs' `Header` of each fork):
/// 22 is none of them (Amsterdam appends its two fields together).
pub const FIELD_COUNTS: [usize; 6] = [15, 16, 17, 20, 21, 23];

/// What seals a header: ethash's proof of work (also the shape of every post-merge header, with `prev_randao`
/// and a zero nonce), or AuRa's step and signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seal<'a> {
    /// `mixHash` (32 bytes) and `nonce` (8 bytes).
    Ethash {
        /// `mixHash` / `prev_randao`.
        mix_hash: &'a [u8; 32],
        /// `nonce`.
        nonce: &'a [u8; 8],
    },
    /// AuRa's `step` and `signature`.
    Aura {
        /// `step`: `timestamp / stepDuration` when the block was sealed.
        step: u64,
        /// The 65-byte secp256k1 signature of the step's validator.
        signature: &'a [u8; 65],
    },
}

/// A decoded header: the raw RLP (its keccak is the block hash) and each field's payload bytes.
#[derive(Debug, Clone, Copy)]
pub struct HeaderView<'a> {
    raw: &'a [u8],
    fields: [Item<'a>; MAX_FIELDS],
    count: usize,
    aura: bool,
}

impl<'a> HeaderView<'a> {
    /// Decodes a header from its RLP encoding (exactly one list, no trailing bytes).
    pub fn decode(raw: &'a [u8]) -> Result<Self, RlpError> {
        let list = rlp::single_list(raw, "header")?;
        let empty = Item {
            raw: &[],
            payload: &[],
            is_list: false,
        };
        let mut fields = [empty; MAX_FIELDS];
        let mut count = 0;
        for item in ListIter::new(list.payload, "header field") {
            let item = item?;
            if count == MAX_FIELDS {
                return Err(RlpError::new(
                    "header",
                    format!("more than {MAX_FIELDS} fields"),
                ));
            }
            fields[count] = item;
            count += 1;
        }
        if !FIELD_COUNTS.contains(&count) {
            return Err(RlpError::new(
                "header",
                format!("expected 15, 16, 17, 20, 21 or 23 fields, found {count}"),
            ));
        }
        // An AuRa signature (65 bytes) where ethash has its 8-byte nonce.
        let aura = !fields[field::NONCE].is_list && fields[field::NONCE].payload.len() == 65;
        let h = HeaderView {
            raw,
            fields,
            count,
            aura,
        };
        // Validate the fixed-size fields once so accessors cannot fail.
        h.check_len(field::PARENT_HASH, 32, "parent_hash")?;
        h.check_len(field::OMMERS_HASH, 32, "ommers_hash")?;
        h.check_len(field::BENEFICIARY, 20, "beneficiary")?;
        h.check_len(field::STATE_ROOT, 32, "state_root")?;
        h.check_len(field::TRANSACTIONS_ROOT, 32, "transactions_root")?;
        h.check_len(field::RECEIPTS_ROOT, 32, "receipts_root")?;
        h.check_len(field::LOGS_BLOOM, 256, "logs_bloom")?;
        if aura {
            rlp::as_u64(&fields[field::MIX_HASH], "aura_step")?;
        } else {
            h.check_len(field::MIX_HASH, 32, "mix_hash")?;
            h.check_len(field::NONCE, 8, "nonce")?;
        }
        rlp::as_u256(&fields[field::DIFFICULTY], "difficulty")?;
        rlp::as_u64(&fields[field::NUMBER], "number")?;
        rlp::as_u64(&fields[field::GAS_LIMIT], "gas_limit")?;
        rlp::as_u64(&fields[field::GAS_USED], "gas_used")?;
        rlp::as_u64(&fields[field::TIMESTAMP], "timestamp")?;
        rlp::string_payload(&fields[field::EXTRA_DATA], "extra_data")?;
        if count > field::BASE_FEE {
            rlp::as_u256(&fields[field::BASE_FEE], "base_fee_per_gas")?;
        }
        if count > field::WITHDRAWALS_ROOT {
            h.check_len(field::WITHDRAWALS_ROOT, 32, "withdrawals_root")?;
        }
        if count > field::EXCESS_BLOB_GAS {
            rlp::as_u64(&fields[field::BLOB_GAS_USED], "blob_gas_used")?;
            rlp::as_u64(&fields[field::EXCESS_BLOB_GAS], "excess_blob_gas")?;
            h.check_len(
                field::PARENT_BEACON_BLOCK_ROOT,
                32,
                "parent_beacon_block_root",
            )?;
        }
        if count > field::REQUESTS_HASH {
            h.check_len(field::REQUESTS_HASH, 32, "requests_hash")?;
        }
        if count > field::SLOT_NUMBER {
            h.check_len(field::BLOCK_ACCESS_LIST_HASH, 32, "block_access_list_hash")?;
            rlp::as_u64(&fields[field::SLOT_NUMBER], "slot_number")?;
        }
        Ok(h)
    }

    fn check_len(&self, i: usize, n: usize, name: &str) -> Result<(), RlpError> {
        let f = &self.fields[i];
        if f.is_list || f.payload.len() != n {
            return Err(RlpError::new(
                name,
                format!(
                    "expected {n} bytes, found {}",
                    if f.is_list {
                        "a list".into()
                    } else {
                        f.payload.len().to_string()
                    }
                ),
            ));
        }
        Ok(())
    }

    fn fixed<const N: usize>(&self, i: usize) -> &'a [u8; N] {
        // Lengths were checked in `decode`.
        self.fields[i].payload.try_into().unwrap_or(&[0u8; N])
    }

    fn int(&self, i: usize) -> u64 {
        self.fields[i]
            .payload
            .iter()
            .fold(0u64, |a, b| (a << 8) | *b as u64)
    }

    /// The whole RLP encoding.
    pub fn raw(&self) -> &'a [u8] {
        self.raw
    }
    /// keccak256 of the RLP encoding: the block hash.
    pub fn hash(&self) -> B256 {
        keccak256(self.raw)
    }
    /// Number of fields (15 before London, 16 London, 17 Shanghai, 20 Cancun, 21 Prague, 23 Amsterdam).
    pub fn field_count(&self) -> usize {
        self.count
    }
    /// keccak256 of the parent header's RLP (the parent's block hash).
    pub fn parent_hash(&self) -> &'a [u8; 32] {
        self.fixed(field::PARENT_HASH)
    }
    /// keccak256 of the RLP list of ommer (uncle) headers; `keccak256(rlp([]))` when there are none,
    /// as always after the merge.
    pub fn ommers_hash(&self) -> &'a [u8; 32] {
        self.fixed(field::OMMERS_HASH)
    }
    /// The block's author (coinbase).
    pub fn beneficiary(&self) -> &'a [u8; 20] {
        self.fixed(field::BENEFICIARY)
    }
    /// Root of the state trie after the block's transactions (and rewards or withdrawals).
    pub fn state_root(&self) -> &'a [u8; 32] {
        self.fixed(field::STATE_ROOT)
    }
    /// Root of the ordered trie (key `rlp(index)`) of the block's transactions.
    pub fn transactions_root(&self) -> &'a [u8; 32] {
        self.fixed(field::TRANSACTIONS_ROOT)
    }
    /// Root of the ordered trie (key `rlp(index)`) of the block's receipts.
    pub fn receipts_root(&self) -> &'a [u8; 32] {
        self.fixed(field::RECEIPTS_ROOT)
    }
    /// The 2048-bit bloom filter over every log's address and topics: the union of the receipts' blooms.
    pub fn logs_bloom(&self) -> &'a [u8; 256] {
        self.fixed(field::LOGS_BLOOM)
    }
    /// Proof-of-work difficulty; 0 after the merge.
    pub fn difficulty(&self) -> U256 {
        U256::from_be_slice(self.fields[field::DIFFICULTY].payload)
    }
    /// The block number (genesis is 0).
    pub fn number(&self) -> u64 {
        self.int(field::NUMBER)
    }
    /// Most gas the block's transactions may use together.
    pub fn gas_limit(&self) -> u64 {
        self.int(field::GAS_LIMIT)
    }
    /// Gas used by all the block's transactions: the last receipt's cumulative gas, until Amsterdam; from
    /// Amsterdam on the larger of the block's execution-gas and state-gas totals before refunds
    /// ([EIP-7778](https://eips.ethereum.org/EIPS/eip-7778), [EIP-8037](https://eips.ethereum.org/EIPS/eip-8037)),
    /// which the receipts (charged gas, after refunds) no longer add up to.
    pub fn gas_used(&self) -> u64 {
        self.int(field::GAS_USED)
    }
    /// Block time, Unix seconds.
    pub fn timestamp(&self) -> u64 {
        self.int(field::TIMESTAMP)
    }
    /// Arbitrary bytes chosen by the miner or proposer (at most 32 bytes by consensus rules; not checked
    /// here).
    pub fn extra_data(&self) -> &'a [u8] {
        self.fields[field::EXTRA_DATA].payload
    }
    /// `mix_hash` (pre-merge) / `prev_randao` (post-merge); all zero for an AuRa-sealed header (see
    /// [`HeaderView::seal`]).
    pub fn mix_hash(&self) -> &'a [u8; 32] {
        self.fixed(field::MIX_HASH)
    }
    /// 8-byte proof-of-work nonce; all zero after the merge, and for an AuRa-sealed header.
    pub fn nonce(&self) -> &'a [u8; 8] {
        self.fixed(field::NONCE)
    }
    /// The seal fields, as what they are.
    pub fn seal(&self) -> Seal<'a> {
        if self.aura {
            Seal::Aura {
                step: self.int(field::MIX_HASH),
                signature: self.fixed(field::NONCE),
            }
        } else {
            Seal::Ethash {
                mix_hash: self.fixed(field::MIX_HASH),
                nonce: self.fixed(field::NONCE),
            }
        }
    }
    /// Whether the header is AuRa-sealed.
    pub fn is_aura(&self) -> bool {
        self.aura
    }
    /// [EIP-1559](https://eips.ethereum.org/EIPS/eip-1559) base fee per gas, in wei; `None` before London.
    pub fn base_fee_per_gas(&self) -> Option<U256> {
        (self.count > field::BASE_FEE)
            .then(|| U256::from_be_slice(self.fields[field::BASE_FEE].payload))
    }
    /// [EIP-4895](https://eips.ethereum.org/EIPS/eip-4895) withdrawals root; `None` before Shanghai.
    pub fn withdrawals_root(&self) -> Option<&'a [u8; 32]> {
        (self.count > field::WITHDRAWALS_ROOT).then(|| self.fixed(field::WITHDRAWALS_ROOT))
    }
    /// [EIP-4844](https://eips.ethereum.org/EIPS/eip-4844) blob gas used by the block's blob transactions;
    /// `None` before Cancun.
    pub fn blob_gas_used(&self) -> Option<u64> {
        (self.count > field::BLOB_GAS_USED).then(|| self.int(field::BLOB_GAS_USED))
    }
    /// [EIP-4844](https://eips.ethereum.org/EIPS/eip-4844) excess blob gas (drives the blob base fee); `None`
    /// before Cancun.
    pub fn excess_blob_gas(&self) -> Option<u64> {
        (self.count > field::EXCESS_BLOB_GAS).then(|| self.int(field::EXCESS_BLOB_GAS))
    }
    /// [EIP-4788](https://eips.ethereum.org/EIPS/eip-4788) root of the parent beacon block; `None` before
    /// Cancun.
    pub fn parent_beacon_block_root(&self) -> Option<&'a [u8; 32]> {
        (self.count > field::PARENT_BEACON_BLOCK_ROOT)
            .then(|| self.fixed(field::PARENT_BEACON_BLOCK_ROOT))
    }
    /// [EIP-7685](https://eips.ethereum.org/EIPS/eip-7685) commitment to the block's execution-layer
    /// requests; `None` before Prague.
    pub fn requests_hash(&self) -> Option<&'a [u8; 32]> {
        (self.count > field::REQUESTS_HASH).then(|| self.fixed(field::REQUESTS_HASH))
    }
    /// [EIP-7928](https://eips.ethereum.org/EIPS/eip-7928) keccak256 of the RLP block access list (the list
    /// itself is in no archive); `None` before Amsterdam.
    pub fn block_access_list_hash(&self) -> Option<&'a [u8; 32]> {
        (self.count > field::SLOT_NUMBER).then(|| self.fixed(field::BLOCK_ACCESS_LIST_HASH))
    }
    /// [EIP-7843](https://eips.ethereum.org/EIPS/eip-7843) the beacon slot of the block; `None` before
    /// Amsterdam.
    pub fn slot_number(&self) -> Option<u64> {
        (self.count > field::SLOT_NUMBER).then(|| self.int(field::SLOT_NUMBER))
    }
}

/// An owned header, for the writer and the synthetic generator (never on the read path).
///
/// Fields mean what the [`HeaderView`] accessors of the same names return.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HeaderFields {
    /// The parent's block hash.
    pub parent_hash: B256,
    /// keccak256 of the RLP list of ommer headers (`keccak256(rlp([]))` for none).
    pub ommers_hash: B256,
    /// Fee recipient (miner / proposer's `fee_recipient`).
    pub beneficiary: alloy_primitives::Address,
    /// State trie root after the block.
    pub state_root: B256,
    /// Ordered trie root of the transactions.
    pub transactions_root: B256,
    /// Ordered trie root of the receipts.
    pub receipts_root: B256,
    /// Union of the receipts' 2048-bit blooms.
    pub logs_bloom: alloy_primitives::Bloom,
    /// Proof-of-work difficulty (0 after the merge).
    pub difficulty: U256,
    /// Block number.
    pub number: u64,
    /// Block gas limit.
    pub gas_limit: u64,
    /// Gas used by all transactions.
    pub gas_used: u64,
    /// Unix seconds.
    pub timestamp: u64,
    /// Producer-chosen extra data.
    pub extra_data: alloy_primitives::Bytes,
    /// Proof-of-work mix hash, or `prev_randao` after the merge.
    pub mix_hash: B256,
    /// Proof-of-work nonce (zero after the merge).
    pub nonce: alloy_primitives::B64,
    /// An AuRa seal `(step, signature)`, encoded in place of `mix_hash` and `nonce` (which are then ignored).
    pub aura: Option<(u64, [u8; 65])>,
    /// Base fee in wei, from London on; when `None` every later field is left out of the encoding.
    pub base_fee_per_gas: Option<U256>,
    /// Withdrawals trie root, from Shanghai on; when `None` the Cancun and Prague fields are left out.
    pub withdrawals_root: Option<B256>,
    /// (blob_gas_used, excess_blob_gas, parent_beacon_block_root), all three from Cancun on.
    pub cancun: Option<(u64, u64, B256)>,
    /// Execution requests commitment, from Prague on; encoded only when `cancun` is `Some`.
    pub requests_hash: Option<B256>,
    /// (block_access_list_hash, slot_number), from Amsterdam on; encoded only when `requests_hash` is `Some`.
    pub amsterdam: Option<(B256, u64)>,
}

impl HeaderFields {
    /// The header's RLP encoding. Optional fields must be present as a prefix (London, then Shanghai, ...).
    pub fn encode(&self) -> Vec<u8> {
        use alloy_rlp::Encodable;
        let mut payload = Vec::with_capacity(600);
        self.parent_hash.encode(&mut payload);
        self.ommers_hash.encode(&mut payload);
        self.beneficiary.encode(&mut payload);
        self.state_root.encode(&mut payload);
        self.transactions_root.encode(&mut payload);
        self.receipts_root.encode(&mut payload);
        self.logs_bloom.encode(&mut payload);
        self.difficulty.encode(&mut payload);
        self.number.encode(&mut payload);
        self.gas_limit.encode(&mut payload);
        self.gas_used.encode(&mut payload);
        self.timestamp.encode(&mut payload);
        self.extra_data.encode(&mut payload);
        match &self.aura {
            Some((step, signature)) => {
                step.encode(&mut payload);
                signature[..].encode(&mut payload);
            }
            None => {
                self.mix_hash.encode(&mut payload);
                self.nonce.encode(&mut payload);
            }
        }
        if let Some(b) = self.base_fee_per_gas {
            b.encode(&mut payload);
            if let Some(w) = self.withdrawals_root {
                w.encode(&mut payload);
                if let Some((used, excess, root)) = self.cancun {
                    used.encode(&mut payload);
                    excess.encode(&mut payload);
                    root.encode(&mut payload);
                    if let Some(r) = self.requests_hash {
                        r.encode(&mut payload);
                        if let Some((bal, slot)) = self.amsterdam {
                            bal.encode(&mut payload);
                            slot.encode(&mut payload);
                        }
                    }
                }
            }
        }
        wrap_list(&payload)
    }
}

/// Wraps an already-encoded list payload in its list header.
pub fn wrap_list(payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len() + 9);
    alloy_rlp::Header {
        list: true,
        payload_length: payload.len(),
    }
    .encode(&mut out);
    out.extend_from_slice(payload);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_every_field_count() {
        let mut h = HeaderFields {
            number: 1234,
            difficulty: U256::from(131072u64),
            ..Default::default()
        };
        for (count, step) in [(15, 0), (16, 1), (17, 2), (20, 3), (21, 4), (23, 5)] {
            if step >= 1 {
                h.base_fee_per_gas = Some(U256::from(7u64));
            }
            if step >= 2 {
                h.withdrawals_root = Some(B256::repeat_byte(3));
            }
            if step >= 3 {
                h.cancun = Some((131072, 0, B256::repeat_byte(4)));
            }
            if step >= 4 {
                h.requests_hash = Some(B256::repeat_byte(5));
            }
            if step >= 5 {
                h.amsterdam = Some((B256::repeat_byte(6), 11_296_768));
            }
            let raw = h.encode();
            let v = HeaderView::decode(&raw).unwrap();
            assert_eq!(v.field_count(), count);
            assert_eq!(v.number(), 1234);
            assert_eq!(v.difficulty(), U256::from(131072u64));
            assert_eq!(v.base_fee_per_gas().is_some(), step >= 1);
            assert_eq!(v.blob_gas_used(), (step >= 3).then_some(131072));
            assert_eq!(v.slot_number(), (step >= 5).then_some(11_296_768));
            assert_eq!(
                v.block_access_list_hash(),
                (step >= 5).then_some(&[6u8; 32])
            );
            assert_eq!(v.hash(), keccak256(&raw));
        }
    }

    #[test]
    fn aura_seals_round_trip_and_keep_ethash_apart() {
        let h = HeaderFields {
            number: 77,
            difficulty: U256::from(u128::MAX - 3),
            aura: Some((333_079_207, [9u8; 65])),
            ..Default::default()
        };
        let raw = h.encode();
        let v = HeaderView::decode(&raw).unwrap();
        assert!(v.is_aura());
        assert_eq!(
            v.seal(),
            Seal::Aura {
                step: 333_079_207,
                signature: &[9u8; 65]
            }
        );
        assert_eq!(v.field_count(), 15);
        assert_eq!(v.mix_hash(), &[0u8; 32]);
        let e = HeaderFields::default().encode();
        assert!(matches!(
            HeaderView::decode(&e).unwrap().seal(),
            Seal::Ethash { .. }
        ));
        // A 65-byte last field with a step that is no integer (33 bytes) is refused.
        let mut bad = h.clone();
        bad.aura = None;
        bad.mix_hash = B256::repeat_byte(1);
        let mut enc = bad.encode();
        // Swap the 8-byte nonce for a 65-byte string: mix_hash (32 bytes) is then no valid step.
        let nonce_at = enc.len() - 9;
        enc.truncate(nonce_at);
        enc.push(0xb8);
        enc.push(65);
        enc.extend([1u8; 65]);
        let payload_len = enc.len() - 3;
        enc[1..3].copy_from_slice(&(payload_len as u16).to_be_bytes());
        assert!(HeaderView::decode(&enc).is_err());
    }

    #[test]
    fn rejects_bad_headers() {
        let raw = HeaderFields::default().encode();
        for cut in 0..raw.len() {
            assert!(HeaderView::decode(&raw[..cut]).is_err());
        }
        let mut extra = raw.clone();
        extra.push(0x80);
        assert!(HeaderView::decode(&extra).is_err());
    }
}
