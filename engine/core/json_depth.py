"""How deep a JSON text nests, measured before it is parsed.

``json.loads`` recurses once per level: 100,000 ``[`` overflow CPython's recursion limit and
Pyodide's stack (a fatal error there). Untrusted JSON — bot replies, replay files — is
measured first, with regular expressions and string passes (C speed, linear for the depths a
format allows), and refused when it nests deeper than its format ever needs.
"""

from __future__ import annotations

import re
from itertools import accumulate

# The closing quote is optional, so a match never fails once it has begun: the scan stays
# linear even on a text of escaped quotes that never closes.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?', re.S)
# Brackets as bytes "(" and ")", everything else deleted: a C-speed filter (a regular
# expression substituting between every pair of brackets costs a call per gap).
_PARENS = bytes.maketrans(b"[{]}", b"(())")
_NOT_BRACKETS = bytes(c for c in range(256) if c not in b"[]{}")
_STEP = {ord("("): 1, ord(")"): -1}
_QUICK_PASSES = 40  # deeper balanced texts, and unbalanced ones, take the exact walk


def nesting_depth(text: str) -> int:
    """The deepest ``[``/``{`` nesting outside strings. An unterminated string runs to the end
    of the text: a parser stops there, so brackets after it are never reached."""
    brackets = _STRING.sub("", text).encode("utf-8", "surrogatepass").translate(_PARENS, _NOT_BRACKETS)
    # Each pass removes the innermost pairs, so a balanced text (every valid JSON text) is
    # empty after exactly as many passes as it nests deep.
    rest = brackets
    for passes in range(_QUICK_PASSES + 1):
        if not rest:
            return passes
        shorter = rest.replace(b"()", b"")
        if len(shorter) == len(rest):
            break
        rest = shorter
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0)
