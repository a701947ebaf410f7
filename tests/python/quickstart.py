"""The analyst quickstart of docs/analyst.md, as data: each question once in DuckDB SQL and once in Polars.

`python3 quickstart.py check OUT ERA_OUT [TOKENS_OUT [ETH_OUT]]` runs every question in both readers over an export
(the token questions over TOKENS_OUT, the ETH one over ETH_OUT, default OUT) and fails unless
DuckDB and Polars give the same answer (and a non-empty one); `python3 quickstart.py markdown` prints the
page's section, which tests/it/analyst_readers.rs compares with docs/analyst.md, so the page's queries are the ones
that were run.
"""
import sys

SAMPLE = "out/sample/datasets"
SAMPLE_ERA = "out/sample-era/datasets"
# The main job's archives hold no token events (random logs), so its output has no token datasets: the page makes
# this output first, from `synth --tokens` archives.
TOKENS = "out/tokens/datasets"
# ETH flows: `native_transfers` is opt-in, and internal transfers are in receipts only from Amsterdam on (EIP-7708):
# the page makes this output first, from a synthetic ere file across Prague -> Amsterdam.
ETH = "out/eth/datasets"

QUESTIONS = [
    {
        "title": "Transactions per day",
        "duckdb": """SELECT CAST(to_timestamp(timestamp) AS DATE) AS day, count(*) AS txs
FROM read_parquet('{out}/transactions/*/*.parquet', hive_partitioning = true)
GROUP BY day ORDER BY day""",
        "polars": """tx = pl.scan_parquet("{out}/transactions/", hive_partitioning=True)
(tx.group_by(pl.from_epoch("timestamp", time_unit="s").dt.date().alias("day"))
   .agg(pl.len().alias("txs")).sort("day").collect())""",
    },
    {
        "title": "Top senders",
        "duckdb": """SELECT '0x' || lower(hex(from_address)) AS sender, count(*) AS txs
FROM read_parquet('{out}/transactions/*/*.parquet', hive_partitioning = true)
GROUP BY sender ORDER BY txs DESC, sender LIMIT 10""",
        "polars": """tx = pl.scan_parquet("{out}/transactions/", hive_partitioning=True)
(tx.group_by(("0x" + pl.col("from_address").bin.encode("hex")).alias("sender"))
   .agg(pl.len().alias("txs")).sort(["txs", "sender"], descending=[True, False]).head(10).collect())""",
    },
    {
        "title": "Gas by transaction type (rows with receipts: era files carry none)",
        "duckdb": """SELECT transaction_type, count(*) AS txs, sum(gas_used) AS gas_used,
       round(avg(gas_price_f64) / 1e9, 6) AS avg_gas_price_gwei
FROM read_parquet('{out}/transactions/*/*.parquet', hive_partitioning = true)
WHERE gas_used IS NOT NULL
GROUP BY transaction_type ORDER BY transaction_type""",
        "polars": """tx = pl.scan_parquet("{out}/transactions/", hive_partitioning=True)
(tx.filter(pl.col("gas_used").is_not_null()).group_by("transaction_type")
   .agg(pl.len().alias("txs"), pl.col("gas_used").sum(),
        (pl.col("gas_price_f64").mean() / 1e9).round(6).alias("avg_gas_price_gwei"))
   .sort("transaction_type").collect())""",
    },
    {
        "title": "Logs by event signature (topic0)",
        "duckdb": """SELECT '0x' || lower(hex(topic0)) AS topic0, count(*) AS logs
FROM read_parquet('{out}/logs/*/*.parquet', hive_partitioning = true)
WHERE topic0 IS NOT NULL
GROUP BY 1 ORDER BY logs DESC, topic0 LIMIT 10""",
        "polars": """logs = pl.scan_parquet("{out}/logs/", hive_partitioning=True)
(logs.filter(pl.col("topic0").is_not_null())
   .group_by(("0x" + pl.col("topic0").bin.encode("hex")).alias("topic0"))
   .agg(pl.len().alias("logs")).sort(["logs", "topic0"], descending=[True, False]).head(10).collect())""",
    },
    {
        "title": "Top ERC-20 tokens by transfers per day",
        "duckdb": """SELECT CAST(to_timestamp(timestamp) AS DATE) AS day, '0x' || lower(hex(erc20)) AS token,
       count(*) AS transfers
FROM read_parquet('{tok_out}/erc20_transfers/*/*.parquet', hive_partitioning = true)
GROUP BY day, token ORDER BY day, transfers DESC, token LIMIT 20""",
        "polars": """t = pl.scan_parquet("{tok_out}/erc20_transfers/", hive_partitioning=True)
(t.group_by(pl.from_epoch("timestamp", time_unit="s").dt.date().alias("day"),
            ("0x" + pl.col("erc20").bin.encode("hex")).alias("token"))
   .agg(pl.len().alias("transfers"))
   .sort(["day", "transfers", "token"], descending=[False, True, False]).head(20).collect())""",
    },
    {
        "title": "An address's ERC-20 balance changes (put yours: this one holds tokens in `synth --tokens` archives)",
        "duckdb": """SELECT block_number, log_index, '0x' || lower(hex(erc20)) AS token,
       CASE WHEN from_address = from_hex('e000000000000000000000000000000000000001')
            THEN '-' ELSE '+' END || value_string AS change
FROM read_parquet('{tok_out}/erc20_transfers/*/*.parquet', hive_partitioning = true)
WHERE from_address = from_hex('e000000000000000000000000000000000000001')
   OR to_address = from_hex('e000000000000000000000000000000000000001')
ORDER BY block_number, log_index LIMIT 20""",
        "polars": """t = pl.scan_parquet("{tok_out}/erc20_transfers/", hive_partitioning=True); me = bytes.fromhex("e000000000000000000000000000000000000001")
(t.filter((pl.col("from_address") == me) | (pl.col("to_address") == me))
   .select("block_number", "log_index", ("0x" + pl.col("erc20").bin.encode("hex")).alias("token"),
           (pl.when(pl.col("from_address") == me).then(pl.lit("-")).otherwise(pl.lit("+"))
            + pl.col("value_string")).alias("change"))
   .sort(["block_number", "log_index"]).head(20).collect())""",
    },
    {
        "title": "NFT mints per collection (ERC-721 transfers from the zero address)",
        "duckdb": """SELECT '0x' || lower(hex(erc721)) AS collection, count(*) AS mints
FROM read_parquet('{tok_out}/erc721_transfers/*/*.parquet', hive_partitioning = true)
WHERE from_address = from_hex('0000000000000000000000000000000000000000')
GROUP BY collection ORDER BY mints DESC, collection LIMIT 10""",
        "polars": """t = pl.scan_parquet("{tok_out}/erc721_transfers/", hive_partitioning=True)
(t.filter(pl.col("from_address") == bytes(20))
   .group_by(("0x" + pl.col("erc721").bin.encode("hex")).alias("collection"))
   .agg(pl.len().alias("mints")).sort(["mints", "collection"], descending=[True, False]).head(10).collect())""",
    },
    {
        "title": "ETH movements by kind (top-level values, withdrawals, and from Amsterdam on internal transfers)",
        "duckdb": """SELECT kind, count(*) AS transfers, count(DISTINCT to_address) AS recipients,
       max(value_f64) / 1e18 AS largest_eth
FROM read_parquet('{eth_out}/native_transfers/*/*.parquet', hive_partitioning = true)
GROUP BY kind ORDER BY kind""",
        "polars": """nt = pl.scan_parquet("{eth_out}/native_transfers/", hive_partitioning=True)
(nt.group_by("kind")
   .agg(pl.len().alias("transfers"), pl.col("to_address").drop_nulls().n_unique().alias("recipients"),
        (pl.col("value_f64").max() / 1e18).alias("largest_eth"))
   .sort("kind").collect())""",
    },
    {
        "title": "Withdrawals per validator",
        "duckdb": """SELECT validator_index, count(*) AS withdrawals, sum(amount_gwei) / 1e9 AS eth
FROM read_parquet('{era_out}/withdrawals/*/*.parquet', hive_partitioning = true)
GROUP BY validator_index ORDER BY eth DESC, validator_index LIMIT 10""",
        "polars": """w = pl.scan_parquet("{era_out}/withdrawals/", hive_partitioning=True)
(w.group_by("validator_index")
   .agg(pl.len().alias("withdrawals"), (pl.col("amount_gwei").sum() / 1e9).alias("eth"))
   .sort(["eth", "validator_index"], descending=[True, False]).head(10).collect())""",
    },
    {
        "title": "Validators' effective balance over time (one registry snapshot per era state)",
        "duckdb": """SELECT era, count(*) AS validators, sum(effective_balance) / 1e9 AS effective_eth,
       count(*) FILTER (WHERE slashed) AS slashed
FROM read_parquet('{era_out}/validators/*/*.parquet', hive_partitioning = true)
GROUP BY era ORDER BY era""",
        "polars": """v = pl.scan_parquet("{era_out}/validators/", hive_partitioning=True)
(v.group_by("era")
   .agg(pl.len().alias("validators"), (pl.col("effective_balance").sum() / 1e9).alias("effective_eth"),
        pl.col("slashed").sum().alias("slashed"))
   .sort("era").collect())""",
    },
    {
        "title": "Deposits per day (the deposit contract queue, then Electra's deposit requests)",
        "duckdb": """-- Slot times of mainnet (and synthnet): genesis 1606824023, 12-second slots; gnosis: 1638993340 and 5.
SELECT CAST(to_timestamp(1606824023 + slot * 12) AS DATE) AS day, count(*) AS deposits,
       sum(amount_gwei) / 1e9 AS eth
FROM (SELECT slot, amount_gwei FROM read_parquet('{era_out}/deposits/*/*.parquet', hive_partitioning = true)
      UNION ALL
      SELECT slot, amount_gwei FROM read_parquet('{era_out}/deposit_requests/*/*.parquet', hive_partitioning = true))
GROUP BY day ORDER BY day""",
        "polars": """d = pl.concat([pl.scan_parquet(f"{era_out}/{ds}/", hive_partitioning=True).select("slot", "amount_gwei") for ds in ("deposits", "deposit_requests")])
(d.group_by(pl.from_epoch(1606824023 + pl.col("slot") * 12, time_unit="s").dt.date().alias("day"))
   .agg(pl.len().alias("deposits"), (pl.col("amount_gwei").sum() / 1e9).alias("eth"))
   .sort("day").collect())""",
    },
    {
        "title": "Blob commitments per block, joined to their type-3 transactions",
        "duckdb": """SELECT c.slot, count(*) AS blobs, count(DISTINCT t.transaction_hash) AS blob_transactions
FROM read_parquet('{era_out}/blob_commitments/*/*.parquet', hive_partitioning = true) AS c
JOIN (SELECT transaction_hash, unnest(blob_versioned_hashes) AS versioned_hash
      FROM read_parquet('{era_out}/transactions/*/*.parquet', hive_partitioning = true)
      WHERE transaction_type = 3) AS t USING (versioned_hash)
GROUP BY c.slot ORDER BY c.slot LIMIT 10""",
        "polars": """c = pl.scan_parquet("{era_out}/blob_commitments/", hive_partitioning=True)
(c.join(pl.scan_parquet("{era_out}/transactions/", hive_partitioning=True)
          .filter(pl.col("transaction_type") == 3).explode("blob_versioned_hashes")
          .select("transaction_hash", pl.col("blob_versioned_hashes").alias("versioned_hash")),
        on="versioned_hash")
   .group_by("slot").agg(pl.len().alias("blobs"), pl.col("transaction_hash").n_unique().alias("blob_transactions"))
   .sort("slot").head(10).collect())""",
    },
]


