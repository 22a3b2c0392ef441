"""The step budget: counts are deterministic, every kind of loop stops at the budget, a bot
cannot swallow or undo the stop, and bots keep their own line numbers and run unchanged."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from engine.bots.code import describe_exception
from engine.bots.step_budget import BudgetExceeded, StepBudget, counting_builtins, instrument

sys.path.insert(0, str(Path(__file__).parent))
import budget_games  # noqa: E402
from fresh_thread import in_fresh_thread  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
# The games tests/budget_games.py can play (aBOTcalypse's bots join when the tournament
# runner counts steps for every game).
EXAMPLES = {f"{p.parent.parent.name}/{p.stem}": p.read_text()
            for p in sorted((ROOT / "engine/games").glob("*/examples/*.py"))
            if p.parent.parent.name in ("atomas", "flit")}


def _readme_bots() -> dict[str, str]:
    return budget_games.readme_bots((ROOT / "docs" / "bots.md").read_text())


def _load(source: str, limit: int) -> tuple[StepBudget, dict]:
    budget = StepBudget(limit)
    namespace: dict = {"__name__": "__main__"}
    budget.run(exec, instrument(source, budget), namespace)
    return budget, namespace


def _stopped(source: str, limit: int = 1000, *args: object) -> StepBudget:
    budget, namespace = _load(source, limit)
    with pytest.raises(BudgetExceeded) as caught:
        budget.run(namespace["move"], *args)
    assert caught.value.limit == limit
    # it stops right at the budget: a step past it, plus the straight-line statements before
    # the next check (a loop pass or a function entry)
    assert limit < budget.steps_used <= limit + 5, budget.steps_used
    return budget


def test_known_counts() -> None:
    """One step per statement, per comprehension iteration, per lambda call."""
    budget, namespace = _load("def move(n):\n    t = 0\n    for i in range(n):\n        t += i\n"
                              "    return t\n", 100)
    assert budget.steps_used == 1  # the def statement
    assert budget.run(namespace["move"], 10) == 45
    # t = 0, the for statement, 10 passes of t += i, return
    assert budget.steps_used == 1 + 1 + 10 + 1
    budget, namespace = _load("def move(n):\n    return [i for i in range(n) if i % 2]\n", 100)
    assert budget.run(namespace["move"], 7) == [1, 3, 5]
    assert budget.steps_used == 1 + 7  # return, 7 iterations
    budget, namespace = _load("f = lambda x: x + 1\ndef move(n):\n    return sum(map(f, range(n)))\n", 100)
    assert budget.run(namespace["move"], 5) == 15
    assert budget.steps_used == 1 + 5  # return, 5 lambda calls
    budget, namespace = _load('def move():\n    """only a docstring"""\n', 100)
    budget.run(namespace["move"])
    assert budget.steps_used == 1


def test_counts_are_deterministic() -> None:
    first = [budget_games.play_atomas(EXAMPLES["atomas/greedy"], 3, 30),
             budget_games.play_flit([EXAMPLES["flit/greedy"], EXAMPLES["flit/random"]], 5, 40)]
    second = [budget_games.play_atomas(EXAMPLES["atomas/greedy"], 3, 30),
              budget_games.play_flit([EXAMPLES["flit/greedy"], EXAMPLES["flit/random"]], 5, 40)]
    assert first == second
    assert len(set(first[0]["steps"])) > 3, "the count follows the position, not a constant"


@pytest.mark.parametrize("body", [
    "    while True:\n        pass",
    "    while True:\n        continue",
    "    for i in iter(int, 1):\n        pass",
    "    return [x for x in iter(int, 1)]",
    "    return sum(1 for x in iter(int, 1))",
    "    return {x: 1 for x in iter(int, 1) for y in [1]}",
    "    def deep(n):\n        return deep(n + 1)\n    return deep(0)",
    "    def gen():\n        while True:\n            yield 1\n    return list(gen())",
    "    f = lambda g: g(g)\n    return f(f)",
    "    return list(map(lambda x: x, iter(int, 1)))",
], ids=["while", "continue", "for", "listcomp", "genexp", "dictcomp", "recursion", "generator",
        "lambda", "map-lambda"])
def test_endless_code_stops_at_the_budget(body: str) -> None:
    _stopped(f"def move():\n{body}\n", 500)


@pytest.mark.parametrize("handler", ["except Exception", "except BaseException", "except"])
def test_catching_the_stop_still_ends_over_budget(handler: str) -> None:
    source = f"""
