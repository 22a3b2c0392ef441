"""Keeping a bot's hands off its step budget: an audit hook in the bot's own process.

A step budget (``engine.bots.step_budget``) counts in the bot's interpreter, so its verdict
lives beside the bot's code. What the bot could use to reach that verdict is refused here,
through ``sys.addaudithook`` (PEP 578): once added, a hook cannot be removed or listed from
Python. The bot host adds it when it loads a bot with a budget, before any of the bot's
code is compiled or run (natively in the host process, in the page in the bot's Worker).
Refused, raising ``BudgetGuardError`` in the bot's code:

- frames, which hold the budget's turn state in their locals (and write through to them in
  Python 3.13+, PEP 667): ``sys._getframe``, ``sys._current_frames``,
  ``sys._current_exceptions``, and a traceback's, generator's, coroutine's or async
  generator's frame (``tb_frame``, ``gi_frame``, ``cr_frame``, ``ag_frame``);
- every object of the process: ``gc.get_objects``, ``gc.get_referrers``, ``gc.get_referents``;
- tracing and profiling, whose callbacks receive frames: ``sys.settrace``, ``sys.setprofile``
  and ``sys.monitoring`` callbacks;
- code that would run uncounted or rewrite trusted code: hand-built code objects
  (``code.__new__``, which ``code.replace`` raises too), functions made from a code object
  (``function.__new__``), and a function's ``__code__`` set;
- raw memory: ``ctypes`` (loading a library, reading or writing an address) and opening a
  process's ``mem`` file under ``/proc`` (any file named ``mem``, ``pagemap`` or ``kcore``,
  or a link to one; and a path that is not ``str`` or ``bytes``, such as a ``pathlib.Path``,
  whose ``__fspath__`` could name one);
- new processes (``os.fork``, ``os.exec*``, ``os.spawn*``, ``os.posix_spawn``, ``os.system``,
  ``subprocess``): a child would count nothing and could write its parent's memory.

Three functions are trusted, by the identity of their code and of their module's globals
(a bot cannot run their code elsewhere: setting ``__code__`` and making functions are
refused), with the functions they define: ``engine.bots.code._bot_frames`` reads a
traceback's frames to name the bot's lines in its error, and
``engine.bots.step_budget._caller_scopes`` finds the scopes of a bot that calls
``exec``/``eval`` without them (both give out no frame), and
``engine.bots.step_budget._bind`` puts the budget's objects into the constants of code the
bot compiles at run time (its bytecode as the compiler made it). None of them calls
anything a bot could replace after it starts. Everything else is refused, the engine's own
code included, for as long as the process lives: a process that holds a step budget never
stops holding it.

The error is a ``ValueError``: the standard library reads a missing frame as "the stack is not
that deep" (``collections.namedtuple``, ``typing``, ``enum`` fall back), so bots that use them
still work.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import CodeType, FunctionType
from typing import Any


class BudgetGuardError(ValueError):
    """What the bot's code gets for an operation refused under a step budget."""


_EVENTS = frozenset({
    "sys._getframe", "sys._current_frames", "sys._current_exceptions",
    "gc.get_objects", "gc.get_referrers", "gc.get_referents",
    "sys.settrace", "sys.setprofile", "sys.monitoring.register_callback",
    "code.__new__", "function.__new__",
    "ctypes.dlopen", "ctypes.dlsym", "ctypes.dlsym/handle", "ctypes.addressof", "ctypes.cdata",
    "ctypes.cdata/buffer", "ctypes.call_function", "ctypes.string_at", "ctypes.wstring_at",
    "ctypes.PyObj_FromPtr",
    "os.fork", "os.forkpty", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
    "subprocess.Popen",
})
_READS = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame"})
_WRITES = frozenset({"__code__"})

_MEMORY_FILES = frozenset({"mem", "pagemap", "kcore"})

_installed: list[bool] = []


def _nested(code: CodeType) -> list[CodeType]:
    """The code of the functions defined in ``code`` (trusted with it)."""
    found = []
    for constant in code.co_consts:
        if type(constant) is CodeType:
            found += [constant, *_nested(constant)]
    return found


def install(trusted: tuple[Callable[..., Any], ...]) -> None:
    """Add the hook (once per process; later calls change nothing).

    ``trusted``: the functions whose own code may read frames (see the module docstring).
    The hook and what it uses are made here, in this call's frame: nothing of them is in
    a global, a default or an object the bot can reach, so a bot that patches builtins or
    this module later changes nothing in them.
    """
    if _installed:
        return
    _installed.append(True)
    allowed = tuple((code, function.__globals__) for function in trusted
                    if type(function) is FunctionType
                    for code in (function.__code__, *_nested(function.__code__)))
    getframe = sys._getframe
    events, reads, writes, memory_files = _EVENTS, _READS, _WRITES, _MEMORY_FILES
    error, text, data, number, kind_of = BudgetGuardError, str, bytes, int, type
    checking: set[int] = set()  # threads whose check is under way: their getframe is ours
    from _thread import get_ident

    def trusted_caller() -> bool:
        me = get_ident()
        if me in checking:
            return True
        checking.add(me)
        try:
            caller = getframe(2)  # 0: this function, 1: the hook, 2: where the event arose
            code, scope = caller.f_code, caller.f_globals
            for known, known_scope in allowed:  # by identity: a bot's code may be unhashable
                if code is known and scope is known_scope:
                    return True
            return False
        finally:
            checking.discard(me)

    def names_memory(path: object) -> bool:
        """A path that may name a process's memory: its last part is ``mem`` (``pagemap``,
        ``kcore``) wherever it is, or a path that is not plain text (an object's
        ``__fspath__`` could answer differently when ``open`` asks again). Read with the
        methods of ``str`` itself: a subclass cannot answer for them."""
        kind = kind_of(path)
        if kind is number:  # an open file descriptor: nothing new is opened
            return False
        if kind is data:
            path = data.decode(path, "utf-8", "replace")
        elif kind is not text:
            return True
        return text.rpartition(text.rstrip(path, "/"), "/")[2] in memory_files

    def hook(event: str, args: tuple) -> None:
        if event in events:
            if trusted_caller():
                return
            raise error(f"{event} is not allowed under a step budget")
        if event == "object.__getattr__":
            if args[1] in reads and not trusted_caller():
                raise error(f"reading {args[1]} is not allowed under a step budget")
        elif event == "object.__setattr__":
            if args[1] in writes:
                raise error(f"setting {args[1]} is not allowed under a step budget")
        elif event == "open" and args and names_memory(args[0]):
            raise error("opening a process's memory (or a path that is not text) is not "
                        "allowed under a step budget")
        elif event == "os.symlink" and args and names_memory(args[0]):
            raise error("a link to a process's memory is not allowed under a step budget")

    sys.addaudithook(hook)


def installed() -> bool:
    return bool(_installed)
