"""An author's game as a ``GameSpec``: from the description its module gave (``info``).

The controller gets ``info`` from the game's sandboxed process, so it trusts none of it:
``check_info`` checks every field's type and bounds again before ``spec_from_info`` builds
the spec the CLI, the series core and the page use like a built-in game's. The settings
become a frozen dataclass (whole numbers, ``to_json``), as the built-in games' are.

``bot_side_spec`` registers the game inside a bot's own process (the bot host), where a
function bot needs the game's ``FunctionClient`` and ``answer_text`` and a script bot its
text ``lines``: there the module runs in-process, in the bot's sandbox.
"""

from __future__ import annotations

import re
from dataclasses import field, make_dataclass
from typing import Any

from engine.core.replay_limits import MAX_GAME_TURNS
from engine.core.spec import SCORINGS, SCRIPT_MODES, GameSpec, Preset, SettingField

MAX_EXAMPLE_CHARS = 256 * 1024
MAX_EXAMPLES = 20
_NAME = re.compile(r"[a-z][a-z0-9_-]{0,31}\Z")
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,39}\Z")
_RENDERER = re.compile(r"[a-z][a-z0-9_]{0,31}\Z")  # web/src/renderers.js loads the same names


class GameInfoError(ValueError):
    """The game's process described the game wrongly (it is not the engine's game host)."""


def check_info(info: object) -> dict:
    """``info`` when every field is as ``engine.authored.game_module`` makes it;
    ``GameInfoError`` otherwise."""
    if not isinstance(info, dict):
        raise GameInfoError("the game's description is not an object")
    _match(info.get("name"), _NAME, "name")
    for key, most in (("title", 60), ("summary", 300), ("rules", 20_000)):
        _text(info.get(key), key, most)
    players = info.get("players")
    if not (isinstance(players, list) and len(players) == 2 and all(_int(p) for p in players)
            and 1 <= players[0] <= players[1] <= 8):
        raise GameInfoError("players is [fewest, most], 1 to 8")
    if info.get("alone") is not (players == [1, 1]):
        raise GameInfoError("alone is true exactly when the game seats one bot")
    with_players = info.get("players_setting")
    if not isinstance(with_players, bool) or not (with_players or players[0] == players[1]):
        raise GameInfoError("players_setting is true or false, false only for a fixed number of seats")
    settings = info.get("settings")
    if not isinstance(settings, dict) or not 1 + with_players <= len(settings) <= 50 or not all(
            isinstance(k, str) and _KEY.match(k) and _int(v) and 1 <= v <= 10**9
            for k, v in settings.items()) \
            or ("players" in settings) is not with_players or "time_limit_ms" not in settings:
        raise GameInfoError("settings are whole numbers by name, with time_limit_ms, and players "
                            "exactly when players_setting is true")
    fields = info.get("fields")
    if not isinstance(fields, list) or len(fields) > 50:
        raise GameInfoError("fields is a list")
    for item in fields:
        if not (isinstance(item, dict) and set(item) == {"key", "label", "min", "max", "help"}
                and item["key"] in settings and item["key"] != "players" and _int(item["min"])
                and _int(item["max"]) and 1 <= item["min"] <= item["max"] <= 10**9):
            raise GameInfoError("a field is {key, label, min, max, help} of a setting")
        _text(item["label"], "a field's label", 60)
        _text(item["help"], "a field's help", 200)
    presets = info.get("presets")
    if not isinstance(presets, list) or not 1 <= len(presets) <= 20:
        raise GameInfoError("presets is a list of 1 to 20")
    for item in presets:
        if not (isinstance(item, dict) and set(item) == {"name", "label", "settings", "bots"}
                and isinstance(item["settings"], dict) and all(
                    k in settings and _int(v) and v >= 1 for k, v in item["settings"].items())
                and isinstance(item["bots"], list) and len(item["bots"]) == 2
                and all(_int(b) and 1 <= b <= 8 for b in item["bots"])
                and item["bots"][0] <= item["bots"][1]):
            raise GameInfoError("a preset is {name, label, settings, bots}")
        _text(item["name"], "a preset's name", 40)
        _text(item["label"], "a preset's label", 120)
    if info.get("default_preset") != presets[0]["name"] or len({p["name"] for p in presets}) != len(presets):
        raise GameInfoError("default_preset is the first preset, and presets have different names")
    if info.get("scoring") not in SCORINGS or info.get("script_mode") not in SCRIPT_MODES:
        raise GameInfoError("scoring or script_mode is not one the engine knows")
    if not (_int(info.get("fault_limit")) and 1 <= info["fault_limit"] <= 1000) \
            or not isinstance(info.get("invalid_is_fault"), bool):
        raise GameInfoError("fault_limit is 1 to 1000 and invalid_is_fault true or false")
    if not (_int(info.get("max_turns")) and 1 <= info["max_turns"] <= MAX_GAME_TURNS):
        raise GameInfoError(f"max_turns is 1 to {MAX_GAME_TURNS}")
    examples = info.get("examples")
    if not isinstance(examples, dict) or len(examples) > MAX_EXAMPLES or not all(
            isinstance(k, str) and _KEY.match(k) and not k.startswith("_") and isinstance(v, str)
            and 0 < len(v) <= MAX_EXAMPLE_CHARS for k, v in examples.items()):
        raise GameInfoError(f"examples are at most {MAX_EXAMPLES} bots by name, each a source")
    if not isinstance(info.get("argv"), bool) or not isinstance(info.get("replay_check"), bool) \
            or not isinstance(info.get("marks"), bool):
        raise GameInfoError("argv, replay_check and marks are true or false")
    _match(info.get("renderer"), _RENDERER, "renderer")
    expected = {"name", "title", "summary", "rules", "players", "alone", "players_setting", "settings",
                "fields", "presets", "default_preset", "scoring", "script_mode", "fault_limit",
                "invalid_is_fault", "max_turns", "examples", "argv", "renderer", "replay_check", "marks"}
    if set(info) != expected:
        raise GameInfoError("the game's description has other fields than the engine's")
    return info


