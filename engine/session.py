"""One game between seats as a step machine, whatever carries the messages to the bots.

The session decides whom to ask and what to tell them, classifies each reply (invalid,
error, time-out), applies the game's fault policy and builds the replay record. It never
waits: CPython drives it with plain calls (``engine.match``), the page's worker with
``await`` between ``next_request()`` and ``submit()``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.bots.answer import cap_text
from engine.errors import AnswerError
from engine.outcome import Fault, FaultKind, Outcome
from engine.spec import GameSpec

SCHEMA_VERSION = 1
MAX_ANSWER_CHARS = 200
MAX_ERROR_CHARS = 4_000  # a fault's message, in the record and the console
GAME_ERROR_CHARS = 100_000  # of one seat's fault messages per game; past it, each is short
SHORT_ERROR_CHARS = 200


@dataclass
class Request:
    """Ask ``seat`` for a move; ``message`` is the game's structured observation."""

    seat: int
    message: dict


@dataclass
class Reply:
    """What came back from a bot for one request."""

    answer: str | None = None
    error: str | None = None  # the bot raised (text of the exception)
    line: int | None = None  # line of the bot's code where it raised, if known
    elapsed_ms: float = 0.0
    no_answer: bool = False  # nothing before the hard limit: the bot was stopped


@dataclass
class TurnResult:
    seat: int
    fault: Fault | None
    frozen_now: bool
    turn: dict = field(repr=False)


class GameSession:
    def __init__(self, spec: GameSpec, settings: Any, seed: int, bot_names: list[str],
                 bot_index: list[int] | None = None, secret: str | None = None) -> None:
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
        self._log: list[list[int]] = []  # every change so far, for the bots' messages
        self._cursor = [0] * seats
        self._pending: Request | None = None
        self.record: dict = {
            "schema_version": SCHEMA_VERSION,
            "kind": "game",
            "game": spec.name,
            "settings": settings.to_json(),
            "seed": seed,
            **({"secret": secret} if secret is not None else {}),  # none: a version-1 record
            "bots": list(bot_names),
            "bot_index": list(bot_index if bot_index is not None else range(seats)),
            "start": self.wire.record_start(self.state),
            "start_faults": [0] * seats,
            "turns": [],
            "result": None,
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
    def next_request(self) -> Request | None:
        """The next bot to ask, playing frozen bots' turns on the way; None at the end."""
        state = self.state
        while not state.is_terminal():
            seat = state.current_player()
            if not self.frozen[seat]:
                changes = self._log[self._cursor[seat]:]
                self._cursor[seat] = len(self._log)
                self._pending = Request(seat, self.wire.turn_message(state, changes))
                return self._pending
            fault = Fault(FaultKind.FROZEN, "frozen: not asked")
            self._play(seat, {}, None, fault, state.default_action())
        self._finish()
        return None

    def submit(self, reply: Reply) -> TurnResult:
        """Play the pending request's turn from ``reply``; whatever the reply holds (it
        comes from a bot), the turn is played, with a fault if the reply is bad."""
        request = self._pending
        if request is None:
            raise RuntimeError("no request is pending")
        self._pending = None
        seat = request.seat
        state = self.state
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
        fault: Fault | None = None
        counts = True  # toward the consecutive faults that freeze a bot
        if reply.no_answer:
            fault = Fault(FaultKind.TIMEOUT, "no answer within the hard limit; the bot was stopped")
        elif error is not None:
            fault = Fault(FaultKind.ERROR, error, line)
        elif elapsed_ms > self.time_limit_ms:
            fault = Fault(FaultKind.TIMEOUT,
                          f"answered in {elapsed_ms:.0f} ms, over the {self.time_limit_ms} ms limit")
        elif answer is None:
            fault = Fault(FaultKind.INVALID, bad_answer or "no answer")
            counts = state.invalid_is_fault
        else:
            try:
                action = self.wire.parse_answer(answer, state)
                result = self._play(seat, request.message, answer, None, action)
            except AnswerError as exc:
                fault = Fault(FaultKind.INVALID, str(exc))
                counts = state.invalid_is_fault
            except (ValueError, TypeError, ArithmeticError, RecursionError, MemoryError) as exc:
                fault = Fault(FaultKind.INVALID, _error_text(f"the answer could not be read: {exc!r}"))
                counts = state.invalid_is_fault
            else:
                self.consecutive_faults[seat] = 0
                return result
        if counts:
            self.consecutive_faults[seat] += 1
        else:
            self.consecutive_faults[seat] = 0
        result = self._play(seat, request.message, answer, fault, state.default_action())
        if reply.no_answer or self.consecutive_faults[seat] >= state.fault_limit:
            self._freeze(seat)
            result.frozen_now = True
        return result

    def _within_budget(self, seat: int, error: str) -> str:
        """Keep one seat's fault messages within ``GAME_ERROR_CHARS`` a game."""
        spent = self.__dict__.setdefault("_error_chars", {})  # kept out of __init__ (the header's)
        used = spent.get(seat, 0)
        if used >= GAME_ERROR_CHARS:
            error = cap_text(error, SHORT_ERROR_CHARS)
        spent[seat] = used + len(error)
        return error

    def _play(self, seat: int, message: dict, answer: str | None, fault: Fault | None,
              action: Any) -> TurnResult:
        state = self.state
        changes = state.apply_action(action)
        if changes:
            self._log.extend(changes)
        turn = {"seat": seat, "answer": answer, "fault": fault.to_json() if fault else None}
        turn.update(self.wire.record_turn(message, state, action, changes))
        self.record["turns"].append(turn)
        if state.is_terminal():
            self._finish()
        return TurnResult(seat, fault, False, turn)

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
