"""What a bot gave back for one request, whatever carried it, and the caps on its text.

Kept below the runners, the reply checker and the native bot kinds so all of them (and the
page's controller) share one shape without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class BotAnswer:
    answer: str | None = None
    error: str | None = None
    line: int | None = None
    stdout: str = ""
    stderr: str = ""

    def to_json(self) -> dict:
        return {"answer": self.answer, "error": self.error, "line": self.line,
                "stdout": self.stdout, "stderr": self.stderr}


def cut_marker(count: int) -> str:
    """The line that stands for ``count`` characters (or bytes) that were dropped."""
    return f"\n[... {count} characters cut ...]\n"


def cap_text(text: str, limit: int) -> str:
    """``text`` if it fits in ``limit`` characters, else its head and tail and what was cut.

    The tail is kept because a bot's last words (its answer, the end of a traceback) are
    often what matters.
    """
    if len(text) <= limit:
        return text
    tail = limit // 10
    head = limit - tail
    return text[:head] + cut_marker(len(text) - head - tail) + (text[-tail:] if tail else "")
