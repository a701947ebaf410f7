//! Every dataset loads in DuckDB and Polars (Python) with the right counts, values and uint256 triples, from
//! era1 and era sources in one output directory.
//! Needs `python3` with `duckdb` and `polars` (`.ci/run` installs them and sets ERAFLOW_REQUIRE_PY_READERS=1,
//! which turns their absence from a loud skip into a failure).

use crate::util::export_opts;
use eraflow::export::export;
use eraflow::export::progress::Progress;
use eraflow::network::Network;
use std::process::Command;

fn readers_available() -> bool {
    crate::skip::python_has(
        "duckdb, polars",
        "duckdb polars",
        "ERAFLOW_REQUIRE_PY_READERS",
        "analyst reader checks (DuckDB, Polars)",
    )
}

#[test]
fn datasets_load_in_duckdb_and_polars() {
    if !readers_available() {
        return;
    }
    let src = tempfile::tempdir().unwrap();
    let mut o = eraflow::synth::era1::SynthOptions::new(Network::by_name("synthnet").unwrap());
    o.blocks = 3000;
    o.txs_per_block = 2;
    // Receipts full of token events, for the quickstart's token questions.
    o.tokens = true;
    let mut inputs = eraflow::synth::era1::write(src.path(), &o).unwrap();
    // An electra era file: post-merge rows in the same blocks/transactions tables, plus withdrawals,
    // beacon_blocks, every block operation (blobs and deposit requests too) and the validator registry.
    let net = Network::by_name("synthnet").unwrap();
    let mut e = eraflow::synth::era::EraSynthOptions::new(net.clone());
    e.era =
        eraflow::synth::era::EraSynthOptions::era_of_fork(&net, eraflow::consensus::Fork::Electra)
            .unwrap();
    e.blocks = 20;
    e.validators = 64;
    e.txs_per_block = 3;
    inputs.extend(eraflow::synth::era::write(&src.path().join("era"), &e).unwrap());
    let real = crate::testdata::file("era1/sepolia-00021-b8814b14.era1");
    inputs.extend(real.clone());
    let out = tempfile::tempdir().unwrap();
    let opts = export_opts(out.path(), true);
    let outcomes = export(&inputs, &opts, &Progress::hidden()).unwrap();
    assert!(outcomes.iter().all(|o| o.ok), "{outcomes:?}");
    let total = |ds: &str| {
        outcomes
            .iter()
            .map(|o| o.rows.get(ds).copied().unwrap_or(0))
            .sum::<u64>()
    };
    let mut values = vec![
        serde_json::json!({
            "dataset": "transactions",
            "sql": "SELECT count(*) FROM '{out}/transactions/*/*.parquet' WHERE block_number < 2048 AND success IS NULL",
            "polars": "SELECT count(*) FROM t WHERE block_number < 2048 AND success IS NULL",
            "expect": [[4096]],
        }),
        serde_json::json!({
            "dataset": "blocks",
            "sql": "SELECT count(*) FROM '{out}/blocks/*/*.parquet' WHERE total_difficulty_string IS NULL AND withdrawals_root IS NOT NULL",
            "polars": "SELECT count(*) FROM t WHERE total_difficulty_string IS NULL AND withdrawals_root IS NOT NULL",
            "expect": [[20]],
        }),
        serde_json::json!({
            "dataset": "beacon_blocks",
            "sql": "SELECT count(*) FROM '{out}/beacon_blocks/*/*.parquet' WHERE execution_block_hash IS NOT NULL AND fork = 'electra'",
            "polars": "SELECT count(*) FROM t WHERE execution_block_hash IS NOT NULL AND fork = 'electra'",
            "expect": [[20]],
        }),
    ];
    if real.is_some() {
        values.push(serde_json::json!({
            "dataset": "transactions",
            "sql": "SELECT value_string, hex(from_address), cumulative_gas_used FROM '{out}/transactions/*/*.parquet' WHERE hex(transaction_hash) = '1E7DBEF1D524D7FC09B2CFFE011EF7B7196B9308E2C392C0BC97D8D3EDC16CC6'",
            "polars_where_hex": ["transaction_hash", "1e7dbef1d524d7fc09b2cffe011ef7b7196b9308e2c392c0bc97d8d3edc16cc6"],
            "polars_select": ["value_string", "from_address", "cumulative_gas_used"],
            "expect": [["1048575", "EA1B261FB7EC1C4F2BEEA2476F17017537B4B507", 21000]],
        }));
    }
    let expected = serde_json::json!({
        "rows": {
            "blocks": total("blocks"),
            "transactions": total("transactions"),
            "logs": total("logs"),
            "uncles": total("uncles"),
            "withdrawals": total("withdrawals"),
            "beacon_blocks": total("beacon_blocks"),
        },
        "values": values,
        "networks": if real.is_some() { vec!["sepolia", "synthnet"] } else { vec!["synthnet"] },
    });
    let out_dir = out.path().to_str().unwrap();
    let text = crate::util::python_ok("check_datasets.py", &[out_dir, &expected.to_string()]);
    assert!(text.contains("ok: DuckDB"), "{text}");
    // The README's quickstart questions, in both readers, over the same output.
    let text = crate::util::python_ok("quickstart.py", &["check", out_dir, out_dir]);
    assert_eq!(text.matches("ok: ").count(), 12, "{text}");
}

/// The analyst quickstart (docs/analyst.md) is generated from `tests/python/quickstart.py`, whose queries
/// `datasets_load_in_duckdb_and_polars` runs in both readers: the page shows exactly what was tested.
#[test]
fn readme_quickstart_is_the_tested_one() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/quickstart.py");
    let Ok(run) = Command::new("python3").arg(script).arg("markdown").output() else {
        crate::skip::skip("the README quickstart check", "no python3");
        return;
    };
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let section = String::from_utf8(run.stdout).unwrap();
    let page =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/analyst.md")).unwrap();
    assert!(
        page.contains(section.trim_end()),
        "docs/analyst.md's quickstart differs from `python3 tests/python/quickstart.py markdown`; paste its output"
    );
}
