"""An author's game with each kind of mistake gets one clear line naming it, never a hang.

Each module is the small valid game below with one mistake; it is given to the command
line (``--game-file``), which checks it in the game's sandboxed process: the message names
what is missing, or the method that failed and its line in the author's file. A loop in
``apply_actions`` is stopped by the game's time limit (with its line), and one inside a C
function (which no signal stops) by the controller killing the game's process.
"""

from __future__ import annotations

import json
import time

import pytest

from engine.cli import cli

GOOD = '''"""Race to ten: each round every bot says 1 or 2; the sums race to TARGET."""
from engine.game_api import Field, InvalidAnswer

NAME = "race"
TITLE = "Race to ten"
PLAYERS = (2, 3)
SETTINGS = {"target": 10, "time_limit_ms": 1000}
FIELDS = [Field("target", "Target", 1, 100)]
EXAMPLES = {"two": "def move(view):\\n    return 2\\n",
            "one": "print(1)\\n"}


class Game:
    def __init__(self, settings, rng):
        self.target, self.players = settings.target, settings.players
        self.sums = [0] * self.players
        self.rounds = 0

    def acting_seats(self):
        return list(range(self.players))

    def observation(self, seat, since):
        return {"sums": self.sums}

    def parse_answer(self, text, seat):
        step = int(text)
        if step not in (1, 2):
            raise InvalidAnswer("say 1 or 2")
        return step

    def default_action(self, seat):
        return 0

    def apply_actions(self, actions):
        for seat, step in actions.items():
            self.sums[seat] += step
        self.rounds += 1
        return list(self.sums)

    def over(self):
        return "reached" if max(self.sums) >= self.target or self.rounds >= 100 else None

    def scores(self):
        return self.sums

    def draw(self):
        return {"width": self.target, "height": self.players,
                "cells": ["".join("#" if x < min(s, self.target) else "." for x in range(self.target))
                          for s in self.sums],
                "key": {"#": {"color": 0}}}
'''


# The bots are Python: the step budget decides their moves, the same on any machine, and the
# wall-clock limit is a backstop far above a move's cost on a loaded machine.
BUDGET = ("--budget", "10000000", "--time-limit", "60000")


def run(capsys, tmp_path, source: str, *bots: str, extra: tuple = ()) -> tuple[int, str, str, float]:
    path = tmp_path / "game.py"
    path.write_text(source)
    began = time.monotonic()
    code = cli.main(["match", "--game-file", str(path), *(bots or ("builtin:two", "builtin:two")),
                     "--seed", "1", "--secret", "S", "--json", *BUDGET, *extra])
    out = capsys.readouterr()
    return code, out.out, out.err, time.monotonic() - began


