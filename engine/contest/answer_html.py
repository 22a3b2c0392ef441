"""The parts of a Stack Exchange answer's HTML body that make an entry, read in linear time.

An answer body is a stranger's text. ``html.parser`` is not fit for it: on CPython before
3.13.4 some malformed bodies cost it quadratic time (80 KB of ``<!--`` took 6 s, and 1 MB
would take tens of minutes), and its reference decoding raises ``ValueError`` on a numeric
reference of more than 4,300 digits, which ended the whole import. So this reader scans the
body itself, forward only, with ``str.find`` and bounded loops: no regular expression and
no recursion, each character looked at a bounded number of times. It knows what an answer
needs and nothing more: tags, their attributes, comments and other ``<!...>`` / ``<?...>``
declarations (skipped), text and character references (``engine.contest.html_text``).

What it keeps: the first header's text (``h1``-``h6``, whitespace collapsed, at most
``MAX_HEADER_CHARS``), the first code block's text (``<pre><code>``, ``<br>`` as a newline)
and that block's language hint (``class="lang-py"`` on the ``pre`` or the ``code``).
Standard library only: it runs in the page's controller (Pyodide) and natively.
"""
from __future__ import annotations

from dataclasses import dataclass

from engine.contest.html_text import unescape

MAX_HEADER_CHARS = 1_000  # of a header as written: past this it is cut (a name and language fit many times)
_HEADERS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))
_TAGS = _HEADERS | {"pre", "code", "br"}  # the tags the reader looks at; others only end text
_SPACE = frozenset(" \t\n\r\f")
_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_NAME_END = _SPACE | {"/", ">"}
_ATTRIBUTE_END = _SPACE | {"/", ">", "="}
_UNQUOTED_END = _SPACE | {">"}
_KEPT_ATTRIBUTES = frozenset(("class",))  # all the reader looks at
_HINT_CHARS = _LETTERS | frozenset("0123456789_+#-")
_HINT_PREFIXES = ("lang-", "language-")


@dataclass(frozen=True)
class AnswerParts:
    header: str | None  # the first non-empty header's text
    code: str | None  # the first code block's text, references decoded
    code_hint: str | None  # its language hint, lower case ("py" for class="lang-py")


def read_answer(body: str) -> AnswerParts:
    """An answer's HTML body -> its first header, first code block and that block's hint."""
    reader = _Reader()
    _scan(body, reader)
    return AnswerParts(reader.header, reader.code, reader.code_hint)


class _Reader:
    """What the tags and text of a body mean for an entry (the state between tokens)."""

    def __init__(self) -> None:
        self.header: str | None = None
        self.code: str | None = None
        self.code_hint: str | None = None
        self._in_header = 0
        self._header_parts: list[str] = []
        self._header_chars = 0
        self._pre = 0
        self._pre_class = ""
        self._code_parts: list[str] | None = None
        self.wants_text = False  # inside the first header (with room left) or the first code block
        self.done = False  # both found: the rest of the body is not read

    def _update(self) -> None:
        self.wants_text = ((self._in_header > 0 and self._header_chars < MAX_HEADER_CHARS)
                           or self._code_parts is not None)
        self.done = self.header is not None and self.code is not None

    def start(self, tag: str, attributes: dict[str, str]) -> None:
        if tag in _HEADERS and self.header is None:
            self._in_header += 1
        elif tag == "pre":
            self._pre += 1
            self._pre_class = attributes.get("class", "")
        elif tag == "code" and self._pre and self.code is None and self._code_parts is None:
            self._code_parts = []
            self.code_hint = _hint(f"{self._pre_class} {attributes.get('class', '')}")
        elif tag == "br" and self._code_parts is not None:
            self._code_parts.append("\n")
        self._update()

    def end(self, tag: str) -> None:
        if tag in _HEADERS and self._in_header:
            self._in_header -= 1
            if not self._in_header:
                text = " ".join("".join(self._header_parts).split())
                self._header_parts = []
                self._header_chars = 0
                if text:
                    self.header = text
        elif tag == "code" and self._code_parts is not None:
            self.code = "".join(self._code_parts)
            self._code_parts = None
        elif tag == "pre" and self._pre:
            self._pre -= 1
        self._update()

    def text(self, raw: str) -> None:
        """Text as the body has it (references not decoded): decoded only where it is kept,
        and a header's cut before it is decoded."""
        if self._in_header and self._header_chars < MAX_HEADER_CHARS:
            part = raw[:MAX_HEADER_CHARS - self._header_chars]
            self._header_parts.append(unescape(part))
            self._header_chars += len(part)
        if self._code_parts is not None:
            self._code_parts.append(unescape(raw))
        self._update()


