#!/usr/bin/env python3
"""Full-history rehearsal: one synthetic file of each kind at mainnet's shape, measured, then projected.

    python3 scripts/rehearse.py [--bin target/release/eraflow] [--size full|tiny] [--work DIR]
                                [--scale-out] [--ray-workers N] [--markdown OUT.md] [--json OUT.json]

For each kind it synthesises a dense file (mainnet's density for its period) and a light one (a tenth of the
transactions) with `eraflow synth`, and measures `verify`, `export` (senders on, every default dataset) and
`prune` (era1 and ere) as separate processes: CPU seconds (user + system, from wait4), wall seconds, peak RSS and
bytes written. Each stage's CPU per file is fitted as `fixed + per_tx * transactions` from the two files (era:
`fixed` scales with the state's validator count) and summed over mainnet's real file counts with each period's
density: core-hours for the whole history, wall hours on this machine and on a Ray cluster.

`--scale-out` adds the scale-out check on two dense era1 files: CPU seconds per file of one process, of two
concurrent `--shard K/2` processes and of a 2-worker local Ray run (CPU read from every eraflow process the Ray
tasks start, via a `/usr/bin/time` wrapper), each as a ratio to the single process.

The period densities below are approximations of public chain statistics (transactions per block by year,
validator registry size by year); they are inputs to the projection, not measurements. `--size tiny` runs every
step on small files (the test suite does) so the script cannot rot.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# Mainnet facts the projection counts files with.
MERGE_BLOCK = 15_537_394  # first proof-of-stake block
MERGE_TIME = dt.datetime(2022, 9, 15, 6, 42, 59, tzinfo=dt.timezone.utc)
BEACON_GENESIS = dt.datetime(2020, 12, 1, 12, 0, 23, tzinfo=dt.timezone.utc)
SLOT_SECONDS = 12
SLOTS_PER_ERA = 8192
BLOCKS_PER_FILE = 8192
ERA1_FILES = -(-MERGE_BLOCK // BLOCKS_PER_FILE)  # 1897: mainnet-00000 .. mainnet-01896
ERE_ERA = 123  # synthnet's first era wholly in Prague: blobs, type 4, withdrawals, requests
MISSED_SLOTS = 0.01  # about 1% of slots have no block

# Approximate mainnet density per period (public daily transaction counts / blocks per day; validator registry
# size). (first file, label, transactions per block) for execution files, by era1/ere file index.
EXECUTION_PERIODS = [
    (0, "2015", 1.5),
    (95, "2016", 7),
    (355, "2017", 55),
    (590, "2018", 115),
    (853, "2019", 110),
    (1122, "2020", 150),
    (1412, "2021", 190),
    (1699, "2022", 160),
    (1991, "2023", 150),
    (2308, "2024", 165),
    (2628, "2025", 210),
    (2946, "2026 (assumed as 2025)", 210),
]
# (first era, label, validators in the state, transactions per slot's payload: 0 before the merge)
CONSENSUS_PERIODS = [
    (0, "2020-21, before the merge", 150_000, 0),
    (574, "2022, after the merge", 450_000, 150),
    (642, "2023", 750_000, 150),
    (963, "2024", 1_000_000, 165),
    (1284, "2025", 1_100_000, 210),
    (1605, "2026 (assumed as 2025)", 1_100_000, 210),
]

SIZES = {
    # era1 of a busy 2021 era (London: type 0-2), ere of a 2025 era (Prague: blobs, type 4, withdrawals,
    # requests), era of Fulu with today's validator count.
    "full": {"blocks": 8192, "era1_txs": 185, "ere_txs": 170, "era_txs": 170, "validators": 1_100_000},
    "tiny": {"blocks": 64, "era1_txs": 20, "ere_txs": 20, "era_txs": 10, "validators": 4096},
}


def run(cmd, env=None):
    """Runs `cmd` (no figures): its exit code and stderr."""
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, env=env)
    return p.returncode, p.stderr


def start(cmd, env=None):
    """Starts `cmd` with its output in a temporary file (a pipe could fill and block it)."""
    out = tempfile.TemporaryFile()
    return cmd, out, time.monotonic(), subprocess.Popen([str(c) for c in cmd], stdout=out,
                                                         stderr=subprocess.STDOUT, env=env)


def reap(started):
    """Waits for a `start`ed command: {wall, cpu, rss_mib} from wait4; exits with its output if it failed."""
    cmd, out, t0, p = started
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    code = os.waitstatus_to_exitcode(status)
    with out:
        if code != 0:
            out.seek(0)
            raise SystemExit(f"{' '.join(map(str, cmd))}: exit {code}\n{out.read().decode(errors='replace')}")
    return {"wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "rss_mib": ru.ru_maxrss / 1024}


def measure(cmd, env=None):
    """Runs `cmd` to completion: its figures (see `reap`)."""
    return reap(start(cmd, env))


def concurrently(cmds):
    """Runs `cmds` at once; each one's figures."""
    return [reap(s) for s in [start(c) for c in cmds]]


