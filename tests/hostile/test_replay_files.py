"""Hostile replay files on the command line: refused with one line, in bounded time.

A replay file is a stranger's (a visitor opens one in the page; an author is sent one). Its
size is capped at 64 MB, and what fills those 64 MB must not cost minutes before the refusal:
63 MB of empty objects took 66 s before the nesting scan ran at C speed (``json_depth``), and
40 MB of brackets 47 s before its passes stopped once they stopped paying.

The bound is the product's: linear time. On a busy machine every linear job slows alike, so
the refusal is measured against ``json.loads`` of a benign list a quarter of the size, timed
in the same run: it may take ten times what that list would take at the hostile file's size,
and never less than a minute.
"""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from engine.core.json_depth import nesting_depth

TIME_BOUND_S = 60  # the least bound: about 10x what the refusal takes near idle
REFERENCE = "import json, sys; json.loads('[' + '1,' * 5_000_000 + '1]')"


@pytest.fixture(scope="module")
def time_bound_s() -> float:
    """Ten times the time to parse a benign list of 21 million numbers (measured on a quarter
    of them, in a process of its own: start-up included, so the estimate errs long)."""
    started = time.monotonic()
    subprocess.run([sys.executable, "-c", REFERENCE], check=True, timeout=600)
    return max(TIME_BOUND_S, 10 * 4 * (time.monotonic() - started))


@pytest.mark.parametrize("body, reason", [
    ("[" + "{}," * 21_000_000 + "{}]", "not a game's name"),
    ("[" * 20_000_000 + "]" * 20_000_000, "nests 20000001 deep"),
], ids=["63-mb-of-empty-objects", "40-mb-of-brackets"])
def test_a_hostile_replay_file_is_refused_in_one_line_in_bounded_time(tmp_path, body, reason, time_bound_s):
    path = tmp_path / "hostile.json"
    path.write_text('{"schema_version": 2, "kind": "series", "game": null, "records": ' + body + "}")
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "engine", "replay", str(path)],
                          capture_output=True, text=True, timeout=time_bound_s * 3)
    elapsed = time.monotonic() - started
    assert done.returncode != 0
    lines = (done.stdout + done.stderr).strip().splitlines()
    assert len(lines) == 1 and reason in lines[0] and "Traceback" not in lines[0], lines[:5]
    assert elapsed < time_bound_s, f"the refusal took {elapsed:.1f} s, over {time_bound_s:.0f} s"


@pytest.mark.parametrize("text, depth", [
    ("", 0), ("1", 0), ("[]", 1), ('[{"a": [1, "]]]"]}]', 3), ("[" * 50 + "]" * 50, 50),
    ("][", 0), ("[[[", 3), ('["\\"[[[", [[]]]', 3), ("[1, \"unterminated [[[[", 1),
    ("[" * 100 + "]" * 99, 100), ("]]][[" + "[]" * 50, 0), ("[[]]" * 30 + "[" * 45 + "]" * 44, 45),
    ("]" * 5 + "[[[]][", 0), ("]" + "[[[", 2), ("[[" + "[]" * 10_000 + "]", 3),
])
def test_nesting_depth_is_exact_on_every_shape(text, depth):
    assert nesting_depth(text) == depth
