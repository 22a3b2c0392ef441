"""A tournament's standings from its match results: each entry's games, wins, draws, losses,
scores and faults; the leaderboard's rows as people read them; the two-player cross table.
Pure functions of the results, shared by the command line, the page's controller and the
results site, so all three show the same numbers.

The tournament formats (``Tournament.kind``, see ``engine.contest.tournament``) are named
here because the standings count a score-alone game differently: entries that played the
same seed alone are compared with each other.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from engine.contest.match_job import MatchResult
from engine.contest.ranking import WIN_RATE, Ranked, Standing, settled_places
from engine.core.outcome import unique_winner

PAIRS, TABLES, ALONE = "pairs", "tables", "alone"


def standings_of(names: list[str], kind: str, results: Iterable[MatchResult]) -> list[Standing]:
    """Each entry's games, wins, draws (tied for the best score), losses, scores and faults."""
    games = [0] * len(names)
    wins, draws, losses, faults = ([0] * len(names) for _ in range(4))
    scores: list[list[int]] = [[] for _ in names]
    outcomes: list[tuple[list[int], list[int]]] = []  # (entries, their scores) per game
    results = [r for r in results if r.error is None]
    if kind == ALONE:
        by_seed: dict[int, tuple[list[int], list[int]]] = {}
        for r in results:
            entries, points = by_seed.setdefault(r.seed, ([], []))
            entries.append(r.table[0])
            points.append(r.scores[0])
            faults[r.table[0]] += r.faults[0]
        outcomes = list(by_seed.values())
    else:
        for r in results:
            outcomes.append((list(r.table), list(r.scores)))
            for entry, count in zip(r.table, r.faults, strict=True):
                faults[entry] += count
    for entries, points in outcomes:
        best = max(points)
        winner = unique_winner(points) if len(points) > 1 else None
        for seat, (entry, score) in enumerate(zip(entries, points, strict=True)):
            games[entry] += 1
            scores[entry].append(score)
            if len(points) == 1:
                draws[entry] += 1  # alone on a seed so far: no one to beat
            elif winner == seat:
                wins[entry] += 1
            elif winner is None and score == best:
                draws[entry] += 1
            else:
                losses[entry] += 1
    return [Standing(name, games[i], wins[i], draws[i], losses[i], tuple(scores[i]), faults[i])
            for i, name in enumerate(names)]


def settled_marks(ranking: list[Ranked]) -> list[bool]:
    """Per place: settled against the place above and the place below (where there is one)."""
    between = settled_places(ranking)
    return [(i == 0 or between[i - 1]) and (i == len(ranking) - 1 or between[i])
            for i in range(len(ranking))]


def leaderboard_rows(ranking: list[Ranked], by: str) -> list[dict[str, Any]]:
    """The leaderboard as people read it, one row a place: the terminal's table and the
    page's both show these texts (``measure``: W/D/L, or the mean ± the interval's half)."""
    rows = []
    for r, settled in zip(ranking, settled_marks(ranking), strict=True):
        s, (low, high) = r.standing, r.interval
        if by == WIN_RATE:
            measure = f"{s.wins}/{s.draws}/{s.losses}"
            interval = f"{low:.0%}–{high:.0%} (win rate {r.value:.0%})"
        else:
            half = high - r.value  # the t-interval's half; its lower end may be clipped
            measure = f"{r.value:.1f} ± {half:.1f}" if half != float("inf") else f"{r.value:.1f}"
            interval = f"{low:.1f}–{high:.1f}" if half != float("inf") else "–"
        rows.append({"place": r.place, "name": r.name, "games": s.games, "wins": s.wins,
                     "draws": s.draws, "losses": s.losses, "measure": measure, "interval": interval,
                     "faults": s.faults, "settled": settled})
    return rows


def json_number(value: float) -> float | None:
    return round(value, 6) if math.isfinite(value) else None


def cross_table(names: list[str], results: Iterable[MatchResult],
                order: list[str] | None = None) -> dict[str, dict[str, dict]]:
    """Two-player games: ``cross[a][b]``, a's wins, draws and losses against b (``names``: by
    entry index; rows and columns in ``order``, the ranking, when given)."""
    order = order or names
    cross = {a: {b: {"wins": 0, "draws": 0, "losses": 0} for b in order if b != a} for a in order}
    for r in results:
        if r.error is not None:
            continue
        for seat, entry in enumerate(r.table):
            other = names[r.table[1 - seat]]
            cell = cross[names[entry]][other]
            key = "draws" if r.winner is None else "wins" if r.winner == seat else "losses"
            cell[key] += 1
    return cross
