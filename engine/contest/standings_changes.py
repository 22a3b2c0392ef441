"""What moved since the last run of the same challenge: "new: X", "up 2: Y", "down 1: Z", "gone: W".

An author re-runs the field each time answers arrive and posts the leaderboard again; readers
want to know what changed. Each run of a challenge (or of a question) keeps its places in the
cache folder (``DIR/standings/<key>.json``, ``key`` naming the game, the challenge's title and
the question), and the next run compares its own places with them. Written atomically (a
temporary file, then ``os.replace``).

The file read back is untrusted like every file of the cache (a shared folder, a full disk):
more than ``MAX_FILE_BYTES``, nesting deeper than the format, or not of the shape written
(at most ``MAX_ENTRIES`` rows of a name of at most ``MAX_NAME_CHARS`` and a place from 1 to
``MAX_ENTRIES``) and it is ignored with a warning: the run then shows no changes. Standard
library only.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from engine.core.kept_files import parse_kept, read_no_follow, write_atomically

FORMAT = 1
MAX_ENTRIES = 10_000  # a question's 1,000 answers and a challenge file's entries fit many times
MAX_NAME_CHARS = 200  # names are at most 100 characters; unique_names adds "#2"
MAX_DATE_CHARS = 40
MAX_FILE_BYTES = MAX_ENTRIES * (MAX_NAME_CHARS * 6 + 32) + 1024  # every name's characters escaped
MAX_DEPTH = 3


@dataclass(frozen=True)
class Previous:
    """The places of the last run, and when it was."""

    places: dict[str, int]
    date: str


@dataclass
class Changes:
    """The changes from ``Previous`` to now, each list in the current ranking's order (``gone``:
    the previous one's)."""

    since: str
    new: list[str] = field(default_factory=list)
    up: list[tuple[str, int]] = field(default_factory=list)
    down: list[tuple[str, int]] = field(default_factory=list)
    gone: list[str] = field(default_factory=list)

    @property
    def none(self) -> bool:
        return not (self.new or self.up or self.down or self.gone)

    def phrases(self) -> list[str]:
        """One phrase per change: ``new: X``, ``up 2: Y``, ``down 1: Z``, ``gone: W``."""
        return ([f"new: {n}" for n in self.new] + [f"up {k}: {n}" for n, k in self.up]
                + [f"down {k}: {n}" for n, k in self.down] + [f"gone: {n}" for n in self.gone])


def standings_key(game: str, title: str | None, question: tuple[str, int] | None) -> str:
    """The name of a challenge's standings file: the same challenge (or question) is the same key."""
    named = json.dumps({"game": game, "title": title, "question": list(question) if question else None},
                       sort_keys=True)
    return hashlib.sha256(named.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def compare(previous: Previous | None, places: list[tuple[str, int]]) -> Changes | None:
    """The changes from ``previous`` to ``places`` (name, place; in ranking order); None
    when there is no previous run to compare with."""
    if previous is None:
        return None
    out = Changes(previous.date)
    now = {name for name, _ in places}
    for name, place in places:
        before = previous.places.get(name)
        if before is None:
            out.new.append(name)
        elif place < before:
            out.up.append((name, before - place))
        elif place > before:
            out.down.append((name, place - before))
    out.gone = [name for name in sorted(previous.places, key=previous.places.__getitem__) if name not in now]
    return out


@dataclass
class StandingsStore:
    """The standings folder of the cache."""

    folder: Path
    warn: Callable[[str], None] = lambda message: None

    def path(self, key: str) -> Path:
        return self.folder / f"{key}.json"

    def read(self, key: str) -> Previous | None:
        try:
            data = read_no_follow(self.path(key), MAX_FILE_BYTES)
        except FileNotFoundError:
            return None
        except OSError as exc:
            self.warn(f"cannot read the last standings ({exc.strerror or exc}): no changes shown")
            return None
        found = parse_standings(data)
        if isinstance(found, str):
            self.warn(f"the last standings {self.path(key).name} are ignored ({found}): no changes shown")
            return None
        return found

    def write(self, key: str, places: list[tuple[str, int]], date: str) -> None:
        """Keep this run's places for the next run; a failure is a warning, never the run's end."""
        text = json.dumps({"format": FORMAT, "date": date[:MAX_DATE_CHARS],
                           "places": [[name, place] for name, place in places[:MAX_ENTRIES]]})
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            write_atomically(self.path(key), lambda out: out.write(text.encode("utf-8", "surrogatepass")))
        except OSError as exc:
            self.warn(f"cannot keep the standings in {self.folder}: {exc.strerror or exc}")


def parse_standings(data: bytes) -> Previous | str:
    """A standings file's places, or why it is not one."""
    value = parse_kept(data, MAX_FILE_BYTES, MAX_DEPTH, FORMAT)
    if isinstance(value, str):
        return value
    date, rows = value.get("date"), value.get("places")
    if not isinstance(date, str) or len(date) > MAX_DATE_CHARS:
        return "no date"
    if not isinstance(rows, list) or len(rows) > MAX_ENTRIES:
        return f"not a list of at most {MAX_ENTRIES:,} places"
    places: dict[str, int] = {}
    for row in rows:
        if not (isinstance(row, list) and len(row) == 2 and isinstance(row[0], str)
                and 0 < len(row[0]) <= MAX_NAME_CHARS and type(row[1]) is int and 1 <= row[1] <= MAX_ENTRIES):
            return "a place is not a name and a number"
        if row[0] in places:
            return "a name is there twice"
        places[row[0]] = row[1]
    return Previous(places, date)
