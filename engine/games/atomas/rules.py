"""Atomas rules as a pure state machine (rules for bot authors: docs/rules/atomas.md).

The ring is a list of items, ints for atoms and ``"+"`` for a plus that did not react.
No I/O, no clocks: every random draw comes from a stream seeded by ``(key, move)``, the key
made from the seed and the run's secret (``engine.core.randomness``), so they and the
bot's answers fully determine a game, in CPython and in Pyodide alike.
Text parsing lives in ``engine.games.atomas.game``; drawing in the page's renderer.
"""

from __future__ import annotations

import _random
import random
from collections.abc import Mapping
from dataclasses import dataclass

from engine.core.errors import GameOverError, IllegalMoveError
from engine.core.outcome import Outcome
from engine.core.randomness import draw_key

PLUS = "+"
MINUS = "-"
BLACK = "B"
CLONE = "C"

Item = int | str  # an atom (int >= 1) or PLUS
Atom = int | str  # an Item, MINUS, BLACK or CLONE
# An action is a gap (int) for a number, PLUS or BLACK; an item index (int) for CLONE;
# ``(index, to_plus)`` for MINUS.
Action = int | tuple[int, bool]

RING_LIMIT = 19
START_ATOMS = 6
PITY_MOVES = 5
TERMINAL = -1


@dataclass(frozen=True)
class AtomasSettings:
    max_moves: int = 2000
    # The rule book has no limit; a posted answer is run as a process per move and Python's
    # start-up alone takes 80-120 ms, so 1 s (docs/rule-choices.md).
    time_limit_ms: int = 1000

    def to_json(self) -> dict:
        # asdict's order and values (all ints), without its deep copy: once a game
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


PRESETS = {"standard": AtomasSettings()}


