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
import difflib
import hashlib
import io
import keyword
import sys
import tokenize
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.bots.code import BotLoadError

PYTHON2, PYTHON3 = "python2", "python3"
EXCLUDED_FIXERS = ("fissix.fixes.fix_input",)  # input() reads a line, as the author meant
CACHE_SIZE = 128  # conversions kept (a tournament's field, the page's editors)
# fissix's fixers and printing recurse a few frames per level of its tree: deeper code is
# refused (Pyodide's stack overflowed past 250 levels under Node, CPython's recursion limit
# too; Chromium's Worker converted 160). Python 3 itself refuses 200 nested brackets; a bot's
# tree is 10-30 levels deep.
MAX_TREE_DEPTH = 120
# fissix converts about 2,000 lines a second natively (fewer in the page), and some texts in
# quadratic time (the conversion's time limit, engine.bots.python2_convert, bounds those): a
# posted answer is a few KiB; longer texts are refused before any conversion starts.
MAX_SOURCE_BYTES = 64 * 1024
# ast.parse of code nested deeper than this is not tried in the controller (see nesting_bound;
# Chromium's Worker parsed 155 nested brackets and overflowed at 200).
MAX_PARSE_NESTING = 100

# Names only Python 2 has (as builtins or methods); used to suggest the language.
PYTHON2_BUILTINS = frozenset({"raw_input", "xrange", "unicode", "basestring", "unichr", "long",
                              "execfile", "reduce", "cmp", "file", "intern", "apply"})
PYTHON2_METHODS = frozenset({"has_key", "iteritems", "itervalues", "iterkeys", "xreadlines"})


@dataclass(frozen=True)
class Conversion:
    """An answer converted from Python 2: the Python 3 text and where each line came from."""

    source: str  # as the author posted it
    converted: str  # Python 3, by fissix
    lines: tuple[int, ...]  # converted line n came from the author's line lines[n - 1]
    true_division: bool  # the answer has ``from __future__ import division``

    def to_json(self) -> dict[str, Any]:
        """What the controller sends a bot host with the converted code (its load request)."""
        return {"code": self.converted, "language": PYTHON2, "lines": list(self.lines),
                "true_division": self.true_division}

    def diff(self) -> str:
        """A unified diff from the author's code to the converted code."""
        return "".join(difflib.unified_diff(
            self.source.splitlines(keepends=True), self.converted.splitlines(keepends=True),
            "posted (Python 2)", "converted (Python 3)", n=1))


class NotConverted(BotLoadError):
    """The source is not in the cache and conversions are not run here (the page's controller
    Worker: its conversion Worker converts first, ``store`` keeps the result)."""

    def __init__(self) -> None:
        super().__init__("its Python 2 conversion has not been done yet", None)


# Each conversion's outcome by the source's SHA-256: a Conversion, or the load error it ended
# with (a conversion over its limits is not tried again each game of a tournament).
_cache: OrderedDict[str, Conversion | BotLoadError] = OrderedDict()
_tool: Any = None
_converter: Callable[[str], Conversion] | None = None  # set_converter; None: the platform's


def _refactoring_tool() -> Any:
    """fissix's refactoring tool with the standard fixers but ``input`` (made once: its
    grammar and fixers take most of a conversion's first-use cost)."""
    global _tool
    if _tool is None:
        try:
            from fissix.refactor import RefactoringTool, get_fixers_from_package
        except ImportError:
            raise BotLoadError("Python 2 answers need fissix, which is not installed: "
                               "pip install 'koth-arena[python2]'") from None

        fixers = [name for name in get_fixers_from_package("fissix.fixes") if name not in EXCLUDED_FIXERS]
        _tool = RefactoringTool(fixers)
    return _tool


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
    from engine.bots.python2_convert import convert_in_child
    return convert_in_child


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


