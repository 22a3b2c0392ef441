"""Running a bot's code for one game: function bots and the three styles of script bots
(``GameSpec.script_mode``: ``stream``, ``per_move``, ``per_turn``).

These run wherever the bot lives: inside a bot host (a subprocess natively, a Worker in
the page) for untrusted code, or in the controller's process for the built-in examples.
Each ``turn`` returns a ``BotAnswer``; output the bot printed is captured, never lost.

With a step budget (``engine.bots.step_budget``) a bot's code is compiled to count its
steps, and a turn is limited by them: a function bot's module load is one turn and each
``move`` one; a script run afresh is one turn per run; a long-running script's turn runs
from its reading ``M`` to its answer. A turn over budget is an ``over_budget`` answer (a
time-out fault), with the line where the bot was stopped.
"""

from __future__ import annotations

import builtins
import io
import os
import shutil
import sys
import tempfile
from collections import deque
from collections.abc import Callable
from types import CodeType, ModuleType
from typing import Any

from engine.bots import budget_seal
from engine.bots.answer import BotAnswer
from engine.bots.bot_random import importer, seeded_random
from engine.bots.code import BOT_FILENAME, BotCode, describe_exception
from engine.bots.step_budget import BudgetExceeded, StepBudget, counting_builtins, instrument
from engine.core.randomness import turn_seed
from engine.games.registry import get_game

__all__ = ["BotAnswer", "Capture", "FunctionRunner", "OneShotScriptRunner", "ScriptSuspended",
           "StreamScriptRunner"]


class ScriptSuspended(BaseException):
    """Raised by a long-running script's ``receive`` where nothing more can come now: the
    script's run ends there, to be run again from its start with more input
    (``engine.bots.replayed_script``). A ``BaseException``, so a bot's ``except Exception``
    does not swallow it."""


class Capture(io.TextIOBase):
    """A text stream that keeps what a bot writes (its stdout or stderr), within bounds.

    Per ``take()`` it keeps the first ``KEEP_HEAD`` characters and the last ``KEEP_TAIL``,
    and says how many were cut between: a bot printing in a loop cannot exhaust memory or
    the channel to the controller, and its last line (a script's answer) survives.
    """

    KEEP_HEAD = 20_000
    KEEP_TAIL = 2_000

    def __init__(self, on_line: Callable[[str], bool] | None = None) -> None:
        self.parts: list[str] = []
        self._size = 0
        self._cut = 0
        self._tail = ""
        self._partial = ""
        self._on_line = on_line  # returns True when it took the line (as an answer)

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        if self._on_line is None:
            self._keep(text)
            return len(text)
        data = self._partial + text
        *lines, self._partial = data.split("\n")
        for line in lines:
            if not self._on_line(line):
                self._keep(line + "\n")
        if len(self._partial) > self.KEEP_HEAD:  # a line that never ends
            self._keep(self._partial)
            self._partial = ""
        return len(text)

    def _keep(self, text: str) -> None:
        room = self.KEEP_HEAD - self._size
        if room > 0:
            self.parts.append(text[:room])
            self._size += min(room, len(text))
            text = text[room:]
        if text:
            self._cut += len(text)
            self._tail = (self._tail + text)[-self.KEEP_TAIL:]

    def take(self) -> str:
        if not self.parts and not self._cut:  # nothing printed: most turns
            return ""
        text = "".join(self.parts)
        if self._cut:
            hidden = self._cut - len(self._tail)
            if hidden:
                text += f"\n[... {hidden} characters cut ...]\n"
            text += self._tail
        self.parts.clear()
        self._size = self._cut = 0
        self._tail = ""
        return text

    def take_lines(self) -> list[str]:
        """Whole lines written so far, the partial last one included."""
        text = self.take() + self._partial
        self._partial = ""
        return text.splitlines()


