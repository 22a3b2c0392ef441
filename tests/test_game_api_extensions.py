"""What the built-in games use, on the public game API: a message as command-line arguments
(``argv``), the game's own replay check (``Game.replay_check``), a view class for function bots
(``VIEW``) and a hand-drawn renderer's name (``RENDERER``, the pictures its fallback).

Each is shown on the small game below, loaded like every author's game: through the command
line (``--game-file``), in its sandboxed process, its bots in theirs.
"""

from __future__ import annotations

import json

import pytest

from engine.cli import cli
from engine.play.game_proxy import game_sandbox, load_game

# Each round every bot is told a secret number on its command line only (its stdin says "?"):
# a bot that answers it scores a point.
RELAY = '''"""Relay: say the number you were given on your command line."""
from engine.game_api import Field, InvalidAnswer

NAME = "relay"
TITLE = "Relay"
PLAYERS = (2, 2)
SETTINGS = {"rounds": 4, "time_limit_ms": 60000}
FIELDS = [Field("rounds", "Rounds", 1, 100)]
RENDERER = "relay_board"
EXAMPLES = {"viewer": "def move(view):\\n    return view.secret_number()\\n"}


class RelayView:
    def __init__(self, message):
        self.message = message

    def secret_number(self):
        return self.message["secret"] if "secret" in self.message else -1


VIEW = RelayView


def lines(message):
    return ["?"]


def argv(message):
    return [str(message["secret"])] if "secret" in message else []


class Game:
    def __init__(self, settings, rng):
        self.rounds, self.players = settings.rounds, settings.players
        self.rng = rng
        self.round = 0
        self.points = [0, 0]
        self.secret = rng.randint(100, 999)

    def acting_seats(self):
        return [0, 1]

    def observation(self, seat, since):
        return {"round": self.round, "secret": self.secret}

    def parse_answer(self, text, seat):
        if not text.strip().isdigit():
            raise InvalidAnswer("a number")
        return int(text)

    def default_action(self, seat):
        return 0

    def apply_actions(self, actions):
        hits = [actions[s] == self.secret for s in (0, 1)]
        self.points = [p + h for p, h in zip(self.points, hits)]
        self.round += 1
        self.secret = self.rng.randint(100, 999)
        return hits

    def record_turn(self, actions, changes):
        return {"hits": changes}

    def replay_check(self, turn, changes):
        return CHECK

    def over(self):
        return "rounds" if self.round >= self.rounds else None

    def scores(self):
        return self.points

    def draw(self):
        return {"width": 2, "height": 1, "cells": ["ab"],
                "key": {"a": {"color": 0}, "b": {"color": 1}}, "caption": f"round {self.round}"}


CHECK = None
'''

SCRIPT = "import sys\nprint(sys.argv[1] if len(sys.argv) == 2 and input() == '?' else 'no argv')\n"
COMMAND = 'read line\n[ "$line" = "?" ] && echo "$1"\n'


def run(capsys, *args) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def write(tmp_path, source: str = RELAY, name: str = "relay.py"):
    path = tmp_path / name
    path.write_text(source)
    return path


def test_a_script_and_a_command_bot_get_the_message_as_their_last_argument(capsys, tmp_path):
    script, command = tmp_path / "script.py", tmp_path / "bot.sh"
    script.write_text(SCRIPT)
    command.write_text(COMMAND)
    code, out, err = run(capsys, "match", "--game-file", write(tmp_path), script, f"cmd:sh {command}",
                         "--seed", 3, "--secret", "S", "--rounds", 3, "--json")
    assert code == 0, err
    assert json.loads(out)["games"][0]["scores"] == [3, 3]  # the script in its host, the command natively


def test_a_function_bot_gets_the_games_view_class(capsys, tmp_path):
    code, out, err = run(capsys, "match", "--game-file", write(tmp_path), "builtin:viewer", "builtin:viewer",
                         "--seed", 3, "--secret", "S", "--json")
    assert code == 0, err
    assert json.loads(out)["games"][0]["scores"] == [4, 4]


