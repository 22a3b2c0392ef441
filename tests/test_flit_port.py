"""The proof by port: Flit written against ``engine.game_api`` alone (examples/games/flit.py),
run sandboxed through the game proxy, plays the same games as the built-in Flit, turn by turn.

The same bots (the built-in examples' sources, and a bot that answers garbage, illegal
moves and raises, so the fault paths are compared too) on the same seeds and secret, each
as a hosted bot in the sandbox on both sides; every record must be equal field for field,
but for the game's pictures (the built-in Flit records none) and its title.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.bots.native import HostedBot
from engine.bots.sandbox import Sandbox, SandboxError, Unsandboxed
from engine.games.registry import get_game, register, unregister
from engine.play.game_proxy import load_game
from engine.play.match import run_series

ROOT = Path(__file__).resolve().parent.parent
PORT = (ROOT / "examples" / "games" / "flit.py").read_text(encoding="utf-8")
BUILTIN_BOTS = ROOT / "engine" / "games" / "flit" / "examples"
CHAOS = '''import random

def move(view):
    r = random.random()
    if r < 0.08:
        return "three words only"
    if r < 0.16:
        return (0, 0, 1, 99)          # off the board
    if r < 0.24:
        x, y = view.pieces()[0]
        return (x, y, x, y + 2)       # most often not next to another piece
    if r < 0.30:
        raise ValueError("chaos")
    moves = view.moves()
    return random.choice(moves) if moves else (0, 0, 0, 0)
'''


@pytest.fixture(scope="module")
def sandbox():
    box = Sandbox()
    try:
        box.probe()
    except SandboxError:
        return Unsandboxed()
    return box


def play(spec, sources: dict[str, str], sandbox, seed: int, games: int, preset: str) -> dict:
    bots = [HostedBot(name, source, sandbox) for name, source in sources.items()]
    players = len(bots)
    settings = spec.settings(preset, players=players, time_limit_ms=20_000)
    return run_series(spec, settings, bots, seed, games, secret="port").document


def comparable(document: dict) -> list[dict]:
    records = []
    for record in document["records"]:
        record = dict(record, start=dict(record["start"]))
        record.pop("debug")  # each reply's time: never the same twice
        record["start"].pop("picture", None)
        record["turns"] = [{k: v for k, v in t.items() if k != "picture"} for t in record["turns"]]
        records.append(record)
    return records


@pytest.mark.parametrize(("names", "seed", "games"), [
    (("greedy", "random"), 1, 2),
    (("chaos", "greedy"), 7, 2),
])
def test_the_port_plays_the_builtin_games_turn_by_turn(sandbox, names, seed, games):
    sources = {n: CHAOS if n == "chaos" else (BUILTIN_BOTS / f"{n}.py").read_text() for n in names}
    builtin = play(get_game("flit"), sources, sandbox, seed, games, "trial")
    port = load_game(PORT, sandbox)
    register(port.spec)
    try:
        ported = play(port.spec, sources, sandbox, seed, games, "trial")
    finally:
        unregister("flit")
        port.close()
    assert get_game("flit").game_module is None  # the built-in is back
    mine, theirs = comparable(ported), comparable(builtin)
    assert len(mine) == len(theirs) == games
    for a, b in zip(mine, theirs, strict=True):
        assert {k: v for k, v in a.items() if k != "turns"} == {k: v for k, v in b.items() if k != "turns"}
        assert len(a["turns"]) == len(b["turns"]) > 10
        for number, (x, y) in enumerate(zip(a["turns"], b["turns"], strict=True), 1):
            assert x == y, f"turn {number}"
    assert ported["summary"] == builtin["summary"]
    if "chaos" in names:  # the fault paths were compared too
        kinds = {f["kind"] for r in builtin["records"] for t in r["turns"] for f in t["faults"] if f}
        assert {"invalid", "error"} <= kinds
