"""Rankings and their intervals come out bit for bit the same under Pyodide (the page) as under
CPython: the page and the command line agree on which places are settled."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNNER = Path(__file__).resolve().parent / "pyodide_python.mjs"

RANK = '''
import json, random
from engine.contest.ranking import MEAN_SCORE, WIN_RATE, Standing, rank, settled_places
rng = random.Random(5)
out = []
for trial in range(40):
    standings = []
    for i in range(6):
        games = rng.randrange(1, 300)
        wins = rng.randrange(games + 1)
        draws = rng.randrange(games - wins + 1)
        scores = tuple(rng.randrange(0, 5000) for _ in range(rng.randrange(0, 60)))
        standings.append(Standing(f"e{i}", games, wins, draws, games - wins - draws, scores))
    for by in (WIN_RATE, MEAN_SCORE):
        ranking = rank(standings, by=by)
        out.append([[r.name, r.value, list(r.interval)] for r in ranking] + [settled_places(ranking)])
json.dumps(out)
'''


def test_rankings_agree_bit_for_bit_between_cpython_and_pyodide() -> None:
    namespace: dict = {}
    *body, last = RANK.strip().splitlines()
    exec("\n".join(body), namespace)  # noqa: S102 - our own test code
    cpython = json.loads(eval(last, namespace))  # noqa: S307
    node = shutil.which("node")
    assert node, "Node is needed to run Pyodide (the README's set-up installs it)"
    assert (ROOT / "node_modules" / "pyodide").is_dir(), "run `npm ci` first (scripts/test does)"
    done = subprocess.run([node, str(RUNNER)], input=RANK, capture_output=True, text=True,
                          cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr[done.stderr.rfind("PythonError"):][:3000]
    pyodide = json.loads(done.stdout)
    assert len(cpython) == 80 and any(False in row[-1] for row in cpython)
    assert any(True in row[-1] for row in cpython)
    assert pyodide == cpython
