"""aBOTcalypse example: a builder that shelters and rests (a function bot).

It turns its column into a bunker: a rock in its own cell (so a rock dropped beside it does
nothing), walls of two rocks on both sides, and a roof three rocks thick above its head. A
meteor moves two cells a turn and only checks the cell it lands in, so a roof one rock thick
lets half of the falling meteors through; three rocks stop them. To pile rocks above itself
it climbs its own column (``drop up`` then ``move up``) and steps back down. When a meteor
or a thrown rock takes a piece away it builds it again; otherwise it rests.
"""

ROOF = 3  # rocks above the bot's head
WALL = 2  # rocks in each wall, from the floor up


def roof(view):
    """How many rocks lie above the bot, one on another."""
    count = 0
    while view[0, count + 1] in "&E":
        count += 1
    return count


def move(view):
    here, height = view[0, 0], view.elevation
    if here == "s":
        return "drop down"  # a rock in my own cell: the floor of the bunker
    if height is None or height > ROOF:
        # above where the bunker is built (or the floor out of sight): go back down
        return "move down" if view[0, -1] == "&" else "rest"
    if height < WALL:
        for side, dx in (("left", -1), ("right", 1)):
            if view[dx, 0] == ".":
                return f"drop {side}"  # falls onto the wall below, or onto the floor
    above, below = view[0, 1], view[0, -1]
    if height + roof(view) < ROOF:
        if above in ".@e":
            return "drop up"  # lands on my rock (and on anyone standing there)
        return "move up" if above == "&" else "rest"  # climb into the rock above
    if height > 0 and below == "&":
        return "move down"  # the roof is done: back to the bottom of the column
    return "rest"
