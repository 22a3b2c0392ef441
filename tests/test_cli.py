"""The command line: ``python -m engine match ...`` as a user runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.play.replay import load_document, replay_record

ROOT = Path(__file__).resolve().parents[1]


def cli(*args, timeout=120):
    return subprocess.run([sys.executable, "-m", "engine", "match", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


def cli_json(*args):
    done = cli(*args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


# No result may depend on the machine's speed (the suite runs on loaded machines): Python bots
# move by the step budget, the same everywhere; command bots have no step count, so they get a
# time limit far above what a move needs (a start-up under bubblewrap at load 13 included).
BUDGET = ("--budget", "10000000")
ROOMY = ("--time-limit", "60000")


def check_summary(out, n_bots, n_games):
    games = out["games"]
    assert isinstance(games, list) and len(games) == n_games
    seeds = [g["seed"] for g in games]
    assert seeds == list(range(out["first_seed"], out["first_seed"] + n_games))
    for g in games:
        assert set(g) == {"seed", "scores", "winner", "faults"}
        assert len(g["scores"]) == n_bots and len(g["faults"]) == n_bots
        assert all(isinstance(s, int) and s >= 0 for s in g["scores"])
        assert g["winner"] is None or 0 <= g["winner"] < n_bots
    assert len(out["mean_scores"]) == n_bots and len(out["wins"]) == n_bots
    for b in range(n_bots):
        mean = sum(g["scores"][b] for g in games) / n_games
        assert out["mean_scores"][b] == pytest.approx(mean, abs=1e-3)
        assert out["wins"][b] == sum(g["winner"] == b for g in games)


# -- the "done when" commands ---------------------------------------------------------------------
def test_done_when_atomas():
    out = cli_json("atomas", "builtin:random", "--games", 20, *BUDGET)
    check_summary(out, 1, 20)
    assert out["game"] == "atomas" and out["bots"] == ["random"]
    assert out["settings"]["time_limit_ms"] == 1000  # the default, a backstop under --budget
    assert all(g["faults"] == [0] for g in out["games"])
    assert len({g["scores"][0] for g in out["games"]}) > 1  # 20 different games


def test_done_when_flit():
    out = cli_json("flit", "builtin:random", "builtin:greedy", "--games", 10)
    check_summary(out, 2, 10)
    assert out["bots"] == ["random", "greedy"]
    assert out["settings"]["players"] == 2 and out["settings"]["size"] == 16
    assert out["wins"][1] > out["wins"][0]  # greedy beats random


def test_seed_is_used_and_reproducible():
    first = cli_json("atomas", "builtin:greedy", "--games", 2, "--seed", 5, "--max-moves", 60, *BUDGET)
    again = cli_json("atomas", "builtin:greedy", "--games", 2, "--seed", 5, "--max-moves", 60, *BUDGET,
                     "--secret", first["secret"])  # the secret drawn and printed by the first run
    assert first["first_seed"] == 5 and [g["seed"] for g in first["games"]] == [5, 6]
    assert first == again
    assert first["settings"]["max_moves"] == 60


def test_atomas_duplicate_format_two_bots():
    out = cli_json("atomas", "builtin:greedy", "builtin:random", "--games", 3, "--seed", 1,
                   "--max-moves", 100)
    check_summary(out, 2, 3)
    assert out["mean_scores"][0] > out["mean_scores"][1]


def test_same_builtin_twice_gets_distinct_names():
    out = cli_json("atomas", "builtin:random", "builtin:random", "--seed", 1, "--max-moves", 10)
    assert out["bots"] == ["random", "random#2"]


def test_table_output_without_json():
    done = cli("flit", "builtin:random", "builtin:random", "--seed", 3, "--games", 2)
    assert done.returncode == 0, done.stderr
    assert "random" in done.stdout and "wins" in done.stdout


def test_flit_four_bots_and_explicit_preset():
    out = cli_json("flit", *["builtin:random"] * 4, "--preset", "trial", "--seed", 2, "--time-limit", 500)
    check_summary(out, 4, 1)
    assert out["settings"] == {"size": 16, "players": 4, "max_turns": 1024, "time_limit_ms": 500}


# -- command and file bots end to end ----------------------------------------------------------------
ATOMAS_SH = """read line
atom=${line%%/*}
if [ "$atom" = "-" ]; then echo "0 n"; else echo 0; fi
"""

FLIT_SH = """# Passes every turn, after reading the board.
read setup
while read line; do
  if [ "$line" = "M" ]; then echo "0 0 0 0"; fi
done
"""


def test_atomas_command_bot(tmp_path):
    (tmp_path / "bot.sh").write_text(ATOMAS_SH)
    out = cli_json("atomas", f"cmd:sh {tmp_path / 'bot.sh'}", "--seed", 4, "--games", 2, "--max-moves", 30,
                   *ROOMY)
    check_summary(out, 1, 2)
    assert out["bots"] == ["sh"]
    assert all(g["faults"] == [0] for g in out["games"])


def test_flit_command_bots_awk_and_sh(tmp_path, flit_awk_command):
    (tmp_path / "pass.sh").write_text(FLIT_SH)
    replay = tmp_path / "flit.json"
    out = cli_json("flit", f"cmd:{flit_awk_command}", f"cmd:sh {tmp_path / 'pass.sh'}",
                   "--seed", 9, "--games", 2, "--replay", replay, *ROOMY)
    check_summary(out, 2, 2)
    assert all(g["faults"] == [0, 0] for g in out["games"])
    document = load_document(replay.read_text())
    for record in document["records"]:
        mover = record["bot_index"].index(0)
        assert any(t["move"] for t in record["turns"] if t["seats"][0] == mover)
        passer = [t for t in record["turns"] if t["seats"][0] != mover]
        assert all(t["move"] is None for t in passer)


def test_python_file_bots(tmp_path):
    (tmp_path / "zero.py").write_text("def move(view):\n    return '0 n' if view.atom == '-' else 0\n")
    (tmp_path / "script.py").write_text("a = input().split('/')[0]\nprint('0 n' if a == '-' else 0)\n")
    out = cli_json("atomas", tmp_path / "zero.py", tmp_path / "script.py", "--seed", 2, "--max-moves", 40,
                   *BUDGET)
    assert out["bots"] == ["zero", "script"]
    assert out["games"][0]["faults"] == [0, 0]
    # the same answers every move: the duplicate format gives both the same game
    assert out["games"][0]["scores"][0] == out["games"][0]["scores"][1]


def test_log_shows_output_and_faults(tmp_path):
    (tmp_path / "noisy.py").write_text("def move(view):\n    print('hi there')\n    return 'x'\n")
    out = cli_json("atomas", tmp_path / "noisy.py", "--seed", 1, "--log", *BUDGET)
    streams = {(e["stream"], e["text"].strip()) for e in out["log"]}
    assert ("stdout", "hi there") in streams
    assert any(s == "fault" and "invalid" in t for s, t in streams)
    assert out["games"][0]["faults"] == [5]


def test_syntax_error_bot_is_reported_not_crashed(tmp_path):
    (tmp_path / "broken.py").write_text("def move(view)\n    return 0\n")
    done = cli("atomas", tmp_path / "broken.py", "--seed", 1, "--json", "--log")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["games"][0]["scores"] == [0] and out["games"][0]["faults"] == [1]
    assert any(e["line"] == 1 and "SyntaxError" in e["text"] for e in out["log"])


# -- replay files -------------------------------------------------------------------------------------
@pytest.mark.parametrize("game, bots", [("atomas", ["builtin:greedy", "builtin:random"]),
                                        ("flit", ["builtin:random", "builtin:greedy"])])
def test_replay_file_reproduces(tmp_path, game, bots):
    path = tmp_path / "series.json"
    extra = ["--max-moves", 200] if game == "atomas" else []
    out = cli_json(game, *bots, "--seed", 3, "--games", 2, "--replay", path, *extra)
    document = load_document(path.read_text(encoding="utf-8"))
    assert document["kind"] == "series" and document["game"] == game
    assert document["summary"]["games"] == out["games"]
    assert len(document["records"]) == (4 if game == "atomas" else 2)
    for record in document["records"]:
        state = replay_record(record)
        assert list(state.returns()) == record["result"]["scores"]


# -- usage errors: exit code 2 and one line on stderr ---------------------------------------------
@pytest.mark.parametrize("args", [
    ["nope", "builtin:random"],  # unknown game
    ["atomas", "builtin:nope"],  # unknown built-in
    ["atomas", "missing_bot.py"],  # missing file
    ["atomas", "bot.txt"],  # not a bot
    ["atomas", "cmd:"],  # empty command
    ["atomas", "builtin:random", "--games", "x"],
    ["atomas", "builtin:random", "--games", "0"],
    ["atomas", "builtin:random", "--seed", "-1"],
    ["atomas", "builtin:random", "--time-limit", "0"],
    ["atomas", "builtin:random", "--preset", "huge"],
    ["atomas", "builtin:random", "--bogus"],
    ["flit", "builtin:random"],  # too few bots
    ["flit", *["builtin:random"] * 5],  # too many
    ["flit", "builtin:random", "builtin:random", "--max-moves", "5"],  # an Atomas setting
    ["atomas"],  # no bot
])
def test_usage_errors(args):
    done = cli(*args)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), done.stderr


def test_no_command_is_a_usage_error():
    done = subprocess.run([sys.executable, "-m", "engine"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1


def test_unwritable_replay_is_a_usage_error(tmp_path):
    done = cli("atomas", "builtin:random", "--max-moves", 5, "--replay", tmp_path / "no" / "dir" / "x.json")
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "replay" in done.stderr


# -- the sandbox ---------------------------------------------------------------------------------------
POSTED_ATOMAS = """import random

atom, _, items = input().partition("/")
n = len(items.split())
if atom == "-":
    print(random.randrange(n), "y")
elif atom == "C":
    print(random.randrange(n))
else:
    print(random.randrange(max(n, 1)))
"""


def test_posted_python_atomas_answer_runs_as_a_process_per_move(tmp_path):
    """``cmd:python3 bot.py``, as the original controller ran posted answers: sandboxed, a
    Python start-up every move, and not one fault. A command bot has no step count, so the
    limit is far above a start-up's cost on a loaded machine (the default, 1 s, is checked
    in ``test_done_when_atomas`` without timing anything)."""
    (tmp_path / "bot.py").write_text(POSTED_ATOMAS)
    done = subprocess.run([sys.executable, "-m", "engine", "match", "atomas", "cmd:python3 bot.py",
                           "--seed", "1", "--max-moves", "12", "--time-limit", "60000", "--json"],
                          cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["games"][0]["faults"] == [0]


def test_without_the_sandbox_untrusted_bots_are_refused_in_one_line(tmp_path):
    (tmp_path / "zero.py").write_text("def move(view):\n    return '0 n' if view.atom == '-' else 0\n")
    env = {**os.environ, "KOTH_BWRAP": str(tmp_path / "no-bwrap")}
    for bot in (tmp_path / "zero.py", "cmd:sh -c 'echo 0'"):
        done = subprocess.run([sys.executable, "-m", "engine", "match", "atomas", str(bot), "--seed", "1"],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and done.stdout == ""
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and "sandbox cannot start" in lines[0] and "--no-sandbox" in lines[0]
    done = subprocess.run([sys.executable, "-m", "engine", "match", "atomas", str(tmp_path / "zero.py"),
                           "--seed", "1", "--max-moves", "10", "--no-sandbox", "--json", *BUDGET],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and json.loads(done.stdout)["games"][0]["faults"] == [0]
    # the built-in examples are trusted: they run without it (the script example in a process)
    done = subprocess.run([sys.executable, "-m", "engine", "match", "flit", "builtin:script",
                           "builtin:greedy", "--seed", "1", "--json"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_memory_limit_must_be_a_positive_number():
    done = cli("atomas", "builtin:random", "--memory-limit", "0")
    assert done.returncode == 2 and "--memory-limit" in done.stderr
