"""A long-running script bot where its ``input()`` cannot block, run in linear time when its
``input()`` calls are all in its module body: the body becomes a generator, each ``input()``
a ``yield``, so the script waits between requests without a thread or a blocking read.

This is the quick path of the page's push mode (``engine.bots.replayed_script`` is the general
one, quadratic in the game's turns). Most posted scripts read their lines in a top-level
loop (``while True: line = input() ...``), as the Flit example does. The rewrite changes
nothing else: every name the module body binds is declared ``global`` in the generator, so
the script's functions see its module's names as before, and its line numbers stay. A script
that reads input anywhere else (a function, a lambda, a comprehension, ``sys.stdin``), that
binds ``input`` or calls it other than ``input()`` / ``input(prompt)``, or that has ``global``
or ``import *`` in its module body, gets None here and is replayed instead.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable
from functools import partial
from types import CodeType

from engine.bots.bot_random import importer, seeded_random
from engine.bots.code import BOT_FILENAME, BotCode, describe_exception
from engine.bots.runners import Capture, StreamScriptRunner, _script_namespace, _Swap

SCRIPT = "__koth_script__"
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.ListComp,
           ast.SetComp, ast.DictComp, ast.GeneratorExp)


def suspended_code(bot: BotCode) -> CodeType | None:
    """The script's code as a module defining the generator ``__koth_script__`` (module doc),
    or None where the rewrite does not apply."""
    try:
        tree = bot.tree()
    except SyntaxError:
        return None
    future = [s for s in tree.body if isinstance(s, ast.ImportFrom) and s.module == "__future__"]
    body = [s for s in tree.body if s not in future]
    if not body or not _rewritable(body):
        return None
    for statement in body:
        _InputToYield().visit(statement)
    names = sorted(_bound_names(body))
    declared: list[ast.stmt] = [ast.Global(names=names)] if names else []
    function = ast.FunctionDef(name=SCRIPT, args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[],
                                                                 kw_defaults=[], defaults=[]),
                               body=[*declared, *body, ast.Return(value=None)], decorator_list=[],
                               returns=None, type_comment=None, type_params=[])
    module = ast.Module(body=[*future, function], type_ignores=[])
    for node in (function, *declared, function.body[-1]):
        ast.copy_location(node, body[0])
    ast.fix_missing_locations(module)
    try:
        code = compile(module, BOT_FILENAME, "exec")
    except SyntaxError:
        return None
    # its frames named as the module's, so an error reads as it does where input() blocks
    return code.replace(co_consts=tuple(
        c.replace(co_name="<module>", co_qualname="<module>")
        if isinstance(c, CodeType) and c.co_name == SCRIPT else c for c in code.co_consts))


def _rewritable(body: list[ast.stmt]) -> bool:
    """Every ``input`` is a plain call in the module body; no stdin, ``global``, ``import *``."""
    called: set[int] = set()  # the ``input`` names that are a call's function (seen first)
    for statement in body:
        for node, nested in _walk(statement):
            if isinstance(node, ast.Global) and not nested:
                return False
            if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
                return False
            if isinstance(node, ast.Attribute) and node.attr == "stdin":
                return False
            if isinstance(node, ast.alias) and (node.asname or node.name) in ("input", "stdin"):
                return False
            if isinstance(node, ast.arg) and node.arg == "input":
                return False
            if isinstance(node, _DEFINITIONS) and node.name == "input":
                return False
            if isinstance(node, ast.NamedExpr) and nested:
                return False  # binds in the module from inside a comprehension
            if isinstance(node, ast.Name) and node.id in ("input", "stdin"):
                if nested or not isinstance(node.ctx, ast.Load) or id(node) not in called:
                    return False
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "input":
                if node.keywords or len(node.args) > 1 or any(isinstance(a, ast.Starred) for a in node.args):
                    return False
                called.add(id(node.func))
            if isinstance(node, ast.Yield | ast.YieldFrom | ast.Await | ast.Return):
                if not nested:
                    return False
    return True


def _walk(node: ast.AST, nested: bool = False):
    """Every node under ``node``, parents first, with whether it is inside a nested scope."""
    yield node, nested
    inner = nested or isinstance(node, _SCOPES)
    for child in ast.iter_child_nodes(node):
        if isinstance(node, _SCOPES) and not nested:
            # a function's defaults and decorators, a class's bases run in the module body
            inner = not _runs_in_enclosing_scope(node, child)
        yield from _walk(child, inner)


def _runs_in_enclosing_scope(scope: ast.AST, child: ast.AST) -> bool:
    if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
        return child in scope.decorator_list or child is scope.returns or child is scope.args
    if isinstance(scope, ast.ClassDef):
        return child in scope.decorator_list or child in scope.bases or child in scope.keywords
    return False


class _InputToYield(ast.NodeTransformer):
    """``input()`` -> ``(yield "")``, ``input(p)`` -> ``(yield p)``: the runner writes the prompt
    and sends the line back. Only in the module body (``_rewritable`` checked the rest)."""

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "input":
            prompt = node.args[0] if node.args else ast.Constant(value="")
            return ast.copy_location(ast.Yield(value=prompt), node)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        node.args = self.visit(node.args)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        node.bases = [self.visit(b) for b in node.bases]
        return node

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        return node


def _bound_names(body: list[ast.stmt]) -> set[str]:
    """The names the module body binds (what becomes ``global`` in the generator)."""
    names: set[str] = set()
    for statement in body:
        for node, nested in _walk(statement):
            if nested:
                continue
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
                names.add(node.id)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.alias):
                names.add((node.asname or node.name).split(".")[0])
            elif isinstance(node, ast.ExceptHandler) and node.name:
                names.add(node.name)
            elif isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
                names.add(node.name)
            elif isinstance(node, ast.MatchMapping) and node.rest:
                names.add(node.rest)
    return names


class SuspendedScriptRunner(StreamScriptRunner):
    """A stream-mode script, rewritten by ``suspended_code``, served one request at a time:
    the same replies as ``StreamScriptRunner`` (whose bookkeeping it shares), no thread."""

    def __init__(self, game: str, bot: BotCode, code: CodeType) -> None:
        self.outbox: list[dict] = []
        super().__init__(game, bot, self._no_receive, self.outbox.append, None, compiled=(code, None, {}))
        self.script = None  # the generator, between requests
        self.failure_over = False

    @staticmethod
    def _no_receive() -> dict | None:
        raise RuntimeError("requests are pushed")

    def handle(self, request: dict) -> dict:
        """The reply to a ``start``, ``turn`` or ``end`` request of this game."""
        self.outbox.clear()
        op, rid = request.get("op"), request.get("id")
        if op == "start":
            self._start(request)
        elif self.script is None and self.failure is None:
            return {"id": rid, "answer": None, "error": "the game has not started", "line": None,
                    "stdout": "", "stderr": ""}
        elif self.failure is not None:  # the script is gone: every later turn is an error
            if self._take(request):
                self._reply(error=self.failure, line=self.failure_line)
            elif self.end_id is not None:
                self._ended()
        else:
            self._take(request)
            self._feed()
        for reply in self.outbox:
            if reply.get("id") == rid:
                return reply
        if op == "end":
            return {"id": rid, "ok": True, "stdout": "", "stderr": ""}
        return {"id": rid, "answer": None, "error": None, "line": None, "stdout": "", "stderr": ""}

    def _start(self, request: dict) -> None:
        seed = request.get("seed")
        seed = seed if type(seed) is int and seed >= 0 else None
        self.lines.clear()
        self.lines.extend(self.wire.message_lines(request.get("message") or {}))
        self.started = {"id": request.get("id"), "ok": True}
        if self.script is not None:  # the last game's script, still waiting: ended quietly
            with _Swap(Capture(), Capture()):
                try:
                    self.script.close()
                except BaseException:  # noqa: BLE001, S110  (its own last words: nowhere to go)
                    pass
        self.out, self.err = Capture(self._on_line), Capture()
        self.pending = self.nonce = self.end_id = self.failure = self.failure_line = None
        self.asked = self.ended = False
        import_ = importer({"random": lambda: seeded_random(seed)})
        namespace, _ = _script_namespace(self._no_line, {"__import__": import_, **self.bot.builtins})
        self.script = None
        if not self._step(lambda: exec(self.code, namespace)):
            return
        self.script = namespace[SCRIPT]()
        if self._step(lambda: self.script.send(None), prompt=True):
            self._feed()

    @staticmethod
    def _no_line() -> str:
        raise EOFError("EOF when reading a line")

    def _feed(self) -> None:
        """Hand the waiting script its lines until it waits with none left, or ends."""
        while True:
            if not self.lines:
                if not self.ended:
                    if self.pending is not None and self.asked:
                        self._reply(answer=None)  # it asked for more input without answering
                    self._send_started()
                    return
                if not self._step(self._eof, prompt=True):
                    return
                continue
            line = self.lines.popleft()
            if line == "M":
                self.asked = True
            if not self._step(partial(self.script.send, line), prompt=True):
                return

    def _eof(self) -> object:
        return self.script.throw(EOFError("EOF when reading a line"))

    def _step(self, resume: Callable[[], object], prompt: bool = False) -> bool:
        """Run the script until it waits for a line (True) or ends (False: its failure told)."""
        saved_stdin = sys.stdin
        try:
            sys.stdin = _script_namespace(self._no_line, {})[1]
            with _Swap(self.out, self.err):
                asked = resume()
                if prompt and asked:
                    self.out.write(str(asked))
            return True
        except (StopIteration, SystemExit):
            self.failure = "the script exited"
        except BaseException as exc:  # noqa: BLE001
            error, self.failure_line = describe_exception(exc)
            self.failure = f"the script stopped: {error}"
        finally:
            sys.stdin = saved_stdin
        self.script = None
        self._send_started()
        self._reply(error=self.failure, line=self.failure_line)
        if self.end_id is not None:
            self._ended()
        return False

    def _ended(self) -> None:
        self.send({"id": self.end_id, "ok": True, "stdout": self.out.take(), "stderr": self.err.take()})
        self.end_id = None
