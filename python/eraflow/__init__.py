"""eraflow from Python.

Two halves. For notebooks, ``read``, ``verify`` and ``export`` call the library in-process through the native
extension (``eraflow._native``, built by maturin): archives verified and read straight into Arrow —

>>> import eraflow, polars as pl, duckdb
>>> txs = eraflow.read(path, "transactions")   # path: an era1, ere or era file; a pyarrow.Table
>>> pl.from_arrow(txs)                                                  # Polars, no copy
>>> duckdb.sql("SELECT count(*) FROM txs")                              # DuckDB, no copy
>>> eraflow.read(path, "logs", stream=True)                             # a pyarrow.RecordBatchReader

Every file is verified before a row is returned; a file that does not verify raises ``EraflowError`` (its
``exit_status`` is what the command line would exit with: 1 data, 2 usage or I/O, a missing file included).
Columns: docs/schema.md.

The command line is in the package too: ``eraflow ...`` (a console script) and ``python -m eraflow ...`` run
the binary's own ``main``, compiled into the native module.

For jobs (the Ray driver, ``eraflow.ray``), eraflow runs as a subprocess, on purpose: every task runs the same
command line as a single-machine run or a Kubernetes Indexed Job (same code, same bytes), in a process of its
own (the signer and thread pool are per process; a crash or a kill takes one task, never the driver). The
command is ``$ERAFLOW_BIN`` when set (a binary built from source), else this package's own
``python -m eraflow`` (with the interpreter running it, so a Ray node needs only the wheel), else ``eraflow`` on
``PATH``.
"""

from __future__ import annotations

import datetime as _dt
import errno
import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
from typing import Dict, List, Optional, Sequence

__all__ = [
    "read",
    "verify",
    "export",
    "EraflowError",
    "command",
    "plan",
    "run_files",
    "RunLock",
    "merge_reports",
    "write_report",
    "rfc3339",
]

EXIT_OK, EXIT_DATA, EXIT_USAGE = 0, 1, 2


class EraflowError(RuntimeError):
    """``eraflow`` could not do the work at all (usage or I/O error, or it was killed)."""

    def __init__(self, message: str, code: Optional[int] = None):
        super().__init__(message)
        self.code = code

    @property
    def exit_status(self) -> Optional[int]:
        """The command line's exit code for this error (1 data, 2 usage or I/O)."""
        return self.code


def command() -> List[str]:
    """The ``eraflow`` command line to run: ``$ERAFLOW_BIN``, else this package's own (``python -m eraflow``
    with this interpreter, from the native module), else ``eraflow`` on ``PATH``."""
    b = os.environ.get("ERAFLOW_BIN")
    if b:
        return [b]
    try:
        from . import _native  # noqa: F401
    except ImportError:
        pass
    else:
        return [sys.executable, "-m", "eraflow"]
    b = shutil.which("eraflow")
    if not b:
        raise EraflowError(
            "eraflow not found: pip install ./python (it brings the command), or set ERAFLOW_BIN to a built "
            "eraflow binary",
            EXIT_USAGE,
        )
    return [b]


def _die_with_parent() -> None:
    # Linux: the eraflow child is killed when the worker that started it dies, so a lost worker leaves no
    # orphan writing beside the retry.
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:  # pragma: no cover - not Linux
        pass


def _sets(sets: Sequence[str]) -> List[str]:
    out: List[str] = []
    for s in sets:
        out += ["--set", s]
    return out


def plan(pipeline: str, sets: Sequence[str] = (), shard: Optional[str] = None) -> Dict:
    """``eraflow plan PIPELINE --json``: the pipeline's name, output directory, stages and input files (its
    synth stage, if any, runs first so the inputs exist)."""
    cmd = [*command(), "plan", pipeline, "--json", *_sets(sets)]
    if shard:
        cmd += ["--shard", shard]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise EraflowError(f"eraflow plan: exit {p.returncode}: {p.stderr.strip()}", p.returncode or EXIT_USAGE)
    return json.loads(p.stdout)


