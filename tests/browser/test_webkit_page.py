"""The page in WebKit (Safari's engine: Debian's WebKitGTK driven by Selenium through
WebKitWebDriver, tests/browser/webkit_page.py), plain and cross-origin isolated, under its real
headers: one page boot per mode, and in it what a visitor does first. Ready; a match of the
Flit examples (function bots) with a fixed seed and secret equals the native run turn by turn;
a bot that reaches for the Worker's global scope finds every route out withheld.

WebKitGTK 2.50 reports crossOriginIsolated but shares no memory with Workers (no
SharedArrayBuffer constructor; a shared buffer cannot be posted): the isolated page never
became ready (issue 20, item 3). It now runs there as a plain page does and says so. Script
bots run here through the bots' relay (no JSPI, no shared memory: "relay" mode), tested in
test_script_bots_without_jspi.py.
"""
from __future__ import annotations

import time

import pytest
from conftest import ROOMY_MS
from native_match import native_flit_game
from test_firefox_page import FirefoxArena
from test_page_attacks import APIS, REACH_OUT_BOT
from webkit_page import WEBKIT_TESTS

pytestmark = [pytest.mark.browser, WEBKIT_TESTS]

SEED, SECRET = 4, "webkit-match"
SHARED_MEMORY_WITHHELD = "this browser shares no memory with Workers"


@pytest.mark.parametrize("isolated", [False, True], ids=["plain", "isolated"])
def test_the_page_works_in_webkit(webkit, isolated_url, plain_url, results_dir, tmp_path, isolated):
    native = native_flit_game(tmp_path, "builtin:greedy", "builtin:random", SEED, SECRET)
    began = time.monotonic()
    arena = FirefoxArena(webkit, isolated_url if isolated else plain_url)  # ready, or it fails here
    mode = "isolated" if isolated else "plain"
    print(f"{webkit.version}: {mode} page ready in {time.monotonic() - began:.1f} s")
    try:
        assert arena.page.evaluate("crossOriginIsolated") is isolated
        # The isolated page falls back to the plain page's mode and says so.
        assert (SHARED_MEMORY_WITHHELD in arena.status()) is isolated, arena.status()

        # The two Flit examples, seed and secret fixed: the native run's game, turn by turn.
        arena.setup(games=1, seed=SEED, time_limit_ms=ROOMY_MS)
        arena.set("Bot 1 example", "greedy")
        arena.set("Bot 2 example", "random")
        arena.set("Secret (optional)", SECRET)
        arena.run()
        (record,) = arena.records()
        assert record["turns"] == native["turns"]
        assert record["result"] == native["result"]

        # A bot that reaches the Worker's global scope finds every way out withheld.
        arena.setup(games=1, seed=6, time_limit_ms=ROOMY_MS)
        arena.bot(1, REACH_OUT_BOT, "reacher")
        arena.set("Bot 2 example", "greedy")
        arena.set("Secret (optional)", "")
        arena.run()
        text = arena.console(1)
        assert "global via import js: reached" in text, text
        for api in APIS:
            assert f"import js: {api}: blocked" in text, (api, text)
        assert {r[0]: r for r in arena.rows()}["greedy"][4] == "0", arena.rows()

        arena.page.screenshot(results_dir / f"webkit-{mode}.png")
        assert not arena.page.errors(), arena.page.errors()
    finally:
        arena.page.close()
