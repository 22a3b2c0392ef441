"""The game host: an author's game behind one dict-in/dict-out entry point, like the bot host.

A game's code is a stranger's code, so it never runs in the controller: natively
``python -m engine.authored.game_host`` runs in the bubblewrap sandbox and speaks JSON lines on
stdin/stdout; in the page a stripped Worker feeds it the same requests. The controller's
side is ``engine.play.game_proxy``. Each call into the game's code has a time limit
(``CALL_LIMIT_S``; a loop is stopped with its line where signals exist, and the controller
kills the process past its own deadline), and everything the game returns is checked here
(so the author reads which method returned what) and again by the proxy. Scores are bounded
numbers, a reply weighs at most ``MAX_REPLY_BYTES``, and the check game refuses a record
nested deeper than a replay holds it (``engine.core.replay_limits``; the proxy checks every reply's
nesting).

Requests (``id`` echoed back; an ``error`` reply means the game is broken):
- ``load {source}`` -> ``{info}``: read and check the module, then play a short check game
- ``new {settings, seed, players, secret}`` -> ``{start, messages}`` + status
- ``parse {seat, text}`` -> ``{}`` or ``{invalid}``: the action stays here, for ``apply``
- ``apply {actions: {seat: {"answer": text} | {"parsed": true} | {"default": true}}}`` ->
  ``{record}`` + status, or ``{invalid}`` (nothing changed)
- ``freeze {seat}`` -> status; ``observe {seat}`` -> ``{message}``; ``lines {message}`` -> ``{lines}``;
  ``argv {message}`` -> ``{argv}``
- ``check {turn}`` -> ``{}`` or ``{problem}``: the game's ``replay_check`` of the turn just applied
- ``mark {seat, where}`` -> ``{cells}``: the game's ``mark_cells`` of a bot's mark (None: dropped)
Status: ``acting`` (seats), ``over`` (None or the reason), ``scores`` (when over) and
``observations`` (``{seat: message}`` for the acting seats not frozen, made ahead).
"""

from __future__ import annotations

import copy
import io
import json
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any

from engine.authored.game_module import GameModule, GameModuleError, as_json, code_line, raised
from engine.authored.picture import PictureError, check_picture
from engine.core.json_depth import nesting_depth
from engine.core.marks import mark_cells_of
from engine.core.randomness import GameRandom, draw_key
from engine.core.replay_limits import MAX_RECORD_DEPTH, MAX_REPLY_BYTES, MAX_SCORE, is_score
from engine.game_api import InvalidAnswer

CALL_LIMIT_S = 5.0  # one call into the game's code
CHECK_TURNS = 40  # turns of the check game played at load with every seat's default action
MAX_OUTPUT_CHARS = 4_000  # of what the game prints, per request
MAX_REASON_CHARS = 100
MAX_PROBLEM_CHARS = 500  # what replay_check says differs
READ_ERRORS = (ValueError, IndexError, KeyError, TypeError)  # parse_answer failing on a bad answer


class GameTimeLimit(BaseException):
    """Raised into the game's code when a call runs past its limit (not an ``Exception``, so
    the author's ``except Exception`` cannot swallow it)."""


class Settings:
    """The settings a game is given: read-only attributes (``settings.rounds``)."""

    def __init__(self, values: dict) -> None:
        object.__setattr__(self, "_values", dict(values))

    def __getattr__(self, name: str) -> int:
        if name.startswith("_"):  # copy's and pickle's probes, before _values exists
            raise AttributeError(name)
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(f"no setting {name!r}") from None

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("settings are read-only")

    def to_dict(self) -> dict:
        return dict(self._values)

    def __repr__(self) -> str:
        return f"Settings({self._values})"


