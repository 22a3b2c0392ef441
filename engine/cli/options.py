"""The arguments every command that plays games takes (game, bots, seed, secret, preset, the
games' setting flags, the sandbox's flags) and the command line's shared output helpers (the
progress bar, the note that rich is missing). ``cli`` and ``cli_tournament`` both build on
it; neither imports the other's internals.
"""

from __future__ import annotations

import argparse
import sys

from engine.bots.entries import UsageError, choose_sandbox, runs_a_process
from engine.bots.sandbox import Limits, Unsandboxed
from engine.core.randomness import check_secret
from engine.games.registry import game_names, games

EXIT_USAGE = 2


def add_bot_arguments(command: argparse.ArgumentParser) -> None:
    """The arguments every command that plays games takes: the game, its bots, seed, secret,
    preset, the game's setting flags, ``--json``, the sandbox's flags."""
    command.add_argument("game", help=f"one of: {', '.join(game_names())}")
    command.add_argument("bots", nargs="+", metavar="BOT",
                         help="a .py file (function or script bot), py2:FILE.py (a Python 2 answer), "
                              "cmd:COMMAND, or builtin:NAME")
    command.add_argument("--seed", type=_non_negative, help="seed of the first game (default: random)")
    command.add_argument("--secret", type=_secret, metavar="TEXT",
                         help="drawn with the seed into the games' randomness, never shown to bots "
                              "(default: a fresh one, printed; give it again to repeat the run)")
    presets = "; ".join(f"{s.name}: {', '.join(p.name for p in s.presets)}" for s in games())
    command.add_argument("--preset", help=f"settings preset ({presets})")
    _add_setting_flags(command)
    command.add_argument("--json", action="store_true", help="print one JSON object")
    command.add_argument("--game-file", metavar="FILE",
                         help="an author's game module (docs/games.md), run sandboxed; GAME may be "
                              "left out")
    command.add_argument("--no-sandbox", action="store_true",
                         help="run bot processes without the bubblewrap sandbox (trusted bots only)")
    command.add_argument("--memory-limit", type=_positive, default=Limits.memory_mb, metavar="MB",
                         help=f"memory (address space) per bot process (default {Limits.memory_mb})")
    command.add_argument("--budget", type=_positive, metavar="STEPS",
                         help="limit each Python bot's move by the steps it executes, the same on "
                              "every machine (the time limit stays as a hard backstop); default: "
                              "none, the wall-clock time limit decides (command bots have no step "
                              "count), so results can vary with the machine's speed and load")


def setting_flag(key: str) -> str:
    """The CLI flag of a setting: ``time_limit_ms`` -> ``--time-limit``, ``max_moves`` ->
    ``--max-moves``."""
    return "--" + key.removesuffix("_ms").replace("_", "-")


def _add_setting_flags(match) -> None:
    """One flag per editable setting of any game (``spec.fields``); ``run_match`` refuses a
    flag the chosen game does not have."""
    fields: dict[str, list] = {}
    for spec in games():
        for item in spec.fields:
            fields.setdefault(item.key, []).append((spec, item))
    for key, owners in fields.items():
        item = owners[0][1]
        where = "" if len(owners) == len(games()) else f"{', '.join(s.title for s, _ in owners)}: "
        match.add_argument(setting_flag(key), dest=f"setting_{key}", type=_positive,
                           metavar="MS" if key.endswith("_ms") else "N",
                           help=f"{where}{item.label.lower()}, {item.minimum} to {item.maximum}"
                                f"{(' ' + item.help) if item.help else ''}")


def setting_overrides(spec, args: argparse.Namespace) -> dict:
    """The settings given as flags, checked against the game's fields (``UsageError``)."""
    overrides = {}
    for name, value in vars(args).items():
        if not name.startswith("setting_") or value is None:
            continue
        key = name.removeprefix("setting_")
        if spec.field(key) is None:
            accepted = ", ".join(setting_flag(f.key) for f in spec.fields) or "none"
            raise UsageError(f"{setting_flag(key)} is not a {spec.title} setting "
                             f"({spec.title} takes {accepted})")
        overrides[key] = value
    return overrides


def _int_at_least(minimum: int, wording: str):
    """An argparse type: an integer >= ``minimum``."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be {wording}: {text!r}")
        return value
    return parse


def _secret(text: str) -> str:
    try:
        return check_secret(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


positive = _positive = _int_at_least(1, "at least 1")
_non_negative = _int_at_least(0, "0 or more")


def bots_sandbox(entries, game: str, args: argparse.Namespace):
    """The sandbox the entries' processes need (``--no-sandbox``, ``--memory-limit``)."""
    needs_process = [e for e in entries if runs_a_process(e, game)]
    if not needs_process:
        return Unsandboxed()
    return choose_sandbox(needs_process, args.no_sandbox, Limits(memory_mb=args.memory_limit))


RICH_MISSING = ("note: plain-text output; for formatted tables and a progress bar install the CLI "
                "extra: pip install 'koth-arena[cli]' (or pip install rich)")
_rich_note_shown = False


def note_rich_missing() -> None:
    """Say once per run, on stderr, that rich is missing and how to install it."""
    global _rich_note_shown
    if not _rich_note_shown:
        _rich_note_shown = True
        sys.stderr.write(RICH_MISSING + "\n")


class progress_bar:
    """A progress bar on stderr (rich) for series that take more than a moment."""

    def __init__(self, total: int, quiet: bool) -> None:
        self.total = total
        self.bar = None
        if not quiet and total > 1:
            try:
                from rich.progress import Progress
                self.bar = Progress(transient=True, console=stderr_console())
            except ImportError:
                self.bar = None
                note_rich_missing()

    def __enter__(self):
        if self.bar is None:
            return lambda done, total: None
        self.bar.start()
        task = self.bar.add_task("games", total=self.total)
        return lambda done, total: self.bar.update(task, completed=done, total=total)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()


def stderr_console():
    from rich.console import Console
    return Console(stderr=True)
