"""What a game is, for everything outside its own modules: ``GameSpec``.

Each game's folder (``engine/games/<name>/``: ``game.py`` on the game API, read by
``engine.authored``, or an older ``wire.py`` defining ``SPEC``) gives one; the registry
(``engine.games.registry``) collects them. The CLI, the page, the series core and the bot
runners ask the spec (presets, editable fields, bot counts, scoring, script mode, example
bots) instead of testing a game's name. It lives apart from the registry so a wire module
can import it without importing every other game.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from pathlib import Path
from types import ModuleType
from typing import Any

SCORINGS = ("wins", "mean_score")
SCRIPT_MODES = ("stream", "per_move", "per_turn")


@dataclass(frozen=True)
class SettingField:
    """A setting a user may edit: a field in the page's form and a flag of the CLI."""

    key: str
    label: str
    minimum: int
    maximum: int
    help: str = ""

    def to_json(self) -> dict:
        return {"key": self.key, "label": self.label, "min": self.minimum, "max": self.maximum,
                "help": self.help}

    def check(self, value: int) -> None:
        if not self.minimum <= value <= self.maximum:
            raise ValueError(f"{self.label.lower()} must be {self.minimum} to {self.maximum}, got {value}")


@dataclass(frozen=True)
class Preset:
    """Named settings; ``bots`` is the (min, max) number of bots it allows (None: the game's)."""

    name: str
    label: str
    settings: Any
    bots: tuple[int, int] | None = None


@dataclass(frozen=True)
class GameSpec:
    name: str
    title: str
    summary: str  # one line for the page
    rules_doc: str  # "docs/rules/<name>.md"
    presets: tuple[Preset, ...]
    default_preset: str
    fields: tuple[SettingField, ...]  # editable settings (time_limit_ms in every game)
    settings_type: type
    new_game: Callable[..., Any]  # (settings, seed, players, secret) -> a new state
    wire: ModuleType
    min_bots: int
    max_bots: int
    players_setting: str | None  # the settings key set from the number of bots, or None
    side_by_side: bool  # one-player game: each bot plays its own copy of each seed
    scoring: str  # "wins" (rank by wins) or "mean_score" (rank by mean score)
    script_mode: str  # "stream", "per_move" or "per_turn" (docs/architecture.md)
    renderer: str  # the page's module web/src/games/<renderer>.js
    examples_package: str  # "engine.games.<name>.examples": its *.py files are the built-in bots
    menu_order: int = 100  # place in game lists (the page's menu, its first game): lower first, then by name
    # The lowest score a seat can get (None: unknown, an author's game): a mean score's 95%
    # interval is clipped to it, so no interval claims a mean no game could give.
    min_score: float | None = None
    # An author's game (engine.game_api), read from its module: its example bots' sources, its
    # rules (the module's docstring) and the module itself, which travels to every process
    # that runs its code (``game_module``). Its code and its examples are untrusted.
    example_sources: dict[str, str] | None = None
    rules_text: str = ""
    game_module: str | None = None

    @property
    def trusted(self) -> bool:
        """Built-in games are; an author's game (and its example bots) is a stranger's code."""
        return self.game_module is None

    def __post_init__(self) -> None:
        if self.scoring not in SCORINGS:
            raise ValueError(f"{self.name}: scoring is one of {SCORINGS}, got {self.scoring!r}")
        if self.script_mode not in SCRIPT_MODES:
            raise ValueError(f"{self.name}: script_mode is one of {SCRIPT_MODES}, got {self.script_mode!r}")
        if self.default_preset not in {p.name for p in self.presets}:
            raise ValueError(f"{self.name}: the default preset {self.default_preset!r} is not a preset")
        keys = {f.name for f in fields(self.settings_type)}
        for item in self.fields:
            if item.key not in keys:
                raise ValueError(f"{self.name}: field {item.key!r} is not a setting")

    # -- presets and settings ----------------------------------------------------------
    def preset(self, name: str | None = None) -> Preset:
        name = name or self.default_preset
        for preset in self.presets:
            if preset.name == name:
                return preset
        known = ", ".join(p.name for p in self.presets)
        raise ValueError(f"unknown preset {name!r} for {self.name}; choose from {known}")

    def bot_range(self, preset: str | None = None) -> tuple[int, int]:
        return self.preset(preset).bots or (self.min_bots, self.max_bots)

    def field(self, key: str) -> SettingField | None:
        return next((f for f in self.fields if f.key == key), None)

    def settings(self, preset: str | None = None, **overrides: Any) -> Any:
        """The preset's settings with ``overrides`` (None values ignored); an editable
        field's value is checked against its bounds."""
        base = self.preset(preset).settings
        changes = {k: v for k, v in overrides.items() if v is not None}
        for key, value in changes.items():
            item = self.field(key)
            if item is not None:
                item.check(value)
        return replace(base, **changes) if changes else base

    def settings_from_json(self, data: dict) -> Any:
        return self.settings_type(**data)

    # -- example bots ------------------------------------------------------------------
    def examples(self) -> dict[str, str]:
        """The built-in bots: name -> source, from the examples package's ``*.py`` files."""
        if self.example_sources is not None:
            return dict(self.example_sources)
        folder = self._examples_dir()
        return {p.stem: p.read_text(encoding="utf-8")
                for p in sorted(folder.glob("*.py")) if not p.stem.startswith("_")}

    def example_source(self, name: str) -> str:
        if self.example_sources is not None:
            if name not in self.example_sources:
                known = ", ".join(self.example_sources) or "none"
                raise ValueError(f"no built-in bot {name!r} for {self.name}; choose from {known}")
            return self.example_sources[name]
        path = self._examples_dir() / f"{name}.py"
        if name.startswith("_") or "/" in name or not path.is_file():
            known = ", ".join(self.examples()) or "none"
            raise ValueError(f"no built-in bot {name!r} for {self.name}; choose from {known}")
        return path.read_text(encoding="utf-8")

    def _examples_dir(self) -> Path:
        package = importlib.import_module(self.examples_package)
        return Path(next(iter(package.__path__)))

    # -- what the page is sent -----------------------------------------------------------
    def to_json(self) -> dict:
        return {
            "name": self.name, "title": self.title, "summary": self.summary,
            "rules_doc": self.rules_doc,
            "presets": [{"name": p.name, "label": p.label, "settings": p.settings.to_json(),
                         "bots": list(p.bots or (self.min_bots, self.max_bots))}
                        for p in self.presets],
            "default_preset": self.default_preset,
            "fields": [f.to_json() for f in self.fields],
            "min_bots": self.min_bots, "max_bots": self.max_bots,
            "players_setting": self.players_setting,
            "side_by_side": self.side_by_side, "scoring": self.scoring,
            "script_mode": self.script_mode, "renderer": self.renderer,
            "examples": self.examples(),
            **({"authored": True, "rules_text": self.rules_text} if self.game_module is not None else {}),
        }
