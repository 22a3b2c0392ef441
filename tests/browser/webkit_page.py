"""WebKit (Safari's engine) for the browser tests: Debian's WebKitGTK, its MiniBrowser driven
by ``/usr/bin/WebKitWebDriver`` through Selenium (PyPI ``selenium``, pinned in the test
extras), on an X display of its own (an ``Xvfb`` this module starts and stops).

One WebKit per pytest session (the ``webkit`` fixture, registered in conftest.py); each test
opens pages in it, each page a window. A page is a ``WebKitPage`` whose
``evaluate(expression, arg)`` has Playwright's shape, so ``wait_until`` polls it too.
WebKitWebDriver captures no console: ``errors()`` returns the uncaught errors and rejected
promises a listener the page is given once it has loaded has seen. Nothing here downloads a
browser.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

# On by default in scripts/test, which installs webkit2gtk-driver and xvfb; KOTH_WEBKIT_TESTS=0
# skips them for a quicker local run.
WEBKIT_TESTS = pytest.mark.skipif(
    os.environ.get("KOTH_WEBKIT_TESTS", "1") == "0", reason="WebKit tests skipped: KOTH_WEBKIT_TESTS=0")

WEBKIT_DRIVER = os.environ.get("KOTH_WEBKIT_DRIVER", "/usr/bin/WebKitWebDriver")
MINIBROWSER = os.environ.get("KOTH_WEBKIT", "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser")
COMMAND_TIMEOUT_S = 900  # a page load or a script, at load 30

# Runs with the page's arguments as ``arguments``: the expression's value, or, when it is a
# function (as Playwright takes it), that function called with the argument.
_EVALUATE = "const value = ({expression}); return typeof value === 'function' ? value(arguments[0]) : value;"
_LISTEN = """
if (!window.__webkitErrors) {
  window.__webkitErrors = [];
  addEventListener("error", (e) => window.__webkitErrors.push(String(e.message || e.error)));
  addEventListener("unhandledrejection", (e) => window.__webkitErrors.push(
    String(e.reason && e.reason.message || e.reason)));
}
return true;
"""


class WebKitError(RuntimeError):
    """The browser or its driver could not do what was asked."""


def _start_display() -> tuple[subprocess.Popen, str]:
    """A virtual X display (Xvfb picks a free number and writes it to us)."""
    if shutil.which("Xvfb") is None:
        raise WebKitError("Xvfb not found: install Debian's 'xvfb' package (scripts/test does)")
    read, write = os.pipe()
    command = ["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"]
    xvfb = subprocess.Popen(command, pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    number = b""
    timer = threading.Timer(60, xvfb.kill)
    timer.start()
    try:
        while not number.endswith(b"\n"):
            chunk = os.read(read, 16)
            if not chunk:
                raise WebKitError(f"Xvfb gave no display (exit {xvfb.poll()})")
            number += chunk
    finally:
        timer.cancel()
        os.close(read)
    return xvfb, f":{number.decode().strip()}"


class WebKit:
    """The virtual display, WebKitWebDriver and the one MiniBrowser session it drives."""

    def __init__(self) -> None:
        from selenium import webdriver
        from selenium.webdriver.webkitgtk.service import Service

        self.display, display = _start_display()
        try:
            options = webdriver.WebKitGTKOptions()
            options.binary_location = MINIBROWSER
            options.add_argument("--automation")
            service = Service(executable_path=WEBKIT_DRIVER, env={**os.environ, "DISPLAY": display})
            self.driver = webdriver.WebKitGTK(options=options, service=service)
        except BaseException:
            self.display.kill()
            self.display.wait()
            raise
        self.driver.set_script_timeout(COMMAND_TIMEOUT_S)
        self.driver.set_page_load_timeout(COMMAND_TIMEOUT_S)
        caps = self.driver.capabilities
        self.version = f"{caps.get('browserName')} {caps.get('browserVersion')}"
        self.lock = threading.RLock()
        self.first_window = self.driver.current_window_handle

    def open(self, url: str, fresh: bool = False) -> WebKitPage:
        if fresh:
            raise NotImplementedError("one WebKit profile per session: a fresh one is not implemented")
        with self.lock:
            if self.first_window is not None:
                handle, self.first_window = self.first_window, None
            else:
                self.driver.switch_to.new_window("window")
                handle = self.driver.current_window_handle
            page = WebKitPage(self, handle)
            page.goto(url)
            return page

    def close(self) -> None:
        try:
            self.driver.quit()
        except Exception:  # noqa: BLE001  (a dead driver: the display goes anyway)
            pass
        self.display.kill()
        self.display.wait()


class WebKitPage:
    """One window. Selectors are CSS; expressions run in the page as in Playwright."""

    def __init__(self, webkit: WebKit, handle: str) -> None:
        self.webkit = webkit
        self.handle = handle

    def _run(self, script: str, *args: Any) -> Any:
        with self.webkit.lock:
            if self.webkit.driver.current_window_handle != self.handle:
                self.webkit.driver.switch_to.window(self.handle)
            return self.webkit.driver.execute_script(script, *args)

    def goto(self, url: str) -> None:
        with self.webkit.lock:
            self.webkit.driver.switch_to.window(self.handle)
            self.webkit.driver.get(url)
            self.webkit.driver.execute_script(_LISTEN)

    def evaluate(self, expression: str, arg: Any = None) -> Any:
        return self._run(_EVALUATE.format(expression=expression), arg)

    def frame(self, url_part: str) -> WebKitFrame:
        """The page's iframe whose address has ``url_part`` (looked up at each call)."""
        return WebKitFrame(self, url_part)

    def click(self, selector: str) -> None:
        from selenium.webdriver.common.by import By

        with self.webkit.lock:
            self.webkit.driver.switch_to.window(self.handle)
            self.webkit.driver.find_element(By.CSS_SELECTOR, selector).click()

    def errors(self) -> list[str]:
        return self._run("return window.__webkitErrors || ['the error listener was lost (a navigation?)'];")

    def screenshot(self, path: Path) -> None:
        with self.webkit.lock:
            self.webkit.driver.switch_to.window(self.handle)
            self.webkit.driver.save_screenshot(str(path))

    def close(self) -> None:
        with self.webkit.lock:
            self.webkit.driver.switch_to.window(self.handle)
            if len(self.webkit.driver.window_handles) > 1:
                self.webkit.driver.close()
                self.webkit.driver.switch_to.window(self.webkit.driver.window_handles[0])
            else:  # the session's last window stays, blank, for the next page
                self.webkit.driver.get("about:blank")
                self.webkit.first_window = self.handle