def run_files(
    pipeline: str,
    files: Sequence[str],
    sets: Sequence[str] = (),
    stages: str = "verify,export",
    threads: Optional[int] = None,
) -> Dict:
    """Runs the pipeline's ``stages`` over ``files`` only (``eraflow run --stages ... --no-lock --json``; the
    caller holds the run lock) and returns its run report. A data error (exit 1) is in the report; anything
    else that is not exit 0 raises :class:`EraflowError`, which a Ray task retries."""
    cmd = command()
    if threads:
        cmd += ["--threads", str(threads)]
    cmd += ["run", pipeline, "--stages", stages, "--no-lock", "--json", *_sets(sets)]
    cmd += ["--set", "inputs=" + json.dumps(list(files))]
    p = subprocess.run(cmd, capture_output=True, text=True, preexec_fn=_die_with_parent)
    if p.returncode in (EXIT_OK, EXIT_DATA):
        report = json.loads(p.stdout)
        report["exit_code"] = p.returncode
        return report
    raise EraflowError(
        f"eraflow run over {list(files)}: exit {p.returncode}: {p.stderr.strip()[-2000:]}", p.returncode
    )


class RunLock:
    """The run lock of an output directory, ``OUT/_eraflow/run.lock`` (flock), the one ``eraflow run`` takes:
    a Ray run and a scheduled ``eraflow run`` over the same output never interleave."""

    def __init__(self, out: str, wait: bool = True):
        # An object store has no lock to take: there the per-(source, dataset) completion records keep
        # concurrent writers apart, and a second run does the same work identically (see the README).
        self.remote = is_remote(out)
        self.path = os.path.join(local_path(out), "_eraflow", "run.lock")
        self.wait = wait
        self.fd: Optional[int] = None

    def __enter__(self) -> "RunLock":
        if self.remote:
            return self
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        flags = fcntl.LOCK_EX | (0 if self.wait else fcntl.LOCK_NB)
        try:
            fcntl.flock(self.fd, flags)
        except OSError as e:
            os.close(self.fd)
            self.fd = None
            if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise EraflowError(f"{self.path}: in use by another run", EXIT_USAGE) from None
            raise
        return self

    def __exit__(self, *exc) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def rfc3339(t: Optional[_dt.datetime] = None) -> str:
    """UTC time as RFC 3339 with seconds (``2026-12-01T13:09:21Z``)."""
    t = t or _dt.datetime.now(_dt.timezone.utc)
    return t.astimezone(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def merge_reports(
    name: str,
    reports: Sequence[Dict],
    failures: Sequence[Dict],
    started: str,
    stage_names: Sequence[str] = (),
    task_wall_seconds: Optional[float] = None,
) -> Dict:
    """One run report for a distributed job, in the shape of ``eraflow run``'s (``name``, ``status``,
    ``exit_code``, ``started``, ``finished``, ``pid``, ``stages`` with each file's outcome, ``ok``, ...), with the
    tasks' own reports nested under ``tasks``.

    A stage's ``seconds`` is wall time: the task phase's wall time (``task_wall_seconds``, from the first task
    started to the last one done) shared among the stages as the tasks spent their time, so the stages add up to
    the phase as in ``eraflow run``; the tasks' summed seconds are ``task_seconds`` beside it. ``failures``
    (``{"files", "error"}``) are tasks that failed for good: their files are failed outcomes in each of
    ``stage_names``."""
    stages: Dict[str, Dict] = {}

    def stage(n: str) -> Dict:
        return stages.setdefault(n, {"stage": n, "seconds": 0.0, "task_seconds": 0.0, "files": []})

    for f in failures:
        for n in stage_names:
            stage(n)["files"] += [{"file": p, "ok": False, "errors": [f["error"]]} for p in f["files"]]
    for r in reports:
        for s in r.get("stages", []):
            st = stage(s["stage"])
            st["task_seconds"] += s.get("seconds", 0.0)
            st["files"] += s.get("files", [])
    total_task = sum(st["task_seconds"] for st in stages.values())
    for st in stages.values():
        if task_wall_seconds is None:
            st["seconds"] = st["task_seconds"]
        elif total_task > 0:
            st["seconds"] = task_wall_seconds * st["task_seconds"] / total_task
        else:
            st["seconds"] = task_wall_seconds / max(1, len(stages))
        st["files"].sort(key=lambda f: f["file"])
        done = [f for f in st["files"] if not f.get("skipped")]
        st["failed_files"] = sum(1 for f in st["files"] if not f.get("ok"))
        st["blocks"] = sum(f.get("blocks", 0) for f in done)
        st["transactions"] = sum(f.get("transactions", 0) for f in done)
        secs = max(st["seconds"], 1e-9)
        st["blocks_per_second"] = st["blocks"] / secs
        st["megabytes_per_second"] = sum(f.get("bytes_in", 0) for f in done) / 1e6 / secs
    failed = any(st["failed_files"] for st in stages.values())
    exit_code = EXIT_USAGE if failures else (EXIT_DATA if failed else EXIT_OK)
    versions = sorted({r.get("eraflow_version") for r in reports if r.get("eraflow_version")})
    rss = [r["peak_rss_bytes"] for r in reports if r.get("peak_rss_bytes")]
    now = _dt.datetime.now(_dt.timezone.utc)
    return {
        "name": name,
        "status": "ok" if exit_code == EXIT_OK else "failed",
        "exit_code": exit_code,
        "started": started,
        "finished": rfc3339(now),
        "signal": None,
        "shard": None,
        "pid": os.getpid(),
        "eraflow_version": versions[0] if len(versions) == 1 else ",".join(versions) or None,
        "started_at": int(_dt.datetime.strptime(started, "%Y-%m-%dT%H:%M:%SZ")
                          .replace(tzinfo=_dt.timezone.utc).timestamp()),
        "seconds": None,
        "threads": None,
        "inputs": sorted({f["file"] for st in stages.values() for f in st["files"]}),
        "stages": [stages[k] for k in ("verify", "export") if k in stages],
        "peak_rss_bytes": max(rss) if rss else None,
        "ok": exit_code == EXIT_OK,
        "driver": "ray",
        "task_failures": list(failures),
        "tasks": [
            {
                "files": sorted({f["file"] for s in r.get("stages", []) for f in s.get("files", [])}),
                "report_file": task_report_name(r),
                "report": r,
            }
            for r in reports
        ],
    }


def task_report_name(report: Dict) -> Optional[str]:
    """The file name ``eraflow run`` saved ``report`` under in ``OUT/_eraflow/runs/`` (``<started>-<pid>.json``)."""
    if "started" in report and "pid" in report:
        return f"{report['started']}-{report['pid']}.json"
    return None


def is_remote(out: str) -> bool:
    """Whether ``out`` is an object-store URL (``s3://``, ``gs://``, ``az://``) rather than a local folder."""
    return "://" in out and not out.startswith("file://")


def local_path(out: str) -> str:
    """The folder a local ``out`` names (a path, or a ``file://`` URL)."""
    return out[len("file://"):] if out.startswith("file://") else out


def write_report(out: str, report: Dict) -> str:
    """Writes ``report`` to ``OUT/_eraflow/runs/<started>-ray-<pid>.json`` (atomically: a local rename, or an
    object that appears whole) and returns its path or URL."""
    if is_remote(out):
        import tempfile

        with tempfile.TemporaryDirectory(prefix="eraflow-report-") as d:
            path = os.path.join(d, f"{report['started']}-ray-{os.getpid()}.json")
            with open(path, "w") as f:
                json.dump(report, f, indent=2)
            return _load_native().upload_report(out, path)
    d = os.path.join(local_path(out), "_eraflow", "runs")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, f"{report['started']}-ray-{os.getpid()}.json")
    tmp = os.path.join(d, f".{os.path.basename(path)}.tmp")
    with open(tmp, "w") as f:
        json.dump(report, f, indent=2)
    os.replace(tmp, path)
    return path


