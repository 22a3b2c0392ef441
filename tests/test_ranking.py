"""Settled rankings: intervals against hand-computed and textbook values, the ranking order,
which places are settled, and which games ``--until-settled`` would still schedule."""

from __future__ import annotations

import math

import pytest

from engine.contest.ranking import (
    MEAN_SCORE,
    WIN_RATE,
    Standing,
    entries_to_play_more,
    mean_interval,
    normal_quantile,
    pairs_to_play_more,
    rank,
    settled_places,
    t_quantile,
    unsettled_entries,
    wilson_interval,
)


def test_normal_quantile() -> None:
    assert normal_quantile(0.975) == pytest.approx(1.959963984540054, abs=1e-12)
    assert normal_quantile(0.5) == pytest.approx(0.0, abs=1e-12)
    assert normal_quantile(0.995) == pytest.approx(2.5758293035489, abs=1e-10)


def test_wilson_interval_known_values() -> None:
    # 8 of 10 at 95%, z = 1.959964, z^2 = 3.841459, n = 10, p = 0.8:
    #   centre = (0.8 + 3.841459 / 20) / (1 + 3.841459 / 10) = 0.992073 / 1.384146 = 0.716740
    #   half   = 1.959964 / 1.384146 * sqrt(0.8 * 0.2 / 10 + 3.841459 / 400)
    #          = 1.416010 * sqrt(0.016 + 0.009604) = 1.416010 * 0.160011 = 0.226577
    #   -> [0.490163, 0.943317] (the textbook [0.490, 0.943])
    low, high = wilson_interval(8, 10)
    assert (low, high) == (pytest.approx(0.490163, abs=1e-5), pytest.approx(0.943317, abs=1e-5))
    # 0 of 10: centre = half = 0.192073 / 1.384146 = 0.138767 -> [0, 0.277533]
    assert wilson_interval(0, 10) == (0.0, pytest.approx(0.277533, abs=1e-5))
    assert wilson_interval(10, 10) == (pytest.approx(1 - 0.277533, abs=1e-5), 1.0)
    # 50 of 100: centre 0.5, half = 1.959964 / 1.038415 * sqrt(0.0025 + 0.0000960) = 0.096170
    assert wilson_interval(50, 100) == (pytest.approx(0.403830, abs=1e-5), pytest.approx(0.596170, abs=1e-5))
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


def test_draws_count_as_half_a_win() -> None:
    drawn = Standing("d", games=10, wins=6, draws=4, losses=0)
    assert drawn.win_rate == 0.8
    (ranked,) = rank([drawn])
    assert ranked.interval == wilson_interval(8, 10)


def test_t_quantiles_match_the_textbook_table() -> None:
    # Student t, two-sided 95% (the 0.975 quantile): df 1 12.706, 2 4.303, 4 2.776, 9 2.262,
    # 30 2.042, 120 1.980
    table = {1: 12.706205, 2: 4.302653, 4: 2.776445, 9: 2.262157, 30: 2.042272, 120: 1.979930}
    for df, expected in table.items():
        assert t_quantile(0.975, df) == pytest.approx(expected, abs=1e-5), df
    assert t_quantile(0.025, 9) == pytest.approx(-2.262157, abs=1e-5)


def test_mean_interval_known_value() -> None:
    # 1..5: mean 3, s = sqrt(10 / 4) = 1.581139, s / sqrt(5) = 0.707107, t(0.975, 4) = 2.776445
    #   half = 1.963243 -> [1.036757, 4.963243]
    low, high = mean_interval([1, 2, 3, 4, 5])
    assert (low, high) == (pytest.approx(1.036757, abs=1e-5), pytest.approx(4.963243, abs=1e-5))
    assert mean_interval([7, 7, 7]) == (7.0, 7.0)
    assert mean_interval([3]) == (-math.inf, math.inf)
    assert mean_interval([]) == (-math.inf, math.inf)


def test_rank_orders_best_first_and_does_not_depend_on_input_order() -> None:
    standings = [Standing("b", 10, 5, 0, 5), Standing("a", 10, 5, 0, 5), Standing("c", 10, 9, 0, 1),
                 Standing("d", 20, 10, 0, 10)]
    ranking = rank(standings)
    assert [r.name for r in ranking] == ["c", "d", "a", "b"]  # d: same rate, narrower interval
    assert [r.place for r in ranking] == [1, 2, 3, 4]
    assert [r.name for r in rank(list(reversed(standings)))] == ["c", "d", "a", "b"]
    scores = [Standing("x", 3, scores=(10, 12, 14)), Standing("y", 3, scores=(30, 31, 32))]
    by_score = rank(scores, by=MEAN_SCORE)
    assert [(r.name, r.value) for r in by_score] == [("y", 31.0), ("x", 12.0)]
    with pytest.raises(ValueError, match="rank by"):
        rank(scores, by="elo")
    with pytest.raises(ValueError, match="same name"):
        rank([Standing("x", 1), Standing("x", 2)], by=WIN_RATE)


def test_settled_places_and_what_to_play_more() -> None:
    # strong: 90/100 -> [0.825, 0.945]; mid1 55/100 -> [0.452, 0.644]; mid2 50/100 ->
    # [0.404, 0.596]; weak 5/100 -> [0.022, 0.112]: only mid1/mid2 overlap.
    standings = [Standing("weak", 100, 5, 0, 95), Standing("mid2", 100, 50, 0, 50),
                 Standing("strong", 100, 90, 0, 10), Standing("mid1", 100, 55, 0, 45)]
    ranking = rank(standings)
    assert [r.name for r in ranking] == ["strong", "mid1", "mid2", "weak"]
    assert settled_places(ranking) == [True, False, True]
    assert unsettled_entries(ranking) == ["mid1", "mid2"]
    played = {frozenset(p): 20 for p in [("strong", "mid1"), ("strong", "mid2"), ("strong", "weak"),
                                         ("mid1", "mid2"), ("mid1", "weak"), ("mid2", "weak")]}
    # every pairing of an unsettled entry, whoever its opponent; strong-weak is done
    assert pairs_to_play_more(ranking, played, cap=100) == [
        ("strong", "mid1"), ("strong", "mid2"), ("mid1", "mid2"), ("mid1", "weak"), ("mid2", "weak")]
    played[frozenset(("mid1", "mid2"))] = 100
    assert ("mid1", "mid2") not in pairs_to_play_more(ranking, played, cap=100)
    assert pairs_to_play_more(ranking, dict.fromkeys(played, 100), cap=100) == []
    assert entries_to_play_more(ranking, {"mid1": 100, "mid2": 40}, cap=100) == ["mid2"]


def test_everything_settled_means_nothing_more_to_play() -> None:
    ranking = rank([Standing("a", 50, 45, 0, 5), Standing("b", 50, 5, 0, 45)])
    assert settled_places(ranking) == [True]
    assert pairs_to_play_more(ranking, {}, cap=1000) == []
    assert entries_to_play_more(ranking, {}, cap=1000) == []
    # after one game each, nothing is settled: an unbounded mean interval overlaps everything
    early = rank([Standing("a", 1, scores=(100,)), Standing("b", 1, scores=(1,))], by=MEAN_SCORE)
    assert settled_places(early) == [False]
    assert entries_to_play_more(early, {"a": 1, "b": 1}, cap=10) == ["a", "b"]
    assert settled_places(rank([])) == [] and settled_places(rank([Standing("solo", 3, 1, 1, 1)])) == []
