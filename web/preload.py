"""What every Python of the page has imported before its memory snapshot is taken.

The snapshot is made once, at build time (``scripts/snapshot.mjs``, under Node), or by the
controller Worker where the site has none (a Stack Snippet): the controller and every bot
Worker start from it, so none of them imports these modules again. It holds the bot host,
every game's wire as the registry finds them, and what the controller (``web/main.py``,
imported here as ``arena_main``) imports, including what it imports on first use.

``arena_main`` needs the controller's JavaScript bridge (``arena_bridge``), which no snapshot
may hold: it is imported against a stand-in and then forgotten, so the controller imports it
afresh (its own module body only) once the real bridge is registered.
"""

import sys
import types


def _preload() -> None:
    if "/home/pyodide" not in sys.path:
        sys.path.insert(0, "/home/pyodide")
    import json  # noqa: F401
    import random  # noqa: F401

    import engine.bots.host  # noqa: F401
    import engine.challenge  # noqa: F401
    import engine.snippet  # noqa: F401
    import engine.stackexchange  # noqa: F401
    import engine.tournament  # noqa: F401
    from engine.registry import games

    games()
    sys.modules["arena_bridge"] = types.ModuleType("arena_bridge")
    try:
        import arena_main  # noqa: F401
    finally:
        sys.modules.pop("arena_main", None)
        sys.modules.pop("arena_bridge", None)


_preload()
del _preload
