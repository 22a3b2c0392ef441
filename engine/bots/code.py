"""Loading a bot's Python source: kind detection, compilation and error reporting.

A bot is a *function bot* when its module defines a top-level ``move``; otherwise it is a
*script bot* that reads ``input()`` and ``print()``s its answers. Errors name the line in
the bot's own code, never the engine's.
"""

from __future__ import annotations

import ast
import traceback
from collections import deque
from dataclasses import dataclass
from types import CodeType

BOT_FILENAME = "<bot>"
FUNCTION = "function"
SCRIPT = "script"
TRACEBACK_FRAMES = 50  # of a bot's exception, the last ones are kept


class BotLoadError(Exception):
    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


@dataclass(frozen=True)
class BotCode:
    kind: str
    code: CodeType
    source: str


def load_code(source: str) -> BotCode:
    """Compile bot source; raises BotLoadError with the offending line."""
    try:
        tree = ast.parse(source, BOT_FILENAME)
        code = compile(tree, BOT_FILENAME, "exec")
    except SyntaxError as exc:
        where = f" (line {exc.lineno})" if exc.lineno else ""
        text = f"\n    {exc.text.rstrip()}" if exc.text else ""
        raise BotLoadError(f"SyntaxError: {exc.msg}{where}{text}", exc.lineno) from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise BotLoadError(f"{type(exc).__name__}: {exc}", None) from None
    defines_move = any(
        isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "move"
        for node in tree.body
    )
    return BotCode(FUNCTION if defines_move else SCRIPT, code, source)


def describe_exception(exc: BaseException) -> tuple[str, int | None]:
    """The exception as the bot's author wants to see it, and its line in the bot."""
    # Only the last frames: a recursion bomb's traceback can be millions deep.
    last = deque(traceback.walk_tb(exc.__traceback__), maxlen=TRACEBACK_FRAMES)
    frames = [f for f in traceback.StackSummary.extract(iter(last), lookup_lines=False)
              if f.filename == BOT_FILENAME]
    line = frames[-1].lineno if frames else None
    head = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    if not frames:
        return head, line
    where = ", ".join(f"line {f.lineno} in {f.name}" for f in frames[-3:])
    return f"{head} ({where})", line
