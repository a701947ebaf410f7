"""The Ray driver (see the package docstring)."""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from typing import Dict, List, Optional, Sequence

import eraflow as ef


def eraflow_task(bin_path: Optional[str], pipeline: str, files: List[str], sets: List[str], threads: int) -> Dict:
    """One Ray task: ``eraflow run --stages verify,export`` over ``files``; its run report. ``bin_path`` is the
    driver's ``$ERAFLOW_BIN``, if any; otherwise the node runs the package's own ``python -m eraflow``."""
    if bin_path:
        os.environ["ERAFLOW_BIN"] = bin_path
    return ef.run_files(pipeline, files, sets=sets, threads=threads)


def _batches(files: Sequence[str], size: int) -> List[List[str]]:
    size = max(1, size)
    return [list(files[i : i + size]) for i in range(0, len(files), size)]


def run(
    pipeline: str,
    address: Optional[str] = None,
    workers: Optional[int] = None,
    sets: Sequence[str] = (),
    max_retries: int = 3,
    batch: int = 1,
    threads_per_task: int = 1,
    wait: bool = True,
) -> Dict:
    """Runs ``pipeline`` on Ray and returns the run report (``report["exit_code"]`` is the exit status).

    SIGTERM or SIGINT stops it as ``eraflow run`` stops: no new task is started, the running ones finish, the
    report says ``interrupted`` and the exit code is 143 or 130; a rerun does the rest."""
    import ray

    stop = {"signal": None}

    def on_signal(sig, _frame):
        if stop["signal"] is not None:  # a second signal: at once
            raise SystemExit(128 + sig)
        stop["signal"] = sig
        ef._eprint(f"signal {sig}: no new task; waiting for the running ones")

    stop["handler"] = on_signal
    old = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        return _run(ray, stop, pipeline, address, workers, sets, max_retries, batch, threads_per_task, wait)
    finally:
        for s, h in old.items():
            signal.signal(s, h)


