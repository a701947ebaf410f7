//! Snappy *framed* decompression (the format every e2store payload uses), with a reusable decoder.
//!
//! Format facts (google/snappy `framing_format.txt`, <https://github.com/google/snappy/blob/main/framing_format.txt>):
//! a stream is chunks of `type: u8 | length: u24 LE | data`.
//! 0xff = stream identifier (`sNaPpY`), 0x00 = compressed data, 0x01 = uncompressed data, both starting with a
//! masked CRC-32C of the *uncompressed* bytes; 0x02-0x7f are reserved and unskippable, 0x80-0xfe skippable.
//! A chunk holds at most 65536 uncompressed bytes.
//!
//! Why not `snap::read::FrameDecoder`: constructing one per record zero-fills ~140 KiB (~3.5 µs), 20x the cost of
//! a reused decoder, and it cannot decompress into a caller's buffer. Parsing the frame headers here and calling
//! `snap::raw::Decoder` into one grow-only buffer, with the hardware CRC-32C of the `crc32c` crate, measured
//! ~2x the throughput (see `benches/era1.rs`, floor `snappy_framed_snap_crate`).

use crate::formats::error::FormatErrorKind;

/// Largest uncompressed chunk the framing format allows.
const MAX_CHUNK: usize = 65536;

/// Default cap on one stream's decompressed size, for callers that do not know what the stream holds. Readers
/// of archive records use their kind's cap instead ([`crate::formats::execution::BlockDecoders`],
/// [`crate::formats::era::block_decoder`], [`crate::formats::era::state_decoder`]), so a decompression bomb costs each worker
/// thread only what a real record of that kind could.
pub const DEFAULT_MAX_OUTPUT: usize = 1 << 30;

/// The decompressed size a framed stream's chunk headers declare (a best effort: it stops at the first chunk
/// that does not parse, which [`FramedDecoder::decompress`] then reports).
fn decompressed_len(input: &[u8]) -> usize {
    let (mut pos, mut total) = (0usize, 0usize);
    while let Some(h) = input.get(pos..pos + 4) {
        let clen = u32::from_le_bytes([h[1], h[2], h[3], 0]) as usize;
        let Some(body) = input.get(pos + 4..pos + 4 + clen) else {
            break;
        };
        match (h[0], body.get(4..)) {
            (0x00, Some(payload)) => match snap::raw::decompress_len(payload) {
                Ok(n) => total = total.saturating_add(n.min(MAX_CHUNK)),
                Err(_) => break,
            },
            (0x01, Some(payload)) => total = total.saturating_add(payload.len()),
            _ => {}
        }
        pos += 4 + clen;
    }
    total
}

/// Masks a CRC-32C as the framing format stores it.
///
/// The mask is a right rotation by 15 bits plus `0xa282ead8`, which the format applies because checksumming
/// data that itself embeds unmasked CRCs is weak.
#[inline]
pub fn mask_crc(crc: u32) -> u32 {
    crc.rotate_right(15).wrapping_add(0xa282_ead8)
}

/// A reusable snappy-framed decoder: one per worker thread, reused for every record.
pub struct FramedDecoder {
    raw: snap::raw::Decoder,
    /// Grow-only output buffer; `len` of it is valid. Never shrunk, so it is zero-filled only when it grows.
    buf: Vec<u8>,
    max_output: usize,
}

impl Default for FramedDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl FramedDecoder {
    /// A decoder with the default output cap.
    pub fn new() -> Self {
        Self::with_max_output(DEFAULT_MAX_OUTPUT)
    }

    /// A decoder that refuses to produce more than `max_output` bytes per stream.
    pub fn with_max_output(max_output: usize) -> Self {
        FramedDecoder {
            raw: snap::raw::Decoder::new(),
            buf: Vec::new(),
            max_output,
        }
    }

