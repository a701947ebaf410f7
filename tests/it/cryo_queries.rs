//! cryo's queries port as they are: `tests/python/cryo_queries.py` runs cryo-style SQL (cryo's column names and
//! types only) in DuckDB over an export of a synthetic era1 file crossing Byzantium and London (legacy, 2930 and
//! 1559 transactions, receipts with and without status, base fees) and, when the test data is there, a real
//! sepolia era1 file, and checks every answer against the same question answered in
//! Python from the raw columns. Needs `python3` with `duckdb` and `pyarrow` (skipped loudly without them, a
//! failure under ERAFLOW_REQUIRE_PY_READERS).

use crate::util::export_opts;
use eraflow::export::export;
use eraflow::export::progress::Progress;
use eraflow::network::Network;

#[test]
fn cryo_queries_give_the_independent_answers() {
    if !crate::skip::python_has(
        "duckdb, pyarrow",
        "duckdb pyarrow",
        "ERAFLOW_REQUIRE_PY_READERS",
        "cryo queries in DuckDB",
    ) {
        return;
    }
    let src = tempfile::tempdir().unwrap();
    let mut o = eraflow::synth::era1::SynthOptions::new(Network::by_name("synthnet").unwrap());
    // Byzantium at 2048, London at 4096 on synthnet: every fee shape and both receipt kinds.
    o.blocks = 6000;
    o.txs_per_block = 2;
    let mut inputs = eraflow::synth::era1::write(src.path(), &o).unwrap();
    let real = crate::testdata::file("era1/sepolia-00021-b8814b14.era1");
    inputs.extend(real);
    let out = tempfile::tempdir().unwrap();
    let opts = export_opts(out.path(), true);
    let outcomes = export(&inputs, &opts, &Progress::hidden()).unwrap();
    assert!(outcomes.iter().all(|o| o.ok), "{outcomes:?}");
    let out_dir = out.path().to_str().expect("a UTF-8 temporary path");
    let text = crate::util::python_ok("cryo_queries.py", &[out_dir]);
    assert!(text.contains("ok: cryo queries"), "{text}");
    // Seven queries and the closing line. The ERC-20 query finds no Transfer logs in these inputs (synthetic
    // topics are random; sepolia era 21 has none) and says so with `skip:`; it runs once the token datasets'
    // synthetic token events exist.
    assert_eq!(text.matches("ok: ").count(), 8, "{text}");
}
