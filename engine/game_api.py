"""The public API for writing a King-of-the-Hill game: the one module an author imports.

A game is one Python module (docs/games.md has the tutorial and the reference). It names
the game and its settings with a few constants and defines a ``Game`` class; the engine
reads it, checks it against this API (``engine.authored.game_module``), runs it sandboxed like a bot
(``engine.authored.game_host`` in a process or Worker of its own, reached through
``engine.play.game_proxy``) and plays bots on it like any built-in game::

    from engine.game_api import Field, InvalidAnswer, Preset

    NAME = "duel"                      # lower-case letters, digits, _ and -
    TITLE = "Duel"
    PLAYERS = (2, 2)                   # seats a game: (fewest, most)
    SETTINGS = {"rounds": 20, "time_limit_ms": 100}   # whole numbers >= 1
    FIELDS = [Field("rounds", "Rounds", 1, 1000)]     # the settings a user may edit

    class Game:
        def __init__(self, settings, rng): ...        # settings.rounds, settings.players
        def acting_seats(self): ...                   # the seats that act now
        def observation(self, seat, since): ...       # what that seat is told (JSON)
        def parse_answer(self, text, seat): ...       # the seat's answer line -> an action
        def default_action(self, seat): ...          # played for a seat that faulted
        def apply_actions(self, actions): ...         # {seat: action} -> the turn's changes
        def over(self): ...                           # None, or why the game ended
        def scores(self): ...                         # a number per seat, higher is better
        def draw(self): ...                           # a picture (below) of the position

Only what is defined here is the API; anything else under ``engine`` may change.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["COLOURS", "Field", "InvalidAnswer", "Preset"]

# The seats' colours in pictures (a seat number as a colour means the seat's colour here).
COLOURS = ("#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#42d4f4", "#f032e6", "#9a6324")


class InvalidAnswer(Exception):
    """Raise it in ``parse_answer`` for an answer that cannot be read, or in ``apply_actions``
    (when a single seat acts) for a move the rules forbid: the answer is an ``invalid``
    fault of that bot, ``reason`` its message, and ``default_action`` is played instead.

    ``answer`` (optional) is what the message quotes; by default the bot's answer text.
    """

    def __init__(self, reason: str, answer: object = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.answer = answer


@dataclass(frozen=True)
class Field:
    """A setting a user may edit (a field in the page's form, a flag of the command line:
    ``rounds`` is ``--rounds``, ``time_limit_ms`` is ``--time-limit``): whole numbers from
    ``minimum`` to ``maximum``."""

    key: str
    label: str
    minimum: int
    maximum: int
    help: str = ""


@dataclass(frozen=True)
class Preset:
    """Named settings (the keys of ``SETTINGS`` it changes); ``bots`` the (fewest, most) bots
    it seats, or None for ``PLAYERS``."""

    name: str
    label: str
    settings: dict = field(default_factory=dict)
    bots: tuple[int, int] | None = None
