//! The token datasets (`erc20_transfers`, `erc721_transfers`, `erc1155_transfers`, `erc20_approvals`,
//! `approvals_for_all`) and `contracts` against an independent decoder: `tests/python/check_tokens.py` decodes
//! every log of the same export's `logs` with eth-abi (and derives creation addresses with its own keccak and RLP)
//! and must find every row and every look-alike count. On synthetic era1 and ere files full of token events and
//! malformed look-alikes (`synth --tokens`), and on real mainnet receipts (Portal block data).
//!
//! Needs `python3` with polars, eth-abi and pycryptodome (`.ci/run` installs them and sets
//! ERAFLOW_REQUIRE_ETH_ABI=1, which turns their absence from a loud skip into a failure).

use crate::testdata;
use crate::util::Rows;
use eraflow::datasets::{self, Dataset, ExportContext};
use eraflow::export::progress::{FileOutcome, Progress};
use eraflow::export::{export, ExportError, ExportOptions};
use eraflow::network::Network;
use eraflow::verify::VerifyOptions;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;

pub(crate) const TOKENS: &[&str] = &[
    "erc20_transfers",
    "erc721_transfers",
    "erc1155_transfers",
    "erc20_approvals",
    "approvals_for_all",
];

fn oracle_available() -> bool {
    crate::skip::python_has(
        "polars, eth_abi, Crypto.Hash.keccak",
        "polars eth-abi pycryptodome",
        "ERAFLOW_REQUIRE_ETH_ABI",
        "token datasets against eth-abi",
    )
}

/// Runs the oracle over `out` and returns its output (asserting it succeeded).
fn check(out: &Path, lookalikes: &BTreeMap<String, u64>, contracts: bool) -> String {
    let expected = serde_json::json!({ "lookalikes": lookalikes, "contracts": contracts });
    let out = out.to_str().expect("a UTF-8 temporary path");
    crate::util::python_ok("check_tokens.py", &[out, &expected.to_string()])
}

fn picked() -> Vec<&'static dyn Dataset> {
    let mut names = vec!["blocks", "transactions", "logs", "contracts"];
    names.extend(TOKENS);
    datasets::by_names(&names).unwrap()
}

fn lookalikes(outcomes: &[FileOutcome]) -> BTreeMap<String, u64> {
    let mut sum = BTreeMap::new();
    for (d, n) in outcomes.iter().flat_map(|o| &o.skipped_lookalikes) {
        *sum.entry(d.clone()).or_insert(0) += n;
    }
    sum
}

#[test]
fn token_datasets_equal_eth_abi_on_synthetic_era1_and_ere() {
    if !oracle_available() {
        return;
    }
    let src = tempfile::tempdir().unwrap();
    // Both sides of Byzantium (block 2048 on synthnet): creations judged by gas, then by status.
    let (era1, ere) = crate::util::token_archives(src.path(), 2600, 600);
    for (kind, inputs) in [("era1", era1), ("ere", ere)] {
        let out = tempfile::tempdir().unwrap();
        let opts = ExportOptions {
            senders: true,
            ..ExportOptions::new(out.path().to_path_buf(), picked())
        };
        let outcomes = export(&inputs, &opts, &Progress::hidden()).unwrap();
        assert!(outcomes.iter().all(|o| o.ok), "{outcomes:?}");
        let found = lookalikes(&outcomes);
        for d in TOKENS.iter().chain(&["contracts"]) {
            let rows: u64 = outcomes.iter().filter_map(|o| o.rows.get(*d)).sum();
            assert!(rows > 0, "{kind}: no {d} rows");
            if *d != "contracts" {
                assert!(
                    found.get(*d).is_some_and(|n| *n > 0),
                    "{kind}: no {d} look-alikes: {found:?}"
                );
            }
        }
        let text = check(out.path(), &found, true);
        assert_eq!(text.matches("ok: ").count(), 6, "{kind}: {text}");
        eprintln!("{kind}:\n{text}");
    }
}

#[test]
fn contracts_without_senders_is_a_usage_error() {
    let out = tempfile::tempdir().unwrap();
    let opts = ExportOptions::new(out.path().to_path_buf(), picked());
    let err = export(&[], &opts, &Progress::hidden()).unwrap_err();
    assert!(
        matches!(err, ExportError::NeedsSenders("contracts")),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "dataset contracts needs senders (its deployer is the recovered sender): drop --no-senders \
         (senders = false) or the dataset"
    );
}

