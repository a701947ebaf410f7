//! `eraflow report`: the per-day and per-era sums against DuckDB on the same Parquet files, pages of an empty
//! output, of an output with only failed runs and of one network with one dataset (a note where a chart has no
//! data, never an empty chart), the run reports read back, and `report = true` in a pipeline.
//!
//! The DuckDB comparison needs `python3` with `duckdb` (`.ci/run` installs it and sets
//! ERAFLOW_REQUIRE_PY_READERS=1, which turns its absence from a loud skip into a failure).

use crate::util::{eraflow, export_opts};
use arrow_array::{RecordBatch, UInt64Array};
use arrow_schema::{DataType, Field, Schema};
use eraflow::export::export;
use eraflow::export::progress::{FileOutcome, OutcomeError, Progress};
use eraflow::network::Network;
use eraflow::pipeline::report::{RunReport, StageReport};
use eraflow::report::{self, aggregate, source::Output, ReportOptions};
use eraflow::sink::manifest::{CompletionRecord, OutputEntry};
use eraflow::store::output::OutputStore;
use eraflow::store::url::Location;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

pub(crate) fn duckdb_available() -> bool {
    crate::skip::python_has(
        "duckdb",
        "duckdb",
        "ERAFLOW_REQUIRE_PY_READERS",
        "report aggregates against DuckDB",
    )
}

/// An output of two pre-merge era1 files (with token events) and a Deneb era file (blobs, withdrawals) of synthnet, in row groups
/// small enough that some lie inside one day and some span two.
fn mixed_output(out: &Path) {
    let src = tempfile::tempdir().unwrap();
    let net = Network::by_name("synthnet").unwrap();
    let mut o = eraflow::synth::era1::SynthOptions::new(net.clone());
    o.blocks = 8192;
    o.txs_per_block = 2;
    o.files = 2;
    // Receipts full of token events (and look-alikes): the token transfers chart.
    o.tokens = true;
    let mut inputs = eraflow::synth::era1::write(src.path(), &o).unwrap();
    let mut e = eraflow::synth::era::EraSynthOptions::new(net.clone());
    e.era =
        eraflow::synth::era::EraSynthOptions::era_of_fork(&net, eraflow::consensus::Fork::Deneb)
            .unwrap();
    e.blocks = 40;
    e.validators = 64;
    e.txs_per_block = 5;
    inputs.extend(eraflow::synth::era::write(&src.path().join("era"), &e).unwrap());
    let mut opts = export_opts(out, false);
    opts.parquet.row_group_size = 1000;
    let outcomes = export(&inputs, &opts, &Progress::hidden()).unwrap();
    assert!(outcomes.iter().all(|o| o.ok), "{outcomes:?}");
}

/// A `validators` file (the consensus dataset: `era`, `effective_balance`) of two eras, recorded complete.
fn add_validators(out: &Path) {
    let rel = "validators/network=synthnet/synthnet__validators__era_00001__slots_00000000_to_00008191.parquet";
    let p = out.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    let schema = Arc::new(Schema::new(vec![
        Field::new("era", DataType::UInt64, false),
        Field::new("validator_index", DataType::UInt64, false),
        Field::new("effective_balance", DataType::UInt64, false),
    ]));
    let n = 300u64;
    let era: Vec<u64> = (0..n).map(|i| 1 + u64::from(i >= 100)).collect();
    let bal: Vec<u64> = (0..n)
        .map(|i| 32_000_000_000 - (i % 7) * 1_000_000_000)
        .collect();
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(UInt64Array::from(era)),
            Arc::new(UInt64Array::from((0..n).collect::<Vec<_>>())),
            Arc::new(UInt64Array::from(bal)),
        ],
    )
    .unwrap();
    let f = std::fs::File::create(&p).unwrap();
    let props = parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_row_count(Some(128))
        .build();
    let mut w = parquet::arrow::ArrowWriter::try_new(f, schema, Some(props)).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    let bytes = std::fs::read(&p).unwrap();
    let d = OutputStore::local(out);
    d.write_record(&CompletionRecord {
        source: "synthnet-00001-00000000.era".into(),
        dataset: "validators".into(),
        sha256: "00".into(),
        options: String::new(),
        schema_version: eraflow::datasets::SCHEMA_VERSION,
        network: "synthnet".into(),
        kind: "era".into(),
        first_block: 0,
        last_block: 0,
        slots: Some((0, 8191)),
        state_root: None,
        accumulator_root: String::new(),
        output: Some(OutputEntry {
            dataset: "validators".into(),
            path: rel.into(),
            rows: n,
            bytes: bytes.len() as u64,
            sha256: hex::encode(eraflow::crypto::sha256::sha256(&bytes)),
            mtime_ns: None,
            etag: None,
        }),
        canonical: None,
        canonical_by: Default::default(),
    })
    .unwrap();
    d.rebuild_manifest().unwrap();
}

