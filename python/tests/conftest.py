"""Tests use the installed package (with its native extension) when there is one, else this checkout's python/
(the Ray driver and the deploy checks need only the binary)."""

import sys
from pathlib import Path

try:
    import eraflow._native  # noqa: F401
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
