"""What every Python of the page has imported before its memory snapshot is taken.

The snapshot is made once, at build time (``scripts/snapshot.mjs``, under Node), or by the
controller Worker where the site has none (a Stack Snippet): the controller and every bot
Worker start from it, so none of them imports these modules again. It holds the bot host,
every game's wire as the registry finds them, and the controller (``web/main.py``, imported
here as ``arena_main``) with what it imports, including what it imports on first use.

``arena_main`` talks to JavaScript through ``arena_bridge``, which the controller Worker
registers and no snapshot may hold: it is imported here against an empty stand-in, which is
then forgotten; the controller Worker points ``arena_main.arena_bridge`` at the real one. In a
bot Worker, ``arena_main`` stays as it is here, with nothing to reach.
"""

import sys
import types


def _preload() -> None:
    if "/home/pyodide" not in sys.path:
        sys.path.insert(0, "/home/pyodide")
    import json  # noqa: F401
    import random  # noqa: F401

    import engine.bots.host  # noqa: F401
    import engine.contest.challenge  # noqa: F401
    import engine.contest.snippet  # noqa: F401
    import engine.contest.stackexchange  # noqa: F401
    import engine.contest.tournament  # noqa: F401
    from engine.games.registry import games

    games()
    sys.modules["arena_bridge"] = types.ModuleType("arena_bridge")
    try:
        import arena_main  # noqa: F401
    finally:
        del sys.modules["arena_bridge"]


_preload()
del _preload
