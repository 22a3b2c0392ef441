"""Flit rules as a pure state machine (rules for bot authors: docs/rules/flit.md).

The torus is a flat list of colours indexed ``y * size + x``: 0 empty, 1..k the bots,
5 neutral. Piece counts are kept up to date so the end conditions cost O(k) per turn.
All randomness comes from one ``random.Random(key)`` owned by the state, the key made from
the seed and the run's secret (``engine.core.randomness``); every turn draws both the
neutral's square and its chance, so the stream never depends on the moves.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from engine.core.errors import GameOverError, IllegalMoveError
from engine.core.outcome import Outcome, unique_winner
from engine.core.randomness import draw_key

EMPTY = 0
NEUTRAL = 5
NEUTRAL_CHANCE = 16  # a neutral lands with probability 1/16 on an available square
CHANCE_BITS = NEUTRAL_CHANCE.bit_length()  # what random's _randbelow draws it with
MAX_SIZE = 256  # 8x the full preset's side; a bound for settings read from files
TERMINAL = -1

Move = tuple[int, int, int, int]  # x0 y0 x1 y1; the same square twice is a pass
Change = tuple[int, int, int]  # x y colour


@dataclass(frozen=True)
class FlitSettings:
    size: int = 16
    players: int = 2
    max_turns: int = 1024
    time_limit_ms: int = 100

    def __post_init__(self) -> None:
        if not 2 <= self.players <= 4:
            raise ValueError(f"Flit needs 2 to 4 bots, got {self.players}")
        if not 4 <= self.size <= MAX_SIZE:
            raise ValueError(f"the board must be 4x4 to {MAX_SIZE}x{MAX_SIZE}, got {self.size}")
        # Each start piece makes at most 5 squares unavailable (itself and its 4
        # neighbours), so 2k pieces always find a square when size^2 > 5 (2k - 1).
        if self.size * self.size <= 5 * (2 * self.players - 1):
            raise ValueError(f"a {self.size}x{self.size} board is too small for {self.players} bots")

    def to_json(self) -> dict:
        # asdict's order and values (all ints), without its deep copy: once a game
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


PRESETS = {
    "trial": FlitSettings(size=16, players=2, max_turns=1024, time_limit_ms=100),
    "full": FlitSettings(size=32, players=4, max_turns=32768, time_limit_ms=50),
}


@cache
def neighbour_table(size: int) -> tuple[tuple[int, int, int, int], ...]:
    """For each square, its up, down, left and right neighbours on the torus."""
    table = []
    for y in range(size):
        for x in range(size):
            table.append((
                ((y - 1) % size) * size + x,
                ((y + 1) % size) * size + x,
                y * size + (x - 1) % size,
                y * size + (x + 1) % size,
            ))
    return tuple(table)


class FlitState:
    """One Flit game between ``settings.players`` bots; seat ``s`` plays colour ``s + 1``."""

    game_name = "flit"
    fault_limit = 5  # consecutive late or raising turns before the bot is frozen
    invalid_is_fault = False  # an invalid move is a recorded pass, not counted

    def __init__(self, settings: FlitSettings, seed: int, secret: str | None = None,
                 rng: random.Random | None = None) -> None:
        """``rng``: the game's draws, when the caller seeded it already (the game API's
        ``Game(settings, rng)``, with the same key)."""
        self.settings = settings
        self.seed = seed
        self.size = settings.size
        self.num_players = settings.players
        self.cells = [EMPTY] * (self.size * self.size)
        self.neighbours = neighbour_table(self.size)
        self.counts = [0] * (NEUTRAL + 1)  # counts[0] is the number of empty squares
        self.counts[EMPTY] = len(self.cells)
        self.turns = 0
        self.passes = 0  # consecutive passes
        self.player = 0
        self.frozen: set[int] = set()
        self.outcome: Outcome | None = None
        self.rng = rng if rng is not None else random.Random(draw_key(self.game_name, seed, secret))
        self.start_changes: list[Change] = self._place_start()

    def _place_start(self) -> list[Change]:
        changes = []
        for _ in range(2):
            for seat in range(self.num_players):
                available = [i for i in range(len(self.cells)) if self.is_available(i)]
                square = self.rng.choice(available)
                changes.append(self._set(square, seat + 1))
        return changes

    # -- the common state API -------------------------------------------------------
    def current_player(self) -> int:
        return TERMINAL if self.outcome is not None else self.player

    def is_terminal(self) -> bool:
        return self.outcome is not None

    def returns(self) -> tuple[int, ...]:
        return tuple(self.counts[1 : self.num_players + 1])

    def acting_seats(self) -> tuple[int, ...]:
        return () if self.outcome is not None else (self.player,)

    def apply_actions(self, actions: Mapping[int, Move]) -> tuple[Change, ...]:
        """The common turn API: the player to move's action; returns the changed squares
        (a tuple: the session keeps every turn's changes for the bots' messages, and a tuple
        of tuples of ints costs the garbage collector nothing once it has seen it)."""
        return tuple(self.apply_action(actions[self.player]))

    def default_action(self, seat: int = 0) -> Move:
        return (0, 0, 0, 0)

    def freeze(self, seat: int) -> None:
        """The bot is not asked again; it passes for the rest of the game."""
        self.frozen.add(seat)

    def legal_actions(self) -> list[Move]:
        """Every valid move of the player to move (passes excluded)."""
        colour = self.player + 1
        size, cells, nbrs = self.size, self.cells, self.neighbours
        own = [i for i, c in enumerate(cells) if c == colour]
        moves = []
        targets = {n for i in own for n in nbrs[i] if cells[n] == EMPTY}
        for dst in sorted(targets):
            supporters = [n for n in nbrs[dst] if cells[n] == colour]
            for src in own:
                if len(supporters) > 1 or supporters[0] != src:
                    moves.append((src % size, src // size, dst % size, dst // size))
        return moves

    def copy(self) -> FlitState:
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other.cells = list(self.cells)
        other.counts = list(self.counts)
        other.frozen = set(self.frozen)
        other.rng = random.Random()
        other.rng.setstate(self.rng.getstate())
        return other

    def is_available(self, square: int) -> bool:
        cells = self.cells
        if cells[square] != EMPTY:
            return False
        up, down, left, right = self.neighbours[square]
        return not (cells[up] or cells[down] or cells[left] or cells[right])

    def check_move(self, move: Move) -> tuple[int, int] | None:
        """The (source, destination) squares of a valid move, None for a pass.

        Raises IllegalMoveError for an invalid move.
        """
        x0, y0, x1, y1 = move
        size = self.size
        if not (0 <= x0 < size and 0 <= y0 < size and 0 <= x1 < size and 0 <= y1 < size):
            raise IllegalMoveError(move, f"coordinates must be in 0..{size - 1}")
        if x0 == x1 and y0 == y1:
            return None
        src, dst = y0 * size + x0, y1 * size + x1
        colour = self.player + 1
        cells = self.cells
        if cells[src] != colour:
            raise IllegalMoveError(move, f"({x0}, {y0}) does not hold a piece of colour {colour}")
        if cells[dst] != EMPTY:
            raise IllegalMoveError(move, f"({x1}, {y1}) is not empty")
        for n in self.neighbours[dst]:
            if n != src and cells[n] == colour:
                return src, dst
        raise IllegalMoveError(move, f"({x1}, {y1}) is not next to another piece of colour {colour}")

    def apply_action(self, move: Move) -> list[Change]:
        """Play one turn for the player to move; returns the squares that changed."""
        if self.outcome is not None:
            raise GameOverError("the game is over")
        squares = self.check_move(move)
        cells, size = self.cells, self.size
        if squares is None:
            self.passes += 1
            changes: list[Change] = []
        else:
            self.passes = 0
            src, dst = squares
            colour = self.player + 1
            # ``_set`` inlined: a piece moves (no count changes), neutrals next to it turn
            cells[src], cells[dst] = EMPTY, colour
            changes = [(src % size, src // size, EMPTY), (dst % size, dst // size, colour)]
            for n in self.neighbours[dst]:
                if cells[n] == NEUTRAL:
                    changes.append(self._set(n, colour))
        # randrange(len(cells)), then randrange(NEUTRAL_CHANCE), as random's own
        # _randbelow draws them (the same numbers, without its Python call each)
        getrandbits = self.rng.getrandbits
        area = len(cells)
        bits = area.bit_length()
        square = getrandbits(bits)
        while square >= area:
            square = getrandbits(bits)
        chance = getrandbits(CHANCE_BITS)
        while chance >= NEUTRAL_CHANCE:
            chance = getrandbits(CHANCE_BITS)
        if chance == 0 and self.is_available(square):
            changes.append(self._set(square, NEUTRAL))
        self.turns += 1
        self.player = (self.player + 1) % self.num_players
        self._check_end()
        return changes

    def _set(self, square: int, colour: int) -> Change:
        counts = self.counts
        counts[self.cells[square]] -= 1
        counts[colour] += 1
        self.cells[square] = colour
        return (square % self.size, square // self.size, colour)

    def _check_end(self) -> None:
        k = self.num_players
        termination = None
        if self.turns >= self.settings.max_turns:
            termination = "max_turns"
        elif self.passes >= k:
            termination = "all_passed"
        else:
            pieces = sorted(self.counts[1 : k + 1], reverse=True)
            open_squares = self.counts[NEUTRAL] + self.counts[EMPTY] - 4
            if pieces[0] > pieces[1] + open_squares:
                termination = "uncatchable"
        if termination:
            scores = self.returns()
            self.outcome = Outcome(termination, scores, unique_winner(scores))

    # -- views ------------------------------------------------------------------------
    def at(self, x: int, y: int) -> int:
        size = self.size
        return self.cells[(y % size) * size + x % size]

    def to_json(self) -> dict:
        return {"cells": list(self.cells), "turns": self.turns, "player": self.player}

    def __repr__(self) -> str:
        return f"FlitState(turns={self.turns}, player={self.player}, counts={self.returns()})"


def new_game(settings: FlitSettings, seed: int, players: int | None = None,
             secret: str | None = None) -> FlitState:
    if players is not None and players != settings.players:
        settings = FlitSettings(settings.size, players, settings.max_turns, settings.time_limit_ms)
    return FlitState(settings, seed, secret)


def state_with(pieces: dict[tuple[int, int], int], size: int = 16, players: int = 2,
               player: int = 0, seed: int = 0) -> FlitState:
    """A state with chosen pieces and no start placement: for tests and worked examples."""
    state = FlitState(FlitSettings(size=size, players=players), seed)
    state.cells = [EMPTY] * (size * size)
    state.counts = [0] * (NEUTRAL + 1)
    state.counts[EMPTY] = size * size
    for (x, y), colour in pieces.items():
        state._set(y * size + x, colour)
    state.player = player
    return state