def fill(text, out, era_out, tok_out, eth_out):
    return (text.replace("{out}", out).replace("{era_out}", era_out).replace("{tok_out}", tok_out)
            .replace("{eth_out}", eth_out))


def markdown():
    lines = [
        "Run the main job first (`cargo run -- run pipelines/sample.toml`, and "
        "`pipelines/sample-era.toml` for withdrawals and the beacon-chain datasets); every dataset folder holds "
        "`network=<name>` partitions, read as a `network` column. The token datasets hold rows where the archives "
        "hold token events: real chains, or synthetic files made with `eraflow synth --tokens`. The main job's "
        "archives hold none, so the token questions read an output of their own, made first:",
        "",
        "```sh",
        "eraflow synth --kind era1 --tokens --out out/tokens/archives",
        "eraflow export --datasets erc20_transfers,erc721_transfers --out out/tokens/datasets out/tokens/archives",
        "```",
        "",
        "ETH flows (`native_transfers`, opt-in) hold internal transfers from Amsterdam on, when every ETH "
        "transfer emits a log (EIP-7708); the ETH question reads an output of synthetic blocks across that fork, "
        "made first:",
        "",
        "```sh",
        "eraflow synth --kind ere --era 250 --blocks 4160 --txs-per-block 4 --out out/eth/archives",
        "eraflow export --datasets native_transfers --out out/eth/datasets out/eth/archives",
        "```",
        "",
        "The Python snippets are Polars (`pip install polars`, then `import polars as pl`); the SQL runs in DuckDB "
        "(`pip install duckdb`, then `duckdb.sql(...)`, or the `duckdb` command line).",
        "",
    ]
    for q in QUESTIONS:
        lines += [
            f"**{q['title']}**",
            "",
            "```sql",
            fill(q["duckdb"], SAMPLE, SAMPLE_ERA, TOKENS, ETH) + ";",
            "```",
            "",
            "```python",
            fill(q["polars"], SAMPLE, SAMPLE_ERA, TOKENS, ETH),
            "```",
            "",
        ]
    return "\n".join(lines)


