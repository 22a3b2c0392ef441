"""Flit on the wire: ``S N k c``, ``x y c`` and ``M`` lines, answers, and the function view."""

from __future__ import annotations

import sys
from functools import cache
from itertools import chain, compress, repeat
from operator import eq

from engine.core.answer_text import answer_text
from engine.core.errors import InvalidAnswerError
from engine.core.spec import GameSpec, Preset, SettingField
from engine.games.flit import rules
from engine.games.flit.rules import EMPTY, NEUTRAL, Change, FlitSettings, FlitState, Move, neighbour_table


def start_message(state: FlitState, seat: int) -> dict:
    setup = [state.size, state.num_players, seat + 1]
    return {"setup": setup, "changes": [list(c) for c in state.start_changes]}


def observation(state: FlitState, seat: int, changes: list) -> dict:
    """Every square that changed since the bot was last told (``changes``: each turn's
    changed squares since then), then ``M``."""
    if len(changes) == 1:
        return {"changes": changes[0], "ask": True}
    return {"changes": list(chain.from_iterable(changes)), "ask": True}


def message_argv(message: dict) -> list[str]:
    return []


def message_lines(message: dict) -> list[str]:
    lines = []
    if "setup" in message:
        lines.append("S {} {} {}".format(*message["setup"]))
    lines.extend(f"{x} {y} {c}" for x, y, c in message["changes"])
    if message.get("ask"):
        lines.append("M")
    return lines


def parse_answer(text: str, state: FlitState, seat: int = 0) -> Move:
    parts = text.split()
    if len(parts) != 4:
        raise InvalidAnswerError(text, "expected four integers 'x0 y0 x1 y1'")
    try:
        return tuple(map(int, parts))
    except ValueError:
        raise InvalidAnswerError(text, "expected four integers 'x0 y0 x1 y1'") from None


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
        self._apply(message["changes"])

    def _apply(self, changes: list) -> None:
        size, cells = self.size, self.cells
        for x, y, c in changes:
            cells[y * size + x] = c

    def view(self, message: dict) -> FlitView:
        size, cells = self.size, self.cells
        for x, y, c in message["changes"]:  # _apply, inline: a view a turn
            cells[y * size + x] = c
        self.turn += 1
        return FlitView(size, self.players, self.me, list(cells), self.turn, self._tables)


def record_start(state: FlitState) -> dict:
    return {"changes": [list(c) for c in state.start_changes]}


def record_turn(state: FlitState, messages: dict[int, dict], actions: dict[int, Move],
                changes: list[Change]) -> dict:
    (action,) = actions.values()
    x0, y0, x1, y1 = action
    move = None if (x0, y0) == (x1, y1) else list(action)
    return {"move": move, "changes": list(map(list, changes))}


def replay_check(turn: dict, state: FlitState, changes: list[Change]) -> str | None:
    got = [list(c) for c in changes]
    if turn["changes"] != got:
        return f"expected changes {turn['changes']}, got {got}"
    return None


SPEC = GameSpec(
    name="flit", title="Flit",
    summary="Take over a wrapping board by flitting pieces next to your own: 2 to 4 bots.",
    rules_doc="docs/rules/flit.md",
    presets=(
        Preset("trial", "trial (2 bots, 16×16, 1,024 turns, 100 ms)", rules.PRESETS["trial"], (2, 2)),
        Preset("full", "full (4 bots, 32×32, 32,768 turns, 50 ms)", rules.PRESETS["full"], (4, 4)),
    ),
    default_preset="trial",
    fields=(SettingField("time_limit_ms", "Time limit (ms)", 1, 60_000, "per turn"),),
    settings_type=FlitSettings, new_game=rules.new_game, wire=sys.modules[__name__],
    min_bots=2, max_bots=4, players_setting="players", side_by_side=False, scoring="wins",
    script_mode="stream", renderer="flit", examples_package="engine.games.flit.examples", menu_order=1,
    min_score=0,
)

__all__ = ["FlitView", "FunctionClient", "NEUTRAL", "answer_text", "message_lines", "observation",
           "parse_answer", "start_message"]