class AtomasState:
    """One Atomas game for one player (seat 0)."""

    game_name = "atomas"
    fault_limit = 5  # consecutive faults before the bot is frozen
    invalid_is_fault = True  # bad answers count toward the fault limit
    num_players = 1

    def __init__(self, settings: AtomasSettings, seed: int, secret: str | None = None,
                 key: int | None = None) -> None:
        """``key``: the game's draw key, when the caller made it already (the game API's
        ``rng.key``, from the same seed and secret)."""
        if seed < 0:
            raise ValueError(f"seed must be >= 0, got {seed}")
        self.settings = settings
        self.seed = seed
        # Streams: the start board from key << 32, move m's atom from (key << 32) + m.
        self._stream_base = (key if key is not None else draw_key(self.game_name, seed, secret)) << 32
        start = self._rng = random.Random(self._stream_base)
        self.items: list[Item] = [1 + _below(start, 3) for _ in range(START_ATOMS)]  # randint(1, 3)
        self.score = 0
        self.moves = 0  # moves played
        self.carried: Item | None = None
        self.since_plus = 0  # consecutive moves that played neither PLUS nor BLACK
        self.outcome: Outcome | None = None
        self.atom: Atom = self._draw_atom()

    # -- the common state API -------------------------------------------------------
    def current_player(self) -> int:
        return TERMINAL if self.outcome is not None else 0

    def is_terminal(self) -> bool:
        return self.outcome is not None

    def returns(self) -> tuple[int, ...]:
        return (self.score,)

    def legal_actions(self) -> list[Action]:
        n = len(self.items)
        if self.atom == MINUS:
            return [(i, p) for i in range(n) for p in (False, True)]
        if self.atom == CLONE:
            return list(range(n))
        return list(range(max(n, 1)))

    def acting_seats(self) -> tuple[int, ...]:
        return () if self.outcome is not None else (0,)

    def apply_actions(self, actions: Mapping[int, Action]) -> None:
        """The common turn API: the one seat's action (Atomas reports no changes)."""
        self.apply_action(actions[0])

    def default_action(self, seat: int = 0) -> Action:
        """What a faulted move is played as: gap 0, ``0 n`` or ``0``."""
        return (0, False) if self.atom == MINUS else 0

    def freeze(self, seat: int) -> None:
        """The bot faulted too often: its game ends with the score it has."""
        if self.outcome is None:
            self.outcome = Outcome("frozen", (self.score,), 0)

    def copy(self) -> AtomasState:
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other.items = list(self.items)
        other._rng = random.Random()  # reseeded before every draw; a copy's own
        return other

    def apply_action(self, action: Action) -> None:
        if self.outcome is not None:
            raise GameOverError("the game is over")
        atom = self.atom
        items = self.items
        n = len(items)
        if atom == MINUS:
            if not (isinstance(action, tuple) and len(action) == 2):
                raise IllegalMoveError(action, "a '-' needs an index and y/n")
            index, to_plus = action
            _check_index(action, index, n)
            removed = items.pop(index)
            self.carried = PLUS if to_plus else removed
        elif atom == CLONE:
            if not isinstance(action, int) or isinstance(action, bool):
                raise IllegalMoveError(action, "a 'C' needs an item index")
            _check_index(action, action, n)
            self.carried = items[action]
        else:
            if not isinstance(action, int) or isinstance(action, bool):
                raise IllegalMoveError(action, "a gap must be an integer")
            if not 0 <= action < max(n, 1):
                raise IllegalMoveError(action, f"gap out of range 0..{max(n, 1) - 1}")
            position = action + 1 if n else 0
            if atom == BLACK and n + 1 >= 3:
                items.insert(position, BLACK)
                self._black_fusion(position)
            else:
                items.insert(position, PLUS if atom == BLACK else atom)
        self.since_plus = 0 if atom in (PLUS, BLACK) else self.since_plus + 1
        self._settle()
        self.moves += 1
        if len(items) >= RING_LIMIT:
            self.outcome = Outcome("ring_full", (self.score,), 0)
        elif self.moves >= self.settings.max_moves:
            self.outcome = Outcome("max_moves", (self.score,), 0)
        else:
            self.atom = self._draw_atom()

    # -- reactions --------------------------------------------------------------------
    def _settle(self) -> None:
        """React every plus that can, lowest list index first, until none can."""
        items = self.items
        while len(items) >= 3 and PLUS in items:  # most moves leave no plus: a C-level scan
            n = len(items)
            i = items.index(PLUS)
            while True:
                left = items[i - 1]
                if left != PLUS and left == items[(i + 1) % n]:
                    self.score += round(1.5 * left + 1.25)
                    self._grow(self._absorb_neighbours(i, left + 1), left + 1)
                    break
                try:
                    i = items.index(PLUS, i + 1)
                except ValueError:
                    return

    def _black_fusion(self, position: int) -> None:
        items = self.items
        n = len(items)
        left, right = items[position - 1], items[(position + 1) % n]
        numbers = [x for x in (left, right) if x != PLUS]
        if numbers:
            largest = max(numbers)
            value = largest + 3
        else:
            largest, value = 1, 4
        self.score += round(1.5 * largest + 1.25)
        self._grow(self._absorb_neighbours(position, value), value)

    def _absorb_neighbours(self, position: int, value: int) -> int:
        """Replace the item at ``position`` and its two neighbours by ``value``."""
        items = self.items
        n = len(items)
        left, right = (position - 1) % n, (position + 1) % n
        items[position] = value
        for index in sorted((left, right), reverse=True):
            del items[index]
        return position - (left < position) - (right < position)

    def _grow(self, position: int, value: int) -> None:
        items = self.items
        matches = 1
        while len(items) >= 3:
            n = len(items)
            left = items[position - 1]
            if left == PLUS or left != items[(position + 1) % n]:
                return
            value = value + 2 if left >= value else value + 1
            outer = value - 1 if left < value else left
            self.score += (outer - value + 3) * matches - value + 3 * outer + 3
            matches += 1
            position = self._absorb_neighbours(position, value)

    # -- the atom to play -------------------------------------------------------------
    def _draw_atom(self) -> Atom:
        if self.carried is not None:
            atom, self.carried = self.carried, None
            return atom
        if self.since_plus >= PITY_MOVES:
            return PLUS
        move = self.moves + 1
        low, high = 1 + move // 40, 3 + move // 40
        # Each move's atom has a stream of its own: the state's one generator, reseeded (as
        # a new random.Random(base + move) would be: a new one a move was a good part of its cost)
        rng = self._rng
        _seed(rng, self._stream_base + move)
        # randint and randrange draw with random's _randbelow(n): getrandbits(n.bit_length())
        # until below n. The same numbers, drawn here without its Python call each.
        getrandbits = rng.getrandbits
        r = getrandbits(8)  # randint(1, 240): 1 + _randbelow(240)
        while r >= 240:
            r = getrandbits(8)
        r += 1
        items = self.items
        if r <= 48:
            return PLUS
        if r <= 72 and items:
            return MINUS
        if r <= 75 and items and self.score > 750:
            return BLACK
        if r <= 79 and items and self.score > 1500:
            return CLONE
        if items:
            n = len(items)  # randrange(n)
            bits = n.bit_length()
            index = getrandbits(bits)
            while index >= n:
                index = getrandbits(bits)
            picked = items[index]
            if picked != PLUS and picked < low:
                return picked
        span = high - low + 1  # randint(low, high)
        bits = span.bit_length()
        offset = getrandbits(bits)
        while offset >= span:
            offset = getrandbits(bits)
        return low + offset

    # -- views ------------------------------------------------------------------------
    def to_json(self) -> dict:
        return {"board": list(self.items), "score": self.score, "atom": self.atom, "moves": self.moves}

    def __repr__(self) -> str:
        board = " ".join(str(x) for x in self.items)
        return f"AtomasState(atom={self.atom!r}, board='{board}', score={self.score}, moves={self.moves})"


_seed = _random.Random.seed  # random.Random.seed of an int, without the Python layer's checks


def _below(rng: random.Random, n: int) -> int:
    """``rng.randrange(n)``: the number random's own ``_randbelow`` draws."""
    bits = n.bit_length()
    r = rng.getrandbits(bits)
    while r >= n:
        r = rng.getrandbits(bits)
    return r


def _check_index(action: object, index: object, n: int) -> None:
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < n:
        raise IllegalMoveError(action, f"item index out of range 0..{n - 1}")


def new_game(settings: AtomasSettings, seed: int, players: int = 1,
             secret: str | None = None) -> AtomasState:
    if players != 1:
        raise ValueError("Atomas is a one-player game; bots play it side by side")
    return AtomasState(settings, seed, secret)


def state_with(board: list[Item], atom: Atom, score: int = 0, moves: int = 0,
               settings: AtomasSettings | None = None, seed: int = 0) -> AtomasState:
    """A state with a chosen board and atom: for tests and worked examples."""
    state = AtomasState(settings or AtomasSettings(), seed)
    state.items = list(board)
    state.atom = atom
    state.score = score
    state.moves = moves
    state.carried = None
    state.since_plus = 0
    return state
