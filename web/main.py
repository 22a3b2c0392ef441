"""The page's match controller, running in the controller Worker under Pyodide.

It answers the engine's one series core, ``series_steps``, as the native controller does
(``engine.match``), but each bot call is an ``await`` on a message to that bot's own Worker
(``arena_bridge.ask``, defined in ``web/src/controller_worker.js``, which measures the time and
stops silent bots).
Everything the page shows arrives as ``arena_bridge.post`` events (docs/architecture.md).

A bot's reply is untrusted: the controller Worker parses it in JavaScript and hands this
module only its fields, flat, which ``engine.bots.reply.answer_from_reply`` checks as it
does for every other transport.
"""

from __future__ import annotations

import asyncio
import json

import arena_bridge  # registered by controller_worker.js

from engine.bots.answer import BotAnswer
from engine.bots.reply import answer_from_reply
from engine.driver import BotEvent, Call, Calls, GameStarted, TurnPlayed, TurnReply
from engine.game_proxy import GameCodeError
from engine.games.randomness import check_secret, new_secret
from engine.page_game import GameStopped, load_game_json
from engine.registry import games, get_game
from engine.replay import ReplayError, verify_document
from engine.series import GameFinished, series_steps
from engine.timing import hard_limit_ms

LOAD_LIMIT_MS = 20_000
FLUSH_MS = 50  # send the viewer new turns at most this often
FLUSH_TURNS = 256
YIELD_MS = 50  # how often a game hands the Worker's event loop a turn
MAX_TEXT = 4000  # a console event's text is cut here
MAX_CODE_BYTES = 256 * 1024  # a bot's source, in UTF-8 bytes


class RunStopped(Exception):
    pass


def _post(event: dict) -> None:
    arena_bridge.post(json.dumps(event))


def _answer_from(checked: str) -> BotAnswer:
    """A reply's fields as the controller Worker wrote them (a flat JSON object of strings,
    numbers and empty lists/objects it built itself from the checked reply)."""
    try:
        data = json.loads(checked)
    except ValueError:  # cannot happen with the Worker's own text; a fault all the same
        data = None
    return answer_from_reply(data)


def code_too_big(code: str) -> str | None:
    """Why a bot's source is refused before it is sent to its Worker, or None."""
    size = len(code.encode("utf-8", "replace"))
    if size <= MAX_CODE_BYTES:
        return None
    return (f"the bot's code is {size:,} bytes, more than the {MAX_CODE_BYTES:,} bytes a bot "
            "may have; it was not loaded")