def _eprint(*a) -> None:
    print(*a, file=sys.stderr, flush=True)


# --- In-process API (the native extension) -------------------------------------------------------------------


def _load_native():
    """The native extension, imported on first use (the Ray driver needs only the binary)."""
    try:
        from . import _native as native
    except ImportError as e:  # a source checkout without the built extension
        raise ImportError("eraflow's native extension is not built: pip install ./python") from e
    return native


def _call(f, *args):
    native = _load_native()
    try:
        return f(native)(*args)
    except native.EraflowError as e:
        raise EraflowError(str(e), getattr(e, "exit_status", None)) from None


def read(path, dataset, senders=True, network=None, stream=False, table_format=None):
    """Verifies one archive file and returns one dataset of it; or, given an export's output (a directory, or
    any path with ``table_format``), that output's dataset.

    ``dataset`` is one of blocks, transactions, logs, uncles (era1), withdrawals, beacon_blocks, the block
    operations (attestations, deposits, ..., see docs/schema.md) and validators (era);
    ``senders`` recovers ``from_address`` (the costliest part; False leaves it null); ``network`` forces a
    preset name or preset file (default: from the file name). Returns a ``pyarrow.Table``, or with
    ``stream=True`` a ``pyarrow.RecordBatchReader`` (Polars' ``pl.from_arrow`` and DuckDB consume either
    without copies: the batches cross through the Arrow C stream interface).
    """
    if table_format is not None or os.path.isdir(path):
        return _read_output(os.fspath(path), dataset, table_format or "parquet", stream)
    reader = _call(lambda n: n.read, os.fspath(path), dataset, senders, network)
    return reader if stream else reader.read_all()


