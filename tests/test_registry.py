"""Every registered game, walked through the engine's shared code (OpenSpiel's random_sim_test).

For each game the registry knows: random-bot games from many seeds are played to the end
through the session (the game's own example bots, with arbitrary answers, errors and
time-outs mixed in), each record replays through the rules, verifies as a file, and
survives a JSON round trip unchanged. Nothing here names a game: a new game is walked by
adding its files.
"""

from __future__ import annotations

import json
import random

import pytest

from engine.bots.code import FUNCTION, load_code
from engine.bots.runners import FunctionRunner
from engine.games.registry import games, get_game
from engine.play.replay import replay_record, verify_document
from engine.play.series import series_document
from engine.play.session import GameSession, Reply

SEEDS = range(1, 7)
GARBAGE = ["", "   ", "banana", "-1", "9999 9999 9999 9999", "0 0 0 0 0", "move", "throw left -3",
           "\x00", "y", "0 y", "3", "drop up 7", "rest please"]


def function_examples(spec) -> list[tuple[str, object]]:
    found = []
    for name, source in spec.examples().items():
        code = load_code(source)
        if code.kind == FUNCTION:
            found.append((name, code))
    return found


def play_random_game(spec, seed: int, n_bots: int) -> dict:
    """One game from ``seed`` between example function bots, about a tenth of whose replies
    are replaced by garbage, errors, late answers or silence."""
    chooser = random.Random(seed)
    random.seed(seed)  # the example bots draw from the module-level generator
    examples = function_examples(spec)
    assert examples, f"{spec.name} has no function-bot example to play with"
    picks = [examples[(seed + i) % len(examples)] for i in range(n_bots)]
    settings = spec.settings()
    if spec.players_setting:
        settings = spec.settings(**{spec.players_setting: n_bots})
    seats = 1 if spec.side_by_side else n_bots
    session = GameSession(spec, settings, seed, [name for name, _ in picks[:seats]], secret="walk")
    runners = []
    for seat in range(seats):
        runner = FunctionRunner(spec.name, picks[seat][1])
        assert runner.start(session.start_message(seat)).error is None
        runners.append(runner)
    turns = 0
    while (requests := session.next_requests()) is not None:
        replies = {}
        for request in requests:
            answer = runners[request.seat].turn(request.message)
            reply = Reply(answer.answer, answer.error, answer.line, 1.0)
            roll = chooser.random()
            if roll < 0.04:
                reply = Reply(answer=chooser.choice(GARBAGE), elapsed_ms=1.0)
            elif roll < 0.06:
                reply = Reply(error="RuntimeError: walked into a wall", line=3)
            elif roll < 0.07:
                reply = Reply(answer=answer.answer, elapsed_ms=settings.time_limit_ms + 1)
            elif roll < 0.08:
                reply = Reply(no_answer=True)
            replies[request.seat] = reply
        played = session.submit(replies)
        assert set(played.turn["seats"]) >= set(replies)
        turns += 1
        assert turns <= 200_000, "the game does not end"
    assert session.state.is_terminal() and session.record["result"] is not None
    return session.record


@pytest.mark.parametrize("spec", games(), ids=lambda spec: spec.name)
def test_every_game_plays_replays_and_round_trips(spec):
    low, high = spec.bot_range()
    records = []
    for seed in SEEDS:
        n_bots = low + seed % (min(high, low + 3) - low + 1)
        record = play_random_game(spec, seed, n_bots)
        assert json.loads(json.dumps(record)) == record  # JSON-able, unchanged by the trip
        final = replay_record(json.loads(json.dumps(record)))
        assert final.outcome.to_json() == record["result"]
        if len(record["bots"]) > 1:  # a file of several records needs one bot list; check each alone
            document = series_document(spec, record["bots"], [record], "walk")
            verified = verify_document(json.dumps(document))
            assert verified["records"] == [record] and verified["summary"] == document["summary"]
        records.append(record)
    faults = [f for r in records for t in r["turns"] for f in t["faults"] if f]
    assert faults, "the walk should have met some faults"
    frozen = any(f["kind"] == "frozen" for f in faults) or any(
        r["result"]["termination"] == "frozen" for r in records)
    assert frozen, "and bots frozen by them"


@pytest.mark.parametrize("spec", games(), ids=lambda spec: spec.name)
def test_every_spec_describes_itself_to_the_page(spec):
    data = json.loads(json.dumps(spec.to_json()))
    assert data["name"] == spec.name and get_game(spec.name) is spec
    assert data["default_preset"] in {p["name"] for p in data["presets"]}
    assert any(f["key"] == "time_limit_ms" for f in data["fields"])
    for preset in data["presets"]:
        low, high = preset["bots"]
        assert spec.min_bots <= low <= high <= spec.max_bots
        assert spec.settings_from_json(preset["settings"]) == spec.settings(preset["name"])
    assert data["examples"] and all(isinstance(s, str) and s for s in data["examples"].values())
    assert data["scoring"] in ("wins", "mean_score")
    assert data["script_mode"] in ("stream", "per_move", "per_turn")
