"""Per-turn bots (aBOTcalypse's protocol): started afresh every turn with the view as the last
argument and on stdin, in a working directory of their own that is kept for the game.

The bots below answer what they saw instead of a move ("count N same S": their N-th turn
this game by the file they keep, and whether argv and stdin agreed). An answer that is not
an action is a recorded rest in aBOTcalypse, so the record keeps every such line: the test
reads the bots' counts from the replay. Counts 1, 2, 3, ... for each bot show its directory
persists across turns, is its own (a shared one would count both bots' turns) and starts
fresh each game.
"""

from __future__ import annotations

import pytest

from engine.bots.native import CommandBot, HostedBot
from engine.bots.sandbox import Sandbox, SandboxError, Unsandboxed
from engine.games.registry import get_game
from engine.play.match import run_series

SPEC = get_game("abotcalypse")

COMMAND = r"""
view="$1"
stdin=$(cat)
n=$(cat count.txt 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" > count.txt
if [ "$stdin" = "$view" ]; then same=1; else same=0; fi
echo
echo "count $n same $same"
echo "a later line is not the answer"
"""

SCRIPT = r"""
import os, sys
view = sys.argv[-1]
stdin = sys.stdin.read().rstrip("\n")
n = int(open("count.txt").read()) + 1 if os.path.exists("count.txt") else 1
open("count.txt", "w").write(str(n))
print()
print(f"count {n} same {int(stdin == view and len(sys.argv) == 2)}")
print("a later line is not the answer")
"""


def sandboxes():
    found = [pytest.param(Unsandboxed(), id="unsandboxed")]
    sandbox = Sandbox()
    try:
        sandbox.probe()
    except SandboxError:
        return found
    return [*found, pytest.param(sandbox, id="sandboxed")]


def counts_by_bot(document: dict) -> dict[int, list[list[str]]]:
    """Per bot of the series, per game: the answers it gave, in turn order."""
    found: dict[int, list[list[str]]] = {}
    for record in document["records"]:
        for seat, bot in enumerate(record["bot_index"]):
            answers = [t["answers"][t["seats"].index(seat)] for t in record["turns"] if seat in t["seats"]]
            found.setdefault(bot, []).append(answers)
    return found


def check_counts(document: dict, bots: int) -> None:
    per_bot = counts_by_bot(document)
    assert sorted(per_bot) == list(range(bots))
    for games in per_bot.values():
        for answers in games:
            assert answers, "the bot was asked"
            assert answers == [f"count {n} same 1" for n in range(1, len(answers) + 1)]


@pytest.mark.parametrize("sandbox", sandboxes())
def test_command_bots_per_turn_keep_a_private_directory_for_the_game(sandbox, tmp_path):
    program = tmp_path / "bot.sh"
    program.write_text(COMMAND)
    settings = SPEC.settings("trial", players=2, max_turns=6, time_limit_ms=5000)
    bots = [CommandBot("a", f"sh {program}", sandbox), CommandBot("b", f"sh {program}", sandbox)]
    document = run_series(SPEC, settings, bots, 3, 2, secret="pertur").document
    check_counts(document, 2)
    assert not list(tmp_path.glob("count.txt"))  # nothing written next to the program
    assert all(b.keep_dir is None and b.kept is None for b in bots)  # gone after the games


@pytest.mark.parametrize("sandbox", sandboxes())
def test_hosted_script_bots_per_turn_get_argv_stdin_and_a_kept_directory(sandbox):
    settings = SPEC.settings("trial", players=2, max_turns=6, time_limit_ms=5000)
    bots = [HostedBot("a", SCRIPT, sandbox), HostedBot("b", SCRIPT, sandbox)]
    document = run_series(SPEC, settings, bots, 3, 2, secret="pertur").document
    check_counts(document, 2)
