"""Tournaments: every entry against the field, planned, played match by match, and ranked.

A leaderboard over a whole field is what a KotH contest publishes. This module plans the
matches (which entries sit where on which seed), plays each through the one series core
(``engine.play.match.run_series``: nothing about playing a game is written twice), keeps only a
summary of each match (its replay goes to a file as it ends), and ranks the entries with
``engine.contest.ranking``'s intervals and settled places. Standard library only; the planning and
the standings are pure, so the page's controller can use them too.

Formats (``Tournament.kind``):

- ``pairs`` (a game with two seats, e.g. trial Flit): every pair plays ``games`` games, the
  ``games / 2`` seeds each played twice with the seats swapped. Ranked by win rate (a draw
  is half a win) when the game scores by wins, else by mean score.
- ``tables`` (more seats than two, e.g. full Flit, aBOTcalypse): a round per seed; each round
  seats the field at tables of ``seats`` drawn by a seeded shuffle; who sits a round out is
  whoever has played most, and each table's seating is the one that puts its entries in the
  seats they have sat in least, so every entry plays equally often and in every seat equally
  often as far as the numbers allow. Ranked by mean score per game.
- ``alone`` (score-alone games, ``spec.side_by_side``, e.g. Atomas): every entry plays the
  same ``games`` seeds on its own. Ranked by mean score per game.

A match is one game: one table of entries on one seed (in ``alone``, one entry on one seed).
A game whose author's code fails (``engine.core.errors.GameCodeError``: it raised, or went over a
limit) is kept with its error, counts in no standing, and the tournament plays on.
Its ``MatchJob`` carries the entries by value (``engine.bots.entries.Entry``), so it can be played
in a worker process or on another machine, and its result depends on nothing but the job:
the same tournament gives the same JSON however many workers play it.

The page plays the same tournaments (``web/main.py``): ``tournament_from_challenge`` builds one
from a challenge file as the command line does, ``run_tournament_async`` plays its plan with
matches that are coroutines (several at once), and ``match_settings`` / ``result_of_series``
are the two halves of playing a match that do not depend on where its bots run.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import math
import random
from collections.abc import Awaitable, Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.bots.entries import Entry
from engine.contest.match_job import Match, MatchJob, MatchResult
from engine.contest.ranking import MEAN_SCORE, WIN_RATE, Ranked, Standing, rank, settled_places
from engine.contest.standings import (
    ALONE,
    PAIRS,
    TABLES,
    cross_table,
    json_number,
    settled_marks,
    standings_of,
)
from engine.core.outcome import unique_winner
from engine.core.spec import GameSpec

if TYPE_CHECKING:
    from engine.contest.result_cache import ResultCache

EXACT_SEATING_UP_TO = 5  # tables this size try every seating (120); larger ones every rotation


# -- planning ----------------------------------------------------------------------------

def tournament_seats(spec: GameSpec, preset: str | None, n_entries: int, asked: int | None) -> int:
    """Seats at a table: ``asked``, or as many as the preset allows (at most the entries);
    ``ValueError`` (one line) when the game cannot seat that many."""
    low, high = spec.bot_range(preset)
    if spec.side_by_side:
        if asked not in (None, 1):
            raise ValueError(f"{spec.title} is played alone: --seats does not apply")
        return 1
    seats = asked if asked is not None else min(high, n_entries)
    if not low <= seats <= high:
        raise ValueError(f"{spec.title} ({spec.preset(preset).name}) seats {low} to {high} bots a "
                         f"game, not {seats}")
    if seats > n_entries:
        raise ValueError(f"tables of {seats} need at least {seats} entries, got {n_entries}")
    return seats


def tournament_kind(spec: GameSpec, seats: int) -> str:
    if spec.side_by_side:
        return ALONE
    return PAIRS if seats == 2 else TABLES


def plan_pairs(n_entries: int, seeds: Iterable[int], pairs: Iterable[tuple[int, int]] | None = None,
               first_index: int = 0) -> list[Match]:
    """Every pair (or the given ones) on every seed, twice: once each way round."""
    chosen = list(pairs) if pairs is not None else list(itertools.combinations(range(n_entries), 2))
    seeds = list(seeds)
    matches: list[Match] = []
    for a, b in chosen:
        for seed in seeds:
            for table in ((a, b), (b, a)):
                matches.append(Match(first_index + len(matches), seed, table))
    return matches


def plan_alone(entries: Iterable[int], seeds: Iterable[int], first_index: int = 0) -> list[Match]:
    """Each entry on each seed, on its own."""
    entries = list(entries)
    return [Match(first_index + i, seed, (e,))
            for i, (seed, e) in enumerate((s, e) for s in seeds for e in entries)]


@dataclass
class TablePlanner:
    """Draws balanced tables round by round; remembers how often each entry sat where."""

    n_entries: int
    seats: int
    seed: int  # the tournament's first seed: the draws depend on it alone
    games: list[int] = field(default_factory=list)
    seat_counts: list[list[int]] = field(default_factory=list)
    rounds: int = 0
    block: list[tuple[int, ...]] = field(default_factory=list)  # the full field's tables, rotating
    block_round: int = 0

    def __post_init__(self) -> None:
        if not 2 <= self.seats <= self.n_entries:
            raise ValueError(f"tables of {self.seats} need 2 to {self.n_entries} seats")
        self.games = [0] * self.n_entries
        self.seat_counts = [[0] * self.seats for _ in range(self.n_entries)]

    def round(self, round_seed: int, wanted: Iterable[int] | None = None,
              first_index: int = 0) -> list[Match]:
        """One round on ``round_seed``: tables of the ``wanted`` entries (all by default),
        topped up with others who have played least when too few are wanted for a table."""
        draw = random.Random(f"koth-tables:{self.seed}:{self.rounds}")
        self.rounds += 1
        order = list(range(self.n_entries))
        draw.shuffle(order)  # the tie-break among equals, fresh every round
        position = {e: i for i, e in enumerate(order)}
        if wanted is None and self.n_entries % self.seats == 0:
            return self._block_round(draw, round_seed, first_index)
        wanted = sorted(set(range(self.n_entries) if wanted is None else wanted),
                        key=lambda e: (self.games[e], position[e]))
        if len(wanted) < self.seats:
            others = sorted((e for e in range(self.n_entries) if e not in wanted),
                            key=lambda e: (self.games[e], position[e]))
            wanted += others[:self.seats - len(wanted)]
        players = wanted[:len(wanted) // self.seats * self.seats]  # the fewest games play
        draw.shuffle(players)
        tables = [self._seat(players[start:start + self.seats])
                  for start in range(0, len(players), self.seats)]
        return self._sit(tables, round_seed, first_index)

    def _block_round(self, draw: random.Random, round_seed: int, first_index: int) -> list[Match]:
        """The whole field, when it fills whole tables: tables drawn afresh every ``seats``
        rounds and their seats rotated one place a round, so every ``seats`` rounds each
        entry sits in every seat once."""
        step = self.block_round % self.seats
        self.block_round += 1
        if step == 0:
            players = list(range(self.n_entries))
            draw.shuffle(players)
            self.block = [self._seat(players[start:start + self.seats])
                          for start in range(0, len(players), self.seats)]
        tables = [table[-step:] + table[:-step] if step else table for table in self.block]
        return self._sit(tables, round_seed, first_index)

    def _sit(self, tables: list[tuple[int, ...]], round_seed: int, first_index: int) -> list[Match]:
        matches = []
        for table in tables:
            for seat, entry in enumerate(table):
                self.games[entry] += 1
                self.seat_counts[entry][seat] += 1
            matches.append(Match(first_index + len(matches), round_seed, table))
        return matches

    def _seat(self, group: list[int]) -> tuple[int, ...]:
        """The seating of ``group`` that puts its entries where they have sat least: every
        seating for small tables, else the best rotation improved by swapping pairs of seats."""
        def cost(table: tuple[int, ...]) -> int:
            excess = [self.seat_counts[e][s] - min(self.seat_counts[e]) for s, e in enumerate(table)]
            return sum(x * x for x in excess)

        if len(group) <= EXACT_SEATING_UP_TO:
            return min(itertools.permutations(group), key=cost)  # the first cheapest: deterministic
        best = min((tuple(group[i:] + group[:i]) for i in range(len(group))), key=cost)
        improved = True
        while improved:
            improved = False
            for i, j in itertools.combinations(range(len(best)), 2):
                swapped = list(best)
                swapped[i], swapped[j] = swapped[j], swapped[i]
                if cost(tuple(swapped)) < cost(best):
                    best, improved = tuple(swapped), True
        return best


# -- standings ---------------------------------------------------------------------------

# -- playing one match -------------------------------------------------------------------

def play_match(job: MatchJob) -> MatchResult:
    """Play one match through the series core; write its replay if asked. Runs anywhere."""
    result, document = _play(job)
    if job.replay_path and document is not None:
        Path(job.replay_path).write_text(json.dumps(document), encoding="utf-8")
    return result


def play_match_remotely(job: MatchJob) -> tuple[MatchResult, str | None]:
    """Play one match on another machine: its replay comes back as text (when asked for) for
    the controller to write, since the workers' disks are not the controller's."""
    result, document = _play(job)
    return result, json.dumps(document) if job.replay_path and document is not None else None


def match_settings(spec: GameSpec, preset: str | None, overrides: dict, seats: int) -> Any:
    """A match's settings: the preset, the tournament's overrides, the players from its table."""
    overrides = dict(overrides)
    if spec.players_setting:
        overrides[spec.players_setting] = seats
    return spec.settings(preset, **overrides)


def result_of_series(match: Match, document: dict) -> MatchResult:
    """What the tournament keeps of a match, from the series document that played it."""
    game = document["summary"]["games"][0]
    scores = tuple(game["scores"])
    return MatchResult(match.index, match.seed, match.table, scores, tuple(game["faults"]),
                       unique_winner(scores) if len(scores) > 1 else None)


def failed_match(match: Match, message: str) -> MatchResult:
    """A match whose author's game failed: its error, no scores (no replay is written)."""
    return MatchResult(match.index, match.seed, match.table, (), (0,) * len(match.table), None,
                       f"the game failed: {message}")


