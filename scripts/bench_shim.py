"""One timed run of the full native runner, for ``scripts/bench --against``, on any engine tree.

    python3 scripts/bench_shim.py ROOT GAME [--bots trivial|random] [--budget STEPS] [--repeat N]

Plays a fixed series (fixed seeds and secret) of GAME with in-process bots on the engine
found in ROOT (this checkout, or another revision's worktree) ``--repeat`` times (3) and
prints one JSON line: the moves played, the seconds the fastest series took (wall clock and
this process's CPU time: on a shared machine the CPU time is the steadier; the fastest of a
few is the least disturbed by the rest of the machine), and a digest of its replay document
(the same on both sides when the two engines play the same games). It finds the engine's
functions by trying the import paths of the current layout and of the planned one
(modules moved into packages by concern), so one shim times both.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import inspect
import json
import sys
import time
from pathlib import Path

ATOMAS_TRIVIAL = "def move(view):\n    return '0 n' if view.atom == '-' else 0\n"
FLIT_TRIVIAL = """
def move(view):
    cells = view.cells()
    me, size = view.me, view.size
    first = cells.index(me)
    last = len(cells) - 1 - cells[::-1].index(me)
    if first != last:
        for x1, y1 in view.neighbours(first % size, first // size):
            if cells[y1 * size + x1] == 0:
                return (last % size, last // size, x1, y1)
    return "0 0 0 0"
"""
TRIVIAL = {"atomas": ATOMAS_TRIVIAL, "flit": FLIT_TRIVIAL}
# games per run: about half a second on an idle core at today's speed
GAMES = {("atomas", "trivial"): 600, ("atomas", "random"): 600,
         ("flit", "trivial"): 12, ("flit", "random"): 12}
FIRST_SEED = 1
SECRET = "bench"

PLACES = {  # where each name lived, lives, or may live: the first that imports wins
    "run_series": ["engine.play.match", "engine.match", "engine.play"],  # engine.match: before 59bc26e
    "InProcessBot": ["engine.bots.native", "engine.bots.inprocess", "engine.bots"],
    "get_game": ["engine.games.registry", "engine.registry", "engine.core.registry", "engine.games",
                 "engine.core"],
}


def find(name: str) -> object:
    for module_name in PLACES[name]:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        if hasattr(module, name):
            return getattr(module, name)
    raise SystemExit(f"bench_shim: no {name} in {', '.join(PLACES[name])}")


def example_source(spec, game: str, name: str) -> str:
    try:
        return spec.example_source(name)
    except AttributeError:
        for folder in (f"engine/examples/{game}", f"engine/games/{game}/examples"):
            path = Path(sys.path[0]) / folder / f"{name}.py"
            if path.is_file():
                return path.read_text(encoding="utf-8")
    raise SystemExit(f"bench_shim: no example {name!r} for {game}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("root", type=Path)
    parser.add_argument("game", choices=["atomas", "flit"])
    parser.add_argument("--bots", choices=["trivial", "random"], default="trivial")
    parser.add_argument("--budget", type=int)
    parser.add_argument("--repeat", type=int, default=3, help="series timed; the fastest counts")
    args = parser.parse_args()
    sys.path.insert(0, str(args.root.resolve()))
    run_series, InProcessBot, get_game = find("run_series"), find("InProcessBot"), find("get_game")
    spec = get_game(args.game)
    if args.game == "atomas":
        settings = spec.settings(max_moves=2000, time_limit_ms=10_000)
        seats = 1
    else:
        settings = spec.settings("trial", time_limit_ms=10_000)
        seats = settings.players
    source = TRIVIAL[args.game] if args.bots == "trivial" else example_source(spec, args.game, args.bots)
    budget = {} if args.budget is None else {"budget": args.budget}
    secret = {"secret": SECRET} if "secret" in inspect.signature(run_series).parameters else {}  # none before

    def play(games: int) -> tuple[dict, float, float]:
        bots = [InProcessBot(f"{args.bots}{i}", source, **budget) for i in range(seats)]
        began, cpu = time.perf_counter(), time.process_time()
        document = run_series(spec, settings, bots, FIRST_SEED, games, **secret).document
        return document, time.perf_counter() - began, time.process_time() - cpu

    play(2)  # warm: imports, caches, the first compilations
    runs = (play(GAMES[args.game, args.bots]) for _ in range(max(1, args.repeat)))
    document, seconds, cpu_seconds = min(runs, key=lambda run: run[2])  # the fastest by CPU time
    moves = sum(len(record["turns"]) for record in document["records"])
    # the games, not each reply's wall time: a record's debug part (schema 3) and version left out
    rules = {**document, "records": [{k: v for k, v in r.items() if k not in ("debug", "schema_version")}
                                     for r in document["records"]]}
    rules.pop("schema_version", None)
    digest = hashlib.sha256(json.dumps(rules, sort_keys=True).encode()).hexdigest()[:16]
    print(json.dumps({"moves": moves, "seconds": seconds, "cpu_seconds": cpu_seconds, "digest": digest}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
