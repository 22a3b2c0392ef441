"""One game between seats as a step machine, whatever carries the messages to the bots.

The session decides whom to ask each turn (every acting seat that is not frozen) and what
to tell each of them, classifies each reply (invalid, error, time-out), applies the game's
fault policy, plays the turn once with every acting seat's action, and builds the replay
record. It never waits: ``engine.play.driver.game_steps`` wraps it in a generator that the
native controller (``engine.play.match``) answers with plain calls and the page's controller
(``web/main.py``) with ``await``s, asking a turn's bots in parallel if it likes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from engine.bots.answer import cap_text
from engine.core.errors import AnswerError
from engine.core.marks import mark_cells_of, parse_marks
from engine.core.outcome import Fault, FaultKind, Outcome
from engine.core.spec import GameSpec
from engine.play.debug_part import MAX_MS, DebugLog, micros

SCHEMA_VERSION = 3  # 3: a record may carry its debug part (engine.play.debug_part)
MAX_ANSWER_CHARS = 200
MAX_ERROR_CHARS = 4_000  # a fault's message, in the record and the console
GAME_ERROR_CHARS = 100_000  # of one seat's fault messages per game; past it, each is short
SHORT_ERROR_CHARS = 200


@dataclass(slots=True)
class Request:
    """Ask ``seat`` for a move; ``message`` is the game's structured observation."""

    seat: int
    message: dict


@dataclass(slots=True)
class Reply:
    """What came back from a bot for one request."""

    answer: str | None = None
    error: str | None = None  # the bot raised (text of the exception)
    line: int | None = None  # line of the bot's code where it raised, if known
    elapsed_ms: float = 0.0
    no_answer: bool = False  # nothing before the hard limit: the bot was stopped
    over_budget: bool = False  # ``error`` is the step budget's: a time-out fault
    steps_counted: bool = False  # limited by steps: no soft time limit (the hard one stays)
    stdout: str = ""  # what the bot printed for this request: for the record's debug part
    stderr: str = ""


@dataclass(slots=True)
class TurnResult:
    """One turn played: its record, the faults of the seats asked (not of frozen seats
    that sat it out), and the seats this turn froze."""

    turn: dict = field(repr=False)
    faults: Mapping[int, Fault]
    frozen_now: Sequence[int]


NO_FAULTS: Mapping[int, Fault] = MappingProxyType({})  # a good turn's (shared, read-only)
NO_SEATS: tuple[int, ...] = ()
FROZEN_FAULT = Fault(FaultKind.FROZEN, "frozen: not asked")
NO_REPLY = Reply(no_answer=True)
NO_REPLIES: Mapping[int, Reply] = MappingProxyType({})
_READ_ERRORS = (ValueError, TypeError, ArithmeticError, RecursionError, MemoryError)
_REFUSED = object()  # a quiet turn's answer that was refused: left to ``submit``


