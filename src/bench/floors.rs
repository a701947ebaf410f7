//! The floors a stage is compared with that need more than a primitive call, and reading back what an export
//! wrote.

use super::{decode_err, BenchError};
use crate::datasets;
use crate::formats::snappy::FramedDecoder;
use crate::formats::ArchiveKind;
use crate::formats::MappedArchive;
use crate::network::Network;
use std::path::Path;

/// Prune's floor with the transactions root: for every block, decompress the header and the body (reused
/// decoders), then hash the header, the ommers list, every transaction and every node of the transactions trie
/// in one batch (`ordered_root_and_hashes`, as the light verification path does: the same keccak messages,
/// counted). Returns a checksum so nothing is optimised away.
pub(super) fn prune_floor(path: &Path) -> Result<u64, String> {
    use crate::execution::body::BodyView;
    use crate::formats::era1::Era1File;
    use crate::formats::execution::{decompress, BlockDecoders};
    let file = Era1File::open(path).map_err(|e| e.to_string())?;
    let mut dec = BlockDecoders::default();
    let (mut acc, mut hashes) = (0u64, Vec::new());
    for i in 0..file.block_count() {
        let t = file.block(i).map_err(|e| e.to_string())?;
        let h =
            decompress(&mut dec.header, &t.header, path, t.number).map_err(|e| e.to_string())?;
        let b = decompress(&mut dec.body, &t.body, path, t.number).map_err(|e| e.to_string())?;
        let body = BodyView::decode(b).map_err(|e| e.to_string())?;
        let items = body
            .transaction_encodings()
            .collect::<Result<Vec<&[u8]>, _>>()
            .map_err(|e| e.to_string())?;
        // The ommers list too (verification checks the header's `ommers_hash` against it): without it the floor
        // hashed 8% fewer keccak blocks than prune does on the bench's file (counted with keccak's recorder).
        let root = crate::execution::trie::ordered_root_and_hashes(
            &items,
            &[h, body.ommers_rlp()],
            &mut hashes,
        );
        acc = acc.wrapping_add(u64::from(root.0[0]));
        for o in &hashes {
            acc = acc.wrapping_add(u64::from(o[0]));
        }
    }
    Ok(acc)
}

/// A signature to recover: (signing hash, r, s, y parity).
pub(super) type Sig = ([u8; 32], [u8; 32], [u8; 32], bool);

/// A transaction's canonical encoding and whether its block is at or after Homestead.
pub(super) type Encoded = (Vec<u8>, bool);

/// The signature of every transaction in the file, and its canonical encoding.
pub(super) fn signatures(
    input: &Path,
    net: &Network,
) -> Result<(Vec<Sig>, Vec<Encoded>), BenchError> {
    use crate::execution::body::BodyView;
    use crate::execution::transaction::TxView;
    let f = crate::formats::era1::Era1File::open(input).map_err(decode_err("era1 file"))?;
    let mut dec = FramedDecoder::new();
    let pad = |b: &[u8]| {
        let mut o = [0u8; 32];
        o[32 - b.len().min(32)..].copy_from_slice(&b[b.len().saturating_sub(32)..]);
        o
    };
    let mut out = Vec::new();
    let mut encoded = Vec::new();
    for i in 0..f.block_count() {
        let t = f.block(i).map_err(decode_err("era1 block"))?;
        let homestead = net.is_homestead(t.number);
        let raw = dec
            .decompress(t.body.data)
            .map_err(decode_err("era1 body"))?;
        let body = BodyView::decode(raw).map_err(decode_err("era1 body"))?;
        for item in body.transactions() {
            let item = item.map_err(decode_err("body item"))?;
            let tx = TxView::decode(item.raw).map_err(decode_err("transaction"))?;
            out.push((
                tx.signing_hash().0,
                pad(tx.r()),
                pad(tx.s()),
                tx.y_parity().unwrap_or(false),
            ));
            encoded.push((tx.canonical().to_vec(), homestead));
        }
    }
    Ok((out, encoded))
}

/// The batches of every dataset an era1 export writes (era-only datasets such as `withdrawals` get no file
/// from an era1 source), by dataset name.
pub(super) fn read_batches(
    out: &Path,
) -> Result<Vec<(String, Vec<arrow_array::RecordBatch>)>, BenchError> {
    let mut all = Vec::new();
    for d in datasets::ALL
        .iter()
        .filter(|d| ArchiveKind::Era1.holds().has(d.needs()))
    {
        let mut bs = Vec::new();
        // Files sit in `network=<name>` partition folders; a dataset with no rows has no folder at all.
        let mut files = Vec::new();
        let mut dirs = vec![out.join(d.name())];
        while let Some(dir) = dirs.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for e in entries.flatten() {
                match e.file_type() {
                    Ok(t) if t.is_dir() => dirs.push(e.path()),
                    _ => files.push(e.path()),
                }
            }
        }
        files.sort();
        for path in files {
            let f = std::fs::File::open(&path).map_err(|source| BenchError::Io {
                path: path.clone(),
                source,
            })?;
            let r = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(f)
                .and_then(|b| b.build())
                .map_err(decode_err("exported parquet"))?;
            for b in r {
                bs.push(b.map_err(decode_err("exported parquet"))?);
            }
        }
        all.push((d.name().to_string(), bs));
    }
    Ok(all)
}