def _play(job: MatchJob) -> tuple[MatchResult, dict | None]:
    from engine.bots.entries import bot_from_entry, runs_a_process
    from engine.bots.sandbox import Limits, Sandbox, Unsandboxed
    from engine.core.errors import GameCodeError
    from engine.games.registry import get_game
    from engine.play.match import run_series

    try:
        if job.game_module is not None:  # an author's game: loaded (sandboxed) once per worker process
            from engine.play.game_proxy import game_for_worker
            spec = game_for_worker(job.game_module, job.sandboxed, job.memory_mb)
        else:
            spec = get_game(job.game)
        settings = match_settings(spec, job.preset, job.overrides, len(job.entries))
        limits = Limits(memory_mb=job.memory_mb)
        sandbox = Sandbox(limits) if job.sandboxed else Unsandboxed(limits)
        bots = [bot_from_entry(e, spec.name, sandbox if runs_a_process(e, spec.name) else Unsandboxed(),
                               job.budget)
                for e in job.entries]
        document = run_series(spec, settings, bots, job.match.seed, 1, secret=job.secret,
                              budget=job.budget).document
    except GameCodeError as exc:
        return failed_match(job.match, exc.message), None
    return result_of_series(job.match, document), document


class DaskPlayers:
    """Plays jobs on a Dask distributed cluster (the optional extra ``koth-arena[dask]``):
    ``scheduler`` is its address, or a ``distributed.Client`` already connected. Each job
    travels by value; a command bot's program must exist on every worker."""

    def __init__(self, scheduler: Any) -> None:
        self.scheduler = scheduler
        self.client: Any = None
        self.own_client = False

    def __enter__(self) -> DaskPlayers:
        try:
            from distributed import Client
        except ImportError:
            raise ValueError("--scheduler needs Dask: pip install 'koth-arena[dask]'") from None
        if isinstance(self.scheduler, Client):
            self.client = self.scheduler
        else:
            try:
                self.client = Client(self.scheduler, timeout="10s")
            except OSError as exc:
                raise ValueError(f"cannot reach the Dask scheduler {self.scheduler}: {exc}") from None
            self.own_client = True
        return self

    def __exit__(self, *exc: object) -> None:
        if self.own_client:
            self.client.close()

    def play(self, jobs: list[MatchJob]) -> Iterator[MatchResult]:
        from distributed import as_completed

        futures = [self.client.submit(play_match_remotely, job, pure=False) for job in jobs]
        paths = {future.key: job.replay_path for future, job in zip(futures, jobs, strict=True)}
        for future in as_completed(futures):
            result, replay = future.result()
            path = paths[future.key]
            future.release()
            if path and replay is not None:
                Path(path).write_text(replay, encoding="utf-8")
            yield result


