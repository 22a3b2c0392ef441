"""The page's Workers start Python from a memory snapshot that keeps only its non-zero pages
(web/src/sparse_snapshot.js): restored into a fresh Pyodide (under Node, as in the page), the
interpreter is the one that was saved, and a snapshot that is not one is refused."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ROUNDTRIP = Path(__file__).resolve().parent / "sparse_snapshot_roundtrip.mjs"


@pytest.fixture(scope="module")
def roundtrip() -> dict:
    node = shutil.which("node")
    if node is None or not (ROOT / "node_modules" / "pyodide").is_dir():
        pytest.fail("node and node_modules/pyodide are needed (scripts/test installs them)", pytrace=False)
    done = subprocess.run([node, str(ROUNDTRIP)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_restored_interpreter_is_the_saved_one(roundtrip):
    # the saved objects are there, and Python can grow past the snapshot's memory
    assert roundtrip["restored"] == [sum(i * i for i in range(100_000)), 1000, 64 * 2**20]


def test_the_sparse_snapshot_leaves_the_empty_pages_out(roundtrip):
    assert roundtrip["sparse"] and not roundtrip["fullIsSparse"]
    assert roundtrip["headerMemoryBytes"] == roundtrip["memoryBytes"]
    # a fresh interpreter's memory is mostly empty pages: the sparse file is far smaller
    assert roundtrip["sparseBytes"] < 0.75 * roundtrip["fullBytes"], roundtrip


def test_a_snapshot_cut_short_or_foreign_is_refused(roundtrip):
    cut, truncated, foreign = roundtrip["refusals"]
    assert cut == truncated == "the snapshot is cut short"
    assert foreign == "not a sparse snapshot"
