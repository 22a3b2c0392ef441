"""``python -m engine tournament GAME BOT...``: every entry against the field, and a leaderboard.

The command line of ``engine.tournament``: it turns the arguments into a ``Tournament`` (the
bots by value, the sandbox chosen and probed here once), plays it in this process or in
``--jobs`` worker processes, and prints a leaderboard and a cross table (rich) or, with
``--json``, the tournament's one JSON object. Shares the bot arguments, the setting flags and
the sandbox choice with ``match`` (``engine.cli``).
"""

from __future__ import annotations

import argparse
import json
import secrets
import shlex
import sys
from contextlib import ExitStack
from pathlib import Path

from engine.cli import (
    EXIT_USAGE,
    add_bot_arguments,
    bots_sandbox,
    positive,
    progress_bar,
    setting_overrides,
)
from engine.entries import UsageError, entry_from_form, runs_a_process, unique_names
from engine.games.randomness import new_secret
from engine.ranking import WIN_RATE
from engine.registry import get_game
from engine.tournament import PAIRS, DaskPlayers, LocalPlayers, Tournament, run_tournament, settled_marks

UNTIL_SETTLED_FACTOR = 5  # --until-settled's default cap: this many times --games


def add_tournament_command(commands) -> None:
    tournament = commands.add_parser(
        "tournament", help="play every entry against the field and rank them",
        description="Play every entry against the field and rank them. Two-player games: every "
                    "pair plays --games games (each seed twice, the seats swapped), ranked by win "
                    "rate. Games with more seats: balanced tables, a round per seed. Score-alone "
                    "games: every entry plays the same seeds. Those two rank by mean score.")
    add_bot_arguments(tournament)
    tournament.add_argument("--games", type=positive, default=2,
                            help="games per pair (two-player, even), rounds (tables) or seeds "
                                 "(score-alone); default 2")
    tournament.add_argument("--seats", type=positive, metavar="K",
                            help="seats at a table (default: as many as the preset allows, at most "
                                 "the number of entries)")
    tournament.add_argument("--jobs", type=positive, default=1, metavar="J",
                            help="play matches in J worker processes (default 1: in this process)")
    tournament.add_argument("--scheduler", metavar="ADDRESS",
                            help="play matches on a Dask distributed cluster (tcp://HOST:8786; "
                                 "pip install 'koth-arena[dask]'); a command bot's program must "
                                 "exist on every worker")
    tournament.add_argument("--replays", type=Path, metavar="DIR",
                            help="write each match's replay here as it ends (match-00001.json, ...)")
    tournament.add_argument("--until-settled", action="store_true",
                            help="after --games, play more rounds where the ranking is not settled "
                                 "at 95%%, up to --max-games")
    tournament.add_argument("--max-games", type=positive, metavar="N",
                            help=f"--until-settled's cap: games per pair or per entry (default "
                                 f"{UNTIL_SETTLED_FACTOR} x --games)")


def _seats(spec, preset: str | None, n_entries: int, asked: int | None) -> int:
    low, high = spec.bot_range(preset)
    if spec.side_by_side:
        if asked not in (None, 1):
            raise UsageError(f"{spec.title} is played alone: --seats does not apply")
        return 1
    seats = asked if asked is not None else min(high, n_entries)
    if not low <= seats <= high:
        raise UsageError(f"{spec.title} ({spec.preset(preset).name}) seats {low} to {high} bots a "
                         f"game, not {seats}")
    if seats > n_entries:
        raise UsageError(f"tables of {seats} need at least {seats} entries, got {n_entries}")
    return seats


