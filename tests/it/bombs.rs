//! Decompression bombs (issue 14, item 3): a record that expands far beyond what its kind can hold is refused
//! at its kind's cap, so memory stays what real records need, whatever the thread count.

use crate::util::{eraflow, rewrite_era1, synth_era1, unpack_era};
use eraflow::formats::era::MAX_BLOCK_BYTES;
use eraflow::formats::execution::{MAX_BODY_BYTES, MAX_HEADER_BYTES, MAX_RECEIPTS_BYTES};
use eraflow::formats::snappy::{compress_framed, FramedDecoder};
use eraflow::formats::FormatErrorKind;
use eraflow::verify::report::ReportError;
use eraflow::verify::VerifyOptions;

fn caps_hit(errors: &[ReportError]) -> Vec<(u64, u64)> {
    let mut v: Vec<(u64, u64)> = errors
        .iter()
        .filter_map(|e| match e {
            ReportError::Format(f) => match f.kind {
                FormatErrorKind::DecompressedTooLarge { cap, .. } => Some((
                    f.position.map_or(u64::MAX, |p| match p {
                        eraflow::formats::Position::Block(b) => b,
                        eraflow::formats::Position::Slot(s) => s,
                    }),
                    cap,
                )),
                _ => None,
            },
            _ => None,
        })
        .collect();
    v.sort();
    v
}

#[test]
fn each_era1_record_kind_has_its_own_cap() {
    let d = tempfile::tempdir().unwrap();
    let src = synth_era1(&d.path().join("src"), 16, 1);
    // Zeros compress ~21x: each bomb is small on disk and just past its kind's cap when decompressed.
    let bombed = rewrite_era1(
        &src,
        &d.path().join("bombed"),
        |n, header, body, receipts| match n {
            3 => *header = vec![0; MAX_HEADER_BYTES + 1],
            5 => *body = vec![0; MAX_BODY_BYTES + 1],
            7 => *receipts = vec![0; MAX_RECEIPTS_BYTES + 1],
            _ => {}
        },
    );
    assert!(std::fs::metadata(&bombed).unwrap().len() < 4 << 20);
    let r = eraflow::verify::file(&bombed, &VerifyOptions::default());
    assert!(!r.ok);
    assert_eq!(
        caps_hit(&r.errors),
        vec![
            (3, MAX_HEADER_BYTES as u64),
            (5, MAX_BODY_BYTES as u64),
            (7, MAX_RECEIPTS_BYTES as u64)
        ],
        "{:#?}",
        r.errors
    );
}

#[test]
fn an_era_block_has_its_cap() {
    let d = tempfile::tempdir().unwrap();
    let mut o = eraflow::synth::era::EraSynthOptions::new(
        eraflow::network::Network::by_name("synthnet").unwrap(),
    );
    o.blocks = 4;
    o.validators = 16;
    let src = eraflow::synth::era::write(&d.path().join("src"), &o)
        .unwrap()
        .remove(0);
    let (blocks, state) = unpack_era(&src);
    let name = eraflow::formats::ArchiveName::of_path(&src).unwrap();
    let dir = d.path().join("bombed");
    std::fs::create_dir_all(&dir).unwrap();
    let mut w = eraflow::formats::era::EraWriter::create(&dir, "synthnet", name.era).unwrap();
    for (i, (slot, b)) in blocks.iter().enumerate() {
        if i == 1 {
            w.add_block(*slot, &vec![0u8; MAX_BLOCK_BYTES + 1]).unwrap();
        } else {
            w.add_block(*slot, b).unwrap();
        }
    }
    let bombed = w.finish(&state, &name.short_root).unwrap();
    let r = eraflow::verify::file(&bombed, &VerifyOptions::default());
    assert_eq!(
        caps_hit(&r.errors),
        vec![(blocks[1].0, MAX_BLOCK_BYTES as u64)],
        "{:#?}",
        r.errors
    );
}

#[test]
fn a_decoder_never_grows_past_its_cap() {
    let mut d = FramedDecoder::with_max_output(100_000);
    let small = compress_framed(&[7u8; 1000]);
    assert_eq!(d.decompress(&small).unwrap(), &[7u8; 1000][..]);
    let bomb = compress_framed(&vec![0u8; 10 << 20]);
    assert!(matches!(
        d.decompress(&bomb),
        Err(FormatErrorKind::DecompressedTooLarge { cap: 100_000, .. })
    ));
    // Still usable afterwards.
    assert_eq!(d.decompress(&small).unwrap(), &[7u8; 1000][..]);
}

/// Four threads each meet a 128 MiB header bomb: with the 64 KiB header cap the export's peak memory stays
/// near that of a clean run (before the caps, each thread decompressed its bomb: 4 x 128 MiB).
#[test]
fn bombs_on_every_thread_do_not_multiply_memory() {
    let d = tempfile::tempdir().unwrap();
    let src = synth_era1(&d.path().join("src"), 1024, 1);
    let bombed = rewrite_era1(&src, &d.path().join("bombed"), |n, header, _, _| {
        if n % 256 == 0 {
            *header = vec![0; 128 << 20];
        }
    });
    let file_size = std::fs::metadata(&bombed).unwrap().len();
    let out = d.path().join("out");
    let o = eraflow()
        .args(["--threads", "4", "export", "--no-senders", "--out"])
        .arg(&out)
        .arg(&bombed)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("exceeds the cap of 65536"), "{stdout}");
    let runs = out.join("_eraflow/runs");
    let report = std::fs::read_dir(&runs)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(report).unwrap()).unwrap();
    let peak = report["peak_rss_bytes"].as_u64().unwrap();
    // The process itself (~20 MB), the mapped file, and slack; one bomb alone would be 128 MiB.
    let bound = file_size + (96 << 20);
    assert!(
        peak < bound,
        "peak RSS {} MiB with bombs on 4 threads (bound {} MiB)",
        peak >> 20,
        bound >> 20
    );
}
