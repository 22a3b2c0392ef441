"""Playing games and series natively: the synchronous driver of ``GameSession``.

Bots are anything with ``load/start/turn/end/close`` (``engine.bots.native``). Each bot's
output and faults are reported through ``on_event`` so the CLI can show or keep them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

from engine.bots.runners import BotAnswer
from engine.games import GameSpec
from engine.outcome import Fault
from engine.series import GamePlan, plan_series, series_document
from engine.session import GameSession, Reply


class Bot(Protocol):
    name: str

    def load(self, game: str) -> BotAnswer: ...
    def start(self, seat: int, message: dict) -> BotAnswer: ...
    def turn(self, message: dict, time_limit_ms: int) -> Any: ...
    def end(self) -> BotAnswer: ...
    def close(self) -> None: ...


@dataclass
class BotEvent:
    bot: int  # index in the series' bot list
    stream: str  # "stdout", "stderr", "fault" or "error"
    text: str
    line: int | None = None


EventSink = Callable[[BotEvent], None]


def _emit(sink: EventSink | None, bot: int, answer: BotAnswer) -> None:
    if sink is None:
        return
    if answer.stdout:
        sink(BotEvent(bot, "stdout", answer.stdout))
    if answer.stderr:
        sink(BotEvent(bot, "stderr", answer.stderr))


def play_game(spec: GameSpec, settings: Any, plan: GamePlan, bots: list[Bot],
              load_errors: list[BotAnswer | None], on_event: EventSink | None = None) -> dict:
    """Play one game; returns its replay record. ``bots`` are in series order."""
    seated = [bots[b] for b in plan.bot_index]
    session = GameSession(spec, settings, plan.seed, [b.name for b in seated], list(plan.bot_index))
    for seat, bot in enumerate(seated):
        bot_number = plan.bot_index[seat]
        failure = load_errors[bot_number]
        result = failure or bot.start(seat, session.start_message(seat))
        _emit(on_event, bot_number, result)
        if result.error:
            fault = session.fail_to_start(seat, result.error, result.line)
            _report(on_event, bot_number, fault)
    limit = settings.time_limit_ms
    while (request := session.next_request()) is not None:
        reply = seated[request.seat].turn(request.message, limit)
        bot_number = plan.bot_index[request.seat]
        _emit(on_event, bot_number, reply.result)
        outcome = session.submit(Reply(reply.result.answer, reply.result.error, reply.result.line,
                                       reply.elapsed_ms, reply.no_answer))
        if outcome.fault is not None:
            _report(on_event, bot_number, outcome.fault, outcome.frozen_now)
    for seat, bot in enumerate(seated):
        if load_errors[plan.bot_index[seat]] is None:
            _emit(on_event, plan.bot_index[seat], bot.end())
    return session.record


def _report(sink: EventSink | None, bot: int, fault: Fault, frozen: bool = False) -> None:
    if sink is not None:
        suffix = " — the bot is now frozen" if frozen else ""
        sink(BotEvent(bot, "fault", f"{fault.kind.value}: {fault.message}{suffix}", fault.line))


@dataclass
class SeriesResult:
    document: dict
    logs: list[list[BotEvent]] = field(default_factory=list)

    @property
    def summary(self) -> dict:
        return self.document["summary"]


def run_series(spec: GameSpec, settings: Any, bots: list[Bot], first_seed: int, games: int,
               on_event: EventSink | None = None,
               on_progress: Callable[[int, int], None] | None = None) -> SeriesResult:
    plans = plan_series(spec, len(bots), first_seed, games)
    load_errors: list[BotAnswer | None] = []
    for index, bot in enumerate(bots):
        result = bot.load(spec.name)
        load_errors.append(result if result.error else None)
        if result.error and on_event:
            on_event(BotEvent(index, "error", result.error, result.line))
    records = []
    try:
        for number, plan in enumerate(plans):
            records.append(play_game(spec, settings, plan, bots, load_errors, on_event))
            if on_progress:
                on_progress(number + 1, len(plans))
    finally:
        for bot in bots:
            bot.close()
    return SeriesResult(series_document(spec, [b.name for b in bots], records))