def _read_output(out, dataset, table_format, stream):
    """Dataset ``dataset`` of the export at ``out``: its Delta table (``table_format="delta"``: the files of the
    table's latest version, through the ``deltalake`` package) or its Parquet files (``"parquet"``: every
    ``network=`` partition, read as a ``network`` column)."""
    import pyarrow

    where = f"{out.rstrip('/')}/{dataset}"
    if table_format == "delta":
        try:
            import deltalake
            from deltalake.exceptions import DeltaError, TableNotFoundError
        except ImportError as e:
            raise ImportError("table_format='delta' reads through the deltalake package: pip install deltalake") from e
        unreadable, missing = (OSError, pyarrow.ArrowException, DeltaError), (FileNotFoundError, TableNotFoundError)
    elif table_format == "parquet":
        import pyarrow.dataset as ds

        unreadable, missing = (OSError, pyarrow.ArrowException), FileNotFoundError
    else:
        raise EraflowError(f"unknown table format {table_format!r} (expected 'parquet' or 'delta')", EXIT_USAGE)
    # A missing or unreadable output or dataset is an I/O error, exit 2 on the command line: EraflowError, the
    # reader's own error as its cause.
    try:
        if table_format == "delta":
            table = deltalake.DeltaTable(where).to_pyarrow_dataset()
        else:
            table = ds.dataset(where, format="parquet", partitioning="hive")
        return table.scanner().to_reader() if stream else table.to_table()
    except unreadable as e:
        what = "no such output or dataset" if isinstance(e, missing) else "unreadable"
        detail = "" if str(e) in ("", where) else f": {e}"
        raise EraflowError(f"{where}: {what} ({table_format}){detail}", EXIT_USAGE) from e


def verify(paths, network=None, senders=False, checksum=False):
    """Verifies archives (files, directories, globs): one dict per file, as ``eraflow verify --json`` prints."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    lines = _call(lambda n: n.verify, [os.fspath(p) for p in paths], network, senders, checksum)
    return [json.loads(line) for line in lines]


def export(out, paths, network=None, **options):
    """Verifies and exports archives to Parquet under ``out``, as ``eraflow export``; returns the run report.

    ``options`` are the ``[export]`` keys: datasets (a list), senders, overwrite, compression,
    compression_level, row_group_size; defaults come from configs/default.toml.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    table = "\n".join(f"{key} = {json.dumps(value)}" for key, value in options.items())
    text = _call(lambda n: n.export, os.fspath(out), [os.fspath(p) for p in paths], network, table)
    return json.loads(text)
