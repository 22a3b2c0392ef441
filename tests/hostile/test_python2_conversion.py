"""A Python 2 answer that fissix converts in quadratic time costs the controller nothing.

The attack: one expression of 8,000 ``u''`` literals (32 KB of source) took 17.5 s of the
controller's CPU before the first move, 16,000 (64 KB) took 377 s. Now each new source is
converted in a process of its own with a CPU, memory and wall-clock limit
(``engine/bots/python2_convert.py``): the controller only waits, the bot is faulted with a
message saying so (or converted, on a machine fast enough), the other bot plays, and the
outcome is cached: the next game does not convert again.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.bots.code import BotLoadError
from engine.bots.python2_convert import conversion_from_reply

ROOT = Path(__file__).resolve().parents[2]

# The controller, run as `python -m engine`, counting the conversions it starts and measuring
# its own CPU (RUSAGE_SELF: not its children's) at its first move and inside the conversions.
CONTROLLER = """
import atexit, json, resource, runpy, sys
out = sys.argv.pop(1)
from engine.bots import native, python2_convert

def cpu():
    me = resource.getrusage(resource.RUSAGE_SELF)
    return me.ru_utime + me.ru_stime

seen = {"conversions": 0, "cpu_in_conversions": 0.0, "cpu_at_first_move": None}
real_convert = python2_convert.convert_in_child

def counted(source):
    seen["conversions"] += 1
    began = cpu()
    try:
        return real_convert(source)
    finally:
        seen["cpu_in_conversions"] += cpu() - began

python2_convert.convert_in_child = counted
for cls in (native.InProcessBot, native.HostedBot):
    def turn(self, *args, _real=cls.turn, **kwargs):
        if seen["cpu_at_first_move"] is None:
            seen["cpu_at_first_move"] = cpu()
        return _real(self, *args, **kwargs)
    cls.turn = turn

def report():
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    seen.update(cpu=cpu(), children_cpu=kids.ru_utime + kids.ru_stime)
    with open(out, "w") as f:
        f.write(json.dumps(seen))

atexit.register(report)
sys.argv[0] = "engine"
runpy.run_module("engine", run_name="__main__", alter_sys=True)
"""

# What the controller may spend of its own CPU before the first move: starting Python and
# loading the engine take well under 1 s; the attack took 17.5 s.
CONTROLLER_CPU_S = 5.0
# Over its CPU limit (10 s), or on a loaded machine over its wall-clock limit (60 s).
OVER_TIME = "its Python 2 conversion took over "


def hostile_answer(literals: int) -> str:
    """A Python 2 bot whose first line is one expression of ``literals`` ``u''`` strings."""
    return "x = " + "+".join(["u''"] * literals) + "\ndef move(state):\n    return None\n"


def match(tmp_path: Path, *args: object) -> tuple[dict, dict]:
    """``python -m engine match ARGS --json --log``: its output and what CONTROLLER measured."""
    seen = tmp_path / "controller.json"
    done = subprocess.run([sys.executable, "-c", CONTROLLER, str(seen), "match", *map(str, args),
                           "--secret", "attack-tests", "--json", "--log"],
                          cwd=ROOT, capture_output=True, timeout=900)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-3000:]
    return json.loads(done.stdout), json.loads(seen.read_text())


def test_quadratic_python2_answers_cost_the_controller_nothing_and_are_converted_once(tmp_path):
    for literals in (8_000, 16_000):  # 32 KB and 64 KB of source
        (tmp_path / f"u{literals}.py").write_text(hostile_answer(literals), encoding="utf-8")
    out, seen = match(tmp_path, "flit", f"py2:{tmp_path / 'u8000.py'}", f"py2:{tmp_path / 'u16000.py'}",
                      "builtin:random", "--games", 2, "--seed", 1, "--time-limit", 1000)

    assert seen["cpu_at_first_move"] is not None, "no move was played"
    assert seen["cpu_at_first_move"] < CONTROLLER_CPU_S, seen
    assert seen["cpu_in_conversions"] < 1.0, seen
    # each source converted once, in a process of its own: the second game used the cache
    assert seen["conversions"] == 2, seen

    assert [g["seed"] for g in out["games"]] == [1, 2]
    for game in out["games"]:
        assert game["faults"][2] == 0  # the random bot played on
    for bot in (0, 1):
        faulted = [g["faults"][bot] for g in out["games"]]
        errors = [e["text"] for e in out["log"] if e["bot"] == bot and e["stream"] == "error"]
        if any(faulted):  # over its limit: its own fault, with the reason
            assert all(faulted) and errors and all(OVER_TIME in text for text in errors), (faulted, errors)
        else:  # a machine fast enough converted it within the limits
            assert not errors, errors
    assert seen["children_cpu"] > seen["cpu_in_conversions"]  # the work was the children's


def test_the_conversion_process_cannot_take_more_than_its_memory_and_cpu():
    """The limits the conversion process sets on itself before it reads the source hold: an
    allocation past the memory limit fails (fissix's would end in the OVER_MEMORY reply)."""
    probe = ("import resource\n"
             "from engine.bots.python2_convert import CPU_LIMIT_S, MEMORY_LIMIT_BYTES, limit_self\n"
             "limit_self()\n"
             "assert resource.getrlimit(resource.RLIMIT_CPU)[0] == CPU_LIMIT_S\n"
             "try:\n"
             "    bytearray(MEMORY_LIMIT_BYTES)\n"
             "except MemoryError:\n"
             "    print('refused')\n")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "refused", (done.stdout, done.stderr[-2000:])


@pytest.mark.parametrize("reply", [
    None, [], "text", {"converted": "x = 1\n", "lines": [1, 2], "true_division": False},
    {"converted": "x = 1\n", "lines": [0], "true_division": False},
    {"converted": "x = 1\n", "lines": [True], "true_division": False},
    {"converted": 1, "lines": [1], "true_division": False},
    {"converted": "x = 1\n", "lines": [1], "true_division": "yes"},
])
def test_a_conversion_reply_that_does_not_add_up_is_the_bots_load_error(reply):
    with pytest.raises(BotLoadError, match="not readable"):
        conversion_from_reply("x = 1\n", reply)


def test_a_conversion_reply_error_is_cut_and_its_line_checked():
    with pytest.raises(BotLoadError) as caught:
        conversion_from_reply("x\n", {"error": "e" * 10_000, "line": -3})
    assert len(caught.value.message) == 2000 and caught.value.line is None
    reply = {"converted": "print(1)\n", "lines": [1], "true_division": False}
    conversion = conversion_from_reply("print 1\n", reply)
    assert (conversion.converted, conversion.lines) == ("print(1)\n", (1,))
