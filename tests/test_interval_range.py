"""A 95% interval never claims a score no game could give (issue 18).

Atomas and aBOTcalypse scores are never negative, yet a t-interval of a few spread-out
scores went below 0 in the CLI's leaderboard, the page's (the same ``leaderboard_rows``)
and the JSON. Intervals are clipped to the game's ``min_score``; win rates stay in [0, 1].
"""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from engine.bots.entries import Entry
from engine.contest.ranking import MEAN_SCORE, Standing, mean_interval, rank, win_rate_interval
from engine.contest.standings import leaderboard_rows
from engine.contest.tournament import MatchResult, Tournament
from engine.games.registry import games, get_game

SPREAD = [0, 0, 0, 90]  # mean 22.5, t-interval about -49..94 unclipped


def test_mean_interval_is_clipped_to_the_lowest_possible_score() -> None:
    low, high = mean_interval(SPREAD)
    assert low < 0 < high  # the raw interval: what the leaderboard used to show
    clipped = mean_interval(SPREAD, min_score=0)
    assert clipped == (0, high)
    assert mean_interval([5], min_score=0) == (0, math.inf)
    assert mean_interval([3, 4, 5], min_score=0) == mean_interval([3, 4, 5])  # inside: unchanged


def test_win_rate_intervals_stay_within_0_and_1() -> None:
    for wins, draws, losses in [(0, 0, 3), (3, 0, 0), (0, 1, 0), (5, 2, 1)]:
        low, high = win_rate_interval(Standing("x", wins + draws + losses, wins, draws, losses))
        assert 0 <= low <= high <= 1


@pytest.mark.parametrize("spec", [s for s in games() if s.trusted], ids=lambda s: s.name)
def test_every_built_in_game_declares_its_lowest_score(spec) -> None:
    assert spec.min_score == 0


@pytest.mark.parametrize("game", ["atomas", "abotcalypse"])
def test_leaderboard_and_json_intervals_start_at_zero(game: str) -> None:
    spec = get_game(game)
    seats = 1 if spec.side_by_side else 2
    tournament = Tournament(spec, [Entry(n, "builtin", "greedy") for n in ["a", "b"]], 4, 1, "S", seats)
    for i, score in enumerate(SPREAD):
        scores = (score,) if seats == 1 else (score, 1)
        table = (0,) if seats == 1 else (0, 1)
        tournament.record(MatchResult(i, 1 + i, table, scores, (0,) * seats, None))
    assert tournament.by == MEAN_SCORE
    ranking = tournament.ranking()
    assert all(r.interval[0] >= 0 for r in ranking)
    rows = {row["name"]: row for row in leaderboard_rows(ranking, tournament.by)}
    assert rows["a"]["interval"].startswith("0.0–"), rows["a"]
    assert "-" not in rows["a"]["interval"] and "-" not in rows["a"]["measure"]
    standings = {s["name"]: s for s in tournament.to_json()["standings"]}
    assert standings["a"]["score_interval"][0] == 0


def test_the_cli_json_of_an_atomas_tournament_has_no_negative_interval() -> None:
    done = subprocess.run([sys.executable, "-m", "engine", "tournament", "atomas", "builtin:random",
                           "builtin:greedy", "--games", "4", "--seed", "4", "--secret", "s",
                           "--max-moves", "60", "--no-sandbox", "--json"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    standings = json.loads(done.stdout)["standings"]
    assert standings and all(s["score_interval"][0] >= 0 for s in standings), standings


def test_rank_clips_only_mean_scores() -> None:
    ranked = rank([Standing("a", 4, scores=tuple(SPREAD))], MEAN_SCORE, min_score=0)
    assert ranked[0].interval[0] == 0
