"""A hostile challenge file on the command line: one line, exit code 2, bounded time and memory.

``python -m engine tournament --challenge FILE`` reads a file anyone may have written (the
page writes the same format, a share link unpacks to it). Whatever it holds — a million
entries, 60 MB of empty objects, 100 MB, deep nesting, a 5,000-digit number, the wrong
types, bytes that are not UTF-8 — the reader says what is wrong in one line and exits 2,
without a traceback, within seconds, and without taking more memory than a few times the
largest file it reads (64 MB).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from peak_rss import CONTROLLER

ROOT = Path(__file__).resolve().parents[2]
RSS_BOUND_MB = 512  # the controller's peak; 60 MB of "{}," took 1.8 GB before values were counted
TIME_BOUND_S = 120  # each case takes 1-6 s on an idle machine



HEAD = {"format": "koth-arena-challenge", "version": 1, "title": "hostile", "description": "",
        "game": "flit", "settings": {}, "games": 2, "seed": 1}
GOOD_ENTRIES = [{"name": "a", "code": "builtin:greedy"}, {"name": "b", "code": "builtin:random"}]


def _with(**fields) -> str:
    return json.dumps({**HEAD, "entries": GOOD_ENTRIES, **fields})


def _entries(items: Iterator[str]) -> Iterator[str]:
    """A file whose entries are ``items`` as written, in parts (this process stays small)."""
    yield json.dumps(HEAD)[:-1] + ', "entries": ['
    for index, item in enumerate(items):
        yield ("," if index else "") + item
    yield "]}"


NOT_MORE_VALUES = "holds at most 8,007 values"
CASES = {
    "a million entries": (
        lambda: _entries(f'{{"name":"b{i}","code":"builtin:greedy"}}' for i in range(10**6)),
        NOT_MORE_VALUES),
    "60 MB of empty objects": (lambda: _entries("{}" for _ in range(20 * 2**20)), NOT_MORE_VALUES),
    "100 MB of spaces": (
        lambda: (" " * 2**20 for _ in range(100)), "is at most 67,108,864 characters; this one is longer"),
    "50 levels deep": (
        lambda: _with(title=json.loads("[" * 50 + "]" * 50)), "nests at most 4 levels deep, got 51"),
    "100,000 levels deep": (lambda: "[" * 100_000, NOT_MORE_VALUES),
    "a 5,000-digit number": (
        lambda: _with(games=0).replace('"games": 0', '"games": ' + "9" * 5000),
        "not JSON: Exceeds the limit (4300 digits)"),
    "an infinite number": (
        lambda: _with(games=0).replace('"games": 0', '"games": 1e400'),
        "games must be a whole number, got Infinity"),
    "NaN": (
        lambda: _with(seed=0).replace('"seed": 0', '"seed": NaN'), "seed must be a whole number, got NaN"),
    "a name that is a list": (
        lambda: _with(entries=[{"name": ["a"], "code": "builtin:greedy"}]),
        "entries[0].name must be text, got a list"),
    "entries that are text": (lambda: _with(entries="builtin:greedy"), "entries must be a list, got text"),
    "a lone surrogate in code": (
        lambda: _with(entries=[{"name": "a", "code": "\ud800"}]), "entries[0].code is not valid text"),
    "an entry two lists deep": (
        lambda: _with(entries=[[[GOOD_ENTRIES[0]]]]), "nests at most 4 levels deep, got 5"),
}


def _tournament(path: Path, rss_file: Path) -> tuple[subprocess.CompletedProcess, float, float]:
    began = time.monotonic()
    done = subprocess.run([sys.executable, "-c", CONTROLLER, str(rss_file), "tournament", "--challenge",
                           str(path)], cwd=ROOT, capture_output=True, text=True, timeout=TIME_BOUND_S)
    return done, time.monotonic() - began, int(rss_file.read_text()) / 1024


def _assert_one_line_exit_2(done: subprocess.CompletedProcess, message: str) -> None:
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stdout == "" and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert done.stderr.startswith("error: challenge file "), done.stderr[-2000:]
    assert done.stderr.count("\n") == 1, done.stderr[-2000:]
    assert message in done.stderr, done.stderr


@pytest.mark.parametrize("case", list(CASES))
def test_a_hostile_challenge_file_is_one_line_and_exit_2_in_bounded_memory(tmp_path, case):
    make, message = CASES[case]
    path = tmp_path / "hostile.challenge.json"
    made = make()
    with path.open("w", encoding="utf-8", errors="surrogatepass") as handle:
        handle.writelines([made] if isinstance(made, str) else made)
    done, seconds, rss_mb = _tournament(path, tmp_path / "rss")
    print(f"{case}: {path.stat().st_size / 2**20:.1f} MB, {seconds:.1f} s, peak {rss_mb:.0f} MB")
    _assert_one_line_exit_2(done, message)
    assert rss_mb < RSS_BOUND_MB, f"{case}: the controller peaked at {rss_mb:.0f} MB"


def test_bytes_that_are_not_utf8_and_a_folder_are_one_line_and_exit_2(tmp_path):
    path = tmp_path / "latin1.challenge.json"
    path.write_bytes(json.dumps({**HEAD, "title": "caf\u00e9"}, ensure_ascii=False).encode("latin-1"))
    done, _, _ = _tournament(path, tmp_path / "rss")
    assert done.returncode == 2 and "cannot read the challenge file" in done.stderr and "utf-8" in done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    done, _, _ = _tournament(tmp_path, tmp_path / "rss")
    assert done.returncode == 2 and "cannot read the challenge file" in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1, done.stderr


def test_the_same_reader_still_plays_a_good_file(tmp_path):
    path = tmp_path / "good.challenge.json"
    path.write_text(_with(), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "engine", "tournament", "--challenge", str(path), "--json",
                           "--secret", "S", "--time-limit", "10000"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["entries"] == ["a", "b"]
