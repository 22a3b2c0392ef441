"""The browser tests see the page as a visitor gets it: its Content-Security-Policy and
isolation headers in force (no bypass_csp), and wait_until, their poll, works under them."""
from __future__ import annotations

import time

import pytest
from conftest import READY_TIMEOUT_MS, wait_until

pytestmark = pytest.mark.browser

# An inline script, as an injection would be: the page's policy (script-src 'self') blocks it.
INLINE_SCRIPT_RAN = """() => {
    const script = document.createElement("script");
    script.textContent = "window.inlineRan = true";
    document.head.append(script);
    return window.inlineRan === true;
}"""


def test_the_arena_fixture_runs_the_page_under_its_real_headers(arena):
    assert arena.page.evaluate("self.crossOriginIsolated") is True
    assert arena.page.evaluate(INLINE_SCRIPT_RAN) is False


def test_wait_until_waits_out_a_reload_and_times_out_with_its_expression(arena):
    page = arena.page
    page.evaluate("setTimeout(() => location.reload(), 50)")
    assert wait_until(page, "performance.getEntriesByType('navigation')[0].type === 'reload'"
                      " && window.kothArena && window.kothArena.ready", READY_TIMEOUT_MS)
    began = time.monotonic()
    with pytest.raises(TimeoutError, match="still false after 0.5 s: window.kothArena.run !== null"):
        wait_until(page, "window.kothArena.run !== null", 500)
    assert time.monotonic() - began < 30
