"""The token datasets against an independent decoder: eth-abi decodes every log of the `logs` dataset of the same
export, and each token dataset must equal what it gives, row for row and value for value; `contracts` must equal
the successful creations of `transactions` with addresses derived here (keccak of the RLP of sender and nonce).

`python3 check_tokens.py OUT EXPECTED_JSON`: EXPECTED_JSON holds `lookalikes` (the run report's per-dataset
counts, checked against the look-alikes counted here) and `contracts` (whether `contracts` was exported). Called
by tests/it/tokens.rs; prints `ok: ...` lines, exits non-zero with a message on the first mismatch.

The shape rules here are the issue's, written again independently of src/datasets/events.rs: a token event is a
log with the event's topic0, its topic count, for static data exactly its data length, and data and indexed
topics that eth-abi's strict decoder accepts (addresses zero-padded, bools 0 or 1, dynamic arrays in bounds);
a batch needs as many values as ids."""
import glob
import json
import sys

import polars as pl
from Crypto.Hash import keccak
from eth_abi import decode
from eth_abi.exceptions import DecodingError

out, expected = sys.argv[1], json.loads(sys.argv[2])


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def k256(b):
    return keccak.new(digest_bits=256, data=b).digest()


def sig(s):
    return k256(s.encode())


TRANSFER = sig("Transfer(address,address,uint256)")
APPROVAL = sig("Approval(address,address,uint256)")
APPROVAL_FOR_ALL = sig("ApprovalForAll(address,address,bool)")
SINGLE = sig("TransferSingle(address,address,address,uint256,uint256)")
BATCH = sig("TransferBatch(address,address,address,uint256[],uint256[])")


def read(dataset):
    files = sorted(glob.glob(f"{out}/{dataset}/*/*.parquet"))
    return pl.concat([pl.read_parquet(f) for f in files]) if files else None


def addr(topic):
    """An indexed address, as eth-abi decodes it (strict: padding must be zero); raises on dirty padding."""
    return bytes.fromhex(decode(["address"], topic)[0][2:])


def u256(v):
    return [v.to_bytes(32, "big"), str(v), float(v)]


logs = read("logs")
if logs is None:
    fail("no logs dataset")
want = {d: [] for d in ["erc20_transfers", "erc721_transfers", "erc1155_transfers", "erc20_approvals",
                        "approvals_for_all"]}
lookalikes = {d: 0 for d in want}
# EIP-7708 (Amsterdam): ETH transfers emit ERC-20-shaped logs from SYSTEM_ADDRESS, which no contract can emit
# from: they are never a token's rows, nor look-alikes.
SYSTEM = bytes.fromhex("ff" * 19 + "fe")
for row in logs.iter_rows(named=True):
    topics = [t for t in (row["topic0"], row["topic1"], row["topic2"], row["topic3"]) if t is not None]
    if not topics or row["address"] == SYSTEM:
        continue
    t0, n, data = topics[0], len(topics), row["data"]
    key = [row["block_number"], row["block_hash"], row["transaction_index"], row["log_index"],
           row["transaction_hash"]]
    try:
        if t0 == TRANSFER:
            dataset = "erc721_transfers" if n == 4 else "erc20_transfers"
            if n == 3 and len(data) == 32:
                (value,) = decode(["uint256"], data)
                want[dataset].append(key + [row["address"], addr(topics[1]), addr(topics[2])] + u256(value))
            elif n == 4 and len(data) == 0:
                (token_id,) = decode(["uint256"], topics[3])
                want[dataset].append(key + [row["address"], addr(topics[1]), addr(topics[2])] + u256(token_id))
            else:
                lookalikes[dataset] += 1
        elif t0 == APPROVAL:
            if n == 4 and len(data) == 0:
                continue  # ERC-721's Approval: neither a row nor a look-alike of ERC-20's
            if n == 3 and len(data) == 32:
                (value,) = decode(["uint256"], data)
                want["erc20_approvals"].append(key + [row["address"], addr(topics[1]), addr(topics[2])] + u256(value))
            else:
                lookalikes["erc20_approvals"] += 1
        elif t0 == APPROVAL_FOR_ALL:
            if n == 3 and len(data) == 32:
                (approved,) = decode(["bool"], data)
                want["approvals_for_all"].append(key + [row["address"], addr(topics[1]), addr(topics[2]), approved])
            else:
                lookalikes["approvals_for_all"] += 1
        elif t0 in (SINGLE, BATCH):
            if n != 4:
                lookalikes["erc1155_transfers"] += 1
                continue
            parties = [row["address"], addr(topics[1]), addr(topics[2]), addr(topics[3])]
            if t0 == SINGLE:
                if len(data) != 64:
                    lookalikes["erc1155_transfers"] += 1
                    continue
                token_id, value = decode(["uint256", "uint256"], data)
                want["erc1155_transfers"].append(key + [None] + parties + u256(token_id) + u256(value))
            else:
                ids, values = decode(["uint256[]", "uint256[]"], data)
                if len(ids) != len(values):
                    lookalikes["erc1155_transfers"] += 1
                    continue
                for i, (token_id, value) in enumerate(zip(ids, values)):
                    want["erc1155_transfers"].append(key + [i] + parties + u256(token_id) + u256(value))
    except DecodingError:
        # eth-abi refused it (dirty padding, a bool past 1, an offset or length outside the data).
        lookalikes[{TRANSFER: "erc721_transfers" if n == 4 else "erc20_transfers", APPROVAL: "erc20_approvals",
                    APPROVAL_FOR_ALL: "approvals_for_all"}.get(t0, "erc1155_transfers")] += 1