/// Rows of `[network, key, values...]` as strings, sorted.
type Rows = Vec<Vec<String>>;

/// The same sums by DuckDB, over every Parquet file of each dataset folder.
fn duckdb_sums(out: &Path) -> (Rows, Rows, Rows, Rows, Rows) {
    let script = r#"
import duckdb, json, sys
out = sys.argv[1]
def q(sql):
    return [[str(v) for v in r] for r in duckdb.sql(sql.replace('{out}', out)).fetchall()]
tx = q("""SELECT network, timestamp // 86400 AS day, count(*),
    count(*) FILTER (transaction_type = 0), count(*) FILTER (transaction_type = 1),
    count(*) FILTER (transaction_type = 2), count(*) FILTER (transaction_type = 3),
    count(*) FILTER (transaction_type = 4), count(*) FILTER (transaction_type > 4)
    FROM read_parquet('{out}/transactions/*/*.parquet', hive_partitioning = true) GROUP BY ALL ORDER BY ALL""")
bl = q("""SELECT network, timestamp // 86400 AS day, count(*), sum(gas_used)::VARCHAR,
    coalesce(sum(blob_gas_used), 0)::VARCHAR
    FROM read_parquet('{out}/blocks/*/*.parquet', hive_partitioning = true) GROUP BY ALL ORDER BY ALL""")
wd = q("""SELECT network, timestamp // 86400 AS day, count(*), sum(amount_gwei)::VARCHAR
    FROM read_parquet('{out}/withdrawals/*/*.parquet', hive_partitioning = true) GROUP BY ALL ORDER BY ALL""")
va = q("""SELECT network, era, count(*), sum(effective_balance)::VARCHAR
    FROM read_parquet('{out}/validators/*/*.parquet', hive_partitioning = true) GROUP BY ALL ORDER BY ALL""")
tok = q("""SELECT network, day, sum(erc20), sum(erc721), sum(erc1155) FROM (
    SELECT network, timestamp // 86400 AS day, 1 AS erc20, 0 AS erc721, 0 AS erc1155
        FROM read_parquet('{out}/erc20_transfers/*/*.parquet', hive_partitioning = true)
    UNION ALL SELECT network, timestamp // 86400, 0, 1, 0
        FROM read_parquet('{out}/erc721_transfers/*/*.parquet', hive_partitioning = true)
    UNION ALL SELECT network, timestamp // 86400, 0, 0, 1
        FROM read_parquet('{out}/erc1155_transfers/*/*.parquet', hive_partitioning = true))
    GROUP BY ALL ORDER BY ALL""")
print(json.dumps([tx, bl, wd, va, tok]))
"#;
    let o = Command::new("python3")
        .args(["-c", script])
        .arg(out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: (Rows, Rows, Rows, Rows, Rows) = serde_json::from_slice(&o.stdout).unwrap();
    v
}

fn sorted(mut v: Rows) -> Rows {
    v.sort();
    v
}

#[test]
fn per_day_and_per_era_sums_match_duckdb() {
    if !duckdb_available() {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    mixed_output(out.path());
    add_validators(out.path());
    let src = Output::open(&Location::Local(out.path().to_path_buf())).unwrap();
    let manifest = src.manifest().unwrap();
    let chain = aggregate::aggregate(&src, manifest.get()).unwrap();
    assert!(chain.unreadable.is_empty(), "{:?}", chain.unreadable);
    let (tx, bl, wd, va, tok) = duckdb_sums(out.path());
    let (mut mtx, mut mbl, mut mwd, mut mva, mut mtok) = (vec![], vec![], vec![], vec![], vec![]);
    for (net, s) in &chain.networks {
        for (day, d) in &s.days {
            let n = |x: u128| x.to_string();
            if d.transactions > 0 {
                let mut r = vec![net.clone(), day.to_string(), d.transactions.to_string()];
                r.extend(d.types.iter().map(|t| t.to_string()));
                mtx.push(r);
            }
            if d.blocks > 0 {
                mbl.push(vec![
                    net.clone(),
                    day.to_string(),
                    d.blocks.to_string(),
                    n(d.gas_used),
                    n(d.blob_gas_used),
                ]);
            }
            if d.token_transfers.iter().any(|&t| t > 0) {
                let mut r = vec![net.clone(), day.to_string()];
                r.extend(d.token_transfers.iter().map(|t| t.to_string()));
                mtok.push(r);
            }
            if d.withdrawals > 0 {
                mwd.push(vec![
                    net.clone(),
                    day.to_string(),
                    d.withdrawals.to_string(),
                    n(d.withdrawn_gwei),
                ]);
            }
        }
        for (era, e) in &s.eras {
            mva.push(vec![
                net.clone(),
                era.to_string(),
                e.validators.to_string(),
                e.effective_balance_gwei.to_string(),
            ]);
        }
    }
    // The fixture reaches what it should: several days, every pre-merge type and blobs, withdrawals, three eras.
    assert!(tx.len() >= 3, "{tx:?}");
    assert!(
        tx.iter().any(|r| r[6] != "0"),
        "no blob transactions: {tx:?}"
    );
    assert!(bl.iter().any(|r| r[4] != "0"), "no blob gas: {bl:?}");
    // Three eras of validators: the Deneb era file's own state (exported with every dataset) and the two of
    // `add_validators`' file.
    assert!(!wd.is_empty() && va.len() == 3, "{wd:?} {va:?}");
    assert_eq!(sorted(mtx), sorted(tx), "transactions per day and type");
    assert_eq!(sorted(mbl), sorted(bl), "blocks, gas and blob gas per day");
    assert_eq!(sorted(mwd), sorted(wd), "withdrawals per day");
    assert_eq!(sorted(mva), sorted(va), "validators per era");
    // Token transfers of every standard on several days, some row groups inside one day (counted from their
    // row counts) and some across two.
    assert!(
        tok.len() >= 3 && (2..5).all(|c| tok.iter().any(|r| r[c] != "0")),
        "{tok:?}"
    );
    assert_eq!(
        sorted(mtok),
        sorted(tok),
        "token transfers per day and standard"
    );
    // The dataset table's row groups are the files' own.
    let groups = chain.datasets[&("validators".to_string(), "synthnet".to_string())].row_groups;
    let footers: usize = crate::util::files_in(&out.path().join("validators"))
        .iter()
        .map(|f| {
            let r = std::fs::File::open(f).unwrap();
            parquet::file::reader::SerializedFileReader::new(r)
                .map(|r| {
                    use parquet::file::reader::FileReader;
                    r.metadata().num_row_groups()
                })
                .unwrap()
        })
        .sum();
    // `add_validators`' file holds 3, the exported state's 1.
    assert_eq!(groups as usize, footers);
    assert_eq!(footers, 4);
    // And the page draws every chart.
    let page = report::build(
        &Location::Local(out.path().to_path_buf()),
        &ReportOptions::default(),
    )
    .unwrap();
    assert_sensible(&page);
    assert!(!page.contains("No data"), "every chart has data here");
    assert_eq!(
        page.matches("<svg").count(),
        2 + 8,
        "two coverage strips, eight charts"
    );
}

/// Every figure holds a chart with drawn shapes and a title and description, or says "No data"; the page is
/// whole.
pub fn assert_sensible(page: &str) {
    assert!(page.starts_with("<!DOCTYPE html>") && page.trim_end().ends_with("</html>"));
    assert!(!page.contains("<script"), "no JavaScript");
    // Nothing to fetch: no sources, style sheets, imports or absolute links (the SVG namespace is a name only).
    let fetches = page.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
    for s in ["src=", "<link", "url(", "@import", "http://", "https://"] {
        assert!(!fetches.contains(s), "{s} in the page");
    }
    let figures: Vec<&str> = page
        .split("<figure")
        .skip(1)
        .map(|f| f.split("</figure>").next().unwrap())
        .collect();
    assert!(!figures.is_empty(), "no figure at all");
    for f in figures {
        if f.contains("No data") {
            assert!(!f.contains("<svg"), "a note and a chart: {f}");
            continue;
        }
        assert!(f.contains("<svg role=\"img\""), "no chart: {f}");
        assert!(f.contains("<title id=") && f.contains("<desc id="), "{f}");
        let drawn = ["<polyline", "<polygon", "<rect", "<circle"]
            .iter()
            .any(|s| f.contains(s));
        assert!(drawn, "nothing drawn: {f}");
        assert!(f.contains("<figcaption>"), "{f}");
    }
}

#[test]
fn an_empty_output_gets_a_page_of_notes() {
    let out = tempfile::tempdir().unwrap();
    let w = report::write(
        &Location::Local(out.path().to_path_buf()),
        None,
        &ReportOptions::default(),
    )
    .unwrap();
    let page = std::fs::read_to_string(out.path().join("_eraflow/report.html")).unwrap();
    assert_eq!(w.bytes, page.len() as u64);
    assert_sensible(&page);
    assert!(
        page.contains("nothing has been exported here yet"),
        "{page}"
    );
    assert!(page.contains("No run reports"), "{page}");
    assert!(!page.contains("<svg"));
    // A directory that does not exist is an error, not an empty page.
    let missing = out.path().join("nope");
    let e = report::build(&Location::Local(missing), &ReportOptions::default()).unwrap_err();
    assert!(e.to_string().contains("no such output directory"), "{e}");
}

/// A run report with one failed file (as `eraflow run` saves it).
fn failed_run(out: &Path, started: &str, file: &str) -> PathBuf {
    let bad = FileOutcome {
        file: file.into(),
        errors: vec![OutcomeError::UnknownNetwork(PathBuf::from(file))],
        ..Default::default()
    };
    let mut r = RunReport {
        name: "nightly".into(),
        started: started.into(),
        pid: 7,
        stages: vec![StageReport::new("export", 1.5, vec![bad])],
        ..Default::default()
    };
    r.finish(eraflow::pipeline::ExitStatus::DataErrors, out)
        .unwrap()
}

#[test]
fn only_failed_runs_show_their_failures() {
    let out = tempfile::tempdir().unwrap();
    failed_run(
        out.path(),
        "2026-12-01T10:00:00Z",
        "/data/synthnet-00003-00112233.era1",
    );
    failed_run(
        out.path(),
        "2026-12-01T11:00:00Z",
        "/data/synthnet-00003-00112233.era1",
    );
    // A report that does not parse is shown, not dropped.
    std::fs::write(
        out.path().join("_eraflow/runs/2026-12-01T12:00:00Z-9.json"),
        b"{",
    )
    .unwrap();
    let page = report::build(
        &Location::Local(out.path().to_path_buf()),
        &ReportOptions::default(),
    )
    .unwrap();
    assert_sensible(&page);
    assert!(page.contains("The newest 3 of 3 run reports"), "{page}");
    assert!(page.contains("unreadable"), "{page}");
    assert!(page.contains("<td class=\"failed\">failed</td>"), "{page}");
    assert!(
        page.contains("cannot tell the network from the file name"),
        "the rendered error: {page}"
    );
    // The failed era is marked on the coverage strip, the only chart.
    assert!(
        page.contains("1 eras present") || page.contains("0 eras present"),
        "{page}"
    );
    assert!(page.contains("1 failed."), "{page}");
    assert_eq!(page.matches("<svg").count(), 1, "{page}");
    // The run reports read back as the page reads them: the saved JSON of RunReport parses as a RunView.
    let (total, runs) = report::runs::load(
        &Output::open(&Location::Local(out.path().to_path_buf())).unwrap(),
        2,
    )
    .unwrap();
    assert_eq!(total, 3);
    let r = runs[1].run.as_ref().unwrap();
    assert_eq!(
        (r.status.as_str(), r.exit_code, r.name.as_str()),
        ("failed", 1, "nightly")
    );
    assert_eq!(r.file_counts(), (0, 0, 1));
    assert!(
        r.stages[0].files[0].errors[0].contains("cannot tell the network"),
        "{r:?}"
    );
    // Same output, same bytes.
    let again = report::build(
        &Location::Local(out.path().to_path_buf()),
        &ReportOptions::default(),
    )
    .unwrap();
    assert_eq!(page, again);
}

#[test]
fn one_network_and_one_dataset() {
    let src = tempfile::tempdir().unwrap();
    let f = crate::util::synth_era1(src.path(), 600, 3);
    let out = tempfile::tempdir().unwrap();
    let mut opts = export_opts(out.path(), false);
    opts.datasets = eraflow::datasets::by_names(&["blocks"]).unwrap();
    let outcomes = export(&[f], &opts, &Progress::hidden()).unwrap();
    assert!(outcomes.iter().all(|o| o.ok));
    let page = report::build(
        &Location::Local(out.path().to_path_buf()),
        &ReportOptions::default(),
    )
    .unwrap();
    assert_sensible(&page);
    // Gas from blocks; no transactions, withdrawals, blobs, token transfers or validators: notes, not empty
    // charts.
    assert!(page.contains("Gas used per day"));
    assert!(
        page.contains("No data: no <code>transactions</code> files for synthnet"),
        "{page}"
    );
    assert!(
        page.contains("No data: no <code>validators</code> files"),
        "{page}"
    );
    assert!(
        page.contains("No data: no <code>erc20_transfers</code>, <code>erc721_transfers</code> or <code>erc1155_transfers</code> files for synthnet"),
        "{page}"
    );
    assert_eq!(
        page.matches("<svg").count(),
        2,
        "the coverage strip and gas used"
    );
    assert!(
        page.contains("<td><code>blocks</code></td><td>synthnet</td><td class=\"n\">600</td>"),
        "{page}"
    );
}

#[test]
fn report_true_in_a_pipeline_writes_the_page_after_every_run() {
    let dir = tempfile::tempdir().unwrap();
    let toml = r#"
name = "paged"
network = "synthnet"
inputs = ["archives"]
out = "datasets"
report = true

[synth]
out = "archives"
blocks = 200
txs_per_block = 2

[export]
datasets = ["blocks", "transactions"]
"#;
    let p = dir.path().join("paged.toml");
    std::fs::write(&p, toml).unwrap();
    let (code, _, err) = crate::util::run(eraflow().args(["-q", "run"]).arg(&p));
    assert_eq!(code, Some(0), "{err}");
    let page_path = dir.path().join("datasets/_eraflow/report.html");
    let page = std::fs::read_to_string(&page_path).unwrap();
    assert_sensible(&page);
    assert!(page.contains("The newest 1 of 1 run report,"), "{page}");
    assert!(
        page.contains("<td class=\"ok\">ok</td>"),
        "this run, finished: {page}"
    );
    assert!(page.contains("Transactions per day"));
    // The next run (all skipped) is on the next page.
    let (code, _, err) = crate::util::run(eraflow().args(["-q", "run"]).arg(&p));
    assert_eq!(code, Some(0), "{err}");
    let page = std::fs::read_to_string(&page_path).unwrap();
    assert!(page.contains("The newest 2 of 2 run reports"), "{page}");
    // Off by default: a pipeline without the key writes none.
    std::fs::write(
        &p,
        toml.replace("report = true\n", "")
            .replace("\"datasets\"\n", "\"datasets2\"\n"),
    )
    .unwrap();
    let (code, _, err) = crate::util::run(eraflow().args(["-q", "run"]).arg(&p));
    assert_eq!(code, Some(0), "{err}");
    assert!(dir.path().join("datasets2/_eraflow/runs").is_dir());
    assert!(!dir.path().join("datasets2/_eraflow/report.html").exists());
}

#[test]
fn the_command_writes_where_asked() {
    let out = tempfile::tempdir().unwrap();
    let html = out.path().join("page.html");
    let (code, stdout, err) = crate::util::run(
        eraflow()
            .arg("report")
            .arg(out.path())
            .arg("--html")
            .arg(&html),
    );
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(stdout.trim(), html.display().to_string());
    assert!(std::fs::read_to_string(&html)
        .unwrap()
        .contains("eraflow report"));
    let (code, _, err) = crate::util::run(eraflow().arg("report").arg(out.path().join("missing")));
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("no such output directory"), "{err}");
}

#[test]
fn a_mainnet_sized_page_stays_small() {
    use eraflow::report::aggregate::{Chain, DatasetStats, Day, Era, Sums};
    use eraflow::report::runs::{FileView, RunEntry, RunView, StageView};
    use eraflow::sink::manifest::{Manifest, SourceEntry};
    // Mainnet: 1,896 era1 files, ~1,500 era files; ~3,800 days of blocks and transactions, ~1,000 days of
    // withdrawals and blobs; validators per era; twenty runs of every file, a hundred failed each.
    let mut m = Manifest::default();
    let out = |d: &str, i: u64| OutputEntry {
        dataset: d.into(),
        path: format!(
            "{d}/network=mainnet/mainnet__{d}__{:08}_to_{:08}.parquet",
            i * 8192,
            i * 8192 + 8191
        ),
        rows: 1_000_000,
        bytes: 300_000_000,
        sha256: "ab".repeat(32),
        mtime_ns: None,
        etag: None,
    };
    for i in 0..1896u64 {
        let ds = ["blocks", "transactions", "logs", "uncles"];
        m.sources.insert(
            format!("mainnet-{i:05}-{:08x}.era1", i * 7919),
            SourceEntry {
                sha256: "cd".repeat(32),
                accumulator_root: format!("0x{}", "ef".repeat(32)),
                network: "mainnet".into(),
                first_block: i * 8192,
                last_block: i * 8192 + 8191,
                datasets: ds.iter().map(|d| d.to_string()).collect(),
                outputs: ds.iter().map(|d| out(d, i)).collect(),
                kind: String::new(),
                slots: None,
                state_root: None,
                canonical: Some(true),
                canonical_by: [("accumulator".to_string(), 8192)].into_iter().collect(),
                options: Default::default(),
                record_etags: Default::default(),
            },
        );
    }
    for e in 0..1500u64 {
        let ds = [
            "blocks",
            "transactions",
            "withdrawals",
            "beacon_blocks",
            "validators",
        ];
        m.sources.insert(
            format!("mainnet-{e:05}-{:08x}.era", e * 104_729),
            SourceEntry {
                sha256: "cd".repeat(32),
                accumulator_root: String::new(),
                network: "mainnet".into(),
                first_block: 15_537_394 + e * 8000,
                last_block: 15_537_394 + e * 8000 + 7999,
                datasets: ds.iter().map(|d| d.to_string()).collect(),
                outputs: ds.iter().map(|d| out(d, 2000 + e)).collect(),
                kind: "era".into(),
                slots: Some(((e.max(1) - 1) * 8192, e * 8192 + 8191)),
                state_root: Some(format!("0x{}", "12".repeat(32))),
                canonical: None,
                canonical_by: Default::default(),
                options: Default::default(),
                record_etags: Default::default(),
            },
        );
    }
    let mut sums = Sums::default();
    for d in 16_645..16_645 + 3800i64 {
        let late = d > 16_645 + 2800;
        sums.days.insert(
            d,
            Day {
                blocks: 7000 + (d % 97) as u64,
                gas_used: 100_000_000_000 + (d % 1013) as u128 * 1_000_000,
                blob_gas_used: if late {
                    3_000_000_000 + (d % 89) as u128
                } else {
                    0
                },
                transactions: 1_000_000 + (d % 1009) as u64 * 100,
                types: [
                    400_000,
                    20_000,
                    560_000,
                    15_000 * u64::from(late),
                    5_000 * u64::from(late),
                    0,
                ],
                withdrawals: if late { 115_000 + (d % 83) as u64 } else { 0 },
                withdrawn_gwei: if late { 3_000_000_000_000 } else { 0 },
                token_transfers: [
                    600_000 + (d % 991) as u64 * 50,
                    40_000 + (d % 71) as u64,
                    8_000,
                ],
            },
        );
    }
    for e in 0..1500u64 {
        sums.eras.insert(
            e,
            Era {
                validators: 20_000 + e * 700,
                effective_balance_gwei: u128::from(20_000 + e * 700) * 32_000_000_000,
            },
        );
    }
    let mut chain = Chain::default();
    chain.networks.insert("mainnet".into(), sums);
    chain.charted.insert(
        "mainnet".into(),
        [
            "blocks",
            "transactions",
            "withdrawals",
            "validators",
            "erc20_transfers",
            "erc721_transfers",
            "erc1155_transfers",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
    );
    for d in [
        "blocks",
        "transactions",
        "logs",
        "uncles",
        "withdrawals",
        "beacon_blocks",
        "validators",
    ] {
        chain.datasets.insert(
            (d.into(), "mainnet".into()),
            DatasetStats {
                rows: 2_000_000_000,
                bytes: 500_000_000_000,
                files: 3396,
                row_groups: 40_000,
            },
        );
    }
    let files: Vec<FileView> = m
        .sources
        .keys()
        .enumerate()
        .map(|(i, f)| FileView {
            file: format!("/data/archives/{f}"),
            ok: i % 34 != 0,
            errors: if i % 34 == 0 { vec![format!("/data/archives/{f}: at byte offset 123456: block 42: receipts root: expected 0x{}, found 0x{}", "ab".repeat(32), "cd".repeat(32))] } else { vec![] },
            ..Default::default()
        })
        .collect();
    let runs: Vec<RunEntry> = (0..20)
        .map(|i| RunEntry {
            name: format!("2026-11-{:02}T00:00:00Z-{i}.json", 30 - i),
            run: Ok(RunView {
                name: "mainnet".into(),
                status: "failed".into(),
                exit_code: 1,
                started: format!("2026-11-{:02}T00:00:00Z", 30 - i),
                finished: format!("2026-11-{:02}T06:00:00Z", 30 - i),
                seconds: 21_600.0,
                threads: 64,
                stages: vec![StageView {
                    stage: "export".into(),
                    files: files.clone(),
                    blocks: 24_000_000,
                    transactions: 2_800_000_000,
                    ..Default::default()
                }],
                peak_rss_bytes: Some(8 << 30),
                ..Default::default()
            }),
        })
        .collect();
    let manifest = report::source::ManifestRead::Read(m);
    let page = report::html::page(&report::html::PageInput {
        title: "s3://archive/mainnet".into(),
        manifest: &manifest,
        runs: &(365, runs),
        chain: &chain,
    });
    assert_sensible(&page);
    assert!(!page.contains("No data"), "every chart drawn");
    assert!(page.len() <= 2 << 20, "{} bytes", page.len());
    let part = |a: &str, b: &str| page.find(b).unwrap_or(page.len()) - page.find(a).unwrap_or(0);
    eprintln!(
        "mainnet-sized page: {} bytes: coverage {}, runs {}, chain {}, datasets {}",
        page.len(),
        part("<section id=\"coverage\">", "<section id=\"runs\">"),
        part("<section id=\"runs\">", "<section id=\"chain\">"),
        part("<section id=\"chain\">", "<section id=\"datasets\">"),
        part("<section id=\"datasets\">", "</main>"),
    );
}
