"""Fair time on every machine: a bot's move is limited by the steps its Python code executes.

Wall time depends on the machine; tracing hooks (``sys.settrace``, ``sys.monitoring``) count
differently from one Python version to the next. This module rewrites the bot's syntax tree
instead, so the count depends only on the bot's source and the path its code takes: the same
in CPython 3.11 natively and in Pyodide's 3.14 in the page.

What counts as one step:

- every executed statement, in every block (module, class and function bodies, loop bodies,
  ``if``/``else``, ``try``/``except``/``finally``, ``with``, ``match`` cases); an ``elif``
  counts as a statement of its ``else``; a docstring and ``from __future__`` imports do not;
- every iteration of each ``for`` clause of a comprehension or generator expression;
- every call of a lambda (and of a function whose body is only a docstring).

Annotations are not counted (3.14 evaluates them lazily, 3.11 at once).

Every pass of a ``for``/``while`` body and every entry into a function body executes a
statement, so each counts at least one step; that first statement's step is also where the
budget is checked (and for comprehension iterations and lambda calls), so a bot is stopped
within a few straight-line statements of its budget, however it loops or recurses.

Only the bot's own code is counted: work inside built-in functions and the engine (``sorted``,
``view.moves()``) is free, which is why the runner keeps its wall-clock limit as a backstop.

Use::

    budget = StepBudget(10_000)
    code = instrument(source, budget)          # a code object, the bot's own line numbers
    namespace = {"__name__": "__main__"}
    budget.run(exec, code, namespace)          # the module body: one budgeted turn
    answer = budget.run(namespace["move"], view)   # each move: one budgeted turn

``StepBudget.run`` starts a turn, calls, and raises ``BudgetExceeded`` when the turn went over,
even if the bot swallowed the exception (a bare ``except:`` or ``except BaseException``).
A script bot run afresh every move is ``budget.run(exec, code, fresh_namespace)`` per move; a
long-running script calls ``budget.start_turn()`` when its turn's input arrives and reads
``budget.over`` when it answers.

How the counter is kept out of the bot's reach: the inserted code refers to it through
*constants* of the compiled code object (put in place after compiling), not through a name.
A name the parser cannot produce (``compile`` accepts ``ast.Name("koth step")``) would still
live in ``globals()``, where a bot could rebind it; a constant involves no global or builtin,
and works alike in module, class, function and comprehension scopes. Calling a constant (the
counter's ``__next__``) also costs half what a method call does. The count lives in an
``itertools.count``, a C object that can only move forward: a bot can make its count larger,
never smaller. The turn's threshold is an attribute of a small gate object, which a bot could
reach through ``move.__code__.co_consts`` and raise; ``run`` compares it with the value it
set and counts a changed threshold as over budget, and the verdict always comes from the
counter, so tampering cannot win a move. Code a bot makes from text at run time counts
when its builtins' ``exec``, ``eval`` and ``compile`` are ``counting_builtins(budget)``.
Residual risk, stated: a hand-built ``types.CodeType`` (or a function's ``__code__`` swapped
for one) is not counted; the wall-clock limit still bounds it.

Cost (``scripts/bench_budget [--pyodide]``): the greedy examples take x2.1 (Atomas) and
x1.4 (Flit) their plain time in CPython 3.11, about x2.4-3.4 and x1.9-2.5 in Pyodide 3.14.
"""

from __future__ import annotations

import ast
import importlib.util
import itertools
import secrets
import sys
import warnings
from collections.abc import Callable
from types import CodeType
from typing import Any, TypeVar

T = TypeVar("T")


class BudgetExceeded(BaseException):
    """A turn executed more steps than its budget allows.

    A ``BaseException`` so that a bot's ``except Exception`` does not swallow it.
    """

    def __init__(self, limit: int, used: int | None = None, tampered: bool = False) -> None:
        if tampered:
            message = f"the bot changed its step budget (limit {limit:,} steps)"
        elif used is None:
            message = f"the move went over its budget of {limit:,} steps"
        else:
            message = f"the move took {used:,} steps, over its budget of {limit:,}"
        super().__init__(message)
        self.limit = limit
        self.used = used
        self.tampered = tampered


class _Gate:
    """What the bot's code sees of its budget: the turn's threshold, and the way to stop."""

    __slots__ = ("threshold", "limit")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.threshold = limit  # the first count value that is over budget this turn

    def stop(self) -> None:
        """Called by the bot's code when a step finds the turn over budget."""
        raise BudgetExceeded(self.limit)


