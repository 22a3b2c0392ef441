"""aBOTcalypse rules as a pure seeded state machine (rule book: shared/rules/abotcalypse.md).

A simultaneous-move survival game: every living bot answers each turn, then the turn is
resolved at once (rests, moves, drops, throws; lower elevation first), bots sharing a cell
die, and a meteor falls. No I/O and no clocks: one ``random.Random`` owned by the state,
keyed by the seed and the run's secret (``engine.core.randomness``), draws the start
columns and then, each turn, the new meteor's column and angle, so the same seed, secret
and answers repeat a game exactly. Answer parsing (``parse_action``) is text only.

Board: rocks are a flat ``bytearray`` indexed ``y * width + x`` (``y = 0`` the bottom row),
so a view row is a slice; bots are per-seat lists (position, alive, death turn and cause);
meteors are ``Meteor(x, y, angle)`` with exact float positions. A turn touches only the
cells it changes; views are built only when asked.

JSON shapes (for the wire, the replay and the viewer):

- ``start_json()``: ``{"width", "height", "rocks": [[x, y], ...], "bots": [[x, y, alive],
  ...] per seat, "meteors": [[x, y, angle], ...]}`` — the position before turn 1 (no
  rocks and no meteors in a real game; bots at elevation 0 on their start columns).
- ``apply_actions`` returns the turn's events: ``{"turn": t, "played": [text or None per
  seat] (the action each living bot played: frozen or unanswered bots rest),
  "rocks_added": [[x, y], ...], "rocks_removed": [[x, y], ...] (net changes this turn),
  "bots": [[x, y, alive], ...] per seat after the turn (a dead bot stays where it died),
  "deaths": [[seat, cause], ...] in the order they happened, cause one of "fall",
  "crushed", "thrown", "collision", "meteor", "hits": [[x, y, by], ...] (cells a thrown
  rock or a meteor destroyed something in; ``by`` is the thrower's seat or null for a
  meteor), "meteors": [[x, y, angle], ...] (after the turn's step, exact floats)}``.
  Applying ``rocks_removed`` then ``rocks_added`` and taking ``bots`` and ``meteors``
  redraws the board turn by turn from ``start_json()``.
- ``snapshot()`` is the whole position in the start's shape, for checking a replay.
"""

from __future__ import annotations

import copy
import math
import random
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import NamedTuple

from engine.core.errors import GameOverError, InvalidAnswerError
from engine.core.outcome import Outcome, unique_winner
from engine.core.randomness import draw_key

MIN_PLAYERS = 2
MAX_PLAYERS = 8
MIN_SIDE = 3
MAX_SIDE = 400  # 4x the original's side; a bound for settings read from files
MAX_TURNS = 100_000
MAX_TIME_LIMIT_MS = 60_000
VIEW_RADIUS = 20  # Chebyshev radius of a bot's view (the original's code)
METEOR_SPEED = 2
MAX_DISTANCE = 10**9  # a longer D means the same (it is capped below the elevation)

KINDS = ("rest", "move", "drop", "throw")  # also the order a turn resolves them in
DIRECTIONS = {"up": (0, 1), "down": (0, -1), "left": (-1, 0), "right": (1, 0)}
_KIND_ORDER = {kind: i for i, kind in enumerate(KINDS)}
_DIGITS = re.compile(r"[0-9]+")

AIR, ROCK = 0, 1
# cause of death, as recorded in the events
FALL, CRUSHED, THROWN, COLLISION, METEOR = "fall", "crushed", "thrown", "collision", "meteor"


