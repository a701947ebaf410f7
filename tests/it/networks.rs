//! The six public network presets (#21 item 3): their published facts as loaded, and synthetic archives of each
//! that verify and export: era files of every fork an era lies wholly in (gnosis and chiado with 16-slot
//! epochs, 5-second slots and the gnosis preset's containers), and era1 files of the networks with pre-merge
//! history (gnosis and chiado AuRa-sealed).

use crate::util::{export_opts, read_parquet};
use arrow_array::cast::AsArray;
use arrow_array::types::UInt64Type;
use arrow_array::Array;
use eraflow::consensus::{Fork, Preset, ALL_FORKS};
use eraflow::export::export;
use eraflow::export::progress::Progress;
use eraflow::network::{Network, PreMergeSeal};
use eraflow::synth::era::{write, EraSynthOptions};
use eraflow::synth::era1::{self, SynthOptions};
use eraflow::verify::VerifyOptions;

const NETWORKS: [&str; 6] = ["mainnet", "sepolia", "holesky", "hoodi", "gnosis", "chiado"];

#[test]
fn presets_hold_their_published_facts() {
    let n = |name| Network::by_name(name).unwrap();
    let (g, c, h, o) = (n("gnosis"), n("chiado"), n("holesky"), n("hoodi"));
    assert_eq!(
        (g.chain_id, c.chain_id, h.chain_id, o.chain_id),
        (100, 10200, 17000, 560048)
    );
    for (net, preset, seconds, epoch) in [
        (&g, Preset::Gnosis, 5, 16),
        (&c, Preset::Gnosis, 5, 16),
        (&h, Preset::Mainnet, 12, 32),
        (&o, Preset::Mainnet, 12, 32),
        (&n("mainnet"), Preset::Mainnet, 12, 32),
        (&n("sepolia"), Preset::Mainnet, 12, 32),
    ] {
        assert_eq!(net.preset(), preset, "{}", net.name);
        assert_eq!(net.seconds_per_slot(), seconds, "{}", net.name);
        assert_eq!(net.slots_per_epoch(), epoch, "{}", net.name);
        assert_eq!(
            net.preset().max_withdrawals_per_payload(),
            if preset == Preset::Gnosis { 8 } else { 16 }
        );
    }
    assert_eq!(g.pre_merge_seal, PreMergeSeal::Aura);
    assert_eq!(c.pre_merge_seal, PreMergeSeal::Aura);
    assert_eq!(h.pre_merge_seal, PreMergeSeal::Ethash);
    // Fork epochs as the configs give them; execution fork times are the same instants, so each consensus fork
    // starts at its execution fork's time: genesis_time + epoch * SLOTS_PER_EPOCH * SECONDS_PER_SLOT.
    for (net, genesis_time) in [
        (&g, 1_638_993_340u64),
        (&c, 1_665_396_300),
        (&h, 1_695_902_400),
        (&o, 1_742_213_400),
    ] {
        let at = |f: Fork| genesis_time + f.activation_slot(net).unwrap() * net.seconds_per_slot();
        for (fork, time) in [
            (Fork::Capella, net.forks.shanghai_time),
            (Fork::Deneb, net.forks.cancun_time),
            (Fork::Electra, net.forks.prague_time),
        ] {
            // A fork at epoch 0 is active from genesis (its execution time is 0 or the genesis time).
            if fork.activation_epoch(net) > 0 {
                assert_eq!(time, Some(at(fork)), "{} {fork}", net.name);
            }
        }
    }
}