def check(out, era_out, tok_out, eth_out):
    import duckdb
    import polars as pl

    con = duckdb.connect()
    for q in QUESTIONS:
        duck = [tuple(r) for r in con.sql(fill(q["duckdb"], out, era_out, tok_out, eth_out)).fetchall()]
        # The Polars snippet is an expression over `pl` (and a first line binding a frame).
        first, rest = fill(q["polars"], out, era_out, tok_out, eth_out).split("\n", 1)
        scope = {"pl": pl}
        exec(first, scope)
        frame = eval(rest, scope)
        polars = [tuple(r) for r in frame.rows()]
        norm = lambda rows: [tuple(str(v) if not isinstance(v, float) else round(v, 6) for v in r) for r in rows]
        if not duck:
            print(f"FAIL: {q['title']}: no rows")
            sys.exit(1)
        if norm(duck) != norm(polars):
            print(f"FAIL: {q['title']}: DuckDB {duck[:3]}... != Polars {polars[:3]}...")
            sys.exit(1)
        print(f"ok: {q['title']}: {len(duck)} rows")


if __name__ == "__main__":
    if sys.argv[1] == "markdown":
        print(markdown())
    else:
        check(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else sys.argv[2],
              sys.argv[5] if len(sys.argv) > 5 else sys.argv[2])
