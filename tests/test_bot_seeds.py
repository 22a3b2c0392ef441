"""The same seed gives the same game whatever the bots: each bot's ``random`` is seeded from
the game's seed and secret, its seat and (for bots started afresh every turn) the turn."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.bots.host import BotHost
from engine.bots.native import CommandBot, HostedBot, InProcessBot
from engine.bots.sandbox import Unsandboxed
from engine.core.randomness import bot_seed, turn_seed
from engine.games.registry import get_game
from engine.play.match import run_series

ROOT = Path(__file__).resolve().parents[1]
PLAYERS = {"atomas": 1, "flit": 2, "abotcalypse": 3}
SHORT = {"atomas": ["--max-moves", "150"], "flit": [], "abotcalypse": []}


def match(game: str, bots: list[str], replay: Path, *extra: str) -> str:
    done = subprocess.run([sys.executable, "-m", "engine", "match", game, *bots, "--seed", "7",
                           "--secret", "T", "--games", "2", "--time-limit", "60000", "--json",
                           "--replay", str(replay), *SHORT[game], *extra],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def turns(replay: Path) -> list:
    document = json.loads(replay.read_text())
    records = document["records"] if document.get("kind") == "series" else [document]
    return [(r["start"], r["turns"], r["result"]) for r in records]


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_random_examples_repeat_byte_for_byte_builtin_and_hosted(game, tmp_path) -> None:
    """``builtin:random`` twice gives identical --json; a hosted copy of the same file (same
    name) plays exactly the same games: in-process and hosted bots draw the same numbers."""
    copy = tmp_path / "random.py"
    copy.write_text(get_game(game).example_source("random"))
    builtin = ["builtin:random"] * PLAYERS[game]
    hosted = [str(copy)] + ["builtin:random"] * (PLAYERS[game] - 1)
    first = match(game, builtin, tmp_path / "a.json")
    assert match(game, builtin, tmp_path / "b.json") == first
    assert turns(tmp_path / "a.json") == turns(tmp_path / "b.json")
    hosted_out = match(game, hosted, tmp_path / "c.json")
    assert match(game, hosted, tmp_path / "d.json") == hosted_out
    assert turns(tmp_path / "c.json") == turns(tmp_path / "d.json") == turns(tmp_path / "a.json")
    other = match(game, builtin, tmp_path / "e.json", "--secret", "another")
    assert turns(tmp_path / "e.json") != turns(tmp_path / "a.json")  # the secret is in the seeds
    assert other != first or game == "atomas"


PRINTS_RANDOM = """
import random
print("draw", random.random(), random.Random().random())
print(0)
"""


def _draws(bot, game: str = "atomas", players: int = 1, seed: int = 3) -> list[str]:
    spec = get_game(game)
    settings = spec.settings(time_limit_ms=60_000, max_moves=4)
    printed: list[str] = []

    def keep(event) -> None:
        if event.stream == "stdout":
            printed.extend(line for line in event.text.splitlines() if line.startswith("draw"))

    run_series(spec, settings, [bot], seed, 1, on_event=keep, secret="S")
    return printed


@pytest.mark.parametrize("make", [
    lambda: InProcessBot("p", PRINTS_RANDOM),
    lambda: HostedBot("p", PRINTS_RANDOM, Unsandboxed()),
], ids=["in-process", "hosted"])
def test_a_per_move_script_draws_anew_every_move_and_repeats_by_seed(make) -> None:
    draws = _draws(make())
    assert len(draws) == 4 and len(set(draws)) == 4, draws  # a new stream each move
    assert _draws(make()) == draws  # the same seed: the same draws
    assert _draws(make(), seed=4) != draws


def test_in_process_and_hosted_scripts_draw_the_same() -> None:
    assert _draws(InProcessBot("p", PRINTS_RANDOM)) == _draws(HostedBot("p", PRINTS_RANDOM, Unsandboxed()))


def test_seats_and_turns_get_different_seeds_and_the_secret_stays_hidden() -> None:
    seeds = {bot_seed("flit", 1, "S", seat) for seat in range(4)}
    assert len(seeds) == 4 and all(0 <= s < 2 ** 53 for s in seeds)
    assert bot_seed("flit", 1, "S", 0) != bot_seed("flit", 1, "S2", 0) != bot_seed("flit", 2, "S", 0)
    start = bot_seed("atomas", 1, "S", 0)
    assert len({turn_seed(start, n) for n in range(1, 100)}) == 99


def test_the_host_seeds_random_from_start_and_turn_messages() -> None:
    """The page's Worker runs this host: the seed comes in the start (and turn) request."""
    spec = get_game("flit")
    function_bot = "import random\nFIRST = random.random()\ndef move(view):\n    return 'x'\n"

    def first_draw(seed: int) -> str:
        host = BotHost(lambda: None, lambda reply: None)
        host.handle({"op": "load", "id": 1, "game": "flit", "code": function_bot + "print(FIRST)\n"})
        from engine.play.session import GameSession
        session = GameSession(spec, spec.settings(), 1, ["a", "b"])
        return host.handle({"op": "start", "id": 2, "message": session.start_message(0),
                            "seed": seed})["stdout"]

    assert first_draw(5) == first_draw(5) != first_draw(6)
    import random
    assert first_draw(5).strip() == str(random.Random(5).random())


SEED_COMMAND = """
import os
print("draw", os.environ.get("KOTH_SEED"), os.environ.get("PYTHONHASHSEED"))
print(0)
"""


def test_command_bots_get_koth_seed_per_move_and_a_fixed_hash_seed(tmp_path) -> None:
    (tmp_path / "bot.py").write_text(SEED_COMMAND)
    bot = CommandBot("c", f"{sys.executable} {tmp_path / 'bot.py'}", Unsandboxed())
    draws = _draws(bot)
    start = bot_seed("atomas", 3, "S", 0)
    assert draws == [f"draw {turn_seed(start, n)} 0" for n in range(1, 5)]
    # and the hosted Python script sees the very same seed in its random
    script = "import random\nprint('draw', random.random())\nprint(0)\n"
    hosted = _draws(HostedBot("p", script, Unsandboxed()))
    import random
    assert hosted == [f"draw {random.Random(turn_seed(start, n)).random()}" for n in range(1, 5)]


PER_TURN_DRAWS = """
import random
print("rest")
print("draw", random.random())
"""


def test_per_turn_scripts_draw_differently_by_seat_and_by_turn() -> None:
    """aBOTcalypse runs scripts afresh every turn: two copies of one script in two seats
    draw different numbers, and each draws anew every turn."""
    spec = get_game("abotcalypse")
    settings = spec.settings(players=2, max_turns=3, time_limit_ms=60_000)
    draws: dict[int, list[str]] = {0: [], 1: []}

    def keep(event) -> None:
        if event.stream == "stdout":
            draws[event.bot].extend(x for x in event.text.splitlines() if x.startswith("draw"))

    bots = [HostedBot("a", PER_TURN_DRAWS, Unsandboxed()), InProcessBot("b", PER_TURN_DRAWS)]
    run_series(spec, settings, bots, 1, 1, on_event=keep, secret="S")
    assert len(draws[0]) == len(draws[1]) == 3
    assert len(set(draws[0])) == 3 and set(draws[0]).isdisjoint(draws[1])
