"""``python -m engine replay FILE --record R --turn T [--bot BOT] [--seat S]``: a turn re-fed.

The file is read and verified as ``replay`` does (``engine.play.replay_bundle.verify_any``),
then ``engine.play.reproduce`` derives the input of the seat(s) asked at turn T and, with
``--bot`` (the forms ``match`` takes, sandboxed as ``match`` runs them), asks that bot again
each turn its seat was asked up to T. Exit code 0: the input printed (and every answer
agrees); 1: an answer differs from the record (the first such turn is printed); 2: bad
arguments or a file that is not a verified replay, one line.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys

from engine.bots.entries import UsageError, bot_from_entry, entry_from_form
from engine.bots.sandbox import Limits
from engine.cli.options import EXIT_USAGE, _non_negative, _positive, bots_sandbox
from engine.games.registry import game_names, get_game
from engine.play.replay import ReplayError, parse_document
from engine.play.replay_bundle import verify_any
from engine.play.reproduce import (
    ReproduceError,
    Reproduction,
    SeatInput,
    choose_seats,
    pick_record,
    reproduce,
)

EXIT_DIFFERS = 1


def add_reproduce_arguments(replay: argparse.ArgumentParser) -> None:
    """``replay``'s flags that re-feed a turn (``--turn`` turns them on)."""
    replay.add_argument("--turn", type=_positive, metavar="T",
                        help="print the input the seat(s) asked at turn T were sent (from 1, as "
                             "the viewer counts), derived by the rules")
    replay.add_argument("--record", type=_positive, metavar="R",
                        help="the record (game) of the file, from 1 (default 1)")
    replay.add_argument("--seat", type=_non_negative, metavar="S",
                        help="the seat to show, from 0 (default: the seat asked at T, or with "
                             "--bot the seat of the bot's name)")
    replay.add_argument("--bot", metavar="BOT",
                        help="re-feed this bot (a .py file, py2:FILE.py, cmd:COMMAND or "
                             "builtin:NAME) turns 1..T and compare its answers with the record's")
    replay.add_argument("--raw", action="store_true",
                        help="print only the input's lines (one seat), e.g. to pipe into a script")
    replay.add_argument("--no-sandbox", action="store_true",
                        help="run the bot's process without the sandbox (trusted bots only)")
    replay.add_argument("--memory-limit", type=_positive, default=Limits.memory_mb, metavar="MB",
                        help=f"memory (address space) of the bot's process (default {Limits.memory_mb})")


def wants_reproduce(args: argparse.Namespace) -> bool:
    return args.turn is not None or args.record is not None or args.bot is not None \
        or args.seat is not None or args.raw


def run_reproduce(args: argparse.Namespace, text: str) -> int:
    """The turn's input (and the bot's answers) from the file's ``text``; the exit code."""
    if args.turn is None:
        return _usage("--record, --bot, --seat and --raw go with --turn T")
    args.record = args.record or 1
    try:
        document = verify_any(text)
    except ReplayError as exc:
        game = _unknown_game(text)
        if game is not None:
            return _usage(f"the replay is of the game {game!r}, which this engine does not know: "
                          "give its module with --game-file FILE")
        return _usage(f"{args.file} is not a replay this engine verifies: {one_line(str(exc))}")
    spec = get_game(document["game"])
    try:
        record = pick_record(document, args.record)
        bot, seats = None, None
        if args.bot is not None:
            entry = entry_from_form(args.bot, spec.name)
            seats = choose_seats(record, args.turn, args.seat, entry.name)
            sandbox = bots_sandbox([entry], spec.name, args)
            bot = bot_from_entry(entry, spec.name, sandbox, record.get("budget"))
        else:
            seats = choose_seats(record, args.turn, args.seat, None)
        if args.raw and len(seats) != 1:
            raise ReproduceError("--raw prints one seat's input: say which with --seat S")
        result = reproduce(spec, record, args.turn, seats, bot)
    except (UsageError, ReproduceError, ValueError) as exc:
        return _usage(one_line(str(exc)))
    differs = result.first_difference is not None or result.start_difference is not None
    if args.raw:
        sys.stdout.write(result.inputs[0].text())
        return EXIT_DIFFERS if differs else 0
    if args.json:
        print(json.dumps({"record": args.record, **result.to_json()}))
        return EXIT_DIFFERS if differs else 0
    return _print(args, result, bot.name if bot is not None else None)


def _print(args: argparse.Namespace, result: Reproduction, bot_name: str | None) -> int:
    where = f"record {args.record}, turn {result.turn}"
    for seat_input in result.inputs:
        _print_input(where, seat_input)
    if bot_name is None:
        return 0
    seat = result.inputs[0]
    at_turn = result.compared[-1]
    print(f"{bot_name} answers now: {at_turn.now.show()}   (recorded: {at_turn.recorded.show()})")
    if result.error:
        print(f"it raised: {one_line(result.error)}")
    if result.output:
        print(f"it printed:\n{result.output.rstrip()}")
    if result.start_difference:
        print(f"differs at the start: {result.start_difference}")
    first = result.first_difference
    if first is not None:
        print(f"first difference: turn {first.turn}: {bot_name} answers {first.now.show()}, "
              f"the record has {first.recorded.show()}")
        return EXIT_DIFFERS
    if result.start_difference:
        return EXIT_DIFFERS
    print(f"all {len(result.compared)} answers of seat {seat.seat} up to turn {result.turn} "
          "agree with the record")
    return 0


def _print_input(where: str, seat_input: SeatInput) -> None:
    count = len(seat_input.lines)
    print(f"{where}: seat {seat_input.seat} ({seat_input.name}) was sent "
          f"{count} line{'' if count == 1 else 's'}:")
    for line in seat_input.lines:
        print(line)
    if seat_input.argv is not None:
        if list(seat_input.argv) == ["\n".join(seat_input.lines)]:
            print("and as its argv: bot.py, then the same lines as one argument")
        else:
            print(f"and as its argv: {shlex.join(['bot.py', *seat_input.argv])}")


def _unknown_game(text: str) -> str | None:
    """The game a replay names when the engine does not know it (an author's game), else None."""
    try:
        name = parse_document(text).get("game")
    except ReplayError:
        return None
    return name if isinstance(name, str) and name not in game_names() else None


def one_line(text: str, limit: int = 500) -> str:
    """Text (a bot's or the file's) on one line of at most ``limit`` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _usage(message: str) -> int:
    sys.stderr.write(f"error: {message}\n")
    return EXIT_USAGE
