"""Atomas on the wire: the ``ATOM/ITEMS`` line, answers, and the function-bot view."""

from __future__ import annotations

import sys
from typing import NamedTuple

from engine.core.answer_text import answer_text
from engine.core.errors import InvalidAnswerError
from engine.core.marks import print_mark
from engine.core.spec import GameSpec, Preset, SettingField
from engine.games.atomas import rules
from engine.games.atomas.rules import (
    BLACK,
    CLONE,
    MINUS,
    PLUS,
    Action,
    Atom,
    AtomasSettings,
    AtomasState,
    Item,
)


class AtomasView(NamedTuple):
    """What ``move(view)`` gets: the atom to play and the ring (a tuple, read-only)."""

    atom: Atom
    board: tuple[Item, ...]

    def mark(self, position: int, colour: str, text: str = "") -> None:
        """Mark the ring's item at ``position`` (an index of ``board``) for your author."""
        print_mark((position,), colour, text)


def mark_cells(state: AtomasState, seat: int, where: tuple[int, ...]) -> tuple[int] | None:
    """A bot's mark names a ring position: an index of the ring it was shown (engine.core.marks)."""
    if len(where) == 1 and 0 <= where[0] < len(state.items):
        return (where[0],)
    return None


def start_message(state: AtomasState, seat: int) -> dict:
    return {}


def observation(state: AtomasState, seat: int, changes: list) -> dict:
    return {"atom": state.atom, "board": list(state.items)}


def message_lines(message: dict) -> list[str]:
    if "atom" not in message:
        return []
    return [f"{message['atom']}/{' '.join(str(x) for x in message['board'])}"]


def message_argv(message: dict) -> list[str]:
    return []


def parse_item(token: str) -> Atom:
    return int(token) if token.isdigit() else token


def parse_line(line: str) -> AtomasView:
    """Read an ``ATOM/ITEMS`` line (what a script bot's ``input()`` returns)."""
    atom, _, items = line.strip().partition("/")
    return AtomasView(parse_item(atom), tuple(parse_item(t) for t in items.split()))


def parse_answer(text: str, state: AtomasState, seat: int = 0) -> Action:
    """Parse an answer for the state's atom; range checks are the rules' job."""
    parts = text.split()
    try:
        if state.atom == MINUS:
            if len(parts) != 2 or parts[1] not in ("y", "n"):
                raise InvalidAnswerError(text, "a '-' answer is 'INDEX y' or 'INDEX n'")
            return (int(parts[0]), parts[1] == "y")
        if len(parts) != 1:
            what = "an item index" if state.atom == CLONE else "one gap number"
            raise InvalidAnswerError(text, f"expected {what}")
        return int(parts[0])
    except ValueError as exc:
        if isinstance(exc, InvalidAnswerError):
            raise
        raise InvalidAnswerError(text, "not an integer") from None


_new_tuple = tuple.__new__


class FunctionClient:
    """Turns messages into views for a function bot ``move(view)``."""

    def start(self, message: dict) -> None:
        pass

    def view(self, message: dict) -> AtomasView:
        # AtomasView(atom, board) without the named tuple's Python __new__: a view a move
        return _new_tuple(AtomasView, (message["atom"], tuple(message["board"])))


def record_start(state: AtomasState) -> dict:
    return {"board": list(state.items), "score": state.score}


def record_turn(state: AtomasState, messages: dict[int, dict], actions: dict[int, Action],
                changes: object) -> dict:
    return {"atom": messages[0]["atom"], "board": list(state.items), "score": state.score}


def replay_check(turn: dict, state: AtomasState, changes: object) -> str | None:
    """None if the state after a replayed turn matches the record, else the difference."""
    if turn["board"] != state.items or turn["score"] != state.score:
        return f"expected {turn['board']} score {turn['score']}, got {state.items} score {state.score}"
    return None


TIME_LIMIT = SettingField("time_limit_ms", "Time limit (ms)", 1, 60_000, "per move")
SPEC = GameSpec(
    name="atomas", title="Atomas",
    summary="Fuse atoms on a ring: one player, every bot plays its own copy of each seed.",
    rules_doc="docs/rules/atomas.md",
    presets=(Preset("standard", "standard (2,000 moves, 1 s a move)", rules.PRESETS["standard"]),),
    default_preset="standard",
    fields=(TIME_LIMIT, SettingField("max_moves", "Max moves", 1, 100_000, "moves before the game ends")),
    settings_type=AtomasSettings, new_game=rules.new_game, wire=sys.modules[__name__],
    min_bots=1, max_bots=8, players_setting=None, side_by_side=True, scoring="mean_score",
    script_mode="per_move", renderer="atomas", examples_package="engine.games.atomas.examples", menu_order=2,
    min_score=0,
)

__all__ = ["AtomasView", "BLACK", "CLONE", "MINUS", "PLUS", "FunctionClient", "parse_answer",
           "parse_line", "message_lines", "start_message", "observation", "answer_text"]
