"""A replay record's debug part: what each bot printed and how long it took, turn by turn.

It is for the bot's author, not for the rules: the rules never read it, runs are never
compared by it (``rules_part``), and a tournament's JSON never holds it. A record of schema
version 3 may carry it as ``record["debug"]``:

    {"time_us": [int | null, ...],            # each turn's seats in order: the wall time of
                                              # each seat's reply in microseconds (null: not asked)
     "output": [[turn, seat, stdout, stderr], ...],  # only where a bot printed (turn 0: its start)
     "cut": [chars, ...],                     # per seat, output not kept (only when any was cut)
     "marks": [[turn, seat, [cell...], colour, text], ...]}  # only when a bot marked squares

Recording is cheap on purpose (an int appended per reply, a list only when a bot printed):
it runs on every move of every game. Bounds: each stream of a reply at ``TURN_CHARS`` (head
and tail kept, what was cut said in the text), each seat's output at ``GAME_CHARS`` a game,
and a file's output at ``FILE_CHARS`` (``within_file_budget``), so a file stays within what
the reader opens. The reader checks the part as untrusted input (``check_debug``).

A mark (``engine.core.marks``) is a square a bot drew for its author: its cell is the game's
(``mark_cells`` of its wire: what the bot's ``where`` names on the board, worked out before the
turn is played), kept at most ``TURN_MARKS`` a seat and turn and ``GAME_MARKS`` a seat and game.
"""

from __future__ import annotations

from typing import Any

from engine.bots.answer import GAME_OUTPUT_CHARS, cap_text, cut_marker
from engine.bots.reply import MAX_OUTPUT_CHARS
from engine.core.marks import GAME_MARKS, MAX_CELL, TEXT_CHARS, TURN_MARKS, WHERE_INTS, is_colour
from engine.core.replay_limits import MAX_DOCUMENT_CHARS

TURN_CHARS = MAX_OUTPUT_CHARS  # one stream of one reply (the reply checker's cap)
GAME_CHARS = GAME_OUTPUT_CHARS  # one seat's stdout and stderr together, per game
FILE_CHARS = MAX_DOCUMENT_CHARS // 8  # all output of one file (a series), 8 MiB
MAX_TIME_US = 86_400_000_000  # a day: a reply's time past it is not a time
MAX_MS = MAX_TIME_US / 1000
_SLACK = len(cut_marker(10**12))  # the cut marker cap_text adds to a capped text
DEBUG_KEYS = ("time_us", "output", "cut", "marks")
MARK_CHARS = 40  # what a mark counts toward a file's output budget, beside its text


class DebugError(ValueError):
    """A debug part that is not one (its shape or its sizes)."""


class DebugLog:
    """One game's debug part as it is played, in the record (``part``) from the start."""

    __slots__ = ("part", "times", "output", "left", "cut", "marks_left")

    def __init__(self, seats: int) -> None:
        self.times: list[int | None] = []
        self.output: list[list] = []
        self.part: dict[str, Any] = {"time_us": self.times, "output": self.output}
        self.left = [GAME_CHARS] * seats
        self.cut = [0] * seats
        self.marks_left = [GAME_MARKS] * seats

    def marked(self, turn: int, seat: int, marks: list[tuple[tuple[int, ...], str, str]]) -> None:
        """Keep a seat's marks of ``turn`` (cells already the game's), within the bounds."""
        keep = marks[:min(TURN_MARKS, self.marks_left[seat])]
        if not keep:
            return
        self.marks_left[seat] -= len(keep)
        kept = self.part.setdefault("marks", [])
        kept.extend([turn, seat, list(cells), colour, text] for cells, colour, text in keep)

    def printed(self, turn: int, seat: int, stdout: object, stderr: object) -> None:
        """Keep what a seat printed for ``turn`` (0: its start), within the bounds."""
        out = self._keep(seat, cap_text(stdout, TURN_CHARS) if type(stdout) is str else "")
        err = self._keep(seat, cap_text(stderr, TURN_CHARS) if type(stderr) is str else "")
        if out or err:
            self.output.append([turn, seat, out, err])

    def _keep(self, seat: int, text: str) -> str:
        left = self.left[seat]
        if len(text) <= left:
            self.left[seat] = left - len(text)
            return text
        self.left[seat] = 0
        self.cut[seat] += len(text) - left
        self.part["cut"] = self.cut
        return text[:left]


