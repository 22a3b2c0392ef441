"""How deep a JSON text nests, measured before it is parsed.

``json.loads`` recurses once per level: 100,000 ``[`` overflow CPython's recursion limit and
Pyodide's stack (a fatal error there). Untrusted JSON — bot replies, replay files — is
measured first, with regular expressions and string passes (C speed, linear for the depths a
format allows), and refused when it nests deeper than its format ever needs.
"""

from __future__ import annotations

import re

# The closing quote is optional, so a match never fails once it has begun: the scan stays
# linear even on a text of escaped quotes that never closes.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?', re.S)
# Brackets as bytes "(" and ")", everything else deleted: a C-speed filter (a regular
# expression substituting between every pair of brackets costs a call per gap).
_PARENS = bytes.maketrans(b"[{]}", b"(())")
_NOT_BRACKETS = bytes(c for c in range(256) if c not in b"[]{}")
_RUNS = re.compile(rb"\(+|\)+")
_QUICK_PASSES = 40  # deeper balanced texts, and unbalanced ones, take the exact walk


def nesting_depth(text: str) -> int:
    """The deepest ``[``/``{`` nesting outside strings. An unterminated string runs to the end
    of the text: a parser stops there, so brackets after it are never reached."""
    brackets = _STRING.sub("", text).encode("utf-8", "surrogatepass").translate(_PARENS, _NOT_BRACKETS)
    # Each pass removes the innermost pairs, so a balanced text (every valid JSON text) is
    # empty after exactly as many passes as it nests deep. A pass costs a copy of what is
    # left: the passes stop once one removes less than a quarter, so together they cost at
    # most four copies of the text.
    rest = brackets
    for passes in range(_QUICK_PASSES + 1):
        if not rest:
            return passes
        shorter = rest.replace(b"()", b"")
        if len(shorter) * 4 > len(rest) * 3:
            break
        rest = shorter
    return _deepest(brackets)


def _deepest(brackets: bytes) -> int:
    """The highest running count of "(" minus ")" (0 at the start), in linear time.

    The brackets are lifted onto a mountain: enough "(" before them that the count inside
    never falls to 0, and enough ")" after that it ends at 0. Then every position at the
    highest count is a "()" peak, so each pass removing every "()" lowers the top by exactly
    one. Passes run while they shrink the mountain by a quarter or more (C speed, at most four
    copies in all); a Python walk then steps through the runs of brackets left, not the bytes:
    a pass that removes less than a quarter leaves fewer runs than a quarter of the bytes.
    """
    opens = brackets.count(b"(")
    lift = len(brackets) - opens + 1  # more than the count can ever fall
    mountain = b"(" * lift + brackets + b")" * (opens + 1)
    passes = 0
    while mountain:
        shorter = mountain.replace(b"()", b"")
        passes += 1
        removed_enough = len(shorter) * 4 <= len(mountain) * 3
        mountain = shorter
        if not removed_enough:
            break
    count = top = 0
    for run in _RUNS.findall(mountain):
        if run[0] == 40:  # "("
            count += len(run)
            top = max(top, count)
        else:
            count -= len(run)
    return top + passes - lift
