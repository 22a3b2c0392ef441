"""The page's match controller, running in the controller Worker under Pyodide.

It answers the engine's one series core, ``series_steps``, as the native controller does
(``engine.play.match``), but each bot call is an ``await`` on a message to that bot's own Worker
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
import zlib

import arena_bridge  # registered by controller_worker.js

from engine.bots import python2
from engine.bots.answer import BotAnswer, cap_text
from engine.bots.budget_seal import SealCheck
from engine.bots.code import BotLoadError
from engine.bots.entries import BUILTIN
from engine.bots.python2 import PYTHON2, NotConverted, convert, python2_reason
from engine.bots.python2_convert import conversion_from_reply, over_time_message
from engine.bots.replayed_script import ReplayCredits
from engine.bots.reply import answer_from_reply
from engine.core.randomness import check_secret, new_secret
from engine.core.timing import hard_limit_ms
from engine.games.registry import games, get_game
from engine.play.driver import BotEvent, Call, Calls, GameStarted, TurnPlayed, TurnReply
from engine.play.game_proxy import GameCodeError
from engine.play.page_game import GameStopped, load_game_json
from engine.play.replay import ReplayError
from engine.play.replay_bundle import verify_any
from engine.play.reproduce import ReproduceError, game_inputs
from engine.play.series import GameFinished, series_steps

LOAD_LIMIT_MS = 20_000
FLUSH_MS = 50  # send the viewer new turns at most this often
FLUSH_TURNS = 256
YIELD_MS = 50  # how often a game hands the Worker's event loop a turn
MAX_TEXT = 4000  # a console event's text is cut here (head, tail, and how much was cut)
MAX_CODE_BYTES = 256 * 1024  # a bot's source, in UTF-8 bytes


class RunStopped(Exception):
    pass


def _post(event: dict) -> None:
    arena_bridge.post(json.dumps(event))


def _answer_from(checked: str, seals: SealCheck | None = None) -> BotAnswer:
    """A reply's fields as the controller Worker wrote them (a flat JSON object of strings,
    numbers and empty lists/objects it built itself from the checked reply); under a step
    budget (``seals``, which sent the request's nonce), judged by its sealed verdict."""
    try:
        data = json.loads(checked)
    except ValueError:  # cannot happen with the Worker's own text; a fault all the same
        data = None
    answer = answer_from_reply(data)
    if seals is not None:
        answer = seals.judge(answer, data.get("seal") if isinstance(data, dict) else None)
    return answer


def _fields(checked: str) -> dict:
    """A checked reply's fields (the controller Worker's own flat JSON)."""
    try:
        data = json.loads(checked)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


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
        self.seals: dict[int, SealCheck] = {}  # per bot slot, under a budget (budget_seal)
        self.credits = ReplayCredits()  # per bot slot: script bots run again each turn (push mode)

    def stop(self, run: int) -> None:
        self.stopped.add(run)

    async def _call(self, run: int, slot: int, request: dict, wait_ms: int) -> tuple[BotAnswer, float, bool]:
        self.next_id += 1
        request["id"] = self.next_id
        seals = self.seals.get(slot) if request["op"] in ("start", "turn") else None
        if seals is not None:
            request["nonce"] = seals.new_nonce()
        began = arena_bridge.now()
        op = request["op"]
        wait_ms = self.credits.wait_ms(slot, op, wait_ms)
        result = arena_bridge.ask(slot, self.next_id, op, json.dumps(request), wait_ms)
        if not isinstance(result, str):  # message modes: a Promise; shared memory: the reply
            result = await result
        self.awaited_ms += arena_bridge.now() - began
        elapsed, state, checked = result.split(";", 2)
        if state == "2" or run in self.stopped:
            raise RunStopped
        if op == "load":
            self.credits.loaded(slot, _fields(checked) if state == "1" else None)
        if state != "1":
            return BotAnswer(), float(elapsed), True
        return _answer_from(checked, seals), self.credits.timed(slot, op, float(elapsed)), False

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
        languages = [str(b.get("language") or "") for b in bots]  # "python2": converted on load
        steps = series_steps(spec, settings, names, seed if seed is not None else 0,
                             _int_or_none(request.get("games")) or 1, None, secret, budget=self.budget)

        self.turn_ms = [[] for _ in bots]
        self.awaited_ms = 0.0
        run_began = arena_bridge.now()
        await arena_bridge.prepare(len(bots))
        hard = hard_limit_ms(settings.time_limit_ms, self.budget is not None)
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
                    value = await self._load(run, step.bot, spec, names[step.bot], sources[step.bot],
                                             languages[step.bot])
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
                _console(run, step, index)
            elif isinstance(step, GameStarted):
                header = {k: v for k, v in step.record.items() if k not in ("turns", "result", "debug")}
                _post({"type": "record_start", "run": run, "index": index, "record": header})
            elif isinstance(step, GameFinished):
                if pending:
                    _post({"type": "turns", "run": run, "index": index, "turns": pending})
                    pending = []
                _post({"type": "record_end", "run": run, "index": index, "result": step.record["result"],
                       "debug": step.record.get("debug")})
                _post({"type": "summary", "run": run, "summary": step.summary})
                index += 1
        _post({"type": "done", "run": run, "series": document["summary"], "secret": secret,
               "timing": [_percentiles(times) for times in self.turn_ms],
               "wall_ms": arena_bridge.now() - run_began, "awaited_ms": self.awaited_ms})

    async def _load(self, run: int, slot: int, spec, name: str, source: str, language: str = "") -> BotAnswer:
        too_big = code_too_big(source)
        if too_big:
            return BotAnswer(error=too_big)
        load = {"op": "load", "game": spec.name, "name": name, "code": source}
        if language == PYTHON2 and not source.startswith("builtin:"):
            try:
                load.update(await python2_load(source))
            except BotLoadError as exc:
                return BotAnswer(error=exc.message, line=exc.line)
        if spec.game_module is not None:  # an author's game: its bot-side code goes with the bot
            load["game_module"] = spec.game_module
        self.seals.pop(slot, None)
        if self.budget is not None:
            self.seals[slot] = SealCheck(self.budget)
            load["budget"] = self.budget
            # first: in shared memory the later (shorter) requests write over it
            load = {"key": self.seals[slot].key, **load}
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


def _console(run: int, event: BotEvent, index: int | None = None) -> None:
    """A bot's output or fault for its console; a fault says where (game and turn) in its
    text, and ``where`` again for the mark on the faulting line in the bot's editor.
    ``index`` (the record, as the page numbers them) and ``turn`` take the viewer there."""
    where = event.where() if event.stream in ("fault", "error") else ""
    text = cap_text(event.text, MAX_TEXT)
    _post({"type": "console", "run": run, "bot": event.bot, "stream": event.stream,
           "text": f"{text.rstrip()} ({where})" if where else text, "line": event.line,
           "where": where or ("loading the bot" if event.stream == "error" else ""),
           "index": index if event.turn is not None else None, "turn": event.turn})


def _percentiles(times: list[float]) -> dict:
    """Median, 95th percentile and worst of a bot's round trips (ms): the page's results
    show the median and the worst, the page's bench reads them."""
    if not times:
        return {"turns": 0, "median_ms": None, "p95_ms": None, "max_ms": None}
    ordered = sorted(times)
    return {"turns": len(ordered), "total_ms": round(sum(ordered), 1),
            "median_ms": round(ordered[len(ordered) // 2], 3),
            "p95_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))], 3),
            "max_ms": round(ordered[-1], 3)}


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
    """A replay file the visitor opened, re-run through the rules by ``verify_any``.

    Returns JSON: ``{"document": ...}`` (its summary recomputed by the engine) or
    ``{"error": ...}`` naming the first difference. The file is untrusted: any failure is
    an error message, never an exception out of the controller.
    """
    try:
        document = verify_any(text)  # a game, a series, or a tournament's bundle
    except ReplayError as exc:
        return json.dumps({"error": str(exc)})
    except Exception as exc:  # noqa: BLE001 - a file from anywhere must end in a message
        return json.dumps({"error": f"the file could not be checked ({type(exc).__name__}: {exc})"[:500]})
    return json.dumps({"document": document})


def turn_input(text: str, turn: int) -> str:
    """The input each seat asked at ``turn`` of one game (the viewer's record, as a game file)
    was sent, derived by the rules (``engine.play.reproduce.game_inputs``): JSON ``{turn,
    inputs}`` or ``{error}``. The record is checked as an opened file is."""
    try:
        return json.dumps(game_inputs(text, int(turn)))
    except (ReplayError, ReproduceError) as exc:
        return json.dumps({"error": str(exc)[:500]})
    except Exception as exc:  # noqa: BLE001 - a record from anywhere must end in a message
        return json.dumps({"error": f"the input could not be derived ({type(exc).__name__}: {exc})"[:500]})


# ---- entries from a Stack Exchange question (issue 9; web/src/se_import.js fetches) --------
def se_question(text: str, site: str) -> str:
    """A question number or URL -> JSON ``{site, question, url}`` (the first page's API
    request) or ``{error}``."""
    from engine.contest.stackexchange import QuestionRefError, parse_question_ref

    try:
        ref = parse_question_ref(text, site)
    except QuestionRefError as exc:
        return json.dumps({"error": str(exc)})
    return json.dumps({"site": ref.site, "question": ref.question_id, "url": ref.answers_url(1),
                       "web": ref.web_url()})


def se_parse(items_json: str, site: str) -> str:
    """The API's answer items (JSON text of a list) -> JSON ``{entries, problems}``: the
    entries in the challenge file's form, and per answer that is not one, why."""
    from engine.contest.stackexchange import entries_from_answers

    try:
        entries, problems = entries_from_answers(json.loads(items_json), str(site))
    except (ValueError, TypeError) as exc:
        return json.dumps({"error": f"the answers could not be read ({exc})"[:500]})
    return json.dumps({"entries": [e.to_json() for e in entries],
                       "problems": [p.to_json() for p in problems]})


# -- challenge files and links (issue 9): checked by the engine, never by the page ------------

def check_challenge(text: str) -> str:
    """A challenge file or link the visitor opened, checked by ``engine.contest.challenge``.

    Returns JSON: ``{"challenge": ...}`` (the file's object as ``challenge_json`` writes it)
    or ``{"error": ...}``, the reader's one-line message. Never raises: the text is untrusted.
    """
    from engine.contest.challenge import ChallengeError, challenge_json, load_challenge

    try:
        challenge = load_challenge(text)
    except ChallengeError as exc:
        return json.dumps({"error": str(exc)})
    except Exception as exc:  # noqa: BLE001 - a file from anywhere must end in a message
        message = f"the challenge could not be checked ({type(exc).__name__}: {exc})"
        return json.dumps({"error": message[:500]})
    return json.dumps({"challenge": json.loads(challenge_json(challenge))})


# ---- tournaments (docs/architecture.md "Tournaments in the page") --------------------------
# The native tournament's own core (engine.contest.tournament: the plan, the standings, the ranking,
# the cross table) with matches played over the page's bot Workers, several at once. A
# match's seats are Workers the controller Worker hands out per entry
# (``arena_bridge.tournamentSeats``): a Worker only ever serves one entry's code.

MAX_KEPT_REPLAY_BYTES = 256 * 1024 * 1024  # compressed replays kept for the viewer, in all
MAX_PROBLEM_CHARS = 500  # an entry's first error, as the leaderboard shows it


class PageTournament:
    """One tournament run: ``{type: "tournament", run, challenge, parallel, budget, focus}``."""

    def __init__(self, owner: Controller, run: int, request: dict) -> None:
        from engine.contest.challenge import ChallengeError, load_challenge
        from engine.contest.tournament import tournament_from_challenge

        self.owner = owner
        self.run = run
        try:
            challenge = load_challenge(json.dumps(request.get("challenge")))
        except ChallengeError as exc:
            raise ValueError(f"the challenge: {exc}") from None
        self.title = challenge.title
        self.challenge = challenge  # its entries' authors and links, its secret (Markdown)
        self.budget = _int_or_none(request.get("budget"))
        if self.budget is not None and self.budget < 1:
            raise ValueError(f"the step budget is a positive whole number, not {self.budget}")
        self.tournament = tournament_from_challenge(challenge, budget=self.budget)
        self.spec = self.tournament.spec
        self.parallel_asked = _int_or_none(request.get("parallel"))
        focus = request.get("focus")
        self.focus = focus if isinstance(focus, str) and focus in self.tournament.names else None
        self.sources = [self.spec.example_source(e.text) if e.kind == BUILTIN else e.text
                        for e in self.tournament.entries]
        self.replays: dict[int, bytes] = {}
        self.replay_bytes = 0
        self.began = 0.0
        self.plan: dict = {}
        self.total = 0
        self.problems: dict[str, dict] = {}  # per entry, its first error or fault, for its author
        self.seals: dict[tuple[int, int], SealCheck] = {}  # per (group, seat), under a budget
        self.credits = ReplayCredits()  # per (group, seat): script bots run again each turn (push mode)

    async def play_all(self) -> None:
        from engine.contest.tournament import run_tournament_async

        t = self.tournament
        self.plan = json.loads(arena_bridge.tournamentBegin(t.seats, len(t.entries),
                                                            json.dumps(self.parallel_asked)))
        self.began = arena_bridge.now()
        self.total = t.first_round_size()
        self._progress(0)
        await run_tournament_async(t, self._play, int(self.plan["parallel"]),
                                   on_result=lambda done, total, result: self._progress(done, result))
        _post({"type": "tournament-done", "run": self.run, **self._board(),
               "tournament": t.to_json(), "elapsed_ms": round(arena_bridge.now() - self.began),
               "plan": self.plan, "workers": json.loads(arena_bridge.tournamentWorkers())})

    # -- one match
    async def _play(self, match):
        from engine.contest.tournament import failed_match, match_settings, result_of_series

        t = self.tournament
        settings = match_settings(self.spec, t.preset, t.overrides, len(match.table))
        names = [t.names[e] for e in match.table]
        group = await arena_bridge.tournamentSeats(json.dumps(list(match.table)))
        try:
            document = await self._series(group, match, settings, names)
        except GameCodeError as exc:  # an author's game failed in this game: the others go on
            return failed_match(match, exc.message)
        finally:
            arena_bridge.tournamentFree(group)
        self._keep_replay(match.index, document)
        return result_of_series(match, document)

    async def _series(self, group: int, match, settings, names: list[str]) -> dict:
        steps = series_steps(self.spec, settings, names, match.seed, 1, None, self.tournament.secret,
                             budget=self.budget)
        hard = hard_limit_ms(settings.time_limit_ms, self.budget is not None)
        value = None
        while True:
            if self.run in self.owner.stopped:
                raise RunStopped
            try:
                step = steps.send(value)
            except StopIteration as done:
                return done.value
            value = None
            if isinstance(step, Calls):
                value = {}
                for call in step.calls:
                    turn = {"op": "turn", "message": call.message}
                    answer, elapsed, silent = await self._ask(group, call.bot, turn, hard)
                    value[call.seat] = TurnReply(answer, elapsed, silent, self.budget is not None)
            elif isinstance(step, Call):
                value = await self._call(group, step, match)
            elif isinstance(step, BotEvent) and step.stream in ("error", "fault"):
                name = names[step.bot]
                if name not in self.problems:
                    self.problems[name] = {"text": step.text[:MAX_PROBLEM_CHARS], "line": step.line,
                                           "game": match.index, "turn": step.turn}

    async def _call(self, group: int, step: Call, match) -> BotAnswer:
        if step.op == "load":
            source = self.sources[match.table[step.bot]]
            too_big = code_too_big(source)
            if too_big:
                return BotAnswer(error=too_big)
            entry = self.tournament.entries[match.table[step.bot]]
            name = self.tournament.names[match.table[step.bot]]
            request = {"op": "load", "game": self.spec.name, "name": name, "code": source}
            if self.spec.game_module is not None:  # an author's game: its bot-side code goes with the bot
                request["game_module"] = self.spec.game_module
            if entry.kind != BUILTIN and entry.language == PYTHON2:
                try:
                    request.update(await python2_load(source))
                except BotLoadError as exc:
                    return BotAnswer(error=exc.message, line=exc.line)
            self.seals.pop((group, step.bot), None)
            if self.budget is not None:
                seals = self.seals[group, step.bot] = SealCheck(self.budget)
                request["budget"] = self.budget
                request = {"key": seals.key, **request}  # first: see Controller._load
            answer, _, silent = await self._ask(group, step.bot, request, LOAD_LIMIT_MS)
            return BotAnswer(error="the bot did not finish loading in time") if silent else answer
        request = {"op": step.op, "message": step.message}
        if step.seed is not None:
            request["seed"] = step.seed
        answer, _, silent = await self._ask(group, step.bot, request, LOAD_LIMIT_MS)
        return BotAnswer(error=f"no reply to '{step.op}'") if silent else answer

    async def _ask(self, group: int, seat: int, request: dict, wait_ms: int) -> tuple[BotAnswer, float, bool]:
        self.owner.next_id += 1
        request["id"] = rid = self.owner.next_id
        seals = self.seals.get((group, seat)) if request["op"] in ("start", "turn") else None
        if seals is not None:
            request["nonce"] = seals.new_nonce()
        text, op, key = json.dumps(request), request["op"], (group, seat)
        wait_ms = self.credits.wait_ms(key, op, wait_ms)
        result = await arena_bridge.tournamentAsk(group, seat, rid, op, text, wait_ms)
        elapsed, state, checked = result.split(";", 2)
        if state == "2" or self.run in self.owner.stopped:
            raise RunStopped
        if op == "load":
            self.credits.loaded(key, _fields(checked) if state == "1" else None)
        if state != "1":
            return BotAnswer(), float(elapsed), True
        return _answer_from(checked, seals), self.credits.timed(key, op, float(elapsed)), False

    # -- what the page is sent
    def _keep_replay(self, index: int, document: dict) -> None:
        packed = zlib.compress(json.dumps(document).encode("utf-8"), 6)
        if self.replay_bytes + len(packed) <= MAX_KEPT_REPLAY_BYTES:
            self.replays[index] = packed
            self.replay_bytes += len(packed)

    def replay(self, index: int) -> dict:
        packed = self.replays.get(index)
        if packed is None:
            result = self.tournament.results.get(index)
            reason = ("that game has not been played" if result is None else result.error if result.error
                      else "its replay was not kept (the page keeps 256 MB of replays)")
            return {"error": f"game {index + 1}: {reason}"}
        return {"document": json.loads(zlib.decompress(packed))}

    def _board(self) -> dict:
        """The leaderboard as the engine ranks it now (and the cross table in pairs)."""
        from engine.contest.standings import PAIRS, cross_table, leaderboard_rows

        t = self.tournament
        ranking = t.ranking()
        rows = leaderboard_rows(ranking, t.by)
        for row in rows:
            row["focus"] = row["name"] == self.focus
        board = {"title": self.title, "game": self.spec.name, "format": t.kind, "ranked_by": t.by,
                 "seats": t.seats, "first_seed": t.first_seed, "secret": t.secret, "rows": rows,
                 "cross": None, "order": [r.name for r in ranking], "problems": dict(self.problems)}
        if t.kind == PAIRS:
            board["cross"] = cross_table(t.names, t.ordered_results(), board["order"])
        return board

    def _progress(self, done: int, result=None) -> None:
        elapsed = arena_bridge.now() - self.began
        total = max(self.total, done)
        eta = round(elapsed / done * (total - done)) if done else None
        played = None
        if result is not None:
            t = self.tournament
            played = {"index": result.index, "seed": result.seed, "seats": [t.names[e] for e in result.table],
                    "scores": list(result.scores), "faults": list(result.faults),
                    "winner": None if result.winner is None else t.names[result.table[result.winner]],
                    **({"error": result.error} if result.error is not None else {})}
        _post({"type": "tournament-progress", "run": self.run, "done": done, "total": total,
               "elapsed_ms": round(elapsed), "eta_ms": eta, "plan": self.plan, "played": played,
               "workers": json.loads(arena_bridge.tournamentWorkers()), **self._board()})


tournaments: dict[int, PageTournament] = {}  # the latest run's, for its replays


async def run_tournament(request_json: str) -> None:
    """A tournament run (the controller Worker's ``tournament`` message); ends with
    ``tournament-done``, ``stopped`` or ``error``, as a match run does."""
    request = json.loads(request_json)
    run = int(request.get("run", 0))
    try:
        page = PageTournament(controller, run, request)
        tournaments.clear()
        tournaments[run] = page
        await page.play_all()
    except RunStopped:
        _post({"type": "stopped", "run": run})
    except Exception as exc:  # noqa: BLE001 - any failure must reach the page as a message
        _post({"type": "error", "run": run, "message": f"{type(exc).__name__}: {exc}"})
    finally:
        arena_bridge.tournamentEnd()


def tournament_replay(run: int, index: int) -> str:
    """One game's replay document of the latest tournament, as JSON text."""
    page = tournaments.get(int(run))
    if page is None:
        return json.dumps({"error": "that tournament's games are no longer kept"})
    return json.dumps(page.replay(int(index)))


def tournament_file(run: int, what: str, date: str) -> str:
    """The latest tournament as a file (web/src/tournament_files.js): ``what`` "markdown",
    its leaderboard as ``python -m engine tournament --markdown`` writes it
    (engine.contest.leaderboard_markdown; ``date``: the day, ISO), or "bundle", every kept game's
    replay in one tournament file (engine.play.replay_bundle). JSON ``{text}`` or ``{error}``."""
    from engine import __version__
    from engine.contest.leaderboard_markdown import challenge_credits, tournament_markdown
    from engine.play.replay import MAX_DOCUMENT_CHARS
    from engine.play.replay_bundle import tournament_bundle

    page = tournaments.get(int(run))
    if page is None:
        return json.dumps({"error": "that tournament is no longer kept"})
    t = page.tournament
    if what == "markdown":
        c = page.challenge
        return json.dumps({"text": tournament_markdown(
            t, challenge_credits(c), date=str(date)[:10], version=__version__, title=c.title or None,
            public_secret=c.secret)})
    if what != "bundle":
        return json.dumps({"error": f"no tournament file {what!r}"})
    missing = [i + 1 for i, r in sorted(t.results.items()) if r.error is None and i not in page.replays]
    if missing or not page.replays:
        return json.dumps({"error": f"game {missing[0] if missing else 1} has no replay kept: download the "
                                    "games one by one"})
    matches = [json.loads(zlib.decompress(page.replays[i])) for i in sorted(page.replays)]
    text = json.dumps(tournament_bundle(t.spec.name, t.names, matches))
    if len(text) > MAX_DOCUMENT_CHARS:
        return json.dumps({"error": f"all the games make {len(text) / 2**20:.0f} MB, more than a replay "
                                    f"file may hold ({MAX_DOCUMENT_CHARS // 2**20} MB): download the "
                                    "games one by one"})
    return json.dumps({"text": text})


# ---- a Stack Snippet of the challenge (issue 9; web/src/snippet_export.js) ------------------
def export_snippet(challenge_text: str, options_json: str) -> str:
    """The challenge (the page's, as a challenge file's text) as a Stack Snippet's markdown.

    ``options``: ``{question, site, wheelUrl, sha256, pyodideVersion}`` (question and the URL
    and hash optional). Returns JSON ``{markdown, size, limit}``, or ``{error}`` (a bad
    challenge or option, or a snippet over the post's limit, with its ``size``)."""
    from engine import __version__
    from engine.contest.challenge import ChallengeError
    from engine.contest.snippet import MAX_POST_CHARS, SnippetError, SnippetOptions, SnippetTooBig
    from engine.contest.snippet import export_snippet as markdown_of
    from engine.contest.stackexchange import QuestionRefError, parse_question_ref

    try:
        options = json.loads(options_json)
        question = str(options.get("question") or "").strip()
        ref = parse_question_ref(question, str(options.get("site") or "codegolf")) if question else None
        snippet = SnippetOptions(
            version=__version__, pyodide_version=str(options.get("pyodideVersion") or ""),
            wheel_url=str(options.get("wheelUrl") or "").strip() or None,
            wheel_sha256=str(options.get("sha256") or "").strip().lower() or None, question=ref)
        markdown = markdown_of(challenge_text, snippet)
    except SnippetTooBig as exc:
        return json.dumps({"error": str(exc), "size": exc.size, "limit": MAX_POST_CHARS})
    except (ChallengeError, QuestionRefError, SnippetError) as exc:
        return json.dumps({"error": str(exc)})
    return json.dumps({"markdown": markdown, "size": len(markdown), "limit": MAX_POST_CHARS,
                       "version": __version__})
# ---- Python 2 answers (engine.bots.python2): converted in a conversion Worker, never here ----
# (fissix is quadratic on some texts). This Worker's Python only keeps each outcome, by the
# source's SHA-256; arena_bridge.convertPython2 runs the conversion and this waits for it with
# the Worker's event loop free.
python2.set_converter(python2.cache_only)


async def _convert_in_worker(source: str) -> None:
    """The source's conversion done in the conversion Worker and kept (unless it is at hand, or
    too long to try: ``convert`` says so)."""
    if python2.converted(source) or len(source.encode("utf-8", "surrogatepass")) > python2.MAX_SOURCE_BYTES:
        return
    try:
        text = str(await arena_bridge.convertPython2(source))
    except Exception as exc:  # noqa: BLE001 - a JavaScript failure: the bot's load error, not the run's
        message = f"its Python 2 conversion failed ({type(exc).__name__}: {exc})"
        raise BotLoadError(message[:500], None) from None
    try:
        reply = json.loads(text)  # flat: checked and rebuilt in JavaScript (checkedConversion)
    except (ValueError, RecursionError):
        reply = None
    if isinstance(reply, dict) and reply.get("cancelled") is True:
        raise BotLoadError("its Python 2 conversion was cancelled: the run was stopped", None)
    outcome: python2.Conversion | BotLoadError
    if isinstance(reply, dict) and type(reply.get("over_time_s")) is int:
        outcome = BotLoadError(over_time_message(reply["over_time_s"]), None)
    elif isinstance(reply, dict) and isinstance(reply.get("stopped"), str):
        outcome = BotLoadError(f"its Python 2 conversion failed: {reply['stopped'][:300]}", None)
    else:
        try:
            outcome = conversion_from_reply(source, reply)
        except BotLoadError as exc:
            outcome = exc
    python2.store(source, outcome)


async def python2_load(source: str) -> dict:
    """The load request's fields for a Python 2 answer: the converted code and its line map
    (``BotLoadError`` naming the author's line when it is not Python 2 either, or saying which
    of its limits the conversion went over)."""
    await _convert_in_worker(source)
    return convert(source).to_json()


async def python2_view(code: str, with_conversion: bool) -> str:
    """For a bot editor: whether its code looks like Python 2 (the one-click suggestion's
    reason, or null) and, when asked, its conversion (read-only text and a diff) or why it
    does not convert. JSON; any failure is a message, never an exception. Code that parses as
    Python 3 is checked without a conversion."""
    out: dict = {"reason": None}
    try:
        try:
            out["reason"] = python2_reason(code)
        except NotConverted:
            await _convert_in_worker(code)
            out["reason"] = python2_reason(code)
        if with_conversion:
            await _convert_in_worker(code)
            conversion = convert(code)
            out.update(converted=conversion.converted, diff=conversion.diff())
    except BotLoadError as exc:
        out.update(error=exc.message, line=exc.line)
    except Exception as exc:  # noqa: BLE001 - the page shows it; the controller carries on
        out["error"] = f"the conversion failed ({type(exc).__name__}: {exc})"[:500]
    return json.dumps(out)


async def load_game(source: str) -> str:
    """An author's game module (from the page's game editor), read and checked in a Worker of
    its own and registered: ``{"spec": ...}`` or ``{"error", "line"}`` (engine.play.page_game)."""
    await arena_bridge.gameWorker()  # started and ready before any request (no waiting inside)
    return load_game_json(arena_bridge, source)