COLUMNS = {
    "erc20_transfers": ["erc20", "from_address", "to_address", "value_binary", "value_string", "value_f64"],
    "erc721_transfers": ["erc721", "from_address", "to_address", "token_id_binary", "token_id_string",
                         "token_id_f64"],
    "erc1155_transfers": ["batch_index", "erc1155", "operator", "from_address", "to_address", "token_id_binary",
                          "token_id_string", "token_id_f64", "value_binary", "value_string", "value_f64"],
    "erc20_approvals": ["erc20", "owner_address", "spender_address", "value_binary", "value_string", "value_f64"],
    "approvals_for_all": ["contract_address", "owner_address", "operator", "approved"],
}
KEY = ["block_number", "block_hash", "transaction_index", "log_index", "transaction_hash"]
for dataset, rows in want.items():
    df = read(dataset)
    got = [] if df is None else [list(r) for r in df.select(KEY + COLUMNS[dataset]).rows()]
    if len(got) != len(rows):
        fail(f"{dataset}: {len(got)} rows, eth-abi decodes {len(rows)}")
    for i, (g, w) in enumerate(zip(got, rows)):
        # f64 columns: the nearest double within a relative 2^-52 (the rounding of src/datasets/columns.rs).
        same = all(
            (abs(a - b) <= abs(b) * 2.0 ** -52) if isinstance(b, float) else a == b for a, b in zip(g, w)
        )
        if not same:
            fail(f"{dataset} row {i}: eraflow {g}\n  eth-abi {w}")
    if df is not None:
        # The keys every row carries besides: the block's timestamp and the network's chain id.
        blocks = read("blocks")
        if blocks is not None:
            joined = df.join(blocks.select("block_number", pl.col("timestamp").alias("ts")), on="block_number")
            if joined.height != df.height or (joined["timestamp"] != joined["ts"]).any():
                fail(f"{dataset}: timestamps differ from blocks'")
        if df["chain_id"].n_unique() != 1:
            fail(f"{dataset}: chain_id varies")
    if lookalikes[dataset] != expected["lookalikes"].get(dataset, 0):
        fail(f"{dataset}: look-alikes: eth-abi {lookalikes[dataset]}, run report {expected['lookalikes'].get(dataset, 0)}")
    print(f"ok: {dataset}: {len(rows)} rows, {lookalikes[dataset]} look-alikes, as eth-abi decodes them")


def rlp_bytes(b):
    if len(b) == 1 and b[0] < 0x80:
        return b
    assert len(b) < 56
    return bytes([0x80 + len(b)]) + b


def create_address(sender, nonce):
    n = nonce.to_bytes((nonce.bit_length() + 7) // 8, "big")
    payload = rlp_bytes(sender) + rlp_bytes(n)
    return k256(bytes([0xc0 + len(payload)]) + payload)[12:]


if expected.get("contracts"):
    tx = read("transactions")
    creations = tx.filter(pl.col("to_address").is_null())
    rows = []
    for r in creations.iter_rows(named=True):
        # Before Byzantium receipts carry no status: a failed creation used all its gas.
        ok = r["success"] if r["success"] is not None else r["gas_used"] < r["gas_limit"]
        if ok:
            rows.append([r["block_number"], r["transaction_index"], r["transaction_hash"],
                         create_address(r["from_address"], r["nonce"]), r["from_address"], r["nonce"],
                         k256(r["input"]), len(r["input"]), r["gas_used"]])
    df = read("contracts")
    got = [] if df is None else [list(x) for x in df.select(
        "block_number", "transaction_index", "transaction_hash", "contract_address", "deployer", "nonce",
        "init_code_hash", "n_init_code_bytes", "gas_used").rows()]
    if got != rows:
        fail(f"contracts: {len(got)} rows differ from the {len(rows)} successful creations of transactions")
    pre = sum(1 for r in creations.iter_rows(named=True) if r["success"] is None)
    print(f"ok: contracts: {len(rows)} rows ({pre} creations before Byzantium judged by gas)")
