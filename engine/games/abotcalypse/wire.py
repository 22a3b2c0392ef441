"""aBOTcalypse on the wire: each bot's own view, answers, the function-bot view, the record.

The original told a bot nothing at the start and, every turn, started it afresh with its view
(text rows, top row first) as the last command-line argument; here a per-turn script gets the
same text as its last argument and on stdin, and a function bot gets an ``AbotView`` built from
the very same rows. A turn's record is the events ``AbotState.apply_actions`` returned, which
is what the page's renderer redraws the board from and what a replay is checked against.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from typing import Any

from engine.core.marks import print_mark
from engine.core.spec import GameSpec, Preset, SettingField
from engine.games.abotcalypse.rules import (
    MAX_PLAYERS,
    MAX_TIME_LIMIT_MS,
    MAX_TURNS,
    MIN_PLAYERS,
    PRESETS,
    VIEW_RADIUS,
    AbotSettings,
    AbotState,
    Action,
    new_game,
    parse_action,
)

BOUNDARY = "#"
AIR = "."
METEOR = "@"
ROCK = "&"
SELF, SELF_IN_ROCK = "s", "S"
ENEMY, ENEMY_IN_ROCK = "e", "E"
_SELF_CHARS = SELF + SELF_IN_ROCK
MAX_ANSWER_WORDS = 3


# -- messages -------------------------------------------------------------------------------
def start_message(state: AbotState, seat: int) -> dict:
    """What a function bot's client is told before turn 1 (a per-turn script gets no lines)."""
    return {"seat": seat, "players": state.num_players, "width": state.width,
            "height": state.height}


def observation(state: AbotState, seat: int, changes: list) -> dict:
    """The seat's own view before the coming turn (``changes`` are not needed: the view is
    rebuilt from the position every turn, as the original did)."""
    return {"view": state.view_rows(seat), "turn": state.turn + 1}


def message_lines(message: dict) -> list[str]:
    """The view's rows, top row first: what a per-turn script reads on stdin."""
    return list(message.get("view", ()))


def message_argv(message: dict) -> list[str]:
    """The view as one argument (rows joined by newlines), as the original passed it last."""
    if "view" not in message:
        return []
    return ["\n".join(message["view"])]


def parse_answer(text: str, state: AbotState, seat: int) -> Action:
    """The action an answer line means; bad syntax raises ``InvalidAnswerError`` (played as
    ``rest``, recorded, not counted as a fault)."""
    return parse_action(text)


def answer_text(value: Any) -> str:
    """A function bot's return value as an answer line.

    ``Action("throw", "left", 3)`` and ``("throw", "left", 3)`` -> ``"throw left 3"``;
    ``["move", "up"]`` -> ``"move up"``; a string is sent as it is. Anything else becomes its
    ``str()``, which the game reads as bad syntax (a recorded rest).
    """
    if isinstance(value, Action):
        return str(value)
    if isinstance(value, str):
        return value
    if isinstance(value, (tuple, list)) and 0 < len(value) <= MAX_ANSWER_WORDS and all(
            isinstance(word, str) or (type(word) is int and word >= 0) for word in value):
        return " ".join(str(word) for word in value)
    return str(value)


