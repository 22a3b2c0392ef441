"""The native controller's replay of a match, for the browser tests that compare a page's
games with it (the same seed gives the same games everywhere)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import ROOMY_MS

ROOT = Path(__file__).resolve().parents[2]


def native_replay(path: Path, *args: str, timeout: float = 900) -> dict:
    """`python -m engine match ARGS --replay PATH`, which must succeed; the replay it wrote."""
    done = subprocess.run([sys.executable, "-m", "engine", "match", *args, "--replay", str(path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr
    return json.loads(path.read_text(encoding="utf-8"))


def bot_file(folder: Path, code: str) -> str:
    """A bot's code as a file in `folder`, named as the command line takes it."""
    path = folder / "script.py"
    path.write_text(code, encoding="utf-8")
    return str(path)


def native_flit_game(folder: Path, first: str, second: str, seed: int, secret: str) -> dict:
    """One Flit game at the tests' roomy time limit, as the page plays it with the same settings."""
    return native_replay(folder / "native.json", "flit", first, second, "--games", "1", "--seed", str(seed),
                         "--secret", secret, "--time-limit", str(ROOMY_MS))["records"][0]
