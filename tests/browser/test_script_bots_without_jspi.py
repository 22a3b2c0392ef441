"""Script bots where a bot Worker can block neither on shared memory nor through JSPI (issue
20, item 1): "relay" mode, where the page's service worker (web/bot_relay_sw.js) answers the bot
Worker's synchronous XMLHttpRequest with its next request. Chromium has JSPI, so the page is
asked for the mode (`?bots=relay`; `?bots=push` for the mode without a relay), as WebKit and
browsers without JSPI choose it themselves.

A posted-style Flit script bot gives the native run's game turn by turn, plain and isolated;
a spinning script bot is faulted at its time limit and Stop ends its run at once; a bot that
looks for the relay's route finds it closed, and the relay answers nothing but its channels;
without a relay ("push" mode) the script pauses at each input() (its main program becomes a
generator), and plays the native run's game all the same.
"""
from __future__ import annotations

import time
from pathlib import Path

import pytest
from conftest import ROOMY_MS
from native_match import bot_file, native_flit_game
from test_firefox_page import FirefoxArena
from test_page_attacks import REACH_OUT_BOT
from test_same_seed import BUDGET, _first_difference, _native, _page_records
from webkit_page import WEBKIT_TESTS

from engine.play.debug_part import rules_part

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
SCRIPT_BOT = (ROOT / "engine" / "games" / "flit" / "examples" / "script.py").read_text(encoding="utf-8")
SEED, SECRET = 2, "relay-match"
RELAY_TEXT = "service worker (relay mode)"
PUSH_TEXT = "a script bot pauses at each input() in its main program"

# A script bot that reads its first move's input, then spins.
SPINNING_SCRIPT = """\
while True:
    line = input()
    if line == "M":
        while True:
            pass
"""

# A posted-style script bot that, before it plays, looks for a way to the relay's route from
# its Worker's global scope (reached through `import js`, as REACH_OUT_BOT does): a new
# XMLHttpRequest, one rebuilt from the prototypes left, fetch, a script, and the host's own
# JavaScript functions' constructor. Each attempt is printed to stderr as blocked or REACHED.
ROUTE_SEEKING_BOT = r'''
import sys

log = []


def attempt(label, fn):
    try:
        result = fn()
        ok = result is not None and type(result).__name__ != "JsNull"
        log.append(f"relay route via {label}: " + ("REACHED" if ok else "blocked (nothing)"))
    except BaseException as exc:
        log.append(f"relay route via {label}: blocked ({type(exc).__name__})")


sys.meta_path[:] = [f for f in sys.meta_path if "Deny" not in type(f).__name__]
import js as g

url = "__koth_relay/v1/read?c=" + "0" * 32 + "&seen=none&hold=0"
attempt("XMLHttpRequest", lambda: g.XMLHttpRequest.new())
attempt("XMLHttpRequestUpload", lambda: g.XMLHttpRequestUpload.new())
attempt("XMLHttpRequestEventTarget", lambda: g.XMLHttpRequestEventTarget.new())
attempt("the prototype chain", lambda: g.Object.getPrototypeOf(g.XMLHttpRequestUpload.prototype)
        .constructor.new())
attempt("fetch", lambda: g.fetch(url))
attempt("importScripts", lambda: g.importScripts(url))
attempt("a new Function", lambda: g.Function.new("return XMLHttpRequest")())
attempt("sendBeacon", lambda: g.navigator.sendBeacon(url))
print("\n".join(log), file=sys.stderr)

while True:
    line = input()
    if line == "M":
        print("0 0 0 0")
'''


def _passes_through(page, url: str, method: str = "POST") -> bool:
    """Whether a request the page makes (test code: exempt from its policy) gets the server's
    own answer, as one that bypasses the service worker does: the relay let it pass."""
    through_page = page.evaluate("""async ([url, method]) => {
        const response = await fetch(url, { method });
        return [response.status, response.headers.get("cache-control")];
    }""", [url, method])
    direct = page.context.request.fetch(url, method=method)
    return through_page == [direct.status, direct.headers.get("cache-control")]