def micros(elapsed_ms: object) -> int | None:
    """A reply's wall time as whole microseconds, or None if it is not a time."""
    if type(elapsed_ms) in (float, int) and 0 <= elapsed_ms < MAX_MS:  # type: ignore[operator]
        return int(elapsed_ms * 1000)  # type: ignore[operator]
    return None


def rules_part(record: dict) -> dict:
    """A record as the rules verify it: what runs are compared by (no debug part, and no
    schema version, so a version-2 file's game equals today's)."""
    return {k: v for k, v in record.items() if k not in ("debug", "schema_version")}


def rules_document(document: dict) -> dict:
    """A series document as runs are compared: each record's ``rules_part``."""
    return {**document, "records": [rules_part(r) for r in document["records"]]}


def within_file_budget(records: list[dict], left: int = FILE_CHARS) -> tuple[list[dict], int]:
    """``records`` (in order) with their output cut to ``left`` characters in all, each cut
    record a copy whose ``cut`` says what it lost; and what is left for later records."""
    out = []
    for record in records:
        part = record.get("debug")
        if not isinstance(part, dict) or not (part.get("output") or part.get("marks")):
            out.append(record)
            continue
        kept = []
        cut = list(part.get("cut") or [0] * len(record["bots"]))
        for turn, seat, stdout, stderr in part["output"]:
            size = len(stdout) + len(stderr)
            if size <= left:
                left -= size
                kept.append([turn, seat, stdout, stderr])
            else:
                cut[seat] += size
                left = 0
        marks = part.get("marks") or []
        kept_marks = []
        for mark in marks:
            size = MARK_CHARS + len(mark[4])
            if size <= left:
                left -= size
                kept_marks.append(mark)
            else:
                cut[mark[1]] += size
                left = 0
        if len(kept) != len(part["output"]) or len(kept_marks) != len(marks):
            record = {**record, "debug": {**part, "output": kept, "cut": cut}}
            if marks:
                record["debug"]["marks"] = kept_marks
        out.append(record)
    return out, left


def move_times(records: list[dict], n_bots: int) -> list[list[int]]:
    """Each bot's reply times (microseconds) over ``records`` (a series' or a tournament's),
    from the debug parts; a seat not asked, or a record without a debug part, adds none."""
    times: list[list[int]] = [[] for _ in range(n_bots)]
    for record in records:
        part = record.get("debug")
        if not isinstance(part, dict):
            continue
        flat, index = part["time_us"], record["bot_index"]
        if len(record["turns"]) == len(flat):  # one seat a turn, the usual: no walk of the turns
            for turn, value in zip(record["turns"], flat, strict=True):
                if value is not None:
                    times[index[turn["seats"][0]]].append(value)
            continue
        position = 0
        for turn in record["turns"]:
            for seat in turn["seats"]:
                value = flat[position]
                position += 1
                if value is not None:
                    times[index[seat]].append(value)
    return times