class GameSession:
    def __init__(self, spec: GameSpec, settings: Any, seed: int, bot_names: list[str],
                 bot_index: list[int] | None = None, secret: str | None = None,
                 budget: int | None = None) -> None:
        self.spec = spec
        self.wire = spec.wire
        self.settings = settings
        self.seed = seed
        self.state = spec.new_game(settings, seed, 1 if spec.side_by_side else len(bot_names),
                                   secret=secret)
        self.time_limit_ms = settings.time_limit_ms
        seats = len(bot_names)
        self.consecutive_faults = [0] * seats
        self.frozen = [False] * seats
        self._log: list[Any] = []  # each turn's changes, for the bots' messages
        self._cursor = [0] * seats  # per seat: how much of the log it has been told
        self._pending: list[Request] | None = None
        self._alone = False  # the pending turn is one seat's alone
        self.debug = DebugLog(seats)  # each reply's output and time, apart from the rules' part
        self._mark_cells = getattr(self.wire, "mark_cells", None)  # the game's marks (engine.core.marks)
        self.record: dict = {
            "schema_version": SCHEMA_VERSION,
            "kind": "game",
            "game": spec.name,
            "settings": settings.to_json(),
            "seed": seed,
            **({"secret": secret} if secret is not None else {}),  # none: a record before secrets
            **({"budget": budget} if budget is not None else {}),  # steps a move; none: time alone
            "bots": list(bot_names),
            "bot_index": list(bot_index if bot_index is not None else range(seats)),
            "start": self.wire.record_start(self.state),
            "start_faults": [0] * seats,
            "turns": [],
            "result": None,
            "debug": self.debug.part,
        }

    # -- start ------------------------------------------------------------------------
    def start_message(self, seat: int) -> dict:
        self._cursor[seat] = len(self._log)
        return self.wire.start_message(self.state, seat)

    def fail_to_start(self, seat: int, error: str, line: int | None = None) -> Fault:
        """The bot's code could not load or start: it is frozen from the start."""
        fault = Fault(FaultKind.ERROR, _error_text(error) or "the bot did not start",
                      line if isinstance(line, int) and not isinstance(line, bool) else None)
        self.record["start_faults"][seat] += 1
        self._freeze(seat)
        return fault

    # -- turns ------------------------------------------------------------------------
    def next_requests(self) -> list[Request] | None:
        """The requests of the next turn, one per acting seat that is not frozen, playing
        turns where every acting seat is frozen on the way; None at the end."""
        state, frozen, wire, log, cursor = self.state, self.frozen, self.wire, self._log, self._cursor
        while not state.is_terminal():
            seats = state.acting_seats()
            if len(seats) == 1 and not frozen[seats[0]]:  # the common case, made quick
                seat = seats[0]
                changes = log[cursor[seat]:]
                cursor[seat] = len(log)
                self._pending = [Request(seat, wire.observation(state, seat, changes))]
                self._alone = True
                return self._pending
            requests = []
            for seat in seats:
                if not frozen[seat]:
                    changes = log[cursor[seat]:]
                    cursor[seat] = len(log)
                    requests.append(Request(seat, wire.observation(state, seat, changes)))
            if requests:
                self._pending = requests
                self._alone = False
                return requests
            if not seats:
                raise RuntimeError(f"{self.spec.name}: no seat acts, yet the game is not over")
            self._play(seats, {}, {}, {seat: FROZEN_FAULT for seat in seats},
                       {seat: state.default_action(seat) for seat in seats})
        self._finish()
        return None

    def play_quiet(self, ask: Callable[[int, dict], Any], bots: Sequence[int]) -> tuple[int, Any] | None:
        """Play the turns one seat acts in, for a controller that answers synchronously:
        ``ask(bots[seat], message)`` returns a ``TurnReply`` (``engine.play.driver``). The same
        turns, records and messages as ``next_requests`` and ``submit`` make of them, for
        as long as every reply is a good answer, in time, with no output and no error.

        Returns ``(seat, reply)`` for a reply that needs more (output to show, a fault):
        its turn is then pending, as after ``next_requests``, for ``submit``. None when the
        next turn is not one seat's alone, or the game is over: go on with ``next_requests``.
        """
        if self._pending is not None:
            raise RuntimeError("a request is pending")
        state, frozen, log, cursor = self.state, self.frozen, self._log, self._cursor
        wire, turns, faults_in_row = self.wire, self.record["turns"], self.consecutive_faults
        observation = wire.observation
        is_terminal, acting_seats = state.is_terminal, state.acting_seats
        # a trusted game's own calls (``DirectWire.unwrapped``), else the wire's and the state's
        unwrapped = getattr(wire, "unwrapped", None)
        if unwrapped is not None:
            parse, apply, record, parse_refusals, apply_refusals = unwrapped
            parse_refusals = (*parse_refusals, AnswerError, *_READ_ERRORS)
            apply_refusals = (*apply_refusals, AnswerError, *_READ_ERRORS)
        else:
            parse, apply, record = _wire_parse(wire.parse_answer), _state_apply, None
            parse_refusals = apply_refusals = (AnswerError, *_READ_ERRORS)
        limit = self.time_limit_ms
        times_append = self.debug.times.append
        while not is_terminal():
            seats = acting_seats()
            if len(seats) != 1 or frozen[seats[0]]:
                return None
            seat = seats[0]
            changes = log[cursor[seat]:]
            cursor[seat] = len(log)
            message = observation(state, seat, changes)
            reply = ask(bots[seat], message)
            result = reply.result
            answer = result.answer
            if type(answer) is str and result.error is None and not result.stdout and not result.stderr \
                    and reply.no_answer is False and len(answer) <= MAX_ANSWER_CHARS \
                    and type(reply.elapsed_ms) in (float, int) \
                    and (reply.elapsed_ms <= limit or reply.steps_counted is True):
                try:
                    actions = {seat: parse(state, answer, seat)}
                except parse_refusals:
                    changes = _REFUSED  # ``submit`` says what is wrong
                else:
                    try:
                        changes = apply(state, actions)
                    except apply_refusals:
                        changes = _REFUSED  # nothing was changed; ``submit`` says what is wrong
                if changes is not _REFUSED:
                    faults_in_row[seat] = 0
                    log.append(changes)
                    turns.append({"seats": [seat], "answers": [answer], "faults": [None],
                                  **(record(state, actions, changes) if record is not None else
                                     wire.record_turn(state, {seat: message}, actions, changes))})
                    elapsed = reply.elapsed_ms
                    times_append(int(elapsed * 1000) if 0 <= elapsed < MAX_MS else None)
                    if state.outcome is not None:
                        self._finish()
                    continue
            self._pending = [Request(seat, message)]
            self._alone = True
            return seat, reply
        return None

    def submit(self, replies: dict[int, Reply]) -> TurnResult:
        """Play the pending turn from ``replies`` (by seat); whatever they hold (they come
        from bots), the turn is played, with a fault for each bad or missing reply."""
        requests = self._pending
        if requests is None:
            raise RuntimeError("no request is pending")
        self._pending = None
        state = self.state
        if self._alone:  # the fast path: one seat acts and its answer is good
            request = requests[0]
            seat = request.seat
            reply = replies.get(seat, NO_REPLY)
            answer = reply.answer if type(reply) is Reply else None
            if type(answer) is str and reply.error is None and reply.no_answer is False \
                    and len(answer) <= MAX_ANSWER_CHARS and type(reply.elapsed_ms) in (float, int) \
                    and (reply.elapsed_ms <= self.time_limit_ms or reply.steps_counted is True):
                wire = self.wire
                marks = self._marks(seat, reply.stderr) if reply.stderr else None
                try:
                    actions = {seat: wire.parse_answer(answer, state, seat)}
                    changes = state.apply_actions(actions)
                except (AnswerError, *_READ_ERRORS):
                    pass  # nothing was changed; the slow path below says what is wrong
                else:
                    self.consecutive_faults[seat] = 0
                    self._log.append(changes)
                    turn = {"seats": [seat], "answers": [answer], "faults": [None]}
                    turn.update(wire.record_turn(state, {seat: request.message}, actions, changes))
                    self.record["turns"].append(turn)
                    self.debug.times.append(micros(reply.elapsed_ms))
                    if reply.stdout or reply.stderr:
                        self.debug.printed(len(self.record["turns"]), seat, reply.stdout, reply.stderr)
                    if marks:
                        self.debug.marked(len(self.record["turns"]), seat, marks)
                    if state.outcome is not None:
                        self._finish()
                    return TurnResult(turn, NO_FAULTS, NO_SEATS)
        messages: dict[int, dict] = {}
        answers: dict[int, str | None] = {}
        faults: dict[int, Fault] = {}
        counted: dict[int, bool] = {}  # seat -> whether its fault counts toward freezing
        actions: dict[int, Any] = {}
        for request in requests:
            seat = request.seat
            messages[seat] = request.message
            reply = replies.get(seat, NO_REPLY)
            answer, fault, counts, action = self._classify(seat, reply)
            answers[seat] = answer
            if fault is None:
                actions[seat] = action
            else:
                faults[seat], counted[seat] = fault, counts
                actions[seat] = state.default_action(seat)
        seats = state.acting_seats()
        if len(seats) != len(requests):
            for seat in seats:
                if seat not in messages:
                    faults[seat] = FROZEN_FAULT
                    actions[seat] = state.default_action(seat)
        if len(requests) == 1 and not faults and len(seats) == 1:
            seat = requests[0].seat
            try:
                turn = self._play(seats, messages, answers, faults, actions, replies)
            except AnswerError as exc:  # the one move was illegal: played as the default
                fault = Fault(FaultKind.INVALID, str(exc))
                faults[seat], counted[seat] = fault, state.invalid_is_fault
                actions[seat] = state.default_action(seat)
            except _READ_ERRORS as exc:
                faults[seat], counted[seat] = _unreadable(exc), state.invalid_is_fault
                actions[seat] = state.default_action(seat)
            else:
                self.consecutive_faults[seat] = 0
                return TurnResult(turn, NO_FAULTS, NO_SEATS)
        turn = self._play(seats, messages, answers, faults, actions, replies)
        frozen_now = []
        for request in requests:
            seat = request.seat
            if seat not in faults:
                self.consecutive_faults[seat] = 0
                continue
            self.consecutive_faults[seat] = self.consecutive_faults[seat] + 1 if counted[seat] else 0
            if replies.get(seat, NO_REPLY).no_answer is True \
                    or self.consecutive_faults[seat] >= state.fault_limit:
                self._freeze(seat)
                frozen_now.append(seat)
        return TurnResult(turn, {s: f for s, f in faults.items() if f is not FROZEN_FAULT}, frozen_now)

    def _classify(self, seat: int, reply: Reply) -> tuple[str | None, Fault | None, bool, Any]:
        """(the answer as recorded, the fault or None, whether it counts, the action)."""
        state = self.state
        if not isinstance(reply, Reply):
            return None, Fault(FaultKind.INVALID, "no reply"), state.invalid_is_fault, None
        answer = reply.answer
        bad_answer = None
        if answer is not None and not isinstance(answer, str):
            bad_answer = f"the answer is {type(answer).__name__}, not text"
            answer = None
        elif answer is not None and len(answer) > MAX_ANSWER_CHARS:
            answer = answer[:MAX_ANSWER_CHARS]
        error = _error_text(reply.error)
        if error is not None:
            error = self._within_budget(seat, error)
        line = reply.line if isinstance(reply.line, int) and not isinstance(reply.line, bool) else None
        elapsed_ms = reply.elapsed_ms if isinstance(reply.elapsed_ms, int | float) else 0.0
        if reply.no_answer:
            return answer, Fault(FaultKind.TIMEOUT, "no answer within the hard limit; the bot was "
                                 "stopped"), True, None
        if error is not None:
            kind = FaultKind.TIMEOUT if reply.over_budget is True else FaultKind.ERROR
            return answer, Fault(kind, error, line), True, None
        if elapsed_ms > self.time_limit_ms and reply.steps_counted is not True:
            return answer, Fault(FaultKind.TIMEOUT, f"answered in {elapsed_ms:.0f} ms, over the "
                                 f"{self.time_limit_ms} ms limit"), True, None
        if answer is None:
            return None, Fault(FaultKind.INVALID, bad_answer or "no answer"), state.invalid_is_fault, None
        try:
            return answer, None, False, self.wire.parse_answer(answer, state, seat)
        except AnswerError as exc:
            return answer, Fault(FaultKind.INVALID, str(exc)), state.invalid_is_fault, None
        except _READ_ERRORS as exc:
            return answer, _unreadable(exc), state.invalid_is_fault, None

    def _within_budget(self, seat: int, error: str) -> str:
        """Keep one seat's fault messages within ``GAME_ERROR_CHARS`` a game."""
        spent = self.__dict__.setdefault("_error_chars", {})  # kept out of __init__ (the header's)
        used = spent.get(seat, 0)
        if used >= GAME_ERROR_CHARS:
            error = cap_text(error, SHORT_ERROR_CHARS)
        spent[seat] = used + len(error)
        return error

    def _play(self, seats: tuple[int, ...], messages: dict[int, dict], answers: dict[int, str | None],
              faults: dict[int, Fault], actions: dict[int, Any], replies: Mapping[int, Reply] = NO_REPLIES,
              ) -> dict:
        """Apply the turn once and record it (``replies``: of the seats asked, for the debug
        part); an ``AnswerError`` leaves nothing changed."""
        state = self.state
        marks = {seat: self._marks(seat, reply.stderr) for seat, reply in replies.items()
                 if type(reply) is Reply and reply.stderr}  # before the turn moves the board
        changes = state.apply_actions(actions)
        self._log.append(changes)
        if len(seats) == 1:
            seat = seats[0]
            fault = faults.get(seat)
            turn = {"seats": [seat], "answers": [answers.get(seat)],
                    "faults": [fault.to_json() if fault is not None else None]}
        else:
            turn = {"seats": list(seats), "answers": [answers.get(s) for s in seats],
                    "faults": [faults[s].to_json() if s in faults else None for s in seats]}
        turn.update(self.wire.record_turn(state, messages, actions, changes))
        self.record["turns"].append(turn)
        self._note_replies(seats, messages, replies)
        for seat, kept in marks.items():
            self.debug.marked(len(self.record["turns"]), seat, kept)
        if state.is_terminal():
            self._finish()
        return turn

    def _marks(self, seat: int, stderr: object) -> list:
        """A seat's marks in its reply's stderr, as the game's cells (before the turn is played);
        a mark the game does not place is left out."""
        place = self._mark_cells
        if place is None or type(stderr) is not str:
            return []
        marks = []
        for where, colour, text in parse_marks(stderr):
            try:
                cells = mark_cells_of(place(self.state, seat, where))
            except (TypeError, ValueError, IndexError):
                continue
            if cells is not None:
                marks.append((cells, colour, text))
        return marks

    def _note_replies(self, seats: Sequence[int], messages: Mapping[int, dict],
                      replies: Mapping[int, Reply]) -> None:
        """The debug part of the turn just recorded: each seat's time (None: not asked) and
        output."""
        debug, number = self.debug, len(self.record["turns"])
        for seat in seats:
            reply = replies.get(seat) if seat in messages else None
            if type(reply) is not Reply:
                debug.times.append(None)
                continue
            debug.times.append(micros(reply.elapsed_ms))
            if reply.stdout or reply.stderr:
                debug.printed(number, seat, reply.stdout, reply.stderr)

    def _freeze(self, seat: int) -> None:
        self.frozen[seat] = True
        self.state.freeze(seat)
        if self.state.is_terminal():
            self._finish()

    def _finish(self) -> None:
        if self.record["result"] is None and self.state.outcome is not None:
            self.record["result"] = self.state.outcome.to_json()

    @property
    def outcome(self) -> Outcome | None:
        return self.state.outcome


def _wire_parse(parse_answer: Callable[[str, Any, int], Any]) -> Callable[[Any, str, int], Any]:
    """A wire's ``parse_answer(text, state, seat)`` called as a game's ``(state, text, seat)``."""
    return lambda state, text, seat: parse_answer(text, state, seat)


def _state_apply(state: Any, actions: dict[int, Any]) -> Any:
    return state.apply_actions(actions)


def _unreadable(exc: BaseException) -> Fault:
    return Fault(FaultKind.INVALID, _error_text(f"the answer could not be read: {exc!r}") or "")


def _error_text(error: object) -> str | None:
    """A bot's error as text for the fault and the replay, capped (a bot may raise a 5 MB
    message every move: the replay must stay small)."""
    if error is None:
        return None
    if not isinstance(error, str):
        try:
            error = str(error)
        except Exception:  # noqa: BLE001 - any object's __str__ may raise
            error = f"an error of type {type(error).__name__}"
    return cap_text(error, MAX_ERROR_CHARS)
