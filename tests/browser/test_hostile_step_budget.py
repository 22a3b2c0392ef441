"""The step budget in the page is out of the bot's reach (issue 17): the attack that raised
it (the frame of the budget's run, its ``self``, every limit raised) is refused in the bot's
Worker, each attacked move is that bot's fault with a clear message, and the run goes on.
The page is served with its real headers (isolation and Content-Security-Policy)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.browser.conftest import wait_until

pytestmark = pytest.mark.browser

BUDGET = 20_000
ATTACKED_MOVES = 3

# The end of each attacker's move: the random example's move (its code, renamed random_move).
RANDOM_MOVE_TAIL = "    return random_move(view)\n\n\n" + (
    Path(__file__).resolve().parents[2] / "engine" / "games" / "flit" / "examples" / "random.py"
).read_text(encoding="utf-8").replace("def move(view):", "def random_move(view):")

# Issue 17's attack on its first three moves (each then spends 120,000+ steps), random valid
# moves after.
FRAME_ATTACKER = '''
import random
import sys

attacks = [0]


def raise_budget():
    frame = sys._getframe(2)
    budget = frame.f_locals["self"]
    budget.limit = 10 ** 12
    budget.gate.limit = 10 ** 12
    budget.gate.threshold = budget.count - budget.steps_used + 10 ** 12


def move(view):
    if attacks[0] < 3:
        attacks[0] += 1
        try:
            raise_budget()
        except ValueError as refused:
            print("refused:", refused)
            raise
        total = 0
        for i in range(60_000):
            total += i
''' + RANDOM_MOVE_TAIL


def test_the_frame_attack_on_the_step_budget_is_refused_and_the_run_goes_on(arena) -> None:
    arena.setup(game="flit", games=1, seed=3, time_limit_ms=10_000)
    arena.label("Step budget").fill(str(BUDGET))
    arena.set_bot(1, FRAME_ATTACKER, name="attacker")
    arena.label("Bot 2 example").select_option("greedy")
    arena.page.wait_for_timeout(400)  # let the page's own debounced saves land
    arena.start_run()
    wait_until(arena.page, "window.kothArena.run === null", 300_000)
    status = arena.status.inner_text()
    assert re.search(r"Finished: 1 game", status), status

    console = arena.console(1).inner_text()
    print(console)
    refusal = "sys._getframe is not allowed under a step budget"
    assert console.count(refusal) >= ATTACKED_MOVES, console
    assert int(arena.result_row("attacker")[4]) == ATTACKED_MOVES, arena.result_row("attacker")
    (record,) = arena.records()
    mine = [turn for turn in record["turns"] if turn["seats"] == [0]]
    for turn in mine[:ATTACKED_MOVES]:  # faulted, never played as within its budget
        assert turn["move"] is None and refusal in turn["faults"][0]["message"], turn
    assert any(turn["move"] and turn["faults"][0] is None for turn in mine[ATTACKED_MOVES:])
    assert int(arena.result_row("greedy")[4]) == 0, arena.result_row("greedy")
    assert record["result"] is not None


# A bot that rewrites the page's bot host (engine.bots.host, through sys.modules) so that its
# moves are answered with no budget verdict at all: its Worker's replies carry no valid seal
# (engine.bots.budget_seal), so the page's controller faults them.
HOST_PATCHER = '''
import random
import sys

patched = [False]


def patch_host():
    host_class = sys.modules["engine.bots.host"].BotHost

    def handle(self, request, real=host_class.handle):
        if request.get("op") != "turn":
            return real(self, request)
        view = self.runner.client.view(request["message"])
        answer = self.runner.wire.answer_text(self.runner.move(view))
        return {"id": request.get("id"), "answer": answer, "error": None, "line": None,
                "stdout": "", "stderr": ""}

    host_class.handle = handle
    for constant in move.__code__.co_consts:  # its code no longer stops itself
        if hasattr(constant, "threshold"):
            constant.threshold = 10 ** 18


def move(view):
    if not patched[0]:
        patched[0] = True
        patch_host()
    total = 0
    for i in range(60_000):  # 120,000+ steps a move, six times the budget
        total += i
''' + RANDOM_MOVE_TAIL

TAMPERED = "the bot tampered with its step budget (its reply carries no valid verdict)"


def test_a_bot_that_rewrites_its_host_in_the_page_is_faulted_and_the_run_goes_on(arena) -> None:
    arena.setup(game="flit", games=1, seed=3, time_limit_ms=10_000)
    arena.label("Step budget").fill(str(BUDGET))
    arena.set_bot(1, HOST_PATCHER, name="patcher")
    arena.label("Bot 2 example").select_option("greedy")
    arena.page.wait_for_timeout(400)  # let the page's own debounced saves land
    arena.start_run()
    wait_until(arena.page, "window.kothArena.run === null", 300_000)
    status = arena.status.inner_text()
    assert re.search(r"Finished: 1 game", status), status

    (record,) = arena.records()
    mine = [turn for turn in record["turns"] if turn["seats"] == [0]]
    assert "the bot changed its step budget" in mine[0]["faults"][0]["message"], mine[0]
    faults = [turn["faults"][0]["message"] for turn in mine[1:]]
    assert faults.count(TAMPERED) >= 2, faults
    assert all(turn["move"] is None for turn in mine), "a move answered without a verdict was played"
    assert set(faults) <= {TAMPERED, "frozen: not asked"}, set(faults)
    assert int(arena.result_row("greedy")[4]) == 0, arena.result_row("greedy")
    assert record["result"] is not None