def _run(ray, stop, pipeline, address, workers, sets, max_retries, batch, threads_per_task, wait) -> Dict:

    started = ef.rfc3339()
    t0 = time.monotonic()
    pipeline = os.path.abspath(pipeline)
    p = ef.plan(pipeline, sets)
    out = p.get("out")
    if not out:
        raise ef.EraflowError(f"{pipeline}: no `out`", ef.EXIT_USAGE)
    work_stages = [s for s in p["stages"] if s in ("verify", "export")]
    files = [f["path"] for f in p["files"]]
    with ef.RunLock(out, wait=wait):
        reports: List[Dict] = []
        failures: List[Dict] = []
        task_wall = None
        if work_stages and files:
            address = address or os.environ.get("RAY_ADDRESS")
            if address:
                ray.init(address=address, ignore_reinit_error=True)
            else:
                ray.init(num_cpus=workers or os.cpu_count(), include_dashboard=False, ignore_reinit_error=True)
            for sig in (signal.SIGTERM, signal.SIGINT):  # ours again, whatever ray.init installed
                signal.signal(sig, stop["handler"])
            try:
                task = ray.remote(eraflow_task).options(
                    num_cpus=threads_per_task,
                    max_retries=max_retries,
                    retry_exceptions=True,
                )
                bin_path = os.environ.get("ERAFLOW_BIN")
                queue = _batches(files, batch)
                queue.reverse()
                # As many tasks in flight as the cluster runs at once, so a stop takes no new file.
                window = max(1, int(ray.cluster_resources().get("CPU", 1)) // max(1, threads_per_task))
                pending: Dict = {}
                tasks_started = time.monotonic()
                while queue or pending:
                    while queue and len(pending) < window and stop["signal"] is None:
                        b = queue.pop()
                        pending[task.remote(bin_path, pipeline, b, list(sets), threads_per_task)] = b
                    if not pending:
                        break
                    done, _ = ray.wait(list(pending), num_returns=1)
                    for ref in done:
                        b = pending.pop(ref)
                        try:
                            reports.append(ray.get(ref))
                        except Exception as e:  # failed for good, after its retries
                            failures.append({"files": b, "error": str(e).strip().splitlines()[-1][:2000]})
                            ef._eprint(f"error: task over {b} failed after {max_retries} retries: {e}")
                task_wall = time.monotonic() - tasks_started
            finally:
                if not address:
                    ray.shutdown()
        report = ef.merge_reports(p["name"], reports, failures, started, work_stages, task_wall)
        _fold_task_reports(out, report)
        if stop["signal"] is not None:
            report["status"] = "interrupted"
            report["signal"] = stop["signal"]
            report["exit_code"] = 128 + stop["signal"]
            report["ok"] = False
        if "prune" in p["stages"] and report["exit_code"] == ef.EXIT_OK and stop["signal"] is None:
            cmd = [*ef.command(), "run", pipeline, "--stages", "prune", "--no-lock", *ef._sets(sets)]
            rc = subprocess.run(cmd).returncode
            report["prune_exit_code"] = rc
            if rc != 0:
                report["exit_code"] = max(report["exit_code"], rc)
                report["status"] = "failed"
                report["ok"] = False
        report["seconds"] = time.monotonic() - t0
        report["workers"] = workers
        report["threads"] = threads_per_task
        report["inputs"] = files
        report["path"] = ef.write_report(out, report)
    return report


def _fold_task_reports(out: str, report: Dict) -> None:
    """One report per job: each task's own run report (``OUT/_eraflow/runs/<started>-<pid>.json``, written by
    its ``eraflow run``) is nested in ``report["tasks"]``, so a local output's file is removed; an object-store
    output keeps the tasks' objects, each named by its ``report_file``."""
    if ef.is_remote(out):
        return
    runs = os.path.join(ef.local_path(out), "_eraflow", "runs")
    for t in report["tasks"]:
        name = t.get("report_file")
        if name:
            try:
                os.remove(os.path.join(runs, name))
                t["report_file"] = None
            except FileNotFoundError:
                pass


def _summary(report: Dict) -> None:
    for s in report["stages"]:
        files = s["files"]
        skipped = sum(1 for f in files if f.get("skipped"))
        print(
            f"{s['stage']}: {len(files)} files ({len(files) - skipped - s['failed_files']} done, {skipped} skipped "
            f"as complete, {s['failed_files']} failed), {s['blocks']} blocks, {s['transactions']} transactions"
        )
        for f in files:
            if not f.get("ok"):
                print(f"  FAILED {f['file']}")
                for e in f.get("errors", [])[:10]:
                    print(f"    {e}")
    print(f"ray: {report['tasks']} tasks in {report['seconds']:.2f}s", file=sys.stderr)
    print(f"run report: {report['path']}", file=sys.stderr)


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eraflow.ray", description=__doc__)
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run a pipeline file on Ray, one task per input file")
    r.add_argument("pipeline")
    r.add_argument("--address", help="Ray cluster address (default: $RAY_ADDRESS, else a local cluster)")
    r.add_argument("--workers", type=int, help="CPUs of the local cluster (default: all cores)")
    r.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE")
    r.add_argument("--max-retries", type=int, default=3, help="retries of a task whose worker is lost or fails")
    r.add_argument("--batch", type=int, default=1, help="consecutive files per task (default 1)")
    r.add_argument("--threads-per-task", type=int, default=1, help="eraflow threads (and Ray CPUs) per task")
    r.add_argument("--no-wait", action="store_true", help="exit 2 if another run holds the output's lock")
    a = ap.parse_args(argv)
    try:
        report = run(
            a.pipeline,
            address=a.address,
            workers=a.workers,
            sets=a.sets,
            max_retries=a.max_retries,
            batch=a.batch,
            threads_per_task=a.threads_per_task,
            wait=not a.no_wait,
        )
    except ef.EraflowError as e:
        ef._eprint(f"error: {e}")
        return e.code if e.code in (1, 2) else 2
    _summary(report)
    return report["exit_code"]
