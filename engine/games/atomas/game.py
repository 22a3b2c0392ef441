"""Atomas on the public game API (``engine.game_api``): its settings and preset, the text
protocol (one ``ATOM/ITEMS`` line, answers ``GAP``, ``INDEX`` or ``INDEX y|n``), the function
bots' typed view and the ``Game`` the engine plays in-process (``engine.authored.in_process``).
The rules are ``rules.AtomasState``, called directly: ``Game`` only gives them the API's names.
A game is one bot's alone (``PLAYERS = 1``): each bot plays its own copy of each seed, side by
side, and the settings have no ``players`` (``PLAYERS_SETTING = False``). The page draws Atomas
by hand (``web/src/games/atomas.js``), so its records hold no pictures; ``draw()`` is there for
the rest. The rule book for bot authors is docs/rules/atomas.md.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

from engine.core.errors import IllegalMoveError
from engine.core.marks import print_mark
from engine.game_api import Field, InvalidAnswer, Preset
from engine.games.atomas.rules import BLACK, CLONE, MINUS, PLUS, Action, Atom, AtomasState, Item

NAME = "atomas"
TITLE = "Atomas"
SUMMARY = "Fuse atoms on a ring: one player, every bot plays its own copy of each seed."
PLAYERS = 1
PLAYERS_SETTING = False  # one seat, always: the records' settings are max_moves and time_limit_ms
# The rule book has no time limit; a posted answer is run as a process per move and Python's
# start-up alone takes 80-120 ms, so 1 s (docs/rule-choices.md).
SETTINGS = {"max_moves": 2000, "time_limit_ms": 1000}
FIELDS = [Field("time_limit_ms", "Time limit (ms)", 1, 60_000, "per move"),
          Field("max_moves", "Max moves", 1, 100_000, "moves before the game ends")]
PRESETS = [Preset("standard", "standard (2,000 moves, 1 s a move)")]
SCORING = "mean_score"
SCRIPT_MODE = "per_move"
FAULT_LIMIT = AtomasState.fault_limit
INVALID_IS_FAULT = AtomasState.invalid_is_fault  # bad answers count toward the fault limit
RENDERER = "atomas"
MENU_ORDER = 2
MIN_SCORE = 0


class Game(AtomasState):
    """The rules under the API's names; the state's own methods serve where the names agree
    (``acting_seats``, ``default_action``, ``freeze``)."""

    def __init__(self, settings: Any, rng: Any) -> None:
        # each move's atom has a stream of its own, seeded from the game's key (rng.key)
        super().__init__(settings, 0, key=rng.key)

    def start_message(self, seat: int) -> dict:
        return {}

    def observation(self, seat: int, since: list) -> dict:
        return {"atom": self.atom, "board": list(self.items)}

    def parse_answer(self, text: str, seat: int) -> Action:
        """An answer for the atom in play; range checks are the rules' (``apply_actions``)."""
        parts = text.split()
        atom = self.atom
        if atom == MINUS:
            if len(parts) != 2 or parts[1] not in ("y", "n"):
                raise InvalidAnswer("a '-' answer is 'INDEX y' or 'INDEX n'")
            return (_integer(parts[0]), parts[1] == "y")
        if len(parts) != 1:
            raise InvalidAnswer(f"expected {'an item index' if atom == CLONE else 'one gap number'}")
        return _integer(parts[0])

    def apply_actions(self, actions: dict[int, Action]) -> Atom:
        """Play the one seat's action; the turn's "changes" are the atom it played (its record's)."""
        atom = self.atom
        try:
            self.apply_action(actions[0])
        except IllegalMoveError as exc:
            raise InvalidAnswer(exc.reason, exc.answer) from None
        return atom

    def mark_cells(self, seat: int, where: tuple[int, ...]) -> tuple[int] | None:
        """A bot's mark names a ring position: an index of the ring it was shown (engine.core.marks)."""
        if len(where) == 1 and 0 <= where[0] < len(self.items):
            return (where[0],)
        return None

    def __deepcopy__(self, memo: dict) -> Game:
        return self.copy()  # the replay checker's trial copy: the rules' own, cheap copy

    def over(self) -> str | None:
        return self.outcome.termination if self.outcome is not None else None

    def scores(self) -> tuple[int]:
        return (self.score,)

    def record_start(self) -> dict:
        return {"board": list(self.items), "score": self.score}

    def record_turn(self, actions: dict[int, Action], atom: Atom) -> dict:
        return {"atom": atom, "board": list(self.items), "score": self.score}

    def replay_check(self, turn: dict, atom: Atom) -> str | None:
        """None if the state after a replayed turn matches the record, else the difference."""
        if turn["board"] != self.items or turn["score"] != self.score:
            return f"expected {turn['board']} score {turn['score']}, got {self.items} score {self.score}"
        return None

    def draw(self) -> dict:
        """The ring as circles around the atom in play (the page has its own renderer)."""
        shapes: list[dict] = [{"shape": "circle", "x": 5, "y": 5, "r": 0.6, "color": "#888", "fill": True}]
        texts = [{"x": 5, "y": 5, "text": str(self.atom)}]
        count = len(self.items)
        for index, item in enumerate(self.items):
            angle = 2 * math.pi * index / max(count, 1) - math.pi / 2
            x, y = round(5 + 3.8 * math.cos(angle), 3), round(5 + 3.8 * math.sin(angle), 3)
            shapes.append({"shape": "circle", "x": x, "y": y, "r": 0.55,
                           "color": "#e6194b" if item == PLUS else "#4363d8", "fill": True})
            texts.append({"x": x, "y": y, "text": str(item)})
        return {"width": 10, "height": 10, "shapes": shapes, "texts": texts,
                "caption": f"move {self.moves + 1}, score {self.score}"}


def _integer(token: str) -> int:
    try:
        return int(token)
    except ValueError:
        raise InvalidAnswer("not an integer") from None


def lines(message: dict) -> list[str]:
    """One ``ATOM/ITEMS`` line; the start message says nothing."""
    if "atom" not in message:
        return []
    return [f"{message['atom']}/{' '.join(str(x) for x in message['board'])}"]


class AtomasView(NamedTuple):
    """What ``move(view)`` gets: the atom to play and the ring (a tuple, read-only)."""

    atom: Atom
    board: tuple[Item, ...]

    def mark(self, position: int, colour: str, text: str = "") -> None:
        """Mark the ring's item at ``position`` (an index of ``board``) for your author."""
        print_mark((position,), colour, text)


def parse_item(token: str) -> Atom:
    return int(token) if token.isdigit() else token


def parse_line(line: str) -> AtomasView:
    """Read an ``ATOM/ITEMS`` line (what a script bot's ``input()`` returns)."""
    atom, _, items = line.strip().partition("/")
    return AtomasView(parse_item(atom), tuple(parse_item(t) for t in items.split()))


_new_tuple = tuple.__new__


class FunctionClient:
    """Turns messages into views for a function bot ``move(view)``."""

    def start(self, message: dict) -> None:
        pass

    def view(self, message: dict) -> AtomasView:
        # AtomasView(atom, board) without the named tuple's Python __new__: a view a move
        return _new_tuple(AtomasView, (message["atom"], tuple(message["board"])))


__all__ = ["BLACK", "CLONE", "MINUS", "PLUS", "AtomasView", "FunctionClient", "Game", "lines", "parse_line"]
