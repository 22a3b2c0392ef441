"""aBOTcalypse example: a random action every turn (a function bot).

It draws from its own ``random.Random()`` rather than the module's shared functions, so
nothing else in the process can disturb or predict its stream.
"""
import random

ACTIONS = (
    ["rest"]
    + [f"{kind} {direction}" for kind in ("move", "drop", "throw")
       for direction in ("up", "down", "left", "right")]
)
rng = random.Random()


def move(view):
    action = rng.choice(ACTIONS)
    if action in ("throw left", "throw right") and view.elevation:
        return f"{action} {rng.randrange(view.elevation)}"  # some D below the elevation
    return action
