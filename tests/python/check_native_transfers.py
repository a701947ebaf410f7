"""`native_transfers` against an independent reading of the same export: every row is derived here from the
`transactions`, `logs` and `withdrawals` datasets, with EIP-7708's ETH-transfer logs decoded by eth-abi and
creation addresses by this script's own keccak and RLP, and must equal the dataset row for row, in order.

`python3 check_native_transfers.py OUT EXPECTED_JSON`: EXPECTED_JSON holds `eth_transfer_logs` (the run report's
count of EIP-7708 logs `erc20_transfers` set aside, checked against the logs counted here) and, optionally,
`min_rows` per kind. Prints `ok: ...` lines, exits non-zero with a message on the first mismatch.

The rules, written again independently of src/datasets/native_transfers.rs (the issue's):
- `transaction`: a non-zero value that did not fail (its status; before Byzantium a failure consumed all its
  gas, so less gas than the limit proves success and all of it leaves success unknown, `None`); its recipient
  is `to`, or for a creation the address of (sender, nonce); when the transaction's first log is an EIP-7708 log
  of this value from the sender to the recipient, that log is the row's `log_index`, not a row of its own;
- `log`: every other EIP-7708 log (SYSTEM_ADDRESS, Transfer topic, three topics, 32 bytes of data);
- `withdrawal`: every withdrawal of a non-zero amount, in wei, from nobody;
- per block: each transaction's row, then its logs' rows, then the withdrawals; `transfer_index` counts them."""
import glob
import json
import sys
from collections import defaultdict

import polars as pl
from Crypto.Hash import keccak
from eth_abi import decode
from eth_abi.exceptions import DecodingError

out, expected = sys.argv[1], json.loads(sys.argv[2])
SYSTEM = bytes.fromhex("ff" * 19 + "fe")


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def k256(b):
    return keccak.new(digest_bits=256, data=b).digest()


TRANSFER = k256(b"Transfer(address,address,uint256)")


def read(dataset):
    files = sorted(glob.glob(f"{out}/{dataset}/*/*.parquet"))
    return pl.concat([pl.read_parquet(f) for f in files]) if files else None


def rlp_bytes(b):
    if len(b) == 1 and b[0] < 0x80:
        return b
    assert len(b) < 56
    return bytes([0x80 + len(b)]) + b


def create_address(sender, nonce):
    n = nonce.to_bytes((nonce.bit_length() + 7) // 8, "big")
    payload = rlp_bytes(sender) + rlp_bytes(n)
    return k256(bytes([0xc0 + len(payload)]) + payload)[12:]


def u256(v):
    return [v.to_bytes(32, "big"), str(v), float(v)]


tx = read("transactions")
logs = read("logs")
withdrawals = read("withdrawals")
got_df = read("native_transfers")
if tx is None or got_df is None:
    fail("the export has no transactions or no native_transfers")

# Each transaction's logs: the first log's index, and its EIP-7708 transfers decoded by eth-abi.
first_log = {}
eth = defaultdict(list)
counted = 0
if logs is not None:
    for r in logs.sort("block_number", "log_index").iter_rows(named=True):
        k = (r["block_number"], r["transaction_index"])
        first_log.setdefault(k, r["log_index"])
        topics = [t for t in (r["topic0"], r["topic1"], r["topic2"], r["topic3"]) if t is not None]
        if r["address"] != SYSTEM or len(topics) != 3 or topics[0] != TRANSFER or len(r["data"]) != 32:
            continue
        try:
            frm, to = (bytes.fromhex(decode(["address"], t)[0][2:]) for t in topics[1:])
        except DecodingError:
            continue
        (value,) = decode(["uint256"], r["data"])
        eth[k].append((r["log_index"], frm, to, value))
        counted += 1

want = defaultdict(list)
for r in tx.sort("block_number", "transaction_index").iter_rows(named=True):
    b, i = r["block_number"], r["transaction_index"]
    k = (b, i)
    transfers = list(eth.get(k, []))
    value = int(r["value_string"])
    success = r["success"]
    if success is None:
        success = True if r["gas_used"] < r["gas_limit"] else None
    if value > 0 and success is not False:
        to = r["to_address"] if r["to_address"] is not None else create_address(r["from_address"], r["nonce"])
        own = None
        if transfers and transfers[0][0] == first_log.get(k) and transfers[0][1:] == (r["from_address"], to, value):
            own = transfers.pop(0)
        want[b].append(["transaction", i, r["transaction_hash"], own[0] if own else None, None,
                        r["from_address"], to] + u256(value) + [success])
    for log_index, frm, to, v in transfers:
        want[b].append(["log", i, r["transaction_hash"], log_index, None, frm, to] + u256(v) + [True])
if withdrawals is not None:
    for w in withdrawals.sort("block_number", "withdrawal_index").iter_rows(named=True):
        if w["amount_gwei"] > 0:
            want[w["block_number"]].append(["withdrawal", None, None, None, w["withdrawal_index"], None,
                                            w["address"]] + u256(w["amount_gwei"] * 10**9) + [True])

rows = []
for b in sorted(want):
    for n, row in enumerate(want[b]):
        rows.append([b, n] + row)
COLUMNS = ["block_number", "transfer_index", "kind", "transaction_index", "transaction_hash", "log_index",
           "withdrawal_index", "from_address", "to_address", "value_binary", "value_string", "value_f64", "success"]
got = [list(r) for r in got_df.select(COLUMNS).rows()]
if len(got) != len(rows):
    fail(f"native_transfers: {len(got)} rows, the independent reading gives {len(rows)}")
for i, (g, w) in enumerate(zip(got, rows)):
    same = all((abs(a - c) <= abs(c) * 2.0 ** -52) if isinstance(c, float) else a == c for a, c in zip(g, w))
    if not same:
        fail(f"native_transfers row {i}: eraflow {g}\n  expected {w}")
kinds = defaultdict(int)
for r in rows:
    kinds[r[2]] += 1
for kind, n in expected.get("min_rows", {}).items():
    if kinds[kind] < n:
        fail(f"native_transfers: {kinds[kind]} {kind} rows, expected at least {n}")
if counted != expected.get("eth_transfer_logs", counted):
    fail(f"EIP-7708 logs: {counted} in logs, the run report set aside {expected['eth_transfer_logs']}")
print(f"ok: native_transfers: {len(rows)} rows {dict(kinds)}; {counted} EIP-7708 logs, as derived independently")