# -- the function-bot view ----------------------------------------------------------------
class AbotView:
    """What ``move(view)`` gets: the bot's view as rows and as a grid around it (read-only).

    - ``rows``: the view's text rows, top row first (a tuple of str), exactly what a script
      gets; ``text``: the rows joined by newlines.
    - ``me``: ``(col, row)`` of the bot's own cell in ``rows`` (``row`` 0 is the top row).
    - ``view[dx, dy]``: the character ``dx`` cells to the right and ``dy`` cells **up** from
      the bot (``view[0, 0]`` is ``s`` or ``S``, ``view[0, -1]`` the cell below); ``#`` beyond
      what the bot sees.
    - ``elevation``: the bot's row above the floor when the floor (the bottom ring of ``#``)
      is in sight, i.e. at elevation 20 or less; otherwise None.
    - ``turn``: the turn about to be played (from 1).
    - ``find(chars)``: the offsets ``(dx, dy)`` of every cell holding one of ``chars``,
      nearest first (``view.find("eE")`` lists the enemies in sight).
    """

    __slots__ = ("_rows", "_text", "_me", "_elevation", "_turn")

    def __init__(self, rows: Iterable[str], turn: int) -> None:
        self._rows = tuple(rows)
        self._text = "\n".join(self._rows)
        self._turn = turn
        self._me = _locate(self._rows)
        floor_in_sight = bool(self._rows) and set(self._rows[-1]) == {BOUNDARY}
        self._elevation = len(self._rows) - 2 - self._me[1] if floor_in_sight else None

    def __setattr__(self, name: str, value: object) -> None:
        if name in AbotView.__slots__ and not hasattr(self, name):
            object.__setattr__(self, name, value)  # set once, in __init__
            return
        raise AttributeError("the view is read-only")

    rows = property(lambda self: self._rows, doc="The text rows, top row first.")
    text = property(lambda self: self._text, doc="The rows joined by newlines.")
    me = property(lambda self: self._me, doc="(col, row) of the bot's own cell in rows.")
    elevation = property(lambda self: self._elevation,
                         doc="The bot's row above the floor when the floor is in sight, else None.")
    turn = property(lambda self: self._turn, doc="The turn about to be played (from 1).")

    def __getitem__(self, offset: tuple[int, int]) -> str:
        dx, dy = offset
        col, row = self._me[0] + dx, self._me[1] - dy
        if 0 <= row < len(self._rows) and 0 <= col < len(self._rows[row]):
            return self._rows[row][col]
        return BOUNDARY

    def find(self, chars: str) -> list[tuple[int, int]]:
        """The offsets ``(dx, dy)`` of the cells holding any of ``chars``, nearest first
        (Chebyshev distance, then top to bottom, then left to right)."""
        col0, row0 = self._me
        found = [(col - col0, row0 - row) for row, text in enumerate(self._rows)
                 for col, char in enumerate(text) if char in chars]
        return sorted(found, key=lambda d: (max(abs(d[0]), abs(d[1])), -d[1], d[0]))

    def mark(self, dx: int, dy: int, colour: str, text: str = "") -> None:
        """Mark the cell ``dx`` right and ``dy`` up from the bot (as ``view[dx, dy]``) for
        your author."""
        print_mark((dx, dy), colour, text)

    def __repr__(self) -> str:
        return f"AbotView(turn={self._turn}, me={self._me}, elevation={self._elevation})"


def _locate(rows: tuple[str, ...]) -> tuple[int, int]:
    """The bot's own cell in its view.

    A meteor is drawn over whatever shares its cell, so in a hand-made position the bot's
    mark may be hidden (in a game a meteor never stays in a bot's cell); then the cell is
    worked out from the view's cut: the bot is ``VIEW_RADIUS`` cells from every side that is
    not the board's edge.
    """
    for row, text in enumerate(rows):
        col = text.find(SELF)
        if col < 0:
            col = text.find(SELF_IN_ROCK)
        if col >= 0:
            return col, row
    if not rows:
        return 0, 0
    width = len(rows[0])
    board_rows = [i for i, text in enumerate(rows) if set(text) != {BOUNDARY}]
    sample = rows[board_rows[0]] if board_rows else rows[0]
    col = VIEW_RADIUS if not sample.startswith(BOUNDARY) else max(width - 1 - VIEW_RADIUS, 0)
    row = VIEW_RADIUS if set(rows[0]) != {BOUNDARY} else max(len(rows) - 1 - VIEW_RADIUS, 0)
    return min(col, width - 1), min(row, len(rows) - 1)


