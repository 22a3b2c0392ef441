"""Tournaments: the plan is balanced, the standings add up, and equal runs print equal JSON.

The end-to-end runs use deterministic bots (the built-in random bots are not seeded yet) and a
generous time limit, so a loaded machine cannot change a result.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from itertools import combinations
from pathlib import Path

import pytest

from engine.bots.entries import Entry
from engine.contest.ranking import MEAN_SCORE, WIN_RATE
from engine.contest.standings import ALONE, PAIRS, standings_of
from engine.contest.tournament import MatchResult, TablePlanner, Tournament, plan_alone, plan_pairs
from engine.games.registry import get_game

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).parent))
from fresh_thread import in_fresh_thread  # noqa: E402  (Playwright's loop: asyncio.run on a thread)

# Deterministic Flit bots: the move that converts most neutrals (the first such in
# view.moves() order), and one that always passes.
CONVERTER = '''
def move(view):
    neutrals = set(view.pieces(5))
    best, gain = (0, 0, 0, 0), -1
    for m in view.moves():
        g = sum(p in neutrals for p in view.neighbours(m[2], m[3]))
        if g > gain:
            best, gain = m, g
    return best
'''
FIRST_MOVE = '''
def move(view):
    moves = view.moves()
    return moves[0] if moves else (0, 0, 0, 0)
'''
PASSER = '''
def move(view):
    return 0, 0, 0, 0
'''


# Runs are compared byte for byte: a limit far above a move's cost on a loaded machine, so that
# no move's time decides a result. (Not the step budget: it costs these long Flit runs ~25%.)
ROOMY = ("--time-limit", 60_000)


def tournament_cli(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "engine", "tournament", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def bots(tmp_path):
    paths = {}
    for name, source in (("converter", CONVERTER), ("first", FIRST_MOVE), ("passer", PASSER)):
        path = tmp_path / f"{name}.py"
        path.write_text(source, encoding="utf-8")
        paths[name] = path
    return paths


# -- planning --------------------------------------------------------------------------------

def test_pairs_every_pair_every_seed_both_ways():
    matches = plan_pairs(4, [10, 11, 12])
    assert [m.index for m in matches] == list(range(len(matches)))
    assert len(matches) == 6 * 3 * 2
    tables = Counter((m.seed, m.table) for m in matches)
    for a, b in combinations(range(4), 2):
        for seed in (10, 11, 12):
            assert tables[seed, (a, b)] == 1 and tables[seed, (b, a)] == 1  # seats swapped
    games = Counter(e for m in matches for e in m.table)
    assert set(games.values()) == {3 * 3 * 2}


def test_alone_every_entry_plays_the_same_seeds():
    matches = plan_alone(range(3), [5, 6])
    assert sorted((m.seed, m.table) for m in matches) == [(s, (e,)) for s in (5, 6) for e in range(3)]


@pytest.mark.parametrize("entries,seats,rounds", [(8, 4, 8), (6, 3, 6), (6, 2, 4), (4, 4, 8)])
def test_tables_are_balanced_when_the_numbers_allow(entries, seats, rounds):
    planner = TablePlanner(entries, seats, seed=3)
    matches = [m for r in range(rounds) for m in planner.round(100 + r)]
    assert all(len(set(m.table)) == seats for m in matches)
    games = Counter(e for m in matches for e in m.table)
    assert set(games.values()) == {rounds}  # everyone plays every round
    for entry in range(entries):
        in_seat = Counter(m.table.index(entry) for m in matches if entry in m.table)
        assert [in_seat[s] for s in range(seats)] == [rounds // seats] * seats
    opponents = {frozenset(m.table) for m in matches}
    assert entries == seats or len(opponents) > entries // seats  # tables are redrawn


@pytest.mark.parametrize("entries,seats,rounds", [(7, 4, 8), (5, 3, 9), (9, 4, 10)])
def test_tables_are_nearly_balanced_otherwise(entries, seats, rounds):
    planner = TablePlanner(entries, seats, seed=1)
    matches = [m for r in range(rounds) for m in planner.round(r)]
    games = Counter(e for m in matches for e in m.table)
    assert max(games.values()) - min(games.values()) <= 1
    for entry in range(entries):
        in_seat = Counter(m.table.index(entry) for m in matches if entry in m.table)
        counts = [in_seat[s] for s in range(seats)]
        assert max(counts) - min(counts) <= 2


def test_tables_depend_on_the_seed_only():
    def draw(seed):
        planner = TablePlanner(8, 4, seed)
        return [m.table for r in range(4) for m in planner.round(r)]
    assert draw(1) == draw(1)
    assert draw(1) != draw(2)


def test_tables_for_wanted_entries_are_topped_up():
    planner = TablePlanner(6, 4, seed=1)
    matches = planner.round(9, wanted=[2, 5])
    assert len(matches) == 1 and {2, 5} <= set(matches[0].table) and len(matches[0].table) == 4


# -- standings -------------------------------------------------------------------------------

def result(index, seed, table, scores, faults=None):
    best = max(scores)
    winner = scores.index(best) if len(scores) > 1 and scores.count(best) == 1 else None
    return MatchResult(index, seed, tuple(table), tuple(scores), tuple(faults or [0] * len(scores)), winner)


def test_pair_standings_count_wins_draws_losses_and_faults():
    results = [result(0, 1, (0, 1), [30, 10]), result(1, 1, (1, 0), [10, 30], [2, 0]),
               result(2, 1, (0, 2), [20, 20]), result(3, 1, (2, 0), [5, 9]),
               result(4, 1, (1, 2), [7, 3]), result(5, 1, (2, 1), [8, 1])]
    a, b, c = standings_of(["a", "b", "c"], PAIRS, results)
    assert (a.games, a.wins, a.draws, a.losses, a.faults) == (4, 3, 1, 0, 0)
    assert (b.games, b.wins, b.draws, b.losses, b.faults) == (4, 1, 0, 3, 2)
    assert (c.games, c.wins, c.draws, c.losses) == (4, 1, 1, 2)
    assert a.win_rate == 3.5 / 4


def test_alone_standings_compare_entries_on_each_seed():
    results = [result(0, 1, (0,), [50]), result(1, 1, (1,), [40]), result(2, 2, (0,), [10]),
               result(3, 2, (1,), [10])]
    a, b = standings_of(["a", "b"], ALONE, results)
    assert (a.wins, a.draws, a.losses, a.scores) == (1, 1, 0, (50, 10))
    assert (b.wins, b.draws, b.losses, b.scores) == (0, 1, 1, (40, 10))


def hand_made(kind_game, names, results, games=2):
    spec = get_game(kind_game)
    tournament = Tournament(spec, [Entry(n, "builtin", "greedy") for n in names], games, 1, "S",
                            1 if spec.side_by_side else 2)
    for r in results:
        tournament.record(r)
    return tournament


def test_json_ranks_by_win_rate_with_intervals_cross_table_and_settled_places():
    names = ["low", "high"]
    results = [result(i, 1 + i // 2, (i % 2, 1 - i % 2), [1, 9] if i % 2 == 0 else [9, 1])
               for i in range(20)]  # high (entry 1) wins all 20
    out = hand_made("flit", names, results).to_json()
    assert out["ranked_by"] == WIN_RATE and out["format"] == PAIRS
    assert [s["name"] for s in out["standings"]] == ["high", "low"]
    high, low = out["standings"]
    assert (high["games"], high["wins"], high["losses"], high["mean_score"]) == (20, 20, 0, 9.0)
    assert low["score_interval"][1] < high["score_interval"][0] <= 1.0
    assert high["settled"] and low["settled"]
    assert out["cross"] == {"high": {"low": {"wins": 20, "draws": 0, "losses": 0}},
                            "low": {"high": {"wins": 0, "draws": 0, "losses": 20}}}
    assert out["games"][0] == {"seed": 1, "seats": ["low", "high"], "scores": [1, 9], "winner": "high"}
    assert set(high) == {"name", "games", "wins", "draws", "losses", "mean_score", "score_interval",
                         "faults", "settled"}


def test_mean_score_ranking_and_more_games_only_where_unsettled():
    results = [result(i * 3 + e, 1 + i, (e,), [score]) for i in range(4)
               for e, score in enumerate([100 + i, 101 - i, 10 + i % 2])]
    tournament = hand_made("atomas", ["a", "b", "c"], results, games=4)
    out = tournament.to_json()
    assert out["ranked_by"] == MEAN_SCORE and "cross" not in out
    assert [s["name"] for s in out["standings"]] == ["a", "b", "c"]
    assert [s["settled"] for s in out["standings"]] == [False, False, True]
    assert out["games"][0] == {"seed": 1, "seats": ["a", "b", "c"], "scores": [100, 101, 10], "winner": "b"}
    tournament.next_seed, tournament.next_index = 5, 12
    more = tournament.more_games(cap=10)
    assert sorted(m.table for m in more) == [(0,), (1,)] and {m.seed for m in more} == {5}
    assert tournament.more_games(cap=4) == []  # the cap is reached


# -- the command line ------------------------------------------------------------------------

def test_flit_tournament_end_to_end_repeats_and_jobs_agree(bots, tmp_path):
    args = ["flit", bots["converter"], bots["first"], bots["passer"], "--games", 2, "--seed", 1,
            "--secret", "S", *ROOMY, "--json"]
    first = tournament_cli(*args, "--replays", tmp_path / "replays")
    assert first.returncode == 0, first.stderr
    out = json.loads(first.stdout)
    assert [s["name"] for s in out["standings"]][0] == "converter"
    assert {s["name"]: s["games"] for s in out["standings"]} == {"converter": 4, "first": 4, "passer": 4}
    assert len(out["games"]) == 6 and {g["seed"] for g in out["games"]} == {1}
    assert sum(s["wins"] for s in out["standings"]) == sum(g["winner"] is not None for g in out["games"])
    assert out["cross"]["converter"]["passer"]["wins"] == 2
    again = tournament_cli(*args, "--no-cache")  # played again, not read from the cache
    assert again.returncode == 0, again.stderr
    assert again.stdout == first.stdout  # byte-identical
    parallel = tournament_cli(*args, "--jobs", 2, "--no-cache")
    assert parallel.returncode == 0, parallel.stderr
    assert parallel.stdout == first.stdout
    files = sorted((tmp_path / "replays").iterdir())
    assert [f.name for f in files] == [f"match-{i:05d}.json" for i in range(1, 7)]
    for index, path in enumerate(files):
        done = subprocess.run([sys.executable, "-m", "engine", "replay", path, "--json"], cwd=ROOT,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        verified = json.loads(done.stdout)
        assert verified["verified"] and verified["bots"] == out["games"][index]["seats"]
        assert verified["games"][0]["scores"] == out["games"][index]["scores"]


def test_leaderboard_and_cross_table_in_the_terminal(bots):
    done = tournament_cli("flit", bots["converter"], bots["passer"], "--games", 2, "--seed", 3,
                          "--secret", "S", *ROOMY)
    assert done.returncode == 0, done.stderr
    assert "ranked by win rate" in done.stdout and "cross table" in done.stdout
    lines = done.stdout.splitlines()
    assert any("converter" in line and "2/0/0" in line for line in lines)


def test_until_settled_plays_on_until_the_order_is_clear(bots):
    done = tournament_cli("flit", bots["converter"], bots["passer"], "--games", 2, "--seed", 1,
                          "--secret", "S", *ROOMY, "--until-settled", "--max-games", 10,
                          "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    converter, passer = out["standings"]
    assert converter["name"] == "converter" and converter["wins"] == converter["games"]
    assert converter["settled"] and passer["settled"]
    assert 2 < converter["games"] <= 10  # more than the first round, stopped when settled
    assert converter["games"] == 4  # 4 of 4 against 0 of 4: the Wilson intervals part


def test_score_alone_tournament_ranks_by_mean_score(bots, tmp_path):
    atomas_bot = tmp_path / "first_gap.py"
    atomas_bot.write_text("def move(view):\n    return (0, True) if view.atom == '-' else 0\n")
    done = tournament_cli("atomas", "builtin:greedy", atomas_bot, "--games", 3, "--seed", 2,
                          "--secret", "S", *ROOMY, "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["format"] == ALONE and out["ranked_by"] == MEAN_SCORE
    assert [g["seed"] for g in out["games"]] == [2, 3, 4]
    assert all(g["seats"] == ["greedy", "first_gap"] for g in out["games"])
    greedy = next(s for s in out["standings"] if s["name"] == "greedy")
    assert greedy["mean_score"] == round(sum(g["scores"][0] for g in out["games"]) / 3, 3)


def test_many_seat_tournament_plays_balanced_tables():
    done = tournament_cli("abotcalypse", "builtin:builder", "builtin:thrower", "builtin:builder",
                          "builtin:thrower", "--seats", 2, "--games", 2, "--seed", 1, "--secret", "S",
                          "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["format"] == PAIRS and out["ranked_by"] == MEAN_SCORE
    done = tournament_cli("abotcalypse", "builtin:builder", "builtin:thrower", "builtin:builder",
                          "builtin:thrower", "--seats", 3, "--games", 3, "--seed", 1, "--secret", "S",
                          "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["format"] == "tables" and out["seats"] == 3
    assert len(out["games"]) == 3 and all(len(g["seats"]) == 3 for g in out["games"])
    assert {s["name"] for s in out["standings"]} == {"builder", "thrower", "builder#2", "thrower#2"}


@pytest.mark.parametrize("args,message", [
    (["flit", "builtin:greedy", "builtin:random", "--games", 3], "--games must be even"),
    (["flit", "builtin:greedy"], "at least 2 entries"),
    (["atomas", "builtin:greedy", "builtin:random", "--seats", 2], "--seats does not apply"),
    (["flit", "builtin:greedy", "builtin:random", "--seats", 4], "seats 2 to 2"),
    (["flit", "builtin:greedy", "nothere.py"], "bot file not found"),
    (["flit", "builtin:greedy", "builtin:random", "--max-moves", 5], "not a Flit setting"),
    (["flit", "builtin:greedy", "builtin:random", "--jobs", 0], "must be at least 1"),
])
def test_bad_arguments_get_one_line_and_exit_2(args, message):
    done = tournament_cli(*args)
    assert done.returncode == 2
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert done.stdout == ""


def test_dask_cluster_gives_the_same_json_as_one_process(bots, tmp_path):
    distributed = pytest.importorskip("distributed")
    args = ["flit", bots["converter"], bots["first"], bots["passer"], "--games", 2, "--seed", 1,
            "--secret", "S", *ROOMY, "--json"]
    alone = tournament_cli(*args, "--no-cache")
    assert alone.returncode == 0, alone.stderr
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        on_cluster = tournament_cli(*args, "--scheduler", cluster.scheduler_address,
                                    "--replays", tmp_path / "replays")
    assert on_cluster.returncode == 0, on_cluster.stderr
    assert on_cluster.stdout == alone.stdout
    assert "played 6 games, 0 from the cache" in on_cluster.stderr
    cached = tournament_cli(*args)  # the controller kept the cluster's results as they came
    assert cached.returncode == 0, cached.stderr
    assert "played 0 games, 6 from the cache" in cached.stderr and cached.stdout == alone.stdout
    files = sorted((tmp_path / "replays").iterdir())
    assert len(files) == 6
    done = subprocess.run([sys.executable, "-m", "engine", "replay", files[0], "--json"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_unreachable_scheduler_is_one_line_and_exit_2(bots):
    pytest.importorskip("distributed")
    done = tournament_cli("flit", bots["converter"], bots["passer"], "--scheduler", "tcp://127.0.0.1:9",
                          "--time-limit", 2000, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "cannot reach the Dask scheduler" in done.stderr.strip().splitlines()[-1]


def test_a_step_budget_decides_time_in_a_tournament_the_same_in_every_process(tmp_path):
    """The issue's own command, with seeded built-in bots, a pasted random bot and a looping
    bot held by ``--budget``: equal JSON with one process and two, and the looper's
    over-budget moves are its faults."""
    pasted = tmp_path / "pasted.py"
    pasted.write_text("import random\n\ndef move(view):\n    moves = view.moves()\n"
                      "    return random.choice(moves) if moves else (0, 0, 0, 0)\n")
    looper = tmp_path / "looper.py"
    looper.write_text("def move(view):\n    while True:\n        pass\n")
    args = ["flit", "builtin:greedy", "builtin:random", pasted, looper, "--games", 2, "--seed", 1,
            "--secret", "S", "--budget", 200_000, "--time-limit", 60_000, "--json"]
    one = tournament_cli(*args)
    assert one.returncode == 0, one.stderr
    two = tournament_cli(*args, "--jobs", 2, "--no-cache")
    assert two.returncode == 0, two.stderr
    assert two.stdout == one.stdout
    standings = {s["name"]: s for s in json.loads(one.stdout)["standings"]}
    assert standings["looper"]["faults"] > 0 and standings["looper"]["wins"] == 0
    assert standings["greedy"]["faults"] == standings["pasted"]["faults"] == 0


# -- the page's core: a challenge file, matches as coroutines --------------------------------

def _challenge_text(**extra) -> str:
    return json.dumps({
        "format": "koth-arena-challenge", "version": 1, "title": "Flit, trial", "description": "",
        "game": "flit", "settings": {"time_limit_ms": 60_000}, "games": 2, "seed": 5, "secret": "S",
        "entries": [{"name": "converter", "code": CONVERTER}, {"name": "first", "code": FIRST_MOVE},
                    {"name": "passer", "code": PASSER}, {"name": "greedy", "code": "builtin:greedy"}],
        **extra})


@pytest.mark.parametrize("parallel", [1, 3])
def test_async_tournament_from_a_challenge_prints_the_native_json(tmp_path, parallel):
    """What the page runs (``tournament_from_challenge`` + ``run_tournament_async``, matches
    finishing in a scrambled order) gives the command line's JSON for the same file."""
    import asyncio
    import random as stdlib_random

    from engine.contest.challenge import load_challenge
    from engine.contest.tournament import play_match, run_tournament_async, tournament_from_challenge

    text = _challenge_text()
    path = tmp_path / "challenge.json"
    path.write_text(text, encoding="utf-8")
    native = tournament_cli("--challenge", path, "--json")
    assert native.returncode == 0, native.stderr

    tournament = tournament_from_challenge(load_challenge(text))
    delays = stdlib_random.Random(parallel)
    seen: list[int] = []

    async def play(match):
        await asyncio.sleep(delays.random() / 100)
        return play_match(tournament.job(match))

    in_fresh_thread(lambda: asyncio.run(run_tournament_async(
        tournament, play, parallel, on_result=lambda done, total, r: seen.append(r.index))))
    assert len(seen) == 12 and sorted(seen) == list(range(12))
    if parallel > 1:
        assert seen != sorted(seen)  # they did finish out of order
    assert json.dumps(tournament.to_json()) + "\n" == native.stdout


