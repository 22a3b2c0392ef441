"""A tournament's match as values: ``Match`` (its place in the plan, seed and table),
``MatchJob`` (everything needed to play it anywhere: a worker process, a Dask worker) and
``MatchResult`` (what the tournament keeps of it). Both the tournament and its result cache
read them, so they live below both.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.bots.entries import Entry


@dataclass(frozen=True)
class Match:
    """One game of the tournament: ``table[seat]`` is the index of the entry in that seat."""

    index: int  # its place in the plan (replay files and the JSON's games follow it)
    seed: int
    table: tuple[int, ...]


@dataclass(frozen=True)
class MatchResult:
    """What the tournament keeps of a match: scores and faults by seat, the winning seat."""

    index: int
    seed: int
    table: tuple[int, ...]
    scores: tuple[int, ...]
    faults: tuple[int, ...]
    winner: int | None  # the seat with the single best score, None on a tie (or alone)
    error: str | None = None  # the author's game failed: no scores, in no standing


@dataclass(frozen=True)
class MatchJob:
    """Everything needed to play a match anywhere, by value (picklable, no open resources)."""

    match: Match
    game: str
    preset: str | None
    overrides: dict  # settings from the flags; the players setting is set from the table
    entries: tuple[Entry, ...]  # by seat
    secret: str
    sandboxed: bool
    memory_mb: int
    replay_path: str | None = None
    budget: int | None = None  # steps a Python bot's move may take (None: time alone)
    game_module: str | None = None  # an author's game (its module's source) travels with its match