class StepBudget:
    """The step counter of one bot and its per-turn limit.

    The bot's code reaches only the counter (which it can only advance) and the gate (whose
    threshold it could change: detected); this object and its records stay out of its reach.
    """

    def __init__(self, limit: int) -> None:
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
            raise ValueError(f"a step budget is a positive whole number, not {limit!r}")
        self.limit = limit
        self.counter = itertools.count()
        self.gate = _Gate(limit)
        self._turn_start = 0

    @property
    def count(self) -> int:
        """Steps counted since this budget was made (all turns)."""
        # repr is "count(N)": it reads the C counter without moving it, in every version.
        return int(repr(self.counter)[6:-1])

    def start_turn(self) -> None:
        self._turn_start = self.count
        self.gate.threshold = self._turn_start + self.limit
        self.gate.limit = self.limit

    @property
    def steps_used(self) -> int:
        """Steps taken since the current turn started."""
        return self.count - self._turn_start

    @property
    def tampered(self) -> bool:
        threshold = self.gate.threshold
        return type(threshold) is not int or threshold != self._turn_start + self.limit

    @property
    def over(self) -> bool:
        """The current turn went over its budget (or its threshold was changed)."""
        return self.steps_used > self.limit or self.tampered

    def run(self, function: Callable[..., T], *args: Any) -> T:
        """One budgeted turn: ``function(*args)``; BudgetExceeded if the turn went over.

        The check after the call catches a bot that caught BudgetExceeded itself; a turn over
        budget is over budget whatever the bot raised after. The exception keeps the
        traceback of where the bot was stopped: its line in the bot.
        """
        self.start_turn()
        try:
            value = function(*args)
        except KeyboardInterrupt:
            raise
        except BaseException as stopped:
            if not (isinstance(stopped, BudgetExceeded) or self.over):
                raise
            over = BudgetExceeded(self.limit, self.steps_used, self.tampered)
            raise over.with_traceback(stopped.__traceback__) from None
        if self.over:
            raise BudgetExceeded(self.limit, self.steps_used, self.tampered)
        return value


def instrument(source: str | ast.AST, budget: StepBudget, filename: str = "<bot>",
               mode: str = "exec") -> CodeType:
    """Compile bot source (or a tree) so that it counts its steps on ``budget``.

    ``mode`` is ``compile``'s: "exec", "eval" (one step per evaluation, plus its
    comprehensions and lambdas) or "single". Line numbers are the source's own. Raises
    SyntaxError (and whatever ``compile`` raises for a pathological tree) like ``compile``.
    """
    tree = source if isinstance(source, ast.AST) else ast.parse(source, filename, mode)
    names = _Constants.unused_in(tree)
    counting = _CountSteps(names)
    tree = counting.visit(tree)
    if isinstance(tree, ast.Expression):
        tree.body = ast.copy_location(ast.IfExp(counting._within(), tree.body, counting._stop()),
                                      tree.body)
    ast.fix_missing_locations(tree)
    with warnings.catch_warnings():
        # "'str' object is not callable": said of the placeholder for STEP, replaced below
        warnings.filterwarnings("ignore", "'str' object is not callable", SyntaxWarning)
        code = compile(tree, filename, mode, dont_inherit=True)
    return _bind(code, {names.step: budget.counter.__next__, names.gate: budget.gate})


def counting_builtins(budget: StepBudget) -> dict[str, Callable[..., Any]]:
    """``exec``, ``eval`` and ``compile`` for a bot's builtins: code it makes from text counts.

    Without them ``exec("while True: pass")`` would run uncounted. Code objects a bot did not
    get from these (hand-built ones) still run as they are: the residual risk above.
    """
    real_compile, real_exec, real_eval = compile, exec, eval

    def compile_(source: Any, filename: str = "<string>", mode: str = "exec", flags: int = 0,
                 dont_inherit: bool = False, optimize: int = -1, **options: Any) -> Any:
        if flags & ast.PyCF_ONLY_AST:  # a tree is not run: nothing to count
            return real_compile(source, filename, mode, flags, dont_inherit, optimize, **options)
        if isinstance(source, (bytes, bytearray, memoryview)):
            source = importlib.util.decode_source(bytes(source))
        return instrument(source, budget, str(filename), mode)

    def _scopes(global_scope: Any, local_scope: Any) -> tuple[Any, Any]:
        if global_scope is None:  # the caller's, as the real exec and eval would use
            caller = sys._getframe(2)
            global_scope = caller.f_globals
            local_scope = caller.f_locals if local_scope is None else local_scope
        return global_scope, local_scope

    def exec_(source: Any, global_scope: Any = None, local_scope: Any = None, /, **options: Any) -> None:
        global_scope, local_scope = _scopes(global_scope, local_scope)
        if not isinstance(source, CodeType):
            source = compile_(source, "<string>", "exec")
        real_exec(source, global_scope, local_scope, **options)

    def eval_(source: Any, global_scope: Any = None, local_scope: Any = None, /) -> Any:
        global_scope, local_scope = _scopes(global_scope, local_scope)
        if not isinstance(source, CodeType):
            if isinstance(source, (bytes, bytearray, memoryview)):
                source = importlib.util.decode_source(bytes(source))
            if isinstance(source, str):
                source = source.lstrip(" \t")  # as eval does
            source = compile_(source, "<string>", "eval")
        return real_eval(source, global_scope, local_scope)

    return {"compile": compile_, "exec": exec_, "eval": eval_}