def timing(times: list[int]) -> dict:
    """A bot's moves, median and worst reply time in milliseconds (None without moves)."""
    if not times:
        return {"moves": 0, "median_ms": None, "worst_ms": None}
    ordered = sorted(times)
    return {"moves": len(ordered), "median_ms": ordered[len(ordered) // 2] / 1000,
            "worst_ms": ordered[-1] / 1000}


# -- reading (the file is untrusted) -------------------------------------------------------------
def check_debug(part: object, turns: list, seats: int) -> None:
    """Raise DebugError unless ``part`` is a debug part of a record with these turns (already
    verified by the rules) and ``seats`` seats, within the bounds the writer keeps."""
    if not isinstance(part, dict):
        raise DebugError("debug is not an object")
    unknown = [k for k in part if k not in DEBUG_KEYS]
    if unknown:
        raise DebugError(f"debug has an unknown field {str(unknown[0])[:40]!r}")
    times = part.get("time_us", [])
    expected = sum(len(turn["seats"]) for turn in turns)
    if not isinstance(times, list) or len(times) != expected:
        raise DebugError(f"debug.time_us is not a list of {expected} times (one per seat of each turn)")
    for value in times:
        if value is not None and (type(value) is not int or not 0 <= value <= MAX_TIME_US):
            raise DebugError(f"debug.time_us holds {str(value)[:40]}, not microseconds or null")
    output = part.get("output", [])
    if not isinstance(output, list) or len(output) > expected + seats:
        raise DebugError("debug.output is not a list of at most one entry per seat and turn")
    used = [0] * seats
    for entry in output:
        if not isinstance(entry, list) or len(entry) != 4:
            raise DebugError("a debug.output entry is [turn, seat, stdout, stderr]")
        turn, seat, out, err = entry
        if type(turn) is not int or not 0 <= turn <= len(turns) \
                or type(seat) is not int or not 0 <= seat < seats:
            raise DebugError(f"a debug.output entry names turn {str(turn)[:20]}, seat {str(seat)[:20]}")
        for text in (out, err):
            if type(text) is not str or len(text) > TURN_CHARS + _SLACK:
                raise DebugError(f"debug.output at turn {turn}: output is text of at most "
                                 f"{TURN_CHARS + _SLACK:,} characters")
            used[seat] += len(text)
        if used[seat] > GAME_CHARS:
            raise DebugError(f"debug.output: seat {seat} printed more than {GAME_CHARS:,} characters")
    cut = part.get("cut", [])
    if not isinstance(cut, list) or len(cut) not in (0, seats) \
            or any(type(c) is not int or not 0 <= c <= 2**53 for c in cut):
        raise DebugError(f"debug.cut is not a list of {seats} character counts")
    check_marks(part.get("marks", []), len(turns), seats)


def check_marks(marks: object, turns: int, seats: int) -> None:
    """Raise DebugError unless ``marks`` are a debug part's marks within the writer's bounds."""
    if not isinstance(marks, list) or len(marks) > GAME_MARKS * seats:
        raise DebugError(f"debug.marks is not a list of at most {GAME_MARKS:,} marks a seat")
    per_seat = [0] * seats
    per_turn: dict[tuple[int, int], int] = {}
    for mark in marks:
        if not isinstance(mark, list) or len(mark) != 5:
            raise DebugError("a debug.marks entry is [turn, seat, cells, colour, text]")
        turn, seat, cells, colour, text = mark
        if type(turn) is not int or not 1 <= turn <= turns or type(seat) is not int or not 0 <= seat < seats:
            raise DebugError(f"a debug.marks entry names turn {str(turn)[:20]}, seat {str(seat)[:20]}")
        if not isinstance(cells, list) or not 0 < len(cells) <= WHERE_INTS \
                or any(type(c) is not int or not -MAX_CELL < c < MAX_CELL for c in cells):
            raise DebugError(f"a debug.marks entry at turn {turn} has no cell of 1 to {WHERE_INTS} numbers")
        if not is_colour(colour) or type(text) is not str or len(text) > TEXT_CHARS \
                or not text.isprintable():
            raise DebugError(f"a debug.marks entry at turn {turn}: a colour of the palette or #rrggbb "
                             f"and a text of at most {TEXT_CHARS} printable characters")
        per_seat[seat] += 1
        per_turn[turn, seat] = per_turn.get((turn, seat), 0) + 1
        if per_seat[seat] > GAME_MARKS or per_turn[turn, seat] > TURN_MARKS:
            raise DebugError(f"debug.marks: seat {seat} marked more than {TURN_MARKS} squares a turn "
                             f"or {GAME_MARKS:,} a game")
