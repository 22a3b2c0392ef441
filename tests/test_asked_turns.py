"""The native controller asks its bots' turns through a function (``ask``), the page's
answers ``Calls`` steps: both must play the same games, with the same events.

Bots that print, raise, answer badly and answer well, so the quiet fast path and every
fault path are walked; the replays (each reply's time aside) and the event logs must be
equal byte for byte.
"""

from __future__ import annotations

import json

import pytest

from engine.bots.native import InProcessBot
from engine.games.registry import get_game
from engine.play.debug_part import rules_document
from engine.play.driver import BotEvent, Call, Calls, GameStarted, TurnPlayed
from engine.play.match import run_series
from engine.play.series import GameFinished, series_steps

# Every kind of turn: quiet and good, printing, raising, a bad answer; seeded from the bot's random.
ATOMAS_BOT = """
import random
def move(view):
    r = random.random()
    if r < 0.1:
        print("thinking", view.atom)
    if r < 0.03:
        raise ValueError("no idea")
    if r > 0.97:
        return "nonsense"
    return (0, False) if view.atom == "-" else 0
"""
FLIT_BOT = """
import random
def move(view):
    r = random.random()
    if r < 0.1:
        print("turn", view.turn)
    if r < 0.03:
        raise ValueError("no idea")
    if r > 0.95:
        return (0, 0, 1, 1)  # mostly not a valid move
    moves = view.moves()
    return random.choice(moves) if moves else "0 0 0 0"
"""


def by_calls(spec, settings, bots, seed, games, secret):
    """The page's way: answer every ``Calls`` step, follow ``TurnPlayed``."""
    steps = series_steps(spec, settings, [b.name for b in bots], seed, games, None, secret)
    events, played, value = [], 0, None
    while True:
        try:
            step = steps.send(value)
        except StopIteration as done:
            return done.value, events, played
        value = None
        if isinstance(step, Calls):
            value = {c.seat: bots[c.bot].turn(c.message, settings.time_limit_ms) for c in step.calls}
        elif isinstance(step, Call):
            bot = bots[step.bot]
            if step.op == "load":
                value = bot.load(spec.name)
            elif step.op == "start":
                value = bot.start(step.seat, step.message, step.seed)
            else:
                value = bot.end()
        elif isinstance(step, BotEvent):
            events.append((step.bot, step.stream, step.text, step.line))
        elif isinstance(step, TurnPlayed):
            played += 1
        else:
            assert isinstance(step, GameFinished | GameStarted)


@pytest.mark.parametrize("game, source, seats, preset", [
    ("atomas", ATOMAS_BOT, 2, None),
    ("flit", FLIT_BOT, 3, "trial"),
])
def test_asked_turns_play_the_games_the_calls_steps_play(game, source, seats, preset):
    spec = get_game(game)
    overrides = {"time_limit_ms": 60_000}  # no time-out however loaded the machine
    if spec.players_setting:
        overrides[spec.players_setting] = seats
    settings = spec.settings(preset, **overrides)
    if game == "atomas":
        settings = spec.settings(preset, max_moves=300, **overrides)

    def bots():
        return [InProcessBot(f"bot{i}", source) for i in range(seats)]

    stepped, stepped_events, played = by_calls(spec, settings, bots(), 5, 2, "s")
    asked_events = []
    asked = run_series(spec, settings, bots(), 5, 2, secret="s",
                       on_event=lambda e: asked_events.append((e.bot, e.stream, e.text, e.line))).document
    assert json.dumps(rules_document(asked)) == json.dumps(rules_document(stepped))  # times differ
    printed = [r["debug"]["output"] for r in asked["records"]]
    assert printed == [r["debug"]["output"] for r in stepped["records"]] and any(printed)
    assert asked_events == stepped_events
    turns = sum(len(r["turns"]) for r in asked["records"])
    assert played == turns > 50
    streams = {stream for _, stream, _, _ in asked_events}
    assert {"stdout", "fault"} <= streams  # printing and faulting turns were walked
    kinds = {f["kind"] for r in asked["records"] for t in r["turns"] for f in t["faults"] if f}
    assert {"error", "invalid"} <= kinds
