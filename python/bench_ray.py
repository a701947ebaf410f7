"""1 vs 2 Ray workers on synthetic era1 files (with senders): python python/bench_ray.py [FILES] [BLOCKS].

Prints the wall time of each run (Ray start included, reported apart), the speed-up and the load average."""

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BIN = os.environ.get("ERAFLOW_BIN") or str(REPO / "target" / "debug" / "eraflow")


def main():
    files = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    blocks = int(sys.argv[2]) if len(sys.argv) > 2 else 2048
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        subprocess.run([BIN, "synth", "--era", "0", "--files", str(files), "--blocks", str(blocks),
                        "--txs-per-block", "4", "--out", str(d / "in")], check=True, capture_output=True)
        env = dict(os.environ, ERAFLOW_BIN=BIN, PYTHONPATH=str(REPO / "python"), RAY_ADDRESS="")
        times = {}
        for workers in (1, 2):
            p = d / f"p{workers}.toml"
            p.write_text(f'name = "bench"\ninputs = ["{d / "in"}"]\nout = "{d / f"out{workers}"}"\n[export]\n')
            load0 = os.getloadavg()[0]
            t = time.monotonic()
            r = subprocess.run([sys.executable, "-m", "eraflow.ray", "run", str(p), "--workers", str(workers)],
                               env=env, capture_output=True, text=True)
            wall = time.monotonic() - t
            assert r.returncode == 0, r.stderr
            report = json.loads(next((d / f"out{workers}" / "_eraflow" / "runs").glob("*-ray-*.json")).read_text())
            task_s = sum(s["seconds"] for s in report["stages"])
            times[workers] = wall
            print(f"workers={workers}: wall {wall:.1f}s (driver {report['seconds']:.1f}s, task seconds {task_s:.1f}), "
                  f"load {load0:.1f} -> {os.getloadavg()[0]:.1f}")
        print(f"speed-up 2 vs 1 workers: {times[1] / times[2]:.2f}x; {files} files x {blocks} blocks x 4 tx, "
              f"senders; {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
