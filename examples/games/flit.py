"""Flit, written as an author would: against engine.game_api alone (the proof by port).

The board is a torus of S x S squares. Each bot starts with two pieces; neutral pieces land
on free squares at random. On your turn you move one of your pieces to an empty square next
to another of your pieces (the moving piece does not count); the neutral pieces next to the
square you land on become yours. The same square twice is a pass. The game ends after the
last turn, when every bot passed in a row, or when the leader cannot be caught; the most
pieces wins. The full rule book is docs/rules/flit.md.

Text protocol: `S N k c` once (board size, bots, your colour), then `x y c` for every square
that changed (`c`: 0 empty, 1..4 a bot, 5 neutral) and `M` when you must move; answer
`x0 y0 x1 y1`. Function bots get `view.size`, `view.players`, `view.me`, `view[x, y]`,
`view.pieces(colour=None)`, `view.neighbours(x, y)`, `view.moves()`, `view.is_valid(move)`,
`view.cells()` and `view.turn`.
"""

from functools import cache

from engine.game_api import Field, InvalidAnswer, Preset

NAME = "flit"
TITLE = "Flit (ported)"
SUMMARY = "Take over a wrapping board by flitting pieces next to your own: 2 to 4 bots."
PLAYERS = (2, 4)
SETTINGS = {"size": 16, "players": 2, "max_turns": 1024, "time_limit_ms": 100}
FIELDS = [Field("time_limit_ms", "Time limit (ms)", 1, 60_000, "per turn")]
PRESETS = [
    Preset("trial", "trial (2 bots, 16×16, 1,024 turns, 100 ms)", {}, bots=(2, 2)),
    Preset("full", "full (4 bots, 32×32, 32,768 turns, 50 ms)",
           {"size": 32, "players": 4, "max_turns": 32768, "time_limit_ms": 50}, bots=(4, 4)),
]
SCORING = "wins"
SCRIPT_MODE = "stream"
FAULT_LIMIT = 5  # consecutive late or raising turns
INVALID_IS_FAULT = False  # an invalid move is a recorded pass

EMPTY, NEUTRAL, NEUTRAL_CHANCE = 0, 5, 16
BAD_ANSWER = "expected four integers 'x0 y0 x1 y1'"

EXAMPLES = {
    "random": '''import random

def move(view):
    """A random valid move every turn."""
    moves = view.moves()
    return random.choice(moves) if moves else (0, 0, 0, 0)
''',
    "greedy": '''import random

def move(view):
    """Convert the most neutral pieces."""
    neutrals = set(view.pieces(5))
    def gain(m):
        return sum(p in neutrals for p in view.neighbours(m[2], m[3]))
    moves = view.moves()
    if not moves:
        return 0, 0, 0, 0
    best = max(map(gain, moves))
    return random.choice([m for m in moves if gain(m) == best])
''',
}


@cache
def neighbour_table(size):
    """Each square's up, down, left and right neighbours on the torus, by index y * size + x."""
    return tuple((((y - 1) % size) * size + x, ((y + 1) % size) * size + x,
                  y * size + (x - 1) % size, y * size + (x + 1) % size)
                 for y in range(size) for x in range(size))