def tree_bytes(path):
    return sum(f.stat().st_size for f in Path(path).rglob("*") if f.is_file())


def synth(bin_, out, kind, blocks, txs, validators=None, files=1):
    """One synthetic file (or `files` consecutive ones) of `kind`; their paths."""
    cmd = [bin_, "synth", "-q", "--kind", kind, "--blocks", blocks, "--txs-per-block", txs, "--files", files,
           "--out", out]
    if kind == "era1":
        cmd += ["--era", "1"]  # blocks 8192-16383 of synthnet: all London (types 0-2), as 2021
    elif kind == "ere":
        cmd += ["--era", str(ERE_ERA)]
    else:
        cmd += ["--fork", "fulu", "--validators", validators]
    measure(cmd)
    ext = {"era1": ".era1", "ere": ".ere", "era": ".era"}[kind]
    return sorted(p for p in Path(out).iterdir() if p.name.endswith(ext))


def stages_of(bin_, work, name, path, blocks, threads):
    """verify, export and (execution files) prune of one file: {stage: figures}."""
    t = ["--threads", str(threads)] if threads else []
    res = {"verify": measure([bin_, "verify", "-q", *t, path])}
    out = work / f"out-{name}"
    shutil.rmtree(out, ignore_errors=True)
    res["export"] = measure([bin_, "export", "-q", *t, "--out", out, path])
    res["export"]["bytes_out"] = tree_bytes(out)
    shutil.rmtree(out, ignore_errors=True)
    if not path.name.endswith(".era"):
        pout = work / f"prune-{name}"
        shutil.rmtree(pout, ignore_errors=True)
        # Past the merge prune wants the range's end said explicitly (rolling expiry reaches post-merge blocks).
        until = ["--until-block", str(ERE_ERA * BLOCKS_PER_FILE + blocks)] if path.name.endswith(".ere") else []
        res["prune"] = measure([bin_, "prune", "-q", *t, *until, "--out", pout, path])
        res["prune"]["bytes_out"] = tree_bytes(pout)
        shutil.rmtree(pout, ignore_errors=True)
    return res


def fit(dense, light, x_dense, x_light):
    """(fixed, per_x) of a line through two measured points (per_x clamped at 0 against noise)."""
    per = max(0.0, (dense - light) / max(1e-9, x_dense - x_light))
    return max(0.0, dense - per * x_dense), per


