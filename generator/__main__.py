"""Allow ``python -m generator``."""

import sys

from generator.cli import run

sys.exit(run())
