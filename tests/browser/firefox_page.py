"""Firefox for the browser tests: Debian's firefox-esr, driven over Marionette (WebDriver classic,
built into Firefox; Playwright cannot drive a stock Firefox) by a small Node script,
``firefox_driver.mjs``, that this module talks to by JSON lines. Not over WebDriver BiDi: a BiDi
session makes Firefox's nested ``new Worker()`` hang now and then (docs/testing.md, Browsers).

One Firefox per pytest session (the ``firefox`` fixture, registered in conftest.py); each
test opens pages in it. A page is a ``FirefoxPage`` whose ``evaluate(expression, arg)`` has
Playwright's shape, so ``wait_until`` polls it too. Nothing here downloads a browser.
"""
from __future__ import annotations

import json
import os
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).with_name("firefox_driver.mjs")
FIREFOX = os.environ.get("KOTH_FIREFOX", "/usr/bin/firefox-esr")
COMMAND_TIMEOUT_S = 900  # an answer: a page load or an evaluate, at load 30


class FirefoxError(RuntimeError):
    """A command the driver (Marionette, or the page's script) failed."""


class Firefox:
    """The driver process and the one Firefox it started."""

    def __init__(self) -> None:
        env = {**os.environ, "KOTH_FIREFOX": FIREFOX}
        self.process = subprocess.Popen(
            ["node", str(DRIVER)], cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.lock = threading.Lock()
        self.next_id = 0
        self.version = self._answer(0)

    def _answer(self, want: int) -> Any:
        answer: dict = {}
        timer = threading.Timer(COMMAND_TIMEOUT_S, self.process.kill)
        timer.start()
        try:
            while answer.get("id") != want:
                line = self.process.stdout.readline()
                if not line:
                    raise FirefoxError(f"the Firefox driver ended (exit {self.process.poll()})")
                answer = json.loads(line)
        finally:
            timer.cancel()
        if not answer.get("ok"):
            raise FirefoxError(answer.get("error"))
        return answer.get("value")

    def command(self, op: str, **fields: Any) -> Any:
        with self.lock:
            self.next_id += 1
            self.process.stdin.write(json.dumps({"id": self.next_id, "op": op, **fields}) + "\n")
            self.process.stdin.flush()
            return self._answer(self.next_id)

    def open(self, url: str, fresh: bool = False) -> FirefoxPage:
        return FirefoxPage(self, self.command("open", url=url, fresh=fresh))

    def close(self) -> None:
        try:
            self.command("quit")
        except (FirefoxError, OSError, ValueError):
            pass
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class FirefoxPage:
    """One tab. Selectors are CSS; expressions run in the page (in Marionette's sandbox of it:
    the page's objects, not its CSP) as in Playwright."""

    def __init__(self, firefox: Firefox, handle: int) -> None:
        self.firefox = firefox
        self.handle = handle

    def evaluate(self, expression: str, arg: Any = None) -> Any:
        fields = {"arg": arg} if arg is not None else {}
        return self.firefox.command("evaluate", page=self.handle, expression=expression, **fields)

    def click(self, selector: str) -> None:
        self.firefox.command("click", page=self.handle, selector=selector)

    def frame(self, url_part: str) -> FirefoxFrame:
        """The page's frame whose URL contains url_part (found at each evaluate)."""
        return FirefoxFrame(self, url_part)

    def fill(self, selector: str, text: str) -> None:
        self.firefox.command("fill", page=self.handle, selector=selector, text=text)

    def select(self, selector: str, value: str) -> None:
        self.firefox.command("select", page=self.handle, selector=selector, value=value)

    def errors(self) -> list[str]:
        return self.firefox.command("errors", page=self.handle)

    def screenshot(self, path: Path) -> None:
        self.firefox.command("screenshot", page=self.handle, path=str(path))

    def close(self) -> None:
        self.firefox.command("close", page=self.handle)


class FirefoxFrame:
    """A frame of a FirefoxPage, by its URL: evaluate() has Playwright's shape (wait_until polls it)."""

    def __init__(self, page: FirefoxPage, url_part: str) -> None:
        self.page = page
        self.url_part = url_part

    def evaluate(self, expression: str, arg: Any = None) -> Any:
        fields = {"arg": arg} if arg is not None else {}
        return self.page.firefox.command("evaluate", page=self.page.handle, expression=expression,
                                         frame=self.url_part, **fields)


# On by default in scripts/test, which installs firefox-esr; KOTH_FIREFOX_TESTS=0 skips them for a
# quicker local run. They were opt-in for hangs: under the former driver (puppeteer-core over
# WebDriver BiDi) the controller Worker's `new Worker()` sometimes never returned. That was the
# BiDi session's worker debugger listener; the Marionette driver has none (docs/testing.md,
# Browsers).
FIREFOX_TESTS = pytest.mark.skipif(
    os.environ.get("KOTH_FIREFOX_TESTS", "1") == "0", reason="Firefox tests skipped: KOTH_FIREFOX_TESTS=0")


def firefox_modes(plain_xfail: str | None = None) -> pytest.MarkDecorator:
    """``isolated`` in [True, False], the plain page xfail with ``plain_xfail`` (what was
    seen) if given."""
    plain = [pytest.mark.xfail(strict=False, reason=plain_xfail)] if plain_xfail else []
    return pytest.mark.parametrize("isolated", [True, pytest.param(False, marks=plain)],
                                   ids=["isolated", "plain"])


@pytest.fixture(scope="session")
def firefox():
    if not Path(FIREFOX).exists():
        pytest.fail(f"Firefox not found at {FIREFOX}: install Debian's 'firefox-esr' package (scripts/test "
                    "does), or set KOTH_FIREFOX. The browser tests never download a browser.", pytrace=False)
    browser = Firefox()
    try:
        yield browser
    finally:
        browser.close()
