"""Land Grab: every bot claims a square at the same time, each round.

The board is W x H squares, each worth 1, 2 or 3 points (drawn at random, the same for all).
Each round every bot names one free square. A square named by one bot alone becomes that
bot's; a square named by two or more is burnt and belongs to no one. After the last round
(or when no square is free) the most points of land wins.

Text protocol. At the start: `S W H N k` (width, height, bots, your seat from 0), then H lines
of W digits, the squares' values. Each round: H lines of the board (`.` free, `#` burnt, a
digit the seat that owns it), then `M`. Answer `x y` (0-based, x across, y down). An answer
that cannot be read, or off the board, is an invalid answer: you claim nothing that round.

Function bots get `view.width`, `view.height`, `view.me`, `view.round`, `view[x, y]` (`.`,
`#` or the owner's seat as a digit), `view.value(x, y)` and `view.free()` (the free squares).
"""

from engine.game_api import Field, InvalidAnswer, Preset

NAME = "landgrab"
TITLE = "Land Grab"
SUMMARY = "Claim squares all at once: alone you get it, together you burn it. 2 to 6 bots."
PLAYERS = (2, 6)
SETTINGS = {"width": 8, "height": 6, "rounds": 20, "time_limit_ms": 200}
FIELDS = [
    Field("time_limit_ms", "Time limit (ms)", 1, 60_000, "per round"),
    Field("rounds", "Rounds", 1, 1_000),
]
PRESETS = [
    Preset("small", "small (8×6, 20 rounds)", {}),
    Preset("large", "large (16×12, 80 rounds)", {"width": 16, "height": 12, "rounds": 80}),
]
SCRIPT_MODE = "stream"
FREE, BURNT = ".", "#"

EXAMPLES = {
    "random": '''import random

def move(view):
    """Claim a free square at random."""
    return random.choice(view.free())
''',
    "greedy": '''import random

def move(view):
    """Claim the most valuable free square (ties: at random)."""
    free = view.free()
    best = max(view.value(x, y) for x, y in free)
    return random.choice([(x, y) for x, y in free if view.value(x, y) == best])
''',
    "script": '''import random

_, width, height, bots, me = input().split()
width, height = int(width), int(height)
values = [input() for _ in range(height)]
while True:
    rows = [input() for _ in range(height)]
    input()  # M
    free = [(x, y) for y in range(height) for x in range(width) if rows[y][x] == "."]
    x, y = max(free, key=lambda s: (int(values[s[1]][s[0]]), random.random()))
    print(x, y)
''',
}


class Game:
    def __init__(self, settings, rng):
        self.width, self.height, self.players = settings.width, settings.height, settings.players
        self.rounds, self.round = settings.rounds, 0
        self.values = [[rng.choice((1, 1, 1, 2, 2, 3)) for _ in range(self.width)]
                       for _ in range(self.height)]
        self.board = [[FREE] * self.width for _ in range(self.height)]
        self.land = [0] * self.players

    def acting_seats(self):
        return list(range(self.players))  # everyone, every round

    def start_message(self, seat):
        return {"setup": [self.width, self.height, self.players, seat],
                "values": ["".join(map(str, row)) for row in self.values]}

    def observation(self, seat, since):
        return {"round": self.round, "rows": ["".join(row) for row in self.board]}

    def parse_answer(self, text, seat):
        x, y = map(int, text.split())  # anything but two numbers: a ValueError, an invalid answer
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise InvalidAnswer("the square is off the board")
        return x, y

    def default_action(self, seat):
        return None  # a bot that faulted claims nothing

    def apply_actions(self, actions):
        claims = {}
        for seat, square in sorted(actions.items()):
            if square is not None:
                claims.setdefault(tuple(square), []).append(seat)
        changes = []
        for (x, y), seats in sorted(claims.items()):
            if self.board[y][x] != FREE:
                continue  # taken or burnt already: the claim is wasted
            if len(seats) == 1:
                self.board[y][x] = str(seats[0])
                self.land[seats[0]] += self.values[y][x]
            else:
                self.board[y][x] = BURNT
            changes.append([x, y, self.board[y][x]])
        self.round += 1
        return changes

    def over(self):
        if self.round >= self.rounds:
            return "rounds"
        if not any(FREE in row for row in self.board):
            return "board full"
        return None

    def scores(self):
        return self.land

    def record_turn(self, actions, changes):
        return {"claims": {str(s): list(a) if a else None for s, a in sorted(actions.items())},
                "changes": changes}

    def draw(self):
        key = {"#": {"color": "#444444", "glyph": "×", "label": "burnt"}}
        for value in (1, 2, 3):
            key[str(value)] = {"color": "#dddddd", "glyph": str(value)}
            for seat in range(self.players):
                key[chr(ord("A") + 3 * seat + value - 1)] = {"color": seat, "glyph": str(value)}
        cells = []
        for y in range(self.height):
            row = ""
            for x in range(self.width):
                square, value = self.board[y][x], self.values[y][x]
                row += str(value) if square == FREE else "#" if square == BURNT else \
                    chr(ord("A") + 3 * int(square) + value - 1)
            cells.append(row)
        return {"width": self.width, "height": self.height, "cells": cells, "key": key,
                "legend": [{"color": s, "label": f"{self.land[s]} points"}
                           for s in range(self.players)],
                "caption": f"round {self.round} of {self.rounds}"}


def lines(message):
    if "setup" in message:
        return ["S {} {} {} {}".format(*message["setup"]), *message["values"]]
    return [*message["rows"], "M"]


class View:
    """What a function bot's move(view) gets."""

    def __init__(self, start, message):
        self.width, self.height, self.players, self.me = start["setup"]
        self.values = start["values"]
        self.round = message["round"]
        self.rows = message["rows"]

    def __getitem__(self, xy):
        x, y = xy
        return self.rows[y][x]

    def value(self, x, y):
        return int(self.values[y][x])

    def free(self):
        return [(x, y) for y in range(self.height) for x in range(self.width) if self.rows[y][x] == FREE]


class FunctionClient:
    def start(self, message):
        self.start_message = message

    def view(self, message):
        return View(self.start_message, message)