def move():
    total = 0
    for attempt in range(3):
        try:
            while True:
                total += 1
        {handler}:
            pass
    return total
"""
    budget, namespace = _load(source, 1000)
    with pytest.raises(BudgetExceeded):
        budget.run(namespace["move"])
    assert budget.steps_used > 1000


def test_raising_something_else_after_the_stop_is_still_over_budget() -> None:
    source = """
def move():
    try:
        while True:
            pass
    except BaseException:
        raise ValueError("not a time-out, honest")
"""
    budget, namespace = _load(source, 1000)
    with pytest.raises(BudgetExceeded):
        budget.run(namespace["move"])
    budget, namespace = _load("def move():\n    raise ValueError('within budget')\n", 1000)
    with pytest.raises(ValueError):
        budget.run(namespace["move"])


def test_swallowing_the_stop_everywhere_does_not_buy_time() -> None:
    """Once over, every loop pass and call stops the bot again: it cannot keep working."""
    source = """
def move():
    done = 0
    while done < 10 ** 9:
        try:
            done += 1
        except BaseException:
            pass
    return done
"""
    budget, namespace = _load(source, 1000)
    with pytest.raises(BudgetExceeded):
        budget.run(namespace["move"])
    assert budget.steps_used <= 1010


def test_changing_the_threshold_is_caught() -> None:
    source = """
def move():
    for gate in move.__code__.co_consts:
        if hasattr(gate, "threshold"):
            gate.threshold += 10 ** 9
    return sum(1 for _ in range(5000))
"""
    budget, namespace = _load(source, 1000)
    with pytest.raises(BudgetExceeded) as caught:
        budget.run(namespace["move"])
    assert caught.value.tampered and budget.steps_used > 1000
    # a threshold that lies about comparisons is found out too
    budget, namespace = _load(source.replace("gate.threshold += 10 ** 9", "gate.threshold = Liar()")
                              .replace("def move():", "class Liar:\n    def __gt__(self, other):\n"
                                       "        return True\n    def __ne__(self, other):\n"
                                       "        return False\ndef move():"), 1000)
    with pytest.raises(BudgetExceeded) as caught:
        budget.run(namespace["move"])
    assert caught.value.tampered


def test_the_count_cannot_go_back() -> None:
    source = """
def move():
    for step in move.__code__.co_consts:
        counter = getattr(step, "__self__", None)
        if counter is not None and hasattr(counter, "__next__"):
            for name in ("__setstate__", "__init__", "__reduce__"):
                try:
                    getattr(counter, name)(0)
                except Exception:
                    pass
    return 1
"""
    budget, namespace = _load(source, 10_000)
    budget.run(namespace["move"])
    assert budget.steps_used > 5


def _load_with_counting_builtins(source: str, limit: int) -> tuple[StepBudget, dict]:
    budget = StepBudget(limit)
    bot_builtins = dict(vars(__import__("builtins")))
    bot_builtins.update(counting_builtins(budget))
    namespace: dict = {"__name__": "__main__", "__builtins__": bot_builtins}
    budget.run(exec, instrument(source, budget), namespace)
    return budget, namespace


@pytest.mark.parametrize("body", [
    'exec("while True:\\n    pass")',
    'return eval("sum(1 for _ in iter(int, 1))")',
    'exec(compile("while True: pass", "x", "exec"), {})',
    'exec(b"while True: pass", {"__builtins__": {}})',
    'return eval(compile("[i for i in iter(int, 1)]", "x", "eval"))',
    'return (lambda: eval("  (lambda f: f(f))(lambda f: f(f))"))()',
])
def test_code_made_from_text_is_counted_too(body: str) -> None:
    budget, namespace = _load_with_counting_builtins(f"def move():\n    {body}\n", 500)
    with pytest.raises(BudgetExceeded):
        budget.run(namespace["move"])
    assert 500 < budget.steps_used <= 505


def test_counting_exec_and_eval_behave_like_the_real_ones() -> None:
    source = """
