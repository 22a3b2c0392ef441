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
never smaller.

What holds against a bot that attacks its budget (issue 17; docs/threat-model.md):

- The verdict (the limit and the turn's start) lives only in the cells of closures that
  ``_turns`` makes with the budget, before any of the bot's code runs, from values captured
  then: patching builtins, ``StepBudget``, ``BudgetExceeded`` or this module afterwards
  changes nothing in it (``BudgetExceeded`` is even made without asking its class). The
  engine's runners keep those closures when they are made, and the bot host makes one budget
  per bot, at load. (A bot that reaches the host's objects reaches these closures too, and
  ``__closure__`` raises no audit event: their cells are its to write. Hence the seal below.)
- The bot reaches what its code's constants hold: STEP (the counter, forward only), the gate
  (``GATE.threshold``, a ``SimpleNamespace``: a type no bot can patch) and STOP (a closure
  of its own). A changed threshold is tampering: the verdict compares it with its own value
  (``int.__eq__``, which a bot's object cannot answer for) and the turn is over budget, "the
  bot changed its step budget". The count decides the rest, whatever the bot raised.
- What would reach the verdict's cells is refused in the bot's process by
  ``engine.bots.budget_guard``, an audit hook the bot host adds at load: frames (whose
  ``f_locals`` write through to cells in Python 3.13+), ``gc``'s object walks, tracing,
  hand-built code, ``ctypes``, a process's memory. ``run``'s own frame has no free variable
  and leaves no cycle, for a frame the collector kept (``DEBUG_SAVEALL``) is not refused.

What does not hold in one interpreter, and how it is caught instead: a bot owns its process,
so it can rewrite the host's own code paths around the verdict (``FunctionRunner.turn``,
``BotHost.handle``, reached through ``sys.modules``: Python has no audit event for setting
a class or module attribute), write to the cells of the closures it reaches that way, or
write its own replies to the controller (``os.write`` on the reply pipe; in the page, the
reply function it finds). So the host's word is not trusted: each reply carries a verdict
sealed with a key the controller gave at load, kept only in an audit hook, over the
request's nonce and the count (``engine.bots.budget_seal``); the controller charges every
step since the last seal it accepted and faults an answer with no valid seal ("the bot
tampered with its step budget"). What remains: such a bot can seal early and think on,
shifting that work to its next move (never more than limit × moves over a game, but its
last move's extra work is never charged); code it compiles with the real ``compile``
(``import builtins``) or imports from a file it wrote runs uncounted, as does work in C
functions: bounded by the wall-clock limit only, as a bot without a budget is. Code a bot
makes from text through its own builtins' ``exec``, ``eval`` and ``compile``
(``counting_builtins(budget)``) counts; a thread's steps are counted and, for a function
bot, charged to its next sealed move.

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
from types import CodeType, SimpleNamespace
from typing import Any, TypeVar

T = TypeVar("T")


class BudgetExceeded(BaseException):
    """A turn executed more steps than its budget allows.

    A ``BaseException`` so that a bot's ``except Exception`` does not swallow it.
    """

    def __init__(self, limit: int, used: int | None = None, tampered: bool = False) -> None:
        super().__init__(_message(limit, used, tampered))
        self.limit = limit
        self.used = used
        self.tampered = tampered


def _message(limit: int, used: int | None, tampered: bool) -> str:
    if tampered:
        return f"the bot changed its step budget (limit {limit:,} steps)"
    if used is None:
        return f"the move went over its budget of {limit:,} steps"
    return f"the move took {used:,} steps, over its budget of {limit:,}"


def _exceeded_maker(*, _new: Any = BaseException.__new__, _init: Any = BaseException.__init__,
                    _set: Any = object.__setattr__, _class: type = BudgetExceeded,
                    _message: Callable[[int, int | None, bool], str] = _message,
                    ) -> Callable[[int, int | None, bool], BudgetExceeded]:
    """A BudgetExceeded made without asking its class: a bot may have patched the class's
    ``__new__`` (to return None: no exception), ``__init__`` or ``__str__``; its message
    text is the bot's to spoil, the exception's class and raising are not."""

    def make(limit: int, used: int | None = None, tampered: bool = False) -> BudgetExceeded:
        exceeded = _new(_class)
        _init(exceeded, _message(limit, used, tampered))
        _set(exceeded, "limit", limit)
        _set(exceeded, "used", used)
        _set(exceeded, "tampered", tampered)
        return exceeded

    return make


_COUNT_TYPE = type(itertools.count())


def _new_gate(threshold: int) -> SimpleNamespace:
    """What the bot's code sees of its budget: ``threshold``, the first count value over
    budget this turn. A ``SimpleNamespace``: a built-in type, whose attribute lookup and
    class no bot can change (a class of ours could be given a property)."""
    return SimpleNamespace(threshold=threshold)


def _turns(limit: int, counter: Any, gate: SimpleNamespace, *, _int: type = int,
           _isinstance: Any = isinstance, _count_type: type = _COUNT_TYPE,
           _class: type = BudgetExceeded, _maker: Any = _exceeded_maker,
           _interrupt: type = KeyboardInterrupt, _base: type = BaseException,
           _with_traceback: Any = BaseException.with_traceback, _getattr: Any = getattr,
           _vars: Any = vars) -> dict[str, Callable[..., Any]]:
    """The budget's verdict, kept where the bot's code cannot reach it.

    The turn's start and the limit live in these closures' cells only. What they call is
    bound into their cells (or ``run``'s defaults) when the budget is made, before any of
    the bot's code runs, so patching builtins, classes or this module afterwards changes
    nothing here. Under ``engine.bots.budget_guard`` the bot reaches neither frames nor the
    objects of the process (``gc``), so neither these closures nor their cells; it does
    reach ``counter`` (which only moves forward) and ``gate`` (through its code's
    constants): a changed ``gate`` is tampering, and the verdict comes from ``counter``.
    """
    start = 0
    threshold_of = _vars(gate).get
    _exceeded = _maker()
    read = counter.__repr__  # the C type's own method: "count(N)", read without moving it
    if counter.__class__ is not _count_type:
        raise TypeError("the counter is an itertools.count")

    def count() -> int:
        return _int(read()[6:-1])

    def start_turn() -> None:
        nonlocal start
        start = count()
        gate.threshold = start + limit

    def idle(threshold: int) -> None:
        """Between a long-running script's turns: its steps are not limited."""
        gate.threshold = threshold

    def steps_used() -> int:
        return count() - start

    def tampered() -> bool:
        # int's own __eq__: a bot's object cannot answer for it (NotImplemented is not True)
        return (start + limit).__eq__(threshold_of("threshold")) is not True

    def verdict() -> BudgetExceeded | None:
        """The current turn's fault: over budget (or its threshold changed), or None."""
        used = count() - start
        changed = tampered()
        if used > limit or changed or used < 0:
            return _exceeded(limit, used, changed)
        return None

    def forced() -> BudgetExceeded:
        """The bot raised BudgetExceeded itself, within its budget: over all the same."""
        return _exceeded(limit, count() - start, tampered())

    # run's frame is the one that outlives a turn (in the tracebacks of what it raises): it
    # has no free variable, so a frame of it that a bot found (say in gc.garbage) would give
    # no cell of the verdict to write to (Python 3.13+ writes f_locals through, PEP 667);
    # and it drops what it raises before leaving, so it makes no cycle to find there.
    def run(function: Callable[..., T], *args: Any, _start_turn: Any = start_turn,
            _verdict: Any = verdict, _forced: Any = forced, _interrupt: type = _interrupt,
            _base: type = _base, _class: type = _class, _isinstance: Any = _isinstance,
            _with_traceback: Any = _with_traceback, _getattr: Any = _getattr) -> T:
        _start_turn()
        try:
            value = function(*args)
        except _interrupt:
            raise
        except _base as stopped:
            over = _verdict()
            if over is None:
                if not _isinstance(stopped, _class):
                    raise
                over = _forced()  # raised by the bot itself: still over
            trace = _getattr(stopped, "__traceback__", None)
            try:
                raise _with_traceback(over, trace) from None
            finally:
                del over, trace
        over = _verdict()
        if over is not None:
            try:
                raise over
            finally:
                del over
        return value

    return {"count": count, "start_turn": start_turn, "idle": idle, "steps_used": steps_used,
            "tampered": tampered, "verdict": verdict, "run": run}


def _stopper(limit: int, *, _maker: Any = _exceeded_maker) -> Callable[[], None]:
    """What the bot's code calls when a step finds the turn over budget (``STOP``, one of
    its code's constants). Made apart from ``_turns``: it shares no cell with the verdict,
    so a bot that changes this closure's cell changes only its own error's message."""

    _exceeded = _maker()

    def stop() -> None:
        raise _exceeded(limit)

    return stop


class StepBudget:
    """The step counter of one bot and its per-turn limit.

    The bot's code reaches only the counter (which it can only advance), the gate (whose
    threshold it could change: detected) and ``stop``; the verdict is in ``_turns``. The
    methods here are the closures made with the budget, stored on the instance: patching
    this class later does not change a budget already made. The engine's runners keep the
    closures they need when they are made (``run``, ``verdict``, ``start_turn``, ``idle``).
    """

    def __init__(self, limit: int) -> None:
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
            raise ValueError(f"a step budget is a positive whole number, not {limit!r}")
        self.limit = limit  # for reading: the verdict keeps its own
        self.counter = itertools.count()
        self.step = self.counter.__next__  # STEP: one object, so the bot's code is known by it
        self.gate = _new_gate(limit)
        turns = _turns(limit, self.counter, self.gate)
        self.run: Callable[..., Any] = turns["run"]
        """One budgeted turn: ``run(function, *args)`` is ``function(*args)``, or raises
        BudgetExceeded if the turn went over (even if the bot caught BudgetExceeded itself,
        or raised something else after). The exception keeps the traceback of where the bot
        was stopped: its line in the bot."""
        self.start_turn: Callable[[], None] = turns["start_turn"]
        self.idle: Callable[[int], None] = turns["idle"]
        self.verdict: Callable[[], BudgetExceeded | None] = turns["verdict"]
        self.stop: Callable[[], None] = _stopper(limit)
        self._count, self._steps_used, self._tampered = turns["count"], turns["steps_used"], turns["tampered"]

    @property
    def count(self) -> int:
        """Steps counted since this budget was made (all turns)."""
        return self._count()

    @property
    def steps_used(self) -> int:
        """Steps taken since the current turn started."""
        return self._steps_used()

    @property
    def tampered(self) -> bool:
        return self._tampered()

    @property
    def over(self) -> bool:
        """The current turn went over its budget (or its threshold was changed)."""
        return self.verdict() is not None


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
    return _bind(code, {names.step: budget.step, names.gate: budget.gate,
                        names.stop: budget.stop})


class _Binding:
    """What ``instrument`` needs of a budget, and nothing of its verdict: what the counting
    builtins hold (a bot reaches them, and their closures' cells)."""

    def __init__(self, budget: StepBudget) -> None:
        self.counter, self.step, self.gate, self.stop = budget.counter, budget.step, budget.gate, budget.stop


def _caller_scopes(step: Any) -> tuple[Any, Any]:
    """The globals and locals of the code that called ``exec``/``eval`` without them, as the
    real ones would use; only when that caller is the bot's own code (among its constants:
    ``step``, the budget's STEP), for the frames above it are the engine's.

    Trusted by ``engine.bots.budget_guard`` to read a frame, so it gives out only the bot's
    own scopes and relies on nothing a bot could patch after it starts (no builtin, no
    global but ``sys``, whose ``_getframe``, if replaced, returns what the bot made itself):
    a literal's ``__class__`` is the truth, and no engine code has a method-wrapper constant.
    """
    if step.__class__ is not (0).__add__.__class__:  # the method-wrapper type
        raise ValueError("exec and eval without globals are for the bot's own code")
    caller = sys._getframe(3)  # 0: here, 1: _scopes, 2: exec_/eval_, 3: their caller
    for constant in caller.f_code.co_consts:
        if constant is step:
            return caller.f_globals, caller.f_locals
    raise ValueError("exec and eval without globals are for the bot's own code")


def counting_builtins(budget: StepBudget) -> dict[str, Callable[..., Any]]:
    """``exec``, ``eval`` and ``compile`` for a bot's builtins: code it makes from text counts.

    Without them ``exec("while True: pass")`` would run uncounted. Code objects a bot did not
    get from these (hand-built ones) still run as they are: the residual risk above.
    """
    real_compile, real_exec, real_eval = compile, exec, eval
    binding = _Binding(budget)
    step = budget.step

    def compile_(source: Any, filename: str = "<string>", mode: str = "exec", flags: int = 0,
                 dont_inherit: bool = False, optimize: int = -1, **options: Any) -> Any:
        if flags & ast.PyCF_ONLY_AST:  # a tree is not run: nothing to count
            return real_compile(source, filename, mode, flags, dont_inherit, optimize, **options)
        if isinstance(source, (bytes, bytearray, memoryview)):
            source = importlib.util.decode_source(bytes(source))
        return instrument(source, binding, str(filename), mode)  # type: ignore[arg-type]

    def _scopes(global_scope: Any, local_scope: Any) -> tuple[Any, Any]:
        if global_scope is None:  # the caller's, as the real exec and eval would use
            global_scope, caller_locals = _caller_scopes(step)
            local_scope = caller_locals if local_scope is None else local_scope
        return global_scope, local_scope

    def exec_(source: Any, global_scope: Any = None, local_scope: Any = None, /, **options: Any) -> None:
        if not isinstance(source, CodeType):
            source = compile_(source, "<string>", "exec")
        global_scope, local_scope = _scopes(global_scope, local_scope)
        real_exec(source, global_scope, local_scope, **options)

    def eval_(source: Any, global_scope: Any = None, local_scope: Any = None, /) -> Any:
        if not isinstance(source, CodeType):
            if isinstance(source, (bytes, bytearray, memoryview)):
                source = importlib.util.decode_source(bytes(source))
            if isinstance(source, str):
                source = source.lstrip(" \t")  # as eval does
            source = compile_(source, "<string>", "eval")
        global_scope, local_scope = _scopes(global_scope, local_scope)
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
        self.stop = f"koth stop {token}"

    @classmethod
    def unused_in(cls, tree: ast.AST) -> _Constants:
        used = {node.value for node in ast.walk(tree)
                if isinstance(node, ast.Constant) and isinstance(node.value, str)}
        while True:
            names = cls(secrets.token_hex(16))
            if not used & {names.step, names.gate, names.stop}:
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
        """``STOP()``: raises BudgetExceeded (STOP is the budget's ``stop``)."""
        return ast.Call(ast.Constant(self.names.stop), [], [])

    def _checked(self) -> ast.expr:
        """``STEP() < GATE.threshold or STOP()``: count one step, stop the bot when over."""
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
        """``lambda: body`` becomes ``lambda: body if <within budget> else STOP()``."""
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
    """Replace the placeholder constants by the budget's objects, in nested code too.

    Trusted by ``engine.bots.budget_guard`` to make code objects (refused to the bot's code:
    made by hand, bytecode could read and write anywhere), since it runs when a bot compiles
    at run time. So it keeps the bytecode as the compiler made it and each constant's place,
    replaces only text constants, and relies on nothing a bot could patch after it starts: no
    builtin, no global (its recursion is its own closure); the types come from literals and
    a lambda made here, and their descriptors check what they are given is a code object.
    """
    code_type = (lambda: 0).__code__.__class__
    text_type = "".__class__
    consts_of, replace, lookup = code_type.co_consts.__get__, code_type.replace, {}.__class__.get

    def bind(code: CodeType) -> CodeType:
        constants = []
        for value in consts_of(code):  # a TypeError unless code is a code object
            if value.__class__ is code_type:
                value = bind(value)
            elif value.__class__ is text_type:
                value = lookup(objects, value, value)
            constants.append(value)
        return replace(code, co_consts=(*constants,))

    return bind(code)
