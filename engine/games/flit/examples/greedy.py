"""Flit example: convert the most neutral pieces; otherwise move toward the neutrals.

Pieces are only won by converting neutrals, so each turn this bot scores every square it
may move to by the neutrals it would convert now, then by the neutrals two steps away,
and moves there the piece it misses least.
"""
import random


def move(view):
    me = view.me
    mine = view.pieces()
    neutrals = set(view.pieces(5))

    def converts(square):
        return sum(n in neutrals for n in view.neighbours(*square))

    def reach(square):
        return len({m for n in view.neighbours(*square) for m in view.neighbours(*n) if m in neutrals})

    targets = {n for p in mine for n in view.neighbours(*p) if view[n] == 0}
    # sorted first: a set of tuples iterates in another order in the page (32-bit Pyodide),
    # and the random tie-breaks must go to the same squares there
    ranked = sorted(sorted(targets), key=lambda t: (converts(t), reach(t), random.random()), reverse=True)

    def spare(piece):
        # a piece next to no neutral and far from the action is the cheapest to move
        return (converts(piece) > 0, reach(piece), random.random())

    for target in ranked:
        supporters = [p for p in view.neighbours(*target) if view[p] == me]
        sources = [p for p in mine if len(supporters) > 1 or p != supporters[0]]
        if sources:
            x0, y0 = min(sources, key=spare)
            return x0, y0, target[0], target[1]
    return "0 0 0 0"  # no valid move: pass
