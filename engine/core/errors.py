"""Typed errors: a bot's answer rejected (bad syntax told apart from an illegal move), and an
author's game that failed.

The answer errors are both ``ValueError`` so callers that only care that an answer was
rejected can catch one type (python-chess does the same with ``InvalidMoveError`` and
``IllegalMoveError``). The session records either as an ``invalid`` fault whose message
carries the reason; the game's ``invalid_is_fault`` says whether it counts toward freezing
the bot.

A ``GameCodeError`` ends the game it happened in (not the bots' fault): ``match`` shows it
as one line, a tournament records it for that game and plays the others.
"""

from __future__ import annotations


class AnswerError(ValueError):
    """A bot's answer was rejected; ``answer`` is the text the bot sent."""

    def __init__(self, answer: object, reason: str) -> None:
        self.answer = answer
        self.reason = reason
        super().__init__(f"{reason}: {_show(answer)}")


class InvalidAnswerError(AnswerError):
    """The answer does not parse in the game's text protocol."""


class IllegalMoveError(AnswerError):
    """The answer parses but is not a legal move in the current state."""


class GameOverError(RuntimeError):
    """An action was applied to a game that has already ended."""


class GameCodeError(Exception):
    """The author's game failed; ``message`` is one line for the author (method, line)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.message, self.line = message, line


class GameLimitError(GameCodeError):
    """The author's game went over one of its limits (turns, what it records, its scores):
    ``engine.core.replay_limits``."""


def _show(answer: object) -> str:
    text = repr(answer)
    return text if len(text) <= 80 else text[:77] + "..."
