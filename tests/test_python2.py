"""Python 2 answers run as posted natively: converted on load (fissix, without the ``input``
fixer), with Python 2 division and the author's line numbers in faults.

The answers in tests/python2_answers/ are written in the style of the 2015 posts: print
statements, backticks, ``xrange``, ``raw_input``, ``has_key``, ``except E, e`` and ``/``
used for list indices.
"""

from __future__ import annotations

import builtins
import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.bots import python2, python2_convert
from engine.bots.code import BotLoadError, load_code
from engine.bots.entries import UsageError, entry_from_form
from engine.bots.native import HostedBot, InProcessBot
from engine.bots.python2 import convert, python2_reason
from engine.bots.sandbox import Sandbox
from engine.contest.challenge import load_challenge
from engine.games.registry import get_game
from engine.play.match import run_series

ROOT = Path(__file__).resolve().parent.parent
ANSWERS = Path(__file__).resolve().parent / "python2_answers"
SANDBOX = Sandbox()
OPPONENT = {"atomas": [], "flit": ["builtin:random"], "abotcalypse": ["builtin:random", "builtin:builder"]}


def answer(game: str) -> str:
    return (ANSWERS / f"{game}.py").read_text(encoding="utf-8")


def match(*args: object) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "engine", "match", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)


def faults(record: dict, bot: int = 0) -> list[dict]:
    seat = record["bot_index"].index(bot)
    return [t["faults"][seat] for t in record["turns"] if t["faults"][seat]]


# Tests below count faults: a limit far above a move's cost on a loaded machine, so that the
# machine's speed never decides one (a posted answer's moves are not all cheap).
ROOMY_MS = 60_000


def play(game: str, bots: list, games: int = 1, **overrides) -> dict:
    spec = get_game(game)
    overrides.setdefault("time_limit_ms", ROOMY_MS)
    return run_series(spec, spec.settings(**overrides), bots, 1, games, secret="S").document


