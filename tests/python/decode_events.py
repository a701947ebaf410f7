"""eraflow's decoded events (`--decode`, `[decode]`) against eth-abi, an independent decoder. Called by
tests/it/decode.rs:

  decode_events.py gen DIR            writes DIR/logs.json: hand-written event specs (every parameter kind:
                                      addresses, small and wide integers signed and unsigned, bool, fixed and
                                      dynamic bytes, strings, arrays, tuples, indexed dynamic values; one event
                                      from a JSON ABI file, DIR/batch.json) and random logs for each, eth-abi
                                      encoded, valid ones and look-alikes (a wrong topic count, short or long
                                      data, an offset out of bounds, a word out of its type's range, dirty
                                      padding, a foreign contract when the spec is limited to one)
  decode_events.py check DIR          compares DIR/<i>.parquet (what eraflow decoded from case i) and
                                      DIR/lookalikes.json (its look-alike count per case) with eth-abi's
  decode_events.py specs [real]       prints the specs of the token-archive events as JSON ({dataset: spec});
                                      `real`: of real mainnet contracts' events instead
  decode_events.py archive OUT JSON [real]
                                      checks an export OUT of `synth --tokens` archives with those specs (`real`:
                                      of real mainnet blocks with the real events' specs): every decoded dataset
                                      against eth-abi's decoding of the export's `logs`, and the look-alike
                                      counts against the run report's (JSON: {"lookalikes": {..}, "chain_id": n})

The rule, written here independently of src/datasets/decoded.rs: a log is an event's when its topic0 is the
event's selector (and its contract one of the spec's); it gives a row when eth-abi's strict decoder accepts its
data and indexed topics and encoding the values again gives back exactly the same data and topics (the canonical
encoding Solidity emits); otherwise it is a look-alike. Prints `ok: ...` lines; exits non-zero on a mismatch.
"""
import glob
import json
import random
import sys
from pathlib import Path

import polars as pl
from Crypto.Hash import keccak as _keccak
from eth_abi import decode, encode


def keccak(b):
    return _keccak.new(digest_bits=256, data=b).digest()


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


# An event: (dataset, name, [(type, name, indexed)], addresses or None, from an ABI file).
CONTRACT = bytes.fromhex("c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2")
EVENTS = [
    ("event_Transfer", "Transfer",
     [("address", "from", True), ("address", "to", True), ("uint256", "value", False)], None, False),
    ("event_Swap", "Swap",
     [("address", "sender", True), ("uint256", "amount0In", False), ("int24", "tick", False),
      ("int256", "delta", False), ("bool", "flag", False), ("uint64", "fee", True), ("int8", "level", True)],
     [CONTRACT], False),
    ("event_Note", "Note",
     [("string", "tag", True), ("string", "text", False), ("bytes", "blob", False), ("bytes4", "sel", False),
      ("uint8", "small", False), ("int8", "tiny", False), ("uint112", "reserve", False),
      ("int128", "skew", False), ("bytes", "key", True), ("uint256[]", "ids", True)], None, False),
    ("batch_Batch", "Batch",
     [("uint256[]", "ids", False), ("address[2]", "pair", False), ("(uint64,bytes32)[]", "items", False),
      ("(string,int128)", "info", False), ("string[]", "tags", False), ("int16[][]", "grid", False)],
     None, True),
]
# Tuple component names, in the ABI file (a signature cannot name them: eraflow calls them field0, field1...).
COMPONENTS = {"(uint64,bytes32)[]": ["a", "b"], "(string,int128)": ["s", "x"]}