def _hint(classes: str) -> str | None:
    """``lang-XXX`` or ``language-XXX`` among a class list -> ``xxx``."""
    for word in classes.split():
        for prefix in _HINT_PREFIXES:
            if word.startswith(prefix):
                hint = _prefix_of(word[len(prefix):], _HINT_CHARS)
                if hint:
                    return hint.lower()
    return None


def _prefix_of(text: str, allowed: frozenset[str]) -> str:
    for i, char in enumerate(text):
        if char not in allowed:
            return text[:i]
    return text


# ---- the tokenizer ------------------------------------------------------------------------
# Every step moves `pos` forward; a construct that never closes runs to the end of the body.

def _scan(body: str, reader: _Reader) -> None:
    """Feeds the body's text and the tags the reader looks at to it, in order, until it has
    what it needs."""
    size = len(body)
    text_start = pos = 0  # body[text_start:] is text not yet given to the reader
    while not reader.done and (lt := body.find("<", pos)) >= 0:
        pos = lt + 1
        after = body[pos:pos + 1]
        if after == "!":
            end = _after(body, "-->", pos + 3) if body.startswith("!--", pos) else _after(body, ">", pos + 1)
        elif after == "?":
            end = _after(body, ">", pos + 1)
        else:
            closing = after == "/"
            first = pos + 1 if closing else pos
            if body[first:first + 1] not in _LETTERS:
                continue  # a "<" that begins no tag is text, as in a browser
            name_end = _skip_until(body, first + 1, _NAME_END)
            if body.startswith(">", name_end):
                attributes: dict[str, str] = {}
                end = name_end + 1
            else:
                attributes, end = _attributes(body, name_end)
            name = body[first:name_end].lower()
            if name in _TAGS:
                if lt > text_start and reader.wants_text:
                    reader.text(body[text_start:lt])
                if closing:
                    reader.end(name)
                else:
                    reader.start(name, attributes)
                text_start = pos = end
                continue
        if lt > text_start and reader.wants_text:
            reader.text(body[text_start:lt])
        text_start = pos = end
    if text_start < size and reader.wants_text:
        reader.text(body[text_start:])


def _after(body: str, marker: str, pos: int) -> int:
    found = body.find(marker, pos)
    return len(body) if found < 0 else found + len(marker)


def _skip_until(body: str, pos: int, stop: frozenset[str]) -> int:
    size = len(body)
    while pos < size and body[pos] not in stop:
        pos += 1
    return pos


def _skip_space(body: str, pos: int) -> int:
    size = len(body)
    while pos < size and body[pos] in _SPACE:
        pos += 1
    return pos


def _attributes(body: str, pos: int) -> tuple[dict[str, str], int]:
    """A tag's attributes from just after its name -> (the attributes the reader looks at,
    the position after its ``>`` or the end of the body). The first of a repeated attribute
    counts, as in HTML."""
    attributes: dict[str, str] = {}
    size = len(body)
    while True:
        while pos < size and (body[pos] in _SPACE or body[pos] == "/"):
            pos += 1
        if pos >= size:
            return attributes, size
        if body[pos] == ">":
            return attributes, pos + 1
        name_end = _skip_until(body, pos + 1, _ATTRIBUTE_END)  # a leading "=" belongs to the name
        name = body[pos:name_end].lower()
        pos = _skip_space(body, name_end)
        value = ""
        if pos < size and body[pos] == "=":
            pos = _skip_space(body, pos + 1)
            if pos < size and body[pos] in "\"'":
                close = body.find(body[pos], pos + 1)
                end = size if close < 0 else close
                value = body[pos + 1:end]
                pos = min(end + 1, size)
            else:
                end = _skip_until(body, pos, _UNQUOTED_END)
                value = body[pos:end]
                pos = end
        if name in _KEPT_ATTRIBUTES and name not in attributes:
            attributes[name] = unescape(value)
