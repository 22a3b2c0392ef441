"""Reading an author's game module (``engine.game_api``): its description, checked, and its code.

``GameModule(source)`` compiles and runs the module, reads its constants into a plain
JSON description (``info``) and checks every one of them; a mistake is a ``GameModuleError``
naming what is wrong, the method that raised and the line in the author's file. It runs
wherever the game's code may run: in the game's sandboxed process (``engine.authored.game_host``) and
in a bot's process (which needs the game's ``FunctionClient``, ``lines`` and
``answer_text``), never in the controller.
"""

from __future__ import annotations

import json
import keyword
import re
import traceback
from collections import deque
from types import CodeType, ModuleType
from typing import Any

from engine.core.answer_text import answer_text as default_answer_text
from engine.core.replay_limits import MAX_GAME_TURNS
from engine.core.spec import SCORINGS, SCRIPT_MODES

GAME_FILENAME = "<game>"
MAX_SOURCE_CHARS = 1 << 20
MAX_SETTING = 10**9
REQUIRED_METHODS = ("acting_seats", "observation", "parse_answer", "default_action", "apply_actions",
                    "over", "scores", "draw")
OPTIONAL_METHODS = ("start_message", "freeze", "record_start", "record_turn", "replay_check", "mark_cells")
DEFAULT_TIME_LIMIT_MS = 1_000
ALONE_MAX_BOTS = 8  # a one-seat game plays each bot on its own copy: up to this many bots
MAX_ARGS = 16  # command-line arguments a message may add (``argv``)
MAX_ARGV_CHARS = 32_000  # all of them: within Linux's 128 KiB for one argument at 4 bytes a character
GENERIC_RENDERER = "generic"  # the page's renderer of draw()'s pictures
RENDERER_NAME = re.compile(r"[a-z][a-z0-9_]{0,31}")  # the names web/src/renderers.js loads


class GameModuleError(Exception):
    """The game module does not follow the API, or its code raised; one line for the author."""

    def __init__(self, message: str, line: int | None = None, method: str | None = None) -> None:
        super().__init__(message)
        self.message, self.line, self.method = message, line, method

    def to_json(self) -> dict:
        return {"error": self.message, "line": self.line, "method": self.method}


def code_line(exc: BaseException) -> int | None:
    """The line of the author's file where ``exc`` was raised (its innermost frame there)."""
    frames = deque(traceback.walk_tb(exc.__traceback__), maxlen=50)
    lines = [line for frame, line in frames if frame.f_code.co_filename == GAME_FILENAME]
    return lines[-1] if lines else None


def raised(method: str, exc: BaseException) -> GameModuleError:
    """The error of a game method that raised, with its line."""
    line = code_line(exc)
    head = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    where = f" (line {line})" if line else ""
    return GameModuleError(f"{method} raised {head}{where}", line, method)


def as_json(value: Any, what: str, method: str) -> Any:
    """``value`` after a JSON round trip check (what the game sends must travel as JSON)."""
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise GameModuleError(f"{method} returned {what} that is not JSON: {exc}", None, method) from None
    return value


