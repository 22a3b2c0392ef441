"""How many values a JSON text holds, counted before it is parsed.

``json.loads`` builds an object for every value: a text of ``{},{},...`` becomes some twenty
times its size in memory. A format with a known shape (a challenge file) counts first and
refuses a text of more values than it can ever hold. The count is the commas and opening
brackets outside strings: one per value but the first, and one per container.
"""

from __future__ import annotations

import re

# As engine.core.json_depth: the closing quote is optional, so the scan stays linear.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?', re.S)


def item_count(text: str, enough: int) -> int:
    """The commas, ``[`` and ``{`` outside strings when that is more than ``enough``; otherwise
    some number up to ``enough`` (a text whose every such character, strings included, comes
    to ``enough`` or fewer needs no closer look: the strings are read only past that)."""
    raw = text.count(",") + text.count("[") + text.count("{")
    if raw <= enough:
        return raw
    bare = _STRING.sub("", text)
    return bare.count(",") + bare.count("[") + bare.count("{")