def settings_type(info: dict) -> type:
    """A frozen dataclass of the game's settings (field order: ``SETTINGS``, then the engine's)."""
    columns = [(key, int, field(default=value)) for key, value in info["settings"].items()]
    names = tuple(info["settings"])

    def to_json(self: Any) -> dict:
        return {name: getattr(self, name) for name in names}  # asdict's, without its deep copy (ints)

    return make_dataclass(f"{info['name'].replace('-', '_')}_settings", columns, frozen=True,
                          namespace={"to_json": to_json})


def spec_from_info(info: dict, source: str, wire: Any, new_game: Any) -> GameSpec:
    """The ``GameSpec`` of a checked description; ``wire`` and ``new_game`` reach its code."""
    kind = settings_type(info)
    alone = info["alone"]
    presets = tuple(Preset(p["name"], p["label"], kind(**{**info["settings"], **p["settings"]}),
                           tuple(p["bots"])) for p in info["presets"])
    fields = tuple(SettingField(f["key"], f["label"], f["min"], f["max"], f["help"]) for f in info["fields"])
    bots = [b for p in info["presets"] for b in p["bots"]]
    return GameSpec(
        name=info["name"], title=info["title"], summary=info["summary"], rules_doc="",
        presets=presets, default_preset=info["default_preset"], fields=fields, settings_type=kind,
        new_game=new_game, wire=wire,
        min_bots=min(bots), max_bots=max(bots), players_setting=None if alone else "players",
        side_by_side=alone, scoring=info["scoring"], script_mode=info["script_mode"],
        renderer=info["renderer"],
        examples_package="", menu_order=200, example_sources=dict(info["examples"]),
        rules_text=info["rules"], game_module=source,
    )


class BotSideWire:
    """The game's bot-side code, in a bot's own process: the function view, text lines, answers."""

    def __init__(self, module: Any) -> None:
        self.module = module

    def FunctionClient(self) -> Any:  # noqa: N802 - the wire modules' name for it
        return self.module.function_client()

    def answer_text(self, value: Any) -> str:
        return self.module.answer_text(value)

    def message_lines(self, message: Any) -> list[str]:
        return self.module.lines(message)

    def message_argv(self, message: Any) -> list[str]:
        return self.module.argv(message)


def bot_side_spec(source: str) -> GameSpec:
    """The spec of an author's game for a bot's process (``GameModuleError`` if it is broken)."""
    from engine.authored.game_module import GameModule

    module = GameModule(source)

    def no_game(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a bot's process plays no game")

    return spec_from_info(check_info(module.info), source, BotSideWire(module), no_game)


def _int(value: object) -> bool:
    return type(value) is int


def _text(value: object, name: str, most: int) -> None:
    if not isinstance(value, str) or len(value) > most:
        raise GameInfoError(f"{name} is text of at most {most} characters")


def _match(value: object, pattern: re.Pattern, name: str) -> None:
    if not isinstance(value, str) or not pattern.match(value):
        raise GameInfoError(f"{name} is not a name")