def test_async_tournament_stops_every_match_when_one_raises():
    import asyncio

    from engine.contest.challenge import load_challenge
    from engine.contest.tournament import run_tournament_async, tournament_from_challenge

    tournament = tournament_from_challenge(load_challenge(_challenge_text()))
    cancelled = []

    class Stopped(Exception):
        pass

    async def play(match):
        if match.index == 1:
            raise Stopped
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            cancelled.append(match.index)
            raise

    with pytest.raises(Stopped):
        in_fresh_thread(lambda: asyncio.run(run_tournament_async(tournament, play, 3)))
    assert cancelled == [0, 2] and tournament.results == {}


def test_a_challenge_without_secret_gets_the_one_given_or_a_fresh_one():
    from engine.contest.challenge import load_challenge
    from engine.contest.tournament import tournament_from_challenge

    data = json.loads(_challenge_text())
    del data["secret"]
    challenge = load_challenge(json.dumps(data))
    assert tournament_from_challenge(challenge, "mine").secret == "mine"
    assert tournament_from_challenge(challenge).secret != tournament_from_challenge(challenge).secret
    data["entries"] = data["entries"][:1]
    with pytest.raises(ValueError, match="at least 2 entries"):
        tournament_from_challenge(load_challenge(json.dumps(data)))


@pytest.mark.parametrize("game,entries,seats,games", [
    ("flit", 5, 2, 4), ("atomas", 3, 1, 5), ("abotcalypse", 7, 3, 4), ("abotcalypse", 6, 3, 2),
])
def test_first_round_size_is_what_the_first_round_plans(game, entries, seats, games):
    field = [Entry(f"e{i}", "builtin", "random") for i in range(entries)]
    tournament = Tournament(get_game(game), field, games, 1, "S", seats)
    assert tournament.first_round_size() == len(tournament.first_round())
