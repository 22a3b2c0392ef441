"""What a function bot can reach in its own Python, natively: its view, the engine's modules
and ``builtins`` of the process it runs in. None of it is the controller's.

A user's function bot runs in a bot host process (``engine.bots.host``, in the sandbox), one
per game; the game's state, the rules that score it and the other bot live in the
controller. So a bot that rewrites everything it can reach (the board in its view, the
rules' scoring and legality checks, the series' summary, ``random``, ``builtins``) while it
plays exactly the moves of an honest bot gets exactly the honest bot's result, game by game,
and what it left behind is gone in its next game.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from engine.bots.sandbox import Sandbox, SandboxError
from engine.play.replay import load_document, replay_record

ROOT = Path(__file__).resolve().parents[2]

try:
    Sandbox().probe()
except SandboxError as exc:  # scripts/test installs bubblewrap: this is a broken set-up
    pytest.fail(f"the sandbox cannot start here ({exc}); run scripts/test, which installs bubblewrap",
                pytrace=False)

HONEST = """
def move(view):
    moves = view.moves()
    return moves[0] if moves else "0 0 0 0"
"""

# The honest bot's moves, and at every turn after choosing it, every write it can make that
# would change the game's result if it reached the controller. It prints what it found, so
# the test shows that the attack ran (and in which game of its process).
TAMPERER = """
import builtins
import random
import sys

import engine.games.flit.rules as flit
import engine.play.series as series

games_seen_by_this_process = getattr(builtins, "TAMPERED_GAMES", 0) + 1
builtins.TAMPERED_GAMES = games_seen_by_this_process
print("game of this process:", games_seen_by_this_process)


def _tamper(view):
    done = []
    view._cells[:] = [view.me] * len(view._cells)  # the whole board mine, in my view
    done.append("view")
    flit.FlitState.returns = lambda self: tuple(10**6 if s == 0 else 0 for s in range(self.players))
    flit.FlitState.check_move = lambda self, move: None
    flit.FlitState.is_terminal = lambda self: False
    done.append("rules")
    series.summarize = lambda *a, **k: {"forged": True}
    done.append("summary")
    random.seed(0)
    random.random = lambda: 0.0
    random.Random.choice = lambda self, seq: seq[0]
    builtins.max = lambda *a, **k: 0  # a winner is a max, in the controller
    done.append("random and builtins")
    for name, module in list(sys.modules.items()):
        if name.startswith("engine.") and hasattr(module, "MAX_ANSWER_CHARS"):
            module.MAX_ANSWER_CHARS = 10**9
            done.append(name)
    return done


def move(view):
    moves = view.moves()
    chosen = moves[0] if moves else "0 0 0 0"
    if view.turn == 1:
        print("tampered with:", ", ".join(_tamper(view)))
    else:
        _tamper(view)
    return chosen
"""


def _match(tmp_path: Path, bot_source: str, name: str) -> dict:
    bot = tmp_path / f"{name}.py"
    bot.write_text(textwrap.dedent(bot_source), encoding="utf-8")
    replay = tmp_path / f"{name}.json"
    done = subprocess.run([sys.executable, "-m", "engine", "match", "flit", bot, "builtin:greedy",
                           "--games", "2", "--seed", "11", "--time-limit", "10000", "--secret", "reach",
                           "--json", "--log", "--replay", replay],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout)
    out["replay"] = load_document(replay.read_text(encoding="utf-8"))
    return out


def _printed(out: dict) -> str:
    return "".join(e["text"] for e in out["log"] if e["bot"] == 0 and e["stream"] == "stdout")


def test_a_bot_that_rewrites_its_view_the_rules_and_the_summary_gets_the_honest_result(tmp_path):
    honest = _match(tmp_path, HONEST, "tamperer")
    tampered = _match(tmp_path, TAMPERER, "tamperer")

    printed = _printed(tampered)
    assert "tampered with: view, rules, summary, random and builtins, engine.bots.reply" in printed, printed
    # One process a game: what the bot left in builtins in game 1 is not there in game 2.
    assert printed.count("game of this process: 1") == 2 and "game of this process: 2" not in printed

    for key in ("games", "mean_scores", "wins", "ranking"):
        assert tampered[key] == honest[key], (key, tampered[key], honest[key])
    assert all(game["faults"] == [0, 0] for game in tampered["games"]), tampered["games"]
    assert max(max(game["scores"]) for game in tampered["games"]) < 10**6
    # Every move recorded is the honest bot's, and the rules re-play the file to its scores.
    strip = ("stdout", "stderr")
    for mine, theirs in zip(tampered["replay"]["records"], honest["replay"]["records"], strict=True):
        assert [{k: v for k, v in t.items() if k not in strip} for t in mine["turns"]] == \
            [{k: v for k, v in t.items() if k not in strip} for t in theirs["turns"]]
        replay_record(mine)
