//! Token events for synthetic receipts (`SynthOptions::tokens`): ERC-20 transfers and approvals, ERC-721
//! transfers, mints and approvals, ERC-1155 single and batch transfers, `ApprovalForAll`, a few unrelated logs,
//! and malformed look-alikes of each (a wrong topic count or data length, dirty address padding, a bool that is
//! neither 0 nor 1, batch offsets and lengths outside the data, ids and values of different lengths), so the
//! decoded datasets meet every shape they must decode or count.

use super::rng::Rng;
use crate::crypto::keccak::keccak256;
use crate::execution::receipt::LogFields;

/// Token contracts of each standard and holders, drawn from small seeded sets so that queries group.
const CONTRACTS: u64 = 6;
const HOLDERS: u64 = 24;

/// A seeded 20-byte address: `kind` apart contracts of each standard and holders.
fn party(kind: u8, i: u64) -> [u8; 20] {
    let mut a = [0u8; 20];
    a[0] = 0xe0 | kind;
    a[12..].copy_from_slice(&(i + 1).to_be_bytes());
    a
}

fn holder(rng: &mut Rng) -> [u8; 20] {
    party(0, rng.below(HOLDERS))
}

/// An address as an ABI word (or a topic).
fn word_of(a: &[u8; 20]) -> [u8; 32] {
    let mut w = [0u8; 32];
    w[12..].copy_from_slice(a);
    w
}

fn uint_word(v: u64) -> [u8; 32] {
    let mut w = [0u8; 32];
    w[24..].copy_from_slice(&v.to_be_bytes());
    w
}

/// An amount: mostly small, some past 2^64 (18-decimals token sums), now and then any 256-bit value.
fn amount(rng: &mut Rng) -> [u8; 32] {
    match rng.below(8) {
        0 => rng.bytes(),
        1 | 2 => {
            let mut w = [0u8; 32];
            let big: [u8; 10] = rng.bytes();
            w[22..].copy_from_slice(&big);
            w
        }
        _ => uint_word(rng.below(1 << 40)),
    }
}

/// The ABI encoding of `(uint256[] ids, uint256[] values)`.
fn batch_data(ids: &[[u8; 32]], values: &[[u8; 32]]) -> Vec<u8> {
    let mut d = Vec::new();
    d.extend(uint_word(64));
    d.extend(uint_word(96 + 32 * ids.len() as u64));
    d.extend(uint_word(ids.len() as u64));
    ids.iter().for_each(|w| d.extend(w));
    d.extend(uint_word(values.len() as u64));
    values.iter().for_each(|w| d.extend(w));
    d
}

/// The topic0s of `Transfer`, `Approval`, `ApprovalForAll`, `TransferSingle` and `TransferBatch`.
fn signatures() -> [[u8; 32]; 5] {
    [
        "Transfer(address,address,uint256)",
        "Approval(address,address,uint256)",
        "ApprovalForAll(address,address,bool)",
        "TransferSingle(address,address,address,uint256,uint256)",
        "TransferBatch(address,address,address,uint256[],uint256[])",
    ]
    .map(topic0)
}

fn log(address: [u8; 20], topics: Vec<[u8; 32]>, data: Vec<u8>) -> LogFields {
    LogFields {
        address,
        topics,
        data,
    }
}

/// The logs of one successful transaction: one to five events, about one in six a look-alike.
pub(super) fn logs(rng: &mut Rng) -> Vec<LogFields> {
    (0..1 + rng.below(5)).map(|_| one(rng)).collect()
}

/// An event's topic0, hashed here from its signature (not taken from the decoder it feeds).
fn topic0(signature: &str) -> [u8; 32] {
    keccak256(signature).0
}

