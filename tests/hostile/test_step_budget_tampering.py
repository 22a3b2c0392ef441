"""Attacks on the step budget by the bot it limits, natively, as a user runs a match.

Each attacker is a Flit function bot run with ``python -m engine match ... --budget 20000``
(sandboxed, a generous clock so only the budget can fault it). On each of its first three
moves it attacks its budget, then spends 120,000+ steps; after that it plays random valid
moves. What a user notices: each of those three moves is a fault with a clear message (the
refused operation, or the budget's own verdict), none is played as if it were within the
budget, and the game plays on to its end (issue 17, "A step budget out of the bot's reach").
A bot that rewrites its host (through ``sys.modules``) or writes its own replies cannot be
refused in its own process: its answers carry no valid seal (engine.bots.budget_seal) and
are faulted as tampering, natively and in Pyodide as the page judges them.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUDGET = 20_000
RANDOM_EXAMPLE = (ROOT / "engine" / "games" / "flit" / "examples" / "random.py").read_text(encoding="utf-8")
ATTACKED_MOVES = 3

# The bot: ATTACK runs in its move, before 120,000+ steps, on its first ATTACKED_MOVES moves.
BOT = '''
import random
import sys

attacks = [0]

SETUP

def attack():
ATTACK

def move(view):
    if attacks[0] < ATTACKS:
        attacks[0] += 1
        attack()
        total = 0
        for i in range(60_000):  # 120,000+ steps, six times the budget
            total += i
    return random_move(view)
''' + RANDOM_EXAMPLE.replace("def move(view):", "def random_move(view):")  # its moves after

# The attack of issue 17: the frame of the budget's run, its "self", every limit raised.
FRAME = '''
    frame = sys._getframe(2)
    budget = frame.f_locals["self"]
    budget.limit = 10 ** 12
    budget.gate.limit = 10 ** 12
    budget.gate.threshold = budget.count - budget.steps_used + 10 ** 12
'''

# The same frames through a traceback, walking up with f_back, writing to their locals.
TRACEBACK = '''
    try:
        raise ValueError
    except ValueError as caught:
        frame = caught.__traceback__.tb_frame
    while frame is not None:
        for name in list(frame.f_locals):
            if name in ("limit", "start"):
                frame.f_locals[name] = 10 ** 12
        frame = frame.f_back
'''

# Every object of the process: the budget, its closures' cells.
GC = '''
    import gc
    for thing in gc.get_objects():
        if type(thing).__name__ == "cell":
            try:
                if thing.cell_contents == BUDGET:
                    thing.cell_contents = 10 ** 12
            except ValueError:
                pass
'''

# Frames the collector kept (it keeps every cycle with DEBUG_SAVEALL, unaudited): writing to
# their locals (through to the cells of their closures in Python 3.13+), and the gate raised.
GARBAGE = '''
    import gc
    gc.set_debug(gc.DEBUG_SAVEALL)
    gc.collect()
    for thing in gc.garbage:
        if type(thing).__name__ == "frame":
            for name in list(thing.f_locals):
                value = thing.f_locals[name]
                if value == BUDGET or callable(value) and not isinstance(value, type):
                    thing.f_locals[name] = 10 ** 12 if value == BUDGET else (lambda *args: None)
    for constant in move.__code__.co_consts:
        if hasattr(constant, "threshold"):
            constant.threshold += 10 ** 12
'''

# A trace function receives every frame.
SETTRACE = '''
    def tracer(frame, event, arg):
        if "limit" in frame.f_locals:
            frame.f_locals["limit"] = 10 ** 12
        return tracer
    sys.settrace(tracer)
'''

# Uncounted code: the bot's own move rebuilt without its counting constants.
HAND_BUILT = '''
    plain = tuple(None if callable(c) or hasattr(c, "threshold") else c
                  for c in move.__code__.co_consts)
    move.__code__ = move.__code__.replace(co_consts=plain)
'''

# The budget's classes patched, its gate raised, its stop's cell changed (the budget was made
# before this runs: nothing of it changes).
CLASSES = '''
    import engine.bots.step_budget as budget_module
    budget_module.StepBudget.run = lambda self, function, *args: function(*args)
    budget_module.StepBudget.over = property(lambda self: False)
    budget_module.StepBudget.tampered = property(lambda self: False)
    for constant in move.__code__.co_consts:
        if hasattr(constant, "threshold"):
            constant.threshold += 10 ** 12
        if callable(constant) and getattr(constant, "__closure__", None):
            for cell in constant.__closure__:
                if cell.cell_contents == BUDGET:
                    cell.cell_contents = 10 ** 12
'''

# Builtins the budget's verdict once used to read its count, patched for everyone, and its
# gate raised. (Patching type or isinstance for everyone breaks the host itself: "the bot's
# process ended", a fault too.)
BUILTINS = '''
    import builtins
    builtins.repr = lambda thing: "count(0)"
    real_int = int
    builtins.int = lambda text=0, *rest: 0 if str(text).isdigit() else real_int(text, *rest)
    for constant in move.__code__.co_consts:
        if hasattr(constant, "threshold"):
            constant.threshold += 10 ** 12
'''

# The budget's exception class patched: made into no exception at all (__new__ returning
# None), silenced; and the gate raised. The verdict still stops the move (its message is the
# bot's to spoil, its kind is not).
EXCEPTION = '''
    import engine.bots.step_budget as budget_module
    budget_module.BudgetExceeded.__new__ = lambda cls, *args, **kwargs: None
    budget_module.BudgetExceeded.__init__ = lambda self, *args, **kwargs: None
    budget_module.BudgetExceeded.__str__ = lambda self: "all is well"
    for constant in move.__code__.co_consts:
        if hasattr(constant, "threshold"):
            constant.threshold += 10 ** 12
'''

REFUSED, CHANGED = "error", "timeout"
ATTACKS = {
    "frame": (FRAME, REFUSED, "sys._getframe is not allowed under a step budget"),
    "traceback": (TRACEBACK, REFUSED, "reading tb_frame is not allowed under a step budget"),
    "gc": (GC, REFUSED, "gc.get_objects is not allowed under a step budget"),
    "settrace": (SETTRACE, REFUSED, "sys.settrace is not allowed under a step budget"),
    "gc.garbage": (GARBAGE, CHANGED, "the bot changed its step budget (limit 20,000 steps)"),
    "hand-built code": (HAND_BUILT, REFUSED, "code.__new__ is not allowed under a step budget"),
    "classes": (CLASSES, CHANGED, "the bot changed its step budget (limit 20,000 steps)"),
    "builtins": (BUILTINS, CHANGED, "the bot changed its step budget (limit 20,000 steps)"),
    "exception": (EXCEPTION, CHANGED, ""),
}


def _bot(attack: str, setup: str = "") -> str:
    return (BOT.replace("SETUP", setup).replace("ATTACKS", str(ATTACKED_MOVES))
            .replace("ATTACK\n", textwrap.indent(textwrap.dedent(attack), "    ") + "\n")
            .replace("BUDGET", str(BUDGET)))


def _match(tmp_path: Path, source: str) -> tuple[dict, dict]:
    bot = tmp_path / "attacker.py"
    bot.write_text(source)
    replay = tmp_path / "game.json"
    done = subprocess.run(
        [sys.executable, "-m", "engine", "match", "flit", str(bot), "builtin:random", "--seed", "3",
         "--secret", "S", "--time-limit", "60000", "--budget", str(BUDGET), "--json",
         "--replay", str(replay)],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout), json.loads(replay.read_text())["records"][0]


def _attacker_turns(record: dict) -> list[dict]:
    return [turn for turn in record["turns"] if turn["seats"] == [0]]


@pytest.mark.parametrize("name", list(ATTACKS))
def test_an_attack_on_the_budget_is_a_fault_and_the_game_plays_on(name: str, tmp_path: Path) -> None:
    attack, kind, message = ATTACKS[name]
    summary, record = _match(tmp_path, _bot(attack))
    assert record["start_faults"] == [0, 0], "the bot loaded (the attack is in its moves)"
    turns = _attacker_turns(record)
    for turn in turns[:ATTACKED_MOVES]:
        fault = turn["faults"][0]
        assert fault is not None, f"a move of 120,000+ steps was played: {turn}"
        assert turn["move"] is None
        assert fault["kind"] == kind and message in fault["message"], fault
    # afterwards the bot plays (random valid moves, within its budget) and the game ends
    assert any(turn["faults"][0] is None and turn["move"] for turn in turns[ATTACKED_MOVES:])
    assert record["result"] is not None and summary["games"][0]["faults"][0] == ATTACKED_MOVES


def test_a_bot_that_uses_what_the_guard_touches_honestly_still_works(tmp_path: Path) -> None:
    """namedtuple and dataclasses (which ask for frames and fall back), exec without scopes,
    and its own error's line number: all as without the guard."""
    setup = textwrap.dedent('''
        import collections, dataclasses
        Point = collections.namedtuple("Point", "x y", defaults=(0,))

        @dataclasses.dataclass
        class Box:
            size: int = 1

        exec("made = Point(1) + (Box().size,)")
    ''')
    attack = '''
    assert made == (1, 0, 1)
    if attacks[0] == 2:
        raise KeyError("on purpose")
'''
    source = _bot(attack, setup).replace("for i in range(60_000)", "for i in range(10)")
    _, record = _match(tmp_path, source)
    faults = [turn["faults"][0] for turn in _attacker_turns(record)]
    raised = [fault for fault in faults if fault]
    assert len(raised) == 1, raised
    line = source.splitlines().index('        raise KeyError("on purpose")') + 1
    assert "KeyError: 'on purpose'" in raised[0]["message"] and raised[0]["line"] == line
    assert faults[1] is raised[0] and faults[0] is None and faults[2] is None


