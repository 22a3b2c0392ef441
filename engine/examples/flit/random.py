"""Flit example: a random valid move every turn (a function bot)."""
import random


def move(view):
    moves = view.moves()
    if not moves:
        return "0 0 0 0"  # a pass
    return random.choice(moves)
