"""Hostile replay files on the command line: refused with one line, in bounded time.

A replay file is a stranger's (a visitor opens one in the page; an author is sent one). Its
size is capped at 64 MB, and what fills those 64 MB must not cost minutes before the refusal:
63 MB of empty objects took 66 s before the nesting scan ran at C speed (``json_depth``).
"""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from engine.core.json_depth import nesting_depth

TIME_BOUND_S = 60  # about 10x what the refusal takes on a busy 2-core machine


@pytest.mark.parametrize("body, reason", [
    ("[" + "{}," * 21_000_000 + "{}]", "not a game's name"),
    ("[" * 20_000_000 + "]" * 20_000_000, "nests 20000001 deep"),
], ids=["63-mb-of-empty-objects", "40-mb-of-brackets"])
def test_a_hostile_replay_file_is_refused_in_one_line_in_bounded_time(tmp_path, body, reason):
    path = tmp_path / "hostile.json"
    path.write_text('{"schema_version": 2, "kind": "series", "game": null, "records": ' + body + "}")
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "engine", "replay", str(path)],
                          capture_output=True, text=True, timeout=TIME_BOUND_S * 3)
    elapsed = time.monotonic() - started
    assert done.returncode != 0
    lines = (done.stdout + done.stderr).strip().splitlines()
    assert len(lines) == 1 and reason in lines[0] and "Traceback" not in lines[0], lines[:5]
    assert elapsed < TIME_BOUND_S, f"the refusal took {elapsed:.1f} s"


@pytest.mark.parametrize("text, depth", [
    ("", 0), ("1", 0), ("[]", 1), ('[{"a": [1, "]]]"]}]', 3), ("[" * 50 + "]" * 50, 50),
    ("][", 0), ("[[[", 3), ('["\\"[[[", [[]]]', 3), ("[1, \"unterminated [[[[", 1),
])
def test_nesting_depth_is_exact_on_every_shape(text, depth):
    assert nesting_depth(text) == depth
