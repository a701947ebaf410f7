"""eraflow for notebooks: Ethereum chain archives (era1, era) verified and read straight into Arrow.

>>> import eraflow, polars as pl, duckdb
>>> txs = eraflow.read("mainnet-00001-a5364e9a.era1", "transactions")   # a pyarrow.Table
>>> pl.from_arrow(txs)                                                  # Polars, no copy
>>> duckdb.sql("SELECT count(*) FROM txs")                              # DuckDB, no copy
>>> eraflow.read(path, "logs", stream=True)                             # a pyarrow.RecordBatchReader

Every file is verified (header chain, roots, receipts, accumulator; era: state root and block roots) before a
row is returned; a file that does not verify raises `EraflowError`. Columns are documented in docs/schema.md.
"""
import json
import os

from ._native import SCHEMA_VERSION, EraflowError
from . import _native

__all__ = ["read", "verify", "export", "EraflowError", "SCHEMA_VERSION"]


def read(path, dataset, senders=True, network=None, stream=False):
    """Verifies one archive file and returns one dataset of it.

    `dataset` is one of blocks, transactions, logs, uncles (era1), withdrawals, beacon_blocks (era);
    `senders` recovers `from_address` (the costliest part; False leaves it null); `network` forces a preset
    name or preset file (default: from the file name). Returns a `pyarrow.Table`, or with `stream=True` a
    `pyarrow.RecordBatchReader` (Polars' `pl.from_arrow` and DuckDB consume either without copies).
    """
    reader = _native.read(os.fspath(path), dataset, senders, network)
    return reader if stream else reader.read_all()


def verify(paths, network=None, senders=False, checksum=False):
    """Verifies archives (files, directories, globs): one dict per file, as `eraflow verify --json` prints."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    return [json.loads(line) for line in _native.verify([os.fspath(p) for p in paths], network, senders, checksum)]


def export(out, paths, network=None, **options):
    """Verifies and exports archives to Parquet under `out`, as `eraflow export`; returns the run report.

    `options` are the `[export]` keys: datasets (a list), senders, overwrite, compression, compression_level,
    row_group_size; defaults come from configs/default.toml.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    table = "\n".join(f"{key} = {json.dumps(value)}" for key, value in options.items())
    return json.loads(_native.export(os.fspath(out), [os.fspath(p) for p in paths], network, table))
