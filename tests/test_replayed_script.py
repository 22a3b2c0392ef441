"""A stream-mode script bot where its input() cannot wait (the page's push mode, WebKit's Stack
Snippet frame): a script whose input() calls are all in its module body runs as a generator
(engine.bots.suspended_script), any other is run again from its start on every request
(engine.bots.replayed_script), and either plays the game it plays where input() blocks: the
same replies, output and faults, turn by turn."""
from __future__ import annotations

import queue
import threading
from pathlib import Path

import pytest

from engine.bots.answer import BotAnswer
from engine.bots.host import BotHost
from engine.bots.replayed_script import REPLAY_SLACK, ReplayCredit, ReplayedScriptRunner
from engine.bots.reply import answer_from_reply
from engine.games.registry import get_game
from engine.play.driver import Call, Calls, TurnReply
from engine.play.series import series_steps

ROOT = Path(__file__).resolve().parents[1]
SCRIPT_BOT = (ROOT / "engine" / "games" / "flit" / "examples" / "script.py").read_text(encoding="utf-8")
SPEC = get_game("flit")
TURNS = 160  # of the trial's 1,024: each request replays the game so far
# The Flit example reading its lines through a function: not rewritten, so replayed.
READ_IN_A_FUNCTION = "def read():\n    return input()\n\n\n" + SCRIPT_BOT.replace("input()", "read()")


class BlockingHost:
    """A bot host whose input() blocks, as natively: its own thread, fed by a queue."""

    def __init__(self) -> None:
        self.requests: queue.Queue = queue.Queue()
        self.replies: queue.Queue = queue.Queue()
        self.host = BotHost(self.requests.get, self.replies.put)
        threading.Thread(target=self.host.serve, daemon=True).start()

    def handle(self, request: dict) -> dict:
        self.requests.put(request)
        return self.replies.get(timeout=60)


class PushHost:
    """A bot host that cannot block: each request is pushed through handle()."""

    def __init__(self) -> None:
        self.host = BotHost(lambda: None, lambda reply: None, can_block=False)

    def handle(self, request: dict) -> dict:
        return self.host.handle(request)


def play(script_host, script: str, budget: int | None = None, seed: int = 2) -> tuple[dict, list[dict]]:
    """One short Flit game of ``script`` against the random example: the series document and
    every reply the script's host sent, in order."""
    hosts = [script_host, PushHost()]
    codes = [script, SPEC.example_source("random")]
    settings = SPEC.settings(None, max_turns=TURNS, time_limit_ms=60_000)
    steps = series_steps(SPEC, settings, ["script", "random"], seed, 1, None, "replayed", budget=budget)
    sent: list[dict] = []
    value, rid = None, 0

    def ask(bot: int, request: dict) -> dict:
        nonlocal rid
        rid += 1
        reply = hosts[bot].handle({**request, "id": rid})
        if bot == 0:
            sent.append({k: v for k, v in reply.items() if k != "id"})
        return reply

    while True:
        try:
            step = steps.send(value)
        except StopIteration as done:
            return done.value, sent
        value = None
        if isinstance(step, Calls):
            value = {}
            for call in step.calls:
                reply = ask(call.bot, {"op": "turn", "message": call.message})
                value[call.seat] = TurnReply(answer_from_reply(reply), 1.0, False, budget is not None)
        elif isinstance(step, Call) and step.op == "load":
            request = {"op": "load", "game": "flit", "code": codes[step.bot]}
            if budget is not None:
                request["budget"] = budget
            value = answer_from_reply(ask(step.bot, request))
        elif isinstance(step, Call):
            request = {"op": step.op, "message": step.message}
            if step.seed is not None:
                request["seed"] = step.seed
            reply = ask(step.bot, request)
            value = answer_from_reply(reply) if reply else BotAnswer()


def _answers(document: dict) -> list:
    return [turn["answers"] for turn in document["records"][0]["turns"]]


@pytest.mark.parametrize(("script", "budget", "replayed"), [
    (SCRIPT_BOT, None, False), (READ_IN_A_FUNCTION, None, True), (SCRIPT_BOT, 200_000, True)],
    ids=["input in the module body", "input in a function", "under a step budget"])
def test_a_pushed_script_plays_the_blocking_scripts_game(script, budget, replayed):
    blocking, blocking_sent = play(BlockingHost(), script, budget)
    pushed = PushHost()
    pushed_doc, pushed_sent = play(pushed, script, budget)
    assert isinstance(pushed.host.runner, ReplayedScriptRunner) is replayed
    # the load's reply tells the controller the turns replay (ReplayCredits)
    assert pushed_sent[0] == {**blocking_sent[0], **({"replays": True} if replayed else {})}
    assert pushed_sent[1:] == blocking_sent[1:]  # every other reply: answers, errors, output
    assert _answers(pushed_doc) == _answers(blocking)
    assert pushed_doc["summary"] == blocking["summary"]
    assert sum(1 for turn in pushed_doc["records"][0]["turns"] if 0 in turn["seats"]) == TURNS // 2


