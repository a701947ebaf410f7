//! The state of era N is linked to era N + 1 (issue 14, item 10): when the first slot of era N + 1 is empty,
//! era N + 1's `state_roots` holds the root of era N's state. That makes every field of era N's state count,
//! including those no check of its own file reads (balances, say).

use eraflow::consensus::{BeaconState, Fork};
use eraflow::formats::era::{EraFile, EraWriter};
use eraflow::formats::snappy::FramedDecoder;
use eraflow::formats::ArchiveName;
use eraflow::formats::MappedArchive;
use eraflow::network::Network;
use eraflow::synth::era::{write, EraSynthOptions};
use eraflow::verify::verify_archives as verify_files;
use eraflow::verify::VerifyOptions;
use std::path::PathBuf;

#[test]
fn a_changed_field_of_an_era_state_breaks_the_link_to_the_next_era() {
    let d = tempfile::tempdir().unwrap();
    let mut o = EraSynthOptions::new(Network::by_name("synthnet").unwrap());
    o.era = 0;
    o.files = 2;
    o.blocks = 8;
    o.validators = 16;
    let paths = write(&d.path().join("in"), &o).unwrap();
    let reports = verify_files(&paths, &VerifyOptions::default());
    for r in &reports {
        assert!(r.ok, "{}: {:#?}", r.file, r.errors);
    }

    // Era 0 again, with one validator's balance changed: a field no check of era 0's own file reads.
    let f = EraFile::open(&paths[0]).unwrap();
    let mut state = FramedDecoder::new()
        .decompress(f.state_record().unwrap().data)
        .unwrap()
        .to_vec();
    let at = {
        let view =
            BeaconState::new(&state, eraflow::consensus::Spec::mainnet(Fork::Phase0)).unwrap();
        let balances = view.field("balances").unwrap();
        assert!(!balances.is_empty());
        balances.as_ptr() as usize - state.as_ptr() as usize
    };
    state[at] ^= 1;
    let name = ArchiveName::of_path(&paths[0]).unwrap();
    let dir = d.path().join("tampered");
    std::fs::create_dir_all(&dir).unwrap();
    let tampered = EraWriter::create(&dir, "synthnet", 0)
        .unwrap()
        .finish(&state, &name.short_root)
        .unwrap();
    let alone = verify_files(std::slice::from_ref(&tampered), &VerifyOptions::default());
    assert!(alone[0].ok, "{:#?}", alone[0].errors);

    let pair: Vec<PathBuf> = vec![tampered, paths[1].clone()];
    let reports = verify_files(&pair, &VerifyOptions::default());
    assert!(reports[0].ok, "{:#?}", reports[0].errors);
    assert!(!reports[1].ok);
    assert!(
        reports[1]
            .errors
            .iter()
            .any(|e| e.to_string().contains("state_roots entry of slot 0")),
        "{:#?}",
        reports[1].errors
    );
}
