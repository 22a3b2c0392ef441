"""A bot's own ``random`` module, seeded by the controller, so the same seed replays the game.

A bot's ``import random`` (and ``from random import ...``) gets a module of its own whose
functions draw from a ``random.Random`` seeded with the bot's seed
(``engine.games.randomness.bot_seed``), and whose ``Random()`` without a seed is seeded from
that same stream. The process's own ``random`` is untouched: in-process bots (the built-in
examples) share the controller's process, and neither can disturb the other's draws.
The module is reached through the bot's ``__builtins__.__import__``; a library the bot
imports that itself imports ``random`` gets the process's module.
"""

from __future__ import annotations

import builtins
import random
from collections.abc import Callable
from types import ModuleType
from typing import Any


def seeded_random(seed: int | None) -> ModuleType:
    """A copy of the ``random`` module drawing from its own generator (``seed`` None: fresh
    entropy, as a bot without a seed from the controller had before)."""
    generator = random.Random(seed)
    module = ModuleType("random", random.__doc__)
    shared = random._inst  # type: ignore[attr-defined]  # the module's hidden instance
    for name, value in vars(random).items():
        if name.startswith("__"):
            continue
        if getattr(value, "__self__", None) is shared:
            value = getattr(generator, value.__name__)
        module.__dict__[name] = value

    class Random(random.Random):
        """``random.Random``, whose ``Random()`` draws its seed from the bot's stream."""

        def __init__(self, x: Any = None) -> None:
            super().__init__(generator.getrandbits(64) if x is None else x)

    Random.__module__ = "random"
    module.Random = Random  # type: ignore[attr-defined]
    module._inst = generator  # type: ignore[attr-defined]
    return module


def importer(modules: dict[str, ModuleType]) -> Callable[..., Any]:
    """An ``__import__`` for a bot's builtins that gives it ``modules`` by name."""
    real_import = builtins.__import__

    def import_(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (),
                level: int = 0) -> Any:
        if level == 0 and name in modules:
            return modules[name]
        return real_import(name, globals, locals, fromlist, level)

    return import_
