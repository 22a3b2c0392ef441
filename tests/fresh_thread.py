"""Run a function on a thread of its own, away from the browser tests' event loop.

The browser tests' Playwright keeps an event loop running on the main thread for the whole
session, so code that calls ``asyncio.run`` (the page controller driven under CPython, a
bot that uses asyncio) runs on a fresh thread, where no loop is.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


def in_fresh_thread(function: Callable[[], Any]) -> Any:
    """``function()`` on a new thread: its result returned, or its exception raised here."""
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = function()
        except BaseException as exc:  # noqa: BLE001 - handed back to the caller
            outcome["error"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")
