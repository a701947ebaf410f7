"""The Python API against the Parquet export: the same rows, in Polars and in DuckDB.

Fixtures are made with the eraflow binary (`ERAFLOW_BIN`, default target/debug/eraflow, which `cargo test`
builds) and its synthetic generator, so a fresh clone tests itself.
"""
import json
import os
import pathlib
import subprocess

import pytest

import eraflow


def _require(module: str, why: str):
    """`module`, or a loud skip of this file (a failure under ERAFLOW_REQUIRE_PYTHON=1, as .ci/run sets)."""
    try:
        return __import__(module)
    except ImportError:
        msg = f"SKIPPED LOUDLY: {why}; the Python API is untested here"
        if os.environ.get("ERAFLOW_REQUIRE_PYTHON") == "1":
            pytest.fail("ERAFLOW_REQUIRE_PYTHON=1 but " + msg, pytrace=False)
        pytest.skip(msg, allow_module_level=True)


_require("eraflow._native", "the eraflow package is not installed (pip install ./python)")
duckdb = _require("duckdb", "duckdb is not installed (pip install duckdb)")
pl = _require("polars", "polars is not installed (pip install polars)")

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = os.environ.get("ERAFLOW_BIN", str(ROOT / "target" / "debug" / "eraflow"))


def run(*args):
    return subprocess.run([BIN, *map(str, args)], check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def archives(tmp_path_factory):
    d = tmp_path_factory.mktemp("archives")
    era1 = run("synth", "--out", d / "era1", "--blocks", 300, "--txs-per-block", 3).split()
    era = run("synth", "--out", d / "era", "--kind", "era", "--fork", "deneb", "--blocks", 24,
              "--validators", 64).split()
    return {"era1": pathlib.Path(era1[0]), "era": pathlib.Path(era[0])}


@pytest.fixture(scope="module")
def exported(archives, tmp_path_factory):
    out = tmp_path_factory.mktemp("out")
    report = eraflow.export(out, [archives["era1"], archives["era"]])
    assert report["ok"], report
    return out


def parquet(out, dataset):
    return pl.read_parquet(f"{out}/{dataset}/*/*.parquet")


@pytest.mark.parametrize("kind,dataset", [
    ("era1", "blocks"), ("era1", "transactions"), ("era1", "logs"), ("era1", "uncles"),
    ("era", "blocks"), ("era", "transactions"), ("era", "withdrawals"), ("era", "beacon_blocks"),
])
def test_read_equals_the_export_in_polars_and_duckdb(archives, exported, kind, dataset):
    arrow_table = eraflow.read(archives[kind], dataset)
    frame = pl.from_arrow(arrow_table)
    files = parquet(exported, dataset)
    key = "slot" if dataset == "beacon_blocks" else "block_number"
    lo, hi = frame[key].min(), frame[key].max()
    expected = files.filter(pl.col(key).is_between(lo, hi))
    assert frame.height > 0 and frame.height == expected.height
    assert frame.equals(expected.select(frame.columns)), dataset
    # DuckDB reads the Arrow table in place and agrees on an aggregate.
    got = duckdb.sql(f"SELECT count(*), min({key}), max({key}) FROM arrow_table").fetchall()[0]
    assert got == (frame.height, lo, hi)


def test_stream_is_a_record_batch_reader(archives):
    reader = eraflow.read(archives["era1"], "transactions", senders=False, stream=True)
    rows = sum(batch.num_rows for batch in reader)
    assert rows == 300 * 3
    assert pl.from_arrow(eraflow.read(archives["era1"], "transactions", senders=False))["from_address"].null_count() == 900


def test_verify_is_what_the_command_line_prints(archives):
    got = eraflow.verify([archives["era1"], archives["era"]], checksum=True)
    cli = [json.loads(l) for l in run("verify", "--json", "--checksum", archives["era1"], archives["era"]).splitlines()]
    assert got == cli
    assert all(r["ok"] for r in got)


def test_a_damaged_file_raises_with_the_data_exit_status(archives, tmp_path):
    bad = tmp_path / archives["era1"].name
    data = bytearray(archives["era1"].read_bytes())
    data[len(data) // 2] ^= 1
    bad.write_bytes(bytes(data))
    with pytest.raises(eraflow.EraflowError) as e:
        eraflow.read(bad, "blocks")
    assert e.value.exit_status == 1
    assert bad.name in str(e.value)


def test_bad_names_are_usage_errors(archives):
    with pytest.raises(eraflow.EraflowError) as e:
        eraflow.read(archives["era1"], "withdrawals")
    assert e.value.exit_status == 2 and "era1 files have no withdrawals" in str(e.value)
    with pytest.raises(eraflow.EraflowError) as e:
        eraflow.read(archives["era1"], "nope")
    assert "unknown dataset 'nope'" in str(e.value)


def test_a_missing_file_is_an_io_error_as_on_the_command_line(tmp_path):
    missing = tmp_path / "synthnet-00000-00000000.era1"
    with pytest.raises(eraflow.EraflowError) as e:
        eraflow.read(missing, "blocks")
    cli = subprocess.run([BIN, "inspect", str(missing)], capture_output=True, text=True)
    assert e.value.exit_status == cli.returncode == 2, (str(e.value), cli.stderr)
    assert missing.name in str(e.value)


def test_a_missing_or_unreadable_output_or_dataset_is_an_io_error(exported, tmp_path):
    # A folder that is no output (docs/), a dataset the output lacks (validators are opt-in), a dataset whose
    # file is not Parquet: EraflowError with the I/O exit status, chained from the reader's own error.
    garbled = tmp_path / "garbled"
    (garbled / "blocks" / "network=synthnet").mkdir(parents=True)
    (garbled / "blocks" / "network=synthnet" / "synthnet-00000-00000000__blocks.parquet").write_bytes(b"not parquet")
    cases = [
        (ROOT / "docs", "blocks", {}, "no such output or dataset"),
        (exported, "validators", {"stream": True}, "no such output or dataset"),
        (garbled, "blocks", {}, "unreadable"),
    ]
    try:
        import deltalake  # noqa: F401

        cases.append((exported, "blocks", {"table_format": "delta"}, "no such output or dataset"))
    except ImportError:
        pass
    for out, dataset, options, what in cases:
        with pytest.raises(eraflow.EraflowError) as e:
            eraflow.read(out, dataset, **options)
        assert e.value.exit_status == 2, str(e.value)
        assert f"{out}/{dataset}: {what}" in str(e.value), str(e.value)
        assert e.value.__cause__ is not None, str(e.value)


def test_read_of_an_output_as_parquet_and_as_delta_tables_gives_the_same_rows(archives, exported, tmp_path):
    deltalake = _require("deltalake", "deltalake is not installed (pip install deltalake)")
    delta = tmp_path / "delta"
    report = eraflow.export(delta, [archives["era1"], archives["era"]], table_format="delta")
    assert report["ok"], report
    for dataset in ["blocks", "transactions", "withdrawals", "beacon_blocks", "attestations"]:
        plain = pl.from_arrow(eraflow.read(exported, dataset))
        table = pl.from_arrow(eraflow.read(delta, dataset, table_format="delta"))
        assert table.height == plain.height > 0, dataset
        # The table's portable types (no unsigned integers in Delta) read back to the same values.
        plain = plain.select(table.columns).cast(dict(zip(table.columns, table.dtypes)))
        assert sorted(table.hash_rows().to_list()) == sorted(plain.hash_rows().to_list()), dataset
    assert deltalake.DeltaTable(str(delta / "blocks")).version() == 2
    with pytest.raises(eraflow.EraflowError) as e:
        eraflow.read(delta, "blocks", table_format="iceberg")
    assert e.value.exit_status == 2
