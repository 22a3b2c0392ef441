"""The Stack Snippet in Firefox and in WebKit (issue 20, item 5): the page's Preview runs the
exported snippet in an iframe sandboxed as the Q&A site's (an opaque origin, not cross-origin
isolated) with the site's own wheel and Pyodide, and a tournament in it of a posted-style
script bot and two examples (fixed seed and secret) gives the native run's JSON. In WebKit the
frame has no way for a script bot's input() to wait (push mode): the script is replayed
(engine/bots/replayed_script.py). Skipped with each engine's other tests by
KOTH_FIREFOX_TESTS=0 / KOTH_WEBKIT_TESTS=0.
"""
from __future__ import annotations

import json
import time

import pytest
from conftest import wait_until
from firefox_page import FIREFOX_TESTS, FirefoxError, firefox_modes
from test_same_seed_other_engines import _challenge, _native
from webkit_page import WEBKIT_TESTS, WebKitError

from engine.contest.snippet import pack_challenge

pytestmark = pytest.mark.browser

BOOT_TIMEOUT_MS = 600_000  # Pyodide booted in the frame, no snapshot: far longer at load
RUN_TIMEOUT_MS = 900_000

# The page's acts, as a visitor's clicks (CSS alone cannot find a control by its label).
CLICK = """(text) => {
  const label = [...document.querySelectorAll("label")].find((l) => l.textContent.trim() === text);
  const button = [...document.querySelectorAll("button")].find((b) => b.textContent.trim() === text);
  const target = label ? label.control : button;
  if (!target || target.offsetParent === null) return false;
  target.click();
  return true;
}"""


# Seen on 2026-11-27: plain, "Could not start Python: [Exception... "Failure" nsresult:
# "0x80004005 (NS_ERROR_FAILURE)"" (Firefox throws on reading `caches` in an opaque origin's
# Worker; web/src/worker/startup.js no longer lets that stop it); isolated, no frame (Firefox
# checks the frame's document's Cross-Origin-Resource-Policy against the frame's opaque origin;
# scripts/serve.py now serves it cross-origin). Each mode passed alone on 2026-11-28; one run
# of both in one session hung after 15 min with no output, not looked into (docs/testing.md).
@FIREFOX_TESTS
@firefox_modes()
def test_the_snippet_preview_plays_the_native_tournament_in_firefox(firefox, isolated_url, plain_url,
                                                                    tmp_path, isolated):
    # Opaque, as the site's frame. Firefox has no `cross-origin-isolated` permission policy:
    # a sandboxed frame of an isolated page is isolated too (seen 2026-11-28), so there the
    # preview's bots share memory, where the site's frame would use messages.
    preview_plays_the_native_tournament(firefox, isolated_url if isolated else plain_url, tmp_path,
                                        isolated, FirefoxError)


# Plain only: from a cross-origin isolated page, WebKit's preview frame says "Python worker
# error: the worker script failed to load" (the snippet's controller, a blob: Worker), seen on
# 2026-11-28 and not fixed (docs/testing.md, "WebKit").
@WEBKIT_TESTS
def test_the_snippet_preview_plays_the_native_tournament_in_webkit(webkit, plain_url, tmp_path):
    """The preview frame's own script runs (its policy names the site's host, as WebKit matches
    an opaque origin's 'self' to nothing), and the posted script bot runs in push mode."""
    from selenium.common.exceptions import WebDriverException

    preview_plays_the_native_tournament(webkit, plain_url, tmp_path, False, (WebKitError, WebDriverException))


def preview_plays_the_native_tournament(browser, url: str, tmp_path, frame_isolated: bool,
                                        transient) -> None:
    challenge = _challenge()
    expected, _records = _native(challenge, tmp_path)
    page = browser.open(f"{url}#c={pack_challenge_of(challenge)}")
    try:
        wait_until(page, "window.kothArena && window.kothArena.ready", 300_000)
        assert page.evaluate(CLICK, "Tournament")
        page.evaluate(CLICK, "Author's view")  # a challenge link opens the trial view
        assert page.evaluate(CLICK, "Export as Stack Snippet…")
        wait_until(page, "document.getElementById('snippet-sha256').value.length === 64")
        page.click("#snippet-export-run")
        wait_until(page, "document.getElementById('snippet-status').textContent.startsWith('Snippet ready')")
        page.click("#snippet-preview")
        frame = page.frame("snippet_preview.html")
        booted(frame, transient)
        assert frame.evaluate("[self.origin, self.crossOriginIsolated]") == ["null", frame_isolated]
        started = frame.evaluate("(c) => window.kothArena.tournament.start(c, {parallel: 1, budget: null})",
                                 challenge)
        assert started is not None
        began = time.monotonic()
        wait_until(frame, "window.kothArena.run === null", RUN_TIMEOUT_MS)
        print(f"{getattr(browser, 'version', 'Firefox')}: the snippet's 6-game tournament in "
              f"{time.monotonic() - began:.1f} s")
        status = frame.evaluate("document.querySelector('#status').innerText")
        assert status.startswith("Finished the tournament: 6 games"), status
        assert frame.evaluate("window.kothArena.tournament.result") == expected
        assert not page.errors(), page.errors()
    finally:
        page.close()


def pack_challenge_of(challenge: dict) -> str:
    return pack_challenge(json.dumps(challenge))


def booted(frame, transient) -> None:
    """Wait until the snippet in the frame has opened its challenge (the frame may not be
    there yet, or be between documents: the driver then says so, and this asks again)."""
    deadline = time.monotonic() + BOOT_TIMEOUT_MS / 1000
    expression = "!!(window.kothArena && window.kothArena.embedded && window.kothArena.embedded.done)"
    while True:
        try:
            if frame.evaluate(expression):
                return
            status = frame.evaluate("(document.querySelector('#status') || document.body).innerText")
            assert "could not start" not in status.lower(), status
        except transient:
            if time.monotonic() > deadline:
                raise
        if time.monotonic() > deadline:
            raise TimeoutError(f"still false after {BOOT_TIMEOUT_MS / 1000:g} s: {expression}")
        time.sleep(0.5)
