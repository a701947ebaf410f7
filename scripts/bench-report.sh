#!/usr/bin/env bash
# Times `eraflow report` against DuckDB's same aggregations on the same files, and prints the ratio (the goal of
# issue #22: at most 1.2x DuckDB on an output of 1,000 sources and 100 million transaction rows).
#
#   scripts/bench-report.sh [SOURCES] [TRANSACTIONS] [WORK_DIR]      (defaults: 100 sources, 10,000,000 rows)
#
# TXS_PER_BLOCK (default 150, mainnet's recent density) sets how many days a 100,000-row row group spans: at 150
# most lie inside one day, so the report decodes `transaction_type` alone there (their `timestamp` statistics
# say the day); at 1 every row group spans two weeks and both columns are decoded: the slow path.
#
# The synthetic output is written by DuckDB (python3 -m pip install duckdb): per source, a `transactions` file
# (150 transactions per block, 12-second blocks, 100,000-row row groups, zstd, the columns an analyst has beside
# the charted ones: hashes, addresses, values, input) and a `blocks` file, under the layout and names of an
# export, with the `_eraflow/manifest.json` that lists them. It is made once per size and reused.
#
# Both sides read the same files with the same threads (ERAFLOW_BENCH_THREADS, default: all cores), after one
# warm-up each (page cache warm); the best of RUNS (default 3) counts. DuckDB's time is its queries' alone
# (inside one Python process, connection opened, no import); eraflow's is the whole command, page written.
# eraflow: ERAFLOW_BIN, default target/release/eraflow, else target/debug/eraflow (this project's dev profile is
# opt-level 2: say which one was measured).
set -euo pipefail
sources=${1:-100}
rows=${2:-10000000}
txs_per_block=${TXS_PER_BLOCK:-150}
work=${3:-${TMPDIR:-/tmp}/eraflow-bench-report-$sources-$rows-$txs_per_block}
runs=${RUNS:-3}
threads=${ERAFLOW_BENCH_THREADS:-$(nproc)}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${ERAFLOW_BIN:-}
if [ -z "$bin" ]; then
    if [ -x "$root/target/release/eraflow" ]; then bin=$root/target/release/eraflow; else bin=$root/target/debug/eraflow; fi
fi
[ -x "$bin" ] || { echo "no eraflow binary at $bin (cargo build --release)" >&2; exit 2; }
python3 -c 'import duckdb' 2>/dev/null || { echo "python3 with duckdb is needed (pip install duckdb)" >&2; exit 2; }
out=$work/out
echo "eraflow:  $bin"
echo "output:   $out ($sources sources, $rows transactions, $txs_per_block per block, $threads threads)"

if [ ! -f "$out/_eraflow/manifest.json" ]; then
    rm -rf "$out" && mkdir -p "$out"
    python3 - "$out" "$sources" "$rows" "$txs_per_block" <<'PY'
