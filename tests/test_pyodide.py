"""The engine under Pyodide (the page's runtime, run here by Node) plays the very same games
as under CPython: seeds, rules, sessions and records agree turn by turn."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from engine.games.registry import get_game

ROOT = Path(__file__).resolve().parent.parent
RUNNER = Path(__file__).resolve().parent / "pyodide_python.mjs"
GOLDEN = Path(__file__).resolve().parent / "golden"

# Deterministic bots (the test_replay ones): a seed fixes the whole game.
_spec = importlib.util.spec_from_file_location("replay_tests", Path(__file__).parent / "test_replay.py")
replay_tests = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(replay_tests)

PLAY = '''
import json
from engine.bots.native import InProcessBot
from engine.games.registry import get_game
from engine.play.match import run_series
from engine.play.replay import ReplayError, replay_record, verify_document

def series(game, seed, games, overrides, bots, secret=None):
    spec = get_game(game)
    settings = spec.settings(**overrides)
    bots = [InProcessBot(n, s) for n, s in bots]
    return run_series(spec, settings, bots, seed, games, secret=secret).document

args = json.loads(ARGS)
documents = [series(**job) for job in args["jobs"]]
replayed = [replay_record(record).to_json() for record in args["golden"]]
verified = [verify_document(json.dumps(d))["summary"] for d in documents]
bombs = []
for text in ["[" * 100_000, '{"a": ' * 50_000 + "1" + "}" * 50_000]:
    try:
        verify_document(text)
        bombs.append("accepted")
    except ReplayError as exc:
        bombs.append(str(exc))
import sys
out = {"documents": documents, "replayed": replayed, "verified": verified, "bombs": bombs}
json.dumps({**out, "platform": sys.platform})
'''


def _jobs() -> list[dict]:
    atomas_bots = [["lookahead", replay_tests.ATOMAS_LOOKAHEAD],
                   ["sometimes", replay_tests.ATOMAS_INVALID_SOMETIMES]]
    flit_bots = [["stride", replay_tests.FLIT_STRIDE], ["hunter", replay_tests.FLIT_NEUTRAL_HUNTER]]
    return [
        {"game": "atomas", "seed": 11, "games": 3, "bots": atomas_bots,
         "overrides": {"max_moves": 300, "time_limit_ms": 60_000}},
        {"game": "flit", "seed": 5, "games": 2, "bots": flit_bots,
         "overrides": {"max_turns": 400, "time_limit_ms": 60_000}},
        # With a secret the draws go through HMAC-SHA256: the same in both runtimes too.
        {"game": "atomas", "seed": 11, "games": 2, "bots": atomas_bots, "secret": "pyodide ✓",
         "overrides": {"max_moves": 300, "time_limit_ms": 60_000}},
        {"game": "flit", "seed": 5, "games": 1, "bots": flit_bots, "secret": "pyodide ✓",
         "overrides": {"max_turns": 400, "time_limit_ms": 60_000}},
        # Bots that use ``random``: seeded by the controller, the same draws in both runtimes
        # (a function bot, a per-move script, a bot making its own random.Random()).
        {"game": "atomas", "seed": 3, "games": 2, "secret": "r",
         "bots": _examples("atomas", "random", "script"),
         "overrides": {"max_moves": 200, "time_limit_ms": 60_000}},
        {"game": "flit", "seed": 3, "games": 2, "secret": "r", "bots": _examples("flit", "greedy", "random"),
         "overrides": {"time_limit_ms": 60_000}},
        {"game": "abotcalypse", "seed": 3, "games": 1, "secret": "r",
         "bots": _examples("abotcalypse", "random", "random", "builder"),
         "overrides": {"players": 3, "time_limit_ms": 60_000}},
    ]


def _examples(game: str, *names: str) -> list[list[str]]:
    spec = get_game(game)
    return [[f"{name} {n}", spec.example_source(name)] for n, name in enumerate(names)]


def _in_cpython(jobs: list[dict], golden: list[dict]) -> dict:
    namespace: dict = {"ARGS": json.dumps({"jobs": jobs, "golden": golden})}
    *body, last = PLAY.strip().splitlines()
    exec("\n".join(body), namespace)  # noqa: S102 - our own test code
    return json.loads(eval(last, namespace))  # noqa: S307


def _in_pyodide(jobs: list[dict], golden: list[dict]) -> dict:
    node = shutil.which("node")
    assert node, "Node is needed to run Pyodide (the README's set-up installs it)"
    assert (ROOT / "node_modules" / "pyodide").is_dir(), "run `npm ci` first (scripts/test does)"
    code = f"ARGS = {json.dumps(json.dumps({'jobs': jobs, 'golden': golden}))}\n{PLAY}"
    done = subprocess.run([node, str(RUNNER)], input=code, capture_output=True, text=True,
                          cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def both() -> tuple[dict, dict]:
    golden = [json.loads(p.read_text()) for p in sorted(GOLDEN.glob("*.json"))]
    golden = [r for doc in golden for r in (doc["records"] if doc.get("kind") == "series" else [doc])]
    jobs = _jobs()
    return _in_cpython(jobs, golden), _in_pyodide(jobs, golden)



def test_same_seed_same_games_in_pyodide_and_cpython(both) -> None:
    cpython, pyodide = both
    assert pyodide["platform"] == "emscripten" and cpython["platform"] != "emscripten"
    assert len(cpython["documents"]) == len(pyodide["documents"]) == len(_jobs())
    for native, browser in zip(cpython["documents"], pyodide["documents"], strict=True):
        assert len(native["records"]) == len(browser["records"])
        for a, b in zip(native["records"], browser["records"], strict=True):
            assert a["start"] == b["start"], f"{a['game']} seed {a['seed']}: start differs"
            for number, (ta, tb) in enumerate(zip(a["turns"], b["turns"], strict=True)):
                assert ta == tb, f"{a['game']} seed {a['seed']} turn {number} differs"
            assert a["result"] == b["result"]
        assert native["summary"] == browser["summary"]
        assert native.get("secret") == browser.get("secret")
    assert cpython["documents"][2]["records"][0]["start"] != cpython["documents"][0]["records"][0]["start"]


def test_replay_files_verify_in_pyodide_and_nesting_bombs_are_refused(both) -> None:
    """The page's controller runs verify_document under Pyodide, where deep JSON nesting once
    ended the runtime: it is refused before parsing, the same way in both runtimes."""
    cpython, pyodide = both
    assert pyodide["verified"] == cpython["verified"] == [d["summary"] for d in cpython["documents"]]
    assert pyodide["bombs"] == cpython["bombs"]
    assert all("nests" in message for message in pyodide["bombs"]), pyodide["bombs"]


def test_golden_records_replay_identically_in_pyodide(both) -> None:
    cpython, pyodide = both
    assert cpython["replayed"], "there are golden records to replay"
    assert cpython["replayed"] == pyodide["replayed"]


PER_TURN = '''
import json, os, sys
from engine.bots.host import BotHost
from engine.games.registry import get_game
from engine.play.session import GameSession

SCRIPT = """
import os, sys
view = sys.argv[-1]
stdin = sys.stdin.read().rstrip("\\\\n")
n = int(open("count.txt").read()) + 1 if os.path.exists("count.txt") else 1
open("count.txt", "w").write(str(n))
print(f"count {n} same {int(stdin == view and len(sys.argv) == 2)} cwd {int(os.getcwd() != HOME)}")
"""

spec = get_game("abotcalypse")
home = os.getcwd()
answers = []
for game in range(2):
    session = GameSession(spec, spec.settings(players=2), 1, ["a", "b"])
    host = BotHost(lambda: None, lambda reply: None)
    loaded = host.handle({"op": "load", "id": 1, "game": "abotcalypse",
                          "code": SCRIPT.replace("HOME", repr(home))})
    host.handle({"op": "start", "id": 2, "message": session.start_message(0)})
    session.next_requests()
    for turn in range(3):
        message = session.wire.observation(session.state, 0, [])
        answers.append(host.handle({"op": "turn", "id": 3 + turn, "message": message})["answer"])
    host.handle({"op": "end", "id": 9})
json.dumps({"loaded": loaded["ok"], "answers": answers, "cwd_back": os.getcwd() == home,
            "platform": sys.platform})
'''


def test_per_turn_scripts_keep_their_directory_in_pyodide() -> None:
    """The page's bot Worker runs the bot host under Pyodide: a per-turn script gets the view
    as its last argument and on stdin, in a directory of its own (not the Worker's working
    directory) that it finds again next turn and that is fresh each game."""
    node = shutil.which("node")
    assert node and (ROOT / "node_modules" / "pyodide").is_dir(), "Node and `npm ci` are needed"
    done = subprocess.run([node, str(RUNNER)], input=PER_TURN, capture_output=True, text=True,
                          cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout)
    assert out["platform"] == "emscripten" and out["loaded"] is True and out["cwd_back"] is True
    expected = [f"count {n} same 1 cwd 1" for n in (1, 2, 3)]
    assert out["answers"] == expected * 2


BUDGET = '''
import json, sys
from engine.bots.host import BotHost
from engine.bots.native import InProcessBot
from engine.play.match import run_series
from engine.games.registry import get_game
from engine.play.session import GameSession

LOOP = "def move(view):\\n    n = 0\\n    while True:\\n        n += 1\\n"
spec = get_game("flit")
settings = spec.settings(time_limit_ms=60_000)
bots = [InProcessBot("loop", LOOP, budget=30_000),
        InProcessBot("greedy", spec.example_source("greedy"), budget=30_000_000),
        InProcessBot("random", spec.example_source("random"), budget=30_000_000)]
document = run_series(spec, settings, bots, 2, 1, secret="b").document
host = BotHost(lambda: None, lambda reply: None)
host.handle({"op": "load", "id": 1, "game": "flit", "code": LOOP, "budget": 777})
session = GameSession(spec, spec.settings(), 1, ["a", "b"])
host.handle({"op": "start", "id": 2, "message": session.start_message(0), "seed": 1})
request = session.next_requests()[0]
reply = host.handle({"op": "turn", "id": 3, "message": request.message})
json.dumps({"document": document, "reply": reply, "platform": sys.platform})
'''


def test_a_step_budget_stops_the_same_bot_at_the_same_step_in_pyodide() -> None:
    """The page's Worker runs the same host: a looping bot is stopped with the same fault, at
    the same line and step count, and the budgeted example bots play the same game."""
    node = shutil.which("node")
    assert node and (ROOT / "node_modules" / "pyodide").is_dir(), "Node and `npm ci` are needed"
    done = subprocess.run([node, str(RUNNER)], input=BUDGET, capture_output=True, text=True,
                          cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    browser = json.loads(done.stdout)
    namespace: dict = {}
    *body, last = BUDGET.strip().splitlines()
    exec("\n".join(body), namespace)  # noqa: S102 - our own test code
    native = json.loads(eval(last, namespace))  # noqa: S307
    assert browser["platform"] == "emscripten"
    assert browser["reply"] == native["reply"]
    assert native["reply"]["over_budget"] is True and native["reply"]["line"] == 4
    assert "over its budget of 777" in native["reply"]["error"]
    a, b = native["document"]["records"][0], browser["document"]["records"][0]
    assert a["turns"] == b["turns"] and a["result"] == b["result"]
    faults = [f for turn in a["turns"] for f in turn["faults"] if f and f["kind"] != "frozen"]
    assert faults and all(f["kind"] == "timeout" and f["line"] == 4 for f in faults)