class WebKitFrame:
    """An iframe of a page, as ``FirefoxFrame``: expressions run in its document."""

    def __init__(self, page: WebKitPage, url_part: str) -> None:
        self.page = page
        self.url_part = url_part

    def evaluate(self, expression: str, arg: Any = None) -> Any:
        from selenium.webdriver.common.by import By

        driver = self.page.webkit.driver
        with self.page.webkit.lock:
            driver.switch_to.window(self.page.handle)
            frames = [f for f in driver.find_elements(By.TAG_NAME, "iframe")
                      if self.url_part in (f.get_attribute("src") or "")]
            if not frames:
                raise WebKitError(f"no frame whose address has {self.url_part!r}")
            driver.switch_to.frame(frames[0])
            try:
                return driver.execute_script(_EVALUATE.format(expression=expression), arg)
            finally:
                driver.switch_to.default_content()


@pytest.fixture(scope="session")
def webkit():
    for path, package in ((WEBKIT_DRIVER, "webkit2gtk-driver"), (MINIBROWSER, "webkit2gtk-driver")):
        if not Path(path).exists():
            pytest.fail(f"WebKit not found at {path}: install Debian's '{package}' and 'xvfb' packages "
                        "(scripts/test does). The browser tests never download a "
                        "browser.", pytrace=False)
    try:
        import selenium  # noqa: F401
    except ImportError:
        pytest.fail("selenium is missing: pip install -e '.[test]' (scripts/test does).", pytrace=False)
    browser = WebKit()
    try:
        yield browser
    finally:
        browser.close()
