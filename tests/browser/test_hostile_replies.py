"""Deep or huge replies through the host's reply route, in the page: each is the sender's
fault, named, on time, and the run goes on (cross-origin isolated: the shared-memory
channel; plain: per-request message ports).

A bot finds its host's reply function with gc (test_page_attacks.HOST_ACCESS) and hands it,
for the pending request, what no honest host sends: a Python list nested 100,000 deep (its
conversion to text runs the bot's code), JSON text nested 150,000 deep (parsed whole by the
controller and read as an empty reply), 20 MB of text, and a JavaScript array nested 5,000
deep made through ``import js`` (its structured clone overflowed the stack). Each must be
a malformed-reply fault that names its problem, never a time-out.
"""
from __future__ import annotations

import re
import time

import pytest
from conftest import ROOMY_MS, wait_until
from test_page_attacks import HOST_ACCESS

pytestmark = pytest.mark.browser

RUN_LIMIT_S = 90  # measured: 3-10 s for the run below on 2 busy cores; 35 s before the fix

HOSTILE_REPLY_BOT = HOST_ACCESS + r'''
import json
import sys
import time

turns = 0
kept = []  # a deep list is never freed here: freeing one overflows Pyodide's stack (another attack)


def deep_list():
    nested = []
    for _ in range(100_000):
        nested = [nested]
    kept.append(nested)
    return nested


def deep_js_array():
    sys.meta_path[:] = [f for f in sys.meta_path if "Deny" not in type(f).__name__]
    import js
    return js.JSON.parse("[" * 5_000 + "]" * 5_000)


FORGED = {
    1: deep_list,
    2: lambda: '{"a":' * 150_000 + "1" + "}" * 150_000,
    3: lambda: "x" * 20_000_000,
    4: deep_js_array,
}


reply = None  # the host's reply function, found once (later objects confuse the search)


def move(view):
    global turns, reply
    turns += 1
    reply = reply or send_reply()
    if turns in FORGED:
        try:
            reply(pending_id(), FORGED[turns]())
        except BaseException as exc:
            print(f"turn {turns}: the reply function raised {type(exc).__name__}: {str(exc)[:100]}")
        end = time.monotonic() + 0.3
        while time.monotonic() < end:
            pass
    return "0 0 0 0"
'''

NOT_TEXT = r"the reply is an? (object|function), not JSON text"  # a proxy's typeof
EXPECTED = [  # in turn order
    NOT_TEXT,
    re.escape("the reply nests 150000 levels deep (at most 20)"),
    re.escape("the reply is 20,000,000 characters, more than 1,048,576"),
    NOT_TEXT,
]


@pytest.mark.parametrize("isolation", [True, False], ids=["isolated", "plain"])
def test_deep_or_huge_replies_are_the_senders_faults_on_time(open_arena, isolated_url, plain_url, isolation):
    arena = open_arena(isolated_url if isolation else plain_url)
    # each forged move spins 0.3 s and sends up to 20 MB: no clock may make it a time-out
    arena.setup(game="flit", games=1, seed=5, time_limit_ms=ROOMY_MS)
    arena.set_bot(1, HOSTILE_REPLY_BOT, name="forger")
    arena.label("Bot 2 example").select_option("greedy")
    arena.page.wait_for_timeout(400)  # the page's own debounced saves
    began = time.monotonic()
    arena.start_run()
    wait_until(arena.page, "window.kothArena.run === null", RUN_LIMIT_S * 1000)
    seconds = time.monotonic() - began
    status = arena.status.inner_text()
    assert status.startswith("Finished"), status
    assert seconds < RUN_LIMIT_S, f"the run took {seconds:.0f} s"

    console = arena.console(1).inner_text()
    faults = re.findall(r"the bot sent a malformed reply: ([^\n]*)", console)
    assert len(faults) == len(EXPECTED), console[-3000:]
    for fault, problem in zip(faults, EXPECTED, strict=True):
        assert re.match(problem, fault), (problem, fault)
    assert "timeout" not in console and "raised" not in console, console[-3000:]
    assert int(arena.result_row("forger")[4]) == len(EXPECTED), arena.result_row("forger")
    greedy = arena.result_row("greedy")
    assert greedy[1] == "1" and greedy[4] == "0", greedy  # the other bot played the game out


# Freeing a list nested 100,000 deep overflows the stack of the Worker's Pyodide (a fatal
# error: that Python is gone). The bot did it after posting such a list as its reply; any
# bot can do it in any move. Its Worker answered nothing more: the move waited 10x the time
# limit, and the bot was stopped as silent ("timeout").
DYING_BOT = r'''
def move(view):
    nested = []
    for _ in range(100_000):
        nested = [nested]
    del nested
    return (0, False) if view.atom == "-" else 0
'''
ATOMAS_FIRST = "def move(view):\n    return (0, False) if view.atom == '-' else 0\n"
DYING_LIMIT_S = 90  # measured: a few seconds; 14-40 s before, most of it the wait for a dead bot
FATAL = "the bot's Python stopped with a fatal error (RangeError: Maximum call stack size exceeded)"


@pytest.mark.parametrize("isolation", [True, False], ids=["isolated", "plain"])
def test_a_bot_whose_python_dies_is_faulted_at_once(open_arena, isolated_url, plain_url, isolation):
    arena = open_arena(isolated_url if isolation else plain_url)
    # a wait for the dead bot would be 10x this limit, far past DYING_LIMIT_S
    arena.setup(game="atomas", games=1, seed=3, time_limit_ms=ROOMY_MS, max_moves=4)
    arena.set_bot(1, DYING_BOT, name="dying")
    arena.set_bot(2, ATOMAS_FIRST, name="first")
    arena.page.wait_for_timeout(400)
    began = time.monotonic()
    arena.start_run()
    wait_until(arena.page, "window.kothArena.run === null", DYING_LIMIT_S * 1000)
    seconds = time.monotonic() - began
    status = arena.status.inner_text()
    assert status.startswith("Finished"), status
    assert seconds < DYING_LIMIT_S, f"the run took {seconds:.0f} s"
    console = arena.console(1).inner_text()
    assert f"{FATAL}: it cannot move again" in console, console[-3000:]
    assert "timeout" not in console, console[-3000:]  # never taken for a silent bot
    assert int(arena.result_row("dying")[4]) >= 1, arena.result_row("dying")
    first = arena.result_row("first")
    assert first[1] == "1" and first[4] == "0", first  # the other bot played its game