@pytest.mark.parametrize("isolated", [False, True], ids=["plain", "isolated"])
def test_a_script_bot_in_relay_mode_plays_the_native_game(open_arena, isolated_url, plain_url, tmp_path,
                                                          isolated):
    native = native_flit_game(tmp_path, bot_file(tmp_path, SCRIPT_BOT), "builtin:random", SEED, SECRET)
    url = isolated_url if isolated else plain_url
    arena = open_arena(url + "?bots=relay")
    page = arena.page
    assert page.evaluate("crossOriginIsolated") is isolated
    assert RELAY_TEXT in arena.status.inner_text(), arena.status.inner_text()
    assert page.evaluate("Boolean(navigator.serviceWorker.controller)")

    arena.setup(game="flit", games=1, seed=SEED, time_limit_ms=ROOMY_MS)
    arena.set_bot(1, SCRIPT_BOT, name="script")
    arena.label("Bot 2 example").select_option("random")
    arena.label("Secret (optional)").fill(SECRET)
    began = time.monotonic()
    arena.run()
    print(f"{'isolated' if isolated else 'plain'}: {len(native['turns'])} turns in relay mode in "
          f"{time.monotonic() - began:.1f} s")
    (record,) = arena.records()
    assert record["result"] == native["result"]
    assert record["turns"] == native["turns"]

    # The relay answers only its own route, only for a channel the controller opened: a made-up
    # secret, a malformed one, a GET, another path of its folder go to the server untouched.
    route = f"{url}__koth_relay/v1/"
    for target, method in [(f"{route}read?c={'0' * 32}&seen=none&hold=0", "POST"),
                           (f"{route}write?c={'0' * 32}&seq=1", "POST"),
                           (f"{route}read?c={'f' * 31}&seen=none&hold=0", "POST"),
                           (f"{route}read", "GET"), (f"{route}other?c={'0' * 32}", "POST")]:
        assert _passes_through(page, target, method), (target, method)
    # and the site's own files pass through with their headers
    headers = page.evaluate("""async (url) => Object.fromEntries((await fetch(url)).headers)""",
                            url + "bot_worker.js")
    assert "connect-src" in headers["content-security-policy"], headers


def test_a_bot_finds_the_relay_closed_and_a_spinning_script_is_stopped(open_arena, plain_url):
    arena = open_arena(plain_url + "?bots=relay")
    assert RELAY_TEXT in arena.status.inner_text(), arena.status.inner_text()

    # Every way to the relay's route from bot code is closed, and the bot still plays.
    arena.setup(game="flit", games=1, seed=5, time_limit_ms=ROOMY_MS)
    arena.set_bot(1, ROUTE_SEEKING_BOT, name="seeker")
    arena.label("Bot 2 example").select_option("greedy")
    arena.run()
    text = arena.console(1).inner_text()
    for label in ("XMLHttpRequest", "XMLHttpRequestUpload", "XMLHttpRequestEventTarget",
                  "the prototype chain", "fetch", "importScripts", "a new Function", "sendBeacon"):
        assert f"relay route via {label}: blocked" in text, (label, text)
    assert "REACHED" not in text, text
    assert arena.result_row("seeker")[4] == "0", arena.result_row("seeker")
    # The other untrusted APIs stay withheld in relay mode too.
    arena.set_bot(1, REACH_OUT_BOT, name="reacher")
    arena.run()
    reach = arena.console(1).inner_text()
    assert "REACHED" not in reach.replace("global via import js: reached", ""), reach

    # A script bot that spins on its first move is faulted at its time limit and the run ends.
    arena.setup(game="flit", games=1, seed=3, time_limit_ms=200)
    arena.set_bot(1, SPINNING_SCRIPT, name="spinner")
    began = time.monotonic()
    arena.run(timeout_ms=300_000)
    print(f"a spinning script's run, 200 ms limit (2 s hard): {time.monotonic() - began:.1f} s")
    assert int(arena.result_row("spinner")[4]) >= 1, arena.result_row("spinner")
    assert "timeout" in arena.console(1).inner_text(), arena.console(1).inner_text()

    # Stop ends a run whose script bot spins under a 60 s limit, without waiting for it.
    arena.setup(time_limit_ms=60_000)
    arena.stop_a_spinning_run()