fn one(rng: &mut Rng) -> LogFields {
    let [transfer, approval, approval_for_all, transfer_single, transfer_batch] = signatures();
    let erc20 = party(1, rng.below(CONTRACTS));
    let erc721 = party(2, rng.below(CONTRACTS));
    let erc1155 = party(3, rng.below(CONTRACTS));
    let (from, to, operator) = (holder(rng), holder(rng), holder(rng));
    // Mints come from the zero address.
    let from = if rng.chance(1, 6) { [0u8; 20] } else { from };
    let (f, t, o) = (word_of(&from), word_of(&to), word_of(&operator));
    match rng.below(24) {
        0..=5 => log(erc20, vec![transfer, f, t], amount(rng).to_vec()),
        6..=8 => log(
            erc721,
            vec![transfer, f, t, uint_word(rng.below(5000))],
            vec![],
        ),
        9 => {
            let data = [amount(rng), amount(rng)].concat();
            log(erc1155, vec![transfer_single, o, f, t], data)
        }
        10 => {
            let n = rng.below(4) as usize;
            let ids: Vec<_> = (0..n).map(|_| uint_word(rng.below(100))).collect();
            let values: Vec<_> = (0..n).map(|_| amount(rng)).collect();
            log(
                erc1155,
                vec![transfer_batch, o, f, t],
                batch_data(&ids, &values),
            )
        }
        11 | 12 => log(erc20, vec![approval, f, o], amount(rng).to_vec()),
        // ERC-721's Approval: the token id indexed; not an ERC-20 approval, and not a look-alike of one.
        13 => log(
            erc721,
            vec![approval, f, o, uint_word(rng.below(5000))],
            vec![],
        ),
        14 => {
            let approved = uint_word(rng.below(2));
            log(erc721, vec![approval_for_all, f, o], approved.to_vec())
        }
        // Some other event.
        15 | 16 => log(rng.bytes(), vec![rng.bytes(), f], rng.calldata(0, 64)),
        _ => lookalike(rng, erc20, [f, t, o]),
    }
}

/// A log carrying a token event's signature without its shape.
fn lookalike(rng: &mut Rng, contract: [u8; 20], [f, t, o]: [[u8; 32]; 3]) -> LogFields {
    let [transfer, approval, approval_for_all, transfer_single, transfer_batch] = signatures();
    let value = amount(rng).to_vec();
    let mut dirty = f;
    dirty[0] = 1;
    let ids = [uint_word(1), uint_word(2)];
    match rng.below(14) {
        // An ERC-20 transfer with a second data word, or a byte short; an indexed value (4 topics) with data.
        0 => log(
            contract,
            vec![transfer, f, t],
            [value.clone(), value].concat(),
        ),
        1 => log(contract, vec![transfer, f, t], value[..31].to_vec()),
        2 => log(contract, vec![transfer, f, t, uint_word(7)], value),
        3 => log(contract, vec![transfer, f], value),
        4 => log(contract, vec![transfer], vec![]),
        5 => log(contract, vec![transfer, dirty, t], value),
        6 => log(contract, vec![approval, f], value),
        7 => log(
            contract,
            vec![approval_for_all, f, o],
            uint_word(2).to_vec(),
        ),
        8 => log(
            contract,
            vec![transfer_single, o, f],
            [value.clone(), value].concat(),
        ),
        9 => log(contract, vec![transfer_single, o, f, t], value),
        10 => {
            // The ids' offset past the end.
            let mut d = batch_data(&ids, &ids);
            d[..32].copy_from_slice(&uint_word(4096));
            log(contract, vec![transfer_batch, o, f, t], d)
        }
        11 => {
            // A length that runs past the end.
            let mut d = batch_data(&ids, &ids);
            d[64..96].copy_from_slice(&uint_word(1 << 20));
            log(contract, vec![transfer_batch, o, f, t], d)
        }
        12 => log(
            contract,
            vec![transfer_batch, o, f, t],
            batch_data(&ids, &ids[..1]),
        ),
        _ => log(
            contract,
            vec![transfer_batch, o, f, t],
            uint_word(64).to_vec(),
        ),
    }
}
