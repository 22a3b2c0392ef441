"""The step budget counts the same under Pyodide (the page's Python 3.14, run here by Node) as
under CPython: the example bots and docs/bots.md's bots, turn by turn, on fixed games."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import budget_games  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RUNNER = Path(__file__).resolve().parent / "pyodide_python.mjs"
HARNESS = Path(__file__).resolve().parent / "budget_games.py"

PLAY = '''
import json, sys, types
harness = types.ModuleType("budget_games")
exec(compile(HARNESS, "budget_games.py", "exec"), harness.__dict__)
cases = json.loads(CASES)
out = []
for case in cases:
    if case["game"] == "atomas":
        out.append(harness.play_atomas(case["sources"][0], case["seed"], case["length"]))
    else:
        told = harness.flit_messages(case["seed"], case["length"])
        out.append({"steps": harness.count_flit(case["sources"][0], told), "told": told})
json.dumps({"results": out, "version": sys.version_info[:2], "platform": sys.platform})
'''


def _cases() -> list[dict]:
    examples = {f"{p.parent.parent.name}/{p.stem}": p.read_text()
                for p in sorted((ROOT / "engine/games").glob("*/examples/*.py"))}
    readme = budget_games.readme_bots((ROOT / "docs" / "bots.md").read_text())
    atomas = [examples["atomas/greedy"], examples["atomas/random"], examples["atomas/script"],
              readme["atomas/function"], readme["atomas/script"]]
    # Flit bots are counted on fixed inputs (one recorded game's messages), not in games of
    # their own: the greedy examples draw random tie-breaks in a set of tuples' order, which
    # differs between 64-bit CPython and 32-bit Pyodide, so their games can part ways.
    flit = [examples["flit/greedy"], examples["flit/random"], examples["flit/script"],
            readme["flit/function"], readme["flit/script"]]
    return ([{"game": "atomas", "sources": [s], "seed": 4, "length": 60} for s in atomas]
            + [{"game": "flit", "sources": [s], "seed": 9, "length": 120} for s in flit])


def _in_cpython(cases: list[dict]) -> list[dict]:
    out = []
    for case in cases:
        if case["game"] == "atomas":
            out.append(budget_games.play_atomas(case["sources"][0], case["seed"], case["length"]))
        else:
            told = budget_games.flit_messages(case["seed"], case["length"])
            out.append({"steps": budget_games.count_flit(case["sources"][0], told), "told": told})
    return out


def _in_pyodide(cases: list[dict]) -> dict:
    node = shutil.which("node")
    assert node, "Node is needed to run Pyodide (the README's set-up installs it)"
    assert (ROOT / "node_modules" / "pyodide").is_dir(), "run `npm ci` first (scripts/test does)"
    code = f"HARNESS = {HARNESS.read_text()!r}\nCASES = {json.dumps(json.dumps(cases))}\n{PLAY}"
    done = subprocess.run([node, str(RUNNER)], input=code, capture_output=True, text=True,
                          cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def both() -> tuple[list[dict], dict]:
    cases = _cases()
    return _in_cpython(cases), _in_pyodide(cases)


def test_step_counts_agree_between_cpython_and_pyodide(both) -> None:
    cpython, pyodide = both
    assert pyodide["platform"] == "emscripten" and tuple(pyodide["version"]) != sys.version_info[:2]
    assert len(pyodide["results"]) == len(cpython) == 10
    for number, (native, page) in enumerate(zip(cpython, pyodide["results"], strict=True)):
        steps = native["steps"]
        assert len(steps) > 5 and sum(steps) > 50, f"case {number} played a real game"
        assert native == page, f"case {number}: the counts differ"
