"""cryo's queries, unchanged, over eraflow's output: each query uses only cryo's column names and types
(paradigmxyz/cryo, crates/freeze/src/datasets/{blocks,transactions,logs}.rs) and runs in DuckDB; its answer is
compared with the same question answered in plain Python from the raw columns (read with pyarrow, not DuckDB),
fees recomputed from the signed caps and the block's base fee. Called by tests/it/cryo_queries.rs with the
output directory; prints one `ok:` line per query and exits non-zero on the first mismatch.
"""
import sys
from collections import Counter, defaultdict
from datetime import datetime, timezone

import duckdb
import pyarrow.dataset as ds

out = sys.argv[1]
con = duckdb.connect()
# What a cryo user has: one table per dataset (cryo writes `<dataset>/*.parquet`; here under network=<name>).
for name in ["blocks", "transactions", "logs"]:
    con.sql(f"CREATE VIEW {name} AS SELECT * FROM read_parquet('{out}/{name}/*/*.parquet')")

# ERC-20 Transfer(address,address,uint256): keccak256 of the signature.
TRANSFER = bytes.fromhex("ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef")


def raw(dataset, columns):
    """Rows of `dataset` as dicts, read by pyarrow."""
    table = ds.dataset(f"{out}/{dataset}", format="parquet", partitioning="hive").to_table(columns=columns)
    return table.to_pylist()


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def check(name, sql, expected):
    got = [tuple(r) for r in con.sql(sql).fetchall()]
    if got != expected:
        fail(f"{name}:\n  sql: {sql}\n  DuckDB: {got[:5]}... ({len(got)} rows)\n  Python: {expected[:5]}... "
             f"({len(expected)} rows)")
    if not expected:
        fail(f"{name}: no rows to compare (the data exercises nothing)")
    print(f"ok: {name} ({len(expected)} rows)")


blocks = raw("blocks", ["block_number", "network", "base_fee_per_gas_string"])
txs = raw("transactions", ["block_number", "network", "timestamp", "from_address", "gas_used", "success",
                           "transaction_type", "gas_price_string", "max_fee_per_gas_string",
                           "max_priority_fee_per_gas_string"])
logs = raw("logs", ["address", "topic0", "topic1", "topic2", "topic3", "n_data_bytes"])
base_fee = {(b["network"], b["block_number"]): b["base_fee_per_gas_string"] for b in blocks}


def paid(t):
    """The price paid per gas, from the signed fields: the gas price (types 0 and 1), else
    min(max_fee, base_fee + tip) with the block's base fee."""
    if t["max_fee_per_gas_string"] is None:
        return int(t["gas_price_string"])
    base = int(base_fee[(t["network"], t["block_number"])])
    return min(int(t["max_fee_per_gas_string"]), base + int(t["max_priority_fee_per_gas_string"]))


# 1. Daily transactions and gas.
day = lambda ts: datetime.fromtimestamp(ts, timezone.utc).date()  # noqa: E731
daily = defaultdict(lambda: [0, 0])
for t in txs:
    d = daily[day(t["timestamp"])]
    d[0] += 1
    d[1] += t["gas_used"] or 0
check(
    "daily transactions and gas",
    """SELECT to_timestamp(timestamp)::DATE AS day, count(*) AS n_txs, coalesce(sum(gas_used), 0) AS gas_used
FROM transactions GROUP BY day ORDER BY day""",
    [(k, v[0], v[1]) for k, v in sorted(daily.items())],
)

# 2. Fees via gas_price: total paid per day and average price per type (cryo's uint64 gas_price).
fees = defaultdict(int)
by_type = defaultdict(list)
for t in txs:
    if t["gas_used"] is not None:
        fees[day(t["timestamp"])] += t["gas_used"] * paid(t)
    by_type[t["transaction_type"]].append(paid(t))
check(
    "fees paid per day (wei)",
    """SELECT to_timestamp(timestamp)::DATE AS day, sum(gas_used::HUGEINT * gas_price) AS fees_wei
FROM transactions WHERE gas_used IS NOT NULL GROUP BY day ORDER BY day""",
    sorted(fees.items()),
)
check(
    "gas price by transaction type",
    """SELECT transaction_type, count(*), min(gas_price), max(gas_price), sum(gas_price::HUGEINT),
       count(max_fee_per_gas), count(max_priority_fee_per_gas)
FROM transactions GROUP BY transaction_type ORDER BY transaction_type""",
    [(k, len(v), min(v), max(v), sum(v),
      sum(t["max_fee_per_gas_string"] is not None for t in txs if t["transaction_type"] == k),
      sum(t["max_priority_fee_per_gas_string"] is not None for t in txs if t["transaction_type"] == k))
     for k, v in sorted(by_type.items())],
)
check(
    "base fee per block",
    """SELECT block_number, base_fee_per_gas FROM blocks WHERE base_fee_per_gas IS NOT NULL
ORDER BY block_number LIMIT 1000""",
    sorted((b["block_number"], int(b["base_fee_per_gas_string"])) for b in blocks
           if b["base_fee_per_gas_string"] is not None)[:1000],
)

# 3. Top senders.
senders = Counter(t["from_address"] for t in txs)
check(
    "top senders",
    """SELECT from_address, count(*) AS n_txs FROM transactions
GROUP BY from_address ORDER BY n_txs DESC, from_address LIMIT 10""",
    sorted(senders.items(), key=lambda kv: (-kv[1], kv[0]))[:10],
)

# 4. Success rate (receipts with a status: Byzantium on; before it, success is null here).
with_status = [t["success"] for t in txs if t["success"] is not None]
check(
    "success rate",
    """SELECT count(*) AS n, sum(CASE WHEN success THEN 1 ELSE 0 END) AS n_success
FROM transactions WHERE success IS NOT NULL""",
    [(len(with_status), sum(with_status))],
)

# 5. Logs by topic0.
topics = Counter(log["topic0"] for log in logs)
check(
    "logs by topic0",
    """SELECT topic0, count(*) AS n_logs FROM logs GROUP BY topic0 ORDER BY n_logs DESC, topic0 NULLS FIRST LIMIT 20""",
    sorted(topics.items(), key=lambda kv: (-kv[1], kv[0] is not None, kv[0] or b""))[:20],
)

# 6. ERC-20 transfers per token, from `logs` (Transfer with 3 topics and a 32-byte amount; 4 topics is ERC-721).
per_token = defaultdict(lambda: [0, set()])
for log in logs:
    if log["topic0"] == TRANSFER and log["topic2"] is not None and log["topic3"] is None \
            and log["n_data_bytes"] == 32:
        per_token[log["address"]][0] += 1
        per_token[log["address"]][1].add(log["topic1"])
if per_token:
    check(
        "ERC-20 transfers per token",
        f"""SELECT address AS token, count(*) AS n_transfers, count(DISTINCT topic1) AS n_senders
FROM logs WHERE topic0 = from_hex('{TRANSFER.hex()}') AND topic2 IS NOT NULL AND topic3 IS NULL AND n_data_bytes = 32
GROUP BY address ORDER BY n_transfers DESC, address""",
        sorted(((k, v[0], len(v[1])) for k, v in per_token.items()), key=lambda r: (-r[1], r[0])),
    )
else:
    print("skip: ERC-20 transfers per token: no Transfer logs in the data")
print("ok: cryo queries")