import duckdb, json, os, sys, time
out, sources, rows, txs_per_block = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
per = rows // sources
blocks_per = max(1, (per + txs_per_block - 1) // txs_per_block)
genesis = 1_600_000_000
con = duckdb.connect()
t0 = time.time()
manifest = {"eraflow_version": "bench", "schema_version": 4, "sources": {}}
for s in range(sources):
    first_tx = s * per
    first_block = s * blocks_per
    last_block = first_block + blocks_per - 1
    outputs = []
    for ds, sql, n in [
        ("transactions", f"""
            SELECT (first_tx + i) // {txs_per_block} + {first_block} - first_tx // {txs_per_block} AS block_number,
                   ((first_tx + i) % {txs_per_block})::UINTEGER AS transaction_index,
                   unhex(sha256((first_tx + i)::VARCHAR)) AS transaction_hash,
                   unhex(substr(md5(((first_tx + i) % 50000)::VARCHAR), 1, 40)) AS from_address,
                   unhex(substr(md5(((first_tx + i) % 70001)::VARCHAR), 1, 40)) AS to_address,
                   (hash(first_tx + i) % 1000000000)::DOUBLE AS value_f64,
                   unhex(md5((first_tx + i)::VARCHAR)) AS input,
                   (21000 + hash(i) % 200000)::UBIGINT AS gas_used,
                   (CASE WHEN hash(first_tx + i) % 100 < 30 THEN 0 WHEN hash(first_tx + i) % 100 < 33 THEN 1
                         WHEN hash(first_tx + i) % 100 < 95 THEN 2 WHEN hash(first_tx + i) % 100 < 98 THEN 3 ELSE 4 END)::UTINYINT
                       AS transaction_type,
                   ({genesis} + ((first_tx + i) // {txs_per_block} + {first_block} - first_tx // {txs_per_block}) * 12)::UBIGINT
                       AS timestamp
            FROM (SELECT {first_tx}::BIGINT AS first_tx, range AS i FROM range({per}))""", per),
        ("blocks", f"""
            SELECT b::UBIGINT AS block_number, ({genesis} + b * 12)::UBIGINT AS timestamp,
                   (15000000 + hash(b) % 15000000)::UBIGINT AS gas_used,
                   CASE WHEN b % 3 = 0 THEN NULL ELSE (hash(b) % 6 * 131072)::UBIGINT END AS blob_gas_used,
                   unhex(sha256(b::VARCHAR)) AS block_hash
            FROM range({first_block}, {last_block + 1}) t(b)""", blocks_per),
    ]:
        rel = f"{ds}/network=synthnet/synthnet__{ds}__{first_block:08}_to_{last_block:08}.parquet"
        os.makedirs(os.path.dirname(os.path.join(out, rel)), exist_ok=True)
        con.execute(f"COPY ({sql}) TO '{os.path.join(out, rel)}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 100000)")
        outputs.append({"dataset": ds, "path": rel, "rows": n, "bytes": os.path.getsize(os.path.join(out, rel)), "sha256": ""})
    name = f"synthnet-{s:05}-00000000.era1"
    manifest["sources"][name] = {"sha256": "", "accumulator_root": "", "network": "synthnet",
        "first_block": first_block, "last_block": last_block, "datasets": ["blocks", "transactions"], "outputs": outputs}
os.makedirs(os.path.join(out, "_eraflow"), exist_ok=True)
with open(os.path.join(out, "_eraflow", "manifest.json"), "w") as f:
    json.dump(manifest, f, indent=1, sort_keys=True)
print(f"made in {time.time() - t0:.0f} s: {sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(out) for f in fs) / 1e9:.2f} GB")
PY
fi

# DuckDB: the report's aggregations (transactions per day and type; blocks, gas and blob gas per day), best of N.
duck=$(python3 - "$out" "$threads" "$runs" <<'PY'
import duckdb, sys, time
out, threads, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
con = duckdb.connect()
con.execute(f"SET threads = {threads}")
queries = [
    f"""SELECT network, timestamp // 86400 AS day, count(*),
        count(*) FILTER (transaction_type = 0), count(*) FILTER (transaction_type = 1),
        count(*) FILTER (transaction_type = 2), count(*) FILTER (transaction_type = 3),
        count(*) FILTER (transaction_type = 4), count(*) FILTER (transaction_type > 4)
        FROM read_parquet('{out}/transactions/*/*.parquet', hive_partitioning = true) GROUP BY ALL ORDER BY ALL""",
    f"""SELECT network, timestamp // 86400 AS day, count(*), sum(gas_used), coalesce(sum(blob_gas_used), 0)
        FROM read_parquet('{out}/blocks/*/*.parquet', hive_partitioning = true) GROUP BY ALL ORDER BY ALL""",
]
best = None
for r in range(runs + 1):  # the first is the warm-up
    t0 = time.perf_counter()
    for q in queries:
        con.execute(q).fetchall()
    t = time.perf_counter() - t0
    if r > 0:
        best = t if best is None else min(best, t)
print(f"{best:.3f}")
PY
)

# eraflow report: the whole page, best of N after a warm-up.
best=""
for r in $(seq 0 "$runs"); do
    t0=$(date +%s.%N)
    "$bin" -q --threads "$threads" report "$out" --html "$work/report.html" >/dev/null
    t=$(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { printf "%.6f", a - b }')
    if [ "$r" -gt 0 ]; then
        if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$t; fi
    fi
done
printf 'duckdb:   %.3f s (the same aggregations, best of %s)\n' "$duck" "$runs"
printf 'eraflow:  %.3f s (report, page written: %s bytes)\n' "$best" "$(stat -c %s "$work/report.html")"
printf 'ratio:    %.2fx DuckDB (goal: <= 1.2x)\n' "$(awk -v a="$best" -v b="$duck" 'BEGIN { print a / b }')"
