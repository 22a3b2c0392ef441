"""Settled rankings: each standing's 95% interval, the ranking, and which places are clear.

A leaderboard after a few games says little: two entries a few wins apart may swap places
with more games. This module gives every standing an interval and says, for each pair of
neighbours in the ranking, whether their order is settled; ``--until-settled`` uses
``pairs_to_play_more`` / ``entries_to_play_more`` to schedule games only where they help.
Pure functions, standard library only (it runs in Pyodide too), and deterministic: no
resampling, so equal results give equal intervals everywhere.

Choices:

- Two-player games rank by win rate, a **draw counting as half a win** (the usual chess
  convention: a draw is evidence of equal strength, and keeping draws apart would leave a
  drawish pair unsettled forever). Its interval is the **Wilson score interval**, which stays
  inside [0, 1] and behaves at 0 and at all wins, unlike the normal approximation; a
  half-win is used in the formula as it stands (a common approximation).
- Other games rank by mean score per game, with a **Student t-interval** (exact for normal
  scores, and close for the means of a few dozen games; a seeded bootstrap would add
  randomness and cost for little gain). Fewer than two games give an unbounded interval.
  The interval is **clipped to the scores' possible range** (a game's ``min_score``: no
  built-in game scores below 0), so it never claims a mean no game could give.
- Ties in the value are broken by the interval's lower end, then by name, so a ranking
  never depends on input order.
- Two neighbours are **settled** when their 95% intervals do not overlap. That is
  conservative (for intervals of equal width it amounts to a difference significant at
  about 99.4%): a place called settled stays settled with very high probability.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import pairwise

CONFIDENCE = 0.95
WIN_RATE = "win_rate"
MEAN_SCORE = "mean_score"


@dataclass(frozen=True)
class Standing:
    """One entry's results so far."""

    name: str
    games: int
    wins: int = 0
    draws: int = 0
    losses: int = 0
    scores: tuple[float, ...] = ()  # one per game (score-alone and many-seat games)
    faults: int = 0

    @property
    def win_rate(self) -> float:
        """Wins plus half the draws, per game (0 before any game)."""
        return (self.wins + self.draws / 2) / self.games if self.games else 0.0

    @property
    def mean_score(self) -> float:
        return math.fsum(self.scores) / len(self.scores) if self.scores else 0.0


@dataclass(frozen=True)
class Ranked:
    """A standing in the ranking: its place (1 is first), value and 95% interval."""

    place: int
    standing: Standing
    value: float
    interval: tuple[float, float] = field(default=(-math.inf, math.inf))

    @property
    def name(self) -> str:
        return self.standing.name


@lru_cache(maxsize=64)
def normal_quantile(p: float) -> float:
    """The standard normal distribution's p-quantile (by bisection on erfc; exact to 1e-15)."""
    if not 0 < p < 1:
        raise ValueError(f"a quantile needs 0 < p < 1, not {p}")
    low, high = -40.0, 40.0
    for _ in range(200):
        middle = (low + high) / 2
        if 0.5 * math.erfc(-middle / math.sqrt(2)) < p:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def wilson_interval(successes: float, trials: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wilson score interval for a success rate; (0, 1) with no trials."""
    if trials <= 0:
        return 0.0, 1.0
    if not 0 <= successes <= trials:
        raise ValueError(f"{successes} successes out of {trials} trials")
    z = normal_quantile(0.5 + confidence / 2)
    rate, z2 = successes / trials, z * z
    centre = (rate + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z / (1 + z2 / trials) * math.sqrt(rate * (1 - rate) / trials + z2 / (4 * trials * trials))
    return max(0.0, centre - half), min(1.0, centre + half)


def win_rate_interval(standing: Standing, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wilson interval of the win rate, a draw counting as half a win."""
    return wilson_interval(standing.wins + standing.draws / 2, standing.games, confidence)


def _incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b) (continued fraction, Lentz)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    if x > (a + 1) / (a + b + 2):
        return 1.0 - _incomplete_beta(b, a, 1.0 - x)
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                     + a * math.log(x) + b * math.log1p(-x)) / a
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 1000):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= c * d
        if abs(c * d - 1.0) < 1e-15:
            break
    return front * result


