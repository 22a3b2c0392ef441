"""A trusted game on the public API, played in this process: no host, no JSON per turn.

A built-in game is a module written against ``engine.game_api`` like an author's (one module,
or a folder ``engine/games/<name>/`` with ``game.py``), read by the same ``GameModule`` into the
same description and the same ``GameSpec`` (``authored_spec.spec_from_info``). Only the way it
is played differs: an author's game is a stranger's code and runs behind the sandboxed host
(``engine.authored.game_host``, reached through ``engine.play.game_proxy``); a trusted game's
``Game`` object is called directly by ``ApiState`` and ``ApiWire``, the state and the wire the
session plays, so a turn costs the rules' own calls and nothing more.

The two paths play a module alike: the same seeded ``rng``, the same refusals (``InvalidAnswer``
or an answer that could not be read is an invalid answer, and the default action is played),
the same records (a picture only when it changed), but for the faults' wording of an answer
that could not be read, which names the line only in a hosted game. A game with a hand-drawn
renderer (``RENDERER``) records no pictures in this process: its records are its own.

A built-in game's ``Game`` may be the engine's state already (its rules class, with
``outcome``, ``is_terminal``, ``copy``, ``fault_limit`` and ``invalid_is_fault``, keeping its
outcome as ``over()`` and ``scores()`` say it): then the session plays it as it is and the
wire's calls are its own methods (``DirectWire``), the thinnest path, so the runner keeps the
speed of the engine's own wire modules.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import json
from types import ModuleType
from typing import Any

from engine.authored.authored_spec import BotSideWire, check_info, spec_from_info
from engine.authored.game_module import GENERIC_RENDERER, GameModule
from engine.core.answer_text import answer_text as default_answer_text
from engine.core.errors import AnswerError, GameLimitError
from engine.core.outcome import Outcome, unique_winner
from engine.core.randomness import GameRandom, draw_key
from engine.core.replay_limits import MAX_GAME_TURNS
from engine.core.spec import GameSpec
from engine.game_api import InvalidAnswer

READ_ERRORS = (ValueError, IndexError, KeyError, TypeError)  # reading an answer failed: invalid


class Refused(AnswerError):
    """The game refused an answer; the message is the game's (as the hosted game words it)."""

    def __init__(self, reason: str, answer: object) -> None:
        shown = repr(answer)
        ValueError.__init__(self, f"{reason}: {shown if len(shown) <= 80 else shown[:77] + '...'}")
        self.answer, self.reason = answer, reason


class ApiState:
    """The session's state of a trusted game: its ``Game`` object, asked directly."""

    def __init__(self, loaded: TrustedGame, settings: Any, seed: int, players: int,
                 secret: str | None) -> None:
        info = loaded.info
        self.loaded = loaded
        self.settings = settings
        self.seed = seed
        self.num_players = players
        self.fault_limit = info["fault_limit"]
        self.invalid_is_fault = info["invalid_is_fault"]
        # MAX_TURNS when the module sets one; else its rules end it (the hosted game's cap of
        # MAX_GAME_TURNS bounds what a stranger's game records)
        self.max_turns = info["max_turns"] if info["max_turns"] < MAX_GAME_TURNS else None
        self.turns = 0
        self.frozen: set[int] = set()
        self.outcome: Outcome | None = None
        self.picture_text: str | None = None
        given = settings if getattr(settings, "players", players) == players \
            else dataclasses.replace(settings, players=players)
        rng = GameRandom(draw_key(info["name"], seed, secret))
        self.game = loaded.module.game_class(given, rng)
        self._status()

    def __getattr__(self, name: str) -> Any:
        """The game's own attributes (a built-in's board, for tests and tools that read it)."""
        if name.startswith("_") or name == "game":  # copy's probes, before ``game`` is set
            raise AttributeError(name)
        return getattr(self.game, name)

    def _status(self) -> None:
        game = self.game
        over = game.over()
        if over is not None:
            scores = tuple(game.scores())
            self.acting: tuple[int, ...] = ()
            self.outcome = Outcome(over, scores, unique_winner(scores))
        else:
            self.acting = tuple(game.acting_seats())

    def acting_seats(self) -> tuple[int, ...]:
        return self.acting

    def is_terminal(self) -> bool:
        return self.outcome is not None

    def default_action(self, seat: int = 0) -> Any:
        return self.game.default_action(seat)

    def apply_actions(self, actions: dict[int, Any]) -> Any:
        try:
            changes = self.game.apply_actions(actions)
        except InvalidAnswer as exc:  # one seat's move refused: nothing changed
            (action,) = actions.values()
            raise Refused(exc.reason, exc.answer if exc.answer is not None else action) from None
        self._status()
        self.turns += 1
        if self.max_turns is not None and self.outcome is None and self.turns >= self.max_turns:
            raise GameLimitError(f"the game did not end within {self.max_turns:,} turns")
        return changes

    def freeze(self, seat: int) -> None:
        self.frozen.add(seat)
        method = getattr(self.game, "freeze", None)
        if self.outcome is None and method is not None:
            method(seat)
            self._status()

    def copy(self) -> ApiState:
        """For the replay checker: a copy on which one seat's answer is tried."""
        trial = copy.copy(self)
        trial.game, trial.frozen = copy.deepcopy(self.game), set(self.frozen)
        return trial

    def returns(self) -> tuple:
        return self.outcome.scores if self.outcome is not None else ()


