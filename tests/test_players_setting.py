"""Two things the game API gained for the built-in games (Atomas first): a game of fixed seats
may have no ``players`` setting (``PLAYERS_SETTING = False``: its records' settings are its
own), and ``rng.key`` is the game's draw key, for a game that seeds streams of its own.

Shown on a small game played alone, loaded as an author's game (its own process) and as a
trusted module (in this process): both record the same games, without ``players``.
"""

from __future__ import annotations

import random
import sys
import types

import pytest

from engine.authored.authored_spec import GameInfoError, check_info
from engine.authored.game_module import GameModule, GameModuleError
from engine.authored.in_process import TrustedGame
from engine.bots.native import HostedBot, InProcessBot
from engine.core.randomness import GameRandom, draw_key
from engine.games.registry import register, unregister
from engine.play.debug_part import rules_part
from engine.play.game_proxy import game_sandbox, load_game
from engine.play.match import run_series

# Each round draws a number from a stream of the game's own (seeded from rng.key and the
# round), and a bot that names its parity scores.
SOLO = '''"""Solo: guess the parity of a number drawn from the game's own stream."""
import random

NAME = "solo"
TITLE = "Solo"
PLAYERS = 1
PLAYERS_SETTING = False
SETTINGS = {"rounds": 6, "time_limit_ms": 60000}


class Game:
    def __init__(self, settings, rng):
        self.rounds = settings.rounds
        self.key = rng.key
        self.round = 0
        self.points = 0
        self.drawn = []

    def acting_seats(self):
        return [0]

    def observation(self, seat, since):
        return {"round": self.round}

    def parse_answer(self, text, seat):
        return int(text) % 2

    def default_action(self, seat):
        return 0

    def apply_actions(self, actions):
        number = random.Random(self.key * 1000 + self.round).randrange(100)
        self.drawn.append(number)
        self.points += actions[0] == number % 2
        self.round += 1
        return number

    def record_turn(self, actions, number):
        return {"number": number}

    def over(self):
        return "rounds" if self.round >= self.rounds else None

    def scores(self):
        return [self.points]

    def draw(self):
        return {"width": 1, "height": 1, "caption": f"round {self.round}"}
'''
BOT = "def move(view):\n    return view['round']\n"


def trusted(source: str) -> TrustedGame:
    module = types.ModuleType("trusted_solo")
    exec(compile(source, "solo.py", "exec"), module.__dict__)
    sys.modules["trusted_solo"] = module
    return TrustedGame(module)


def play(spec, make=InProcessBot) -> dict:
    register(spec)
    try:
        settings = spec.settings(time_limit_ms=60_000)
        return run_series(spec, settings, [make("a", BOT), make("b", BOT)], 3, 2, secret="s").document
    finally:
        unregister(spec.name)


def test_a_game_without_a_players_setting_records_its_own_settings_both_ways():
    here = trusted(SOLO)
    assert here.spec.settings().to_json() == {"rounds": 6, "time_limit_ms": 60000}
    assert here.spec.players_setting is None and here.spec.side_by_side
    sandbox = game_sandbox(True, 512)  # no sandbox: what is compared is the game's process
    hosted = load_game(SOLO, sandbox)
    try:
        there = play(hosted.spec, lambda name, source: HostedBot(name, source, sandbox))
    finally:
        hosted.close()
    mine = play(here.spec)
    records = [rules_part(r) for r in mine["records"]]
    assert len(records) == 4 and all(r["settings"] == {"rounds": 6, "time_limit_ms": 60000} for r in records)
    strip = lambda r: {**r, "start": {}, "turns": [{k: v for k, v in t.items() if k != "picture"}  # noqa: E731
                                                   for t in r["turns"]]}
    assert [strip(r) for r in records] == [strip(rules_part(r)) for r in there["records"]]
    # the numbers come from the stream rng.key seeds: the key of the game's seed and secret
    key = draw_key("solo", records[0]["seed"], "s")
    assert [t["number"] for t in records[0]["turns"]] == [random.Random(key * 1000 + n).randrange(100)
                                                         for n in range(6)]


@pytest.mark.parametrize("change, complaint", [
    ('PLAYERS = 1', 'PLAYERS = (1, 2)'),
    ('SETTINGS = {"rounds": 6, "time_limit_ms": 60000}', 'SETTINGS = {"rounds": 6, "players": 1}'),
    ('PLAYERS_SETTING = False', 'PLAYERS_SETTING = 0'),
])
def test_a_players_setting_opt_out_is_for_fixed_seats_only(change, complaint):
    with pytest.raises(GameModuleError, match="PLAYERS_SETTING"):
        GameModule(SOLO.replace(change, complaint))


def test_the_controller_checks_what_a_games_process_says_of_its_players_setting():
    info = GameModule(SOLO).info
    assert info["players_setting"] is False and "players" not in info["settings"]
    assert check_info(info) is info
    for wrong in ({"players_setting": True}, {"players_setting": None},
                  {"settings": {**info["settings"], "players": 1}},
                  {"players": [1, 2], "alone": False}):
        with pytest.raises(GameInfoError):
            check_info({**info, **wrong})
    with_players = GameModule(SOLO.replace("PLAYERS_SETTING = False\n", "")).info
    assert with_players["players_setting"] is True and with_players["settings"]["players"] == 1


def test_the_rng_a_game_is_given_draws_as_random_random_of_its_key_and_keeps_it():
    rng, plain = GameRandom(12345), random.Random(12345)
    assert [rng.random() for _ in range(3)] == [plain.random() for _ in range(3)]
    assert rng.sample(range(50), 4) == plain.sample(range(50), 4) and rng.key == 12345
    import copy

    twin = copy.deepcopy(rng)
    assert twin.key == 12345 and twin.random() == rng.random()