def test_the_games_replay_check_is_called_on_every_replayed_turn(capsys, tmp_path):
    game, replay = write(tmp_path), tmp_path / "relay.json"
    code, _, err = run(capsys, "match", "--game-file", game, "builtin:viewer", "builtin:viewer", "--seed", 5,
                       "--secret", "S", "--replay", replay)
    assert code == 0, err
    code, out, err = run(capsys, "replay", replay, "--game-file", game, "--json")
    assert code == 0 and json.loads(out)["verified"] is True, err
    # the same rules with a stricter check of its own: the replay is refused with the game's words
    strict = RELAY.replace("        return CHECK\n", "        if turn['hits'] == [True, True]:\n"
                           "            return f'both hit in round {self.round}'\n")
    code, _, err = run(capsys, "replay", replay, "--game-file", write(tmp_path, strict, "strict.py"))
    assert code == 1 and "the game's replay check: both hit in round 1" in err, err
    # a check that answers what is not text is the game's mistake, named at load (its check game)
    broken = RELAY.replace("CHECK = None", "CHECK = 7")
    code, _, err = run(capsys, "replay", replay, "--game-file", write(tmp_path, broken, "broken.py"))
    assert code == 2 and "replay_check returned 7" in err, err


def test_a_renderer_name_reaches_the_page_and_a_bad_one_is_named(capsys, tmp_path):
    game = load_game(RELAY, game_sandbox(False, 256))
    try:
        assert game.spec.renderer == "relay_board" and game.spec.to_json()["renderer"] == "relay_board"
    finally:
        game.close()
    bad = RELAY.replace('"relay_board"', '"../x"')
    code, _, err = run(capsys, "match", "--game-file", write(tmp_path, bad), "builtin:viewer",
                       "builtin:viewer")
    assert code == 2 and "RENDERER is the name of a page renderer" in err, err


def test_argv_and_view_mistakes_are_named_at_load(capsys, tmp_path):
    mistakes = [
        ('return [str(message["secret"])] if', 'return [str(message["secret"]) + "\\0"] if', "argv returned"),
        ("VIEW = RelayView", "VIEW = 'RelayView'", "VIEW is a class"),
        ("VIEW = RelayView", "VIEW = RelayView\nclass FunctionClient:\n    pass",
         "give VIEW or FunctionClient, not both"),
    ]
    for old, new, wanted in mistakes:
        source = RELAY.replace(old, new)
        assert source != RELAY
        code, _, err = run(capsys, "match", "--game-file", write(tmp_path, source), "builtin:viewer",
                           "builtin:viewer")
        assert code == 2 and wanted in err, (wanted, err)


class _Host:
    """A game's process that answers anything (the proxy trusts none of it)."""

    info = {"argv": True, "replay_check": True}

    def __init__(self, reply: dict) -> None:
        self.reply = reply

    def call(self, request: dict) -> dict:
        return self.reply


def test_the_controller_checks_the_argv_and_the_verdict_a_games_process_sends():
    from engine.core.errors import GameCodeError
    from engine.play.game_proxy import ProxyWire

    assert ProxyWire(_Host({"argv": ["12", "é"]})).message_argv({}) == ["12", "é"]
    for argv in (["\0"], ["\ud800"], ["x"] * 17, ["x" * 32_001], "12", [12], None):
        with pytest.raises(GameCodeError):
            ProxyWire(_Host({"argv": argv})).message_argv({})
    assert ProxyWire(_Host({"problem": "x" * 10_000})).replay_check({}, None, None) == "x" * 500
    verdict = ProxyWire(_Host({"problem": ["not text"]})).replay_check({}, None, None)
    assert verdict == "the game's check failed"
    assert ProxyWire(_Host({})).replay_check({}, None, None) is None