class ApiWire(BotSideWire):
    """The wire the session uses for a trusted game: each call is the game's own method."""

    def __init__(self, module: GameModule, pictures: bool) -> None:
        super().__init__(module)
        self.pictures = pictures

    def start_message(self, state: ApiState, seat: int) -> Any:
        method = getattr(state.game, "start_message", None)
        return method(seat) if method is not None else {"seat": seat, "players": state.num_players}

    def observation(self, state: ApiState, seat: int, changes: list) -> Any:
        return state.game.observation(seat, changes)

    def parse_answer(self, text: str, state: ApiState, seat: int = 0) -> Any:
        try:
            return state.game.parse_answer(text, seat)
        except InvalidAnswer as exc:
            raise Refused(exc.reason, exc.answer if exc.answer is not None else text) from None
        except READ_ERRORS as exc:
            raise Refused(f"the answer could not be read: {type(exc).__name__}: {exc}", text) from None

    def mark_cells(self, state: ApiState, seat: int, where: tuple[int, ...]) -> Any:
        """The cell a seat's mark names (``Game.mark_cells``); None without that method."""
        method = getattr(state.game, "mark_cells", None)
        return method(seat, where) if method is not None else None

    def record_start(self, state: ApiState) -> dict:
        method = getattr(state.game, "record_start", None)
        start = dict(method()) if method is not None else {}
        if self.pictures:
            start["picture"] = self._picture(state)
        return start

    def record_turn(self, state: ApiState, messages: dict, actions: dict, changes: Any) -> dict:
        method = getattr(state.game, "record_turn", None)
        record = method(actions, changes) if method is not None else {"changes": changes}
        if self.pictures:
            picture = state.game.draw()
            text = json.dumps(picture)
            if text != state.picture_text:  # a picture is recorded only when it changed
                record = {**record, "picture": picture}
                state.picture_text = text
        return record

    def replay_check(self, turn: dict, state: ApiState, changes: Any) -> str | None:
        method = getattr(state.game, "replay_check", None)
        return method(turn, changes) if method is not None else None

    @staticmethod
    def _picture(state: ApiState) -> dict:
        picture = state.game.draw()
        state.picture_text = json.dumps(picture)
        return picture


STATE_METHODS = ("acting_seats", "apply_actions", "is_terminal", "default_action", "freeze", "copy")


def plays_as_state(game_class: type) -> bool:
    """Whether a trusted ``Game`` is an engine state itself (a built-in's rules class)."""
    return all(callable(getattr(game_class, m, None)) for m in STATE_METHODS) \
        and all(hasattr(game_class, a) for a in ("fault_limit", "invalid_is_fault"))


def refusing(game_class: type) -> type:
    """``game_class`` whose ``apply_actions`` refuses a move as the session expects (an
    ``AnswerError``, where the API raises ``InvalidAnswer``)."""
    apply = game_class.apply_actions

    def apply_actions(self: Any, actions: dict[int, Any]) -> Any:
        try:
            return apply(self, actions)
        except InvalidAnswer as exc:
            (action,) = actions.values()
            raise Refused(exc.reason, exc.answer if exc.answer is not None else action) from None

    return type(game_class.__name__, (game_class,), {"apply_actions": apply_actions, "__module__":
                                                       game_class.__module__})


