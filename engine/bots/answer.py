"""What a bot gave back for one request, whatever carried it, and the caps on its text.

Kept below the runners, the reply checker and the native bot kinds so all of them (and the
page's controller) share one shape without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)  # one a move: no instance dict (half the cost of making one)
class BotAnswer:
    answer: str | None = None
    error: str | None = None
    line: int | None = None
    stdout: str = ""
    stderr: str = ""
    over_budget: bool = False  # the error is the step budget's: a time-out, not a crash

    def to_json(self) -> dict:
        reply = {"answer": self.answer, "error": self.error, "line": self.line,
                 "stdout": self.stdout, "stderr": self.stderr}
        if self.over_budget:
            reply["over_budget"] = True
        return reply


def cut_marker(count: int) -> str:
    """The line that stands for ``count`` characters (or bytes) that were dropped."""
    return f"\n[... {count} characters cut ...]\n"


def cap_text(text: str, limit: int) -> str:
    """``text`` if it fits in ``limit`` characters, else its head and tail and what was cut.

    The tail is kept because a bot's last words (its answer, the end of a traceback) are
    often what matters.
    """
    if len(text) <= limit:
        return text
    tail = limit // 10
    head = limit - tail
    return text[:head] + cut_marker(len(text) - head - tail) + (text[-tail:] if tail else "")


GAME_OUTPUT_CHARS = 500_000  # of one bot's stdout and stderr together, per game


class OutputBudget:
    """How much of one bot's printed output the controller keeps in one game.

    Each move is capped where it is captured; this caps the game, so a bot that prints
    the most it may at every move of a 2,000-move game cannot fill the log with 80 MB.
    """

    def __init__(self, limit: int = GAME_OUTPUT_CHARS) -> None:
        self.limit = limit
        self.left = limit
        self.cut = 0

    def apply(self, answer: BotAnswer) -> BotAnswer:
        if answer.stdout or answer.stderr:  # most turns print nothing
            answer.stdout = self.keep(answer.stdout)
            answer.stderr = self.keep(answer.stderr)
        return answer

    def keep(self, text: str) -> str:
        """What of ``text`` fits in what is left of the budget."""
        if len(text) <= self.left:
            self.left -= len(text)
            return text
        kept = text[:self.left]
        self.cut += len(text) - len(kept)
        self.left = 0
        return kept

    def note(self) -> str:
        """The line that says what was dropped this game ("" if nothing)."""
        if not self.cut:
            return ""
        return f"\n[... {self.cut} characters of output cut: over {self.limit:,} this game ...]\n"


@dataclass(slots=True)
class TurnReply:
    """What a controller sends back for a ``turn`` call."""

    result: BotAnswer
    elapsed_ms: float
    no_answer: bool = False  # nothing before the hard limit: the bot was stopped
    # The bot's move was limited by its step budget: the time limit is only the hard one's
    # backstop, so a slow machine cannot turn a move into a time-out.
    steps_counted: bool = False