def line_of(source: str, text: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


def test_the_good_game_plays(capsys, tmp_path):
    code, out, err, _ = run(capsys, tmp_path, GOOD, "builtin:two", "builtin:one", extra=("--target", "7"))
    assert code == 0, err
    result = json.loads(out)
    assert result["settings"]["target"] == 7 and result["games"][0]["scores"] == [8, 4]


@pytest.mark.parametrize(("mistake", "wanted"), [
    (("    def draw(self):", "    def drawing(self):"), "class Game has no method draw()"),
    (('NAME = "race"\n', ""), "the game module has no NAME"),
    (('PLAYERS = (2, 3)', 'PLAYERS = (2, 9)'), "PLAYERS is (fewest, most) seats, 1 to 8, got (2, 9)"),
    (('FIELDS = [Field("target", "Target", 1, 100)]', 'FIELDS = [Field("goal", "Goal", 1, 100)]'),
     "FIELDS: 'goal' is not in SETTINGS"),
    (("        return list(range(self.players))", "        return str(self.players)"),
     "acting_seats returned '2', not a list of different seats 0 to 1"),
    (("        return self.sums\n\n    def draw", "        return 'high'\n\n    def draw"),
     "scores returned 'high', not a list of 2 numbers"),
    (('        return {"sums": self.sums}', '        return {"sums": set(self.sums)}'),
     "observation returned a message that is not JSON"),
    (('"key": {"#": {"color": 0}}}', '"key": {"#": {"color": "red"}}}'),
     "draw returned a picture that is not one: key['#'].color is '#rgb', '#rrggbb' or a seat number"),
    (("                          for s in self.sums],", "                          for s in self.sums][1:],"),
     "draw returned a picture that is not one: cells is a list of 2 rows (the height)"),
])
def test_each_mistake_is_named_in_one_line(capsys, tmp_path, mistake, wanted):
    source = GOOD.replace(*mistake)
    assert source != GOOD
    code, out, err, _ = run(capsys, tmp_path, source)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and wanted in err, err


def test_a_method_that_raises_is_named_with_its_line(capsys, tmp_path):
    source = GOOD.replace('        return {"width": self.target,',
                          '        1 / 0\n        return {"width": self.target,')
    code, _, err, _ = run(capsys, tmp_path, source)
    assert code == 2
    assert f"draw raised ZeroDivisionError: division by zero (line {line_of(source, '1 / 0')})" in err, err
    source = GOOD.replace("    def over(self):", "    def over(self):\n        return ['not', 'text']\n")
    code, _, err, _ = run(capsys, tmp_path, source)
    assert code == 2 and "over returned ['not', 'text']" in err


def test_a_syntax_error_names_its_line(capsys, tmp_path):
    source = GOOD.replace("        self.rounds = 0", "        self.rounds = = 0")
    code, _, err, _ = run(capsys, tmp_path, source)
    assert code == 2 and f"SyntaxError: invalid syntax (line {line_of(source, '= = 0')})" in err, err


def test_an_endless_loop_in_apply_actions_is_stopped_with_its_line(capsys, tmp_path):
    loop = "        while self.rounds == 2:\n            pass\n"
    source = GOOD.replace("        for seat, step in actions.items():",
                          loop + "        for seat, step in actions.items():")
    code, out, err, took = run(capsys, tmp_path, source)
    assert code == 2 and out == ""
    assert f"apply_actions ran past the 5 s limit for one call (an endless loop?, stopped at line " \
           f"{line_of(source, 'pass')})" in err or f"line {line_of(source, 'while self.rounds')})" in err, err
    assert took < 30


def test_a_loop_reached_only_in_play_ends_the_run_with_its_line(capsys, tmp_path):
    # the check game (40 rounds of default actions, which add 0) never reaches 3
    loop = "        while max(self.sums) >= 3:\n            pass\n"
    source = GOOD.replace("        self.rounds += 1", loop + "        self.rounds += 1")
    code, out, err, took = run(capsys, tmp_path, source)
    assert code == 1 and out == ""
    assert err.startswith("error: the game failed: apply_actions ran past the 5 s limit")
    assert "stopped at line" in err
    assert took < 30


def test_a_hang_no_signal_stops_kills_the_game_process(capsys, tmp_path):
    # sum() over a range runs in C without looking at signals: the game's own time limit cannot
    # reach it, so the controller's deadline does
    hang = "        if max(self.sums) >= 3:\n            sum(range(10 ** 12))\n"
    source = GOOD.replace("        self.rounds += 1", hang + "        self.rounds += 1")
    code, out, err, took = run(capsys, tmp_path, source)
    assert code == 1 and out == ""
    assert "the game did not answer 'apply' within 8 s" in err and "its process was stopped" in err, err
    assert took < 30


def test_the_games_code_runs_in_the_sandbox(capsys, tmp_path):
    """An attack: the game reads a file of the controller's user and writes next to it; the
    match ends normally, the file's text is nowhere in the record and nothing was written."""
    from engine.bots.sandbox import Sandbox, SandboxError

    try:
        Sandbox().probe()
    except SandboxError:
        pytest.skip("bubblewrap cannot start here")
    private = tmp_path / "private.txt"
    private.write_text("the controller's secret")
    target = tmp_path / "owned.txt"
    attack = (f"        try:\n            self.loot = open({str(private)!r}).read()\n"
              f"        except OSError as exc:\n            self.loot = type(exc).__name__\n"
              f"        try:\n            open({str(target)!r}, 'w').write('x')\n"
              f"        except OSError:\n            pass\n")
    source = GOOD.replace("        self.rounds = 0\n", "        self.rounds = 0\n" + attack).replace(
        '        return {"sums": self.sums}', '        return {"sums": self.sums, "loot": self.loot}')
    replay = tmp_path / "replay.json"
    code, out, err, _ = run(capsys, tmp_path, source, extra=("--replay", str(replay)))
    assert code == 0, err
    assert json.loads(out)["games"][0]["scores"] == [10, 10]
    assert "the controller's secret" not in replay.read_text() and not target.exists()


def test_a_tournament_plays_an_authors_game_the_same_in_one_process_and_two(capsys, tmp_path):
    path = tmp_path / "race.py"
    path.write_text(GOOD)
    outputs = []
    for jobs in ("1", "2"):
        code = cli.main(["tournament", "--game-file", str(path), "builtin:two", "builtin:one", "builtin:two",
                         "--games", "2", "--seed", "3", "--secret", "S", "--json", "--jobs", jobs,
                         *BUDGET])
        out = capsys.readouterr()
        assert code == 0, out.err
        outputs.append(out.out)
    assert outputs[0] == outputs[1]
    result = json.loads(outputs[0])
    assert result["game"] == "race" and [s["name"] for s in result["standings"]][-1] == "one"