@dataclass(frozen=True)
class AbotSettings:
    width: int
    height: int
    players: int
    max_turns: int
    time_limit_ms: int = 1000

    def __post_init__(self) -> None:
        for name in ("width", "height", "players", "max_turns", "time_limit_ms"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise ValueError(f"{name} must be a whole number, got {value!r}")
        if not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise ValueError(f"aBOTcalypse needs {MIN_PLAYERS} to {MAX_PLAYERS} bots, got {self.players}")
        for name in ("width", "height"):
            value = getattr(self, name)
            if not MIN_SIDE <= value <= MAX_SIDE:
                raise ValueError(f"the board's {name} must be {MIN_SIDE} to {MAX_SIDE}, got {value}")
        if self.width < self.players:
            raise ValueError(f"{self.players} bots need distinct columns: the board must be at least "
                             f"{self.players} wide, got {self.width}")
        if not 1 <= self.max_turns <= MAX_TURNS:
            raise ValueError(f"max_turns must be 1 to {MAX_TURNS}, got {self.max_turns}")
        if not 1 <= self.time_limit_ms <= MAX_TIME_LIMIT_MS:
            raise ValueError(f"the time limit must be 1 to {MAX_TIME_LIMIT_MS} ms, got {self.time_limit_ms}")

    def to_json(self) -> dict:
        return asdict(self)


PRESETS = {
    "original": AbotSettings(width=100, height=100, players=4, max_turns=500),
    # Small enough to watch in a page: a 2:1 side view that fits a canvas, a view radius of
    # 20 that shows most of the board, meteors that reach the ground in about 12 turns.
    "trial": AbotSettings(width=48, height=24, players=4, max_turns=200),
}


class Action(NamedTuple):
    """One bot's action; ``str()`` gives the canonical answer text."""

    kind: str  # one of KINDS
    direction: str | None = None  # one of DIRECTIONS; None for rest
    distance: int | None = None  # throw only: D as the bot gave it, None when not given

    def __str__(self) -> str:
        words = [self.kind]
        if self.direction is not None:
            words.append(self.direction)
        if self.distance is not None:
            words.append(str(self.distance))
        return " ".join(words)


REST = Action("rest")
PLAIN_ACTIONS = (REST, *(Action(kind, direction) for kind in KINDS[1:] for direction in DIRECTIONS))
_ANSWER_FORMS = "rest, move DIR, drop DIR or throw DIR [D] (DIR up, down, left or right; D a whole number)"


def parse_action(text: str) -> Action:
    """The action an answer line means (case-insensitive, words split on spaces).

    Raises InvalidAnswerError on anything else; the game then plays it as ``rest``.
    """
    if not isinstance(text, str):
        raise InvalidAnswerError(text, "an answer is a line of text")
    words = text.lower().split()
    if words == ["rest"]:
        return REST
    if len(words) in (2, 3) and words[0] in ("move", "drop", "throw") and words[1] in DIRECTIONS:
        if len(words) == 2:
            return Action(words[0], words[1])
        if words[0] == "throw" and _DIGITS.fullmatch(words[2]):
            digits = words[2].lstrip("0") or "0"
            distance = MAX_DISTANCE if len(digits) > len(str(MAX_DISTANCE)) else int(digits)
            return Action("throw", words[1], min(distance, MAX_DISTANCE))
    raise InvalidAnswerError(text, f"expected {_ANSWER_FORMS}")


def _well_formed(action: object) -> bool:
    if not isinstance(action, Action):
        return False
    kind, direction, distance = action
    if kind == "rest":
        return direction is None and distance is None
    return (kind in _KIND_ORDER and direction in DIRECTIONS
            and (distance is None or (kind == "throw" and type(distance) is int and distance >= 0)))


class Meteor(NamedTuple):
    x: float  # exact position; the meteor's cell is (int(x), int(y)), truncated toward zero
    y: float
    angle: int  # whole degrees in [-180, 0)

    def cell(self) -> tuple[int, int]:
        return int(self.x), int(self.y)

    def to_json(self) -> list:
        return [self.x, self.y, self.angle]


def _meteor_step(angle: int) -> tuple[float, float]:
    """``(2 cos a, 2 sin a)`` rounded to 12 decimals: exact where the math is exact (-90 is
    straight down), and the same double on every platform's libm (CPython, Pyodide)."""
    a = math.radians(angle)
    return round(METEOR_SPEED * math.cos(a), 12) + 0.0, round(METEOR_SPEED * math.sin(a), 12) + 0.0


METEOR_STEPS = {angle: _meteor_step(angle) for angle in range(-180, 0)}
_new_meteor = tuple.__new__  # builds a Meteor without NamedTuple's keyword handling (hot loop)


class AbotState:
    """One aBOTcalypse game between ``settings.players`` bots (seats 0..players-1)."""

    game_name = "abotcalypse"
    fault_limit = 5  # consecutive late or raising turns before the bot is frozen
    invalid_is_fault = False  # bad syntax is a recorded rest, not counted

    def __init__(self, settings: AbotSettings, seed: int, secret: str | None = None,
                 rng: random.Random | None = None) -> None:
        """``rng``: the game's draws, when the caller seeded it already (the game API's
        ``Game(settings, rng)``, with the same key)."""
        self.settings = settings
        self.seed = seed
        self.width = settings.width
        self.height = settings.height
        self.num_players = settings.players
        self.rocks = bytearray(self.width * self.height)
        self.rng = rng if rng is not None else random.Random(draw_key(self.game_name, seed, secret))
        columns = self.rng.sample(range(self.width), self.num_players)
        self.xs: list[int] = list(columns)
        self.ys: list[int] = [0] * self.num_players
        self.alive: list[bool] = [True] * self.num_players
        self.death_turns: list[int | None] = [None] * self.num_players
        self.death_causes: list[str | None] = [None] * self.num_players
        self.frozen: set[int] = set()
        self.meteors: list[Meteor] = []
        self.turn = 0
        self.outcome: Outcome | None = None
        self._before: dict[int, int] = {}  # during a turn: rock cells changed -> value before
        self._deaths: list[list] = []  # during a turn: [seat, cause]
        self._hits: list[list] = []  # during a turn: [x, y, by]
        self._start = self.snapshot()

    @classmethod
    def from_layout(cls, settings: AbotSettings, rows: Sequence[str],
                    bots: Mapping[int, tuple[int, int]],
                    meteors: Iterable[tuple[float, float, int]] = (),
                    seed: int = 0, secret: str | None = None) -> AbotState:
        """A position set by hand, for tests and worked examples.

        ``rows`` draw the rocks, top row first, ``&`` a rock and ``.`` air (``height`` rows of
        ``width`` characters); ``bots`` puts every seat at ``(x, y)``; ``meteors`` are
        ``(x, y, angle)``. The random stream is the one the seed and secret give, its start
        draw consumed, so turns from here draw meteors as a real game would. A floating rock
        or bot, or two bots in one cell, cannot exist between turns and raise ValueError.
        """
        state = cls(settings, seed, secret)
        width, height = settings.width, settings.height
        if len(rows) != height or any(len(row) != width for row in rows):
            raise ValueError(f"a layout is {height} rows of {width} characters")
        for row_index, row in enumerate(rows):
            y = height - 1 - row_index
            for x, char in enumerate(row):
                if char not in ".&":
                    raise ValueError(f"layout character {char!r} at ({x}, {y}): use & or .")
                state.rocks[y * width + x] = ROCK if char == "&" else AIR
        if sorted(bots) != list(range(settings.players)):
            raise ValueError(f"place every seat 0..{settings.players - 1}, got {sorted(bots)}")
        for seat, (x, y) in bots.items():
            if not state.on_board(x, y):
                raise ValueError(f"bot {seat} at ({x}, {y}) is off the board")
            state.xs[seat], state.ys[seat] = x, y
        for x in range(width):
            for y in range(height):
                if state.is_rock(x, y) and not state.supported(x, y):
                    raise ValueError(f"the rock at ({x}, {y}) floats")
        for seat in range(settings.players):
            if not state.supported(state.xs[seat], state.ys[seat]):
                raise ValueError(f"bot {seat} at ({state.xs[seat]}, {state.ys[seat]}) floats")
        if len(set(state.positions())) != settings.players:
            raise ValueError("two bots share a cell")
        state.meteors = [Meteor(float(x), float(y), int(a)) for x, y, a in meteors]
        for meteor in state.meteors:
            if meteor.angle not in METEOR_STEPS:
                raise ValueError(f"a meteor's angle is a whole number in [-180, 0), got {meteor.angle}")
        state._start = state.snapshot()
        return state

    # -- the common state API -------------------------------------------------------
    def acting_seats(self) -> tuple[int, ...]:
        """Every living bot acts each turn (frozen ones rest); none once the game is over."""
        if self.outcome is not None:
            return ()
        return tuple(seat for seat in range(self.num_players) if self.alive[seat])

    def is_terminal(self) -> bool:
        return self.outcome is not None

    def default_action(self, seat: int) -> Action:
        return REST

    def legal_actions(self, seat: int) -> list[Action]:
        """Every action with a distinct meaning for the bot now (any answer that parses is
        legal): the 13 without ``D``, and the sideways throws with ``D`` in ``1..h-1``."""
        aimed = [Action("throw", direction, distance) for direction in ("left", "right")
                 for distance in range(1, self.ys[seat])]
        return [*PLAIN_ACTIONS, *aimed]

    def freeze(self, seat: int) -> None:
        """The bot is not asked again; it keeps living and rests for the rest of the game."""
        self.frozen.add(seat)

    def copy(self) -> AbotState:
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other.rocks = bytearray(self.rocks)
        other.xs, other.ys = list(self.xs), list(self.ys)
        other.alive = list(self.alive)
        other.death_turns = list(self.death_turns)
        other.death_causes = list(self.death_causes)
        other.frozen = set(self.frozen)
        other.meteors = list(self.meteors)
        other.rng = random.Random()
        other.rng.setstate(self.rng.getstate())
        other._before, other._deaths, other._hits = {}, [], []
        return other

    def scores(self) -> tuple[int, ...]:
        """The death turn of each dead bot, ``max_turns`` for each living one."""
        limit = self.settings.max_turns
        return tuple(limit if turn is None else turn for turn in self.death_turns)

    def apply_actions(self, actions: Mapping[int, Action]) -> dict:
        """Play one turn with every living bot's action; returns the turn's events.

        A living seat missing from ``actions``, or frozen, rests. An action for a seat that
        does not act (dead, or no such seat) raises ValueError and changes nothing.
        """
        if self.outcome is not None:
            raise GameOverError("the game is over")
        acting = self.acting_seats()
        for seat, action in actions.items():
            if seat not in acting:
                raise ValueError(f"seat {seat!r} does not act this turn (living seats: {list(acting)})")
            if not _well_formed(action):
                raise ValueError(f"seat {seat}: {action!r} is not an aBOTcalypse action (see parse_action)")
        self.turn += 1
        self._before, self._deaths, self._hits = {}, [], []
        played: list[str | None] = [None] * self.num_players
        plan: list[tuple[int, int, int, Action]] = []
        for seat in acting:
            action = REST if seat in self.frozen else actions.get(seat, REST)
            played[seat] = str(action)
            plan.append((_KIND_ORDER[action.kind], self.ys[seat], seat, action))
        plan.sort(key=lambda item: item[:3])  # by kind, then elevation at the turn's start, then seat
        for _, _, seat, action in plan:
            if not self.alive[seat]:
                continue  # killed earlier in the turn
            if action.kind == "move":
                self._move(seat, action.direction)
            elif action.kind == "drop":
                self._drop(seat, action.direction)
            elif action.kind == "throw":
                self._throw(seat, action.direction, action.distance)
        self._kill_shared_cells()
        self._meteor_phase()
        events = {
            "turn": self.turn,
            "played": played,
            "rocks_added": [], "rocks_removed": [],
            "bots": [[self.xs[s], self.ys[s], self.alive[s]] for s in range(self.num_players)],
            "deaths": self._deaths,
            "hits": self._hits,
            "meteors": [m.to_json() for m in self.meteors],
        }
        width, rocks = self.width, self.rocks
        for index in sorted(self._before):
            if rocks[index] != self._before[index]:
                key = "rocks_added" if rocks[index] else "rocks_removed"
                events[key].append([index % width, index // width])
        self._check_end()
        return events

    # -- the rules ----------------------------------------------------------------------
    def _move(self, seat: int, direction: str) -> None:
        dx, dy = DIRECTIONS[direction]
        x, y = self.xs[seat] + dx, self.ys[seat] + dy
        if not self.on_board(x, y):
            return
        self.xs[seat], self.ys[seat] = x, y
        landing = self.landing(x, y)
        if landing < y:
            self.ys[seat] = landing
            self._kill_at(x, landing, CRUSHED, spare=seat)
            if y - landing > 1:
                self._kill(seat, FALL)

    def _drop(self, seat: int, direction: str) -> None:
        x, y = self.xs[seat], self.ys[seat]
        if direction == "down":
            if not self.is_rock(x, y):
                self._set_rock(x, y, ROCK)
            return
        dx, dy = DIRECTIONS[direction]
        x, y = x + dx, y + dy
        if not self.on_board(x, y) or self.is_rock(x, y):
            return
        y = self.landing(x, y)
        self._set_rock(x, y, ROCK)
        self._kill_at(x, y, CRUSHED)

    def _throw(self, seat: int, direction: str, distance: int | None) -> None:
        x, y = self.xs[seat], self.ys[seat]
        if direction == "down" or distance == 0:
            self._hit(x, y - 1, seat)
            return
        if direction == "up":
            if not self._hit(x, y + 1, seat):
                self._hit(x, y, seat)  # the rock falls back onto the thrower
            return
        h = y
        if distance is None or distance >= h:
            distance = max(h - 1, 0)
        slope = h / distance if distance > 0 else 1
        dx = DIRECTIONS[direction][0]
        x += dx
        while not self._hit(x, y, seat):
            x, y = x + dx, int(y - slope)  # truncated toward zero, step by step

    def _hit(self, x: int, y: int, by: int | None) -> bool:
        """A thrown rock or a meteor reaches ``(x, y)``; False when the cell is air.

        What is there is destroyed: bots die; a rock is removed and everything above it in
        the column drops one cell. The boundary stops the rock and is not destroyed.
        """
        if not self.on_board(x, y):
            return True
        victims = self.bots_at(x, y)
        rock = self.is_rock(x, y)
        if not victims and not rock:
            return False
        self._hits.append([x, y, by])
        for seat in victims:
            self._kill(seat, METEOR if by is None else THROWN)
        if rock:
            self._collapse(x, y)
        return True

    def _collapse(self, x: int, y: int) -> None:
        """Remove the rock at ``(x, y)``; every rock and bot above it drops one cell."""
        width, rocks = self.width, self.rocks
        for row in range(y, self.height):
            above = rocks[(row + 1) * width + x] if row + 1 < self.height else AIR
            if rocks[row * width + x] != above:
                self._set_rock(x, row, above)
        for seat in range(self.num_players):
            if self.alive[seat] and self.xs[seat] == x and self.ys[seat] > y:
                self.ys[seat] -= 1

    def _kill_shared_cells(self) -> None:
        seen: dict[tuple[int, int], list[int]] = {}
        for seat in range(self.num_players):
            if self.alive[seat]:
                seen.setdefault((self.xs[seat], self.ys[seat]), []).append(seat)
        for seats in seen.values():
            if len(seats) > 1:
                for seat in seats:
                    self._kill(seat, COLLISION)

    def _meteor_phase(self) -> None:
        x0 = self.rng.randrange(self.width)
        angle = self.rng.randrange(-180, 0)
        launched = Meteor(float(x0), float(self.height - 1), angle)
        width, height, rocks, steps = self.width, self.height, self.rocks, METEOR_STEPS
        bots = self._bot_cells()
        survivors = []
        moved = []  # the older ones step from their exact positions, in order; then the new one
        for old_x, old_y, old_angle in self.meteors:
            dx, dy = steps[old_angle]
            moved.append(_new_meteor(Meteor, (old_x + dx, old_y + dy, old_angle)))
        moved.append(launched)
        for meteor in moved:
            x, y = int(meteor[0]), int(meteor[1])  # truncated toward zero
            if not (0 <= x < width and 0 <= y < height):
                continue  # off the board: it disappears
            if rocks[y * width + x] == AIR and (x, y) not in bots:
                survivors.append(meteor)
            else:
                self._hit(x, y, None)
                bots = self._bot_cells()
        self.meteors = survivors

    def _bot_cells(self) -> set[tuple[int, int]]:
        return {(self.xs[s], self.ys[s]) for s in range(self.num_players) if self.alive[s]}

    def _kill_at(self, x: int, y: int, cause: str, spare: int | None = None) -> None:
        for seat in self.bots_at(x, y):
            if seat != spare:
                self._kill(seat, cause)

    def _kill(self, seat: int, cause: str) -> None:
        if self.alive[seat]:
            self.alive[seat] = False
            self.death_turns[seat] = self.turn
            self.death_causes[seat] = cause
            self._deaths.append([seat, cause])

    def _set_rock(self, x: int, y: int, value: int) -> None:
        index = y * self.width + x
        self._before.setdefault(index, self.rocks[index])
        self.rocks[index] = value

    def _check_end(self) -> None:
        if self.turn >= self.settings.max_turns:
            termination = "max_turns"
        elif not any(self.alive):
            termination = "all_dead"
        else:
            return
        scores = self.scores()
        self.outcome = Outcome(termination, scores, unique_winner(scores))

    # -- read-only queries ------------------------------------------------------------
    def on_board(self, x: int, y: int) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height

    def is_rock(self, x: int, y: int) -> bool:
        return self.on_board(x, y) and self.rocks[y * self.width + x] == ROCK

    def supported(self, x: int, y: int) -> bool:
        """A bot or rock at ``(x, y)`` rests on the floor or on a rock."""
        return y == 0 or self.rocks[(y - 1) * self.width + x] == ROCK

    def landing(self, x: int, y: int) -> int:
        """The row something unsupported at ``(x, y)`` falls to."""
        rocks, width = self.rocks, self.width
        while y > 0 and rocks[(y - 1) * width + x] != ROCK:
            y -= 1
        return y

    def bots_at(self, x: int, y: int) -> list[int]:
        return [s for s in range(self.num_players)
                if self.alive[s] and self.xs[s] == x and self.ys[s] == y]

    def positions(self) -> list[tuple[int, int]]:
        return list(zip(self.xs, self.ys, strict=True))

    def rock_cells(self) -> set[tuple[int, int]]:
        width, rocks, cells = self.width, self.rocks, set()
        index = rocks.find(ROCK)
        while index >= 0:
            cells.add((index % width, index // width))
            index = rocks.find(ROCK, index + 1)
        return cells

    def view_rows(self, seat: int) -> list[str]:
        """What the bot sees, top row first: Chebyshev radius 20 around it, cut at the board's
        edge but keeping one ring of boundary (``#``). ``.`` air, ``&`` rock, ``@`` meteor,
        ``s``/``S`` itself (``S`` in a rock's cell), ``e``/``E`` an enemy likewise."""
        width, height, rocks = self.width, self.height, self.rocks
        x0, y0 = self.xs[seat], self.ys[seat]
        left, right = max(x0 - VIEW_RADIUS, -1), min(x0 + VIEW_RADIUS, width)
        bottom, top = max(y0 - VIEW_RADIUS, -1), min(y0 + VIEW_RADIUS, height)
        inner_left, inner_right = max(left, 0), min(right, width - 1) + 1
        inner_bottom, inner_top = max(bottom, 0), min(top, height - 1) + 1
        left_ring = "#" if left < 0 else ""
        right_ring = "#" if right >= width else ""
        marks: dict[tuple[int, int], str] = {}  # the cells in sight drawn over the rocks
        for s in range(self.num_players):
            x, y = self.xs[s], self.ys[s]
            if self.alive[s] and inner_left <= x < inner_right and inner_bottom <= y < inner_top:
                if s == seat or marks.get((x, y)) not in ("s", "S"):
                    mark = "s" if s == seat else "e"
                    marks[x, y] = mark.upper() if rocks[y * width + x] == ROCK else mark
        for meteor in self.meteors:
            x, y = int(meteor[0]), int(meteor[1])
            if inner_left <= x < inner_right and inner_bottom <= y < inner_top:
                marks[x, y] = "@"
        marks_by_row: dict[int, list[tuple[int, str]]] = {}
        shift = len(left_ring) - inner_left  # a row's string index of column x is x + shift
        for (x, y), mark in marks.items():
            marks_by_row.setdefault(y, []).append((x + shift, mark))
        ring = "#" * (right - left + 1)
        rows = []
        for y in range(top, bottom - 1, -1):
            if not 0 <= y < height:
                rows.append(ring)
                continue
            start = y * width
            row = left_ring + rocks[start + inner_left:start + inner_right].translate(_ROW_CHARS).decode()
            if y in marks_by_row:
                chars = list(row)
                for index, mark in marks_by_row[y]:
                    chars[index] = mark
                row = "".join(chars)
            rows.append(row + right_ring)
        return rows

    def snapshot(self) -> dict:
        return {
            "width": self.width, "height": self.height,
            "rocks": [list(cell) for cell in sorted(self.rock_cells(), key=lambda c: (c[1], c[0]))],
            "bots": [[self.xs[s], self.ys[s], self.alive[s]] for s in range(self.num_players)],
            "meteors": [m.to_json() for m in self.meteors],
        }

    def start_json(self) -> dict:
        """The position before turn 1."""
        return copy.deepcopy(self._start)

    def to_json(self) -> dict:
        return {"turn": self.turn, **self.snapshot()}

    def __repr__(self) -> str:
        return f"AbotState(turn={self.turn}, alive={self.alive}, meteors={len(self.meteors)})"


_ROW_CHARS = bytes.maketrans(bytes([AIR, ROCK]), b".&")


def new_game(settings: AbotSettings, seed: int, players: int | None = None,
             secret: str | None = None) -> AbotState:
    if players is not None and players != settings.players:
        settings = AbotSettings(settings.width, settings.height, players, settings.max_turns,
                                settings.time_limit_ms)
    return AbotState(settings, seed, secret)
