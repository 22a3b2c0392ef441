"""What a replay file may hold, and so what an author's game may write into one.

The replay reader (``engine.play.replay``) refuses a file over these caps; an author's game is a
stranger's code whose records end up in such files. Every cap on what a game may write —
its host's reply (``engine.authored.game_host``, checked again by ``engine.play.game_proxy`` and the page's
``engine.play.page_game``), each record, one game's records in all, its turns, its scores — is
derived here from the reader's, so whatever a game is let record can be opened again.
"""

from __future__ import annotations

import math

MAX_DOCUMENT_CHARS = 64 * 1024 * 1024  # a replay file
MAX_DEPTH = 32  # a file's nesting: a built-in game's nests 7 deep; deeper can overflow Pyodide's stack

# A game's record_turn fields sit in a turn, in a record's list of turns, in a series' list of
# records: 4 levels (its record_start's, one fewer). What the game returns nests, itself
# counted, at most this deep.
RECORD_WRAPPING = 4
MAX_RECORD_DEPTH = MAX_DEPTH - RECORD_WRAPPING
MAX_REPLY_DEPTH = MAX_RECORD_DEPTH + 1  # a game host's reply: a record in it nests at most one less
MAX_REPLY_BYTES = 16 << 20  # one reply of a game host (a line of JSON)

# One game's record_start and record_turn values (pictures included) as JSON, in all: a
# quarter of a file, so one game's file (a tournament writes one per game) always opens, with
# room for the engine's own fields (answers, faults) of up to MAX_GAME_TURNS turns.
MAX_GAME_RECORD_CHARS = MAX_DOCUMENT_CHARS // 4
MAX_GAME_TURNS = 100_000  # an author's game's turns (its module's MAX_TURNS may say fewer)
MAX_SCORE = 10**15  # a score's size: exact as a float, as JSON and JavaScript read numbers


def is_score(value: object) -> bool:
    """A score a game may report: a whole number or a finite float of at most ``MAX_SCORE``
    (not a bool), checked without converting a huge int to float."""
    kind = type(value)
    if kind is int:
        return -MAX_SCORE <= value <= MAX_SCORE
    return kind is float and math.isfinite(value) and -MAX_SCORE <= value <= MAX_SCORE