class Controller:
    def __init__(self) -> None:
        self.stopped: set[int] = set()
        self.next_id = 0
        self.turn_ms: list[list[float]] = []  # per bot: each turn's round trip, for the bench
        self.awaited_ms = 0.0  # time spent waiting for bots in the last run
        self.budget: int | None = None  # the run's steps per move (None: limited by time)

    def stop(self, run: int) -> None:
        self.stopped.add(run)

    async def _call(self, run: int, slot: int, request: dict, wait_ms: int) -> tuple[BotAnswer, float, bool]:
        self.next_id += 1
        request["id"] = self.next_id
        began = arena_bridge.now()
        result = arena_bridge.ask(slot, self.next_id, request["op"], json.dumps(request), wait_ms)
        if not isinstance(result, str):  # message modes: a Promise; shared memory: the reply
            result = await result
        self.awaited_ms += arena_bridge.now() - began
        elapsed, state, checked = result.split(";", 2)
        if state == "2" or run in self.stopped:
            raise RunStopped
        if state != "1":
            return BotAnswer(), float(elapsed), True
        return _answer_from(checked), float(elapsed), False

    async def run(self, request_json: str) -> None:
        request = json.loads(request_json)
        run = int(request.get("run", 0))
        try:
            await self._run(run, request)
        except (RunStopped, GameStopped):
            _post({"type": "stopped", "run": run})
        except GameCodeError as exc:  # an author's game broke: its method and line
            _post({"type": "error", "run": run, "message": f"the game failed: {exc.message}"})
        except Exception as exc:  # noqa: BLE001 - any failure must reach the page as a message
            _post({"type": "error", "run": run, "message": f"{type(exc).__name__}: {exc}"})
        finally:
            await arena_bridge.release()

    async def _run(self, run: int, request: dict) -> None:
        spec = get_game(str(request.get("game")))
        bots = request.get("bots") or []
        settings = spec.settings(request.get("preset") or None, **run_settings(spec, request, len(bots)))
        seed = _int_or_none(request.get("seed"))
        secret = _run_secret(request.get("secret"))
        # steps per move (engine.bots.step_budget), counted in each bot's Worker; none: time
        self.budget = _int_or_none(request.get("budget"))
        names = [str(b.get("name") or f"Bot {i + 1}")[:40] for i, b in enumerate(bots)]
        sources = [self._source(spec, str(b.get("code") or "")) for b in bots]
        steps = series_steps(spec, settings, names, seed if seed is not None else 0,
                             _int_or_none(request.get("games")) or 1, None, secret)

        self.turn_ms = [[] for _ in bots]
        self.awaited_ms = 0.0
        run_began = arena_bridge.now()
        await arena_bridge.prepare(len(bots))
        hard = hard_limit_ms(settings.time_limit_ms)
        index = 0  # the game being played, as the page numbers records
        pending: list[dict] = []
        last_flush = last_yield = arena_bridge.now()
        value = None
        while True:
            if arena_bridge.now() - last_yield >= YIELD_MS:
                # Bot calls may block this Worker (shared-memory mode): let its event loop
                # run now and then, for Stop and for the Workers' messages.
                await asyncio.sleep(0)
                last_yield = arena_bridge.now()
                if arena_bridge.stopRequested():
                    raise RunStopped
            if run in self.stopped:
                raise RunStopped
            try:
                step = steps.send(value)
            except StopIteration as done:
                document = done.value
                break
            value = None
            if isinstance(step, Calls):
                value = await self._turn(run, step, hard)
            elif isinstance(step, Call):
                if step.op == "load":
                    value = await self._load(run, step.bot, spec, names[step.bot], sources[step.bot])
                else:
                    request = {"op": step.op, "message": step.message}
                    if step.seed is not None:
                        request["seed"] = step.seed  # the bot's random: the host seeds it
                    answer, _, silent = await self._call(run, step.bot, request, LOAD_LIMIT_MS)
                    value = BotAnswer(error=f"no reply to '{step.op}'") if silent else answer
            elif isinstance(step, TurnPlayed):
                pending.append(step.turn)
                now = arena_bridge.now()
                if len(pending) >= FLUSH_TURNS or now - last_flush >= FLUSH_MS:
                    _post({"type": "turns", "run": run, "index": index, "turns": pending})
                    pending, last_flush = [], now
            elif isinstance(step, BotEvent):
                _console(run, step)
            elif isinstance(step, GameStarted):
                header = {k: v for k, v in step.record.items() if k not in ("turns", "result")}
                _post({"type": "record_start", "run": run, "index": index, "record": header})
            elif isinstance(step, GameFinished):
                if pending:
                    _post({"type": "turns", "run": run, "index": index, "turns": pending})
                    pending = []
                _post({"type": "record_end", "run": run, "index": index, "result": step.record["result"]})
                _post({"type": "summary", "run": run, "summary": step.summary})
                index += 1
        _post({"type": "done", "run": run, "series": document["summary"], "secret": secret,
               "timing": [_percentiles(times) for times in self.turn_ms],
               "wall_ms": arena_bridge.now() - run_began, "awaited_ms": self.awaited_ms})

    async def _load(self, run: int, slot: int, spec, name: str, source: str) -> BotAnswer:
        too_big = code_too_big(source)
        if too_big:
            return BotAnswer(error=too_big)
        load = {"op": "load", "game": spec.name, "name": name, "code": source}
        if spec.game_module is not None:  # an author's game: its bot-side code goes with the bot
            load["game_module"] = spec.game_module
        if self.budget is not None:
            load["budget"] = self.budget
        answer, _, silent = await self._call(run, slot, load, LOAD_LIMIT_MS)
        return BotAnswer(error="the bot did not finish loading in time") if silent else answer

    async def _turn(self, run: int, calls: Calls, hard: int) -> dict[int, TurnReply]:
        """One turn's questions; each bot's Worker is asked in turn (a bot's round trip is
        timed on its own, so asking in parallel would change no result)."""
        replies = {}
        for call in calls.calls:
            answer, elapsed, silent = await self._call(
                run, call.bot, {"op": "turn", "message": call.message}, hard)
            replies[call.seat] = TurnReply(answer, elapsed, silent, self.budget is not None)
            self.turn_ms[call.bot].append(elapsed)
        return replies

    @staticmethod
    def _source(spec, code: str) -> str:
        if code.strip().startswith("builtin:"):
            return spec.example_source(code.strip().split(":", 1)[1].strip())
        return code


