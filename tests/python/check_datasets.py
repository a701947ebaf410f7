"""Loads every eraflow dataset with DuckDB and with Polars, the readers analysts use, and checks counts, values and
the uint256 column triples. Called by tests/it/analyst_readers.rs with the output directory and a JSON of
expectations; exits non-zero with a message on the first mismatch."""
import json
import sys

import duckdb
import polars as pl

out, expected = sys.argv[1], json.loads(sys.argv[2])
con = duckdb.connect()


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


# Files sit in network=<name> partition folders, which both readers turn into a `network` column.
for dataset, rows in expected["rows"].items():
    pattern = f"{out}/{dataset}/*/*.parquet"
    n_duck = con.sql(f"SELECT count(*) FROM '{pattern}'").fetchall()[0][0]
    n_polars = pl.scan_parquet(pattern).select(pl.len()).collect().item()
    if n_duck != rows or n_polars != rows:
        fail(f"{dataset}: expected {rows} rows, DuckDB {n_duck}, Polars {n_polars}")

# Every uint256 triple agrees with itself in both readers: binary (big-endian) == string == f64 (rounded).
triples = {
    "blocks": ["difficulty", "total_difficulty", "base_fee_per_gas"],
    "transactions": ["value", "gas_price", "max_fee_per_gas", "max_priority_fee_per_gas",
                     "max_fee_per_blob_gas"],
    "uncles": ["difficulty"],
}
fees = {
    "blocks": ["base_fee_per_gas"],
    "transactions": ["gas_price", "max_fee_per_gas", "max_priority_fee_per_gas"],
}
for dataset, names in triples.items():
    df = pl.read_parquet(f"{out}/{dataset}/*/*.parquet")
    for name in names:
        for b, s, f in zip(df[f"{name}_binary"], df[f"{name}_string"], df[f"{name}_f64"]):
            if b is None:
                if s is not None or f is not None:
                    fail(f"{dataset}.{name}: null binary with non-null string/f64")
                continue
            v = int.from_bytes(b, "big")
            # Python's float(int) is correctly rounded: every _f64 must be exactly that double.
            if len(b) != 32 or str(v) != s or float(v) != f:
                fail(f"{dataset}.{name}: binary {v}, string {s}, f64 {f} disagree")
        # cryo's uint64 fee columns: the triple's value where it fits, null where the triple is null or above 2^64 - 1.
        if name in fees.get(dataset, []):
            for b, u in zip(df[f"{name}_binary"], df[name]):
                want = None if b is None or int.from_bytes(b, "big") >= 2**64 else int.from_bytes(b, "big")
                if u != want:
                    fail(f"{dataset}.{name}: uint64 {u}, expected {want}")
    rows = con.sql(
        f"SELECT {names[0]}_string, {names[0]}_f64 FROM '{out}/{dataset}/*/*.parquet' WHERE {names[0]}_string IS NOT NULL"
    ).fetchall()
    for s, f in rows:
        if float(int(s)) != f:
            fail(f"DuckDB {dataset}.{names[0]}: {s} vs {f}")

for check in expected.get("values", []):
    sql = check["sql"].replace("{out}", out)
    got = [list(r) for r in con.sql(sql).fetchall()]
    if got != check["expect"]:
        fail(f"DuckDB {sql}: expected {check['expect']}, got {got}")
    lf = pl.scan_parquet(f"{out}/{check['dataset']}/*/*.parquet")
    if "polars" in check:
        pl_got = pl.SQLContext(t=lf).execute(check["polars"]).collect().rows()
    else:
        # Polars SQL has no hex(): filter on raw bytes and render binary results as upper-case hex.
        column, value = check["polars_where_hex"]
        df = lf.filter(pl.col(column) == bytes.fromhex(value)).select(check["polars_select"]).collect()
        pl_got = [[v.hex().upper() if isinstance(v, bytes) else v for v in r] for r in df.rows()]
    if [list(r) for r in pl_got] != check["expect"]:
        fail(f"Polars check on {check['dataset']}: expected {check['expect']}, got {pl_got}")

# Networks apart: the partition folders read back as a `network` column in both readers, and every file says
# in its key-value metadata what it was made from.
for dataset in ["blocks", "transactions"]:
    want = sorted(expected["networks"])
    duck = sorted(r[0] for r in con.sql(
        f"SELECT DISTINCT network FROM read_parquet('{out}/{dataset}/*/*.parquet', hive_partitioning = true)"
    ).fetchall())
    polars = sorted(pl.scan_parquet(f"{out}/{dataset}/", hive_partitioning=True)
                    .select(pl.col("network").unique()).collect()["network"].to_list())
    if duck != want or polars != want:
        fail(f"{dataset}: network partitions: expected {want}, DuckDB {duck}, Polars {polars}")
kv = con.sql(
    f"SELECT key, value FROM parquet_kv_metadata('{out}/transactions/*/*.parquet') WHERE key = 'eraflow.dataset'"
).fetchall()
if not kv or any(bytes(v).decode() != "transactions" for _, v in kv):
    fail(f"transactions key-value metadata: {kv}")

print("ok: DuckDB", duckdb.__version__, "Polars", pl.__version__)