#[test]
fn every_network_synthesizes_era_files_that_verify_and_export() {
    for name in NETWORKS {
        let net = Network::by_name(name).unwrap();
        let forks: Vec<Fork> = ALL_FORKS
            .into_iter()
            .filter(|f| EraSynthOptions::era_of_fork(&net, *f).is_ok())
            .collect();
        assert!(forks.len() >= 3, "{name}: only {forks:?} have whole eras");
        let last = *forks.last().unwrap();
        for fork in forks {
            let dir = tempfile::tempdir().unwrap();
            let mut o = EraSynthOptions::new(net.clone());
            o.era = EraSynthOptions::era_of_fork(&net, fork).unwrap();
            (o.blocks, o.validators, o.txs_per_block) = (3, 24, 2);
            let path = write(dir.path(), &o).unwrap().remove(0);
            let report = eraflow::verify::file(&path, &VerifyOptions::default());
            assert!(report.ok, "{name} {fork}: {:?}", report.errors);
            let beacon = report.beacon.as_ref().unwrap();
            assert_eq!(beacon.state_fork, fork.name(), "{name}");
            if fork != last {
                continue;
            }
            // The newest fork: every consensus dataset of it has rows.
            let out = tempfile::tempdir().unwrap();
            let outcome = export(
                std::slice::from_ref(&path),
                &export_opts(out.path(), false),
                &Progress::hidden(),
            )
            .unwrap();
            assert!(outcome[0].ok, "{name}: {:?}", outcome[0].errors);
            for d in [
                "beacon_blocks",
                "attestations",
                "sync_aggregates",
                "validators",
            ] {
                assert!(
                    outcome[0].rows.get(d).is_some_and(|&n| n > 0),
                    "{name}: {d}"
                );
            }
            // Payload timestamps follow the network's slot length (verification checked them too).
            let blocks = outcome[0]
                .outputs
                .iter()
                .find(|p| p.starts_with("blocks/"))
                .unwrap();
            let b = read_parquet(&out.path().join(blocks));
            let ts = b
                .column_by_name("timestamp")
                .unwrap()
                .as_primitive::<UInt64Type>();
            let bb = outcome[0]
                .outputs
                .iter()
                .find(|p| p.starts_with("beacon_blocks/"))
                .unwrap();
            let slots = read_parquet(&out.path().join(bb));
            let slot = slots
                .column_by_name("slot")
                .unwrap()
                .as_primitive::<UInt64Type>();
            assert_eq!(
                ts.value(1) - ts.value(0),
                (slot.value(1) - slot.value(0)) * net.seconds_per_slot(),
                "{name}"
            );
        }
    }
}

#[test]
fn pre_merge_networks_synthesize_era1_files_sealed_their_way() {
    // Mainnet's own pre-merge history is pinned by the EIP-7643 accumulator, so a synthetic mainnet era1 file is
    // refused as not canonical (tests/it/canonical_verify.rs); the real ones are verified in era1_real.
    for name in ["sepolia", "gnosis", "chiado"] {
        let net = Network::by_name(name).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let mut o = SynthOptions::new(net.clone());
        // Era 1: a synthetic block 0 would not be the network's genesis.
        (o.era, o.blocks, o.txs_per_block) = (1, 40, 2);
        let path = era1::write(dir.path(), &o).unwrap().remove(0);
        let report = eraflow::verify::file(&path, &VerifyOptions::default());
        assert!(report.ok, "{name}: {:?}", report.errors);
        let out = tempfile::tempdir().unwrap();
        let outcome = export(
            std::slice::from_ref(&path),
            &export_opts(out.path(), false),
            &Progress::hidden(),
        )
        .unwrap();
        assert!(outcome[0].ok, "{name}: {:?}", outcome[0].errors);
        let blocks = outcome[0]
            .outputs
            .iter()
            .find(|p| p.starts_with("blocks/"))
            .unwrap();
        let b = read_parquet(&out.path().join(blocks));
        let aura = net.pre_merge_seal == PreMergeSeal::Aura;
        let step = b.column_by_name("aura_step").unwrap();
        let seal = b.column_by_name("aura_seal").unwrap();
        let mix = b.column_by_name("mix_hash").unwrap();
        let rows = b.num_rows();
        assert_eq!(step.null_count(), if aura { 0 } else { rows }, "{name}");
        assert_eq!(seal.null_count(), if aura { 0 } else { rows }, "{name}");
        assert_eq!(mix.null_count(), if aura { rows } else { 0 }, "{name}");
        if aura {
            assert!(seal
                .as_binary::<i32>()
                .iter()
                .all(|s| s.unwrap().len() == 65));
            // The same file read as an ethash network is refused: its seal is not what that network seals with.
            let mut ethash = net.clone();
            ethash.pre_merge_seal = PreMergeSeal::Ethash;
            let opts = VerifyOptions {
                network: Some(ethash),
                ..Default::default()
            };
            let r = eraflow::verify::file(&path, &opts);
            assert!(!r.ok);
            assert!(
                r.errors
                    .iter()
                    .any(|e| e.to_string().contains("header seal")),
                "{:?}",
                r.errors
            );
        }
    }
}