class GameHost:
    def __init__(self, call_limit_s: float = CALL_LIMIT_S) -> None:
        self.call_limit_s = call_limit_s
        self.module: GameModule | None = None
        self.game: Any = None
        self.output = io.StringIO()
        self.armed = False  # a call's time limit is running

    def handle(self, request: dict) -> dict:
        rid = request.get("id")
        op = request.get("op")
        handler = getattr(self, f"_op_{op}", None) if isinstance(op, str) else None
        try:
            if handler is None:
                raise GameModuleError(f"unknown request {op!r}")
            if op not in ("load", "lines", "argv") and (
                    self.module is None or (op != "new" and self.game is None)):
                raise GameModuleError("no game is loaded" if self.module is None else "no game was started")
            if op == "load":
                reply = handler(request)
            else:  # one time limit for the whole request: cheaper than one per call
                reply = self.call(op, handler, request)
        except GameModuleError as exc:
            reply = exc.to_json()
        except PictureError as exc:
            reply = {"error": f"draw returned a picture that is not one: {exc}", "line": None,
                     "method": "draw"}
        except (ValueError, TypeError, KeyError) as exc:  # a malformed request (the game's code is wrapped)
            reply = {"error": f"bad request: {exc}", "line": None, "method": None}
        reply["id"] = rid
        printed = self.output.getvalue()
        if printed:
            reply["output"] = printed[:MAX_OUTPUT_CHARS]
            self.output.seek(0)
            self.output.truncate()
        return reply

    # -- calling the game's code ----------------------------------------------------------
    def call(self, method: str, function: Callable, *args: Any, refusing: bool = False) -> Any:
        """``function(*args)`` within the time limit, the game's prints captured; any
        exception becomes a ``GameModuleError`` naming ``method`` and the line, but for
        ``InvalidAnswer`` where the method may refuse an answer (``refusing``)."""
        saved = sys.stdout
        sys.stdout = self.output
        timer = not self.armed and _start_timer(self.call_limit_s)
        self.armed = self.armed or timer
        try:
            return function(*args)
        except (GameTimeLimit, KeyboardInterrupt) as exc:  # the page's controller interrupts a Worker
            line = code_line(exc)
            where = f", stopped at line {line}" if line else ""
            limit = f"the {self.call_limit_s:g} s limit for one call" if isinstance(exc, GameTimeLimit) \
                else "its time limit"
            raise GameModuleError(f"{method} ran past {limit} (an endless loop?{where})", line,
                                  method) from None
        except InvalidAnswer as exc:
            if refusing:
                raise
            raise raised(method, exc) from None
        except GameModuleError:
            raise
        except Exception as exc:  # noqa: BLE001 - the game may raise anything
            raise raised(method, exc) from None
        finally:
            if timer:
                _stop_timer()
                self.armed = False
            sys.stdout = saved

    # -- requests -------------------------------------------------------------------------
    def _op_load(self, request: dict) -> dict:
        self.module = self.call("the module", GameModule, request.get("source"))
        self._check_play()
        self.game = None
        return {"info": self.module.info}

    def _op_new(self, request: dict) -> dict:
        info = self.module.info
        values = request.get("settings")
        players = request.get("players")
        seed, secret = request.get("seed"), request.get("secret")
        if not isinstance(values, dict) or type(players) is not int or type(seed) is not int \
                or not (secret is None or isinstance(secret, str)):
            raise GameModuleError("new: settings, players, seed and secret are needed")
        if info["players_setting"]:
            values = {**values, "players": players}
        module = self.module.new_module()
        rng = GameRandom(draw_key(info["name"], seed, secret))
        self.settings = Settings(values)
        self.players = players
        self.game = self.call("Game()", module.Game, self.settings, rng)
        self.log: list[Any] = []
        self.cursor = [0] * players
        self.frozen: set[int] = set()
        self.parsed: dict[int, Any] = {}
        self.picture_text: str | None = None
        start = self._record_start()
        messages = [self._start_message(seat) for seat in range(players)]
        return {"start": start, "messages": messages, **self._status(True)}

    def _op_parse(self, request: dict) -> dict:
        seat, text = request.get("seat"), request.get("text")
        self._seat(seat)
        if not isinstance(text, str):
            raise GameModuleError("parse: the answer is text")
        self.parsed.pop(seat, None)
        try:
            self.parsed[seat] = self.call("parse_answer", self._parse, text, seat, refusing=True)
        except InvalidAnswer as exc:
            return {"invalid": _invalid_text(exc, text)}
        return {}

    def _parse(self, text: str, seat: int) -> Any:
        try:
            return self.game.parse_answer(text, seat)
        except READ_ERRORS as exc:  # reading a bot's text failed: the bot's answer is at fault
            raise InvalidAnswer(f"the answer could not be read: {type(exc).__name__}: {exc} "
                                f"(game line {code_line(exc)})") from None

    def _op_apply(self, request: dict) -> dict:
        wanted = request.get("actions")
        if not isinstance(wanted, dict):
            raise GameModuleError("apply: actions is an object")
        actions: dict[int, Any] = {}
        for key, how in wanted.items():
            seat = int(key)
            self._seat(seat)
            if how == {"parsed": True} and seat in self.parsed:
                actions[seat] = self.parsed.pop(seat)
            elif how == {"default": True}:
                actions[seat] = self.call("default_action", self.game.default_action, seat)
            elif isinstance(how, dict) and isinstance(how.get("answer"), str):
                try:
                    actions[seat] = self.call("parse_answer", self._parse, how["answer"], seat, refusing=True)
                except InvalidAnswer as exc:
                    return {"invalid": _invalid_text(exc, how["answer"])}
            else:
                raise GameModuleError(f"apply: no action for seat {seat}")
        self.parsed.clear()
        try:
            changes = self.call("apply_actions", self.game.apply_actions, actions, refusing=True)
        except InvalidAnswer as exc:
            if len(actions) != 1:
                raise GameModuleError(f"apply_actions raised InvalidAnswer with {len(actions)} seats acting: "
                                      "only a single seat's move may be refused (check every seat's "
                                      "action in parse_answer)", code_line(exc), "apply_actions") from None
            ((seat, action),) = actions.items()
            return {"invalid": _invalid_text(exc, action)}
        self.log.append(changes)
        record = self._record_turn(actions, changes)
        return {"record": record, **self._status(True)}

    def _op_trial(self, request: dict) -> dict:
        """Whether one seat's answer would be a legal move, on a copy of the game (the replay
        checker asks this of an answer recorded as invalid); the game itself is untouched."""
        wanted = request.get("actions")
        if not isinstance(wanted, dict) or len(wanted) != 1:
            raise GameModuleError("trial: one seat's answer")
        ((key, how),) = wanted.items()
        seat = int(key)
        self._seat(seat)
        text = how.get("answer") if isinstance(how, dict) else None
        if not isinstance(text, str):
            raise GameModuleError("trial: the answer is text")
        try:
            trial = self.call("copying the game", copy.deepcopy, self.game)
            action = self.call("parse_answer", self._parse, text, seat, refusing=True)
            self.call("apply_actions", trial.apply_actions, {seat: action}, refusing=True)
        except InvalidAnswer as exc:
            return {"invalid": _invalid_text(exc, text)}
        return {}

    def _op_freeze(self, request: dict) -> dict:
        seat = request.get("seat")
        self._seat(seat)
        self.frozen.add(seat)
        freeze = getattr(self.game, "freeze", None)
        if callable(freeze):
            self.call("freeze", freeze, seat)
        return self._status(False)

    def _op_observe(self, request: dict) -> dict:
        seat = request.get("seat")
        self._seat(seat)
        return {"message": self._observe(seat)}

    def _op_lines(self, request: dict) -> dict:
        if self.module is None:
            raise GameModuleError("no game is loaded")
        return {"lines": self.call("lines", self.module.lines, request.get("message"))}

    def _op_argv(self, request: dict) -> dict:
        if self.module is None:
            raise GameModuleError("no game is loaded")
        return {"argv": self.call("argv", self.module.argv, request.get("message"))}

    def _op_check(self, request: dict) -> dict:
        """The game's own check of a replayed turn (``replay_check(turn, changes)``, ``changes``
        what the last ``apply_actions`` returned): None, or the difference it found."""
        method = getattr(self.game, "replay_check", None)
        if not callable(method) or not self.log:
            return {}
        problem = self.call("replay_check", method, request.get("turn"), self.log[-1])
        if problem is None:
            return {}
        if not isinstance(problem, str) or not problem.strip():
            raise GameModuleError(f"replay_check returned {_show(problem)}: None, or text saying what "
                                  "differs", None, "replay_check")
        return {"problem": problem[:MAX_PROBLEM_CHARS]}

    def _op_mark(self, request: dict) -> dict:
        """Where a seat's mark points (``mark_cells(seat, where)``): 1 to 3 whole numbers, or
        None (engine.core.marks)."""
        method = getattr(self.game, "mark_cells", None)
        seat, where = request.get("seat"), request.get("where")
        self._seat(seat)
        if not callable(method) or not isinstance(where, list) or not all(type(w) is int for w in where):
            return {"cells": None}
        cells = self.call("mark_cells", method, seat, tuple(where))
        return {"cells": mark_cells_of(cells)}

    # -- the game's answers, checked ------------------------------------------------------
    def _seat(self, seat: object) -> None:
        if type(seat) is not int or not 0 <= seat < self.players:
            raise GameModuleError(f"no seat {seat!r}")

    def _status(self, observe: bool) -> dict:
        game = self.game
        over = self.call("over", game.over)
        if over is not None and (not isinstance(over, str) or not over.strip()
                                 or len(over) > MAX_REASON_CHARS):
            raise GameModuleError(f"over returned {_show(over)}: None while the game goes on, else why it "
                                  f"ended (text of 1 to {MAX_REASON_CHARS} characters)", None, "over")
        if over is not None:
            return {"acting": [], "over": over, "scores": self._scores()}
        acting = self.call("acting_seats", game.acting_seats)
        if not isinstance(acting, (list, tuple)) or not acting or not all(
                type(s) is int and 0 <= s < self.players for s in acting) or len(set(acting)) != len(acting):
            raise GameModuleError(f"acting_seats returned {_show(acting)}, not a list of different seats "
                                  f"0 to {self.players - 1} (while over() is None, someone acts)",
                                  None, "acting_seats")
        status = {"acting": list(acting), "over": None}
        if observe:
            status["observations"] = {str(s): self._observe(s) for s in acting if s not in self.frozen}
        return status

    def _scores(self) -> list:
        scores = self.call("scores", self.game.scores)
        if not isinstance(scores, (list, tuple)) or len(scores) != self.players or not all(
                is_score(s) for s in scores):
            raise GameModuleError(f"scores returned {_show_scores(scores)}, not a list of {self.players} "
                                  f"numbers (whole or finite, at most {MAX_SCORE:.0e} in size)",
                                  None, "scores")
        return list(scores)

    def _observe(self, seat: int) -> Any:
        since = self.log[self.cursor[seat]:]
        self.cursor[seat] = len(self.log)
        return self.call("observation", self.game.observation, seat, since)  # JSON: checked in reply_text

    def _start_message(self, seat: int) -> Any:
        self.cursor[seat] = len(self.log)
        method = getattr(self.game, "start_message", None)
        if not callable(method):
            return {"seat": seat, "players": self.players}
        return as_json(self.call("start_message", method, seat), "a message", "start_message")

    def _record_start(self) -> dict:
        method = getattr(self.game, "record_start", None)
        start = self.call("record_start", method) if callable(method) else {}
        if not isinstance(start, dict) or "picture" in start:
            raise GameModuleError(f"record_start returned {_show(start)}, not a dict (without 'picture')",
                                  None, "record_start")
        return {**as_json(start, "a record", "record_start"), "picture": self._picture()}

    def _record_turn(self, actions: dict, changes: Any) -> dict:
        method = getattr(self.game, "record_turn", None)
        if callable(method):
            record = self.call("record_turn", method, actions, changes)
        else:
            record = {"changes": changes}
        if not isinstance(record, dict) or set(record) & {"seats", "answers", "faults", "picture"}:
            raise GameModuleError(f"record_turn returned {_show(record)}, not a dict (without seats, "
                                  "answers, faults or picture)", None, "record_turn")
        record = dict(record)  # checked as JSON in reply_text (and in the check game)
        picture = self._picture()
        text = json.dumps(picture)
        if text != self.picture_text:  # a picture is recorded only when it changed
            record["picture"] = picture
            self.picture_text = text
        return record

    def _picture(self) -> dict:
        picture = self.call("draw", self.game.draw)
        check_picture(picture)
        return picture

    def reply_text(self, request_text: str) -> str:
        """One request as JSON text in, its reply as JSON text out (the process's and the
        page Worker's entry point); a value that is not JSON is named by the method that made it."""
        try:
            request = json.loads(request_text)
        except ValueError:
            request = {}
        reply = self.handle(request if isinstance(request, dict) else {})
        try:
            text = json.dumps(reply, allow_nan=False)
        except (TypeError, ValueError, RecursionError):
            pass
        else:
            error = _over_limits(reply, text)
            if error is None:
                return text
            return json.dumps({"id": reply.get("id"), "error": error, "line": None, "method": None})
        for key, method in (("observations", "observation"), ("messages", "start_message"),
                            ("record", "record_turn"), ("start", "record_start"), ("lines", "lines")):
            try:
                json.dumps(reply.get(key), allow_nan=False)
            except (TypeError, ValueError, RecursionError) as exc:
                error = f"{method} returned a value that is not JSON: {exc}"
                break
        else:
            error = "the reply is not JSON"
        return json.dumps({"id": reply.get("id"), "error": error, "line": None, "method": None})

    # -- the check game ---------------------------------------------------------------------
    def _check_play(self) -> None:
        """A short game with every seat's default action, every answer checked, so a mistake
        shows at load, not in the middle of a contest."""
        info = self.module.info
        preset = info["presets"][0]
        players = 1 if info["alone"] else max(2, preset["bots"][0]) if preset["bots"][1] >= 2 else 1
        status = self._op_new({"settings": {**info["settings"], **preset["settings"]}, "players": players,
                               "seed": 1, "secret": "check"})
        error = _record_too_deep(status["start"], "record_start")
        if error:
            raise GameModuleError(error, None, "record_start")
        starts = status["messages"]
        clients = []
        stream = info["script_mode"] == "stream"
        for seat in range(players):
            client = self.call("FunctionClient()", self.module.function_client)
            self.call("FunctionClient.start", client.start, starts[seat])
            lines = self.call("lines", self.module.lines, starts[seat])
            self.call("argv", self.module.argv, starts[seat])
            if stream and "M" in lines:
                raise GameModuleError("lines of a start message have a line 'M': with SCRIPT_MODE 'stream' "
                                      "it asks a script bot for its move", None, "lines")
            clients.append(client)
        for _ in range(CHECK_TURNS):
            if status["over"] is not None:
                break
            actions = {}
            for key, message in status["observations"].items():
                seat = int(key)
                as_json(message, "a message", "observation")
                lines = self.call("lines", self.module.lines, message)
                self.call("argv", self.module.argv, message)
                if stream and (not lines or lines[-1] != "M" or lines.count("M") != 1):
                    raise GameModuleError(f"lines of an observation are {_show(lines)}: with SCRIPT_MODE "
                                          "'stream' they end with the one line 'M', which asks a script "
                                          "bot for its move", None, "lines")
                self.call("FunctionClient.view", clients[seat].view, message)
                default = self.call("default_action", self.game.default_action, seat)
                text = self.call("answer_text", self.module.answer_text, default)
                try:
                    self.call("parse_answer", self._parse, text, seat, refusing=True)
                except InvalidAnswer:
                    pass  # a default action need not be an answer a bot could give
                actions[key] = {"default": True}
            status = self._op_apply({"actions": actions})
            if "record" in status:  # the game's replay check passes the turn it just recorded
                seats = [int(key) for key in actions]
                turn = {"seats": seats, "answers": [None] * len(seats), "faults": [None] * len(seats),
                        **status["record"]}
                problem = self._op_check({"turn": turn})
                if problem:
                    raise GameModuleError(f"replay_check found a difference in a turn just played: "
                                          f"{problem['problem']}", None, "replay_check")
            method = "record_turn" if callable(getattr(self.game, "record_turn", None)) else "apply_actions"
            as_json(status.get("record"), "a record", method)
            error = _record_too_deep(status.get("record"), method)
            if error:
                raise GameModuleError(error, None, method)
            self._scores()  # scores() answers at any time, not only at the end
            if "invalid" in status:
                raise GameModuleError(f"apply_actions refused the default action: {status['invalid']}", None,
                                      "default_action")


