"""Loading a bot's Python source: kind detection, compilation and error reporting.

A bot is a *function bot* when its module defines a top-level ``move``; otherwise it is a
*script bot* that reads ``input()`` and ``print()``s its answers. Errors name the line in
the bot's own code, never the engine's. Code converted from Python 2 (``engine.bots.python2``)
is loaded from its converted text and line map: Python 2 division, the author's line numbers.
"""

from __future__ import annotations

import ast
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import CodeType
from typing import Any

from engine.bots.python2_semantics import HELPERS, author_line, python2_tree

BOT_FILENAME = "<bot>"  # _bot_frames spells it out
FUNCTION = "function"
SCRIPT = "script"
TRACEBACK_FRAMES = 50  # of a bot's exception, the last ones are kept (_bot_frames spells it out)


class BotLoadError(Exception):
    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


@dataclass(frozen=True)
class Python2Lines:
    """How converted code maps back to the Python 2 answer its author posted."""

    lines: tuple[int, ...]  # converted line n is the author's line lines[n - 1]
    true_division: bool  # the answer imported division from __future__


@dataclass(frozen=True)
class BotCode:
    kind: str
    code: CodeType
    source: str  # what runs: the author's code, or the text converted from Python 2
    python2: Python2Lines | None = None

    def tree(self) -> ast.Module:
        """A fresh syntax tree of the code as it runs (for the step budget to instrument)."""
        if self.python2 is None:
            return ast.parse(self.source, BOT_FILENAME)
        return python2_tree(self.source, self.python2.lines, self.python2.true_division, BOT_FILENAME)

    @property
    def builtins(self) -> dict[str, Callable[..., Any]]:
        """Names the code needs in its builtins (the Python 2 division helpers)."""
        return HELPERS if self.python2 is not None else {}


def load_code(source: str, python2_lines: Sequence[int] | None = None,
              true_division: bool = False) -> BotCode:
    """Compile bot source; raises BotLoadError with the offending line.

    With ``python2_lines``, ``source`` is code converted from Python 2 and ``python2_lines``
    gives each of its lines' line in the author's code (``engine.bots.python2.Conversion``)."""
    python2 = None if python2_lines is None else Python2Lines(tuple(python2_lines), true_division)
    parsed = False  # errors while parsing converted text name its lines, not the author's
    try:
        if python2 is None:
            tree = ast.parse(source, BOT_FILENAME)
        else:
            tree = python2_tree(source, python2.lines, true_division, BOT_FILENAME)
        parsed = True
        code = compile(tree, BOT_FILENAME, "exec")
    except SyntaxError as exc:
        line = exc.lineno if python2 is None or parsed else author_line(python2.lines, exc.lineno)
        where = f" (line {line})" if line else ""
        text = f"\n    {exc.text.rstrip()}" if exc.text else ""
        if python2 is not None and text:
            text += "  (the converted code)"
        raise BotLoadError(f"SyntaxError: {exc.msg}{where}{text}", line) from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise BotLoadError(f"{type(exc).__name__}: {exc}", None) from None
    defines_move = any(
        isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "move"
        for node in tree.body
    )
    return BotCode(FUNCTION if defines_move else SCRIPT, code, source, python2)


def _bot_frames(tb: Any) -> list[tuple[int, str]]:
    """(line, function name) of the bot's frames among a traceback's last ones.

    Trusted by ``engine.bots.budget_guard`` to read ``tb_frame`` (refused to the bot's code
    under a step budget): it gives out only numbers and names, never a frame, and calls
    nothing a bot could replace (no builtin, no global): only syntax and the attributes of
    tracebacks, frames and code objects.
    """
    last: list = []  # only the last frames: a recursion bomb's can be millions deep
    kept = 0
    while tb is not None:
        last.append(tb)
        kept += 1
        if kept >= 2 * 50:
            del last[:-50]
            kept = 50
        tb = tb.tb_next
    found = []
    for entry in last[-50:]:
        code = entry.tb_frame.f_code
        if code.co_filename == "<bot>":
            found.append((entry.tb_lineno, code.co_name))
    return found


def describe_exception(exc: BaseException) -> tuple[str, int | None]:
    """The exception as the bot's author wants to see it, and its line in the bot."""
    frames = _bot_frames(exc.__traceback__)
    line = frames[-1][0] if frames else None
    # Only its own text: formatting walks the tracebacks of the exceptions it was raised
    # from, whose frames a step budget's guard keeps from everyone but _bot_frames.
    cause, context = exc.__cause__, exc.__context__
    exc.__cause__ = exc.__context__ = None
    try:
        head = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    finally:
        exc.__cause__, exc.__context__ = cause, context
    if not frames:
        return head, line
    where = ", ".join(f"line {number} in {name}" for number, name in frames[-3:])
    return f"{head} ({where})", line