# The token-archive events (`synth --tokens`): the token standards' events as user events (ERC-721's Transfer,
# all three indexed, by a name of its own), one limited to a contract, and events the archive does not hold.
ERC20_0 = bytes.fromhex("e1" + "00" * 11 + "0000000000000001")
ADDR3 = [("address", "operator", True), ("address", "from", True), ("address", "to", True)]
ARCHIVE = [
    ("event_Transfer", "Transfer",
     [("address", "from", True), ("address", "to", True), ("uint256", "value", False)], None, False),
    ("nft_transfers", "Transfer",
     [("address", "from", True), ("address", "to", True), ("uint256", "tokenId", True)], None, False),
    ("one_token", "Transfer",
     [("address", "from", True), ("address", "to", True), ("uint256", "value", False)], [ERC20_0], False),
    ("event_Approval", "Approval",
     [("address", "owner", True), ("address", "spender", True), ("uint256", "value", False)], None, False),
    ("event_ApprovalForAll", "ApprovalForAll",
     [("address", "owner", True), ("address", "operator", True), ("bool", "approved", False)], None, False),
    ("event_TransferSingle", "TransferSingle",
     ADDR3 + [("uint256", "id", False), ("uint256", "value", False)], None, False),
    ("event_TransferBatch", "TransferBatch",
     ADDR3 + [("uint256[]", "ids", False), ("uint256[]", "values", False)], None, False),
    ("event_Swap", "Swap",
     [("address", "sender", True), ("uint256", "amount0In", False), ("uint256", "amount1In", False),
      ("uint256", "amount0Out", False), ("uint256", "amount1Out", False), ("address", "to", True)], None, False),
    ("event_Sync", "Sync", [("uint112", "reserve0", False), ("uint112", "reserve1", False)], None, False),
    ("event_Deposit", "Deposit", [("address", "dst", True), ("uint256", "wad", False)], None, False),
]

# Events of real mainnet contracts, decoded from the Portal block data's receipts (tests/it/tokens.rs): ERC-20,
# WETH, Uniswap v2 and v3 pools (v3's signed and odd-width integers), ERC-1155, Ownable, and Seaport's
# OrderFulfilled (arrays of tuples: alloy's decoder path).
ITEM, RECEIVED = "(uint8,address,uint256,uint256)", "(uint8,address,uint256,uint256,address)"
REAL = [
    ("event_Transfer", "Transfer",
     [("address", "from", True), ("address", "to", True), ("uint256", "value", False)], None, False),
    ("event_Approval", "Approval",
     [("address", "owner", True), ("address", "spender", True), ("uint256", "value", False)], None, False),
    ("event_Deposit", "Deposit", [("address", "dst", True), ("uint256", "wad", False)], None, False),
    ("event_Withdrawal", "Withdrawal", [("address", "src", True), ("uint256", "wad", False)], None, False),
    ("event_Sync", "Sync", [("uint112", "reserve0", False), ("uint112", "reserve1", False)], None, False),
    ("v2_swaps", "Swap",
     [("address", "sender", True), ("uint256", "amount0In", False), ("uint256", "amount1In", False),
      ("uint256", "amount0Out", False), ("uint256", "amount1Out", False), ("address", "to", True)], None, False),
    ("v3_swaps", "Swap",
     [("address", "sender", True), ("address", "recipient", True), ("int256", "amount0", False),
      ("int256", "amount1", False), ("uint160", "sqrtPriceX96", False), ("uint128", "liquidity", False),
      ("int24", "tick", False)], None, False),
    ("event_TransferSingle", "TransferSingle",
     ADDR3 + [("uint256", "id", False), ("uint256", "value", False)], None, False),
    ("event_TransferBatch", "TransferBatch",
     ADDR3 + [("uint256[]", "ids", False), ("uint256[]", "values", False)], None, False),
    ("event_OwnershipTransferred", "OwnershipTransferred",
     [("address", "previousOwner", True), ("address", "newOwner", True)], None, False),
    ("event_OrderFulfilled", "OrderFulfilled",
     [("bytes32", "orderHash", False), ("address", "offerer", True), ("address", "zone", True),
      ("address", "recipient", False), (ITEM + "[]", "offer", False), (RECEIVED + "[]", "consideration", False)],
     None, False),
]
EVENT_SETS = {"archive": ARCHIVE, "real": REAL}


