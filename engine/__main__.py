"""``python -m engine``: the native controller."""

import sys

from engine.cli import main

sys.exit(main())
