"""``python -m engine tournament GAME BOT...``: every entry against the field, and a leaderboard.

The command line of ``engine.contest.tournament``: it turns the arguments into a ``Tournament`` (the
bots by value, the sandbox chosen and probed here once), plays it in this process or in
``--jobs`` worker processes, and prints a leaderboard and a cross table (rich) or, with
``--json``, the tournament's one JSON object. Shares the bot arguments, the setting flags and
the sandbox choice with ``match`` (``engine.cli.cli``). ``--challenge FILE`` reads the game, its
settings, seeds and entries from a challenge file (``engine.contest.challenge``); flags given on the
command line override the file, and BOT arguments add entries to its field.
"""

from __future__ import annotations

import argparse
import json
import secrets
import shlex
import sys
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path

from engine.bots.entries import UsageError, entry_from_form, runs_a_process, unique_names
from engine.cli.cli_publish import add_publish_arguments, prepare, publish_site, standings_notes
from engine.cli.cli_publish import done as publish_done
from engine.cli.cli_question import (
    add_question_arguments,
    question_entries,
    question_of,
    report_skipped,
    skipped_json,
)
from engine.cli.options import (
    EXIT_USAGE,
    add_bot_arguments,
    bots_sandbox,
    note_rich_missing,
    positive,
    progress_bar,
    setting_overrides,
)
from engine.cli.result_cli import add_cache_arguments, report_cache, result_cache
from engine.contest.challenge import Challenge, ChallengeError, load_challenge, read_challenge_text
from engine.contest.question_entries import About
from engine.contest.ranking import WIN_RATE
from engine.contest.standings import PAIRS, leaderboard_rows
from engine.contest.tournament import DaskPlayers, LocalPlayers, Tournament, run_tournament, tournament_seats
from engine.core.randomness import new_secret
from engine.games.registry import game_names, get_game

UNTIL_SETTLED_FACTOR = 5  # --until-settled's default cap: this many times --games
DEFAULT_GAMES = 2


def add_tournament_command(commands) -> None:
    tournament = commands.add_parser(
        "tournament", help="play every entry against the field and rank them",
        description="Play every entry against the field and rank them. Two-player games: every "
                    "pair plays --games games (each seed twice, the seats swapped), ranked by win "
                    "rate. Games with more seats: balanced tables, a round per seed. Score-alone "
                    "games: every entry plays the same seeds. Those two rank by mean score.")
    add_bot_arguments(tournament)
    _positionals_optional(tournament)
    tournament.add_argument("--challenge", type=Path, metavar="FILE",
                            help="a challenge file (JSON: game, settings, seeds, entries); then GAME "
                                 "is optional, flags given override the file and BOTs join its field")
    tournament.add_argument("--games", type=positive,
                            help=f"games per pair (two-player, even), rounds (tables) or seeds "
                                 f"(score-alone); default {DEFAULT_GAMES}")
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
    tournament.add_argument("--markdown", metavar="FILE",
                            help="write the leaderboard as Markdown here, to paste into the question "
                                 "(- for standard output)")
    add_question_arguments(tournament)
    add_cache_arguments(tournament)
    add_publish_arguments(tournament)


class _IntermixedPositionals:
    """A parser whose positionals may come on either side of options (``GAME --challenge FILE
    BOT``): argparse fills optional positionals at their first chance otherwise."""

    _intermixing = False

    def parse_known_args(self, args=None, namespace=None):
        if self._intermixing:  # parse_known_intermixed_args calls back in (Python < 3.13)
            return super().parse_known_args(args, namespace)
        self._intermixing = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._intermixing = False


def _positionals_optional(command: argparse.ArgumentParser) -> None:
    """GAME and BOT may be left out (a challenge file gives them); ``build_tournament`` asks
    for them when there is none."""
    for action in command._actions:
        if action.dest == "game":
            action.nargs, action.required = "?", False
        elif action.dest == "bots":
            action.nargs, action.required = "*", False
    command.__class__ = type("TournamentParser", (_IntermixedPositionals, type(command)), {})


