"""The registry of games: each entry ties a game's rules, presets and wire module.

Adding a game means adding a rules module, a wire module and one ``GameSpec`` here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from types import ModuleType
from typing import Any

from engine.games import atomas, flit
from engine.wire import atomas as atomas_wire
from engine.wire import flit as flit_wire


@dataclass(frozen=True)
class GameSpec:
    name: str
    title: str
    presets: dict[str, Any]
    default_preset: str
    new_game: Callable[..., Any]  # (settings, seed, players, secret=None) -> a new state
    wire: ModuleType
    min_bots: int
    max_bots: int
    side_by_side: bool  # one-player game: each bot plays its own copy of each seed

    def settings(self, preset: str | None = None, **overrides: Any) -> Any:
        name = preset or self.default_preset
        if name not in self.presets:
            known = ", ".join(self.presets)
            raise ValueError(f"unknown preset {name!r} for {self.name}; choose from {known}")
        base = self.presets[name]
        changes = {k: v for k, v in overrides.items() if v is not None}
        return replace(base, **changes) if changes else base

    def settings_from_json(self, data: dict) -> Any:
        return type(self.presets[self.default_preset])(**data)


GAMES: dict[str, GameSpec] = {
    "atomas": GameSpec("atomas", "Atomas", atomas.PRESETS, "standard", atomas.new_game, atomas_wire,
                       1, 8, True),
    "flit": GameSpec("flit", "Flit", flit.PRESETS, "trial", flit.new_game, flit_wire, 2, 4, False),
}


def get_game(name: str) -> GameSpec:
    try:
        return GAMES[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r}; choose from {', '.join(GAMES)}") from None
