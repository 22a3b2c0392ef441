"""An author's game in the page: its game host runs in a Worker of its own, reached like a bot's.

The page's controller (``web/main.py``) cannot run a stranger's game in its own Worker (that
Worker can fetch, and holds the run), so the game host (``engine.authored.game_host``) runs in a bot
Worker, with everything withheld from bots withheld from it too; the controller reaches it
through ``arena_bridge.askGame`` (``web/src/controller_worker.js``), which answers at once where
the page is cross-origin isolated (shared memory) and with a Promise elsewhere (waited for
with JSPI's ``run_sync`` where the browser has it). A call past ``CALL_LIMIT_S`` is interrupted
(the game's line is reported) or its Worker stopped.

The game's reply is untrusted text: its size and nesting are bounded before Python parses it,
and ``engine.play.game_proxy`` checks every field, with the native path's limits on turns, records
and scores (``engine.core.replay_limits``): a runaway game ends with a game error, not a page out of
memory.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from engine.authored.game_host import CALL_LIMIT_S
from engine.games.registry import get_game, register, unregister
from engine.play.game_proxy import AuthoredGame, GameCodeError, _reply, depth_over_limit, reply_too_deep

# Reading the module and its check game (40 turns of default moves: milliseconds for a sound
# game). Pyodide has no signals: past this, the Worker is interrupted and the line reported.
LOAD_LIMIT_S = 10.0
_request_ids = itertools.count(1)
MAX_GAME_SOURCE_BYTES = 256 * 1024  # as a bot's code: the page's cap


class GameStopped(Exception):
    """The page stopped the run while the game was being asked."""


class BridgeChannel:
    """Requests to the game's Worker through the controller Worker's bridge."""

    def __init__(self, bridge: Any) -> None:
        self.bridge = bridge

    def call(self, request: dict, wait_s: float) -> dict:
        rid = next(_request_ids)  # one count for every game loaded: the Worker's mailbox tells
        request = {**request, "id": rid}  # a new reply from an old one by its id
        op = request["op"]
        outer = json.dumps({"op": "game", "id": rid, "text": json.dumps(request)})
        result = self.bridge.askGame(rid, outer, int(wait_s * 1000), op == "load")
        if not isinstance(result, str):
            result = _wait_for(result)
        _, state, checked = str(result).split(";", 2)
        if state == "2":
            raise GameStopped
        if state != "1":
            raise GameCodeError(f"the game did not answer '{op}' within {wait_s:g} s (an endless loop?); "
                                "its Worker was stopped")
        text = json.loads(checked).get("game")
        if not isinstance(text, str):
            raise GameCodeError(f"the game's Worker sent a malformed reply to '{op}'")
        depth = depth_over_limit(text)
        if depth:
            raise reply_too_deep(op, depth)
        try:
            data = json.loads(text)
        except ValueError:
            raise GameCodeError(f"the game's reply to '{op}' is not JSON") from None
        return _reply(data, request)

    def close(self) -> None:
        pass


def _wait_for(promise: Any) -> str:
    """A Promise's value, blocking (JSPI); a clear error where the browser cannot."""
    try:
        from pyodide.ffi import run_sync
        return run_sync(promise)
    except Exception as exc:  # noqa: BLE001 - whatever the browser lacks, one message
        raise GameCodeError("this page cannot wait for the game's Worker: an author's game needs a "
                            "cross-origin isolated page (python3 scripts/serve.py serves one) or a "
                            f"browser with JavaScript Promise Integration ({type(exc).__name__})") from None


_current: AuthoredGame | None = None


def load_game_json(bridge: Any, source: object) -> str:
    """Read and check an author's module in its Worker and register the game (replacing the
    one loaded before). JSON: ``{"spec": ...}`` (as ``GameSpec.to_json``) or ``{"error", "line"}``."""
    global _current
    if not isinstance(source, str) or not source.strip():
        return json.dumps({"error": "the game module is empty", "line": None})
    if len(source.encode("utf-8", "replace")) > MAX_GAME_SOURCE_BYTES:
        return json.dumps({"error": f"the game module is over {MAX_GAME_SOURCE_BYTES:,} bytes", "line": None})
    try:
        game = AuthoredGame(source, BridgeChannel(bridge), wait_s=CALL_LIMIT_S, load_wait_s=LOAD_LIMIT_S)
    except GameCodeError as exc:
        return json.dumps({"error": exc.message, "line": exc.line})
    except GameStopped:
        return json.dumps({"error": "loading the game was stopped", "line": None})
    name = game.spec.name
    try:
        existing = get_game(name)
    except ValueError:
        existing = None
    if existing is not None and existing.trusted:
        game.close()
        return json.dumps({"error": f"a game named {name!r} is built in: give yours another NAME",
                           "line": None})
    if _current is not None:
        unregister(_current.spec.name)
    _current = game
    register(game.spec)
    return json.dumps({"spec": game.spec.to_json()})
