"""Incremental re-runs: a re-run plays only the games it has not seen, and its leaderboard
equals a run from zero; a stopped run resumes; a bad cache file costs a replay, not a result.

The planning tests play with stand-in players (a game's scores are a hash of its seats' code
and seed) so they can count what was played; the command-line tests play real Atomas games
with deterministic bots under the step budget.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from engine.bots.entries import PYTHON, Entry
from engine.contest.result_cache import MAX_RESULT_BYTES, ResultCache
from engine.contest.standings import ALONE, PAIRS, TABLES
from engine.contest.tournament import MatchJob, MatchResult, Tournament, run_tournament
from engine.core.outcome import unique_winner
from engine.games.registry import get_game

ROOT = Path(__file__).resolve().parents[1]


class CountingPlayers:
    """Plays nothing: a game's scores are a hash of its seats' code, seat and seed."""

    def __init__(self) -> None:
        self.played: list[MatchJob] = []

    def play(self, jobs: list[MatchJob]):
        for job in jobs:
            self.played.append(job)
            scores = tuple(int(hashlib.sha256(f"{e.text}:{seat}:{job.match.seed}".encode()).hexdigest(), 16)
                           % 50 for seat, e in enumerate(job.entries))
            yield MatchResult(job.match.index, job.match.seed, job.match.table, scores,
                              (0,) * len(scores), unique_winner(scores) if len(scores) > 1 else None)


def _entry(name: str, code: str = "") -> Entry:
    return Entry(name, PYTHON, code or f"# {name}\ndef move(view):\n    return 0\n")


FIELD = [_entry(n) for n in ("a", "b", "c", "d")]
FORMATS = {PAIRS: ("flit", 2, 4), ALONE: ("atomas", 1, 3), TABLES: ("abotcalypse", 3, 4)}


def _play(kind: str, entries: list[Entry], cache: ResultCache | None) -> tuple[Tournament, int]:
    game, seats, games = FORMATS[kind]
    tournament = Tournament(get_game(game), list(entries), games, 7, "S", seats)
    assert tournament.kind == kind
    players = CountingPlayers()
    run_tournament(tournament, players, cache=cache)
    return tournament, len(players.played)


@pytest.mark.parametrize("kind", [PAIRS, ALONE, TABLES])
def test_a_rerun_plays_only_the_games_of_the_edited_and_new_entries(kind, tmp_path):
    cache = ResultCache(tmp_path / "results")
    first, played = _play(kind, FIELD, cache)
    assert played == len(first.results) and cache.hits == 0
    edited = [*FIELD[:1], replace(FIELD[1], text=FIELD[1].text + "# edited\n"), *FIELD[2:]]
    fields = [edited] if kind == TABLES else [edited, [*edited, _entry("e")]]
    for field in fields:
        again, played = _play(kind, field, cache := ResultCache(tmp_path / "results"))
        changed = {len(FIELD)} if len(field) > len(FIELD) else {1}  # b edited, then e added
        involved = sum(bool(changed & set(r.table)) for r in again.results.values())
        assert played == involved < len(again.results)  # only the games with b, then with e
        assert cache.hits == len(again.results) - involved
        fresh, _ = _play(kind, field, None)
        assert again.to_json() == fresh.to_json()


def test_tables_redraw_when_an_entry_joins_but_the_leaderboard_is_still_right(tmp_path):
    _play(TABLES, FIELD, ResultCache(tmp_path / "results"))
    joined = [*FIELD, _entry("e")]
    again, _ = _play(TABLES, joined, ResultCache(tmp_path / "results"))
    fresh, _ = _play(TABLES, joined, None)
    assert again.to_json() == fresh.to_json()


def test_bad_cache_files_are_ignored_with_a_warning_and_their_games_replayed(tmp_path):
    folder = tmp_path / "results"
    first, _ = _play(PAIRS, FIELD, ResultCache(folder))
    files = sorted(folder.glob("*.json"))
    assert len(files) == len(first.results) == 24
    secret = tmp_path / "secret.txt"
    secret.write_text("not for the cache")
    bad = [
        b"[" * 100_000 + b"]" * 100_000,  # deep: never handed to json.loads
        b"{" + b" " * MAX_RESULT_BYTES + b"}",  # over the size cap
        b"not json",
        b"\xff\xfe",
        json.dumps({"format": 1, "scores": [1], "faults": [0]}).encode(),  # a table of one
        json.dumps({"format": 1, "scores": [1, True], "faults": [0, 0]}).encode(),
        json.dumps({"format": 1, "scores": [1, 2.5], "faults": [0, 0]}).encode(),
        json.dumps({"format": 1, "scores": [1, 2], "faults": [0, -1]}).encode(),
        json.dumps({"format": 1, "scores": [1, 10**30], "faults": [0, 0]}).encode(),
        json.dumps({"format": 2, "scores": [1, 2], "faults": [0, 0]}).encode(),
        json.dumps([1, 2]).encode(),
    ]
    for path, data in zip(files, bad, strict=False):
        path.write_bytes(data)
    files[len(bad)].unlink()
    files[len(bad)].symlink_to(secret)  # followed by no read
    warnings: list[str] = []
    started = time.perf_counter()
    again, played = _play(PAIRS, FIELD, ResultCache(folder, warn=warnings.append))
    assert time.perf_counter() - started < 30  # the deep file is measured in linear time
    assert played == len(bad) + 1
    assert len(warnings) == len(bad) + 1 and all("playing the game" in w for w in warnings)
    assert again.to_json() == first.to_json()
    assert secret.read_text() == "not for the cache"
    assert not files[len(bad)].is_symlink()  # replaced by the replayed game's result


# -- the command line: real games ------------------------------------------------------------

FIRST = "def move(view):\n    return view.moves()[0]\n"
LAST = "def move(view):\n    return view.moves()[-1]\n"
MIDDLE = "def move(view):\n    moves = view.moves()\n    return moves[len(moves) // 2]\n"


def _cli(*args, timeout=600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "engine", "tournament", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


def _counts(stderr: str) -> tuple[int, int]:
    found = re.search(r"played (\d+) games, (\d+) from the cache", stderr)
    assert found, stderr
    return int(found[1]), int(found[2])


def _bots(folder: Path, **codes: str) -> list[Path]:
    folder.mkdir(exist_ok=True)
    paths = []
    for name, code in codes.items():
        (folder / f"{name}.py").write_text(code, encoding="utf-8")
        paths.append(folder / f"{name}.py")
    return paths


ATOMAS = ("--max-moves", 30, "--seed", 1, "--secret", "S", "--budget", 200_000, "--time-limit", 60_000,
          "--no-sandbox", "--json")


def test_an_edited_and_a_new_answer_replay_only_their_games_with_two_workers(tmp_path):
    bots = tmp_path / "bots"
    cache = ("--cache", tmp_path / "cache")
    field = _bots(bots, first=FIRST, last=LAST)
    done = _cli("atomas", *field, "builtin:greedy", "--games", 2, *ATOMAS, *cache, "--jobs", 2,
                "--replays", tmp_path / "replays-1")
    assert done.returncode == 0, done.stderr
    assert _counts(done.stderr) == (6, 0)
    field = _bots(bots, first=MIDDLE, last=LAST, middle=MIDDLE)  # first edited, middle new
    again = _cli("atomas", *field, "builtin:greedy", "--games", 2, *ATOMAS, *cache, "--jobs", 2,
                 "--replays", tmp_path / "replays-2")
    assert again.returncode == 0, again.stderr
    assert _counts(again.stderr) == (4, 4)
    fresh = _cli("atomas", *field, "builtin:greedy", "--games", 2, *ATOMAS, "--no-cache")
    assert fresh.returncode == 0, fresh.stderr
    assert "from the cache" not in fresh.stderr
    assert again.stdout == fresh.stdout
    replays = sorted((tmp_path / "replays-2").iterdir())  # the cached games' replays copied
    assert len(replays) == 8 and all(json.loads(p.read_text())["summary"] for p in replays)


def test_a_stopped_run_resumes_where_it_stopped(tmp_path):
    """Ctrl-C, then a kill of the whole process group, mid-run: each re-run plays only the
    games not yet kept, and the last one's leaderboard equals a run from zero."""
    # Each move waits 20 ms (outside the step count), so a game takes over half a second and
    # the signals land mid-run on any machine, however fast its runner.
    field = _bots(tmp_path / "bots", **{name: "import time\n" + code.replace(
        "def move(view):\n", "def move(view):\n    time.sleep(0.02)\n")
        for name, code in (("first", FIRST), ("last", LAST), ("middle", MIDDLE))})
    folder = tmp_path / "cache"
    args = ["atomas", *field, "--games", 4, *ATOMAS, "--cache", folder]
    total = 12
    kept = 0
    for stop in (signal.SIGINT, signal.SIGKILL):
        # Ctrl-C's default action, whatever this process inherited: a suite started in the
        # background (``cmd &`` in a script) ignores SIGINT, and so would the tournament.
        process = subprocess.Popen([sys.executable, "-m", "engine", "tournament", *map(str, args)],
                                   cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   start_new_session=True,
                                   preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        try:
            deadline = time.monotonic() + 600
            while _kept(folder) < kept + 2 and process.poll() is None and time.monotonic() < deadline:
                time.sleep(0.02)
            os.killpg(process.pid, stop)
            process.wait(timeout=120)
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        assert kept + 2 <= _kept(folder) < total  # stopped mid-run, with what ended kept
        kept = _kept(folder)
    resumed = _cli(*args)
    assert resumed.returncode == 0, resumed.stderr
    played, hits = _counts(resumed.stderr)
    assert hits == kept and played == total - kept
    fresh = _cli(*[a for a in args if a not in ("--cache", folder)], "--no-cache")
    assert fresh.returncode == 0, fresh.stderr
    assert resumed.stdout == fresh.stdout


def _kept(folder: Path) -> int:
    results = folder / "results"
    return sum(1 for p in results.glob("*.json") if not p.name.startswith(".")) if results.is_dir() else 0


def test_the_key_is_what_decides_the_game_and_not_its_place_in_the_plan(tmp_path):
    """Every input of a game changes its key (a ``cmd:`` bot's script too); its index in the
    plan (another field, another order of play) does not."""
    from engine.bots.entries import COMMAND
    from engine.contest.result_cache import command_files_hash, game_key
    from engine.contest.tournament import Match

    script = tmp_path / "bot.sh"
    script.write_text("echo 0 0 0 0\n")
    command = Entry("bot", COMMAND, f"sh {script}")
    base = MatchJob(Match(0, 5, (0, 1)), "flit", None, {"time_limit_ms": 100}, (FIELD[0], command),
                    "S", False, 1024, None, 1000)
    variants = [
        replace(base, match=Match(0, 6, (0, 1))), replace(base, secret="T"), replace(base, budget=None),
        replace(base, preset="full"), replace(base, overrides={"time_limit_ms": 200}),
        replace(base, entries=(command, FIELD[0])), replace(base, entries=(FIELD[1], command)),
        replace(base, sandboxed=True), replace(base, memory_mb=512), replace(base, game="atomas"),
        replace(base, game_module="GAME = 1"),
    ]
    keys = {game_key(v) for v in variants}
    assert len(keys) == len(variants) and game_key(base) not in keys
    assert game_key(replace(base, match=Match(41, 5, (2, 3)))) == game_key(base)
    script.write_text("echo 1 1 1 1\n")
    before = game_key(base)
    command_files_hash.cache_clear()  # hashed once a process: a run sees its files as it began
    assert game_key(base) != before
