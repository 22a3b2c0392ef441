"""The games this engine knows: every ``engine/games/<name>/wire.py`` that defines ``SPEC``.

Adding a game adds a folder (its rules, its wire module with ``SPEC``, its examples) and
edits nothing: discovery walks the folders of ``engine.games`` in name order. ``register``
adds a game defined elsewhere (a challenge's own package, or a test's temporary directory).
"""

from __future__ import annotations

import importlib
import pkgutil

import engine.games
from engine.core.spec import GameSpec

_discovered: dict[str, GameSpec] | None = None
_registered: dict[str, GameSpec] = {}


def _discover() -> dict[str, GameSpec]:
    global _discovered
    if _discovered is None:
        found: dict[str, GameSpec] = {}
        for info in sorted(pkgutil.iter_modules(engine.games.__path__), key=lambda m: m.name):
            if not info.ispkg:
                continue
            try:
                module = importlib.import_module(f"engine.games.{info.name}.wire")
            except ModuleNotFoundError as exc:
                if exc.name != f"engine.games.{info.name}.wire":
                    raise
                continue
            spec = getattr(module, "SPEC", None)
            if isinstance(spec, GameSpec):
                found[spec.name] = spec
        _discovered = dict(sorted(found.items(), key=lambda item: (item[1].menu_order, item[0])))
    return _discovered


def games() -> list[GameSpec]:
    """Every known game: the discovered ones by ``menu_order`` and name, then the registered ones."""
    return [*_discover().values(), *(s for n, s in _registered.items() if n not in _discover())]


def game_names() -> list[str]:
    return [spec.name for spec in games()]


def get_game(name: str) -> GameSpec:
    spec = _registered.get(name) or _discover().get(name)
    if spec is None:
        raise ValueError(f"unknown game {name!r}; choose from {', '.join(game_names())}")
    return spec


def register(spec: GameSpec) -> GameSpec:
    """Make a game defined outside ``engine.games`` known by its name (replacing any
    earlier registration of that name); returns the spec."""
    if not isinstance(spec, GameSpec):
        raise TypeError(f"register takes a GameSpec, got {type(spec).__name__}")
    _registered[spec.name] = spec
    return spec


def unregister(name: str) -> None:
    _registered.pop(name, None)