class GameModule:
    """An author's module, run once to read it; ``new_module()`` runs it afresh for a game."""

    def __init__(self, source: str) -> None:
        if not isinstance(source, str) or not source.strip():
            raise GameModuleError("the game module is empty")
        if len(source) > MAX_SOURCE_CHARS:
            raise GameModuleError(f"the game module is over {MAX_SOURCE_CHARS:,} characters")
        try:
            self.code: CodeType | None = compile(source, GAME_FILENAME, "exec")
        except SyntaxError as exc:
            where = f" (line {exc.lineno})" if exc.lineno else ""
            raise GameModuleError(f"SyntaxError: {exc.msg}{where}", exc.lineno, "the module") from None
        except (ValueError, RecursionError, MemoryError) as exc:
            raise GameModuleError(f"the module does not compile: {exc}", None, "the module") from None
        self.source: str | None = source
        self.module = self.new_module()
        self._adopt()

    @classmethod
    def trusted(cls, module: ModuleType) -> GameModule:
        """A module of the engine's own (a built-in game), imported already: read and checked
        the same way; its games share its globals."""
        self = cls.__new__(cls)
        self.code, self.source, self.module = None, None, module
        self._adopt()
        return self

    def _adopt(self) -> None:
        self.info = self._read_info()
        self.game_class = self.module.Game
        self.client_class = getattr(self.module, "FunctionClient", None)
        self.view_class = getattr(self.module, "VIEW", None)
        self._lines = getattr(self.module, "lines", None)
        self._argv = getattr(self.module, "argv", None)
        self._answer_text = getattr(self.module, "answer_text", None)

    def new_module(self) -> ModuleType:
        """The module's code run in a fresh namespace (a game's globals are its own)."""
        if self.code is None:
            return self.module
        module = ModuleType("game")
        module.__dict__["__file__"] = GAME_FILENAME
        try:
            exec(self.code, module.__dict__)
        except Exception as exc:  # noqa: BLE001 - the author's module may raise anything
            raise raised("the module", exc) from None
        return module

    # -- the description ------------------------------------------------------------------
    def _read_info(self) -> dict:
        module = self.module
        values = vars(module)
        missing = [n for n in ("NAME", "TITLE", "PLAYERS", "Game") if n not in values]
        if missing:
            raise GameModuleError(f"the game module has no {missing[0]} (every game defines NAME, TITLE, "
                                  "PLAYERS and class Game; see docs/games.md)", None, missing[0])
        name = values["NAME"]
        if not isinstance(name, str) or not name.replace("_", "a").replace("-", "a").isalnum() \
                or not name.isascii() or not name[:1].isalpha() or name != name.lower() or len(name) > 32:
            raise GameModuleError(f"NAME is 1-32 lower-case letters, digits, _ or - starting with a "
                                  f"letter, got {name!r}", None, "NAME")
        title = _text(values["TITLE"], "TITLE", 60)
        summary = _text(values.get("SUMMARY", ""), "SUMMARY", 300, empty=True)
        game = values["Game"]
        if not isinstance(game, type):
            raise GameModuleError("Game is a class", None, "Game")
        for method in REQUIRED_METHODS:
            if not callable(getattr(game, method, None)):
                raise GameModuleError(f"class Game has no method {method}() (see docs/games.md, "
                                      f"'The Game class')", None, method)
        players = values["PLAYERS"]
        if isinstance(players, int) and not isinstance(players, bool):
            players = (players, players)
        if not (isinstance(players, (tuple, list)) and len(players) == 2
                and all(type(p) is int for p in players) and 1 <= players[0] <= players[1] <= 8):
            raise GameModuleError(f"PLAYERS is (fewest, most) seats, 1 to 8, got {players!r}", None,
                                  "PLAYERS")
        alone = list(players) == [1, 1]
        settings = values.get("SETTINGS", {})
        if not isinstance(settings, dict):
            raise GameModuleError("SETTINGS is a dict of setting: default value", None, "SETTINGS")
        settings = dict(settings)
        players_setting = values.get("PLAYERS_SETTING", True)
        if not isinstance(players_setting, bool):
            raise GameModuleError("PLAYERS_SETTING is True or False", None, "PLAYERS_SETTING")
        if players_setting:
            settings.setdefault("players", players[0])
        elif players[0] != players[1] or "players" in settings:
            raise GameModuleError("PLAYERS_SETTING = False is for a game of a fixed number of seats (PLAYERS "
                                  "one number) whose SETTINGS have no players", None, "PLAYERS_SETTING")
        settings.setdefault("time_limit_ms", DEFAULT_TIME_LIMIT_MS)
        for key, value in settings.items():
            _setting(key, value, "SETTINGS")
        fields = [_field(f, settings) for f in values.get("FIELDS", [])]
        if "time_limit_ms" not in {f["key"] for f in fields}:
            fields.insert(0, {"key": "time_limit_ms", "label": "Time limit (ms)", "min": 1,
                              "max": 60_000, "help": "per turn"})
        presets = [_preset(p, settings, players) for p in values.get("PRESETS", [])] or [
            {"name": "default", "label": "default", "settings": {}, "bots": _bots(players)}]
        if len({p["name"] for p in presets}) != len(presets):
            raise GameModuleError("two PRESETS have the same name", None, "PRESETS")
        scoring = values.get("SCORING", "mean_score" if alone else "wins")
        if scoring not in SCORINGS:
            raise GameModuleError(f"SCORING is one of {', '.join(SCORINGS)}, got {scoring!r}", None,
                                  "SCORING")
        script_mode = values.get("SCRIPT_MODE", "per_turn")
        if script_mode not in SCRIPT_MODES:
            raise GameModuleError(f"SCRIPT_MODE is one of {', '.join(SCRIPT_MODES)}, got {script_mode!r}",
                                  None, "SCRIPT_MODE")
        fault_limit = values.get("FAULT_LIMIT", 5)
        if type(fault_limit) is not int or not 1 <= fault_limit <= 1000:
            raise GameModuleError(f"FAULT_LIMIT is a whole number 1 to 1000, got {fault_limit!r}", None,
                                  "FAULT_LIMIT")
        invalid_is_fault = values.get("INVALID_IS_FAULT", True)
        if not isinstance(invalid_is_fault, bool):
            raise GameModuleError("INVALID_IS_FAULT is True or False", None, "INVALID_IS_FAULT")
        examples = values.get("EXAMPLES", {})
        if not isinstance(examples, dict) or not all(
                isinstance(k, str) and k.isidentifier() and not keyword.iskeyword(k) and not k.startswith("_")
                and isinstance(v, str) and v.strip() for k, v in examples.items()):
            raise GameModuleError("EXAMPLES is a dict of bot name (an identifier): the bot's Python source",
                                  None, "EXAMPLES")
        max_turns = values.get("MAX_TURNS", MAX_GAME_TURNS)
        if type(max_turns) is not int or not 1 <= max_turns <= MAX_GAME_TURNS:
            raise GameModuleError(f"MAX_TURNS is a whole number 1 to {MAX_GAME_TURNS:,}, got "
                                  f"{_show(max_turns)}", None, "MAX_TURNS")
        for hook in ("lines", "argv", "answer_text"):
            if hook in values and not callable(values[hook]):
                raise GameModuleError(f"{hook} is a function", None, hook)
        view = values.get("VIEW")
        if view is not None and not isinstance(view, type):
            raise GameModuleError(f"VIEW is a class (a function bot's view of a message), got {_show(view)}",
                                  None, "VIEW")
        if view is not None and "FunctionClient" in values:
            raise GameModuleError("give VIEW or FunctionClient, not both (a FunctionClient builds the view "
                                  "itself)", None, "VIEW")
        renderer = values.get("RENDERER", GENERIC_RENDERER)
        if not isinstance(renderer, str) or not RENDERER_NAME.fullmatch(renderer):
            raise GameModuleError(f"RENDERER is the name of a page renderer (web/src/games/NAME.js): 1-32 "
                                  f"lower-case letters, digits or _ from a letter, got {_show(renderer)}",
                                  None, "RENDERER")
        return {
            "name": name, "title": title, "summary": summary,
            "rules": (module.__doc__ or "").strip()[:20_000],
            "players": list(players), "alone": alone, "players_setting": players_setting,
            "settings": settings, "fields": fields, "presets": presets,
            "default_preset": presets[0]["name"], "scoring": scoring, "script_mode": script_mode,
            "fault_limit": fault_limit, "invalid_is_fault": invalid_is_fault, "max_turns": max_turns,
            "examples": dict(sorted(examples.items())),
            "argv": "argv" in values, "renderer": renderer,
            "replay_check": callable(getattr(game, "replay_check", None)),
            "marks": callable(getattr(game, "mark_cells", None)),
        }

    # -- the bot side: text lines, a function bot's view, its answer as text ----------------
    def lines(self, message: Any) -> list[str]:
        """The text-protocol lines of a message (default: the message as one JSON line)."""
        if self._lines is None:
            return [json.dumps(message, separators=(",", ":"))]
        try:
            lines = self._lines(message)
        except Exception as exc:  # noqa: BLE001
            raise raised("lines", exc) from None
        if not isinstance(lines, (list, tuple)) or not all(
                isinstance(x, str) and "\n" not in x for x in lines):
            raise GameModuleError(f"lines returned {_show(lines)}, not a list of strings without newlines",
                                  None, "lines")
        return list(lines)

    def argv(self, message: Any) -> list[str]:
        """A message's command-line arguments for a script started afresh each turn (``argv``;
        default none): ``sys.argv == ["bot.py", *argv]``."""
        if self._argv is None:
            return []
        try:
            args = self._argv(message)
        except Exception as exc:  # noqa: BLE001
            raise raised("argv", exc) from None
        if not is_argv(args):
            raise GameModuleError(f"argv returned {_show(args)}, not a list of at most {MAX_ARGS} strings "
                                  f"({MAX_ARGV_CHARS:,} characters in all, without NUL)", None, "argv")
        return list(args)

    def answer_text(self, value: Any) -> str:
        if self._answer_text is None:
            return default_answer_text(value)
        return str(self._answer_text(value))

    def function_client(self) -> Any:
        """A fresh ``FunctionClient`` (default: the bot's view is the message itself, or the
        game's ``VIEW`` class made from it)."""
        return self.client_class() if self.client_class is not None else MessageClient(self.view_class)


