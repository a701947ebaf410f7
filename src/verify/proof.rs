//! `Proof` records of ere files (default profile): `snappyFramed(rlp([proof-type, ssz(proof)]))`, one per block
//! header, typed 0 (`BlockProofHistoricalHashesAccumulator`, pre-merge), 1 (`BlockProofHistoricalRoots`,
//! Bellatrix to Capella), 2 (`BlockProofHistoricalSummariesCapella`), 3 (`...Deneb`) as `formats/ere.md`
//! numbers them. Here the records are decoded; [`super::canonical`] checks what each proves against the trusted
//! roots ([`crate::canonical`]).

use crate::execution::rlp::{self, ListIter};
use crate::formats::execution::decompress;
use crate::formats::snappy::FramedDecoder;
use crate::formats::{e2store::Record, FormatError, FormatErrorKind};
use std::path::Path;

/// The highest proof type the ere spec defines (Deneb on; a Gloas proof would be the next).
pub const MAX_PROOF_TYPE: u64 = 3;

/// The two fields of a decoded `Proof` record.
#[derive(Debug, Clone, Copy)]
pub struct BlockProof<'a> {
    /// 0 to 3 (see the module docs).
    pub proof_type: u64,
    /// The SSZ encoding of the proof.
    pub ssz: &'a [u8],
}

/// Decodes a decompressed `Proof` record: `rlp([proof-type, ssz])`.
pub fn decode(raw: &[u8]) -> Result<BlockProof<'_>, rlp::RlpError> {
    let list = rlp::single_list(raw, "proof")?;
    let mut it = ListIter::new(list.payload, "proof field");
    let ty = it
        .next()
        .ok_or_else(|| rlp::RlpError::new("proof", "missing proof type"))??;
    let proof_type = rlp::as_u64(&ty, "proof type")?;
    let ssz = it
        .next()
        .ok_or_else(|| rlp::RlpError::new("proof", "missing proof data"))??;
    let ssz = rlp::string_payload(&ssz, "proof data")?;
    if it.next().is_some() {
        return Err(rlp::RlpError::new("proof", "more than 2 fields"));
    }
    if proof_type > MAX_PROOF_TYPE {
        return Err(rlp::RlpError::new(
            "proof type",
            format!("unsupported proof type {proof_type} (ere defines 0 to {MAX_PROOF_TYPE})"),
        ));
    }
    Ok(BlockProof { proof_type, ssz })
}

/// Decompresses and decodes block `number`'s `Proof` record.
pub(super) fn decode_record<'d>(
    record: &Record<'_>,
    dec: &'d mut FramedDecoder,
    path: &Path,
    number: u64,
) -> Result<BlockProof<'d>, FormatError> {
    let raw = decompress(dec, record, path, number)?;
    decode(raw).map_err(|e| {
        FormatError::at(record.offset, FormatErrorKind::Rlp(e.to_string()))
            .in_file(path)
            .in_block(number)
    })
}
