"""docs/threat-model.md is the map of what is contained: every row names tests that exist.

A row whose test was renamed or removed would claim a proof that is no longer run; a row
with no test is a surface nobody attacked. Both fail here.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "threat-model.md"
TESTS_COLUMN = 4  # surface, what crosses, boundary, limits, tests, not contained
# `tests/x.py::test_a`, then `::test_b` for more of the same file; `tests/x.py` (all) alone
_REFERENCE = re.compile(r"`(tests/[\w/]+\.py)(?:::(\w+))?`|`::(\w+)`")


def _rows() -> list[list[str]]:
    rows = []
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("| **"):
            rows.append([cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]])
    return rows


def _test_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test")}


def test_every_row_names_tests_and_every_named_test_exists():
    rows = _rows()
    assert len(rows) >= 14, "the table lost rows"
    for row in rows:
        surface, tests = row[0], row[TESTS_COLUMN]
        assert "TODO" not in " ".join(row), f"{surface}: still marked TODO"
        current: Path | None = None
        named = 0
        for file, test, more in _REFERENCE.findall(tests):
            if file:
                current = ROOT / file
                assert current.is_file(), f"{surface}: {file} does not exist"
                named += 1
            name = test or more
            if name:
                assert current is not None, f"{surface}: ::{name} names no file"
                assert name in _test_names(current), f"{surface}: {current.name} has no {name}"
        assert named, f"{surface}: no test proves this row"
