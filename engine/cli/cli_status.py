"""A one-line status on stderr (a rich spinner) while something slow runs: fetching a
question's answers, building them. Without rich it shows nothing (``engine.cli.options`` says once
how to install it when a table or bar needs it), so the command works the same."""

from __future__ import annotations

from typing import Any


class status:
    """``with status("fetching…") as s: ... s.update("building X…")``."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.live: Any = None

    def __enter__(self) -> status:
        try:
            from engine.cli.options import stderr_console
            self.live = stderr_console().status(self.text)
        except ImportError:
            self.live = None
        if self.live is not None:
            self.live.start()
        return self

    def update(self, text: str) -> None:
        if self.live is not None:
            self.live.update(text)

    def __exit__(self, *exc: object) -> None:
        if self.live is not None:
            self.live.stop()
