"""A fault says where it happened: game, turn and line (issue 18), in the CLI's log and in
the events the page shows (``BotEvent.where``), for every registered game."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from engine.games.registry import games
from engine.play.driver import BotEvent

FAULTY = "def move(view):\n    x = 1\n    return 1 / 0\n"  # faults on line 3
SHORT = {"atomas": ["--max-moves", "20"], "abotcalypse": ["--max-turns", "20"]}


def test_where_names_game_and_turn() -> None:
    assert BotEvent(0, "fault", "t", 3, 1, 14).where() == "game 2, turn 14"
    assert BotEvent(0, "fault", "t", None, 0, 0).where() == "game 1, at the start"
    assert BotEvent(0, "fault", "t", None, 0, 5).where(6) == "game 7, turn 5"  # a tournament's match
    assert BotEvent(0, "error", "t", 2).where() == ""  # loading: before any game


@pytest.mark.parametrize("game", [s.name for s in games() if s.trusted])
def test_the_cli_log_names_game_turn_and_line(game: str, tmp_path) -> None:
    bot = tmp_path / "faulty.py"
    bot.write_text(FAULTY)
    examples = list(next(s for s in games() if s.name == game).examples())
    command = [sys.executable, "-m", "engine", "match", game, str(bot), f"builtin:{examples[0]}",
               "--games", "2", "--seed", "3", "--secret", "s", "--budget", "1000000", "--no-sandbox",
               "--log", *SHORT.get(game, [])]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    faults = [line for line in done.stdout.splitlines() if line.startswith("[faulty fault]")]
    assert faults, done.stdout
    pattern = re.compile(r"ZeroDivisionError.*line 3.*\(game (\d), turn \d+\)$")
    assert all(pattern.search(line) for line in faults), faults
    assert {pattern.search(line).group(1) for line in faults} == {"1", "2"}

    as_json = subprocess.run([*command, "--json"], capture_output=True, text=True, timeout=600)
    log = [e for e in json.loads(as_json.stdout)["log"] if e["stream"] == "fault"]
    assert log and all(e["line"] == 3 and e["game"] in (0, 1) and e["turn"] >= 1 for e in log), log
