"""``--budget STEPS``: a bot's move is limited by the steps its code executes. A looping bot
gets a time-out fault naming its line and the game plays on; honest bots play the very same
games with a generous budget as with none."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.bots.native import HostedBot, InProcessBot
from engine.bots.sandbox import Unsandboxed
from engine.games.registry import get_game
from engine.play.match import run_series

ROOT = Path(__file__).resolve().parents[1]

LOOPING_MOVE = """\
def move(view):
    if len(view.pieces()) > 0:
        n = 0
        while True:
            n += 1
    return "0 0 0 0"
"""

LOOPING_ATOMAS_SCRIPT = """\
line = input()
x = 0
while True:
    x += 1
print(0)
"""

LOOPING_FLIT_STREAM = """\
while True:
    line = input()
    if line == "M":
        while True:
            pass
"""


def _play(game: str, bots: list, **overrides) -> tuple[dict, list]:
    spec = get_game(game)
    settings = spec.settings(time_limit_ms=30_000, **overrides)
    faults = []
    document = run_series(spec, settings, bots, 1, 1, secret="S",
                          on_event=lambda e: faults.append((e.bot, e.text, e.line))
                          if e.stream == "fault" else None).document
    return document["records"][0] if "records" in document else document, faults


def _greedy(game: str) -> InProcessBot:
    return InProcessBot("greedy", get_game(game).example_source("greedy"))


@pytest.mark.parametrize("kind", ["in-process", "hosted"])
def test_a_looping_function_bot_is_stopped_by_its_budget_and_the_game_plays_on(kind) -> None:
    looping = (InProcessBot("loop", LOOPING_MOVE, budget=20_000) if kind == "in-process"
               else HostedBot("loop", LOOPING_MOVE, Unsandboxed(), budget=20_000))
    record, faults = _play("flit", [looping, _greedy("flit")])
    assert faults, "the looping bot was faulted"
    assert all(bot == 0 for bot, _, _ in faults)
    first = faults[0]
    assert first[1].startswith("timeout: the move took") and "over its budget of 20,000" in first[1]
    assert first[2] == 5  # its line: the loop's body
    assert record["result"] is not None and len(record["turns"]) > 3  # the other bot played on


@pytest.mark.parametrize("game, source, line", [("atomas", LOOPING_ATOMAS_SCRIPT, 4),
                                                ("flit", LOOPING_FLIT_STREAM, 5)])
def test_looping_scripts_are_stopped_per_run_and_in_a_stream(game, source, line) -> None:
    bots = [HostedBot("loop", source, Unsandboxed(), budget=5_000)]
    if game == "flit":
        bots.append(_greedy("flit"))
    record, faults = _play(game, bots)
    assert faults and faults[0][0] == 0
    assert faults[0][1].startswith("timeout:") and "budget of 5,000" in faults[0][1]
    assert faults[0][2] == line
    assert record["result"] is not None


def test_an_honest_bot_is_not_faulted_under_a_budget() -> None:
    bots = [InProcessBot("a", get_game("flit").example_source("greedy"), budget=1_000_000),
            HostedBot("b", get_game("flit").example_source("random"), Unsandboxed(), budget=1_000_000)]
    record, faults = _play("flit", bots)
    assert faults == [] and record["result"] is not None


def test_the_host_refuses_a_bad_budget_in_one_clear_line() -> None:
    from engine.bots.host import BotHost
    host = BotHost(lambda: None, lambda reply: None)
    reply = host.handle({"op": "load", "id": 1, "game": "flit", "code": "def move(v): pass",
                         "budget": "lots"})
    assert reply["ok"] is False and "positive whole number" in reply["error"]


def _match(game: str, bots: list[str], *extra: str) -> dict:
    done = subprocess.run([sys.executable, "-m", "engine", "match", game, *bots, "--seed", "4",
                           "--secret", "B", "--games", "2", "--json", *extra],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("game, bots", [
    ("atomas", ["builtin:greedy", "builtin:random", "builtin:script"]),
    ("flit", ["builtin:greedy", "builtin:random"]),
    ("abotcalypse", ["builtin:builder", "builtin:random", "builtin:thrower"]),
])
def test_example_bots_play_the_same_games_with_a_generous_budget_and_with_none(game, bots, tmp_path) -> None:
    copy = tmp_path / "greedy.py"
    first = get_game(game).example_source(bots[0].split(":")[1])
    copy.write_text(first)
    hosted = [str(copy), *bots[1:]] if bots[0] == "builtin:greedy" else bots
    plain = _match(game, bots, "--time-limit", "60000")
    budgeted = _match(game, bots, "--time-limit", "60000", "--budget", "50000000")
    assert budgeted == plain
    if hosted is not bots:
        assert _match(game, hosted, "--time-limit", "60000", "--budget", "50000000") == plain


def test_a_bad_budget_on_the_command_line_is_one_line_and_exit_code_2() -> None:
    done = subprocess.run([sys.executable, "-m", "engine", "match", "flit", "builtin:greedy",
                           "builtin:random", "--budget", "0"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "--budget" in done.stderr and "at least 1" in done.stderr
