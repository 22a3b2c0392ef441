"""Marks a bot draws on the board for its author: the one line form, read and written here.

A bot marks a square with a line on its stderr (a function bot through ``view.mark``, which
prints that line), assigned to the turn whose answer follows it::

    #mark <where...> <colour> [text]

``where`` is one to three whole numbers whose meaning is the game's (Flit ``x y``; Atomas a
ring position; aBOTcalypse ``dx dy`` from the bot, ``dy`` up), ``colour`` a name of
``PALETTE`` or ``#rrggbb``, ``text`` the rest of the line, cut at ``TEXT_CHARS``. A line that
is not of this form is ordinary stderr: never a fault. The game turns ``where`` into its
board's cells (a wire's ``mark_cells``); the session keeps at most ``TURN_MARKS`` a seat and
turn and ``GAME_MARKS`` a seat and game in the record's debug part (``engine.play.debug_part``).
Everything here reads bot output: linear in its length, every size bounded.
"""

from __future__ import annotations

import re
import sys

PREFIX = "#mark "
TURN_MARKS = 50  # a seat's marks kept a turn
GAME_MARKS = 5_000  # a seat's marks kept a game
TEXT_CHARS = 40  # a mark's text
WHERE_INTS = 3  # the numbers of a ``where`` at most
WHERE_DIGITS = 6  # each a whole number of at most 6 digits (and a sign)
PALETTE = ("red", "green", "blue", "orange", "purple", "cyan", "magenta", "yellow", "white",
           "black", "grey")
_HEX = re.compile(r"#[0-9a-fA-F]{6}")
_INT = re.compile(rf"-?[0-9]{{1,{WHERE_DIGITS}}}")

MAX_CELL = 10**6  # a placed mark's numbers are below it in size
Mark = tuple[tuple[int, ...], str, str]  # (where, colour, text)


def is_colour(value: object) -> bool:
    return type(value) is str and (value in PALETTE or _HEX.fullmatch(value) is not None)


def parse_line(line: str) -> Mark | None:
    """A ``#mark`` line as (where, colour, text), or None if it is not one."""
    if not line.startswith(PREFIX):
        return None
    words = line[len(PREFIX):].split(" ", WHERE_INTS + 1)
    where: list[int] = []
    for index, word in enumerate(words):
        if _INT.fullmatch(word) is not None and len(where) < WHERE_INTS:
            where.append(int(word))
            continue
        if not where or not is_colour(word):
            return None
        rest = words[index + 1:]
        text = " ".join(rest)[:TEXT_CHARS].strip() if rest else ""
        return tuple(where), word, "".join(c if c.isprintable() else " " for c in text)
    return None


def parse_marks(stderr: str, limit: int = TURN_MARKS) -> list[Mark]:
    """The marks of one reply's stderr, at most ``limit`` (the first ones)."""
    marks: list[Mark] = []
    if PREFIX not in stderr:
        return marks
    for line in stderr.splitlines():
        mark = parse_line(line.rstrip())
        if mark is not None:
            marks.append(mark)
            if len(marks) >= limit:
                break
    return marks


def mark_cells_of(value: object) -> tuple[int, ...] | None:
    """A game's answer to where a mark points, checked: a whole number or 1 to ``WHERE_INTS``
    of them, each below ``MAX_CELL`` in size; None for anything else (the mark is dropped)."""
    cells = (value,) if type(value) is int else value if isinstance(value, (tuple, list)) else ()
    if 0 < len(cells) <= WHERE_INTS and all(type(c) is int and -MAX_CELL < c < MAX_CELL for c in cells):
        return tuple(cells)
    return None


def mark_line(where: object, colour: str, text: object = "") -> str:
    """The ``#mark`` line of a mark; ValueError for a mark that cannot be one (so a function
    bot's author learns it at once)."""
    cells = (where,) if type(where) is int else tuple(where) if isinstance(where, (tuple, list)) else ()
    if not 0 < len(cells) <= WHERE_INTS or any(type(c) is not int or abs(c) >= 10**WHERE_DIGITS
                                                for c in cells):
        raise ValueError(f"a mark's place is 1 to {WHERE_INTS} whole numbers, not {str(where)[:40]!r}")
    if not is_colour(colour):
        raise ValueError(f"a mark's colour is one of {', '.join(PALETTE)} or #rrggbb, "
                         f"not {str(colour)[:40]!r}")
    words = str(text)[:TEXT_CHARS].split()
    return " ".join([PREFIX.strip(), *map(str, cells), colour, *words])


def print_mark(where: object, colour: str, text: object = "") -> None:
    """Print a mark's line on stderr: what a function bot's ``view.mark`` does."""
    print(mark_line(where, colour, text), file=sys.stderr)