class LocalPlayers:
    """Plays jobs in this process (``jobs`` 1) or in ``jobs`` worker processes; a context
    manager, so the workers live as long as the tournament."""

    def __init__(self, jobs: int = 1) -> None:
        if jobs < 1:
            raise ValueError(f"--jobs must be at least 1, got {jobs}")
        self.jobs = jobs
        self.pool: ProcessPoolExecutor | None = None

    def __enter__(self) -> LocalPlayers:
        if self.jobs > 1:  # spawned, not forked: a fork could copy a lock another thread held
            self.pool = ProcessPoolExecutor(self.jobs, mp_context=get_context("spawn"))
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)

    def play(self, jobs: list[MatchJob]) -> Iterator[MatchResult]:
        """Each job's result as it ends (in any order)."""
        if self.pool is None:
            for job in jobs:
                yield play_match(job)
            return
        pending: set[Future] = {self.pool.submit(play_match, job) for job in jobs}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                yield future.result()


# -- the tournament ----------------------------------------------------------------------

@dataclass
class Tournament:
    """A field of entries, its format, and the results so far (summaries only)."""

    spec: GameSpec
    entries: list[Entry]
    games: int  # per pair (pairs), seeds (alone), rounds (tables)
    first_seed: int
    secret: str
    seats: int
    preset: str | None = None
    overrides: dict = field(default_factory=dict)
    sandboxed: bool = False
    memory_mb: int = 1024
    replays: Path | None = None
    budget: int | None = None  # steps a Python bot's move may take (None: time alone)
    results: dict[int, MatchResult] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.kind = tournament_kind(self.spec, self.seats)
        self.names = [e.name for e in self.entries]
        if len(set(self.names)) != len(self.names):
            raise ValueError("two entries have the same name")
        if len(self.entries) < 2:
            raise ValueError("a tournament needs at least 2 entries")
        if self.games < 1:
            raise ValueError(f"--games must be at least 1, got {self.games}")
        if self.kind == PAIRS and self.games % 2:
            raise ValueError(f"--games must be even in a two-player game (each seed is played twice, "
                             f"the seats swapped), got {self.games}")
        if self.kind == TABLES:
            self.tables = TablePlanner(len(self.entries), self.seats, self.first_seed)
        self.by = WIN_RATE if self.kind == PAIRS and self.spec.scoring == "wins" else MEAN_SCORE
        self.next_seed = self.first_seed
        self.next_index = 0

    # planning: the first round, and more where the ranking is unclear
    def first_round(self) -> list[Match]:
        if self.kind == PAIRS:
            return self._matches(plan_pairs(len(self.entries), self._seeds(self.games // 2),
                                            first_index=self.next_index))
        if self.kind == ALONE:
            return self._matches(plan_alone(range(len(self.entries)), self._seeds(self.games),
                                            self.next_index))
        matches: list[Match] = []
        for seed in self._seeds(self.games):
            matches += self.tables.round(seed, None, self.next_index + len(matches))
        return self._matches(matches)

    def first_round_size(self) -> int:
        """How many matches ``first_round`` plans (without planning them)."""
        n = len(self.entries)
        if self.kind == PAIRS:
            return n * (n - 1) // 2 * self.games
        if self.kind == ALONE:
            return n * self.games
        return self.games * (n // self.seats)

    def more_games(self, cap: int) -> list[Match]:
        """``--until-settled``: one more round where the order is unclear (empty when none)."""
        from engine.contest.ranking import entries_to_play_more, pairs_to_play_more

        ranking = self.ranking()
        if all(settled_places(ranking)):
            return []
        index = {name: i for i, name in enumerate(self.names)}
        if self.kind == PAIRS:
            played: dict[frozenset[str], int] = {}
            for r in self.results.values():
                key = frozenset(self.names[e] for e in r.table)
                played[key] = played.get(key, 0) + 1
            pairs = [(index[a], index[b]) for a, b in pairs_to_play_more(ranking, played, cap)]
            if not pairs:
                return []
            return self._matches(plan_pairs(len(self.entries), self._seeds(1), pairs, self.next_index))
        counts = dict.fromkeys(self.names, 0)  # games played, failed ones too (else replayed forever)
        for r in self.results.values():
            for e in r.table:
                counts[self.names[e]] += 1
        wanted = [index[name] for name in entries_to_play_more(ranking, counts, cap)]
        if not wanted:
            return []
        if self.kind == ALONE:
            return self._matches(plan_alone(wanted, self._seeds(1), self.next_index))
        return self._matches(self.tables.round(self._seeds(1)[0], wanted, self.next_index))

    def _seeds(self, count: int) -> list[int]:
        seeds = list(range(self.next_seed, self.next_seed + count))
        self.next_seed += count
        return seeds

    def _matches(self, matches: list[Match]) -> list[Match]:
        self.next_index += len(matches)
        return matches

    def job(self, match: Match) -> MatchJob:
        path = str(self.replays / f"match-{match.index + 1:05d}.json") if self.replays else None
        return MatchJob(match, self.spec.name, self.preset, dict(self.overrides),
                        tuple(self.entries[e] for e in match.table), self.secret, self.sandboxed,
                        self.memory_mb, path, self.budget, self.spec.game_module)

    def record(self, result: MatchResult) -> None:
        self.results[result.index] = result

    # standings
    def ordered_results(self) -> list[MatchResult]:
        return [self.results[i] for i in sorted(self.results)]

    def standings(self) -> list[Standing]:
        return standings_of(self.names, self.kind, self.ordered_results())

    def ranking(self) -> list[Ranked]:
        floor = self.spec.min_score
        return rank(self.standings(), self.by, min_score=-math.inf if floor is None else floor)

    def to_json(self) -> dict:
        """The tournament's one JSON object: no timings, so equal runs give equal JSON."""
        ranking = self.ranking()
        marks = settled_marks(ranking)
        standings = [{
            "name": r.name, "games": r.standing.games, "wins": r.standing.wins,
            "draws": r.standing.draws, "losses": r.standing.losses,
            "mean_score": round(r.standing.mean_score, 3),
            "score_interval": [json_number(r.interval[0]), json_number(r.interval[1])],
            "faults": r.standing.faults, "settled": settled,
        } for r, settled in zip(ranking, marks, strict=True)]
        results = self.ordered_results()
        out: dict[str, Any] = {
            "game": self.spec.name, "format": self.kind, "seats": self.seats,
            "ranked_by": self.by, "first_seed": self.first_seed, "secret": self.secret,
            "entries": list(self.names), "standings": standings,
        }
        if self.kind == PAIRS:
            out["cross"] = cross_table(self.names, results, [r.name for r in ranking])
        out["games"] = self._games_json(results)
        return out

    def _games_json(self, results: list[MatchResult]) -> list[dict]:
        if self.kind != ALONE:
            return [{"seed": r.seed, "seats": [self.names[e] for e in r.table],
                     "scores": list(r.scores) if r.error is None else None,
                     "winner": None if r.winner is None else self.names[r.table[r.winner]],
                     **({"error": r.error} if r.error is not None else {})}
                    for r in results]
        by_seed: dict[int, dict] = {}
        for r in results:
            game = by_seed.setdefault(r.seed, {"seed": r.seed, "seats": [], "scores": []})
            game["seats"].append(self.names[r.table[0]])
            game["scores"].append(r.scores[0] if r.error is None else None)
            if r.error is not None:
                game.setdefault("errors", {})[self.names[r.table[0]]] = r.error
        for game in by_seed.values():
            played = [(seat, score) for seat, score in zip(game["seats"], game["scores"], strict=True)
                      if score is not None]
            best = unique_winner([s for _, s in played]) if len(played) > 1 else None
            game["winner"] = None if best is None else played[best][0]
        return list(by_seed.values())


def run_tournament(tournament: Tournament, players: LocalPlayers | DaskPlayers, until_settled: bool = False,
                   cap: int = 0, on_result: Callable[[int, int], None] | None = None,
                   cache: ResultCache | None = None) -> Tournament:
    """Play the first round, then (``until_settled``) more rounds until every neighbouring
    pair in the ranking is settled or ``cap`` games per pair (pairs) or per entry is reached.
    With a ``cache`` (``engine.contest.result_cache``), games found there are not played, and each
    game played is kept there as it ends."""
    matches = tournament.first_round()
    total = done = 0
    while matches:
        total += len(matches)
        jobs = {m.index: tournament.job(m) for m in matches}
        to_play = []
        for job in jobs.values():
            found = cache.lookup(job) if cache is not None else None
            if found is None:
                to_play.append(job)
                continue
            tournament.record(found)
            done += 1
            if on_result:
                on_result(done, total)
        for result in players.play(to_play) if to_play else ():
            if cache is not None:
                cache.store(jobs[result.index], result)
            tournament.record(result)
            done += 1
            if on_result:
                on_result(done, total)
        matches = tournament.more_games(cap) if until_settled else []
    return tournament


async def run_tournament_async(tournament: Tournament, play: Callable[[Match], Awaitable[MatchResult]],
                               parallel: int = 1, until_settled: bool = False, cap: int = 0,
                               on_result: Callable[[int, int, MatchResult], None] | None = None
                               ) -> Tournament:
    """``run_tournament`` for matches that are coroutines (the page's, whose bots answer by
    message): up to ``parallel`` matches at once, taken in plan order. Results are kept by
    their place in the plan, so the JSON is the same whatever ``parallel`` is. A match that
    raises (e.g. the run was stopped) cancels the others and the error propagates."""
    if parallel < 1:
        raise ValueError(f"parallel must be at least 1, got {parallel}")
    matches = tournament.first_round()
    count = [0, 0]  # done, total

    async def player(waiting: list[Match]) -> None:
        while waiting:
            result = await play(waiting.pop())
            tournament.record(result)
            count[0] += 1
            if on_result:
                on_result(count[0], count[1], result)

    while matches:
        count[1] += len(matches)
        waiting = list(reversed(matches))  # popped from the end: plan order
        tasks = [asyncio.ensure_future(player(waiting)) for _ in range(min(parallel, len(waiting)))]
        try:
            await asyncio.gather(*tasks)
        except BaseException:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        matches = tournament.more_games(cap) if until_settled else []
    return tournament


def tournament_from_challenge(challenge: Any, secret: str | None = None,
                              budget: int | None = None) -> Tournament:
    """The tournament ``python -m engine tournament --challenge FILE`` plays when no flag
    overrides the file (``engine.contest.challenge.Challenge``); ``secret`` stands in for a file
    without one (None: a fresh one). ``ValueError`` when the field cannot make a tournament."""
    from engine.bots.entries import unique_names
    from engine.core.randomness import new_secret
    from engine.games.registry import get_game

    spec = get_game(challenge.game)
    entries = unique_names(challenge.tournament_entries())
    if len(entries) < 2:
        raise ValueError(f"a tournament needs at least 2 entries, got {len(entries)}")
    overrides = dict(challenge.settings)
    spec.settings(challenge.preset, **overrides)  # bad presets and setting values, before any bot
    seats = tournament_seats(spec, challenge.preset, len(entries), None)
    chosen = challenge.secret if challenge.secret is not None else secret
    return Tournament(spec, entries, challenge.games, challenge.seed,
                      chosen if chosen is not None else new_secret(), seats, challenge.preset,
                      overrides, budget=budget)
