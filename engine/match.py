"""Playing series natively: the synchronous controller that steps ``game_steps``.

Bots are anything with ``load/start/turn/end/close`` (``engine.bots.native``). Each bot's
output and faults are reported through ``on_event`` so the CLI can show or keep them; a
bot's output is capped per game (``OutputBudget``) on top of the per-move caps.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from engine.bots.answer import BotAnswer, OutputBudget
from engine.driver import BotEvent, Call, TurnReply, game_steps
from engine.series import plan_series, series_document
from engine.spec import GameSpec

__all__ = ["Bot", "BotEvent", "SeriesResult", "run_series"]


class Bot(Protocol):
    name: str

    def load(self, game: str) -> BotAnswer: ...
    def start(self, seat: int, message: dict) -> BotAnswer: ...
    def turn(self, message: dict, time_limit_ms: int) -> TurnReply: ...
    def end(self) -> BotAnswer: ...
    def close(self) -> None: ...


@dataclass
class SeriesResult:
    document: dict

    @property
    def summary(self) -> dict:
        return self.document["summary"]


def run_series(spec: GameSpec, settings: Any, bots: list[Bot], first_seed: int, games: int,
               on_event: Callable[[BotEvent], None] | None = None,
               on_progress: Callable[[int, int], None] | None = None,
               secret: str | None = None) -> SeriesResult:
    """Play the series; ``secret`` (None: the seed alone) goes into every game's draws."""
    plans = plan_series(spec, len(bots), first_seed, games)
    names = [b.name for b in bots]
    load_errors: list[BotAnswer | None] = []
    for index, bot in enumerate(bots):
        result = bot.load(spec.name)
        load_errors.append(result if result.error else None)
        if result.error and on_event:
            on_event(BotEvent(index, "error", result.error, result.line))
    records = []
    limit = settings.time_limit_ms
    try:
        for number, plan in enumerate(plans):
            steps = game_steps(spec, settings, plan, names, load_errors, secret)
            budgets = [OutputBudget() for _ in bots]
            value = None
            while True:
                try:
                    step = steps.send(value)
                except StopIteration as done:
                    records.append(done.value)
                    break
                value = None
                if isinstance(step, Call):
                    bot, budget = bots[step.bot], budgets[step.bot]
                    if step.op == "turn":
                        value = bot.turn(step.message, limit)
                        budget.apply(value.result)
                    elif step.op == "start":
                        value = budget.apply(bot.start(step.seat, step.message))
                    else:
                        value = budget.apply(bot.end())
                        value.stderr += budget.note()
                elif isinstance(step, BotEvent) and on_event:
                    on_event(step)
            if on_progress:
                on_progress(number + 1, len(plans))
    finally:
        for bot in bots:
            bot.close()
    return SeriesResult(series_document(spec, names, records, secret))
