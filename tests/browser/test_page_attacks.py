"""Attacks on the page by untrusted bots (issue 6): each attack runs, the match ends
normally (or, for Stop, ends at once), the target is untouched, and the next Run works.

Targets: the controller's Python (malformed replies, a fatal error, a stuck controller),
the other bot's clock (a message flood), the visitor's stored data and the network (what a
bot's Worker can reach), Stop (a 60 s time limit), and the channel to a bot (oversize code).
"""
from __future__ import annotations

import re
import time

import pytest
from conftest import READY_TIMEOUT_MS, ROOMY_MS
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

# What lets a bot act outside its host: the host's reply function (a JavaScript function
# Python holds: any bot can find it with gc) and the id of the request being answered.
HOST_ACCESS = r'''
import gc
import sys


def send_reply():
    for o in gc.get_objects():
        code = getattr(o, "__code__", None)
        if code is not None and "send_reply" in code.co_freevars:
            return o.__closure__[code.co_freevars.index("send_reply")].cell_contents
    raise LookupError("no send_reply in reach")


def pending_id():
    frame = sys._getframe()
    while frame is not None:
        if "rid" in frame.f_locals:
            return frame.f_locals["rid"]
        frame = frame.f_back
    raise LookupError("no pending request")
'''

# Turn 1: 100,000 nested '[' as the reply (refused by its nesting, before parsing); turn 2:
# a 10 MB reply; turn 3: a reply whose fields have the wrong types. Each is sent for the
# pending id before the host's own reply, which is held back so that the forged one is
# read first.
MALFORMED_REPLY_BOT = HOST_ACCESS + r'''
import json
import time

turns = 0


def move(view):
    global turns
    turns += 1
    forged = {
        1: "[" * 100_000,
        2: "x" * 10_000_000,
        3: json.dumps({"id": pending_id(), "answer": 5, "line": "x", "stdout": [1]}),
    }.get(turns)
    if forged is not None:
        send_reply()(pending_id(), forged)
        end = time.monotonic() + 0.3
        while time.monotonic() < end:
            pass
    return "0 0 0 0"
'''

# Every route from a bot to its Worker's global scope, and from there every API that
# reaches beyond the Worker. Each attempt is printed as "NAME: blocked (...)" or
# "NAME: REACHED ...".
REACH_OUT_BOT = r'''
import gc
import sys

log = []


def attempt(label, fn):
    try:
        result = fn()
        log.append(f"{label}: REACHED {type(result).__name__}")
    except BaseException as exc:
        log.append(f"{label}: blocked ({type(exc).__name__})")


def js_functions():
    for o in gc.get_objects():
        for cell in getattr(o, "__closure__", None) or ():
            try:
                value = cell.cell_contents
            except ValueError:
                continue
            if type(value).__name__ == "JsProxy" and callable(value):
                yield value


def global_by_constructor():
    for function in js_functions():
        return function.constructor("return globalThis")()
    raise LookupError("no JsProxy in reach")


def global_by_import():
    sys.meta_path[:] = [f for f in sys.meta_path if "Deny" not in type(f).__name__]
    import js
    return js


routes = []
for route_name, route in [("constructor", global_by_constructor), ("import js", global_by_import)]:
    try:
        routes.append((route_name, route()))
        log.append(f"global via {route_name}: reached")
    except BaseException as exc:
        log.append(f"global via {route_name}: blocked ({type(exc).__name__})")

for route_name, g in routes:
    for label, fn in [
        ("fetch", lambda: g.fetch(g.location.href)),
        ("XMLHttpRequest", lambda: g.XMLHttpRequest.new()),
        ("WebSocket", lambda: g.WebSocket.new("ws://127.0.0.1:9/")),
        ("EventSource", lambda: g.EventSource.new(g.location.href)),
        ("WebTransport", lambda: g.WebTransport.new("https://127.0.0.1:9/")),
        ("storage.getDirectory", lambda: g.navigator.storage.getDirectory()),
        ("locks", lambda: g.navigator.locks.request("koth", lambda lock: None)),
        ("importScripts", lambda: g.importScripts("app.js")),
        ("indexedDB", lambda: g.indexedDB.open("koth-arena")),
        ("caches", lambda: g.caches.open("koth-arena-python")),
        ("Worker", lambda: g.Worker.new("bot_worker.js")),
        ("SharedWorker", lambda: g.SharedWorker.new("bot_worker.js")),
        ("BroadcastChannel", lambda: g.BroadcastChannel.new("koth")),
        ("postMessage", lambda: g.postMessage(g.JSON.parse('{"type": "done", "run": 1}'))),
        ("eval", lambda: g.eval("1 + 1")),
    ]:
        attempt(f"{route_name}: {label}", fn)


def move(view):
    if log:
        print("\n".join(log))
        log.clear()
    return "0 0 0 0"
'''
APIS = ["fetch", "XMLHttpRequest", "WebSocket", "EventSource", "WebTransport",
        "storage.getDirectory", "locks", "importScripts", "indexedDB", "caches", "Worker",
        "SharedWorker", "BroadcastChannel", "postMessage"]

