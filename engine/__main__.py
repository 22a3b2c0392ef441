"""``python -m engine``: the native controller."""

import os
import sys

from engine.cli.cli import main

try:
    sys.exit(main())
except BrokenPipeError:  # e.g. piped into `head`: stop quietly
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    sys.exit(1)
