"""The bot host: one untrusted bot's code, behind one dict-in/dict-out entry point.

It runs in a process (or Worker) of its own, so nothing the bot does reaches the engine,
another bot or the page. Natively ``python -m engine.bots.host`` speaks JSON lines on
stdin/stdout; in the page ``web/src/bot_worker.js`` feeds it Worker messages. The protocol
is in docs/architecture.md ("Controller ↔ bot host").
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable

from engine.bots import budget_guard, budget_seal
from engine.bots.answer import cap_text
from engine.bots.code import FUNCTION, BotLoadError, _bot_frames, load_code
from engine.bots.replayed_script import ReplayedScriptRunner
from engine.bots.reply import MAX_ERROR_CHARS
from engine.bots.runners import FunctionRunner, OneShotScriptRunner, StreamScriptRunner
from engine.bots.step_budget import _bind, _caller_scopes
from engine.bots.suspended_script import SuspendedScriptRunner, suspended_code
from engine.games.registry import get_game


class BotHost:
    def __init__(self, receive: Callable[[], dict | None], send: Callable[[dict], None],
                 can_block: bool = True, guard: bool = False) -> None:
        """``receive`` blocks for the next request (None at EOF); ``send`` posts a reply.

        ``can_block`` is False where ``receive`` cannot be called from inside bot code
        (a browser Worker in push mode): a long-running script bot is run again from
        its start for each request then (``engine.bots.replayed_script``). ``guard``:
        this process (or Worker) is the bot's own, so a bot loaded with a step budget gets
        ``engine.bots.budget_guard`` first (for the rest of the process's life); off where
        the host shares a process with other code (tests, the built-in examples).
        """
        self.receive = receive
        self.send = lambda reply: send(_capped(reply))
        self.can_block = can_block
        self.runner = None
        self.game = ""
        self.bot = None
        self.budget: int | None = None  # steps per turn (the load request's "budget")
        self.guard = guard

    def serve(self) -> None:
        while (request := self.receive()) is not None:
            reply = self.handle(request)
            if reply is not None:
                self.send(reply)

    def handle(self, request: dict) -> dict | None:
        op, rid = request.get("op"), request.get("id")
        if op == "game":  # the page's Worker of an author's game: a game host, not a bot
            return {"id": rid, "game": self._game_host().reply_text(str(request.get("text", "")))}
        if op == "load":
            return {"id": rid, **self._load(request)}
        if self.runner is None:
            return {"id": rid, "ok": False, "answer": None, "error": "the bot did not load",
                    "line": None, "stdout": "", "stderr": ""}
        pushed = isinstance(self.runner, ReplayedScriptRunner | SuspendedScriptRunner)
        if pushed and op in ("start", "turn", "end"):
            return self.runner.handle(request)
        if op == "start":
            if isinstance(self.runner, StreamScriptRunner):
                runner = StreamScriptRunner(self.game, self.bot, self.receive, self.send, self.budget,
                                            compiled=self.runner.compiled)
                runner.run(rid, request["message"], _seed(request), request.get("nonce"))
                return None
            result = self.runner.start(request["message"], _seed(request))
            return self._sealed(request, {"id": rid, "ok": result.error is None, **result.to_json()})
        if op == "turn":
            if isinstance(self.runner, StreamScriptRunner):
                return {"id": rid, "answer": None, "error": "the game has not started",
                        "line": None, "stdout": "", "stderr": ""}
            if isinstance(self.runner, OneShotScriptRunner):
                result = self.runner.turn(request["message"], _seed(request))
            else:
                result = self.runner.turn(request["message"])
            return self._sealed(request, {"id": rid, **result.to_json()})
        if op == "end":
            if isinstance(self.runner, StreamScriptRunner):
                return {"id": rid, "ok": True, "stdout": "", "stderr": ""}
            return {"id": rid, "ok": True, **self.runner.end().to_json()}
        return {"id": rid, "ok": False, "error": f"unknown request {op!r}"}

    def _sealed(self, request: dict, reply: dict) -> dict:
        """The reply with the budget's sealed verdict for the request's nonce (under a step
        budget whose key came at load: engine.bots.budget_seal)."""
        budget = getattr(self.runner, "budget", None)
        if budget is not None:
            sealed = budget_seal.seal(budget.counter, request.get("nonce"))
            if sealed is not None:
                reply["seal"] = sealed
        return reply

    def _game_host(self):
        if getattr(self, "game_host", None) is None:
            from engine.authored.game_host import GameHost
            self.game_host = GameHost()
        return self.game_host

    def _load(self, request: dict) -> dict:
        # the budget's key: out of the request at once, kept only by budget_seal's hook
        key = request.pop("key", None)
        self.game = request["game"]
        if request.get("game_module") is not None:
            error = _register_game(request["game_module"], self.game)
            if error:
                self.runner = None
                return {"ok": False, "kind": None, "error": error, "line": None}
        budget = request.get("budget")
        if budget is not None and (type(budget) is not int or budget < 1):
            self.runner = None
            return {"ok": False, "kind": None, "line": None,
                    "error": f"a step budget is a positive whole number, not {budget!r}"}
        self.budget = budget
        python2 = request.get("language") == "python2"
        lines = request.get("lines") if python2 else None
        if python2 and (not isinstance(lines, list) or not all(type(n) is int and n > 0 for n in lines)):
            self.runner = None
            return {"ok": False, "kind": None, "line": None,
                    "error": "Python 2 code comes converted, with its line map (a list of line numbers)"}
        try:
            self.bot = load_code(request["code"], lines, request.get("true_division") is True)
        except BotLoadError as exc:
            self.runner = None
            return {"ok": False, "kind": None, "error": exc.message, "line": exc.line}
        if self.bot.kind == FUNCTION:
            self.runner = FunctionRunner(self.game, self.bot, budget)
        elif get_game(self.game).script_mode == "stream" and not self.can_block:
            # input() cannot wait here: a generator where the script's input() calls are all
            # in its module body (and no step budget counts), else run again on each request
            code = suspended_code(self.bot) if budget is None else None
            self.runner = (SuspendedScriptRunner(self.game, self.bot, code) if code is not None
                           else ReplayedScriptRunner(self.game, self.bot, budget))
        elif get_game(self.game).script_mode == "stream":  # one script for the whole game
            self.runner = StreamScriptRunner(self.game, self.bot, self.receive, self.send, budget)
        else:
            self.runner = OneShotScriptRunner(self.game, self.bot, get_game(self.game).script_mode, budget)
        if budget is not None and key is not None:
            budget_seal.install(key, self.runner.budget.counter,
                                isinstance(self.runner, StreamScriptRunner | ReplayedScriptRunner))
        del key
        if budget is not None and self.guard:
            # after the engine has made the budget and imported what it needs, before any of
            # the bot's code runs (it runs from "start")
            budget_guard.install((_bot_frames, _caller_scopes, _bind))
        loaded = {"ok": True, "kind": self.bot.kind, "error": None, "line": None}
        if isinstance(self.runner, ReplayedScriptRunner):
            loaded["replays"] = True  # for the controller's ReplayCredit: none of the bot's code has run
        return loaded


def _register_game(source: object, name: object) -> str | None:
    """Make an author's game (its bot-side code: view, lines, answers) known in this process;
    the error text when its module does not load."""
    from engine.authored.authored_spec import GameInfoError, bot_side_spec
    from engine.authored.game_module import GameModuleError
    from engine.games.registry import register

    if not isinstance(source, str):
        return "the game's module is not text"
    try:
        spec = bot_side_spec(source)
    except (GameModuleError, GameInfoError) as exc:
        return f"the game's module does not load: {exc}"
    if spec.name != name:
        return f"the game's module is {spec.name!r}, not {name!r}"
    register(spec)
    return None


def _seed(request: dict) -> int | None:
    """The request's ``seed`` for the bot's ``random`` (none: fresh entropy)."""
    seed = request.get("seed")
    return seed if type(seed) is int and seed >= 0 else None


def _capped(reply: dict) -> dict:
    """A bot's error text cut to what the controller keeps anyway (an exception's message
    may be megabytes), so the reply stays a short line."""
    error = reply.get("error")
    if isinstance(error, str) and len(error) > MAX_ERROR_CHARS:
        reply["error"] = cap_text(error, MAX_ERROR_CHARS)
    return reply


def main() -> None:
    """JSON lines on stdin/stdout; the bot's own prints are captured, never on the pipe."""
    channel_in = sys.stdin
    channel_out = sys.stdout
    sys.stdout = sys.stderr  # anything printed outside a capture must not corrupt the pipe

    def receive() -> dict | None:
        line = channel_in.readline()
        return json.loads(line) if line else None

    def send(reply: dict) -> None:
        channel_out.write(json.dumps(reply) + "\n")
        channel_out.flush()

    BotHost(receive, send, guard=True).serve()


if __name__ == "__main__":
    main()