# The reply's fields a game's methods make, and the method that made each.
_MADE_BY = (("record", "record_turn"), ("start", "record_start"), ("observations", "observation"),
            ("messages", "start_message"), ("lines", "lines"), ("argv", "argv"))


def _over_limits(reply: dict, text: str) -> str | None:
    """Why a reply (``text`` its JSON) may not be sent: over the reply's size, naming the method
    that made most of it. (Its nesting is the proxy's to check, at no cost here; the check game
    names a record nested too deep.)"""
    if len(text) > MAX_REPLY_BYTES:
        key, method = max(_MADE_BY, key=lambda made: len(json.dumps(reply.get(made[0]))))
        return f"{method} returned too much: the reply is over {MAX_REPLY_BYTES:,} bytes"
    return None


def _record_too_deep(record: object, method: str) -> str | None:
    depth = nesting_depth(json.dumps(record))
    if depth > MAX_RECORD_DEPTH:
        return (f"{method} returned a record nested {depth} deep; a record nests at most "
                f"{MAX_RECORD_DEPTH} deep, so that its replay can be read")
    return None


def _show_scores(scores: object) -> str:
    """Scores shown short: a huge whole number by its size, not its digits."""
    if isinstance(scores, (list, tuple)):
        scores = [f"<an int of {s.bit_length()} bits>" if type(s) is int and not -10**20 < s < 10**20 else s
                  for s in scores[:10]]
    return _show(scores)