import ast
x = 5
exec("w = x + 1")   # no scope given: the caller's, as the real exec
def move():
    y = 2
    here = eval("x * y")   # the caller's locals and globals
    scope = {}
    exec("z = [i * i for i in range(4)]", scope)
    tree = compile("1 + 2", "t", "eval", ast.PyCF_ONLY_AST)
    return here, scope["z"], w, eval(compile(tree, "t", "eval")), eval(b"  7")
"""
    budget, namespace = _load_with_counting_builtins(source, 10_000)
    assert budget.run(namespace["move"]) == (10, [0, 1, 4, 9], 6, 3, 7)
    # move: 6 statements; eval("x * y") 1; exec of "z = ...": 1 statement + 4 iterations;
    # eval of the tree: 1; eval(b"  7"): 1
    assert budget.steps_used == 6 + 1 + 5 + 1 + 1
    with pytest.raises(SyntaxError):
        counting_builtins(StepBudget(10))["exec"]("x = (")


def test_a_bots_own_constants_are_left_alone() -> None:
    budget, namespace = _load('def move():\n    return ["koth counter", "koth gate", 0][:2]\n', 100)
    assert budget.run(namespace["move"]) == ["koth counter", "koth gate"]


def test_turns_are_budgeted_separately() -> None:
    budget, namespace = _load("def move(n):\n    for i in range(n):\n        pass\n", 100)
    for _ in range(5):
        budget.run(namespace["move"], 90)  # 1 + 90 steps, within 100 each time
        assert budget.steps_used == 91
    with pytest.raises(BudgetExceeded):
        budget.run(namespace["move"], 120)
    budget.run(namespace["move"], 90)  # the next turn starts afresh
    assert budget.steps_used == 91


def test_line_numbers_are_the_bots_own() -> None:
    source = '"""doc"""\nimport math\n\n\ndef helper(x):\n    y = x - 1\n    return math.sqrt(y) / y\n\n\n' \
             'def move(view):\n    total = sum(i for i in range(3))\n    return helper(view)\n'
    budget, namespace = _load(source, 1000)
    with pytest.raises(ZeroDivisionError) as caught:
        budget.run(namespace["move"], 1)
    message, line = describe_exception(caught.value)
    assert line == 7
    assert "line 12 in move, line 7 in helper" in message
    budget, namespace = _load("def move():\n    n = 0\n    while True:\n        n += 1\n", 100)
    with pytest.raises(BudgetExceeded) as stopped:
        budget.run(namespace["move"])
    message, line = describe_exception(stopped.value)
    assert line == 4 and "BudgetExceeded: the move took 101 steps, over its budget of 100" in message
    with pytest.raises(SyntaxError) as syntax:
        instrument("x = 1\nif x\n", StepBudget(10))
    assert syntax.value.lineno == 2


EVERY_KIND_OF_BLOCK = """
import asyncio
count = 0
def bump():
    global count
    count += 1
    return count
def outer():
    n = 0
    def inner():
        nonlocal n
        n += 1
        return n
    inner(); return inner()
def shape(p):
    match p:
        case (x, y):
            return "pair"
        case {"k": v}:
            return "map"
        case _:
            return "other"
class K:
    x = [i for i in range(3)]
    y = {i: i * i for i in x if i}
    def m(self):
        return sum(self.x)
async def co():
    await asyncio.sleep(0)
    return [i async for i in agen()]
async def agen():
    for i in range(2):
        yield i
