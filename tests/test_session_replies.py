"""The session takes whatever a transport hands it from a bot and never raises on it.

A page Worker or a broken host could hand over a reply of any type or size; each becomes a
fault in the record (capped), the turn is played, and the game goes on.
"""

from __future__ import annotations

import json

import pytest

from engine.bots.answer import BotAnswer, OutputBudget
from engine.games.registry import get_game
from engine.play.session import GAME_ERROR_CHARS, MAX_ERROR_CHARS, GameSession, Reply

ATOMAS = get_game("atomas")


def session() -> GameSession:
    return GameSession(ATOMAS, ATOMAS.settings(max_moves=50), 1, ["bot"])


class Unprintable:
    def __str__(self) -> str:
        raise RuntimeError("no")


@pytest.mark.parametrize("reply, kind, message", [
    (Reply(answer=7), "invalid", "the answer is int, not text"),
    (Reply(answer=["0"]), "invalid", "the answer is list, not text"),
    (Reply(answer="0" * 5_000_000), "invalid", ""),
    (Reply(answer="\x00\ud800"), "invalid", ""),
    (Reply(error=Unprintable()), "error", "an error of type Unprintable"),
    (Reply(error=12345, line="7"), "error", "12345"),
    (Reply(answer="no-such-move", elapsed_ms="slow"), "invalid", "no-such-move"),
])
def test_a_bad_reply_is_a_fault_never_an_exception(reply, kind, message):
    game = session()
    assert game.next_requests() is not None
    played = game.submit({0: reply})
    assert len(game.record["turns"]) == 1
    assert played.faults[0].kind.value == kind and message in played.faults[0].message
    assert played.faults[0].line is None
    json.dumps(game.record)  # the record stays writable as JSON
    assert game.next_requests() is not None  # and the game goes on


def test_fault_text_is_capped_per_move_and_per_game():
    game = session()
    sizes = []
    while game.next_requests() is not None:
        played = game.submit({0: Reply(error="E" * 5_000_000)})
        sizes.append(len(played.faults[0].message))
    assert len(sizes) == 5  # then frozen
    assert max(sizes) < MAX_ERROR_CHARS + 100
    assert "[... 4996000 characters cut ...]" in game.record["turns"][0]["faults"][0]["message"]


def test_fault_text_past_the_game_budget_is_short():
    game = session()
    game.next_requests()
    game._within_budget(0, "x" * GAME_ERROR_CHARS)
    played = game.submit({0: Reply(error="E" * 10_000)})
    assert len(played.faults[0].message) < 300 and "characters cut" in played.faults[0].message


def test_output_budget_drops_past_the_game_total_and_says_how_much():
    budget = OutputBudget(limit=100)
    kept = [budget.apply(BotAnswer(stdout="o" * 60, stderr="e" * 30)) for _ in range(3)]
    assert sum(len(a.stdout) + len(a.stderr) for a in kept) == 100
    assert kept[2].stdout == "" and kept[2].stderr == ""
    assert "170 characters of output cut" in budget.note()
    assert OutputBudget().note() == ""
