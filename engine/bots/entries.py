"""Bots from their command-line forms, and the sandbox they run in: one place for every command.

A bot is given as a ``.py`` file, ``py2:FILE`` (a Python 2 answer, converted on load by
``engine.bots.python2``), ``cmd:COMMAND`` or ``builtin:NAME``. ``entry_from_form``
turns that form into an ``Entry``, the bot *by value* (a file's source is read once, here),
which can travel to a worker process or another machine; ``bot_from_entry`` builds the
runnable bot from it there. ``python -m engine match`` and ``python -m engine tournament``
both go through these, so a bot is the same thing in a match, a tournament and a worker.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, replace
from pathlib import Path

from engine.bots.code import FUNCTION, load_code
from engine.bots.native import CommandBot, HostedBot, InProcessBot
from engine.bots.python2 import PYTHON2, PYTHON3
from engine.bots.sandbox import Limits, Sandbox, SandboxError, Unsandboxed
from engine.games.registry import get_game

BUILTIN, COMMAND, PYTHON = "builtin", "cmd", "python"


class UsageError(Exception):
    """A bad command-line argument: one line for the user, exit code 2."""


@dataclass(frozen=True)
class Entry:
    """A bot by value: its name and what it runs (a built-in's name, a command, or Python source
    in its language)."""

    name: str
    kind: str  # BUILTIN, COMMAND or PYTHON
    text: str  # the built-in's name, the command line, or the source
    language: str = PYTHON3  # of PYTHON source: PYTHON3, or PYTHON2 (converted on load)
    limits: Limits | None = None  # its processes' own limits (a built command entry's), else the run's

    @property
    def trusted(self) -> bool:
        return self.kind == BUILTIN


def entry_from_form(form: str, game: str) -> Entry:
    """The ``Entry`` of a bot's command-line form; ``UsageError`` when it cannot be one."""
    if form.startswith("builtin:"):
        name = form.split(":", 1)[1]
        try:
            source = get_game(game).example_source(name)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if not get_game(game).trusted:  # an author's game: its examples are strangers' code too
            return Entry(name, PYTHON, source)
        return Entry(name, BUILTIN, name)
    if form.startswith("cmd:"):
        command = form.split(":", 1)[1].strip()
        try:
            words = shlex.split(command)
        except ValueError as exc:
            raise UsageError(f"cannot parse the command {command!r}: {exc}") from None
        if not words or not words[0]:
            raise UsageError("cmd: needs a command, e.g. cmd:'./bot.sh'")
        return Entry(words[0].rsplit("/", 1)[-1], COMMAND, command)
    language = PYTHON3
    if form.startswith("py2:"):
        form, language = form.split(":", 1)[1], PYTHON2
    path = Path(form)
    if path.suffix != ".py":
        raise UsageError(f"bot {form!r} is not a .py file, py2:FILE.py, cmd:COMMAND or builtin:NAME")
    if not path.is_file():
        raise UsageError(f"bot file not found: {form}")
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {form}: {exc}") from None
    return Entry(path.stem, PYTHON, source, language)


def runs_a_process(entry: Entry, game: str) -> bool:
    """False for the built-in function bots, which run in the controller's process."""
    if entry.kind == BUILTIN:
        return load_code(get_game(game).example_source(entry.text)).kind != FUNCTION
    return True


def bot_from_entry(entry: Entry, game: str, sandbox: Sandbox | Unsandboxed | None = None,
                   budget: int | None = None):
    """The runnable bot of an entry; its processes start through ``sandbox``; a Python bot's
    moves are limited to ``budget`` steps (None: by time alone; command bots are not counted)."""
    sandbox = sandbox or Unsandboxed()
    if entry.limits is not None:
        sandbox = Sandbox(entry.limits, sandbox.bwrap) if sandbox.sandboxed else Unsandboxed(entry.limits)
    if entry.kind == BUILTIN:
        source = get_game(game).example_source(entry.text)
        # Trusted function bots run in-process (fast); script examples need a host process.
        if load_code(source).kind == FUNCTION:
            return InProcessBot(entry.name, source, budget)
        return HostedBot(entry.name, source, sandbox, budget)
    if entry.kind == COMMAND:
        return CommandBot(entry.name, entry.text, sandbox)
    return HostedBot(entry.name, entry.text, sandbox, budget, entry.language)


def make_bot(form: str, game: str, sandbox: Sandbox | Unsandboxed | None = None):
    """A bot from its command-line form (``entry_from_form`` then ``bot_from_entry``)."""
    return bot_from_entry(entry_from_form(form, game), game, sandbox)


def choose_sandbox(entries: list[Entry], no_sandbox: bool, limits: Limits) -> Sandbox | Unsandboxed:
    """The sandbox for the bots' processes; ``UsageError`` when untrusted bots would run
    without one (it cannot start here and ``--no-sandbox`` was not given)."""
    if no_sandbox:
        return Unsandboxed(limits)
    sandbox = Sandbox(limits)
    try:
        sandbox.probe()
    except SandboxError as exc:
        if all(entry.trusted for entry in entries):
            return Unsandboxed(limits)  # the built-in examples are trusted
        raise UsageError(f"the bot sandbox cannot start: {exc}; install bubblewrap, or pass "
                         "--no-sandbox to run the bots unsandboxed (trusted bots only)") from None
    return sandbox


def unique_names(entries: list[Entry]) -> list[Entry]:
    """The entries with repeated names told apart: ``greedy``, ``greedy#2``..."""
    seen: dict[str, int] = {}
    named = []
    for entry in entries:
        count = seen.get(entry.name, 0) + 1
        seen[entry.name] = count
        named.append(entry if count == 1 else replace(entry, name=f"{entry.name}#{count}"))
    return named
