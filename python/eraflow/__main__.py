"""``python -m eraflow ...`` and the ``eraflow`` console script: the eraflow command line, from the native module
(the binary's own ``main``, compiled into it), so ``pip install ./python`` alone gives the command."""

import signal
import sys


def main() -> int:
    """Runs ``eraflow`` with this process's arguments and returns its exit code (0, 1, 2 or 128 + a signal)."""
    from eraflow import _native

    # Ctrl-C as for the binary: Python's own SIGINT handler would only raise once the native call returns, so the
    # default action is restored (`run` and `export` install their own stop-between-files handlers over it).
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    # Python's buffered stdout holds nothing yet; the command writes to the same file descriptors itself.
    sys.stdout.flush()
    return _native.main(["eraflow", *sys.argv[1:]])


if __name__ == "__main__":
    sys.exit(main())