class _Swap:
    """Swap sys.stdout / sys.stderr for captures during a bot call."""

    def __init__(self, out: Capture, err: Capture) -> None:
        self.out, self.err = out, err

    def __enter__(self) -> None:
        self.saved = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = self.out, self.err

    def __exit__(self, *exc: object) -> None:
        sys.stdout, sys.stderr = self.saved


def _bot_globals(extra: dict | None = None) -> dict:
    namespace: dict[str, Any] = {"__name__": "__main__", "__builtins__": builtins}
    if extra:
        bot_builtins = dict(vars(builtins))
        bot_builtins.update(extra)
        namespace["__builtins__"] = bot_builtins
    return namespace


IDLE_THRESHOLD = 1 << 62  # a long-running script between turns: its steps are not limited


def _compiled(bot: BotCode, steps: int | None) -> tuple[CodeType, StepBudget | None, dict]:
    """The code to run, its budget (None: no counting, no cost) and the builtins that make
    code the bot compiles at run time count too."""
    if steps is None:
        return bot.code, None, {}
    budget = StepBudget(steps)
    return instrument(bot.tree(), budget, BOT_FILENAME), budget, counting_builtins(budget)


def _budget_error(exc: BudgetExceeded) -> tuple[str, int | None]:
    """The budget's message and the bot's line where it was stopped."""
    error, line = describe_exception(exc)  # "module.BudgetExceeded: message (where)"
    return error.partition(f"{type(exc).__name__}: ")[2] or str(exc), line


def script_answer(printed: list[str], mode: str) -> tuple[str | None, list[str]]:
    """The one reader of a script's answer among the lines it printed, and the lines left
    (its debug output). ``per_move``: the last non-blank line (the original Atomas
    controller's rule); ``stream`` (the lines printed after the ask) and ``per_turn``: the
    first non-blank line. A blank line is never an answer."""
    order = range(len(printed) - 1, -1, -1) if mode == "per_move" else range(len(printed))
    for index in order:
        if printed[index].strip():
            return printed[index].strip(), printed[:index] + printed[index + 1:]
    return None, printed


class FunctionRunner:
    """A function bot: the module runs once per game, then ``move(view)`` each turn."""

    def __init__(self, game: str, bot: BotCode, budget: int | None = None) -> None:
        self.wire = get_game(game).wire
        self.bot = bot
        self.code, self.budget, self.counting = _compiled(bot, budget)
        # kept now, before the bot's code runs: a bot that patches StepBudget later changes nothing
        self.budget_run = None if self.budget is None else self.budget.run
        self.out, self.err = Capture(), Capture()
        self.move: Callable[[Any], Any] | None = None

    def start(self, message: dict, seed: int | None = None) -> BotAnswer:
        """The module runs; its ``random`` is seeded with ``seed`` (the bot's, for the game)."""
        self.client = self.wire.FunctionClient()
        self.client.start(message)
        module = ModuleType("bot")
        module.__dict__.update(_bot_globals({"__import__": importer({"random": lambda: seeded_random(seed)}),
                                             **self.counting, **self.bot.builtins}))
        self.move = None
        try:
            with _Swap(self.out, self.err):
                if self.budget is None:
                    exec(self.code, module.__dict__)
                else:
                    self.budget_run(exec, self.code, module.__dict__)
            move = module.__dict__.get("move")
            if not callable(move):
                raise TypeError("move is not a function")
            self.move = move
        except BudgetExceeded as exc:
            error, line = _budget_error(exc)
            return self._answer(error=error, line=line, over_budget=True)
        except BaseException as exc:  # noqa: BLE001 - a bot may raise anything
            if isinstance(exc, SystemExit):
                exc = RuntimeError(f"the bot called exit({exc.code!r}) while loading")
            error, line = describe_exception(exc)
            return self._answer(error=error, line=line)
        return self._answer()

    def turn(self, message: dict) -> BotAnswer:
        view = self.client.view(message)
        if self.move is None:
            return self._answer(error="the bot did not load")
        saved = sys.stdout, sys.stderr  # _Swap, inline: its two calls were much of a quiet turn
        try:
            sys.stdout, sys.stderr = self.out, self.err
            try:
                value = self.move(view) if self.budget is None else self.budget_run(self.move, view)
            finally:
                sys.stdout, sys.stderr = saved
            answer = self.wire.answer_text(value)
            out, err = self.out, self.err
            if out.parts or out._cut or err.parts or err._cut:
                return self._answer(answer=answer)
            return BotAnswer(answer)  # it printed nothing: most turns
        except BudgetExceeded as exc:
            error, line = _budget_error(exc)
            return self._answer(error=error, line=line, over_budget=True)
        except BaseException as exc:  # noqa: BLE001
            error, line = describe_exception(exc)
            return self._answer(error=error, line=line)

    def end(self) -> BotAnswer:
        return self._answer()

    def _answer(self, answer: str | None = None, error: str | None = None,
                line: int | None = None, over_budget: bool = False) -> BotAnswer:
        return BotAnswer(answer, error, line, self.out.take(), self.err.take(), over_budget)