    /// Decompresses one framed stream; the result borrows the decoder's buffer until the next call.
    ///
    /// Errors carry the offset within `input` in their message; callers add the record offset.
    pub fn decompress<'s>(&'s mut self, input: &[u8]) -> Result<&'s [u8], FormatErrorKind> {
        // Size the buffer once from the chunk headers: growing it by doubling would zero-fill up to twice the
        // output and copy the old buffer into the new, which for a 140 MB era state doubled the peak memory.
        let total = decompressed_len(input).min(self.max_output);
        if self.buf.len() < total {
            self.buf = Vec::new();
            self.buf.resize(total, 0);
        }
        let mut pos = 0usize;
        let mut len = 0usize;
        let mut seen_identifier = false;
        while pos < input.len() {
            let Some(h) = input.get(pos..pos + 4) else {
                return Err(FormatErrorKind::Snappy(format!(
                    "truncated chunk header at stream offset {pos}: expected 4 bytes, found {}",
                    input.len() - pos
                )));
            };
            let ty = h[0];
            let clen = u32::from_le_bytes([h[1], h[2], h[3], 0]) as usize;
            let body = input.get(pos + 4..pos + 4 + clen).ok_or_else(|| {
                FormatErrorKind::Snappy(format!(
                    "chunk at stream offset {pos} declares {clen} bytes, only {} remain",
                    input.len() - pos - 4
                ))
            })?;
            if !seen_identifier && ty != 0xff {
                return Err(FormatErrorKind::Snappy(format!(
                    "stream must start with the identifier chunk 0xff, found chunk type {ty:#04x}"
                )));
            }
            match ty {
                0xff => {
                    if body != b"sNaPpY" {
                        return Err(FormatErrorKind::Snappy(format!(
                            "bad stream identifier at stream offset {pos}"
                        )));
                    }
                    seen_identifier = true;
                }
                0x00 | 0x01 => {
                    if clen < 4 {
                        return Err(FormatErrorKind::Snappy(format!(
                            "data chunk at stream offset {pos} too short for its CRC ({clen} bytes)"
                        )));
                    }
                    let expected = u32::from_le_bytes([body[0], body[1], body[2], body[3]]);
                    let payload = &body[4..];
                    let n = if ty == 0x00 {
                        snap::raw::decompress_len(payload).map_err(|e| {
                            FormatErrorKind::Snappy(format!("chunk at stream offset {pos}: {e}"))
                        })?
                    } else {
                        payload.len()
                    };
                    if n > MAX_CHUNK {
                        return Err(FormatErrorKind::Snappy(format!(
                            "chunk at stream offset {pos} holds {n} bytes, above the 65536 maximum"
                        )));
                    }
                    if len + n > self.max_output {
                        return Err(FormatErrorKind::DecompressedTooLarge {
                            found: (len + n) as u64,
                            cap: self.max_output as u64,
                        });
                    }
                    if self.buf.len() < len + n {
                        // Grow geometrically; only the new tail is zero-filled, once per decoder lifetime.
                        let want = (len + n)
                            .max(self.buf.len() * 2)
                            .min(self.max_output.max(len + n));
                        self.buf.resize(want, 0);
                    }
                    let out = &mut self.buf[len..len + n];
                    if ty == 0x00 {
                        let got = self.raw.decompress(payload, out).map_err(|e| {
                            FormatErrorKind::Snappy(format!("chunk at stream offset {pos}: {e}"))
                        })?;
                        if got != n {
                            return Err(FormatErrorKind::Snappy(format!(
                                "chunk at stream offset {pos}: expected {n} bytes, decoded {got}"
                            )));
                        }
                    } else {
                        out.copy_from_slice(payload);
                    }
                    let found = mask_crc(crc32c::crc32c(out));
                    if found != expected {
                        return Err(FormatErrorKind::SnappyCrc { expected, found });
                    }
                    len += n;
                }
                0x02..=0x7f => {
                    return Err(FormatErrorKind::Snappy(format!(
                        "reserved unskippable chunk type {ty:#04x} at stream offset {pos}"
                    )));
                }
                _ => {} // 0x80..=0xfe: padding and skippable chunks.
            }
            pos += 4 + clen;
        }
        if !seen_identifier {
            return Err(FormatErrorKind::Snappy(
                "empty stream: no identifier chunk".into(),
            ));
        }
        Ok(&self.buf[..len])
    }
}

/// Compresses `data` as one snappy-framed stream (the writer side; not a hot path, so `snap`'s own encoder).
pub fn compress_framed(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut enc = snap::write::FrameEncoder::new(Vec::with_capacity(data.len() / 2 + 64));
    // Writing to a Vec cannot fail.
    let _ = enc.write_all(data);
    let out = enc.into_inner().unwrap_or_default();
    if out.is_empty() {
        // `snap` writes nothing for empty input; a valid stream still needs its identifier chunk.
        return vec![0xff, 0x06, 0x00, 0x00, b's', b'N', b'a', b'P', b'p', b'Y'];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(n: usize) -> Vec<u8> {
        (0..n).map(|i| ((i * 31) ^ (i >> 7)) as u8 % 17).collect()
    }

    #[test]
    fn round_trips_across_chunk_boundaries() {
        let mut d = FramedDecoder::new();
        for n in [0usize, 1, 100, 65535, 65536, 65537, 300_000] {
            let data = sample(n);
            let c = compress_framed(&data);
            assert_eq!(d.decompress(&c).unwrap(), &data[..], "n={n}");
        }
    }

    #[test]
    fn detects_corruption() {
        let data = sample(10_000);
        let c = compress_framed(&data);
        let mut d = FramedDecoder::new();
        for i in 0..c.len() {
            let mut bad = c.clone();
            bad[i] ^= 0x41;
            // Must never panic; almost every flip must be detected (CRC covers the output).
            if let Ok(out) = d.decompress(&bad) {
                assert_eq!(out, &data[..], "flip at {i} silently changed the output");
            }
        }
        // Cuts inside a chunk are errors. A cut at a chunk boundary is a valid, shorter stream (the framing
        // format has no total length; e2store's record length and the RLP/SSZ inside catch that), so it may
        // only ever yield a prefix of the data.
        for cut in [0, 3, 10, 11, c.len() - 1] {
            match d.decompress(&c[..cut]) {
                Ok(out) => assert!(cut == 10 && data.starts_with(out), "cut at {cut} accepted"),
                Err(_) => assert_ne!(cut, 10),
            }
        }
    }

    #[test]
    fn caps_output() {
        let c = compress_framed(&vec![0u8; 200_000]);
        let mut d = FramedDecoder::with_max_output(100_000);
        assert!(matches!(
            d.decompress(&c),
            Err(FormatErrorKind::DecompressedTooLarge { .. })
        ));
    }
}