# The same attacks in Pyodide (the page's Python 3.14, whose frame.f_locals writes through to
# a frame, PEP 667), in one interpreter run by Node as the page's bot Worker runs it: a
# BotHost with its guard. The attacks that patch what everyone shares (classes, builtins,
# the exception) run last, each after the others it would disturb.
PYODIDE_ORDER = ["frame", "traceback", "gc", "settrace", "hand-built code", "gc.garbage", "exception",
                 "classes", "builtins"]
PYODIDE_PLAY = '''
import json
from engine.bots.host import BotHost
from engine.games.registry import get_game
spec = get_game("flit")
out = {}
for name, source in json.loads(CASES):
    host = BotHost(lambda: None, lambda reply: None, guard=True)
    host.handle({"op": "load", "id": 1, "game": "flit", "code": source, "budget": BUDGET})
    state = spec.new_game(spec.settings(), 1, None)
    start = host.handle({"op": "start", "id": 2, "message": spec.wire.start_message(state, 0),
                         "seed": 3})
    turns = [host.handle({"op": "turn", "id": 3 + n, "message": spec.wire.observation(state, 0, [])})
             for n in range(ATTACKED_MOVES + 1)]
    out[name] = {"start": start.get("error"), "turns": turns}
json.dumps(out)
'''