def file_counts(as_of):
    """(era1 files, ere files past the merge, era files) of mainnet on date `as_of`."""
    since_merge = (as_of - MERGE_TIME).total_seconds() / SLOT_SECONDS
    head = MERGE_BLOCK + int(since_merge * (1 - MISSED_SLOTS))
    ere_total = -(-head // BLOCKS_PER_FILE)
    eras = int((as_of - BEACON_GENESIS).total_seconds() / SLOT_SECONDS) // SLOTS_PER_ERA + 1
    return ERA1_FILES, ere_total - ERA1_FILES, eras, head


def spans(periods, first, end):
    """(label, number of files, density...) of each period clipped to files first..end."""
    out = []
    for i, (start, label, *density) in enumerate(periods):
        stop = periods[i + 1][0] if i + 1 < len(periods) else end
        lo, hi = max(start, first), min(stop, end)
        if hi > lo:
            out.append((label, hi - lo, *density))
    return out


def project(measured, shape, as_of):
    """Core-hours per kind and stage over mainnet's history, with the per-period breakdown."""
    n_era1, n_ere, n_era, head = file_counts(as_of)
    blocks = shape["blocks"]
    scale = BLOCKS_PER_FILE / blocks  # tiny files stand for full ones: per-block costs scale up
    lines, totals = [], {}
    for kind, periods, first, end in (
        ("era1", EXECUTION_PERIODS, 0, n_era1),
        ("ere", EXECUTION_PERIODS, n_era1, n_era1 + n_ere),
    ):
        d, l = measured[kind]["dense"], measured[kind]["light"]
        for stage in d["stages"]:
            fixed, per_tx = fit(d["stages"][stage]["cpu"], l["stages"][stage]["cpu"], d["txs"], l["txs"])
            cpu = 0.0
            for label, files, tpb in spans(periods, first, end):
                c = files * scale * (fixed + per_tx * tpb * blocks)
                cpu += c
                lines.append((kind, stage, label, files, tpb, c / 3600))
            totals[(kind, stage)] = cpu / 3600
    d, l = measured["era"]["dense"], measured["era"]["light"]
    v0 = shape["validators"]
    for stage in d["stages"]:
        # The fixed share (the state, and the blocks' attestations, whose committees grow with the registry up
        # to 64 per slot) is scaled by the validator count; the payloads' share by their transactions.
        fixed, per_tx = fit(d["stages"][stage]["cpu"], l["stages"][stage]["cpu"], d["txs"], l["txs"])
        cpu = 0.0
        for label, files, validators, tps in spans(CONSENSUS_PERIODS, 0, n_era):
            c = files * scale * (fixed * validators / v0 + per_tx * tps * blocks)
            cpu += c
            lines.append(("era", stage, label, files, tps, c / 3600))
        totals[("era", stage)] = cpu / 3600
    return {"files": {"era1": n_era1, "ere_past_merge": n_ere, "era": n_era, "head_block": head},
            "periods": lines, "core_hours": totals}


def scale_out(bin_, work, blocks, txs):
    """Two dense era1 files exported by one process, by two concurrent shards and by a 2-worker Ray run: CPU
    seconds per file of each, one thread per process."""
    src = work / "scale-out"
    shutil.rmtree(src, ignore_errors=True)
    files = synth(bin_, src, "era1", blocks, txs, files=2)
    one = measure([bin_, "export", "-q", "--threads", "1", "--out", work / "so-one", *files])
    shards = concurrently([[bin_, "export", "-q", "--threads", "1", "--shard", f"{k}/2", "--out", work / "so-shards",
                            *files] for k in range(2)])
    res = {"single process": {"cpu_per_file": one["cpu"] / 2, "wall": one["wall"], "rss_mib": one["rss_mib"]},
           "2 concurrent shards": {"cpu_per_file": sum(s["cpu"] for s in shards) / 2,
                                   "wall": max(s["wall"] for s in shards),
                                   "rss_mib": max(s["rss_mib"] for s in shards)}}
    try:
        import ray  # noqa: F401
    except ImportError:
        res["ray"] = "skipped: ray is not installed"
        return res
    log = work / "ray-time.log"
    log.unlink(missing_ok=True)
    wrapper = work / "eraflow-timed"
    wrapper.write_text(f'#!/bin/sh\nexec /usr/bin/time -a -o "{log}" -f "%U %S %M %e %C" "{bin_}" "$@"\n')
    wrapper.chmod(0o755)
    pipeline = work / "scale-out.toml"
    pipeline.write_text(f'name = "rehearsal"\ninputs = ["{src}"]\nout = "{work / "so-ray"}"\n[export]\n')
    env = dict(os.environ, ERAFLOW_BIN=str(wrapper), PYTHONPATH=str(REPO / "python"), RAY_ADDRESS="")
    t0 = time.monotonic()
    code, err = run([sys.executable, "-m", "eraflow.ray", "run", pipeline, "--workers", "2"], env=env)
    wall = time.monotonic() - t0
    if code != 0:
        raise SystemExit(f"ray run: exit {code}\n{err}")
    tasks = [line.split(" ", 4) for line in log.read_text().splitlines() if "--stages" in line]
    res["2 Ray workers"] = {"cpu_per_file": sum(float(u) + float(s) for u, s, *_ in tasks) / 2,
                            "wall": wall, "rss_mib": max(int(m) for _, _, m, *_ in tasks) / 1024,
                            "tasks": len(tasks)}
    return res


def markdown(r):
    m, p = r["measured"], r["projection"]
    out = [f"Measured {r['date']} with `{r['command']}` ({r['cores']} cores, load {r['load'][0]:.1f} -> "
           f"{r['load'][1]:.1f}; threads: {r['threads'] or 'all cores'}).", "",
           "| file | transactions | size | stage | CPU s | wall s | peak RSS MiB | bytes out |", "|---|---|---|---|---|---|---|---|"]
    for kind in ("era1", "ere", "era"):
        for density in ("dense", "light"):
            f = m[kind][density]
            for stage, s in f["stages"].items():
                out.append(f"| {kind} {density} ({f['desc']}) | {f['txs']:,} | {f['bytes'] / 1e6:.1f} MB | {stage} | "
                           f"{s['cpu']:.2f} | {s['wall']:.2f} | {s['rss_mib']:.0f} | "
                           f"{s.get('bytes_out', 0) / 1e6:.1f} MB |")
    fc = p["files"]
    out += ["", f"Mainnet on {r['as_of']}: head ~{fc['head_block']:,}; {fc['era1']} era1 files (pre-merge), "
            f"{fc['ere_past_merge']} ere files past the merge, {fc['era']} era files.", "",
            "| kind | stage | core-hours |", "|---|---|---|"]
    for (kind, stage), h in p["core_hours"].items():
        out.append(f"| {kind} | {stage} | {h:.1f} |")
    total_export = sum(h for (k, s), h in p["core_hours"].items() if s == "export")
    total_verify = sum(h for (k, s), h in p["core_hours"].items() if s == "verify")
    out += ["", f"Whole history, export (verification included; era1 + ere past the merge + era): "
            f"**{total_export:.0f} core-hours**; verify alone {total_verify:.0f} core-hours; prune manifest (era1): "
            f"{p['core_hours'].get(('era1', 'prune'), 0):.1f} core-hours.",
            f"On this machine ({r['cores']} cores): {total_export / r['cores']:.0f} hours of wall for the export. "
            f"On a Ray cluster of {r['ray_workers']} workers x {r['ray_cores']} cores at the measured scale-out "
            f"efficiency ({r['efficiency']:.2f}): {total_export / (r['ray_workers'] * r['ray_cores'] * r['efficiency']):.1f} hours."]
    if r.get("scale_out"):
        so = r["scale_out"]
        base = so["single process"]["cpu_per_file"]
        out += ["", "| scale-out, 2 dense era1 files, export, 1 thread per process | CPU s per file | ÷ single process "
                "(CPU per file) | wall s | peak RSS MiB |", "|---|---|---|---|---|"]
        for k, v in so.items():
            if isinstance(v, dict):
                out.append(f"| {k} | {v['cpu_per_file']:.2f} | {base / v['cpu_per_file']:.3f} | {v['wall']:.1f} | "
                           f"{v['rss_mib']:.0f} |")
            else:
                out.append(f"| {k} | {v} | | | |")
    return "\n".join(out) + "\n"


def main(argv=None):
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument("--bin", default=os.environ.get("ERAFLOW_BIN") or str(REPO / "target" / "release" / "eraflow"))
    a.add_argument("--size", choices=sorted(SIZES), default="full")
    a.add_argument("--work", help="working directory (default: a temporary one, removed at the end)")
    a.add_argument("--threads", type=int, help="worker threads per eraflow process (default: all cores)")
    a.add_argument("--scale-out", action="store_true", help="also measure 2 shards and 2 Ray workers")
    a.add_argument("--ray-workers", type=int, default=16, help="workers of the projected Ray cluster")
    a.add_argument("--ray-cores", type=int, default=8, help="cores per worker of the projected Ray cluster")
    a.add_argument("--as-of", default=dt.date.today().isoformat(), help="date mainnet's file counts are taken at")
    a.add_argument("--markdown", help="write the tables here")
    a.add_argument("--json", help="write every figure here")
    args = a.parse_args(argv)
    bin_ = Path(args.bin).resolve()
    shape = SIZES[args.size]
    tmp = None
    if args.work:
        work = Path(args.work)
        work.mkdir(parents=True, exist_ok=True)
    else:
        tmp = tempfile.TemporaryDirectory(prefix="eraflow-rehearsal-")
        work = Path(tmp.name)
    load0 = os.getloadavg()
    blocks = shape["blocks"]
    measured = {}
    for kind, txs, desc in (
        ("era1", shape["era1_txs"], "London, as 2021"),
        ("ere", shape["ere_txs"], "Prague, as 2025"),
        ("era", shape["era_txs"], f"Fulu, {shape['validators']:,} validators"),
    ):
        measured[kind] = {}
        for density, t in (("dense", txs), ("light", max(1, txs // 10))):
            d = work / f"{kind}-{density}"
            shutil.rmtree(d, ignore_errors=True)
            print(f"{kind} {density}: synthesising {blocks} blocks x {t} transactions", file=sys.stderr, flush=True)
            (path,) = synth(bin_, d, kind, blocks, t, shape["validators"])
            print(f"{kind} {density}: measuring {path.name}", file=sys.stderr, flush=True)
            measured[kind][density] = {"path": str(path), "bytes": path.stat().st_size, "txs": blocks * t,
                                       "desc": desc, "stages": stages_of(bin_, work, f"{kind}-{density}", path,
                                                                         blocks, args.threads)}
            shutil.rmtree(d, ignore_errors=True)
    so = None
    efficiency = 1.0
    if args.scale_out:
        print("scale-out: 2 era1 files, single process / 2 shards / 2 Ray workers", file=sys.stderr, flush=True)
        so = scale_out(bin_, work, blocks, shape["era1_txs"])
        ray_fig = so.get("2 Ray workers")
        if isinstance(ray_fig, dict):
            efficiency = so["single process"]["cpu_per_file"] / ray_fig["cpu_per_file"]
    as_of = dt.datetime.fromisoformat(args.as_of).replace(tzinfo=dt.timezone.utc)
    cmd = "python3 scripts/rehearse.py " + " ".join(argv if argv is not None else sys.argv[1:])
    r = {"date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "command": cmd.strip(),
         "cores": os.cpu_count(), "load": [load0[0], os.getloadavg()[0]], "threads": args.threads,
         "shape": shape, "measured": measured, "as_of": args.as_of,
         "projection": project(measured, shape, as_of), "scale_out": so,
         "ray_workers": args.ray_workers, "ray_cores": args.ray_cores, "efficiency": efficiency}
    text = markdown(r)
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text)
    if args.json:
        j = dict(r)
        j["projection"] = dict(r["projection"])
        j["projection"]["core_hours"] = {f"{k}/{s}": h for (k, s), h in r["projection"]["core_hours"].items()}
        Path(args.json).write_text(json.dumps(j, indent=1, default=str))
    if tmp:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