# Junk for made-up request ids through the bot's own reply channel, as fast as it can,
# and through the Worker's global message port.
FLOOD_BOT = HOST_ACCESS + r'''
def move(view):
    reply = send_reply()
    try:
        import js
        js.postMessage("junk")
    except BaseException:
        pass
    for i in range(1_000_000):
        reply(-7 - i, "junk")
    return "0 0 0 0"
'''

SPINNING_BOT = """\
def move(view):
    while True:
        pass
"""

STORAGE_KEYS_A_RUN_WRITES = {"koth-arena:run-counter", "koth-arena:settings", "koth-arena:bots:flit"}


def _second_bot_is_greedy(arena) -> None:
    arena.label("Bot 2 example").select_option("greedy")
    arena.page.wait_for_timeout(400)  # let the page's own debounced saves land


def _faults(arena, name: str) -> int:
    return int(arena.result_row(name)[4])


def _next_run_works(arena) -> None:
    arena.wait_ready()
    arena.setup(game="flit", games=1, seed=3, time_limit_ms=1000)
    arena.label("Bot 1 example").select_option("random")
    arena.label("Bot 2 example").select_option("greedy")
    status = arena.run()
    assert re.search(r"Finished: 1 game", status), status


@pytest.mark.parametrize("isolation", [True, False], ids=["isolated", "not-isolated"])
def test_malformed_replies_are_the_bots_faults(open_arena, isolated_url, plain_url, isolation):
    arena = open_arena(isolated_url if isolation else plain_url)
    # each forged move spins 0.3 s: its faults are its replies', never the clock's
    arena.setup(game="flit", games=1, seed=5, time_limit_ms=ROOMY_MS)
    arena.set_bot(1, MALFORMED_REPLY_BOT, name="forger")
    _second_bot_is_greedy(arena)
    arena.run()

    console = arena.console(1).inner_text()
    print(console)
    assert console.count("the bot sent a malformed reply") == 3, console
    assert "nests 100000 levels deep (at most 20)" in console, console  # measured before parsing
    assert "10,000,000" in console, console
    assert "'answer' is" in console, console
    assert _faults(arena, "forger") == 3, arena.result_row("forger")
    greedy = arena.result_row("greedy")
    assert greedy[1:3] == ["1", "1"] and greedy[4] == "0", greedy
    _next_run_works(arena)


@pytest.mark.parametrize("server", ["isolated-csp", "bare"])
def test_bot_cannot_reach_beyond_its_worker(open_arena, isolated_url, bare_url, server):
    arena = open_arena(isolated_url if server == "isolated-csp" else bare_url)
    arena.setup(game="flit", games=1, seed=6, time_limit_ms=ROOMY_MS)
    arena.set_bot(1, REACH_OUT_BOT, name="reacher")
    _second_bot_is_greedy(arena)
    before, origin_before = arena.storage(), arena.origin_storage()
    arena.run()

    text = arena.console(1).inner_text()
    print(text)
    # The import guard is a list entry: a bot removes it. Only JavaScript's own withholding
    # (and, where the server sends it, the Worker's CSP) stands between it and the APIs.
    assert "global via import js: reached" in text, text
    routes = ["import js"]
    if server == "isolated-csp":
        # No JavaScript source runs in a bot's Worker: no Function(), no eval, so no import().
        assert "global via constructor: blocked" in text, text
        assert "import js: eval: blocked" in text, text
    else:
        assert "global via constructor: reached" in text, text
        routes.append("constructor")
    for route in routes:
        for api in APIS:
            assert f"{route}: {api}: blocked" in text, (route, api, text)

    after = arena.storage()
    assert {k for k in after if before.get(k) != after[k]} <= STORAGE_KEYS_A_RUN_WRITES
    assert arena.origin_storage() == origin_before
    assert _faults(arena, "greedy") == 0, arena.result_row("greedy")