def convert_here(source: str) -> Conversion:
    """The answer converted in this process, unlimited: what the conversion process (or the
    page's conversion Worker) runs, never the controller."""
    from fissix import pygram
    from fissix.pgen2.parse import ParseError
    from fissix.pgen2.tokenize import TokenError
    from fissix.refactor import _detect_future_features

    size = len(source.encode("utf-8", "surrogatepass"))
    if size > MAX_SOURCE_BYTES:
        raise BotLoadError(f"a Python 2 answer is converted up to {MAX_SOURCE_BYTES // 1024} KiB; this "
                           f"one is {size:,} bytes (convert it to Python 3 and choose Python 3)", None)
    text = source.replace("\r\n", "\n").replace("\r", "\n")
    added_newline = not text.endswith("\n")
    if added_newline:
        text += "\n"  # fissix's parser needs the last line ended
    tool = _refactoring_tool()
    features = _detect_future_features(text)
    # What RefactoringTool.refactor_string does, with the tree's depth checked between parsing
    # (iterative) and the fixers and printing (recursive: a deep tree would overflow the
    # stack, which in Pyodide ends the controller's whole runtime, not just this conversion).
    if "print_function" in features:
        tool.driver.grammar = pygram.python_grammar_no_print_statement
    try:
        try:
            tree = tool.driver.parse_string(text)
        except ParseError:
            if "print_function" in features:
                raise
            # print(..., end="") already in Python 3 style: read as 2to3's --print-function does
            tool.driver.grammar = pygram.python_grammar_no_print_statement
            try:
                tree = tool.driver.parse_string(text)
            except ParseError:
                tool.driver.grammar = tool.grammar
                tree = tool.driver.parse_string(text)  # the Python 2 grammar's error, raised
            features = features | {"print_function"}
        depth = _tree_depth(tree)
        if depth > MAX_TREE_DEPTH:
            raise BotLoadError(f"the code nests {depth:,} levels deep; at most {MAX_TREE_DEPTH} "
                               "can be converted from Python 2", None)
        tree.future_features = features
        tool.refactor_tree(tree, "<bot>")
        converted = str(tree)
    except ParseError as exc:
        line = exc.context[1][0] if exc.context else None
        raise BotLoadError(f"SyntaxError: not valid Python 2 either (line {line}): "
                           f"unexpected {exc.value!r}", line) from None
    except (TokenError, IndentationError) as exc:
        line = _error_line(exc)
        if line is not None:  # "EOF in multi-line statement" names the line past the end
            line = min(line, text.count("\n"))
        where = f" (line {line})" if line else ""
        raise BotLoadError(f"SyntaxError: not valid Python 2 either{where}: {exc.args[0]}", line) from None
    except (RecursionError, MemoryError, ValueError) as exc:
        raise BotLoadError(f"the Python 2 conversion failed: {type(exc).__name__}: {exc}", None) from None
    finally:
        tool.driver.grammar = tool.grammar
    if added_newline and converted.endswith("\n"):
        converted = converted[:-1]
    return Conversion(source, converted, line_map(tree, converted, len(text.splitlines())),
                      "division" in features)


def _tree_depth(tree: Any) -> int:
    """How deep fissix's tree nests, found without recursion."""
    deepest = 0
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in getattr(node, "children", ()))
    return deepest


def _error_line(exc: BaseException) -> int | None:
    args = getattr(exc, "args", ())
    if len(args) > 1 and isinstance(args[1], tuple) and args[1] and isinstance(args[1][0], int):
        return args[1][0]
    return getattr(exc, "lineno", None)


def line_map(tree: Any, converted: str, original_lines: int) -> tuple[int, ...]:
    """For each line of the converted text, the author's line it came from, read off fissix's
    tree in one pass: every leaf the parser made keeps its line, fixers' clones keep theirs,
    and a line made only of new leaves (an added import) takes the next line's (or the
    previous'). Never decreasing, within the author's lines."""
    known: dict[int, int] = {}
    out_line = 1
    for leaf in _leaves(tree):
        before, inside = leaf.prefix.count("\n"), leaf.value.count("\n")
        if leaf.lineno > 0:
            for offset in range(before + 1):  # the prefix's lines (comments, blanks), then the leaf
                known.setdefault(out_line + offset, leaf.lineno - before + offset)
            for offset in range(1, inside + 1):  # a string over several lines
                known.setdefault(out_line + before + offset, leaf.lineno + offset)
        out_line += before + inside
    count = len(converted.splitlines())
    lines = [0] * count
    following = 0
    for index in range(count - 1, -1, -1):  # unknown: the next known line's
        following = known.get(index + 1, following)
        lines[index] = following
    last = 1
    for index in range(count):  # or the previous one's; never decreasing
        last = max(last, lines[index] or last)
        lines[index] = min(max(last, 1), max(original_lines, 1))
    return tuple(lines)


def _leaves(tree: Any):
    """fissix's leaves in order, without recursion."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if node.type < 256:  # a token: a leaf (grammar symbols, the nodes, are numbered from 256)
            yield node
        else:
            stack.extend(reversed(node.children))


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