def _invalid_text(exc: InvalidAnswer, answer: object) -> str:
    shown = exc.answer if exc.answer is not None else answer
    text = repr(shown)
    return f"{exc.reason}: {text if len(text) <= 80 else text[:77] + '...'}"


def _show(value: object) -> str:
    try:
        text = repr(value)
    except ValueError:  # an int of more digits than Python converts
        text = f"<a {type(value).__name__} too big to show>"
    return text if len(text) <= 60 else text[:57] + "..."


def _time_is_up(signum: int, frame: object) -> None:
    raise GameTimeLimit()


_handler_installed = False


def _start_timer(seconds: float) -> bool:
    """Arm SIGALRM to raise ``GameTimeLimit`` in the game's code (where signals exist: not in
    the page's Pyodide, whose Worker the controller stops instead)."""
    global _handler_installed
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        return False
    try:
        if not _handler_installed:
            signal.signal(signal.SIGALRM, _time_is_up)
            _handler_installed = True
        signal.setitimer(signal.ITIMER_REAL, seconds)
    except (OSError, ValueError):
        return False
    return True


def _stop_timer() -> None:
    signal.setitimer(signal.ITIMER_REAL, 0)


def main() -> None:
    """JSON lines on stdin/stdout; the game's prints are captured, never on the pipe."""
    channel_in, channel_out = sys.stdin, sys.stdout
    sys.stdout = sys.stderr
    host = GameHost()
    for line in channel_in:
        channel_out.write(host.reply_text(line) + "\n")
        channel_out.flush()


if __name__ == "__main__":
    main()
