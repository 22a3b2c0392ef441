"""The native controller's command line: ``python -m engine match GAME BOT [BOT...]``.

The only module that may use third-party packages (rich, for the table and the progress
bar: the optional extra ``koth-arena[cli]``); without rich it prints plain text and says
once, on stderr, how to install it. Bad arguments get one line and exit code 2.
"""

from __future__ import annotations

import argparse
import json
import secrets
import shlex
import sys
from pathlib import Path
from typing import NoReturn

from engine.bots.entries import (
    UsageError,
    bot_from_entry,
    entry_from_form,
    unique_names,
)
from engine.cli.options import (
    EXIT_USAGE,
    _positive,
    add_bot_arguments,
    bots_sandbox,
    note_rich_missing,
    progress_bar,
    setting_overrides,
)
from engine.cli.timing_text import timing_lines
from engine.core.randomness import new_secret
from engine.games.registry import get_game
from engine.play.match import BotEvent, run_series
from engine.play.replay import MAX_DOCUMENT_CHARS, ReplayError
from engine.play.replay_bundle import verify_any

EXIT_REFUSED = 1  # `replay`: the file does not verify
EXIT_GAME_FAILED = 1  # an author's game (--game-file) raised or hung during play


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"error: {message} (see {self.prog} --help)\n")
        sys.exit(EXIT_USAGE)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m engine", description="KotH Arena native controller")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    match = commands.add_parser("match", help="run a game or a series between bots",
                                description="Run a game or a series between bots.")
    add_bot_arguments(match)
    match.add_argument("--games", type=_positive, default=1, help="number of games (seeds)")
    match.add_argument("--replay", type=Path, metavar="FILE", help="write the replay (JSON) here")
    match.add_argument("--log", action="store_true", help="print the bots' output and faults")
    match.add_argument("--timing", action="store_true",
                       help="print each bot's median and worst move time (on stderr with --json)")
    from engine.cli.cli_tournament import add_tournament_command
    add_tournament_command(commands)
    _add_replay_command(commands)
    return parser


def _add_replay_command(commands) -> None:
    replay = commands.add_parser(
        "replay", help="verify a replay file and print its summary",
        description="Re-run every record of a replay file through the rules and recompute its "
                    "summary. Exit code 0: verified; 1: the file disagrees with the rules (the first "
                    "difference is printed); 2: bad arguments or an unreadable file. With --turn T: "
                    "the input the seat(s) asked at turn T were sent; with --bot too, that bot "
                    "re-fed turns 1..T (exit code 1: an answer differs from the record).")
    replay.add_argument("file", type=Path, metavar="FILE", help="a replay written by --replay or the page")
    replay.add_argument("--json", action="store_true", help="print one JSON object")
    replay.add_argument("--game-file", metavar="FILE",
                        help="the author's game module the replay was played with")
    from engine.cli.cli_reproduce import add_reproduce_arguments
    add_reproduce_arguments(replay)


def run_match(args: argparse.Namespace) -> int:
    try:
        spec = get_game(args.game)
        overrides = setting_overrides(spec, args)
        if not spec.min_bots <= len(args.bots) <= spec.max_bots:
            raise UsageError(
                f"{spec.title} takes {spec.min_bots} to {spec.max_bots} bots, got {len(args.bots)}")
        if spec.players_setting:
            overrides[spec.players_setting] = len(args.bots)
        settings = spec.settings(args.preset, **overrides)
        # bad bot arguments are reported before the sandbox is probed
        entries = unique_names([entry_from_form(b, spec.name) for b in args.bots])
        sandbox = bots_sandbox(entries, spec.name, args)
        bots = [bot_from_entry(e, spec.name, sandbox, args.budget) for e in entries]
    except (UsageError, ValueError) as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_USAGE
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    secret = args.secret if args.secret is not None else new_secret()
    logs: list[BotEvent] = []
    with progress_bar(args.games * (len(bots) if spec.side_by_side else 1), quiet=False) as progress:
        result = run_series(spec, settings, bots, seed, args.games,
                            on_event=logs.append, on_progress=progress, secret=secret, budget=args.budget)
    document = result.document
    if args.replay:
        try:
            args.replay.write_text(json.dumps(document), encoding="utf-8")
        except OSError as exc:
            sys.stderr.write(f"error: cannot write replay {args.replay}: {exc}\n")
            return EXIT_USAGE
    summary = document["summary"]
    if args.json:
        out = {"game": spec.name, "settings": settings.to_json(), "bots": [b.name for b in bots],
               "first_seed": seed, "secret": secret, **summary}
        if args.log:
            out["log"] = [vars(e) for e in logs]
        print(json.dumps(out))
    else:
        _print_table(spec, settings, [b.name for b in bots], seed, summary, secret=secret)
        if args.log:
            for event in logs:
                where = f" ({event.where()})" if event.stream in ("fault", "error") and event.where() else ""
                print(f"[{bots[event.bot].name} {event.stream}] {event.text.rstrip()}{where}")
    if args.timing:
        lines = timing_lines(document["records"], [b.name for b in bots])
        print("\n".join(lines), file=sys.stderr if args.json else sys.stdout)
    return 0