@pytest.mark.parametrize("game", ["atomas", "flit", "abotcalypse"])
def test_each_python2_answer_plays_without_a_fault_as_py2_file(game):
    done = match(game, f"py2:{ANSWERS / game}.py", *OPPONENT[game], "--games", 2, "--seed", 1,
                 "--time-limit", ROOMY_MS, "--secret", "S", "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert [g["faults"][0] for g in out["games"]] == [0, 0]
    assert out["bots"][0] == game  # named after its file, as any .py bot


@pytest.mark.parametrize("game", ["atomas", "flit", "abotcalypse"])
def test_the_same_file_as_python3_does_not_load(game):
    """Without the language the answer is a SyntaxError: what the conversion is for."""
    bots = [HostedBot("posted", answer(game), SANDBOX)]
    bots += [InProcessBot(f"o{i}", get_game(game).example_source(o.split(":")[1]))
             for i, o in enumerate(OPPONENT[game])]
    spec = get_game(game)
    events = []
    settings = spec.settings(time_limit_ms=5000, **({"max_moves": 20} if game == "atomas" else {}))
    record = run_series(spec, settings, bots, 1, 1, secret="S", on_event=events.append).document["records"][0]
    assert record["start_faults"][0] == 1
    assert any(e.bot == 0 and "SyntaxError" in e.text for e in events)


def test_the_python2_answers_record_no_fault_hosted_and_in_process_alike():
    """The same conversion whether the bot runs in a sandboxed host or in this process."""
    source = answer("atomas")
    hosted = play("atomas", [HostedBot("a", source, SANDBOX, language="python2")], games=2, max_moves=150)
    local = play("atomas", [InProcessBot("a", source, language="python2")], games=2, max_moves=150)
    for a, b in zip(hosted["records"], local["records"], strict=True):
        assert not faults(a)
        assert [t["answers"] for t in a["turns"]] == [t["answers"] for t in b["turns"]]


# -- what the conversion does ---------------------------------------------------------------------

def test_print_backticks_xrange_has_key_and_except_comma_are_converted():
    text = convert("d = {1: 2}\nif d.has_key(1): print `d`,\nfor i in xrange(2): pass\n"
                   "try:\n    x = raw_input()\nexcept EOFError, e:\n    print >>sys.stderr, e\n").converted
    assert "if 1 in d: print(repr(d), end=' ')" in text
    assert "for i in range(2)" in text and "except EOFError as e:" in text
    assert "x = input()" in text and "print(e, file=sys.stderr)" in text


def test_python3_print_calls_in_a_python2_answer_are_read_as_calls():
    conversion = convert('import sys\nprint("a", end="")\nfor i in xrange(3): print(i, file=sys.stderr)\n')
    assert conversion.converted.splitlines()[1:] == ['print("a", end="")',
                                                    "for i in range(3): print(i, file=sys.stderr)"]
    with pytest.raises(BotLoadError, match="not valid Python 2 either"):  # mixed: neither reading parses
        convert('print("a", end="")\nprint "b"\n')


def test_input_stays_reading_a_line_not_eval():
    """``input()`` is not turned into ``eval(input())``: a posted answer's input() reads a line."""
    assert convert("line = input()\nprint line\n").converted == "line = input()\nprint(line)\n"
    script = "line = input()\nprint '0 y' if line.startswith('-') else 0\n"  # eval("2/1 3") would fail
    record = play("atomas", [InProcessBot("p", script, language="python2")], max_moves=3)["records"][0]
    assert not faults(record)


DIVISION = """
import random
board = [1, 2, 3, 4, 5]
half = len(board) / 2
item = board[len(board) / 2]
floats = 7.0 / 2, 7 / 2.0
negative = -7 / 2
truth = True / 2
x = 9
x /= 2
d = {"k": 9}
d["k"] /= 2
class Box: pass
box = Box()
box.v = 9
box.v /= 2
f = 9.0
f /= 2
drawn = random.randint(1 + len(board) / 2, len(board) - 1)
"""


def _module(source: str) -> dict:
    """The module's names after running the converted code, as a bot's runner runs it."""
    conversion = convert(source)
    bot = load_code(conversion.converted, conversion.lines, conversion.true_division)
    namespace = {"__builtins__": {**vars(builtins), **bot.builtins}}
    exec(bot.code, namespace)
    return namespace


def test_division_floors_between_integers_as_in_python2():
    ns = _module(DIVISION)
    assert ns["half"] == 2 and type(ns["half"]) is int and ns["item"] == 3
    assert ns["floats"] == (3.5, 3.5)
    assert ns["negative"] == -4  # Python 2 floored toward minus infinity
    assert ns["truth"] == 0
    assert (ns["x"], ns["d"]["k"], ns["box"].v, ns["f"]) == (4, 4, 4, 4.5)
    assert type(ns["drawn"]) is int and 3 <= ns["drawn"] <= 4


def test_future_division_keeps_true_division():
    ns = _module("from __future__ import division\nhalf = 5 / 2\nx = 5\nx /= 2\n")
    assert (ns["half"], ns["x"]) == (2.5, 2.5)


def test_floor_division_and_other_operators_are_untouched():
    ns = _module("a = 7 // 2\nb = 7 % 3\nc = divmod(7, 2)\n")
    assert (ns["a"], ns["b"], ns["c"]) == (3, 1, (3, 1))


# -- faults name the author's lines ---------------------------------------------------------------

# fissix adds "from functools import reduce" above line 2: the converted text's lines shift.
SHIFTED = """import random
total = reduce(lambda a, b: a + b, [1, 2, 3])
print "total", total
def move(view):
    items = view.board
    return items[len(items) / 2] / 0
"""


def test_a_fault_names_the_line_of_the_posted_code():
    conversion = convert(SHIFTED)
    assert conversion.converted.splitlines()[1] == "from functools import reduce"
    record = play("atomas", [InProcessBot("p", SHIFTED, language="python2")], max_moves=3)["records"][0]
    fault = faults(record)[0]
    assert "ZeroDivisionError" in fault["message"] and fault["line"] == 6
    assert "line 6 in move" in fault["message"]


def test_a_step_budget_stop_names_the_line_of_the_posted_code():
    looping = SHIFTED.replace("    return items[len(items) / 2] / 0\n",
                              "    while True:\n        items = items[len(items) / 2:]\n")
    bot = InProcessBot("p", looping, budget=1000, language="python2")
    record = play("atomas", [bot], max_moves=2)["records"][0]
    fault = faults(record)[0]
    assert fault["kind"] == "timeout" and fault["line"] in (6, 7)
    assert "budget" in fault["message"]


def test_a_hosted_bot_fault_names_the_posted_line_too():
    source = "import sys\nx = reduce(max, [1, 2])\nline = raw_input()\nprint 1 / 0\n"
    record = play("atomas", [HostedBot("p", source, SANDBOX, language="python2")], max_moves=2)["records"][0]
    fault = faults(record)[0]
    assert "ZeroDivisionError" in fault["message"] and fault["line"] == 4


def test_code_that_is_not_python2_either_names_its_line():
    with pytest.raises(BotLoadError) as caught:
        convert("x = 1\nprint 'a'\ndef f(:\n    pass\n")
    assert caught.value.line == 3 and "not valid Python 2 either" in caught.value.message
    events = []
    spec = get_game("atomas")
    bot = HostedBot("p", "x = 1\nprint x\ny = (1,\n", SANDBOX, language="python2")
    run_series(spec, spec.settings(max_moves=2), [bot], 1, 1, secret="S", on_event=events.append)
    fault = next(e for e in events if e.stream == "error")
    assert "not valid Python 2 either" in fault.text and fault.line == 3


def test_code_nested_deeper_than_the_converter_can_recurse_is_refused():
    with pytest.raises(BotLoadError, match="nests 3,004 levels deep; at most 120"):
        convert("x = " + "(" * 3000 + "1" + ")" * 3000 + "\n")
    assert python2_reason("x = " + "(" * 3000 + "1" + ")" * 3000 + "\n") is None


@pytest.mark.parametrize("code", ["x = " + "1+" * 20_000 + "1\n", "x = f" + "()" * 20_000 + "\n",
                                  "print " + "-" * 5000 + "1\n", "x = a" + ".b" * 20_000 + "\n"])
def test_the_suggestion_never_parses_code_nested_past_what_the_page_can_parse(code, monkeypatch):
    """ast.parse of a 20,000-term sum overflowed the page's controller Worker: the suggestion
    bounds the nesting from the tokens first and gives up on such code."""
    assert python2.nesting_bound(code) > python2.MAX_PARSE_NESTING
    monkeypatch.setattr(python2.ast, "parse", lambda *a, **k: pytest.fail("parsed too deep a code"))
    assert python2_reason(code) is None


def test_the_line_map_follows_added_lines_strings_and_repeated_lines():
    conversion = convert('import random\n# a comment\nx = reduce(max, [1])\n\ns = """a\nb"""\n'
                         'print s, `x`\n# the end')
    assert conversion.converted.splitlines()[1] == "from functools import reduce"
    assert conversion.lines == (1, 2, 2, 3, 4, 5, 6, 7, 8)
    repeated = convert("x = 1\n" * 3000 + "print x\n" + "x = 1\n" * 3)
    assert repeated.lines == tuple(range(1, 3005))


def test_an_answer_longer_than_the_converter_takes_is_refused_with_a_message():
    with pytest.raises(BotLoadError, match="converted up to 64 KiB; this one is 84,000 bytes"):
        convert("x = 1\n" * 14_000)


# -- caching and detection ------------------------------------------------------------------------

def test_a_conversion_is_cached_by_the_source(monkeypatch):
    python2.cache_clear()
    calls = []
    real = python2_convert.convert_in_child  # natively each new source is converted in a process
    monkeypatch.setattr(python2_convert, "convert_in_child", lambda text: calls.append(text) or real(text))
    first = convert("print 1\n")
    assert convert("print 1\n") is first and calls == ["print 1\n"]
    assert convert("print 2\n").converted == "print(2)\n" and len(calls) == 2


@pytest.mark.parametrize("code,suggested", [
    ("print 'hello'\n", "not valid Python 3"),
    ("x = `3`\n", "not valid Python 3"),
    ("line = raw_input()\nprint(line)\n", "raw_input"),
    ("for i in xrange(3):\n    pass\n", "xrange"),
    ("if {}.has_key(1):\n    pass\n", ".has_key()"),
    ("print('hello')\n", None),
    ("xrange = range\nfor i in xrange(3):\n    pass\n", None),  # defines its own
    ("def f(:\n", None),  # neither Python 3 nor Python 2
])
def test_python2_is_suggested_only_for_code_that_looks_like_it(code, suggested):
    reason = python2_reason(code)
    if suggested is None:
        assert reason is None
    else:
        assert reason is not None and suggested in reason


# -- where the language is given ------------------------------------------------------------------

def test_py2_form_and_bad_forms():
    entry = entry_from_form(f"py2:{ANSWERS / 'flit.py'}", "flit")
    assert (entry.name, entry.language) == ("flit", "python2")
    with pytest.raises(UsageError, match="py2:FILE.py"):
        entry_from_form("py2:bot.txt", "flit")
    with pytest.raises(UsageError, match="not found"):
        entry_from_form("py2:missing.py", "flit")


def test_a_challenge_entry_in_python2_plays(tmp_path):
    challenge = {"format": "koth-arena-challenge", "version": 1, "title": "t", "description": "",
                 "game": "flit", "preset": "trial", "settings": {"time_limit_ms": ROOMY_MS}, "games": 2,
                 "seed": 1, "secret": "S",
                 "entries": [{"name": "spreader", "code": answer("flit"), "language": "python2"},
                             {"name": "random", "code": "builtin:random"}]}
    assert load_challenge(json.dumps(challenge)).entries[0].to_entry().language == "python2"
    path = tmp_path / "challenge.json"
    path.write_text(json.dumps(challenge), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "engine", "tournament", "--challenge", str(path), "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    standings = {s["name"]: s for s in json.loads(done.stdout)["standings"]}
    assert standings["spreader"]["faults"] == 0 and standings["spreader"]["games"] == 2