def read_challenge(path: Path) -> Challenge:
    """The challenge in a file; ``UsageError`` (one line) when it cannot be read or is not one."""
    try:
        return load_challenge(read_challenge_text(path))
    except FileNotFoundError:
        raise UsageError(f"challenge file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise UsageError(f"cannot read the challenge file {path}: {reason}") from None
    except ChallengeError as exc:
        raise UsageError(f"challenge file {path}: {exc}") from None


def _game_and_forms(args: argparse.Namespace, challenge: Challenge | None) -> tuple[str, list[str]]:
    """The game and the BOT forms of the command line. With a challenge file, GAME may be left
    out: a first positional that is not a game's name is a BOT."""
    positionals = [p for p in [args.game, *args.bots] if p is not None]
    if challenge is None:
        if not positionals:
            raise UsageError("a tournament needs a GAME and its BOTs, or --challenge FILE")
        return positionals[0], positionals[1:]
    if positionals and positionals[0] in game_names():
        if positionals[0] != challenge.game:
            raise UsageError(f"the challenge file is a {challenge.game} challenge, not {positionals[0]}")
        return challenge.game, positionals[1:]
    return challenge.game, positionals


def _seats(spec, preset: str | None, n_entries: int, asked: int | None) -> int:
    try:
        return tournament_seats(spec, preset, n_entries, asked)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def build_tournament(args: argparse.Namespace, skipped: list | None = None,
                     about: list | None = None) -> Tournament:
    """The tournament the arguments describe; ``UsageError`` or ``ValueError`` when they are bad.
    Answers of ``--question`` and command entries that cannot play are added to ``skipped``;
    each entry's origin (author, answer, posted code; None for a BOT argument) to ``about``."""
    challenge = read_challenge(args.challenge) if args.challenge is not None else None
    game, forms = _game_and_forms(args, challenge)
    spec = get_game(game)
    from_file = challenge.tournament_entries() if challenge else []
    overrides = {**(challenge.settings if challenge else {}), **setting_overrides(spec, args)}
    preset = args.preset if args.preset is not None or challenge is None else challenge.preset
    spec.settings(preset, **overrides)  # bad presets and setting values, before any bot
    forms_entries = [entry_from_form(b, spec.name) for b in forms]
    origins = [About(e.author, e.link, None, e.language) for e in challenge.entries
               if e.enabled and not e.native] if challenge else []
    from_file += question_entries(args, challenge, skipped, origins)
    if about is not None:
        about += [*origins, *([None] * len(forms))]
    if len(from_file) + len(forms) < 2:
        raise UsageError(f"a tournament needs at least 2 entries, got {len(from_file) + len(forms)}")
    entries = unique_names([*from_file, *forms_entries])
    seats = _seats(spec, preset, len(entries), args.seats)
    if args.replays is not None:
        try:
            args.replays.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot make the replay folder {args.replays}: {exc.strerror or exc}") from None
    sandbox = bots_sandbox(entries, spec.name, args)
    sandboxed = any(runs_a_process(e, spec.name) for e in entries) and sandbox.sandboxed
    games = _given(args.games, challenge.games if challenge else None, DEFAULT_GAMES)
    seed = _given(args.seed, challenge.seed if challenge else None, None)
    secret = _given(args.secret, challenge.secret if challenge else None, None)
    return Tournament(
        spec, entries, games,
        seed if seed is not None else secrets.randbelow(2**31),
        secret if secret is not None else new_secret(),
        seats, preset, overrides, sandboxed, args.memory_limit, args.replays, args.budget)


def _given(flag, from_file, default):
    """A flag given on the command line, else the challenge file's value, else the default."""
    if flag is not None:
        return flag
    return from_file if from_file is not None else default


def run_tournament_command(args: argparse.Namespace) -> int:
    skipped: list = []
    about: list = []
    try:
        publishing = prepare(args)
    except UsageError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_USAGE
    try:
        return _run(args, skipped, about, publishing)
    finally:
        publish_done(publishing)


def _run(args: argparse.Namespace, skipped: list, about: list, publishing) -> int:
    try:
        tournament = build_tournament(args, skipped, about)
    except (UsageError, ValueError) as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_USAGE
    cap = args.max_games or UNTIL_SETTLED_FACTOR * tournament.games
    if args.json and args.markdown == "-":
        sys.stderr.write("error: --json and --markdown - both write to standard output: "
                         "give --markdown a FILE\n")
        return EXIT_USAGE
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
        cache = result_cache(args)
        with progress_bar(2, quiet=False) as progress:
            run_tournament(tournament, players, args.until_settled, cap, on_result=progress, cache=cache)
    report_cache(tournament, cache)
    for result in tournament.ordered_results():  # the author's game failed in these: one line each
        if result.error is not None:
            seats = " vs ".join(tournament.names[e] for e in result.table)
            sys.stderr.write(f"game {result.index + 1} (seed {result.seed}, {seats}): {result.error}\n")
    challenge = read_challenge(args.challenge) if args.challenge is not None else None
    question = question_of(args, challenge)
    changes = standings_notes(args, tournament, challenge, question)
    written = args.markdown is None or write_markdown(args, tournament, changes, skipped, about)
    if args.publish is not None:
        written = publish_site(args, publishing, tournament, challenge=challenge, question=question,
                               skipped=skipped, about=about, changes=changes) and written
    if args.json:
        out = tournament.to_json()
        if args.question is not None or args.commands is not None or skipped:
            out["skipped"] = skipped_json(skipped)
        print(json.dumps(out))
    elif args.markdown != "-":
        print_leaderboard(tournament)
    report_skipped(skipped)
    return 0 if written else EXIT_USAGE


def write_markdown(args: argparse.Namespace, tournament: Tournament, changes=None,
                   skipped: list | None = None, about: list | None = None) -> bool:
    """``--markdown FILE``: the leaderboard as the page's *Copy as Markdown* gives it
    (``engine.contest.leaderboard_markdown``), then the changes since the last run and the skipped
    answers (``engine.contest.run_notes_markdown``); False (after one line on stderr) when it cannot
    be written."""
    from engine import __version__
    from engine.contest.leaderboard_markdown import EntryCredit, challenge_credits, tournament_markdown
    from engine.contest.run_notes_markdown import changes_markdown, skipped_markdown

    challenge = read_challenge(args.challenge) if args.challenge is not None else None
    public = challenge.secret if challenge is not None and args.secret is None else None
    credits = ([a and EntryCredit(a.author, a.link) for a in about] if about
               else challenge_credits(challenge) if challenge else None)
    text = tournament_markdown(
        tournament, credits, date=datetime.now(UTC).date().isoformat(), version=__version__,
        title=challenge.title if challenge else None, public_secret=public)
    notes = [n for n in (changes_markdown(changes), skipped_markdown(skipped or [])) if n]
    text = "\n".join([text, *notes])
    if args.markdown == "-":
        sys.stdout.write(text)
        return True
    try:
        Path(args.markdown).write_text(text, encoding="utf-8")
    except OSError as exc:
        sys.stderr.write(f"error: cannot write the Markdown leaderboard {args.markdown}: "
                         f"{exc.strerror or exc}\n")
        return False
    return True


def print_leaderboard(tournament: Tournament) -> None:
    """The ranking (rich, or plain text without it), and the cross table in two-player games."""
    ranking = tournament.ranking()
    quoted = shlex.quote(tournament.secret)
    print(f"secret {quoted} (repeat this run with --seed {tournament.first_seed} --secret {quoted})")
    if tournament.budget is None:
        print("no step budget: each move was limited by the wall clock, so results can vary from run to "
              "run and machine to machine (--budget STEPS counts Python bots' steps instead)")
    by_rate = tournament.by == WIN_RATE
    headers = ["#", "entry", "games", "W/D/L" if by_rate else "mean ± 95%", "95% interval", "faults",
               "settled"]
    rows = [[str(row["place"]), row["name"], str(row["games"]), row["measure"], row["interval"],
             str(row["faults"]), "settled" if row["settled"] else ""]
            for row in leaderboard_rows(ranking, tournament.by)]
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
        note_rich_missing()
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
