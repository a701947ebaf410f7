"""The Ray driver: ``python -m eraflow.ray run PIPELINE.toml [--address ADDR] [--workers N]``.

It connects to ``--address`` or ``$RAY_ADDRESS`` (a cluster), else starts a local Ray with ``--workers`` CPUs;
lists the pipeline's inputs with ``eraflow plan`` (which runs its synth stage, if any); holds the output's run
lock (``OUT/_eraflow/run.lock``) so no scheduled ``eraflow run`` interleaves; runs one Ray task per file (or per
``--batch`` consecutive files), each ``eraflow run --stages verify,export`` over its files into the shared
output directory, retried (``--max-retries``) when its worker is lost or eraflow fails for other reasons than
bad data; then the pipeline's prune stage, if any, once; and writes one run report
(``OUT/_eraflow/runs/<started>-ray-<pid>.json``). Exit 0 all verified and exported, 1 a file failed, 2 usage or
I/O (or a task that failed for good), as ``eraflow run``.

Outputs are the bytes a single-machine ``eraflow run`` writes: each output is a function of its source file
and the options only, committed atomically under its final name.
"""

from .driver import main, run  # noqa: F401