def build_tournament(args: argparse.Namespace) -> Tournament:
    """The tournament the arguments describe; ``UsageError`` or ``ValueError`` when they are bad."""
    spec = get_game(args.game)
    overrides = setting_overrides(spec, args)
    if len(args.bots) < 2:
        raise UsageError(f"a tournament needs at least 2 entries, got {len(args.bots)}")
    spec.settings(args.preset, **overrides)  # bad presets and setting values, before any bot
    entries = unique_names([entry_from_form(b, spec.name) for b in args.bots])
    seats = _seats(spec, args.preset, len(entries), args.seats)
    if args.replays is not None:
        try:
            args.replays.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot make the replay folder {args.replays}: {exc.strerror or exc}") from None
    sandbox = bots_sandbox(entries, spec.name, args)
    sandboxed = any(runs_a_process(e, spec.name) for e in entries) and sandbox.sandboxed
    return Tournament(
        spec, entries, args.games,
        args.seed if args.seed is not None else secrets.randbelow(2**31),
        args.secret if args.secret is not None else new_secret(),
        seats, args.preset, overrides, sandboxed, args.memory_limit, args.replays, args.budget)


def run_tournament_command(args: argparse.Namespace) -> int:
    try:
        tournament = build_tournament(args)
    except (UsageError, ValueError) as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_USAGE
    cap = args.max_games or UNTIL_SETTLED_FACTOR * args.games
    if args.scheduler and args.jobs != 1:
        sys.stderr.write("error: --jobs and --scheduler do not go together (the cluster's workers play)\n")
        return EXIT_USAGE
    with ExitStack() as stack:
        try:
            players = stack.enter_context(
                DaskPlayers(args.scheduler) if args.scheduler else LocalPlayers(args.jobs))
        except ValueError as exc:
            sys.stderr.write(f"error: {exc}\n")
            return EXIT_USAGE
        with progress_bar(2, quiet=False) as progress:
            run_tournament(tournament, players, args.until_settled, cap, on_result=progress)
    if args.json:
        print(json.dumps(tournament.to_json()))
    else:
        print_leaderboard(tournament)
    return 0


def print_leaderboard(tournament: Tournament) -> None:
    """The ranking (rich, or plain text without it), and the cross table in two-player games."""
    ranking = tournament.ranking()
    marks = settled_marks(ranking)
    quoted = shlex.quote(tournament.secret)
    print(f"secret {quoted} (repeat this run with --seed {tournament.first_seed} --secret {quoted})")
    by_rate = tournament.by == WIN_RATE
    headers = ["#", "entry", "games", "W/D/L" if by_rate else "mean ± 95%", "95% interval", "faults",
               "settled"]
    rows = []
    for r, settled in zip(ranking, marks, strict=True):
        s, (low, high) = r.standing, r.interval
        if by_rate:
            measure = f"{s.wins}/{s.draws}/{s.losses}"
            interval = f"{low:.0%}–{high:.0%} (win rate {r.value:.0%})"
        else:
            half = (high - low) / 2
            measure = f"{r.value:.1f} ± {half:.1f}" if half != float("inf") else f"{r.value:.1f}"
            interval = f"{low:.1f}–{high:.1f}" if half != float("inf") else "–"
        rows.append([str(r.place), r.name, str(s.games), measure, interval, str(s.faults),
                     "settled" if settled else ""])
    title = (f"{tournament.spec.title} tournament ({tournament.kind}, {len(tournament.results)} games "
             f"from seed {tournament.first_seed}), ranked by "
             f"{'win rate (a draw is half a win)' if by_rate else 'mean score per game'}")
    _table(title, headers, rows)
    if tournament.kind == PAIRS:
        cross = tournament.to_json()["cross"]
        names = [r.name for r in ranking]
        cells = [[a, *("·" if a == b else "{wins}-{draws}-{losses}".format(**cross[a][b]) for b in names)]
                 for a in names]
        _table("cross table: wins-draws-losses of the row against the column", ["", *names], cells)


def _table(title: str, headers: list[str], rows: list[list[str]]) -> None:
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        print(title)
        widths = [max(len(row[c]) for row in [headers, *rows]) for c in range(len(headers))]
        for row in [headers, *rows]:
            print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)))
        return
    table = Table(title=title)
    for index, header in enumerate(headers):
        table.add_column(header, justify="left" if index == 1 or not header else "right")
    for row in rows:
        table.add_row(*row)
    Console().print(table)
