//! The prune path needs transaction hashes only: it must never initialise the signature algorithm. Its own
//! test binary, so no other test in the process can initialise it first.

#[path = "it/skip.rs"]
mod skip;
#[path = "it/testdata.rs"]
mod testdata;

use eraflow::crypto::signer::{self, SignerError};
use eraflow::network::Network;
use eraflow::prune::{run, PruneOptions};
use eraflow::synth::era1::{write, SynthOptions};

#[test]
fn prune_never_initialises_the_signer() {
    assert_eq!(signer::initialisations(), 0);
    let d = tempfile::tempdir().unwrap();
    let mut o = SynthOptions::new(Network::by_name("synthnet").unwrap());
    o.blocks = 300;
    o.txs_per_block = 4;
    let mut files = write(&d.path().join("in"), &o).unwrap();
    let s = run(&files, &d.path().join("m"), &PruneOptions::default()).unwrap();
    assert_eq!(s.manifest.totals.transactions, 1200);
    // Real transactions too, when the data is present.
    if let Some(p) = testdata::file("era1/sepolia-00021-b8814b14.era1") {
        files = vec![p];
        let s = run(&files, &d.path().join("r"), &PruneOptions::default()).unwrap();
        assert_eq!(s.manifest.totals.transactions, 93);
    }
    assert_eq!(signer::initialisations(), 0);
    assert_eq!(signer::global().unwrap_err(), SignerError::NotInitialised);
}
