"""Flit example: convert the most neutral pieces; otherwise move toward the neutrals.

Pieces are only won by converting neutrals, so each turn this bot scores every square it
may move to by the neutrals it would convert now, then by neutrals two steps away.
"""
import random


def move(view):
    moves = view.moves()
    if not moves:
        return "0 0 0 0"
    size = view.size
    neutrals = set(view.pieces(5))

    def near(x, y):
        return sum((nx, ny) in neutrals for nx, ny in view.neighbours(x, y))

    def later(x, y):
        seen = set()
        for nx, ny in view.neighbours(x, y):
            for p in view.neighbours(nx, ny):
                if p in neutrals:
                    seen.add(p)
        return len(seen)

    mine = view.pieces()
    crowd = {p: sum(view[q] == view.me for q in view.neighbours(*p)) for p in mine}

    def score(m):
        x0, y0, x1, y1 = m
        return (near(x1, y1), later(x1, y1), crowd[(x0, y0)] == 0 and near(x0, y0) == 0,
                -crowd[(x0, y0)], random.random())

    best = max(moves, key=score)
    return best
