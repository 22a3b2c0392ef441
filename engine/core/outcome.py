"""The end of a game as a value, and the faults the runner records.

Kept apart from the rules so that both games, the runner and the replay share one shape
(python-chess ``Outcome(termination, winner)``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class FaultKind(StrEnum):
    INVALID = "invalid"  # the answer did not parse or was illegal
    ERROR = "error"  # the bot raised, or its code could not load
    TIMEOUT = "timeout"  # later than the time limit, or no answer before the hard limit
    FROZEN = "frozen"  # the bot was frozen and not asked


@dataclass(frozen=True)
class Fault:
    kind: FaultKind
    message: str
    line: int | None = None

    def to_json(self) -> dict:
        data = {"kind": self.kind.value, "message": self.message}
        if self.line is not None:
            data["line"] = self.line
        return data


@dataclass(frozen=True)
class Outcome:
    termination: str
    scores: tuple[int, ...]
    winner: int | None

    def to_json(self) -> dict:
        return {"termination": self.termination, "scores": list(self.scores), "winner": self.winner}


def unique_winner(scores: tuple[int, ...] | list[int]) -> int | None:
    """The index of the single best score, or None on a tie for first."""
    best = max(scores)
    leaders = [i for i, s in enumerate(scores) if s == best]
    return leaders[0] if len(leaders) == 1 else None