def t_cdf(t: float, df: int) -> float:
    """Student's t distribution's cumulative probability at t, with df degrees of freedom."""
    tail = 0.5 * _incomplete_beta(df / 2, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


@lru_cache(maxsize=4096)
def t_quantile(p: float, df: int) -> float:
    """Student's t distribution's p-quantile (bisection on t_cdf)."""
    if not 0 < p < 1:
        raise ValueError(f"a quantile needs 0 < p < 1, not {p}")
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, not {df}")
    low, high = -1e6, 1e6
    for _ in range(100):  # 2e6 / 2**100: far below a float's resolution
        middle = (low + high) / 2
        if t_cdf(middle, df) < p:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def mean_interval(scores: Sequence[float], confidence: float = CONFIDENCE,
                  min_score: float = -math.inf) -> tuple[float, float]:
    """Student t-interval for the mean score, its lower end no lower than ``min_score``
    (the lowest score a game can give); unbounded above with fewer than two scores."""
    n = len(scores)
    if n < 2:
        return min_score, math.inf
    mean = math.fsum(scores) / n
    spread = math.sqrt(math.fsum((s - mean) ** 2 for s in scores) / (n - 1))
    half = t_quantile(0.5 + confidence / 2, n - 1) * spread / math.sqrt(n)
    return max(min_score, mean - half), mean + half


def rank(standings: Sequence[Standing], by: str = WIN_RATE,
         confidence: float = CONFIDENCE, min_score: float = -math.inf) -> list[Ranked]:
    """The standings in order, best first, each with its value and interval.

    ``by`` is ``WIN_RATE`` (two-player games) or ``MEAN_SCORE`` (the others, whose
    intervals start no lower than ``min_score``, the game's lowest possible score). Equal values
    share the ranking order by the interval's lower end, then name; places are 1, 2, 3...
    """
    if by == WIN_RATE:
        measured = [(s, s.win_rate, win_rate_interval(s, confidence)) for s in standings]
    elif by == MEAN_SCORE:
        measured = [(s, s.mean_score, mean_interval(s.scores, confidence, min_score)) for s in standings]
    else:
        raise ValueError(f"rank by {WIN_RATE!r} or {MEAN_SCORE!r}, not {by!r}")
    names = [s.name for s in standings]
    if len(set(names)) != len(names):
        raise ValueError("two standings have the same name")
    measured.sort(key=lambda m: (-m[1], -m[2][0], m[0].name))
    return [Ranked(place, s, value, interval)
            for place, (s, value, interval) in enumerate(measured, start=1)]


def settled_places(ranking: Sequence[Ranked]) -> list[bool]:
    """For each neighbouring pair (first and second, second and third...): is it settled?

    Settled: the upper one's interval lies wholly above the lower one's.
    """
    return [upper.interval[0] > lower.interval[1] for upper, lower in pairwise(ranking)]


def unsettled_entries(ranking: Sequence[Ranked]) -> list[str]:
    """The entries in at least one unsettled neighbouring pair, in ranking order."""
    settled = settled_places(ranking)
    return [r.name for i, r in enumerate(ranking)
            if (i > 0 and not settled[i - 1]) or (i < len(settled) and not settled[i])]


def pairs_to_play_more(ranking: Sequence[Ranked], played: Mapping[frozenset[str], int],
                       cap: int) -> list[tuple[str, str]]:
    """Two-player games: the pairings that should play another round, for ``--until-settled``.

    Every pairing of an unsettled entry with *any* other entry, not only with its unsettled
    neighbour: an entry's win rate is measured against the whole field, and playing one
    pairing alone would pull both rates toward that head-to-head result. Pairings that
    have played ``cap`` games (``played[frozenset({a, b})]``) are left out. Empty when every
    neighbouring pair is settled or the cap is reached everywhere. Deterministic order: by
    the ranking, the better-placed entry first.
    """
    unsettled = set(unsettled_entries(ranking))
    names = [r.name for r in ranking]
    return [(a, b) for i, a in enumerate(names) for b in names[i + 1:]
            if (a in unsettled or b in unsettled) and played.get(frozenset((a, b)), 0) < cap]


def entries_to_play_more(ranking: Sequence[Ranked], played: Mapping[str, int], cap: int) -> list[str]:
    """Score-alone and many-seat games: the entries that should play more games, by ranking.

    An entry's mean score is its own (the same seeds for every entry), so only the
    unsettled entries need more games; those that have played ``cap`` games are left out.
    """
    return [name for name in unsettled_entries(ranking) if played.get(name, 0) < cap]