/// Real mainnet receipts (Portal block data: header, body, slim receipts), each block written as a one-block ere
/// file with the project's writer and read back through verification: their token events, and real contracts'
/// events decoded from their signatures (`--decode`: ERC-20, WETH, Uniswap v2 and v3, ERC-1155, Seaport's arrays
/// of tuples), decode as eth-abi decodes them.
#[test]
fn token_and_decoded_datasets_equal_eth_abi_on_real_mainnet_receipts() {
    let Some(dir) = testdata::dir("portal block data (real token transfers)") else {
        return;
    };
    if !oracle_available() {
        return;
    }
    let mainnet = Network::by_name("mainnet").unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let mut names = vec!["blocks", "logs"];
    names.extend(TOKENS);
    let specs: BTreeMap<String, String> = serde_json::from_str(&crate::util::python_ok(
        "decode_events.py",
        &["specs", "real"],
    ))
    .unwrap();
    let specs: Vec<String> = specs.into_values().collect();
    let mut picked = datasets::by_names(&names).unwrap();
    picked.extend(datasets::decoded::from_specs(&specs).unwrap());
    let rows = Rows {
        datasets: picked,
        ctx: ExportContext {
            chain_id: mainnet.chain_id,
            signer: None,
        },
    };
    let opts = VerifyOptions {
        network: Some(mainnet.clone()),
        ..Default::default()
    };
    let mut files = 0;
    let mut lookalikes = BTreeMap::<String, u64>::new();
    let mut rows_of = BTreeMap::<String, usize>::new();
    for (number, path) in crate::util::portal_block_files(&dir, tmp.path()) {
        let chunks = Mutex::new(Vec::new());
        let report =
            eraflow::verify::file_with(&path, &opts, &rows, |c| chunks.lock().unwrap().push(c));
        // A lone block does not start its era: that, and only that, is what a one-block file gets wrong.
        assert_eq!(report.errors.len(), 1, "{number}: {:?}", report.errors);
        for builders in chunks.into_inner().unwrap() {
            for (d, b) in rows.datasets.iter().zip(builders) {
                *lookalikes.entry(d.name().to_string()).or_insert(0) += b.lookalikes();
                let batch = b.finish();
                *rows_of.entry(d.name().to_string()).or_insert(0) += batch.num_rows();
                crate::util::write_rows(&out, d.name(), number, &batch);
            }
        }
        files += 1;
    }
    assert!(files >= 10, "{files} blocks");
    // Real blocks of 2022-2025 hold hundreds of ERC-20 transfers.
    assert!(rows_of["erc20_transfers"] > 100, "{rows_of:?}");
    // And the most common events of real contracts, in every block.
    for d in [
        "event_Transfer",
        "event_Approval",
        "event_Deposit",
        "event_Withdrawal",
        "event_Sync",
        "v2_swaps",
        "v3_swaps",
        "event_OrderFulfilled",
    ] {
        assert!(rows_of[d] > 0, "no {d} rows: {rows_of:?}");
    }
    lookalikes.retain(|_, n| *n > 0);
    let text = check(&out, &lookalikes, false);
    assert_eq!(text.matches("ok: ").count(), 5, "{text}");
    let expected = serde_json::json!({ "lookalikes": lookalikes, "chain_id": mainnet.chain_id });
    let decoded = crate::util::python_ok(
        "decode_events.py",
        &[
            "archive",
            out.to_str().unwrap(),
            &expected.to_string(),
            "real",
        ],
    );
    assert_eq!(decoded.matches("ok: ").count(), specs.len(), "{decoded}");
    eprintln!("{rows_of:?} look-alikes {lookalikes:?}\n{text}\n{decoded}");
}

/// `eraflow synth --tokens`, as the quickstart and docs/performance.md run it: the command writes the library's
/// token archive byte for byte (and not the plain one), and its export has token rows.
#[test]
fn the_synth_tokens_command_writes_the_token_archive() {
    let dir = tempfile::tempdir().unwrap();
    let made = |tokens: bool| {
        let out = dir.path().join(format!("cli-{tokens}"));
        let mut cmd = crate::util::eraflow();
        cmd.args(["synth", "--kind", "era1", "--network", "synthnet"])
            .args(["--blocks", "64", "--txs-per-block", "2", "--out"])
            .arg(&out);
        if tokens {
            cmd.arg("--tokens");
        }
        let (code, _, err) = crate::util::run(&mut cmd);
        assert_eq!(code, Some(0), "{err}");
        let files = crate::util::files_in(&out);
        assert_eq!(files.len(), 1, "{files:?}");
        std::fs::read(&files[0]).unwrap()
    };
    let (with, without) = (made(true), made(false));
    let mut o = eraflow::synth::era1::SynthOptions::new(Network::by_name("synthnet").unwrap());
    (o.blocks, o.txs_per_block, o.tokens) = (64, 2, true);
    let lib = eraflow::synth::era1::write(&dir.path().join("lib"), &o).unwrap();
    assert_eq!(with, std::fs::read(&lib[0]).unwrap());
    assert_ne!(with, without);
    let out = dir.path().join("out");
    let (code, _, err) = crate::util::run(
        crate::util::eraflow()
            .args(["export", "--datasets", "erc20_transfers", "--out"])
            .arg(&out)
            .arg(&lib[0]),
    );
    assert_eq!(code, Some(0), "{err}");
    let rows: usize = crate::util::files_in(&out.join("erc20_transfers"))
        .iter()
        .map(|f| crate::util::read_parquet(f).num_rows())
        .sum();
    assert!(rows > 0, "no ERC-20 transfers in a synth --tokens archive");
}