def test_flood_from_one_bot_does_not_delay_the_other(open_arena, plain_url):
    """A million junk messages queued ahead of the other bot's reply would delay it by
    seconds; the limit leaves room for a busy machine (10x a greedy move's cost there), not
    for that."""
    arena = open_arena(plain_url)
    arena.setup(game="flit", games=1, seed=4, time_limit_ms=5000)
    arena.set_bot(1, FLOOD_BOT, name="flooder")
    _second_bot_is_greedy(arena)
    arena.run(timeout_ms=240_000)

    flooder = arena.console(1).inner_text()
    assert "posted more than" in flooder, flooder
    (record,) = arena.records()
    greedy_seat = record["bot_index"].index(1)
    greedy_turns = [t for t in record["turns"] if t["seats"] == [greedy_seat]]
    greedy_faults = [t["faults"][0] for t in greedy_turns if t["faults"][0]]
    assert greedy_faults == [], greedy_faults[:3]
    assert _faults(arena, "greedy") == 0
    expect(arena.console(2)).not_to_contain_text("timeout")


@pytest.mark.parametrize("isolation", [True, False], ids=["isolated", "not-isolated"])
def test_stop_ends_a_run_with_a_60_s_limit_at_once(open_arena, isolated_url, plain_url, isolation):
    """The hard limit is 600 s here; Stop must not wait for it (nor restart Python)."""
    arena = open_arena(isolated_url if isolation else plain_url)
    arena.setup(game="flit", games=1, seed=2, time_limit_ms=60_000)
    arena.set_bot(1, SPINNING_BOT, name="spinner")
    _second_bot_is_greedy(arena)
    starts = arena.page.evaluate("window.kothArena.workerStarts")
    arena.stop_a_spinning_run()
    assert arena.page.evaluate("window.kothArena.workerStarts") == starts, "Python was restarted"
    _next_run_works(arena)


def test_oversize_code_is_refused_with_a_message(arena):
    arena.setup(game="flit", games=1, seed=7, time_limit_ms=ROOMY_MS)
    big = "# " + "x" * 300_000 + "\ndef move(view):\n    return '0 0 0 0'\n"
    arena.set_bot(1, big, name="huge")
    _second_bot_is_greedy(arena)
    arena.run()
    expect(arena.console(1)).to_contain_text(re.compile(r"code is 300,\d{3} bytes, more than the 262,144"))
    greedy = arena.result_row("greedy")
    assert greedy[1:3] == ["1", "1"] and greedy[4] == "0", greedy


def _only_live_workers(arena) -> None:
    """The replaced controller's Workers (its bots' included) are gone: one controller
    and its warm bot Workers remain."""
    deadline = time.monotonic() + 60
    while True:
        urls = [w.url.rsplit("/", 1)[-1] for w in arena.page.workers]
        if urls.count("controller_worker.js") == 1 and urls.count("bot_worker.js") <= 3:
            return
        assert time.monotonic() < deadline, urls
        arena.page.wait_for_timeout(200)  # (time.sleep would not let Playwright see events)


def _long_run(arena) -> None:
    """A run that is still going a few seconds from now."""
    arena.setup(game="flit", games=50, seed=1, time_limit_ms=1000)
    arena.label("Bot 1 example").select_option("greedy")
    arena.label("Bot 2 example").select_option("random")
    arena.start_run()
    arena.page.wait_for_timeout(500)
    assert arena.page.evaluate("window.kothArena.run") is not None