def move(view):
    try:
        raise ExceptionGroup("g", [ValueError(1)])
    except* ValueError:
        pass
    return bump(), outer(), shape((1, 2)), shape({"k": 1}), shape(3), K().m(), K.y, asyncio.run(co())
"""


def test_every_kind_of_block_runs_as_it_does_plain() -> None:
    """global/nonlocal, match, class-body comprehensions, async, except*: same answers."""
    plain: dict = {"__name__": "__main__"}
    exec(compile(EVERY_KIND_OF_BLOCK, "<bot>", "exec"), plain)  # noqa: S102 - test source
    budget, counted = _load(EVERY_KIND_OF_BLOCK, 100_000)
    # the bot calls asyncio.run: away from the event loop the browser tests keep running
    assert in_fresh_thread(lambda: budget.run(counted["move"], None)) == in_fresh_thread(
        lambda: plain["move"](None))
    assert budget.steps_used > 20


def test_annotations_are_not_counted() -> None:
    """3.11 evaluates annotations at once and 3.14 when asked: they must not count in either."""
    source = ("def move(view: [i for i in range(50)]) -> (lambda: 1):\n"
              "    x: {i for i in range(50)} = 1\n    return x\n")
    budget, namespace = _load(source, 100)
    assert budget.steps_used == 1  # the def
    assert budget.run(namespace["move"], None) == 1
    assert budget.steps_used == 2


def test_docstrings_and_future_imports_keep_their_place() -> None:
    source = '"""module"""\nfrom __future__ import annotations\n\n\nclass C:\n    """class"""\n\n\n' \
             'def move(view: C):\n    """function"""\n    return move.__doc__, C.__doc__\n'
    budget, namespace = _load(source, 100)
    assert namespace["__doc__"] == "module"
    assert budget.run(namespace["move"], None) == ("function", "class")


def _play(source: str, game: str, seed: int, plain: bool = False) -> tuple[dict, list[int]]:
    budget_games.PLAIN = plain
    try:
        if game == "atomas":
            result = budget_games.play_atomas(source, seed, 40)
            return result, result["steps"]
        other = EXAMPLES["flit/greedy" if "def move" in source else "flit/random"]
        result = budget_games.play_flit([source, other], seed, 60)
        return result, result["steps"][0]
    finally:
        budget_games.PLAIN = False


def _runs_unchanged(source: str, game: str, seed: int) -> list[int]:
    """The instrumented bot plays the very game the plain one plays; its turns' steps."""
    counted, steps = _play(source, game, seed)
    plain, _ = _play(source, game, seed, plain=True)
    if game == "atomas":
        assert counted["score"] == plain["score"] and len(counted["steps"]) == len(plain["steps"])
    else:
        assert counted["result"] == plain["result"]
        assert [len(s) for s in counted["steps"]] == [len(s) for s in plain["steps"]] == [30, 30]
    assert set(plain["steps"] if game == "atomas" else plain["steps"][0]) == {0}
    return steps


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example_bots_run_unchanged(name: str) -> None:
    steps = _runs_unchanged(EXAMPLES[name], name.split("/")[0], 1)
    # plausible: a few steps for the random and script bots, mostly hundreds for the greedy ones
    assert steps and all(3 <= s <= 20_000 for s in steps), (name, min(steps), max(steps))
    median = sorted(steps)[len(steps) // 2]
    assert 100 <= median if name.endswith("greedy") else max(steps) <= 1_000, (name, median, max(steps))


@pytest.mark.parametrize("name", ["atomas/function", "atomas/script", "flit/function", "flit/script"])
def test_readme_bots_run_unchanged(name: str) -> None:
    steps = _runs_unchanged(_readme_bots()[name], name.split("/")[0], 2)
    assert steps and all(3 <= s <= 20_000 for s in steps), (name, min(steps), max(steps))


def test_a_budget_must_be_positive() -> None:
    for bad in (0, -5, 1.5, True):
        with pytest.raises(ValueError, match="positive whole number"):
            StepBudget(bad)  # type: ignore[arg-type]
