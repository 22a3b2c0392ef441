"""Series of games: the one series core of the native controller and the page's.

``series_steps`` loads the bots, plans the games (which bots sit where on which seed),
steps each game's ``game_steps`` and says after each game how results add up, as a
generator: ``engine.play.match`` (the CLI) and ``web/main.py`` (the page) only answer its calls.
A one-player game (``spec.side_by_side``) is played in the duplicate format: every bot
plays its own copy of every seed. Otherwise every game seats every bot, the seats rotated
by one each game. ``summarize`` ranks by ``spec.scoring``: wins, or mean score.
"""

from __future__ import annotations

from collections.abc import Generator
from itertools import compress
from operator import itemgetter
from typing import Any

from engine.bots.answer import BotAnswer
from engine.core.outcome import unique_winner
from engine.core.spec import GameSpec
from engine.play.debug_part import FILE_CHARS, within_file_budget
from engine.play.driver import Ask, BotEvent, Call, GamePlan, Step, game_steps
from engine.play.session import SCHEMA_VERSION


def plan_series(spec: GameSpec, n_bots: int, first_seed: int, games: int) -> list[GamePlan]:
    if not spec.min_bots <= n_bots <= spec.max_bots:
        raise ValueError(f"{spec.title} takes {spec.min_bots} to {spec.max_bots} bots, got {n_bots}")
    if games < 1:
        raise ValueError(f"the number of games must be at least 1, got {games}")
    plans = []
    for g in range(games):
        seed = first_seed + g
        if spec.side_by_side:
            plans.extend(GamePlan(g, seed, (b,)) for b in range(n_bots))
        else:
            plans.append(GamePlan(g, seed, tuple((s + g) % n_bots for s in range(n_bots))))
    return plans


class GameFinished:
    """Yielded after each game: its index in the plan, its record, and ``summary``: the
    summary of the seeds every bot has played so far (worked out when first read, so a
    controller that does not show it pays nothing)."""

    __slots__ = ("index", "record", "_spec", "_n_bots", "_records", "_summary")

    def __init__(self, index: int, record: dict, spec: GameSpec, n_bots: int, records: list[dict]) -> None:
        self.index, self.record = index, record
        self._spec, self._n_bots, self._records = spec, n_bots, records
        self._summary: dict | None = None

    @property
    def summary(self) -> dict:
        if self._summary is None:
            self._summary = summarize(self._spec, self._n_bots, self._records)
        return self._summary


NO_FAULT = [None]


def record_faults(record: dict) -> list[int]:
    """Faults per seat in a record (turns a frozen bot sat out are not counted again)."""
    counts = [0] * len(record["bots"])
    for turn in record["turns"]:
        faults = turn["faults"]
        if faults == NO_FAULT and len(turn["seats"]) == 1:  # one seat asked, no fault: most turns
            continue
        for seat, fault in zip(turn["seats"], faults, strict=True):
            if fault and fault["kind"] != "frozen":
                counts[seat] += 1
    for seat, extra in enumerate(record.get("start_faults", [])):
        counts[seat] += extra
    return counts


def summarize(spec: GameSpec, n_bots: int, records: list[dict]) -> dict:
    """Per-seed scores, winners and faults in bot order; mean scores and wins per bot; the
    bots ranked best first by ``spec.scoring`` (ties: the other measure, then bot order)."""
    by_seed: dict[int, dict] = {}
    order: list[int] = []
    for record in records:
        seed = record["seed"]
        if seed not in by_seed:
            by_seed[seed] = {"seed": seed, "scores": [0] * n_bots, "winner": None,
                             "faults": [0] * n_bots}
            order.append(seed)
        entry = by_seed[seed]
        faults = record_faults(record)
        scores = record["result"]["scores"] if record["result"] else [0] * len(record["bots"])
        for seat, bot in enumerate(record["bot_index"]):
            entry["scores"][bot] = scores[seat]
            entry["faults"][bot] += faults[seat]
    games = [by_seed[s] for s in order]
    wins = [0] * n_bots
    for entry in games:
        entry["winner"] = unique_winner(entry["scores"])
        if entry["winner"] is not None:
            wins[entry["winner"]] += 1
    mean_scores = [
        round(sum(g["scores"][b] for g in games) / len(games), 3) if games else 0.0
        for b in range(n_bots)
    ]
    if spec.scoring == "wins":
        ranking = sorted(range(n_bots), key=lambda b: (-wins[b], -mean_scores[b], b))
    else:
        ranking = sorted(range(n_bots), key=lambda b: (-mean_scores[b], -wins[b], b))
    return {"games": games, "mean_scores": mean_scores, "wins": wins, "scoring": spec.scoring,
            "ranking": ranking}


def series_document(spec: GameSpec, bot_names: list[str], records: list[dict],
                    secret: str | None = None, scored: list[dict] | None = None) -> dict:
    """The replay file for a series: every record and the summary (and the run's secret).

    ``scored``: the same records with their fault-free turns left out, if at hand (the
    summary counts faults only: the same summary, without a pass over every turn).
    """
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": "series",
        "game": spec.name,
        **({"secret": secret} if secret is not None else {}),
        "bots": list(bot_names),
        "records": records,
        "summary": summarize(spec, len(bot_names), records if scored is None else scored),
    }


_FAULTS = itemgetter("faults")


def series_steps(spec: GameSpec, settings: Any, bots: list[str], first_seed: int, games: int,
                 load_errors: list[BotAnswer | None] | None = None, secret: str | None = None,
                 ask: Ask | None = None, budget: int | None = None,
                 ) -> Generator[Step | GameFinished, Any, dict]:
    """Play a series of ``games`` seeds from ``first_seed`` between the named ``bots``.

    Yields what ``game_steps`` yields, and a ``GameFinished`` after each game; returns the
    series document. With ``load_errors`` None it first yields a ``Call(bot, "load", ...)``
    per bot (answer: the ``BotAnswer`` of loading its code; an error freezes the bot in every
    game); otherwise ``load_errors[bot]`` is that answer when it failed, else None.
    ``ask``: the turns' questions answered by a function (``game_steps``); ``budget``: the
    run's steps a move, kept in each record (``engine.play.reproduce`` re-feeds a bot with it).
    """
    plans = plan_series(spec, len(bots), first_seed, games)
    if load_errors is None:
        load_errors = []
        for index in range(len(bots)):
            answer = yield Call(index, "load", {"game": spec.name}, -1)
            if not isinstance(answer, BotAnswer):
                answer = BotAnswer(error="the bot did not load")
            load_errors.append(answer if answer.error else None)
            if answer.error:
                yield BotEvent(index, "error", answer.error, answer.line)
    records: list[dict] = []
    scored: list[dict] = []  # of the seeds every bot has played: the records, fault-free turns left out
    waiting: list[dict] = []  # records of a seed not every bot has played yet
    output_left = FILE_CHARS  # the bots' output the file keeps in all (debug_part)
    for index, plan in enumerate(plans):
        record = yield from game_steps(spec, settings, plan, bots, load_errors, secret, ask, budget)
        if record["debug"]["output"] or record["debug"].get("marks"):
            (record,), output_left = within_file_budget([record], output_left)
        records.append(record)
        turns = record["turns"]  # the faulted ones, picked in C (a Python test a turn before)
        waiting.append({**record, "turns": list(compress(turns, map(any, map(_FAULTS, turns))))})
        if index + 1 == len(plans) or plans[index + 1].game_number != plan.game_number:
            scored.extend(waiting)
            waiting = []
        yield GameFinished(index, record, spec, len(bots), scored[:])
    return series_document(spec, bots, records, secret, scored if not waiting else None)
