"""aBOTcalypse on the public game API (``engine.game_api``): its settings and presets, each bot's
own view (text rows, top row first, on stdin and as the last command-line argument, as the
original passed it), answers, the function bots' ``AbotView`` and the ``Game`` the engine plays
in-process (``engine.authored.in_process``). The rules are ``rules.AbotState``, called directly:
``Game`` only gives them the API's names. A turn's record is the events ``apply_actions``
returned, which is what the page's renderer (``web/src/games/abotcalypse.js``) redraws the board
from and what a replay is checked against; ``draw()`` is there for the rest. The rule book for
bot authors is docs/rules/abotcalypse.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from engine.core.errors import InvalidAnswerError
from engine.core.marks import print_mark
from engine.game_api import Field, InvalidAnswer, Preset
from engine.games.abotcalypse import rules
from engine.games.abotcalypse.rules import (
    MAX_PLAYERS,
    MAX_TIME_LIMIT_MS,
    MIN_PLAYERS,
    VIEW_RADIUS,
    AbotSettings,
    AbotState,
    Action,
    parse_action,
)

NAME = "abotcalypse"
TITLE = "aBOTcalypse"
SUMMARY = "Survive falling rocks and meteors on a side view: 2 to 8 bots, all moving at once."
PLAYERS = (MIN_PLAYERS, MAX_PLAYERS)
_TRIAL, _ORIGINAL = rules.PRESETS["trial"], rules.PRESETS["original"]
SETTINGS = {"width": _TRIAL.width, "height": _TRIAL.height, "players": _TRIAL.players,
            "max_turns": _TRIAL.max_turns, "time_limit_ms": _TRIAL.time_limit_ms}
FIELDS = [Field("time_limit_ms", "Time limit (ms)", 1, MAX_TIME_LIMIT_MS, "per turn"),
          Field("max_turns", "Max turns", 1, rules.MAX_TURNS, "turns before the game ends")]
PRESETS = [
    Preset("trial", "trial (48×24, 200 turns, 1 s a turn)", {}, PLAYERS),
    Preset("original", "original (100×100, 500 turns, 1 s a turn)",
           {"width": _ORIGINAL.width, "height": _ORIGINAL.height, "max_turns": _ORIGINAL.max_turns}, PLAYERS),
]
SCORING = "mean_score"  # a bot's score is the turn it died (max_turns if it lived)
SCRIPT_MODE = "per_turn"
FAULT_LIMIT = AbotState.fault_limit
INVALID_IS_FAULT = AbotState.invalid_is_fault  # bad syntax is a recorded rest, not counted
RENDERER = "abotcalypse"
MENU_ORDER = 3
MIN_SCORE = 0

BOUNDARY = "#"
AIR = "."
METEOR = "@"
ROCK = "&"
SELF, SELF_IN_ROCK = "s", "S"
ENEMY, ENEMY_IN_ROCK = "e", "E"
_SELF_CHARS = SELF + SELF_IN_ROCK
MAX_ANSWER_WORDS = 3


class Game(AbotState):
    """The rules under the API's names; the state's own methods serve where the names agree
    (``acting_seats``, ``default_action``, ``freeze``, ``scores``, ``apply_actions``: any
    answer that reads is a legal move)."""

    def __init__(self, settings: Any, rng: Any) -> None:
        # the bounds of a board (a replay file's settings are a stranger's): ValueError
        checked = AbotSettings(settings.width, settings.height, settings.players, settings.max_turns,
                               settings.time_limit_ms)
        super().__init__(checked, 0, rng=rng)

    def start_message(self, seat: int) -> dict:
        """What a function bot's client is told before turn 1 (a per-turn script gets no lines)."""
        return {"seat": seat, "players": self.num_players, "width": self.width, "height": self.height}

    def observation(self, seat: int, since: list) -> dict:
        """The seat's own view before the coming turn (``since`` is not needed: the view is
        rebuilt from the position every turn, as the original did)."""
        return {"view": self.view_rows(seat), "turn": self.turn + 1}

    def parse_answer(self, text: str, seat: int) -> Action:
        """The action an answer line means; anything else is invalid (played as ``rest``,
        recorded, not counted as a fault)."""
        try:
            return parse_action(text)
        except InvalidAnswerError as exc:
            raise InvalidAnswer(exc.reason, exc.answer) from None

    def mark_cells(self, seat: int, where: tuple[int, ...]) -> tuple[int, int] | None:
        """A bot's mark names a cell ``dx dy`` from the bot (``dy`` up), as it stood when it
        answered: the board's ``x y`` (engine.core.marks); None off the board."""
        if len(where) != 2:
            return None
        x, y = self.xs[seat] + where[0], self.ys[seat] + where[1]
        return (x, y) if 0 <= x < self.width and 0 <= y < self.height else None

    def __deepcopy__(self, memo: dict) -> Game:
        return self.copy()  # the replay checker's trial copy: the rules' own copy

    def over(self) -> str | None:
        return self.outcome.termination if self.outcome is not None else None

    def record_start(self) -> dict:
        """The position before turn 1 (``AbotState.start_json()``)."""
        return self.start_json()

    def record_turn(self, actions: Mapping[int, Any], changes: dict) -> dict:
        """A turn's game fields: the events the rules returned (the page redraws from them)."""
        return dict(changes)

    def replay_check(self, turn: Mapping[str, Any], changes: Mapping[str, Any]) -> str | None:
        """None when the recorded turn's events are the rules' events, else the first difference."""
        for key, expected in changes.items():
            if key not in turn:
                return f"turn {changes.get('turn')}: the record has no {key!r}"
            difference = _first_difference(turn[key], expected, key)
            if difference:
                return f"turn {changes.get('turn')}: {difference}"
        return None

    def draw(self) -> dict:
        """The board (its lowest, leftmost 256 × 256 cells at most): ``&`` rock, a seat's number
        a living bot, ``@`` a meteor."""
        width, height = min(self.width, 256), min(self.height, 256)
        grid = [["&" if self.rocks[y * self.width + x] else "." for x in range(width)]
                for y in range(height)]
        for meteor in self.meteors:
            x, y = int(meteor[0]), int(meteor[1])
            if 0 <= x < width and 0 <= y < height:
                grid[y][x] = "@"
        key = {"&": {"color": "#8d6e63", "label": "rock"}, "@": {"color": "#ff9800", "label": "meteor"}}
        for seat in range(self.num_players):
            x, y = self.xs[seat], self.ys[seat]
            if self.alive[seat] and x < width and y < height:
                grid[y][x] = str(seat + 1)
                key[str(seat + 1)] = {"color": seat, "label": f"bot {seat + 1}"}
        living = sum(self.alive)
        return {"width": width, "height": height, "cells": ["".join(row) for row in reversed(grid)],
                "key": key, "caption": f"turn {self.turn}, {living} bots alive"}


# -- the bot side: text lines, argv, answers ---------------------------------------------
def lines(message: dict) -> list[str]:
    """The view's rows, top row first: what a per-turn script reads on stdin."""
    return list(message.get("view", ()))


def argv(message: dict) -> list[str]:
    """The view as one argument (rows joined by newlines), as the original passed it last."""
    if "view" not in message:
        return []
    return ["\n".join(message["view"])]


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


__all__ = ["AbotView", "FunctionClient", "Game", "answer_text", "argv", "lines"]