def test_the_attacks_are_refused_in_pyodide_too() -> None:
    import shutil

    node = shutil.which("node")
    assert node, "Node is needed to run Pyodide (the README's set-up installs it)"
    assert (ROOT / "node_modules" / "pyodide").is_dir(), "run `npm ci` first (scripts/test does)"
    cases = json.dumps([[name, _bot(ATTACKS[name][0])] for name in PYODIDE_ORDER])
    code = (f"CASES = {cases!r}\nBUDGET = {BUDGET}\nATTACKED_MOVES = {ATTACKED_MOVES}\n"
            + PYODIDE_PLAY)
    done = subprocess.run([node, str(ROOT / "tests" / "pyodide_python.mjs")], input=code,
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr[done.stderr.rfind("PythonError"):][:3000]
    out = json.loads(done.stdout)
    for name in PYODIDE_ORDER:
        _, kind, message = ATTACKS[name]
        assert out[name]["start"] is None, (name, out[name])
        turns = out[name]["turns"]
        for reply in turns[:ATTACKED_MOVES]:
            assert reply["answer"] is None and reply["error"], (name, reply)
            assert reply.get("over_budget", False) is (kind == CHANGED), (name, reply)
            if kind == REFUSED:  # the shared exception class was spoiled before the others
                assert message in reply["error"], (name, reply)
        assert turns[ATTACKED_MOVES]["answer"] and not turns[ATTACKED_MOVES]["error"], (name, turns)


# -- The bot rewrites its host or writes its own replies: no verdict, detected (issue 17) ----
# The host's verdicts are sealed with a key the controller gave it (engine.bots.budget_seal);
# a reply with an answer and no valid seal is faulted, and steps never sealed are charged to
# the next move that is.

# The host patched through sys.modules: turns answered by calling move() itself, no verdict.
HOST_PATCHED = '''
    # natively the host runs as __main__ (python -m engine.bots.host); in the page, imported
    host_class = (sys.modules.get("engine.bots.host") or sys.modules["__main__"]).BotHost
    if attacks[0] == 1:
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
'''

# The same, with a genuine seal asked for the request's nonce: it states the true count.
HOST_PATCHED_SEALED = HOST_PATCHED.replace(
    '''"stdout": "", "stderr": ""}''',
    '''"stdout": "", "stderr": "",
                    "seal": sys.modules["engine.bots.budget_seal"].seal(
                        self.runner.budget.counter, request.get("nonce"))}''')

# Its own reply line on the host's reply pipe (fd 1), with the request's id (load 1, start 2,
# then one a move): an answer at once, the thinking after.
OWN_REPLY = '''
    import json, os
    os.write(1, (json.dumps({"id": 2 + attacks[0], "answer": "0 0 0 0", "error": None, "line": None,
                             "stdout": "", "stderr": ""}) + "\\n").encode())
'''

TAMPERED = "the bot tampered with its step budget (its reply carries no valid verdict)"
SINCE_VERDICT = "steps since the bot's last verdict, over its budget of 20,000"


def _faults(turns: list[dict]) -> list[str | None]:
    return [turn["faults"][0] and turn["faults"][0]["message"] for turn in turns]


@pytest.mark.parametrize("attack, after", [(HOST_PATCHED, TAMPERED), (HOST_PATCHED_SEALED, SINCE_VERDICT)],
                         ids=["no seal", "a true seal"])
def test_a_bot_that_rewrites_its_host_is_faulted(attack: str, after: str, tmp_path: Path) -> None:
    """Its first attacked move is judged by the real host (its gate changed); from then on
    its host answers without the verdict: every answer is faulted, none played."""
    summary, record = _match(tmp_path, _bot(attack))
    turns = _attacker_turns(record)
    faults = _faults(turns)
    assert "the bot changed its step budget" in faults[0], faults[0]
    for turn, fault in zip(turns[1:ATTACKED_MOVES], faults[1:ATTACKED_MOVES], strict=True):
        assert turn["move"] is None and fault and after in fault, turn
    if after == TAMPERED:  # no move of its rewritten host is ever played (frozen after 5 faults)
        assert all(turn["move"] is None and fault in (TAMPERED, "frozen: not asked")
                   for turn, fault in zip(turns[1:], faults[1:], strict=True)), set(faults)
    assert record["result"] is not None and len(turns) > ATTACKED_MOVES


def test_a_bot_that_writes_its_own_reply_is_faulted(tmp_path: Path) -> None:
    """Its own reply comes first and is faulted; the host's real replies (over budget) come
    late and are dropped, so their steps are charged to the next move; then it plays."""
    summary, record = _match(tmp_path, _bot(OWN_REPLY))
    turns = _attacker_turns(record)
    faults = _faults(turns)
    for turn, fault in zip(turns[:ATTACKED_MOVES], faults[:ATTACKED_MOVES], strict=True):
        assert turn["move"] is None and fault == TAMPERED, turn
    assert SINCE_VERDICT in faults[ATTACKED_MOVES], faults[ATTACKED_MOVES]  # 360,000+ steps charged
    assert any(turn["move"] and fault is None for turn, fault in zip(turns, faults, strict=True)), faults
    assert record["result"] is not None


@pytest.mark.parametrize("example", ["greedy", "script"])
def test_an_honest_bot_under_a_budget_plays_hosted_with_no_fault(example: str, tmp_path: Path) -> None:
    """Every reply carries a valid seal: no fault, for a function bot and for a long-running
    script (Flit's script mode is a stream: its turns start when it reads M)."""
    source = (ROOT / "engine" / "games" / "flit" / "examples" / f"{example}.py").read_text()
    summary, record = _match(tmp_path, source)
    assert summary["games"][0]["faults"] == [0, 0]
    assert all(turn["faults"][0] is None for turn in _attacker_turns(record))


# In Pyodide, as the page plays: the host of the page's bot Worker with its guard, a key at
# load and a nonce per request, each reply judged as web/main.py judges it (_answer_from).
PYODIDE_SEALED = '''
import json
from engine.bots.budget_seal import SealCheck
from engine.bots.host import BotHost
from engine.bots.reply import answer_from_reply
from engine.games.registry import get_game
spec = get_game("flit")
out = {}
for name, source in json.loads(CASES):
    seals = SealCheck(BUDGET)
    host = BotHost(lambda: None, lambda reply: None, guard=True)
    host.handle({"op": "load", "id": 1, "game": "flit", "code": source, "budget": BUDGET,
                 "key": seals.key})
    state = spec.new_game(spec.settings(), 1, None)

    def ask(request):
        request["nonce"] = seals.new_nonce()
        reply = json.loads(json.dumps(host.handle(request)))
        answer = seals.judge(answer_from_reply(reply), reply.get("seal"))
        return {"answer": answer.answer, "error": answer.error}

    start = ask({"op": "start", "id": 2, "message": spec.wire.start_message(state, 0), "seed": 3})
    turns = [ask({"op": "turn", "id": 3 + n, "message": spec.wire.observation(state, 0, [])})
             for n in range(ATTACKED_MOVES + 2)]
    out[name] = {"start": start, "turns": turns}
json.dumps(out)
'''


def test_a_bot_that_rewrites_its_host_is_faulted_in_pyodide_too() -> None:
    """An honest bot's replies all carry a valid seal; a bot that patches the page's host
    (engine.bots.host, through sys.modules) answers without one: faulted, every move."""
    import shutil

    node = shutil.which("node")
    assert node, "Node is needed to run Pyodide (the README's set-up installs it)"
    assert (ROOT / "node_modules" / "pyodide").is_dir(), "run `npm ci` first (scripts/test does)"
    honest = (ROOT / "engine" / "games" / "flit" / "examples" / "greedy.py").read_text()
    cases = json.dumps([["honest", honest], ["host patched", _bot(HOST_PATCHED)]])  # the patch last
    code = (f"CASES = {cases!r}\nBUDGET = {BUDGET}\nATTACKED_MOVES = {ATTACKED_MOVES}\n"
            + PYODIDE_SEALED)
    done = subprocess.run([node, str(ROOT / "tests" / "pyodide_python.mjs")], input=code,
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr[done.stderr.rfind("PythonError"):][:3000]
    out = json.loads(done.stdout)
    assert out["honest"]["start"]["error"] is None, out["honest"]
    assert all(turn["answer"] and turn["error"] is None for turn in out["honest"]["turns"]), out["honest"]
    patched = out["host patched"]
    assert patched["start"]["error"] is None, patched
    assert "the bot changed its step budget" in patched["turns"][0]["error"], patched
    for turn in patched["turns"][1:]:
        assert turn["answer"] is None and turn["error"] == TAMPERED, patched


def test_a_forged_or_borrowed_seal_is_refused() -> None:
    """What a bot that rewrote its host could send instead of its seal: none, another move's,
    one made with another key, one whose count was lowered; and one that is true but over
    the budget since the last seal accepted (the steps between verdicts are charged)."""
    from engine.bots.answer import BotAnswer
    from engine.bots.budget_seal import SealCheck, _tag

    check = SealCheck(100)

    def seal(nonce: str, begun: str, to: int, key: str | None = None, hook: str = "h1") -> str:
        return f"{hook}:{begun}:{to}:{_tag(bytes.fromhex(key or check.key), nonce, hook, begun, to)}"

    def judge(make_seal) -> str | None:
        nonce = check.new_nonce()
        return check.judge(BotAnswer(answer="0 0 0 0"), make_seal(nonce)).error

    assert judge(lambda n: seal(n, "-", 50)) is None
    assert check.nonce is None  # a nonce is judged once: sent with one request only
    assert judge(lambda n: None) == TAMPERED
    assert judge(lambda n: seal("another move's nonce", "-", 60)) == TAMPERED
    assert judge(lambda n: seal(n, "-", 60, key="00" * 32)) == TAMPERED
    assert judge(lambda n: seal(n, "-", 120).replace(":120:", ":60:")) == TAMPERED
    assert judge(lambda n: seal(n, "-", 120) + "0") == TAMPERED
    assert judge(lambda n: seal(n, "-", 151)) == ("the move took 101 steps since the bot's last "
                                                 "verdict, over its budget of 100")
    assert judge(lambda n: seal(n, "300", 350)) is None  # a script's turn began at 300
    assert judge(lambda n: seal(n, "-", 340)) == TAMPERED  # its count does not go back
    # another hook (a fresh Worker given the same load): its counter is charged from 0
    assert "took 360 steps" in judge(lambda n: seal(n, "-", 360, hook="h2"))
    assert judge(lambda n: seal(n, "-", 400, hook="h2")) is None
    # a fault needs no seal (its true seal is counted from)
    assert check.judge(BotAnswer(error="boom"), None).error == "boom"
