"""HTML character references decoded in linear time, whatever the text holds.

``html.unescape`` raises ``ValueError`` on a numeric reference of more than 4,300 digits
(CPython's limit on converting digits to an int), so a stranger's ``&#111…1;`` would end
whatever read it. Here each reference is measured first: one with more digits than any
code point has decodes to U+FFFD, as HTML decodes an out-of-range reference; the others,
each at most a few dozen characters, go to ``html.unescape``, which knows HTML's table of
named references and its special cases. Standard library only (Pyodide).
"""
from __future__ import annotations

import html
from functools import lru_cache
from html.entities import html5

_DECIMAL = frozenset("0123456789")
_HEX = frozenset("0123456789abcdefABCDEF")
_NAME_END = frozenset("\t\n\f <&#;")
_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_MAX_NAME = 32  # the longest named reference HTML has
# Past this many significant digits a number is above U+10FFFF, the last code point.
_MAX_DECIMAL_DIGITS = 7
_MAX_HEX_DIGITS = 6


def unescape(text: str) -> str:
    """``html.unescape(text)``, in time linear in ``len(text)`` and without exceptions."""
    if "&" not in text:
        return text
    parts: list[str] = []
    literal_start = pos = 0  # text[literal_start:] is not decoded yet
    while (amp := text.find("&", pos)) >= 0:
        decoded, pos = _reference(text, amp)
        if decoded is not None:
            parts.append(text[literal_start:amp])
            parts.append(decoded)
            literal_start = pos
    parts.append(text[literal_start:])
    return "".join(parts)


def _reference(text: str, amp: int) -> tuple[str | None, int]:
    """The reference at ``text[amp] == "&"`` -> (its text decoded, the position after it), or
    (None, where to look for the next "&") when the text there is not a reference."""
    pos = amp + 1
    after = text[pos:pos + 1]
    if after == "#":
        hexadecimal = text.startswith(("x", "X"), pos + 1)
        first = pos + 2 if hexadecimal else pos + 1
        end = _run(text, first, _HEX if hexadecimal else _DECIMAL)
        if end == first:
            return None, pos  # "&#" with no digits is text
        digits = text[first:end].lstrip("0") or "0"
        if text.startswith(";", end):
            end += 1
        if len(digits) > (_MAX_HEX_DIGITS if hexadecimal else _MAX_DECIMAL_DIGITS):
            return "\ufffd", end
        return _numeric(digits, hexadecimal), end
    if after not in _LETTERS:  # every named reference begins with one
        return None, pos
    end = pos + 1
    limit = min(len(text), pos + _MAX_NAME)
    while end < limit and text[end] not in _NAME_END:
        end += 1
    if text.startswith(";", end):
        end += 1
    return _named(text[pos:end]), end


@lru_cache(maxsize=1024)
def _numeric(digits: str, hexadecimal: bool) -> str:
    return html.unescape(f"&#{'x' if hexadecimal else ''}{digits};")


def _named(name: str) -> str | None:
    """A named reference's text (after the "&", its ";" included if there was one) -> what it
    stands for, as html.unescape decodes it (a known name's longest prefix), or None."""
    if name in html5:
        return html5[name]
    for length in range(len(name) - 1, 1, -1):
        if name[:length] in html5:
            return html5[name[:length]] + name[length:]
    return None


def _run(text: str, pos: int, allowed: frozenset[str]) -> int:
    size = len(text)
    while pos < size and text[pos] in allowed:
        pos += 1
    return pos
