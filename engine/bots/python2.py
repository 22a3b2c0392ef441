"""Python 2 answers, converted on load: the code its author posted, run as Python 3.

Most King-of-the-Hill answers were posted in Python 2 (``print x``, backticks, ``xrange``,
``raw_input``). A bot whose author says it is Python 2 (the page's language choice,
``py2:FILE``, a challenge entry's ``"language": "python2"``) is converted here with fissix,
the maintained fork of lib2to3, and its standard fixers — all but ``input``: a posted
answer's ``input()`` reads a line, as its author meant (the bot's runtime gives it one), and
``eval(input())`` would run the line as code. Python 2 semantics that syntax does not carry
(``/`` between integers) are restored in the syntax tree by ``engine.bots.python2_semantics``.

``convert`` returns the converted text and a line map (converted line -> the author's line),
read off fissix's tree (fissix keeps a statement on its line; the few fixers that add an
import add a line). The map goes with the converted text to the bot host, so faults
name the author's lines. Conversions are cached by the source's SHA-256 (a tournament
converts each entry once). The same code runs in CPython and in the page's Pyodide, which
loads fissix from the site (``scripts/build.py`` ships it).

Conversion never runs in the controller, nor in the bot's process: fissix is quadratic on some
texts (8,000 ``u''`` literals in one expression took 17.5 s), so natively each new source is
converted in a process of its own with a CPU, memory and wall-clock limit
(``engine.bots.python2_convert``), and in the page in a conversion Worker the controller
Worker stops at its time limit; the controller only keeps the outcome. A converted bot's host
then needs nothing but the standard library. A text that fissix cannot parse gets a
``BotLoadError`` naming the author's line; one over a limit, a ``BotLoadError`` saying so.
"""

from __future__ import annotations

import ast
import hashlib
import io
import keyword
import sys
import tokenize
from collections import OrderedDict
from collections.abc import Callable

from engine.bots import python2_convert
from engine.bots.code import BotLoadError
from engine.bots.python2_fissix import MAX_SOURCE_BYTES as MAX_SOURCE_BYTES
from engine.bots.python2_fissix import PYTHON2 as PYTHON2
from engine.bots.python2_fissix import PYTHON3 as PYTHON3
from engine.bots.python2_fissix import Conversion as Conversion
from engine.bots.python2_fissix import convert_here as convert_here
from engine.bots.python2_fissix import line_map as line_map

CACHE_SIZE = 128  # conversions kept (a tournament's field, the page's editors)
# ast.parse of code nested deeper than this is not tried in the controller (see nesting_bound;
# Chromium's Worker parsed 155 nested brackets and overflowed at 200).
MAX_PARSE_NESTING = 100

# Names only Python 2 has (as builtins or methods); used to suggest the language.
PYTHON2_BUILTINS = frozenset({"raw_input", "xrange", "unicode", "basestring", "unichr", "long",
                              "execfile", "reduce", "cmp", "file", "intern", "apply"})
PYTHON2_METHODS = frozenset({"has_key", "iteritems", "itervalues", "iterkeys", "xreadlines"})


class NotConverted(BotLoadError):
    """The source is not in the cache and conversions are not run here (the page's controller
    Worker: its conversion Worker converts first, ``store`` keeps the result)."""

    def __init__(self) -> None:
        super().__init__("its Python 2 conversion has not been done yet", None)


# Each conversion's outcome by the source's SHA-256: a Conversion, or the load error it ended
# with (a conversion over its limits is not tried again each game of a tournament).
_cache: OrderedDict[str, Conversion | BotLoadError] = OrderedDict()
_converter: Callable[[str], Conversion] | None = None  # set_converter; None: the platform's


def convert(source: str) -> Conversion:
    """The answer converted to Python 3 (cached by its SHA-256); ``BotLoadError`` with the
    author's line when fissix cannot read it as Python 2, or when the conversion went over its
    limits. Natively it runs in a limited process of its own (``engine.bots.python2_convert``);
    in Pyodide, where this runs in the page's conversion Worker, here."""
    key = _key(source)
    cached = _cache.get(key)
    if cached is not None:
        _cache.move_to_end(key)
        if isinstance(cached, BotLoadError):
            raise BotLoadError(cached.message, cached.line)
        return cached
    size = len(source.encode("utf-8", "surrogatepass"))
    if size > MAX_SOURCE_BYTES:
        raise BotLoadError(f"a Python 2 answer is converted up to {MAX_SOURCE_BYTES // 1024} KiB; this "
                           f"one is {size:,} bytes (convert it to Python 3 and choose Python 3)", None)
    try:
        conversion = (_converter or _platform_converter())(source)
    except NotConverted:
        raise
    except BotLoadError as exc:
        _keep(key, exc)
        raise
    _keep(key, conversion)
    return conversion


def store(source: str, outcome: Conversion | BotLoadError) -> None:
    """Keep a conversion done elsewhere (the page's conversion Worker) for ``convert``."""
    _keep(_key(source), outcome)