class _Stdin(io.TextIOBase):
    def __init__(self, readline: Callable[[], str]) -> None:
        self._readline = readline

    def readable(self) -> bool:
        return True

    def readline(self, size: int = -1) -> str:  # type: ignore[override]
        try:
            return self._readline() + "\n"
        except EOFError:
            return ""

    def __iter__(self):  # type: ignore[override]
        while line := self.readline():
            yield line

    def read(self, size: int = -1) -> str:
        return "".join(iter(self))


def _script_namespace(readline: Callable[[], str], extra_builtins: dict[str, Any],
                      ) -> tuple[dict, _Stdin]:
    def input_(prompt: object = "") -> str:
        if prompt:
            sys.stdout.write(str(prompt))
        return readline()

    return _bot_globals({"input": input_, "raw_input": input_, **extra_builtins}), _Stdin(readline)


class OneShotScriptRunner:
    """A script bot run afresh for every turn.

    ``per_move`` (Atomas, as the original controller did): it reads its line with
    ``input()``; the last non-blank line it prints is the answer, so debug prints before it
    are shown. ``per_turn`` (aBOTcalypse, as the original did): ``sys.argv`` is
    ``["bot.py", VIEW]`` (the wire's ``message_argv``), the same text is on stdin, it runs
    in a working directory of its own that is kept for the game (files it writes there are
    there next turn; a fresh one each game), and the first non-blank line it prints is the
    answer.
    """

    def __init__(self, game: str, bot: BotCode, mode: str = "per_move", budget: int | None = None) -> None:
        self.wire = get_game(game).wire
        self.bot = bot
        self.code, self.budget, self.counting = _compiled(bot, budget)
        self.budget_run = None if self.budget is None else self.budget.run  # kept before the bot runs
        self.mode = mode
        self.workdir: str | None = None
        self.random = seeded_random(None)  # reseeded every run
        self.extra_builtins = {"__import__": importer({"random": lambda: self.random}), **self.counting,
                               **bot.builtins}
        self.start_seed: int | None = None
        self.runs = 0

    def start(self, message: dict, seed: int | None = None) -> BotAnswer:
        """A new game; ``seed`` is the bot's, each run's is derived from it (``turn_seed``)."""
        self.start_seed = seed
        self.runs = 0
        if self.mode == "per_turn":
            self._remove_workdir()
            self.workdir = tempfile.mkdtemp(prefix="bot-")
        return BotAnswer()

    def _remove_workdir(self) -> None:
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.workdir = None

    def turn(self, message: dict, seed: int | None = None) -> BotAnswer:
        """One run; its ``random`` is seeded with ``seed``, or else the run's ``turn_seed``
        of the game's seed (the same value: the controller sends what it derives)."""
        self.runs += 1
        if seed is None and self.start_seed is not None:
            seed = turn_seed(self.start_seed, self.runs)
        self.random.seed(seed)
        lines = deque(self.wire.message_lines(message))
        argv = ["bot.py", *self.wire.message_argv(message)] if self.mode == "per_turn" else None

        def readline() -> str:
            if not lines:
                raise EOFError("EOF when reading a line")
            return lines.popleft()

        namespace, stdin = _script_namespace(readline, self.extra_builtins)
        out, err = Capture(), Capture()
        error = line = None
        over_budget = False
        saved_stdin, saved_argv, saved_cwd = sys.stdin, sys.argv, None
        try:
            sys.stdin = stdin
            if argv is not None:
                sys.argv = argv
                if self.workdir is not None and os.path.isdir(self.workdir):
                    saved_cwd = os.getcwd()
                    os.chdir(self.workdir)
            with _Swap(out, err):
                if self.budget is None:
                    exec(self.code, namespace)
                else:
                    self.budget_run(exec, self.code, namespace)
        except SystemExit:
            pass
        except BudgetExceeded as exc:
            (error, line), over_budget = _budget_error(exc), True
        except BaseException as exc:  # noqa: BLE001
            error, line = describe_exception(exc)
        finally:
            sys.stdin, sys.argv = saved_stdin, saved_argv
            if saved_cwd is not None:
                os.chdir(saved_cwd)
        answer, printed = script_answer(out.take_lines(), self.mode)
        if over_budget and answer is not None:  # the run did not finish: no answer
            printed.append(answer)
            answer = None
        stdout = "".join(p + "\n" for p in printed)
        stderr = err.take()
        if error is not None and answer is not None:
            stderr += f"(raised after answering) {error}\n"  # the answer counts
            error = line = None
        return BotAnswer(answer, error, line, stdout, stderr, over_budget)

    def end(self) -> BotAnswer:
        self._remove_workdir()
        return BotAnswer()