def spec_of(ev):
    dataset, name, params, addresses, _ = ev
    s = f"{name}(" + ", ".join(f"{t}{' indexed' if ix else ''} {n}" for t, n, ix in params) + ")"
    if not dataset.startswith("event_"):
        s = f"{dataset}={s}"
    return s + ("@" + ",".join("0x" + a.hex() for a in addresses) if addresses else "")


def abi_param(t, n):
    """A JSON ABI parameter of eth-abi type `t` (tuples as `tuple` with named components)."""
    if t.startswith("("):
        inner, suffix = t[1:t.index(")")], t[t.index(")") + 1:]
        comps = [{"type": ty, "name": cn} for ty, cn in zip(inner.split(","), COMPONENTS[t])]
        return {"type": "tuple" + suffix, "name": n, "components": comps}
    return {"type": t, "name": n}


def selector(name, params):
    return keccak((f"{name}(" + ",".join(t for t, _, _ in params) + ")").encode())


def dynamic(t):
    return t in ("string", "bytes") or t.endswith("]") or t.startswith("(")


def big(t):
    for p in ("uint", "int"):
        if t.startswith(p) and t[len(p):].isdigit():
            return int(t[len(p):]) > 64
    return False


def expected(v, t):
    """eth-abi's value as eraflow's column holds it (a wide integer: binary, string, f64)."""
    if t.endswith("]"):
        inner = t[: t.rindex("[")]
        return [expected(x, inner) for x in v]
    if t.startswith("("):
        return tuple(expected(x, ty) for x, ty in zip(v, t[1:-1].split(",")))
    if t == "address":
        return bytes.fromhex(v[2:])
    if big(t):
        return (v.to_bytes(32, "big", signed=v < 0), str(v), float(v))
    return v


def decode_log(ev, address, topics, data):
    """("other", None) when the log is not a candidate, ("row", values by name) or ("lookalike", None)."""
    _, name, params, addresses, _ = ev
    if not topics or topics[0] != selector(name, params):
        return "other", None
    if addresses and address not in addresses:
        return "other", None
    indexed = [(t, n) for t, n, ix in params if ix]
    body_types = [t for t, _, ix in params if not ix]
    if len(topics) != 1 + len(indexed):
        return "lookalike", None
    try:
        body = list(decode(body_types, data, strict=True))
        if encode(body_types, body) != data:
            return "lookalike", None
        row, words = {}, iter(topics[1:])
        for t, n, ix in params:
            if not ix:
                row[n] = expected(body.pop(0), t)
                continue
            word = next(words)
            if dynamic(t):
                row[n] = word  # only the hash is in the log
                continue
            (v,) = decode([t], word, strict=True)
            if encode([t], [v]) != word:
                return "lookalike", None
            row[n] = expected(v, t)
        return "row", row
    except Exception:  # eth-abi refused it: dirty padding, a word out of range, an offset outside the data
        return "lookalike", None


def ours(value, t):
    """A parquet value of type `t` (read by polars) in expected()'s shape."""
    if t.endswith("]"):
        inner = t[: t.rindex("[")]
        return [ours(x, inner) for x in value]
    if t.startswith("("):
        return tuple(ours(x, ty) for x, ty in zip(value.values(), t[1:-1].split(",")))
    if isinstance(value, dict):
        return (value["binary"], value["string"], value["f64"])
    return value