def test_fatal_python_error_in_the_controller_replaces_it(arena):
    starts = arena.page.evaluate("window.kothArena.workerStarts")
    _long_run(arena)
    # A real fatal error of the controller's Pyodide (json.loads of 100,000 '[' was one,
    # before replies were parsed in JavaScript), set off through its debug handle.
    try:
        arena.controller().evaluate(
            "self.kothController.runPython(\"import json; json.loads('[' * 100000)\")")
    except Exception as exc:  # noqa: BLE001 - the fatal error reaches the caller too
        print(f"evaluate: {exc}"[:300])
    status = arena.wait_finished(timeout_ms=60_000)
    expect(arena.status).to_contain_text("Python in the controller failed")
    print(status)
    assert arena.page.evaluate("window.kothArena.workerStarts") == starts + 1
    _next_run_works(arena)
    _only_live_workers(arena)


def test_stuck_controller_is_replaced_when_stop_gets_no_answer(arena):
    starts = arena.page.evaluate("window.kothArena.workerStarts")
    _long_run(arena)
    arena.controller().evaluate(
        "setTimeout(() => { const t = performance.now(); while (performance.now() - t < 60000); }, 0)")
    # The spin starts at the controller's next event-loop turn (it yields every 50 ms): give
    # it that turn, or the run may see Stop first and end normally.
    arena.page.wait_for_timeout(1000)
    arena.button("Stop").click()
    arena.wait_finished(timeout_ms=60_000)  # a late answer to Stop would not say this
    expect(arena.status).to_contain_text("did not answer Stop")
    assert arena.page.evaluate("window.kothArena.workerStarts") == starts + 1
    _next_run_works(arena)
    _only_live_workers(arena)


@pytest.mark.parametrize("server", ["isolated", "not-isolated", "bare"])
def test_content_security_policy_lets_the_page_work(chromium, isolated_url, plain_url, bare_url,
                                                    server):
    """Without Playwright's CSP bypass: Python starts and a match runs under the page's
    policy and the Workers' (no violation reported), and each Worker gets its own; on a
    host that sends no headers, under the page's meta tag alone."""
    url = {"isolated": isolated_url, "not-isolated": plain_url, "bare": bare_url}[server]
    context = chromium.new_context()
    try:
        page = context.new_page()
        violations: list[str] = []
        page.on("console", lambda m: violations.append(m.text)
                if "Content Security Policy" in m.text else None)
        page.goto(url)
        _poll(page, "window.kothArena && window.kothArena.ready", READY_TIMEOUT_MS / 1000)
        page.get_by_label("Games", exact=True).fill("1")
        page.get_by_role("button", name="Run", exact=True).click()
        _poll(page, "window.kothArena.runsStarted > 0 && window.kothArena.run === null", 300)
        status = page.get_by_role("status").inner_text()
        assert status.startswith("Finished"), status
        assert violations == [], violations
        # The policy is in force: an inline script (which an injection would be) does not run.
        assert page.evaluate("""() => {
            const script = document.createElement("script");
            script.textContent = "window.inlineRan = true";
            document.head.append(script);
            return window.inlineRan === true;
        }""") is False
        if server == "bare":
            assert "content-security-policy" not in context.request.get(url).headers
            assert page.locator('meta[http-equiv="Content-Security-Policy"]').count() == 1
            return
        bot_policy = context.request.get(url + "bot_worker.js").headers["content-security-policy"]
        # nothing but its read from the bots' relay (relay mode: web/bot_relay_sw.js)
        relay_read = url.removeprefix("http://") + "__koth_relay/v1/read"
        assert bot_policy == ("default-src 'none'; script-src 'wasm-unsafe-eval'; "
                              f"connect-src {relay_read}"), bot_policy
        page_policy = context.request.get(url).headers["content-security-policy"]
        assert "connect-src 'self' https://api.stackexchange.com" in page_policy, page_policy
    finally:
        context.close()


def _poll(page, expression: str, seconds: float) -> None:
    """wait_for_function without its eval (the page's policy forbids eval)."""
    deadline = time.monotonic() + seconds
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            status = page.get_by_role("status").inner_text()
            raise AssertionError(f"timed out waiting for {expression}: {status!r}")
        time.sleep(0.1)