def converted(source: str) -> bool:
    """Whether ``convert`` has this source's outcome at hand."""
    return _key(source) in _cache


def set_converter(converter: Callable[[str], Conversion] | None) -> None:
    """Where conversions run: ``cache_only`` (the page's controller Worker), a test's
    stand-in, or None: the platform's (a limited process natively; here in Pyodide)."""
    global _converter
    _converter = converter


def cache_only(source: str) -> Conversion:
    raise NotConverted()


def _platform_converter() -> Callable[[str], Conversion]:
    if sys.platform == "emscripten":
        return convert_here
    return python2_convert.convert_in_child


def _key(source: str) -> str:
    return hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()


def _keep(key: str, outcome: Conversion | BotLoadError) -> None:
    _cache[key] = outcome
    _cache.move_to_end(key)
    if len(_cache) > CACHE_SIZE:
        _cache.popitem(last=False)


def cache_clear() -> None:
    """Forget every conversion (the benchmark's first-use figure)."""
    _cache.clear()


def python2_reason(source: str) -> str | None:
    """Why this code looks like Python 2 (a sentence for the page's suggestion), or None.

    It does when it does not compile as Python 3 but converts from Python 2, or when it uses
    names only Python 2 has (``raw_input``, ``xrange``, ``d.has_key``...) without defining them.
    """
    # The page asks this in its controller Worker, where ast.parse of deeply nested code (a
    # 20,000-term sum) overflows the stack and ends the whole runtime: bounded first.
    try:
        if nesting_bound(source) > MAX_PARSE_NESTING:
            return None
        tree = ast.parse(source)
    except _Untokenizable as exc:
        return _converts(source, exc.message, exc.line)
    except (SyntaxError, ValueError) as exc:
        return _converts(source, getattr(exc, "msg", str(exc)), getattr(exc, "lineno", None))
    except (RecursionError, MemoryError):
        return None
    names = _python2_names(tree)
    if not names:
        return None
    shown = ", ".join(names[:3])
    return f"it uses Python 2's {shown}"


_NOT_NESTING = frozenset({",", ";", ":", ")", "]", "}"})  # an opening bracket may nest (f()()())


class _Untokenizable(Exception):
    """The text is not Python 3 even token by token (a backtick, an unclosed bracket)."""

    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.message, self.line = message, line


def nesting_bound(source: str) -> int:
    """An upper bound on how deep Python's parser and syntax tree may nest for this code,
    from its tokens (the tokenizer does not recurse): per statement, its indentation level,
    its deepest bracket, and every operator and keyword in it, counted whether or not they
    nest. ``_Untokenizable`` when the text is not made of Python 3 tokens."""
    worst = indent = brackets = deepest = count = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            kind, text = token.type, token.string
            if kind == tokenize.ERRORTOKEN and text.strip():
                raise _Untokenizable(f"unexpected {text!r}", token.start[0])
            if kind == tokenize.INDENT:
                indent += 1
            elif kind == tokenize.DEDENT:
                indent -= 1
            elif kind == tokenize.NEWLINE:
                worst = max(worst, indent + deepest + count)
                brackets = deepest = count = 0
            elif kind == tokenize.OP:
                if text in "([{":
                    brackets += 1
                    deepest = max(deepest, brackets)
                elif text in ")]}":
                    brackets -= 1
                if text not in _NOT_NESTING:
                    count += 1
            elif kind == tokenize.NAME and keyword.iskeyword(text):
                count += 1
    except (tokenize.TokenError, SyntaxError) as exc:
        line = exc.args[1][0] if len(exc.args) > 1 and isinstance(exc.args[1], tuple) else None
        raise _Untokenizable(str(exc.args[0]) if exc.args else type(exc).__name__, line) from None
    return max(worst, indent + deepest + count)


def _converts(source: str, error: str, line: int | None) -> str | None:
    """The suggestion for code that is not Python 3, if it converts from Python 2."""
    try:
        conversion = convert(source)
        if nesting_bound(conversion.converted) > MAX_PARSE_NESTING:
            return None
        ast.parse(conversion.converted)
    except NotConverted:
        raise  # the page converts it in its conversion Worker and asks again
    except (_Untokenizable, BotLoadError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    where = f" at line {line}" if line else ""
    return f"it is not valid Python 3 ({error}{where}) but converts from Python 2"


def _python2_names(tree: ast.AST) -> list[str]:
    defined = set()
    used: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, ast.alias):
            defined.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Store):
                defined.add(node.id)
            elif node.id in PYTHON2_BUILTINS and node.id not in used:
                used.append(node.id)
        elif isinstance(node, ast.Attribute) and node.attr in PYTHON2_METHODS:
            name = f".{node.attr}()"
            if name not in used:
                used.append(name)
        elif isinstance(node, ast.arg):
            defined.add(node.arg)
    return [name for name in used if name not in defined]
