"""Python 2 to Python 3 with fissix, in this process and unlimited: the conversion itself
(``convert_here``: the converted text and its line map) and its result (``Conversion``).

Only a conversion process (``engine.bots.python2_convert``) or the page's conversion Worker
runs it, never the controller (fissix is quadratic on some texts); ``engine.bots.python2``
is the front everyone else calls (its cache, where conversions run, the language hint).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from engine.bots.code import BotLoadError

PYTHON2, PYTHON3 = "python2", "python3"
EXCLUDED_FIXERS = ("fissix.fixes.fix_input",)  # input() reads a line, as the author meant
# fissix's fixers and printing recurse a few frames per level of its tree: deeper code is
# refused (Pyodide's stack overflowed past 250 levels under Node, CPython's recursion limit
# too; Chromium's Worker converted 160). Python 3 itself refuses 200 nested brackets; a bot's
# tree is 10-30 levels deep.
MAX_TREE_DEPTH = 120
# fissix converts about 2,000 lines a second natively (fewer in the page), and some texts in
# quadratic time (the conversion's time limit, engine.bots.python2_convert, bounds those): a
# posted answer is a few KiB; longer texts are refused before any conversion starts.
MAX_SOURCE_BYTES = 64 * 1024


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


_tool: Any = None


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