def compare(ev, want, got, where):
    """`want`: [(log key, row)] eth-abi's; `got`: eraflow's rows (dicts)."""
    dataset, _, params, _, from_abi = ev
    if len(want) != len(got):
        fail(f"{where} {dataset}: eraflow {len(got)} rows, eth-abi {len(want)}")
    for (key, w), g in zip(want, got):
        for k, v in key.items():
            if g[k] != v:
                fail(f"{where} {dataset} log {key}: {k}: eraflow {g[k]!r}, expected {v!r}")
        for t, p, ix in params:
            if big(t) and not (ix and dynamic(t)):
                mine = (g[f"{p}_binary"], g[f"{p}_string"], g[f"{p}_f64"])
            else:
                mine = g[p] if ix and dynamic(t) else ours(g[p], t)
            if mine != w[p]:
                fail(f"{where} {dataset} log {key} {p} ({t}): eraflow {mine!r}, eth-abi {w[p]!r}")
            if from_abi and t in COMPONENTS and not ix:
                first = g[p][0] if t.endswith("]") and g[p] else g[p]
                if isinstance(first, dict) and list(first) != COMPONENTS[t]:
                    fail(f"{where} {dataset} {p}: fields {list(first)}, the ABI names {COMPONENTS[t]}")


def rand_value(t, rng):
    if t.endswith("[]"):
        return [rand_value(t[:-2], rng) for _ in range(rng.randrange(4))]
    if t.endswith("[2]"):
        return [rand_value(t[:-3], rng) for _ in range(2)]
    if t.startswith("("):
        return tuple(rand_value(x, rng) for x in t[1:-1].split(","))
    if t == "address":
        return "0x" + rng.randbytes(20).hex()
    if t == "bool":
        return rng.random() < 0.5
    if t == "string":
        return "".join(rng.choice("abcé€𝄞 ") for _ in range(rng.randrange(40)))
    if t == "bytes":
        return rng.randbytes(rng.randrange(70))
    if t.startswith("bytes"):
        return rng.randbytes(int(t[5:]))
    if t.startswith("uint"):
        return rng.getrandbits(rng.randrange(1, int(t[4:]) + 1))
    if t.startswith("int"):
        bits = int(t[3:])
        v = rng.getrandbits(rng.randrange(1, bits))
        return -v - 1 if rng.random() < 0.5 else v
    raise ValueError(t)


def topic_of(t, v):
    """An indexed value's topic: its word, or for a dynamic type the hash of its in-place encoding."""
    if not dynamic(t):
        return encode([t], [v])
    if t == "string":
        return keccak(v.encode())
    if t == "bytes":
        return keccak(v)
    if t.endswith("[]") and not dynamic(t[:-2]):
        return keccak(b"".join(encode([t[:-2]], [x]) for x in v))
    raise ValueError(f"no test topic for indexed {t}")


def gen(out):
    rng = random.Random(7)
    cases = []
    for ev in EVENTS:
        dataset, name, params, addresses, from_abi = ev
        sel = selector(name, params)
        body_types = [t for t, _, ix in params if not ix]
        logs = []
        for i in range(80):
            values = [rand_value(t, rng) for t, _, _ in params]
            topics = [sel] + [topic_of(t, v) for (t, _, ix), v in zip(params, values) if ix]
            data = encode(body_types, [v for (_, _, ix), v in zip(params, values) if not ix])
            address = addresses[0] if addresses else rng.randbytes(20)
            kind = i % 8
            if kind == 1:  # one topic too many or too few
                topics = topics + [rng.randbytes(32)] if len(topics) < 4 else topics[:-1]
            elif kind == 2 and data:  # short data
                data = data[: rng.randrange(len(data))]
            elif kind == 3 and len(data) >= 32:  # the first body word huge: an offset out of bounds, or an
                data = b"\xff" * 31 + b"\x7f" + data[32:]  # integer out of its type's range (a uint256 takes it)
            elif kind == 4 and addresses:  # a foreign contract: neither a row nor a look-alike
                address = rng.randbytes(20)
            elif kind == 5:  # a byte past the end (not what an encoder writes)
                data = data + b"\x00"
            elif kind == 6 and len(topics) > 1:  # an indexed word's padding dirtied (a hash takes it)
                topics = topics[:1] + [b"\x01" + topics[1][1:]] + topics[2:]
            logs.append({"address": address.hex(), "topics": [t.hex() for t in topics], "data": data.hex()})
        if from_abi:
            abi = [{"type": "event", "name": name, "anonymous": False,
                    "inputs": [dict(abi_param(t, n), indexed=ix) for t, n, ix in params]}]
            path = Path(out, "batch.json")
            path.write_text(json.dumps(abi))
            spec = f"{dataset.split('_')[0]}={path}"
        else:
            spec = spec_of(ev)
        cases.append({"spec": spec, "logs": logs})
    Path(out, "logs.json").write_text(json.dumps(cases))


