//! The era reader on the real genesis era files: the state record is the real genesis state, and damaged
//! copies give errors. (Formerly unit tests in `src/formats/era.rs`; real data is reached from the integration
//! tests only.)

use eraflow::formats::era::EraFile;
use eraflow::formats::MappedArchive;
use eraflow::formats::{ArchiveKind, ArchiveName};

#[test]
fn real_genesis_era_files_open() {
    for (name, network) in [
        ("era/mainnet-00000-4b363db9.era", "mainnet"),
        ("era/sepolia-00000-d8ea171f.era", "sepolia"),
    ] {
        let Some(p) = crate::testdata::file(name) else {
            return;
        };
        let f = EraFile::open(&p).unwrap();
        assert_eq!((f.era(), f.state_slot()), (0, 0));
        assert!(f.block_index().is_none(), "genesis era has no blocks");
        let state = f.state_record().unwrap();
        let mut dec = eraflow::formats::snappy::FramedDecoder::new();
        let ssz = dec.decompress(state.data).unwrap();
        let genesis = crate::testdata::file(&format!("ssz/genesis/{network}-genesis.ssz")).unwrap();
        assert_eq!(
            ssz,
            std::fs::read(genesis).unwrap(),
            "{name}: state is the real genesis state"
        );
        let n = ArchiveName::parse_as(ArchiveKind::Era, p.file_name().unwrap().to_str().unwrap())
            .unwrap();
        assert_eq!((n.network.as_str(), n.era), (network, 0));
    }
}

#[test]
fn damaged_files_give_errors() {
    let Some(p) = crate::testdata::file("era/sepolia-00000-d8ea171f.era") else {
        return;
    };
    let orig = std::fs::read(&p).unwrap();
    let d = tempfile::tempdir().unwrap();
    let q = d.path().join("sepolia-00000-d8ea171f.era");
    for cut in [0usize, 7, 100, orig.len() - 1] {
        std::fs::write(&q, &orig[..cut]).unwrap();
        assert!(EraFile::open(&q).is_err(), "truncated at {cut}");
    }
    let mut bad = orig.clone();
    let n = bad.len();
    bad[n - 16..n - 8].copy_from_slice(&(1i64 << 40).to_le_bytes());
    std::fs::write(&q, &bad).unwrap();
    let e = EraFile::open(&q).unwrap_err().to_string();
    assert!(e.contains("outside") && e.contains("sepolia-00000"), "{e}");
}
