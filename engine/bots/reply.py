"""The one checker for what a bot host sends back, whatever the transport.

A reply comes from untrusted code: the native bot host's pipe, a command bot's output, a
page Worker's message. ``decode_reply_line`` turns one raw line into a Python value and
never raises anything but ``ReplyError`` (too long, not UTF-8, nested too deep for the
JSON parser's recursion, not JSON); ``answer_from_reply`` checks that value field by field
and caps its text, so a bad reply becomes a fault for that bot with a clear message and
never an exception in the controller.
"""

from __future__ import annotations

import json

from engine.bots.answer import BotAnswer, cap_text
from engine.core.json_depth import nesting_depth

MAX_REPLY_BYTES = 1 << 20  # one reply line, in bytes (1 MiB)
MAX_NESTING = 20  # replies are flat objects; this only keeps json.loads' recursion shallow
MAX_ANSWER_CHARS = 1_000
MAX_ERROR_CHARS = 4_000
# A host's capture keeps 20,000 + 2,000 characters per stream and request, plus a note:
# an honest reply fits, a forged one is cut here.
MAX_OUTPUT_CHARS = 24_000
MAX_LINE_NUMBER = 10**9

MALFORMED = "the bot sent a malformed reply"

# A JSON string (terminated or running to the end) or one bracket: a linear scan that
# skips brackets inside strings.


class ReplyError(ValueError):
    """A reply line that cannot be decoded; the message says why, for the bot's fault."""


def decode_reply_line(raw: bytes | str) -> object:
    """One reply line (a JSON text) as a Python value; raises only ``ReplyError``."""
    if isinstance(raw, bytes | bytearray):
        if len(raw) > MAX_REPLY_BYTES:
            raise ReplyError(f"the reply line is longer than {MAX_REPLY_BYTES:,} bytes ({len(raw):,})")
        try:
            text = bytes(raw).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ReplyError(f"the reply is not valid UTF-8 (byte {exc.start})") from None
    elif isinstance(raw, str):
        if len(raw) > MAX_REPLY_BYTES:
            raise ReplyError(f"the reply line is longer than {MAX_REPLY_BYTES:,} characters ({len(raw):,})")
        text = raw
    else:
        raise ReplyError(f"the reply is a {type(raw).__name__}, not a line of text")
    depth = nesting_depth(text)
    if depth > MAX_NESTING:
        raise ReplyError(f"the reply nests {depth} levels deep (at most {MAX_NESTING})")
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ReplyError(f"the reply is not JSON ({_short(str(exc))})") from None


def answer_from_reply(data: object) -> BotAnswer:
    """A decoded reply checked field by field; a wrong shape or type is the bot's fault."""
    if not isinstance(data, dict):
        return BotAnswer(error=f"{MALFORMED}: expected an object, got {_kind(data)}")
    answer, problem = _text(data, "answer", MAX_ANSWER_CHARS, optional=True)
    if problem is None:
        error, problem = _text(data, "error", MAX_ERROR_CHARS, optional=True)
    if problem is None:
        stdout, problem = _text(data, "stdout", MAX_OUTPUT_CHARS)
    if problem is None:
        stderr, problem = _text(data, "stderr", MAX_OUTPUT_CHARS)
    line = data.get("line")
    if problem is None and line is not None:
        if not isinstance(line, int) or isinstance(line, bool):
            problem = f"'line' is {_kind(line)}, not an integer"
        elif not 0 <= line <= MAX_LINE_NUMBER:
            problem = f"'line' is out of range ({_short(str(line))})"
    if problem is not None:
        return BotAnswer(error=f"{MALFORMED}: {problem}")
    over_budget = data.get("over_budget") is True and error is not None
    return BotAnswer(answer, error, line, stdout or "", stderr or "", over_budget)


def _text(data: dict, name: str, limit: int, optional: bool = False) -> tuple[str | None, str | None]:
    """(the field's text, capped) or (None, what is wrong with it); absent is None/""."""
    value = data.get(name)
    if value is None:
        return (None if optional else ""), None
    if not isinstance(value, str):
        return None, f"'{name}' is {_kind(value)}, not a string"
    return cap_text(printable(value), limit), None


def printable(text: str) -> str:
    """``text`` with lone surrogates (valid in JSON, not in UTF-8) replaced by '?'."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")
    return text


def _kind(value: object) -> str:
    names = {bool: "a boolean", int: "a number", float: "a number", list: "a list",
             dict: "an object", str: "a string", type(None): "null"}
    return names.get(type(value), f"a {type(value).__name__}")


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."
