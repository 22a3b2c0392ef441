"""Same seed, same games, everywhere: a property test of the page's tournaments against the
native ones (issue 18, item 2).

Random small Flit fields (a seeded ``random`` picks 3 or 4 entries among the Flit examples and
a few tiny function bots, some drawing from their seeded ``random``) are played natively
(``python -m engine tournament --challenge FILE --json --replays DIR``) and in the page at 1, 2
and 4 matches at once, with fresh Workers (under a step budget every load gets a Worker no bot
code ran in) and with reused ones (no budget: an entry's Worker is kept for its next match),
one field of each. Every game's record (each turn's answers, faults and changes, and the
result) must be the native one, and so the tournament's JSON.

Sizes, to stay within about 2 minutes on an idle 2-core machine: 2 games a pair, 3-4 entries
(6 or 12 games a tournament), 2 fields, 6 page tournaments in one page (3 fields of each mode,
18 tournaments, took 302 s: each field is played 3 times, at 1, 2 and 4 at once, instead).
"""
from __future__ import annotations

import json
import random
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from engine.play.debug_part import rules_part

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "engine" / "games" / "flit" / "examples"
BUDGET = 1_000_000
FIELD_SEED = 18  # the test's own random: the same fields every run
PARALLEL = (1, 2, 4)
FIELDS_PER_MODE = 1  # 3 took 302 s on an idle 2-core machine (18 tournaments); 1 fits 2 minutes
RUN_TIMEOUT_MS = 600_000

TINY = {
    "first": "def move(view):\n    moves = view.moves()\n    return moves[0] if moves else (0, 0, 0, 0)\n",
    "last": "def move(view):\n    moves = view.moves()\n    return moves[-1] if moves else '0 0 0 0'\n",
    "lucky": ("import random\n\ndef move(view):\n    moves = view.moves()\n"
              "    return random.choice(moves) if moves else (0, 0, 0, 0)\n"),
    "own_rng": ("import random\nrng = random.Random()\n\ndef move(view):\n    moves = view.moves()\n"
                "    if not moves:\n        return '0 0 0 0'\n"
                "    return moves[int(rng.random() * len(moves))]\n"),
}


def _pool() -> dict[str, str]:
    pool = {name: (EXAMPLES / f"{name}.py").read_text(encoding="utf-8")
            for name in ("greedy", "random", "script")}
    pool.update(TINY)
    return pool


def _fields() -> list[tuple[str, dict]]:
    """(mode, challenge) for each field: "fresh" (under a step budget) or "reused" (none)."""
    draw = random.Random(FIELD_SEED)
    pool = _pool()
    out = []
    for mode in ("fresh", "reused"):
        for _ in range(FIELDS_PER_MODE):
            names = draw.sample(sorted(pool), draw.choice((3, 4)))
            # no budget: a time limit far above any move here, so the wall clock decides nothing
            limit = 1000 if mode == "fresh" else 60_000
            out.append((mode, {
                "format": "koth-arena-challenge", "version": 1, "title": f"same seed {mode}",
                "description": "", "game": "flit", "preset": "trial",
                "settings": {"time_limit_ms": limit}, "games": 2, "seed": draw.randrange(1, 10_000),
                "secret": f"same-{draw.randrange(10**6)}",
                "entries": [{"name": n, "code": pool[n]} for n in names]}))
    return out


def _native(challenge: dict, budget: int | None, folder: Path) -> tuple[dict, list[dict]]:
    folder.mkdir(parents=True)
    path = folder / "challenge.json"
    path.write_text(json.dumps(challenge), encoding="utf-8")
    command = [sys.executable, "-m", "engine", "tournament", "--challenge", str(path), "--json",
               "--replays", str(folder / "replays")]
    if budget is not None:
        command += ["--budget", str(budget)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    records = [json.loads(p.read_text(encoding="utf-8"))["records"][0]
               for p in sorted((folder / "replays").glob("match-*.json"))]
    return json.loads(done.stdout), records


def _page_records(arena, count: int) -> list[dict]:
    """Each game's record as the page keeps it for its Watch button."""
    text = arena.controller().evaluate("""(n) => self.kothController.runPython(`
import json, arena_main
_page = list(arena_main.tournaments.values())[0]
json.dumps([_page.replay(i) for i in range(${n})])
`)""", count)
    replays = json.loads(text)
    assert all("document" in r for r in replays), [r.get("error") for r in replays]
    return [r["document"]["records"][0] for r in replays]


def _first_difference(got: dict, want: dict) -> str:
    for i, (a, b) in enumerate(zip(got["turns"], want["turns"], strict=False)):
        if a != b:
            return f"turn {i + 1}: page {a}, native {b}"
    if len(got["turns"]) != len(want["turns"]):
        return f"{len(got['turns'])} turns in the page, {len(want['turns'])} natively"
    return f"result: page {got['result']}, native {want['result']}"


def test_every_game_of_random_fields_is_the_native_one(arena, tmp_path):
    fields = _fields()
    with ThreadPoolExecutor(max_workers=2) as pool:
        natives = list(pool.map(lambda item: _native(item[1][1], BUDGET if item[1][0] == "fresh" else None,
                                                     tmp_path / f"native-{item[0]}"), enumerate(fields)))
    failures = []
    for (mode, challenge), (expected, records) in zip(fields, natives, strict=True):
        budget = BUDGET if mode == "fresh" else None
        names = [e["name"] for e in challenge["entries"]]
        for parallel in PARALLEL:
            run = arena.page.evaluate(
                "([c, k, b]) => window.kothArena.tournament.start(c, {parallel: k, budget: b})",
                [challenge, parallel, budget])
            assert run is not None
            status = arena.wait_finished(RUN_TIMEOUT_MS)
            assert status.startswith("Finished the tournament"), status
            got = arena.page.evaluate("window.kothArena.tournament.result")
            page_records = _page_records(arena, len(expected["games"]))
            label = f"{mode} Workers, {parallel} at once, {names}, seed {challenge['seed']}"
            for index, (mine, theirs) in enumerate(zip(page_records, records, strict=True)):
                if rules_part(mine) != rules_part(theirs):  # each reply's time and output apart
                    failures.append(f"{label}: game {index + 1} ({' vs '.join(mine['bots'])}) differs, "
                                    f"{_first_difference(mine, theirs)}")
            if got != expected and not failures:
                failures.append(f"{label}: the tournament JSON differs")
    assert not failures, "\n".join(failures)