class FunctionClient:
    """Turns a seat's messages into ``AbotView``s (the view is whole each turn: no memory)."""

    def __init__(self) -> None:
        self.seat: int | None = None
        self.players = 0

    def start(self, message: dict) -> None:
        self.seat = message.get("seat")
        self.players = message.get("players", 0)

    def view(self, message: dict) -> AbotView:
        return AbotView(message["view"], message["turn"])


def mark_cells(state: AbotState, seat: int, where: tuple[int, ...]) -> tuple[int, int] | None:
    """A bot's mark names a cell ``dx dy`` from the bot (``dy`` up), as it stood when it
    answered: the board's ``x y`` (engine.core.marks); None off the board."""
    if len(where) != 2:
        return None
    x, y = state.xs[seat] + where[0], state.ys[seat] + where[1]
    return (x, y) if 0 <= x < state.width and 0 <= y < state.height else None


# -- the record ---------------------------------------------------------------------------
def record_start(state: AbotState) -> dict:
    """The position before turn 1 (``AbotState.start_json()``)."""
    return state.start_json()


def record_turn(state: AbotState, messages: Mapping[int, dict], actions: Mapping[int, Any],
                changes: dict) -> dict:
    """A turn's game fields: the events the rules returned (the page redraws from them)."""
    return dict(changes)


def replay_check(turn: Mapping[str, Any], state: AbotState, changes: Mapping[str, Any]) -> str | None:
    """None when the recorded turn's events are the rules' events, else the first difference."""
    for key, expected in changes.items():
        if key not in turn:
            return f"turn {changes.get('turn')}: the record has no {key!r}"
        difference = _first_difference(turn[key], expected, key)
        if difference:
            return f"turn {changes.get('turn')}: {difference}"
    return None


def _first_difference(recorded: Any, expected: Any, where: str) -> str | None:
    if isinstance(expected, list) and isinstance(recorded, list):
        for index, (got, want) in enumerate(zip(recorded, expected, strict=False)):
            difference = _first_difference(got, want, f"{where}[{index}]")
            if difference:
                return difference
        if len(recorded) != len(expected):
            return f"{where} has {len(recorded)} entries, the rules give {len(expected)}"
        return None
    if recorded != expected or type(recorded) is not type(expected) and not (
            isinstance(recorded, (int, float)) and isinstance(expected, (int, float))
            and not isinstance(recorded, bool) and not isinstance(expected, bool)):
        return f"{where} is {recorded!r} in the record, the rules give {expected!r}"
    return None


SPEC = GameSpec(
    name="abotcalypse", title="aBOTcalypse",
    summary="Survive falling rocks and meteors on a side view: 2 to 8 bots, all moving at once.",
    rules_doc="docs/rules/abotcalypse.md",
    presets=(
        Preset("trial", "trial (48×24, 200 turns, 1 s a turn)", PRESETS["trial"], (MIN_PLAYERS, MAX_PLAYERS)),
        Preset("original", "original (100×100, 500 turns, 1 s a turn)", PRESETS["original"],
               (MIN_PLAYERS, MAX_PLAYERS)),
    ),
    default_preset="trial",
    fields=(
        SettingField("time_limit_ms", "Time limit (ms)", 1, MAX_TIME_LIMIT_MS, "per turn"),
        SettingField("max_turns", "Max turns", 1, MAX_TURNS, "turns before the game ends"),
    ),
    settings_type=AbotSettings, new_game=new_game, wire=sys.modules[__name__],
    min_bots=MIN_PLAYERS, max_bots=MAX_PLAYERS, players_setting="players", side_by_side=False,
    scoring="mean_score", script_mode="per_turn", renderer="abotcalypse",
    examples_package="engine.games.abotcalypse.examples", menu_order=3,
    min_score=0,
)

__all__ = [
    "SPEC", "AbotView", "FunctionClient", "answer_text", "message_argv", "message_lines", "observation",
    "parse_answer", "record_start", "record_turn", "replay_check", "start_message",
]
