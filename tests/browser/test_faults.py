"""Faulty and hostile bots: the page stays responsive, the fault is shown in the bot's
console, the other bot plays on and the match finishes."""
from __future__ import annotations

import re

import pytest
from conftest import ROOMY_MS, wait_until
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

LOOPING_BOT = """\
def move(view):
    while True:
        pass
"""

# With a 2 s limit the controller waits 10 x 2 s = 20 s before it stops the bot: a window
# in which the test uses the page while the bot spins (a few seconds on a loaded machine).
LOOP_LIMIT_MS = 2000


@pytest.mark.parametrize("isolation", [True, False], ids=["isolated", "not-isolated"])
def test_infinite_loop_times_out_and_page_stays_responsive(open_arena, isolated_url, plain_url,
                                                           isolation):
    arena = open_arena(isolated_url if isolation else plain_url)
    page = arena.page
    isolated = page.evaluate("self.crossOriginIsolated")
    assert isolated is isolation
    if not isolation:
        expect(arena.status).to_contain_text("Not cross-origin isolated")
    else:  # Chromium shares memory with Workers (WebKitGTK does not: test_webkit_page.py)
        assert "shares no memory" not in arena.status.inner_text()
        assert "Ready" in arena.status.inner_text()

    arena.setup(game="flit", games=1, seed=8, time_limit_ms=LOOP_LIMIT_MS)
    arena.set_bot(1, LOOPING_BOT, name="spinner")
    arena.label("Bot 2 example").select_option("greedy")
    arena.start_run()

    # While the bot spins in its Worker, the page handles clicks, scrolling and typing.
    seed_box = arena.label("Seed")
    before = seed_box.input_value()
    arena.button("Random seed").click()
    expect(seed_box).not_to_have_value(before)
    page.mouse.move(640, 450)
    page.mouse.wheel(0, 600)
    wait_until(page, "window.scrollY > 0", 5000)
    name = arena.label("Bot 2 name")
    name.click()
    name.press("End")
    name.press_sequentially("-typed", delay=10)
    expect(name).to_have_value("greedy-typed")
    assert page.evaluate("window.kothArena.run") is not None, "the run ended before the checks"
    expect(arena.console(1)).not_to_contain_text("timeout")  # still spinning

    status = arena.wait_finished()
    assert status.startswith("Finished"), status
    console = arena.console(1)
    expect(console).to_contain_text("timeout")
    spinner, greedy = arena.result_row("spinner"), arena.result_row("greedy")
    assert spinner[1] == "1" and int(spinner[4]) >= 1, spinner
    assert greedy[1] == "1" and greedy[2] == "1", greedy
    (record,) = arena.records()
    spinner_seat = record["bot_index"].index(0)
    faults = [t["faults"][0] for t in record["turns"] if t["seats"] == [spinner_seat]]
    assert faults[0]["kind"] == "timeout", faults[0]
    assert all(f is not None for f in faults)


# A bot that tries to reach out of its Worker: the JavaScript bridges (js, pyodide_js,
# pyodide.code), the page's storage, and forged messages to the controller. Every attempt
# is logged to stdout; at the end it imports js without a guard, so its turn fails.
# The import guard is defence in depth only: through gc the bot finds JsProxy objects
# (see worker_global), which lead to its Worker's global scope where no CSP forbids
# Function(); the test asserts what that cannot do (touch the page's storage, or change
# the match through forged "reply"/"done" messages). test_page_attacks.py tries every
# route and API one by one, with and without the Workers' CSP.
HOSTILE_BOT = r'''
import sys
log = []

def attempt(label, fn):
    try:
        fn()
        log.append(label + ": SUCCEEDED")
    except BaseException as exc:
        log.append(f"{label}: {type(exc).__name__}")

def with_js():
    import js
    js.localStorage.setItem("koth-arena:hacked", "1")

def forge():
    import js
    from pyodide.ffi import to_js
    js.postMessage(to_js({"type": "reply", "id": 1, "json": '{"id": 1, "answer": "0 0 0 0"}'},
                         dict_converter=js.Object.fromEntries))

def with_pyodide_js():
    import pyodide_js
    pyodide_js.globals.get("self").localStorage.setItem("koth-arena:hacked", "2")

def run_js():
    from pyodide.code import run_js
    run_js("localStorage.setItem('koth-arena:hacked', '3')")

def via_modules():
    sys.modules["js"].localStorage.setItem("koth-arena:hacked", "4")

def worker_global():
    # Past the import guard: the bot host's own send/receive closures hold JsProxy objects
    # (the Worker's functions); from one, Function("return self") is the Worker's global
    # (where the Worker's CSP allows Function(): the serve script's does not).
    import gc
    for o in gc.get_objects():
        for cell in getattr(o, "__closure__", None) or ():
            try:
                v = cell.cell_contents
            except ValueError:
                continue
            if type(v).__name__ == "JsProxy" and callable(v):
                return v.constructor("return self")()
    raise LookupError("no JsProxy in reach")

def forge_from_worker_global():
    g = worker_global()
    log.append("(reached the Worker's global scope)")
    for i in range(300):  # replies for every plausible request id, and a fake "done"
        g.postMessage(g.JSON.parse(
            '{"type": "reply", "id": %d, "json": "{\\"id\\": %d, \\"answer\\": \\"0 0 0 1\\"}"}' % (i, i)))
    g.postMessage(g.JSON.parse('{"type": "done", "run": 1, "series": {}}'))
    g.localStorage.setItem("koth-arena:hacked", "6")

def worker_storage():
    # Cache Storage holds the page's Python snapshot; the Worker has lost it (and IndexedDB).
    g = worker_global()
    g.caches.open("koth-arena-python")

def worker_database():
    worker_global().indexedDB.open("koth-arena")

for label, fn in [("import js", with_js), ("forge reply", forge),
                  ("cache storage", worker_storage), ("indexedDB", worker_database),
                  ("import pyodide_js", with_pyodide_js), ("run_js", run_js),
                  ("sys.modules", via_modules), ("worker global", forge_from_worker_global)]:
    attempt(label, fn)

def move(view):
    print("; ".join(log))
    import js
    js.localStorage.setItem("koth-arena:hacked", "5")
    return "0 0 0 0"
'''


def test_hostile_bot_cannot_reach_the_page(arena):
    arena.setup(game="flit", games=1, seed=6, time_limit_ms=ROOMY_MS)
    arena.set_bot(1, HOSTILE_BOT, name="hostile")
    arena.label("Bot 2 example").select_option("greedy")
    arena.page.wait_for_timeout(400)  # let the page's own debounced saves land
    before = arena.storage()
    arena.run()
    after = arena.storage()

    console = arena.console(1)
    expect(console).to_contain_text("import js: ImportError")
    text = console.inner_text()
    print(text)
    assert "SUCCEEDED" not in text, text
    expect(console).to_contain_text(re.compile(r"error: .*cannot import 'js'"))

    assert not any("hacked" in k for k in after), after
    changed = {k for k in after if before.get(k) != after[k]}
    assert changed <= {"koth-arena:run-counter", "koth-arena:settings", "koth-arena:bots:flit"}, changed

    hostile, greedy = arena.result_row("hostile"), arena.result_row("greedy")
    assert greedy[1:3] == ["1", "1"] and greedy[4] == "0", greedy
    assert hostile[2] == "0" and int(hostile[4]) >= 1, hostile
