"""Playing series natively: the synchronous controller that answers ``series_steps``.

Bots are anything with ``load/start/turn/end/close`` (``engine.bots.native``). Each bot's
output and faults are reported through ``on_event`` so the CLI can show or keep them; a
bot's output is capped per game (``OutputBudget``) on top of the per-move caps.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from engine.bots.answer import BotAnswer, OutputBudget, TurnReply
from engine.core.spec import GameSpec
from engine.play.driver import BotEvent, Call
from engine.play.series import GameFinished, plan_series, series_steps

__all__ = ["Bot", "BotEvent", "SeriesResult", "run_series"]


class Bot(Protocol):
    name: str

    def load(self, game: str) -> BotAnswer: ...
    def start(self, seat: int, message: dict, seed: int | None = None) -> BotAnswer: ...
    def turn(self, message: dict, time_limit_ms: int) -> TurnReply: ...
    def end(self) -> BotAnswer: ...
    def close(self) -> None: ...


@dataclass
class SeriesResult:
    document: dict

    @property
    def summary(self) -> dict:
        return self.document["summary"]


# While a series plays, each turn leaves a few containers in the replay that live to the end,
# and the default threshold (700 allocations) runs a collection every few hundred turns that
# walks all of them: a fifth of a Flit series' time. Fewer, later collections while it plays.
SERIES_GC_THRESHOLD = (20_000, 50, 100)


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Raise the garbage collector's thresholds for the duration, then restore them."""
    saved = gc.get_threshold()
    gc.set_threshold(*SERIES_GC_THRESHOLD)
    try:
        yield
    finally:
        gc.set_threshold(*saved)


def run_series(spec: GameSpec, settings: Any, bots: list[Bot], first_seed: int, games: int,
               on_event: Callable[[BotEvent], None] | None = None,
               on_progress: Callable[[int, int], None] | None = None,
               secret: str | None = None, budget: int | None = None) -> SeriesResult:
    """Play the series; ``secret`` (None: the seed alone) goes into every game's draws;
    ``budget``: the steps a move the bots were built with, kept in each record."""
    with fewer_collections():
        return _play_series(spec, settings, bots, first_seed, games, on_event, on_progress, secret,
                            budget)


def _play_series(spec: GameSpec, settings: Any, bots: list[Bot], first_seed: int, games: int,
                 on_event: Callable[[BotEvent], None] | None,
                 on_progress: Callable[[int, int], None] | None,
                 secret: str | None, budget: int | None) -> SeriesResult:
    total = len(plan_series(spec, len(bots), first_seed, games))
    budgets = [OutputBudget() for _ in bots]
    limit = settings.time_limit_ms
    turns = [bot.turn for bot in bots]

    # A turn's reply goes to the session whole (its debug part keeps the game's budget and
    # says what it cut); what the console is shown of it is cut here, below.
    steps = series_steps(spec, settings, [b.name for b in bots], first_seed, games, None, secret,
                         lambda bot, message: turns[bot](message, limit), budget)
    value: Any = None
    try:
        while True:
            try:
                step = steps.send(value)
            except StopIteration as done:
                return SeriesResult(done.value)
            value = None
            kind = type(step)
            if kind is Call:
                bot, output = bots[step.bot], budgets[step.bot]
                if step.op == "start":
                    value = output.apply(bot.start(step.seat, step.message, step.seed))
                elif step.op == "end":
                    value = output.apply(bot.end())
                    value.stderr += output.note()
                else:  # "load"
                    value = bot.load(spec.name)
            elif isinstance(step, BotEvent):
                if step.stream in ("stdout", "stderr") and step.turn:  # a turn's output (a
                    step.text = budgets[step.bot].keep(step.text)  # start's or end's is cut above)
                    if not step.text:
                        continue
                if on_event:
                    on_event(step)
            elif isinstance(step, GameFinished):
                budgets = [OutputBudget() for _ in bots]
                if on_progress:
                    on_progress(step.index + 1, total)
    finally:
        for bot in bots:
            bot.close()