def check(out):
    cases = json.loads(Path(out, "logs.json").read_text())
    lookalikes = json.loads(Path(out, "lookalikes.json").read_text())
    for i, (case, ev) in enumerate(zip(cases, EVENTS)):
        want, rejected = [], 0
        for n, log in enumerate(case["logs"]):
            topics = [bytes.fromhex(t) for t in log["topics"]]
            what, row = decode_log(ev, bytes.fromhex(log["address"]), topics, bytes.fromhex(log["data"]))
            if what == "row":
                want.append(({"log_index": n, "address": bytes.fromhex(log["address"])}, row))
            rejected += what == "lookalike"
        got = pl.read_parquet(Path(out, f"{i}.parquet")).to_dicts()
        compare(ev, want, got, "case")
        if lookalikes[i] != rejected:
            fail(f"{ev[0]}: eraflow counted {lookalikes[i]} look-alikes, eth-abi rejects {rejected}")
        if not want or not rejected:
            fail(f"{ev[0]}: the data must hold both rows and look-alikes")
        print(f"ok: {ev[0]}: {len(want)} rows equal eth-abi's, {rejected} look-alikes give none")


def read(out, dataset):
    files = sorted(glob.glob(f"{out}/{dataset}/*/*.parquet"))
    return pl.concat([pl.read_parquet(f) for f in files]) if files else None


def archive(out, expected_json, events=ARCHIVE):
    exp = json.loads(expected_json)
    logs, blocks = read(out, "logs"), read(out, "blocks")
    if logs is None or blocks is None:
        fail("the export needs logs and blocks")
    ts = dict(zip(blocks["block_number"].to_list(), blocks["timestamp"].to_list()))
    logs = logs.sort(["block_number", "log_index"])
    want = {ev[0]: [] for ev in events}
    lookalikes = {ev[0]: 0 for ev in events}
    for r in logs.iter_rows(named=True):
        topics = [t for t in (r["topic0"], r["topic1"], r["topic2"], r["topic3"]) if t is not None]
        for ev in events:
            what, row = decode_log(ev, r["address"], topics, r["data"])
            if what == "row":
                key = {k: r[k] for k in ("block_number", "block_hash", "transaction_index", "transaction_hash",
                                         "log_index", "address")}
                key.update(timestamp=ts[r["block_number"]], chain_id=exp["chain_id"])
                want[ev[0]].append((key, row))
            lookalikes[ev[0]] += what == "lookalike"
    for ev in events:
        d = ev[0]
        df = read(out, d)
        got = [] if df is None else df.sort(["block_number", "log_index"]).to_dicts()
        compare(ev, want[d], got, "archive")
        if lookalikes[d] != exp["lookalikes"].get(d, 0):
            fail(f"{d}: look-alikes: eth-abi {lookalikes[d]}, run report {exp['lookalikes'].get(d, 0)}")
        print(f"ok: {d}: {len(want[d])} rows, {lookalikes[d]} look-alikes, as eth-abi decodes them")


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "specs":
        events = EVENT_SETS[sys.argv[2] if len(sys.argv) > 2 else "archive"]
        print(json.dumps({ev[0]: spec_of(ev) for ev in events}))
    elif cmd == "archive":
        archive(sys.argv[2], sys.argv[3], EVENT_SETS[sys.argv[4] if len(sys.argv) > 4 else "archive"])
    else:
        {"gen": gen, "check": check}[cmd](sys.argv[2])
