"""Lowest Unique: every round each bot names a number from 1 to N, all at once.

The lowest number that exactly one bot named wins the round: that bot scores a point. When
no number is unique, nobody scores. After the last round the most points wins.

Text protocol: at the start one line `N ROUNDS BOTS SEAT`; every round one line with the
numbers each bot named last round (`-` for none, in seat order), then answer one number.
Function bots get a dict: view["high"], view["round"], view["last"] (last round's numbers,
None for none), view["points"] and view["me"].
"""

from engine.game_api import Field, InvalidAnswer

NAME = "lowest_unique"
TITLE = "Lowest Unique"
SUMMARY = "Name the lowest number nobody else names. 2 to 8 bots, all at once."
PLAYERS = (2, 8)
SETTINGS = {"high": 5, "rounds": 30, "time_limit_ms": 200}
FIELDS = [Field("high", "Highest number", 2, 20), Field("rounds", "Rounds", 1, 500)]

EXAMPLES = {
    "one": "def move(view):\n    return 1\n",
    "random": "import random\n\ndef move(view):\n    return random.randint(1, view['high'])\n",
    "dodger": '''def move(view):
    """Name the lowest number nobody named last round."""
    taken = set(view["last"])
    return next((n for n in range(1, view["high"] + 1) if n not in taken), view["high"])
''',
}


class Game:
    def __init__(self, settings, rng):
        self.high, self.rounds, self.players = settings.high, settings.rounds, settings.players
        self.round = 0
        self.points = [0] * self.players
        self.last = [None] * self.players  # what each bot named last round
        self.winner = None  # last round's winner

    def acting_seats(self):
        return list(range(self.players))  # everyone, every round

    def start_message(self, seat):
        return {"high": self.high, "rounds": self.rounds, "players": self.players, "seat": seat}

    def observation(self, seat, since):
        return {"high": self.high, "round": self.round, "last": self.last, "points": self.points}

    def parse_answer(self, text, seat):
        number = int(text)  # not a number: a ValueError, so an invalid answer
        if not 1 <= number <= self.high:
            raise InvalidAnswer(f"name a number from 1 to {self.high}")
        return number

    def default_action(self, seat):
        return None  # a bot that faulted names nothing

    def apply_actions(self, actions):
        self.last = [actions.get(seat) for seat in range(self.players)]
        named = [n for n in self.last if n is not None]
        unique = [n for n in named if named.count(n) == 1]
        self.winner = self.last.index(min(unique)) if unique else None
        if self.winner is not None:
            self.points[self.winner] += 1
        self.round += 1
        return {"named": self.last, "winner": self.winner}  # the turn's record

    def over(self):
        return "rounds" if self.round >= self.rounds else None

    def scores(self):
        return self.points

    def draw(self):
        """One row per bot, one column per number: what each bot named last round."""
        rows = []
        for seat, number in enumerate(self.last):
            mark = "W" if seat == self.winner else "n"
            rows.append("".join(mark if number == n else "." for n in range(1, self.high + 1)))
        return {
            "width": self.high, "height": self.players, "cells": rows,
            "key": {"n": {"color": "#9e9e9e", "glyph": "•"},
                    "W": {"color": "#2e7d32", "glyph": "★", "label": "won the round"}},
            "legend": [{"color": s, "label": f"{p} points"} for s, p in enumerate(self.points)],
            "caption": f"round {self.round} of {self.rounds}",
        }


def lines(message):
    if "seat" in message:
        return [f"{message['high']} {message['rounds']} {message['players']} {message['seat']}"]
    return [" ".join("-" if n is None else str(n) for n in message["last"])]