PRINTING_SCRIPT = """\
import random, sys
print("hello from the start", file=sys.stderr)
turn = 0
while True:
    line = input()
    if line == "M":
        turn += 1
        print(f"thinking about turn {turn}")
        if turn == 5:
            raise ValueError("no fifth move")
        print("0 0 0 0" if random.random() < 0.5 else "1 1 1 1")
        print(f"after turn {turn}", file=sys.stderr)
"""


@pytest.mark.parametrize("script", [
    PRINTING_SCRIPT, PRINTING_SCRIPT.replace("    line = input()", "    line = (lambda: input())()")],
    ids=["suspended", "replayed"])
def test_output_and_a_crash_come_as_where_input_blocks(script):
    blocking, blocking_sent = play(BlockingHost(), script)
    replayed, replayed_sent = play(PushHost(), script)
    assert replayed_sent[1:] == blocking_sent[1:]
    texts = " ".join(str(reply) for reply in replayed_sent)
    assert texts.count("hello from the start") == 1  # each line once, though the start ran every turn
    assert texts.count("thinking about turn 4") == 1
    assert "no fifth move" in texts
    assert replayed["summary"] == blocking["summary"]


CLOCK_SCRIPT = """\
import time
read = input
while True:
    if read() == "M":
        print("0 0 0 0" if time.perf_counter_ns() % 2 else "1 1 1 1")
"""


def test_a_script_that_answers_otherwise_when_replayed_plays_on_and_is_told_once():
    document, sent = play(PushHost(), CLOCK_SCRIPT)
    told = [reply for reply in sent if "replayed from its start" in (reply.get("stderr") or "")]
    assert len(told) == 1, told
    assert len(document["records"][0]["turns"]) == TURNS


def test_a_turn_is_not_charged_for_the_replay_of_the_turns_before_it():
    credit = ReplayCredit()
    credit.started(40.0)  # its start: module code
    assert credit.judged(40.0 * REPLAY_SLACK + 10.0) == 10.0  # the start replayed, then 10 ms of its own
    assert credit.allowance_ms == 50.0 * REPLAY_SLACK
    assert credit.judged(50.0 * REPLAY_SLACK + 300.0) == 300.0  # a slow turn is still slow
    assert credit.judged(10.0) == 0.0  # a replay quicker than the first time costs nothing


REWRITTEN = """\
from __future__ import annotations
import sys as system
from collections import Counter
count = 0


def note(text):
    global count
    count += 1
    return f"{text} {count}"


class Board(dict):
    size: int = 0


board = Board()
try:
    header = input("hello? ")
except EOFError as exc:
    raise SystemExit from exc
while (line := input()) != "M" or True:
    match line.split():
        case [x, y, c]:
            board[int(x), int(y)] = int(c)
        case ["M"]:
            print("0 0 0 0", note("moves"), Counter(board.values()).most_common(1), file=system.stderr)
            print("0 0 0 0")
"""


@pytest.mark.parametrize(("code", "rewritten"), [
    (SCRIPT_BOT, True), (REWRITTEN, True), (READ_IN_A_FUNCTION, False),
    ("import sys\nfor line in sys.stdin:\n    print(line)\n", False),
    ("from sys import stdin\nwhile True:\n    stdin.readline()\n", False),
    ("input = lambda: 'M'\nwhile True:\n    input()\n", False),
    ("read = input\nwhile True:\n    read()\n", False),
    ("lines = [input() for _ in range(3)]\n", False),
    ("from math import *\nwhile True:\n    input()\n", False),
    ("global x\nx = input()\n", False),
    ("while True:\n    input(end='')\n", False),
])
def test_which_scripts_run_as_a_generator(code, rewritten):
    from engine.bots.code import load_code
    from engine.bots.suspended_script import suspended_code

    assert (suspended_code(load_code(code)) is not None) is rewritten


def test_a_rewritten_script_with_functions_globals_and_patterns_plays_as_where_input_blocks():
    blocking, blocking_sent = play(BlockingHost(), REWRITTEN)
    pushed = PushHost()
    pushed_doc, pushed_sent = play(pushed, REWRITTEN)
    assert not isinstance(pushed.host.runner, ReplayedScriptRunner)
    assert pushed_sent == blocking_sent
    assert "moves 80" in pushed_sent[-2]["stderr"] + pushed_sent[-1]["stderr"]