class _Constants:
    """Placeholder string constants standing for the budget's objects until after compiling.

    They are random, and checked to be absent from the bot's source, so no constant of the
    bot's own is ever replaced.
    """

    def __init__(self, token: str) -> None:
        self.step = f"koth step {token}"
        self.gate = f"koth gate {token}"

    @classmethod
    def unused_in(cls, tree: ast.AST) -> _Constants:
        used = {node.value for node in ast.walk(tree)
                if isinstance(node, ast.Constant) and isinstance(node.value, str)}
        while True:
            names = cls(secrets.token_hex(16))
            if not used & {names.step, names.gate}:
                return names


class _CountSteps(ast.NodeTransformer):
    """Inserts the counting code; see the module docstring for what one step is."""

    _BLOCKS = ("body", "orelse", "finalbody")

    def __init__(self, names: _Constants) -> None:
        self.names = names

    # -- the inserted expressions --------------------------------------------------------
    # No subscript of a placeholder constant: the compiler would fold it away.
    def _step(self) -> ast.expr:
        """``STEP()``: count one step (STEP is the counter's ``__next__``)."""
        return ast.Call(ast.Constant(self.names.step), [], [])

    def _within(self) -> ast.expr:
        """``STEP() < GATE.threshold``: count one step; true while within the budget."""
        threshold = ast.Attribute(ast.Constant(self.names.gate), "threshold", ast.Load())
        return ast.Compare(self._step(), [ast.Lt()], [threshold])

    def _stop(self) -> ast.expr:
        """``GATE.stop()``: raises BudgetExceeded."""
        return ast.Call(ast.Attribute(ast.Constant(self.names.gate), "stop", ast.Load()), [], [])

    def _checked(self) -> ast.expr:
        """``STEP() < GATE.threshold or GATE.stop()``: count one step, stop the bot when over."""
        return ast.BoolOp(ast.Or(), [self._within(), self._stop()])

    def _statement(self, expression: ast.expr, where: ast.AST) -> ast.stmt:
        return ast.copy_location(ast.Expr(expression), where)

    # -- blocks ----------------------------------------------------------------------------
    def _count_block(self, owner: ast.AST, body: list[ast.stmt], entry: bool) -> list[ast.stmt]:
        """Each statement preceded by a step; with ``entry``, the first one is checked."""
        head = 0
        if isinstance(owner, _DOCUMENTED) and _is_docstring(body[0]):
            head = 1  # stays first, or it is no longer the docstring
        if isinstance(owner, ast.Module):
            while head < len(body) and _is_future_import(body[head]):
                head += 1  # must stay first
        counted: list[ast.stmt] = list(body[:head])
        if entry and head == len(body):  # a function that is only a docstring
            counted.append(self._statement(self._checked(), body[-1]))
        for number, statement in enumerate(body[head:]):
            step = self._checked() if entry and number == 0 else self._step()
            counted.append(self._statement(step, statement))
            counted.append(statement)
        return counted

    def generic_visit(self, node: ast.AST) -> ast.AST:
        # Annotations are left uncounted: Python 3.14 evaluates them only when asked for
        # (PEP 649), 3.11 at once, so a lambda or comprehension in one would count differently.
        annotation_field = "returns" if isinstance(node, _FUNCTIONS) else (
            "annotation" if isinstance(node, (ast.AnnAssign, ast.arg)) else None)
        annotation = getattr(node, annotation_field) if annotation_field else None
        if annotation_field:
            setattr(node, annotation_field, None)
        super().generic_visit(node)
        if annotation_field:
            setattr(node, annotation_field, annotation)
        for field in self._BLOCKS:
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                entry = field == "body" and isinstance(node, _ENTERED)
                setattr(node, field, self._count_block(node, block, entry))
        return node

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        """``lambda: body`` becomes ``lambda: body if <within budget> else GATE.stop()``."""
        self.generic_visit(node)
        node.body = ast.copy_location(ast.IfExp(self._within(), node.body, self._stop()), node.body)
        return node

    def visit_comprehension(self, node: ast.comprehension) -> ast.AST:
        """Each ``for`` clause gains a first ``if`` that counts (and checks) its iteration."""
        self.generic_visit(node)
        node.ifs = [ast.copy_location(self._checked(), node.iter), *node.ifs]
        return node


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_DOCUMENTED = (ast.Module, ast.ClassDef, *_FUNCTIONS)
_ENTERED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.For, ast.AsyncFor, ast.While)


def _is_docstring(statement: ast.stmt) -> bool:
    return (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)
            and isinstance(statement.value.value, str))


def _is_future_import(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.ImportFrom) and statement.module == "__future__"


def _bind(code: CodeType, objects: dict[str, object]) -> CodeType:
    """Replace the placeholder constants by the budget's objects, in nested code too."""
    constants = tuple(
        _bind(value, objects) if isinstance(value, CodeType)
        else objects.get(value, value) if isinstance(value, str) else value
        for value in code.co_consts
    )
    return code.replace(co_consts=constants)