class StreamScriptRunner:
    """A long-running script bot (Flit): it reads lines as they come, answers each ``M``.

    The script pulls: its ``input()`` calls ``receive()`` for the controller's next
    message, which blocks (a pipe natively; JSPI's ``run_sync`` in the page). The first
    line it prints after reading ``M`` is the answer; other output is captured.
    """

    def __init__(self, game: str, bot: BotCode, receive: Callable[[], dict | None],
                 send: Callable[[dict], None], budget: int | None = None,
                 compiled: tuple[CodeType, StepBudget | None, dict] | None = None) -> None:
        """``compiled``: another runner's (``.compiled``) of the same bot, budget and all: the
        host makes a runner per game, but the budget once, before any of the bot's code runs."""
        self.wire = get_game(game).wire
        self.bot = bot
        self.compiled = compiled or _compiled(bot, budget)
        self.code, self.budget, self.counting = self.compiled
        if self.budget is not None:  # kept before the bot runs (see FunctionRunner)
            self.budget_verdict, self.budget_start, self.budget_idle = (
                self.budget.verdict, self.budget.start_turn, self.budget.idle)
            self.budget_idle(IDLE_THRESHOLD)
        self.receive = receive
        self.send = send
        self.out = Capture(self._on_line)
        self.err = Capture()
        self.lines: deque[str] = deque()
        self.pending: int | None = None  # id of the turn waiting for an answer
        self.nonce: object = None  # that turn's nonce, for the budget's sealed verdict
        self.asked = False  # the script has read this turn's "M"
        self.ended = False
        self.end_id: int | None = None  # id of the controller's "end" request
        self.failure: str | None = None
        self.failure_line: int | None = None
        self.started: dict | None = None  # the start's reply, until it is sent

    def _send_started(self) -> None:
        started, self.started = self.started, None
        if started is not None:
            self.send(started)

    def _reply(self, answer: str | None = None, error: str | None = None,
               line: int | None = None, over_budget: bool = False) -> None:
        if self.pending is None:
            return
        budget = self.budget
        if budget is not None and self.asked:
            over = self.budget_verdict()
            if error is None and over is not None:  # it answered, but past its budget
                answer, error, over_budget = None, str(over), True
            self.budget_idle(IDLE_THRESHOLD)
        reply = BotAnswer(answer, error, line, self.out.take(), self.err.take(), over_budget).to_json()
        reply["id"] = self.pending
        self._seal(reply, self.nonce)
        self.pending = self.nonce = None
        self.asked = False
        self.send(reply)

    def _seal(self, reply: dict, nonce: object) -> None:
        """The budget's sealed verdict for ``nonce`` (engine.bots.budget_seal), if it has a key."""
        if self.budget is not None:
            sealed = budget_seal.seal(self.budget.counter, nonce)
            if sealed is not None:
                reply["seal"] = sealed

    def _on_line(self, line: str) -> bool:
        if self.pending is not None and self.asked:
            answer, _ = script_answer([line], "stream")
            if answer is not None:
                self._reply(answer=answer)
                return True
        return False

    def _take(self, message: dict | None) -> bool:
        """Queue a message's lines; False when the game is over."""
        if message is None or message.get("op") == "end":
            self.ended = True
            self.end_id = None if message is None else message.get("id")
            return False
        if message.get("op") == "turn":
            self.pending = message["id"]
            self.nonce = message.get("nonce")
            self.asked = False
            self.lines.extend(self.wire.message_lines(message["message"]))
        return True

    def _readline(self) -> str:
        while not self.lines:
            if self.ended:
                raise EOFError("EOF when reading a line")
            if self.pending is not None and self.asked:
                self._reply(answer=None)  # it asked for more input without answering
            self._send_started()
            if not self._take(self.receive()):
                raise EOFError("EOF when reading a line")
        line = self.lines.popleft()
        if line == "M":
            self.asked = True
            if self.budget is not None:
                self.budget_start()
                budget_seal.turn_started(self.budget.counter)
        return line

    def run(self, start_id: int, message: dict, seed: int | None = None, nonce: object = None) -> None:
        """Serve one game: from the start message until the controller says ``end``;
        the script's ``random`` is seeded with ``seed``; ``nonce``: the start's, sealed from
        here (none of the script's code has run in this game)."""
        self.lines.extend(self.wire.message_lines(message))
        started: dict = {"id": start_id, "ok": True}
        if self.budget is not None:
            budget_seal.turn_started(self.budget.counter)
            self._seal(started, nonce)
        # Sent once the script waits for the game (or ends): its imports and module code are
        # its start-up, timed with the start, never charged to its first move.
        self.started = started
        import_ = importer({"random": lambda: seeded_random(seed)})
        namespace, stdin = _script_namespace(self._readline, {"__import__": import_, **self.counting,
                                                              **self.bot.builtins})
        saved_stdin = sys.stdin
        over_budget = False
        try:
            sys.stdin = stdin
            with _Swap(self.out, self.err):
                exec(self.code, namespace)
            self.failure = "the script exited"
        except SystemExit:
            self.failure = "the script exited"
        except ScriptSuspended:
            raise
        except BudgetExceeded as exc:
            error, self.failure_line = _budget_error(exc)
            self.failure, over_budget = f"the script was stopped: {error}", True
        except BaseException as exc:  # noqa: BLE001
            error, self.failure_line = describe_exception(exc)
            self.failure = f"the script stopped: {error}"
        finally:
            sys.stdin = saved_stdin
        self._send_started()
        self._reply(error=self.failure, line=self.failure_line, over_budget=over_budget)
        while not self.ended:  # the script is gone: every later turn is an error
            if self._take(self.receive()):
                self._reply(error=self.failure, line=self.failure_line)
        if self.end_id is not None:
            self.send({"id": self.end_id, "ok": True, "stdout": self.out.take(), "stderr": self.err.take()})