def test_without_a_relay_a_script_bot_plays_the_native_game(open_arena, plain_url, tmp_path):
    """Push mode (no relay: the Stack Snippet frame in WebKit): the script pauses at each input()
    (engine/bots/suspended_script.py), and its game is the native run's."""
    native = native_flit_game(tmp_path, bot_file(tmp_path, SCRIPT_BOT), "builtin:random", SEED, SECRET)
    arena = open_arena(plain_url + "?bots=push")
    status = arena.status.inner_text()
    assert PUSH_TEXT in status, status
    arena.setup(game="flit", games=1, seed=SEED, time_limit_ms=ROOMY_MS)
    arena.set_bot(1, SCRIPT_BOT, name="script")
    arena.label("Bot 2 example").select_option("random")
    arena.label("Secret (optional)").fill(SECRET)
    began = time.monotonic()
    arena.run(timeout_ms=600_000)
    print(f"a game of {len(native['turns'])} turns in push mode: "
          f"{time.monotonic() - began:.1f} s")
    (record,) = arena.records()
    assert record["result"] == native["result"]
    assert record["turns"] == native["turns"], _first_difference(record, native)
    assert arena.result_row("script")[4] == "0", arena.result_row("script")


def test_a_tournament_with_a_script_bot_in_relay_mode_is_the_native_one(open_arena, plain_url, tmp_path):
    """Under a step budget (a fresh Worker, and so a fresh relay channel, for every load), 2
    matches at once: every game and the tournament's JSON are the native run's."""
    pool = {name: (ROOT / "engine" / "games" / "flit" / "examples" / f"{name}.py").read_text(encoding="utf-8")
            for name in ("script", "greedy", "random")}
    challenge = {"format": "koth-arena-challenge", "version": 1, "title": "relay", "description": "",
                 "game": "flit", "preset": "trial", "settings": {"time_limit_ms": 1000}, "games": 2,
                 "seed": 11, "secret": "relay-tournament",
                 "entries": [{"name": n, "code": code} for n, code in pool.items()]}
    expected, records = _native(challenge, BUDGET, tmp_path / "native")
    arena = open_arena(plain_url + "?bots=relay")
    assert RELAY_TEXT in arena.status.inner_text(), arena.status.inner_text()
    began = time.monotonic()
    assert arena.page.evaluate("([c, b]) => window.kothArena.tournament.start(c, {parallel: 2, budget: b})",
                               [challenge, BUDGET]) is not None
    status = arena.wait_finished(600_000)
    assert status.startswith("Finished the tournament"), status
    print(f"a 6-game tournament in relay mode, 2 at once: {time.monotonic() - began:.1f} s")
    failures = [f"game {i + 1}: {_first_difference(mine, theirs)}"
                for i, (mine, theirs) in enumerate(zip(_page_records(arena, len(expected["games"])), records,
                                                       strict=True))
                if rules_part(mine) != rules_part(theirs)]
    assert not failures, "\n".join(failures)
    assert arena.page.evaluate("window.kothArena.tournament.result") == expected


@WEBKIT_TESTS
def test_webkit_runs_a_script_bot_through_the_relay(webkit, plain_url, tmp_path):
    """WebKit has neither JSPI nor shared memory for Workers: it picks relay mode itself (no
    `?bots=`), and the posted script bot plays the native run's game. In WebKitGTK 2.50 a bot
    Worker's requests sometimes pass by the service worker (its probe reaches the server, seen
    on 2026-11-28 in some page loads: docs/testing.md, "WebKit"); such a Worker serves in push
    mode, where the script runs as a generator, and the game is the same."""
    native = native_flit_game(tmp_path, bot_file(tmp_path, SCRIPT_BOT), "builtin:random", SEED, SECRET)
    arena = FirefoxArena(webkit, plain_url)
    try:
        assert RELAY_TEXT in arena.status() or PUSH_TEXT in arena.status(), arena.status()
        mode = "relay" if RELAY_TEXT in arena.status() else "push"
        arena.setup(games=1, seed=SEED, time_limit_ms=ROOMY_MS)
        arena.bot(1, SCRIPT_BOT, "script")
        arena.set("Bot 2 example", "random")
        arena.set("Secret (optional)", SECRET)
        began = time.monotonic()
        arena.run()
        print(f"{webkit.version}: {len(native['turns'])} turns, the page in {mode} mode, in "
              f"{time.monotonic() - began:.1f} s")
        (record,) = arena.records()
        assert record["result"] == native["result"]
        assert record["turns"] == native["turns"]
        assert not arena.page.errors(), arena.page.errors()
    finally:
        arena.page.close()
