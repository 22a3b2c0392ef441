"""aBOTcalypse example: a thrower that aims at enemies in sight (a function bot).

Each turn it follows the rule book's path of every throw it could make and throws when one
lands on an enemy before anything else: sideways from elevation ``h`` with each ``D`` below
``h`` (slope ``h / D``; the rock starts beside it at its elevation and, column by column,
its row becomes ``int(previous row - slope)``), or straight up or down at an enemy next to
it. With no enemy in its line of fire it shelters in a bunker like the builder's: a rock in
its own cell, low walls on both sides and a roof three rocks thick.
"""

ROOF = 3  # rocks above the thrower's head
WALL = 2  # rocks in each wall, from the floor up
PASSES = ".@"  # a thrown rock flies through air and meteors


def path(view, h, dx, distance):
    """The cells ``(dx, dy)`` a sideways throw passes, up to the first one that is not air."""
    if distance >= h:
        distance = max(h - 1, 0)  # capped below the elevation
    slope = h / distance if distance > 0 else 1
    col, row = dx, h  # row counted from the floor
    cells = []
    while True:
        cells.append((col, row - h))
        if view[col, row - h] not in PASSES:
            return cells
        col, row = col + dx, int(row - slope)  # truncated toward zero, step by step


def aim(view):
    """An answer whose throw lands on an enemy, or None."""
    if view[0, 1] in "eE":
        return "throw up"
    if view[0, -1] == "E":
        return "throw down"
    h = view.elevation
    if h is None:
        return None  # the floor is out of sight: the throw's slope is unknown
    for distance in range(max(h - 1, 0), 0, -1) if h > 1 else [None]:
        for side, dx in (("left", -1), ("right", 1)):
            last = path(view, h, dx, distance or 0)[-1]
            if view[last] in "eE":
                return f"throw {side}" if distance is None else f"throw {side} {distance}"
    return None


def roof(view):
    count = 0
    while view[0, count + 1] in "&E":
        count += 1
    return count


def shelter(view):
    here, height = view[0, 0], view.elevation
    if here == "s":
        return "drop down"
    if height is None or height > ROOF:
        return "move down" if view[0, -1] == "&" else "rest"
    if height < WALL:
        for side, dx in (("left", -1), ("right", 1)):
            if view[dx, 0] == ".":
                return f"drop {side}"
    above, below = view[0, 1], view[0, -1]
    if height + roof(view) < ROOF:
        if above in ".@e":
            return "drop up"
        return "move up" if above == "&" else "rest"
    if height > 0 and below == "&":
        return "move down"
    return "rest"


def move(view):
    return aim(view) or shelter(view)