def is_argv(args: object) -> bool:
    """Whether ``args`` may be a script's command-line arguments: a few strings a process can
    be given (bounded, no NUL, encodable)."""
    if not isinstance(args, (list, tuple)) or len(args) > MAX_ARGS or not all(
            isinstance(x, str) and "\0" not in x for x in args):
        return False
    if sum(map(len, args)) > MAX_ARGV_CHARS:
        return False
    try:
        [x.encode("utf-8") for x in args]
    except UnicodeEncodeError:  # a lone surrogate
        return False
    return True


class MessageClient:
    """The default function-bot view: the latest message, with ``me`` (the seat) added when the
    start message had a ``seat``; wrapped in the game's ``VIEW`` class when it names one."""

    def __init__(self, view_class: type | None = None) -> None:
        self.view_class = view_class
        self.seat = None

    def start(self, message: Any) -> None:
        self.seat = message.get("seat") if isinstance(message, dict) else None

    def view(self, message: Any) -> Any:
        if isinstance(message, dict) and self.seat is not None and "me" not in message:
            message = {**message, "me": self.seat}
        return message if self.view_class is None else self.view_class(message)


def _text(value: object, name: str, most: int, empty: bool = False) -> str:
    if not isinstance(value, str) or (not value.strip() and not empty) or len(value) > most:
        raise GameModuleError(f"{name} is text of 1 to {most} characters, got {_show(value)}", None, name)
    return value


