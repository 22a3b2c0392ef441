"""Wait for a condition in a page that runs under its own Content-Security-Policy.

Playwright's ``wait_for_function`` compiles a string predicate with eval inside the page each
time it polls, which the page's policy (``script-src 'self'``, no ``'unsafe-eval'``)
forbids. ``evaluate`` goes through the DevTools protocol, which the policy does not govern,
so polling it works on the page as a visitor gets it. The browser tests
(tests/browser/conftest.py) and the page benches (bench_web, bench_startup.py,
bench_transfer, link_sizes) share this one poll.
"""

from __future__ import annotations

import time
from typing import Any

# What evaluate raises when the document it ran in went away (a navigation or reload).
NAVIGATED = ("Execution context was destroyed", "Cannot find context with specified id")


def wait_until(where, expression: str, timeout_ms: float = 30_000, arg: Any = None,
               interval_s: float = 0.1) -> Any:
    """Poll ``where.evaluate(expression, arg)`` (a page, frame or Worker) until it is truthy;
    returns that value. A navigation while polling is waited out, as ``wait_for_function``
    does; an error the expression throws is raised at once. Raises TimeoutError with the
    expression after ``timeout_ms``."""
    from playwright.sync_api import Error as PlaywrightError

    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        try:
            value = where.evaluate(expression, arg) if arg is not None else where.evaluate(expression)
        except PlaywrightError as exc:
            if not any(m in str(exc) for m in NAVIGATED) or time.monotonic() > deadline:
                raise
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"still false after {timeout_ms / 1000:g} s: {expression}")
        time.sleep(interval_s)
