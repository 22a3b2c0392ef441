"""Flit on the public game API (``engine.game_api``): its settings, presets, the text protocol
(``S N k c``, ``x y c`` and ``M`` lines), the function bots' typed view and the ``Game`` the
engine plays in-process (``engine.authored.in_process``). The rules are ``rules.FlitState``,
called directly: ``Game`` only gives them the API's names. The page draws Flit by hand
(``web/src/games/flit.js``), so its records hold no pictures; ``draw()`` is there for the rest.
The rule book for bot authors is docs/rules/flit.md.
"""

from __future__ import annotations

from functools import cache
from itertools import chain, compress, repeat
from operator import eq
from typing import Any

from engine.core.errors import IllegalMoveError
from engine.core.marks import print_mark
from engine.game_api import Field, InvalidAnswer, Preset
from engine.games.flit.rules import EMPTY, NEUTRAL, Change, FlitSettings, FlitState, Move, neighbour_table

NAME = "flit"
TITLE = "Flit"
SUMMARY = "Take over a wrapping board by flitting pieces next to your own: 2 to 4 bots."
PLAYERS = (2, 4)
SETTINGS = {"size": 16, "players": 2, "max_turns": 1024, "time_limit_ms": 100}
FIELDS = [Field("time_limit_ms", "Time limit (ms)", 1, 60_000, "per turn")]
PRESETS = [
    Preset("trial", "trial (2 bots, 16×16, 1,024 turns, 100 ms)", {}, (2, 2)),
    Preset("full", "full (4 bots, 32×32, 32,768 turns, 50 ms)",
           {"size": 32, "players": 4, "max_turns": 32768, "time_limit_ms": 50}, (4, 4)),
]
SCRIPT_MODE = "stream"
FAULT_LIMIT = FlitState.fault_limit
INVALID_IS_FAULT = FlitState.invalid_is_fault  # an invalid move is a recorded pass, not counted
RENDERER = "flit"
MENU_ORDER = 1  # the page's first game
MIN_SCORE = 0

ANSWER_FORMAT = "expected four integers 'x0 y0 x1 y1'"


class Game(FlitState):
    """The rules under the API's names; the state's own methods serve where the names agree
    (``acting_seats``, ``default_action``, ``freeze``)."""

    def __init__(self, settings: Any, rng: Any) -> None:
        # the bounds of a board (a replay file's settings are a stranger's): ValueError
        FlitSettings(settings.size, settings.players, settings.max_turns, settings.time_limit_ms)
        super().__init__(settings, 0, rng=rng)

    def start_message(self, seat: int) -> dict:
        return {"setup": [self.size, self.num_players, seat + 1],
                "changes": [list(c) for c in self.start_changes]}

    def observation(self, seat: int, since: list) -> dict:
        """Every square that changed since the bot was last told (``since``: each turn's
        changed squares since then), then ``M``."""
        if len(since) == 1:
            return {"changes": since[0], "ask": True}
        return {"changes": list(chain.from_iterable(since)), "ask": True}

    def parse_answer(self, text: str, seat: int) -> Move:
        parts = text.split()
        if len(parts) != 4:
            raise InvalidAnswer(ANSWER_FORMAT)
        try:
            return tuple(map(int, parts))
        except ValueError:
            raise InvalidAnswer(ANSWER_FORMAT) from None

    def apply_actions(self, actions: dict[int, Move]) -> tuple[Change, ...]:
        try:
            return tuple(self.apply_action(actions[self.player]))
        except IllegalMoveError as exc:
            raise InvalidAnswer(exc.reason, exc.answer) from None

    def mark_cells(self, seat: int, where: tuple[int, ...]) -> tuple[int, int] | None:
        """A bot's mark names the square ``x y`` (engine.core.marks)."""
        if len(where) == 2 and 0 <= where[0] < self.size and 0 <= where[1] < self.size:
            return where[0], where[1]
        return None

    def __deepcopy__(self, memo: dict) -> Game:
        return self.copy()  # the replay checker's trial copy: the rules' own, cheap copy

    def over(self) -> str | None:
        return self.outcome.termination if self.outcome is not None else None

    def scores(self) -> tuple[int, ...]:
        return self.returns()

    def record_start(self) -> dict:
        return {"changes": [list(c) for c in self.start_changes]}

    def record_turn(self, actions: dict[int, Move], changes: tuple[Change, ...]) -> dict:
        (action,) = actions.values()
        x0, y0, x1, y1 = action
        move = None if (x0, y0) == (x1, y1) else list(action)
        return {"move": move, "changes": list(map(list, changes))}

    def replay_check(self, turn: dict, changes: tuple[Change, ...]) -> str | None:
        got = [list(c) for c in changes]
        if turn.get("changes") != got:
            return f"expected changes {turn.get('changes')}, got {got}"
        return None

    def draw(self) -> dict:
        size = self.size
        text = "".join(map(".1234N".__getitem__, self.cells))
        key = {str(s + 1): {"color": s, "label": f"bot {s + 1}"} for s in range(self.num_players)}
        key["N"] = {"color": "#9e9e9e", "label": "neutral"}
        return {"width": size, "height": size, "cells": [text[y * size:(y + 1) * size] for y in range(size)],
                "key": key, "legend": [{"color": s, "label": f"{self.counts[s + 1]} pieces"}
                                       for s in range(self.num_players)],
                "caption": f"turn {self.turns}"}


