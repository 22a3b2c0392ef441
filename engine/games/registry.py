"""The games this engine knows: every folder of ``engine/games/`` with a game in it.

A folder holds a game on the public API (``game.py``, loaded in-process by the one loader of
game-API modules, ``engine.authored.in_process``), or a game of the engine's older shape
(``wire.py`` with ``SPEC``). Adding a game adds a folder (its module, its examples) and edits
nothing: discovery walks the folders of ``engine.games`` in name order. ``register`` adds a game
defined elsewhere (a challenge's own package, an author's game, or a test's temporary directory).
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

import engine.games
from engine.authored.in_process import TrustedGame
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
            spec = _on_the_api(info.name) or _with_a_wire(info.name)
            if isinstance(spec, GameSpec):
                found[spec.name] = spec
        _discovered = dict(sorted(found.items(), key=lambda item: (item[1].menu_order, item[0])))
    return _discovered


def _folder_module(name: str, module: str) -> ModuleType | None:
    """``engine.games.<name>.<module>``, or None when the folder has no such module."""
    try:
        return importlib.import_module(f"engine.games.{name}.{module}")
    except ModuleNotFoundError as exc:
        if exc.name != f"engine.games.{name}.{module}":
            raise
        return None


def _on_the_api(name: str) -> GameSpec | None:
    """A built-in game written against ``engine.game_api`` (``game.py``), played in-process. Its
    rule book is ``docs/rules/<name>.md``; its example bots the folder's ``examples/*.py`` when it
    has no ``EXAMPLES``; ``MENU_ORDER`` and ``MIN_SCORE`` place it among the built-in games."""
    module = _folder_module(name, "game")
    if module is None:
        return None
    extra: dict = {"rules_doc": f"docs/rules/{name}.md", "menu_order": getattr(module, "MENU_ORDER", 100),
                   "min_score": getattr(module, "MIN_SCORE", None)}
    if not getattr(module, "EXAMPLES", None) and _folder_module(name, "examples") is not None:
        extra.update(examples_package=f"engine.games.{name}.examples", example_sources=None)
    return TrustedGame(module, **extra).spec


def _with_a_wire(name: str) -> GameSpec | None:
    module = _folder_module(name, "wire")
    return getattr(module, "SPEC", None) if module is not None else None


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
