"""A bot's own ``random`` module, seeded by the controller, so the same seed replays the game.

A bot's ``import random`` (and ``from random import ...``) gets a module of its own whose
functions draw from a ``random.Random`` seeded with the bot's seed
(``engine.core.randomness.bot_seed``), and whose ``Random()`` without a seed is seeded from
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

_SHARED = random._inst  # type: ignore[attr-defined]  # the module's hidden instance
# What a bot's module copies as it is (constants, classes, helpers) and which of its
# functions are methods of the shared instance (rebound to the bot's own generator).
_AS_IS = {name: value for name, value in vars(random).items()
          if not name.startswith("__") and name != "Random"
          and getattr(value, "__self__", None) is not _SHARED}
_BOUND = [(name, value.__name__) for name, value in vars(random).items()
          if getattr(value, "__self__", None) is _SHARED]


def seeded_random(seed: int | None) -> ModuleType:
    """A copy of the ``random`` module drawing from its own generator (``seed`` None: fresh
    entropy, as a bot without a seed from the controller had before)."""
    generator = random.Random(seed)
    module = ModuleType("random", random.__doc__)
    namespace = module.__dict__
    namespace.update(_AS_IS)
    for name, method in _BOUND:
        namespace[name] = getattr(generator, method)
    namespace["_inst"] = generator
    namespace["__all__"] = random.__all__  # ``from random import *`` asks for Random too

    def __getattr__(name: str) -> Any:
        # ``Random`` is made when first asked for (most bots never are): a class per bot
        if name != "Random":
            raise AttributeError(f"module 'random' has no attribute {name!r}")

        class Random(random.Random):
            """``random.Random``, whose ``Random()`` draws its seed from the bot's stream."""

            def __init__(self, x: Any = None) -> None:
                super().__init__(generator.getrandbits(64) if x is None else x)

        Random.__module__ = "random"
        namespace["Random"] = Random
        return Random

    namespace["__getattr__"] = __getattr__
    return module


def importer(modules: dict[str, Callable[[], ModuleType]]) -> Callable[..., Any]:
    """An ``__import__`` for a bot's builtins that gives it ``modules`` by name, each made by
    its function on the bot's first import of it (a bot that never imports it costs nothing)."""
    real_import = builtins.__import__
    made: dict[str, ModuleType] = {}

    def import_(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (),
                level: int = 0) -> Any:
        if level == 0 and name in modules:
            module = made.get(name)
            if module is None:
                module = made[name] = modules[name]()
            return module
        return real_import(name, globals, locals, fromlist, level)

    return import_