def _setting(key: object, value: object, where: str) -> None:
    if not isinstance(key, str) or not key.isidentifier() or keyword.iskeyword(key) or key.startswith("_"):
        raise GameModuleError(f"{where}: a setting's name is an identifier, got {key!r}", None, where)
    if type(value) is not int or not 1 <= value <= MAX_SETTING:
        raise GameModuleError(f"{where}: the setting {key} is a whole number 1 to {MAX_SETTING:,}, got "
                              f"{_show(value)}", None, where)


def _field(item: object, settings: dict) -> dict:
    keys = ("key", "label", "minimum", "maximum", "help")
    if not all(hasattr(item, k) for k in keys):
        raise GameModuleError(f"FIELDS holds engine.game_api.Field values, got {_show(item)}", None, "FIELDS")
    key, label, low, high, help_text = (getattr(item, k) for k in keys)
    if key not in settings:
        raise GameModuleError(f"FIELDS: {key!r} is not in SETTINGS", None, "FIELDS")
    if key == "players":
        raise GameModuleError("FIELDS: players is set from the number of bots, not edited", None, "FIELDS")
    if not (type(low) is int and type(high) is int and 1 <= low <= settings[key] <= high <= MAX_SETTING):
        raise GameModuleError(f"FIELDS: {key} needs 1 <= minimum <= its default ({settings[key]}) <= maximum",
                              None, "FIELDS")
    _text(label, f"FIELDS {key} label", 60)
    _text(help_text, f"FIELDS {key} help", 200, empty=True)
    return {"key": key, "label": label, "min": low, "max": high, "help": help_text}


def _preset(item: object, settings: dict, players: tuple | list) -> dict:
    if not all(hasattr(item, k) for k in ("name", "label", "settings", "bots")):
        raise GameModuleError(f"PRESETS holds engine.game_api.Preset values, got {_show(item)}", None,
                              "PRESETS")
    name = _text(item.name, "a preset's name", 40)
    label = _text(item.label, f"preset {name} label", 120)
    if not isinstance(item.settings, dict):
        raise GameModuleError(f"preset {name}: settings is a dict", None, "PRESETS")
    for key, value in item.settings.items():
        if key not in settings:
            raise GameModuleError(f"preset {name}: {key!r} is not in SETTINGS", None, "PRESETS")
        _setting(key, value, f"preset {name}")
    bots = list(item.bots) if item.bots is not None else _bots(players)
    if not (len(bots) == 2 and all(type(b) is int for b in bots) and players[0] <= bots[0] <= bots[1]
            <= (ALONE_MAX_BOTS if list(players) == [1, 1] else players[1])):
        raise GameModuleError(f"preset {name}: bots is (fewest, most) within PLAYERS {tuple(players)}", None,
                              "PRESETS")
    return {"name": name, "label": label, "settings": dict(item.settings), "bots": bots}


def _bots(players: tuple | list) -> list[int]:
    """The bots a game seats by default: its seats, or up to eight side by side when alone."""
    return [1, ALONE_MAX_BOTS] if list(players) == [1, 1] else list(players)


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
