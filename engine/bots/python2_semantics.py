"""Python 2 semantics that syntax alone does not carry, for code converted from Python 2.

fissix (``engine.bots.python2``) turns a Python 2 answer's syntax into Python 3, but
``a / b`` means something else in each: Python 2 floors when both operands are integers
(``len(board)/2`` is an ``int``), Python 3 always returns a float, which ``range`` and
``random.randint`` then refuse (Pyodide's 3.14 raises ``TypeError``; CPython 3.11 only
warns on ``randint``). So the converted code's syntax tree is rewritten: every ``/`` and
``/=`` calls one helper that floors between integers and divides truly otherwise, as
Python 2 did — unless the answer asked for ``from __future__ import division``.

The tree also gets the author's line numbers (the converted text's lines mapped back through
the conversion's line map), so a traceback or a step-budget stop names the line as posted.

Standard library only: this runs in the bot host (the sandbox, a bot Worker), which does
not need fissix; the controller converts and sends the converted text and its line map.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Sequence
from typing import Any

# The helpers' names in the bot's builtins. Not identifiers: the bot's own code cannot name,
# shadow or rebind them (the parser never produces such a name; only this rewrite does).
DIVIDE = "python2 divide"
DIVIDE_IN_PLACE = "python2 divide in place"
DIVIDE_ITEM = "python2 divide item"
DIVIDE_ATTRIBUTE = "python2 divide attribute"


def divide(a: Any, b: Any) -> Any:
    """``a / b`` as Python 2 computed it: floor division between integers (``bool`` too)."""
    if isinstance(a, int) and isinstance(b, int):
        return a // b
    return a / b


def divide_in_place(a: Any, b: Any) -> Any:
    """``a /= b`` as Python 2 computed it (in place where the left operand supports it)."""
    if isinstance(a, int) and isinstance(b, int):
        return a // b
    return operator.itruediv(a, b)


def divide_item(container: Any, key: Any, b: Any) -> None:
    """``container[key] /= b``, the container and the key evaluated once."""
    container[key] = divide_in_place(container[key], b)


def divide_attribute(target: Any, name: str, b: Any) -> None:
    """``target.name /= b``, the target evaluated once."""
    setattr(target, name, divide_in_place(getattr(target, name), b))


HELPERS = {DIVIDE: divide, DIVIDE_IN_PLACE: divide_in_place, DIVIDE_ITEM: divide_item,
           DIVIDE_ATTRIBUTE: divide_attribute}


class _Python2Division(ast.NodeTransformer):
    """``a / b`` -> ``divide(a, b)``; ``x /= b`` -> ``x = divide_in_place(x, b)`` (and the
    item and attribute forms, each target evaluated once)."""

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if not isinstance(node.op, ast.Div):
            return node
        return ast.copy_location(_call(DIVIDE, node.left, node.right), node)

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        self.generic_visit(node)
        if not isinstance(node.op, ast.Div):
            return node
        target = node.target
        if isinstance(target, ast.Name):
            load = ast.copy_location(ast.Name(target.id, ast.Load()), target)
            new: ast.stmt = ast.Assign([target], _call(DIVIDE_IN_PLACE, load, node.value))
        elif isinstance(target, ast.Subscript) and not isinstance(target.slice, ast.Slice):
            new = ast.Expr(_call(DIVIDE_ITEM, target.value, target.slice, node.value))
        elif isinstance(target, ast.Attribute):
            new = ast.Expr(_call(DIVIDE_ATTRIBUTE, target.value, ast.Constant(target.attr), node.value))
        else:  # a slice target (x[1:3] /= 2): rare, left as Python 3 true division
            return node
        return ast.copy_location(new, node)


def _call(helper: str, *args: ast.expr) -> ast.Call:
    return ast.Call(ast.Name(helper, ast.Load()), list(args), [])


def python2_tree(converted: str, lines: Sequence[int], true_division: bool = False,
                 filename: str = "<bot>") -> ast.Module:
    """The syntax tree of converted code, with Python 2 division (unless the answer imported
    ``division`` from ``__future__``) and the author's line numbers: converted line ``n`` is
    the author's line ``lines[n - 1]``. Raises SyntaxError like ``ast.parse``."""
    tree = ast.parse(converted, filename)
    if not true_division:
        tree = _Python2Division().visit(tree)
    ast.fix_missing_locations(tree)
    _author_lines(tree, lines)
    return tree


def author_line(lines: Sequence[int], line: int | None) -> int | None:
    """The author's line of a converted line (None stays None; past the end: the last)."""
    if line is None or not lines:
        return line
    return lines[min(max(line, 1), len(lines)) - 1]


def _author_lines(tree: ast.AST, lines: Sequence[int]) -> None:
    for node in ast.walk(tree):
        if not hasattr(node, "lineno"):
            continue
        start, end = node.lineno, getattr(node, "end_lineno", None)
        node.lineno = author_line(lines, start)
        if end is not None:
            node.end_lineno = author_line(lines, end)
            # Two converted lines may map to one line of the author's: keep the range valid.
            if (node.end_lineno == node.lineno and start != end
                    and node.end_col_offset is not None and node.end_col_offset < node.col_offset):
                node.end_col_offset = node.col_offset
