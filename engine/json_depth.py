"""How deep a JSON text nests, measured before it is parsed.

``json.loads`` recurses once per level: 100,000 ``[`` overflow CPython's recursion limit and
Pyodide's stack (a fatal error there). Untrusted JSON — bot replies, replay files — is
measured first, with regular expressions (C speed, linear), and refused when it nests deeper
than its format ever needs.
"""

from __future__ import annotations

import re
from itertools import accumulate

# The closing quote is optional, so a match never fails once it has begun: the scan stays
# linear even on a text of escaped quotes that never closes.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_BRACKET_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def nesting_depth(text: str) -> int:
    """The deepest ``[``/``{`` nesting outside strings. An unterminated string runs to the end
    of the text: a parser stops there, so brackets after it are never reached."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    return max(accumulate(map(_BRACKET_STEP.__getitem__, brackets)), default=0)