def _print_table(spec, settings, names: list[str], seed: int, summary: dict,
                 title: str | None = None, secret: str | None = None) -> None:
    games = summary["games"]
    title = title or f"{spec.title}: {len(games)} game(s) from seed {seed}"
    if secret is not None:
        quoted = shlex.quote(secret)
        print(f"secret {quoted} (repeat this run with --seed {seed} --secret {quoted})")
    faults = [sum(g["faults"][i] for g in games) for i in range(len(names))]
    rows = [(name, str(summary["wins"][i]), f"{summary['mean_scores'][i]:g}", str(faults[i]))
            for i, name in enumerate(names)]
    headers = ("bot", "wins", "mean score", "faults")
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        note_rich_missing()
        print(title)
        widths = [max(len(r[c]) for r in [headers, *rows]) for c in range(4)]
        for row in [headers, *rows]:
            print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=False)))
        return
    table = Table(title=title)
    for h in headers:
        table.add_column(h, justify="left" if h == "bot" else "right")
    for row in rows:
        table.add_row(*row)
    Console().print(table)


def main(argv: list[str] | None = None) -> int:
    from engine.cli.cli_game_file import prepare
    from engine.play.game_proxy import GameCodeError

    try:  # an author's game (--game-file) is loaded first: its setting flags join the parser
        argv, game_file = prepare(list(sys.argv[1:] if argv is None else argv))
    except UsageError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_USAGE
    try:
        return _run(argv)
    except GameCodeError as exc:
        sys.stderr.write(f"error: the game failed: {exc.message}\n")
        return EXIT_GAME_FAILED
    finally:
        game_file.close()


def _run(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "match":
        return run_match(args)
    if args.command == "replay":
        return run_replay(args)
    if args.command == "tournament":
        from engine.cli.cli_tournament import run_tournament_command
        return run_tournament_command(args)
    return EXIT_USAGE


def run_replay(args: argparse.Namespace) -> int:
    """``python -m engine replay FILE``: verify the file, print its summary or the first difference
    (with ``--turn``: a turn's input, re-fed to ``--bot``: ``engine.cli.cli_reproduce``)."""
    from engine.cli.cli_reproduce import run_reproduce, wants_reproduce
    try:
        with args.file.open(encoding="utf-8") as handle:
            text = handle.read(MAX_DOCUMENT_CHARS + 1)
    except OSError as exc:
        sys.stderr.write(f"error: cannot read {args.file}: {exc.strerror or exc}\n")
        return EXIT_USAGE
    except UnicodeDecodeError as exc:
        sys.stderr.write(f"refused: {args.file} is not UTF-8 text ({exc.reason} at byte {exc.start})\n")
        return EXIT_USAGE if wants_reproduce(args) else EXIT_REFUSED
    if wants_reproduce(args):
        return run_reproduce(args, text)
    try:
        document = verify_any(text)  # a game, a series, or a tournament's bundle
    except ReplayError as exc:
        sys.stderr.write(f"refused: {exc}\n")
        return EXIT_REFUSED
    spec = get_game(document["game"])
    summary = document["summary"]
    if args.json:
        print(json.dumps({"verified": True, "game": spec.name, "bots": document["bots"],
                          "records": len(document["records"]), **summary}))
    else:
        title = f"{spec.title}: {len(summary['games'])} game(s) verified ({len(document['records'])} records)"
        _print_table(spec, None, document["bots"], 0, summary, title)
    return 0