def run_settings(spec, request: dict, n_bots: int) -> dict:
    """The settings a run request overrides: ``settings: {key: value}`` for the spec's
    editable fields (a key the game does not have is refused), the number of players from
    the bots, and the transition's flat ``time_limit_ms``/``max_moves`` keys."""
    overrides: dict = {}
    for item in spec.fields:
        if item.key in request:  # the request shape before ``settings``
            overrides[item.key] = _int_or_none(request.get(item.key))
    given = request.get("settings") or {}
    if not isinstance(given, dict):
        raise ValueError("settings is an object of field: value")
    for key, value in given.items():
        if spec.field(key) is None:
            raise ValueError(f"{spec.title} has no setting {key!r}; "
                             f"it has {', '.join(f.key for f in spec.fields)}")
        overrides[key] = _int_or_none(value)
    if spec.players_setting:
        overrides[spec.players_setting] = n_bots
    return overrides


def _console(run: int, event: BotEvent) -> None:
    _post({"type": "console", "run": run, "bot": event.bot, "stream": event.stream,
           "text": event.text[:MAX_TEXT], "line": event.line})


def _percentiles(times: list[float]) -> dict:
    """Median and 95th percentile of a bot's round trips (ms): the page's bench reads them."""
    if not times:
        return {"turns": 0, "median_ms": None, "p95_ms": None}
    ordered = sorted(times)
    return {"turns": len(ordered), "total_ms": round(sum(ordered), 1),
            "median_ms": round(ordered[len(ordered) // 2], 3),
            "p95_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))], 3)}


def _run_secret(value: object) -> str:
    """The run request's secret; none or empty: a fresh one, sent back with the results."""
    if value is None or value == "":
        return new_secret()
    try:
        return check_secret(value)
    except ValueError as exc:
        raise ValueError(f"the secret: {exc}") from None


def _int_or_none(value: object) -> int | None:
    try:
        return int(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


controller = Controller()


def games_json() -> str:
    """Every game's spec as the page builds its menus, forms and limits from it."""
    return json.dumps([spec.to_json() for spec in games()])


def verify_replay(text: str) -> str:
    """A replay file the visitor opened, re-run through the rules by ``verify_document``.

    Returns JSON: ``{"document": ...}`` (its summary recomputed by the engine) or
    ``{"error": ...}`` naming the first difference. The file is untrusted: any failure is
    an error message, never an exception out of the controller.
    """
    try:
        document = verify_document(text)
    except ReplayError as exc:
        return json.dumps({"error": str(exc)})
    except Exception as exc:  # noqa: BLE001 - a file from anywhere must end in a message
        return json.dumps({"error": f"the file could not be checked ({type(exc).__name__}: {exc})"[:500]})
    return json.dumps({"document": document})


async def load_game(source: str) -> str:
    """An author's game module (from the page's game editor), read and checked in a Worker of
    its own and registered: ``{"spec": ...}`` or ``{"error", "line"}`` (engine.page_game)."""
    await arena_bridge.gameWorker()  # started and ready before any request (no waiting inside)
    return load_game_json(arena_bridge, source)