class DirectWire:
    """The wire of a game that is its own state: each call is the ``Game``'s method, unwrapped
    where the signatures agree (``observation``, ``start_message``)."""

    def __init__(self, module: GameModule) -> None:
        game = module.game_class
        self.module = module
        self.observation = game.observation
        self.start_message = getattr(game, "start_message", None) or \
            (lambda state, seat: {"seat": seat, "players": state.num_players})
        parse = game.parse_answer

        def parse_answer(text: str, state: Any, seat: int = 0) -> Any:
            try:
                return parse(state, text, seat)
            except InvalidAnswer as exc:
                raise Refused(exc.reason, exc.answer if exc.answer is not None else text) from None
            except READ_ERRORS as exc:
                raise Refused(f"the answer could not be read: {type(exc).__name__}: {exc}", text) from None

        self.parse_answer = parse_answer
        record = getattr(game, "record_turn", None)
        self.record_turn = (lambda state, messages, actions, changes: record(state, actions, changes)) \
            if record is not None else (lambda state, messages, actions, changes: {"changes": changes})
        start = getattr(game, "record_start", None)
        self.record_start = (lambda state: dict(start(state))) if start is not None else (lambda state: {})
        check = getattr(game, "replay_check", None)
        self.replay_check = (lambda turn, state, changes: check(state, turn, changes)) \
            if check is not None else (lambda turn, state, changes: None)
        self.message_lines = module._lines or module.lines  # trusted: its own lines, unchecked
        self.message_argv = module._argv or (lambda message: [])
        self.answer_text = module._answer_text or default_answer_text  # trusted: its own, unwrapped
        self.FunctionClient = module.function_client  # noqa: N815 - the wire modules' name for it
        mark = getattr(game, "mark_cells", None)  # optional: where a bot's mark points
        if mark is not None:
            self.mark_cells = lambda state, seat, where: mark(state, seat, where)
        # For the session's quiet turns (``GameSession.play_quiet``): the game's own parse,
        # apply and record, unwrapped (no frame and no ``messages`` a move), and what they
        # raise where the wrapped ones refuse. On any of those the session leaves the turn to
        # the wrapped calls, which read it again (nothing was changed) and word the fault.
        self.unwrapped = (parse, game.apply_actions,
                          record if record is not None else (lambda state, actions, changes:
                                                             {"changes": changes}),
                          (InvalidAnswer, *READ_ERRORS), (InvalidAnswer,))


class TrustedGame:
    """A game-API module of this engine's own, loaded in-process: its description and spec."""

    def __init__(self, module: ModuleType, **spec_fields: Any) -> None:
        """``spec_fields``: what a built-in game's spec says besides the module's constants
        (``rules_doc``, ``examples_package``, ``menu_order``, ``min_score``)."""
        self.module = GameModule.trusted(module)
        self.info = check_info(self.module.info)
        pictures = self.info["renderer"] == GENERIC_RENDERER
        # a game that is its own state, recording no pictures: played as it is
        self.direct = refusing(self.module.game_class) \
            if not pictures and plays_as_state(self.module.game_class) else None
        wire = DirectWire(self.module) if self.direct is not None else ApiWire(self.module, pictures)
        spec = spec_from_info(self.info, None, wire, self.new_game)
        self.spec: GameSpec = dataclasses.replace(spec, **spec_fields) if spec_fields else spec

    def new_game(self, settings: Any, seed: int, players: int | None = None,
                 secret: str | None = None) -> ApiState:
        fixed = self.info["players"][0] if not self.info["players_setting"] else None
        players = players if players is not None else fixed or settings.players
        if fixed is None and not self.spec.side_by_side and players != settings.players:
            settings = dataclasses.replace(settings, players=players)
        if self.direct is not None:
            return self.direct(settings, GameRandom(draw_key(self.info["name"], seed, secret)))
        return ApiState(self, settings, seed, players, secret)


def load_trusted(name: str, **spec_fields: Any) -> GameSpec:
    """The spec of the trusted game-API module ``name`` (``engine.games.flit.game``, or any
    importable module on the API), played in this process."""
    return TrustedGame(importlib.import_module(name), **spec_fields).spec


__all__ = ["ApiState", "ApiWire", "DirectWire", "TrustedGame", "load_trusted"]
