"""Flit example: a random valid move every turn (a function bot)."""
import random


def move(view):
    mine = view.pieces()
    targets = sorted({n for p in mine for n in view.neighbours(*p) if view[n] == 0})
    random.shuffle(targets)
    for x1, y1 in targets:
        supporters = [p for p in view.neighbours(x1, y1) if view[p] == view.me]
        # the moving piece does not count: a lone supporter must stay where it is
        sources = [p for p in mine if len(supporters) > 1 or p != supporters[0]]
        if sources:
            x0, y0 = random.choice(sources)
            return x0, y0, x1, y1
    return "0 0 0 0"  # no valid move: pass
