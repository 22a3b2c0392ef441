"""Typed errors for bot answers: bad syntax is told apart from an illegal move.

Both are ``ValueError`` so callers that only care that an answer was rejected can catch
one type (python-chess does the same with ``InvalidMoveError`` and ``IllegalMoveError``).
The session records either as an ``invalid`` fault whose message carries the reason; the
game's ``invalid_is_fault`` says whether it counts toward freezing the bot.
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


def _show(answer: object) -> str:
    text = repr(answer)
    return text if len(text) <= 80 else text[:77] + "..."
