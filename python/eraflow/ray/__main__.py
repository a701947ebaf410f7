"""``python -m eraflow.ray run PIPELINE.toml [--address ADDR] [--workers N]``."""

import sys

from .driver import main

sys.exit(main())