class Game:
    def __init__(self, settings, rng):
        self.size, self.players, self.max_turns = settings.size, settings.players, settings.max_turns
        if not 2 <= self.players <= 4 or self.size * self.size <= 5 * (2 * self.players - 1):
            raise ValueError(f"{self.players} bots do not fit on a {self.size}x{self.size} board")
        self.rng = rng
        self.cells = [EMPTY] * (self.size * self.size)
        self.nbrs = neighbour_table(self.size)
        self.counts = [0] * (NEUTRAL + 1)
        self.counts[EMPTY] = len(self.cells)
        self.turns = self.passes = self.player = 0
        self.ended = None
        self.start_changes = []
        for _ in range(2):
            for seat in range(self.players):
                square = rng.choice([i for i in range(len(self.cells)) if self.available(i)])
                self.start_changes.append(self.put(square, seat + 1))

    def available(self, square):
        cells = self.cells
        return cells[square] == EMPTY and not any(cells[n] for n in self.nbrs[square])

    def put(self, square, colour):
        self.counts[self.cells[square]] -= 1
        self.counts[colour] += 1
        self.cells[square] = colour
        return (square % self.size, square // self.size, colour)

    # -- who acts, what they are told, how they answer ----------------------------------
    def acting_seats(self):
        return [self.player]

    def start_message(self, seat):
        return {"setup": [self.size, self.players, seat + 1],
                "changes": [list(c) for c in self.start_changes]}

    def observation(self, seat, since):
        """Every square that changed since the bot was last told, then M."""
        if len(since) == 1:
            return {"changes": since[0], "ask": True}
        return {"changes": [c for turn in since for c in turn], "ask": True}

    def parse_answer(self, text, seat):
        parts = text.split()
        if len(parts) != 4:
            raise InvalidAnswer(BAD_ANSWER)
        try:
            return tuple(map(int, parts))
        except ValueError:
            raise InvalidAnswer(BAD_ANSWER) from None

    def default_action(self, seat):
        return (0, 0, 0, 0)  # a pass

    # -- the turn ---------------------------------------------------------------------------
    def apply_actions(self, actions):
        move = actions[self.player]
        x0, y0, x1, y1 = move
        size, colour, cells = self.size, self.player + 1, self.cells
        if not all(0 <= v < size for v in move):
            raise InvalidAnswer(f"coordinates must be in 0..{size - 1}", move)
        changes = []
        if (x0, y0) == (x1, y1):
            self.passes += 1
        else:
            src, dst = y0 * size + x0, y1 * size + x1
            if cells[src] != colour:
                raise InvalidAnswer(f"({x0}, {y0}) does not hold a piece of colour {colour}", move)
            if cells[dst] != EMPTY:
                raise InvalidAnswer(f"({x1}, {y1}) is not empty", move)
            if not any(n != src and cells[n] == colour for n in self.nbrs[dst]):
                raise InvalidAnswer(f"({x1}, {y1}) is not next to another piece of colour {colour}", move)
            self.passes = 0
            changes.append(self.put(src, EMPTY))
            changes.append(self.put(dst, colour))
            for n in self.nbrs[dst]:
                if cells[n] == NEUTRAL:
                    changes.append(self.put(n, colour))
        square = self.rng.randrange(len(cells))  # always both draws: the stream ignores the moves
        if self.rng.randrange(NEUTRAL_CHANCE) == 0 and self.available(square):
            changes.append(self.put(square, NEUTRAL))
        self.turns += 1
        self.player = (self.player + 1) % self.players
        self.check_end()
        return changes

    def check_end(self):
        pieces = sorted(self.scores(), reverse=True)
        if self.turns >= self.max_turns:
            self.ended = "max_turns"
        elif self.passes >= self.players:
            self.ended = "all_passed"
        elif pieces[0] > pieces[1] + self.counts[NEUTRAL] + self.counts[EMPTY] - 4:
            self.ended = "uncatchable"

    def over(self):
        return self.ended

    def scores(self):
        return self.counts[1:self.players + 1]

    # -- the record and the picture ---------------------------------------------------------
    def record_start(self):
        return {"changes": [list(c) for c in self.start_changes]}

    def record_turn(self, actions, changes):
        (move,) = actions.values()
        x0, y0, x1, y1 = move
        return {"move": None if (x0, y0) == (x1, y1) else list(move), "changes": [list(c) for c in changes]}

    def draw(self):
        size = self.size
        text = "".join(map(".1234N".__getitem__, self.cells))
        rows = [text[y * size:(y + 1) * size] for y in range(size)]
        key = {str(s + 1): {"color": s, "label": f"bot {s + 1}"} for s in range(self.players)}
        key["N"] = {"color": "#9e9e9e", "label": "neutral"}
        return {"width": size, "height": size, "cells": rows, "key": key,
                "legend": [{"color": s, "label": f"{self.counts[s + 1]} pieces"}
                           for s in range(self.players)] + [{"color": "#9e9e9e", "label": "neutral"}],
                "caption": f"turn {self.turns}" + (f" — {self.ended}" if self.ended else "")}


def lines(message):
    out = ["S {} {} {}".format(*message["setup"])] if "setup" in message else []
    out.extend(f"{x} {y} {c}" for x, y, c in message["changes"])
    if message.get("ask"):
        out.append("M")
    return out


class View:
    """What move(view) gets: the board as the bot has been told it, read-only."""

    def __init__(self, size, players, me, cells, turn):
        self.size, self.players, self.me, self.turn = size, players, me, turn
        self._cells = cells
        self._nbrs = neighbour_table(size)

    def __getitem__(self, xy):
        x, y = xy
        return self._cells[(y % self.size) * self.size + x % self.size]

    def cells(self):
        return tuple(self._cells)

    def pieces(self, colour=None):
        colour = self.me if colour is None else colour
        return [(i % self.size, i // self.size) for i, c in enumerate(self._cells) if c == colour]

    def neighbours(self, x, y):
        size = self.size
        return tuple((n % size, n // size) for n in self._nbrs[(y % size) * size + x % size])

    def is_valid(self, move):
        x0, y0, x1, y1 = move
        src, dst = y0 * self.size + x0, y1 * self.size + x1
        if self._cells[src] != self.me or self._cells[dst] != EMPTY:
            return False
        return any(n != src and self._cells[n] == self.me for n in self._nbrs[dst])

    def moves(self):
        size, cells, me = self.size, self._cells, self.me
        own = [i for i, c in enumerate(cells) if c == me]
        result = []
        for dst in sorted({n for i in own for n in self._nbrs[i] if cells[n] == EMPTY}):
            supporters = [n for n in self._nbrs[dst] if cells[n] == me]
            for src in own:
                if len(supporters) > 1 or supporters[0] != src:
                    result.append((src % size, src // size, dst % size, dst // size))
        return result


class FunctionClient:
    """Keeps a bot's copy of the board from the messages it is sent."""

    def start(self, message):
        self.size, self.players, self.me = message["setup"]
        self.cells = [EMPTY] * (self.size * self.size)
        self.turn = 0
        self.apply(message["changes"])

    def apply(self, changes):
        for x, y, c in changes:
            self.cells[y * self.size + x] = c

    def view(self, message):
        self.apply(message["changes"])
        self.turn += 1
        return View(self.size, self.players, self.me, list(self.cells), self.turn)
