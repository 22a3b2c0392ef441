"""Atomas example: a random legal answer every move (a function bot)."""
import random


def move(view):
    n = len(view.board)
    if view.atom == "-":
        return random.randrange(n), random.choice([True, False])
    if view.atom == "C":
        return random.randrange(n)
    return random.randrange(max(n, 1))