def lines(message: dict) -> list[str]:
    out = []
    if "setup" in message:
        out.append("S {} {} {}".format(*message["setup"]))
    out.extend(f"{x} {y} {c}" for x, y, c in message["changes"])
    if message.get("ask"):
        out.append("M")
    return out


@cache
def _coordinates(size: int) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[tuple[int, int], ...], ...]]:
    """Each square's (x, y), and its four neighbours' (x, y), by index ``y * size + x``."""
    coords = tuple((i % size, i // size) for i in range(size * size))
    neighbours = tuple(tuple(coords[n] for n in row) for row in neighbour_table(size))
    return coords, neighbours


def _tables(size: int) -> tuple:
    return (neighbour_table(size), *_coordinates(size))


class FlitView:
    """What ``move(view)`` gets: the board as the bot has been told it, read-only."""

    __slots__ = ("size", "players", "me", "turn", "_cells", "_nbrs", "_coords", "_nbr_coords")

    def __init__(self, size: int, players: int, me: int, cells: list[int], turn: int,
                 tables: tuple | None = None) -> None:
        """``tables``: ``_tables(size)``, if the caller keeps it (a view a turn)."""
        self.size, self.players, self.me, self.turn = size, players, me, turn
        self._cells = cells
        self._nbrs, self._coords, self._nbr_coords = tables or _tables(size)

    def __getitem__(self, xy: tuple[int, int]) -> int:
        x, y = xy
        return self._cells[(y % self.size) * self.size + x % self.size]

    def cells(self) -> tuple[int, ...]:
        """Every square's colour, row by row (index ``y * size + x``)."""
        return tuple(self._cells)

    def pieces(self, colour: int | None = None) -> list[tuple[int, int]]:
        """The squares holding ``colour`` (default: the bot's own)."""
        colour = self.me if colour is None else colour
        return list(compress(self._coords, map(eq, self._cells, repeat(colour))))  # a scan in C

    def neighbours(self, x: int, y: int) -> tuple[tuple[int, int], ...]:
        """The four squares next to (x, y), wrapping around the edges."""
        size = self.size
        return self._nbr_coords[(y % size) * size + x % size]

    def mark(self, x: int, y: int, colour: str, text: str = "") -> None:
        """Mark the square (x, y) for your author, shown in the replay at this turn."""
        print_mark((x, y), colour, text)

    def is_valid(self, move: Move) -> bool:
        x0, y0, x1, y1 = move
        size, cells = self.size, self._cells
        src, dst = y0 * size + x0, y1 * size + x1
        if cells[src] != self.me or cells[dst] != EMPTY:
            return False
        return any(n != src and cells[n] == self.me for n in self._nbrs[dst])

    def moves(self) -> list[Move]:
        """Every valid move (passes excluded)."""
        size, cells, nbrs, me = self.size, self._cells, self._nbrs, self.me
        own = [i for i, c in enumerate(cells) if c == me]
        result = []
        for dst in sorted({n for i in own for n in nbrs[i] if cells[n] == EMPTY}):
            supporters = [n for n in nbrs[dst] if cells[n] == me]
            for src in own:
                if len(supporters) > 1 or supporters[0] != src:
                    result.append((src % size, src // size, dst % size, dst // size))
        return result


class FunctionClient:
    """Keeps a bot's copy of the board from the messages it is sent."""

    def __init__(self) -> None:
        self.cells: list[int] = []
        self.turn = 0

    def start(self, message: dict) -> None:
        self.size, self.players, self.me = message["setup"]
        self.cells = [EMPTY] * (self.size * self.size)
        self.turn = 0
        self._tables = _tables(self.size)
        for x, y, c in message["changes"]:
            self.cells[y * self.size + x] = c

    def view(self, message: dict) -> FlitView:
        size, cells = self.size, self.cells
        for x, y, c in message["changes"]:  # a view a turn: inline
            cells[y * size + x] = c
        self.turn += 1
        return FlitView(size, self.players, self.me, list(cells), self.turn, self._tables)


__all__ = ["NEUTRAL", "FlitView", "FunctionClient", "Game", "lines"]
