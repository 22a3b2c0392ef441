"""``tournament --cache DIR`` / ``--no-cache``: the command-line side of ``engine.contest.result_cache``.

The results live in ``DIR/results`` (``--cache`` is the flag the builds use, default
``$XDG_CACHE_HOME/koth-arena/``); the run ends with one stderr line saying how many games were
played and how many came from the cache, so a re-run shows what it saved.
"""

from __future__ import annotations

import argparse
import sys

from engine.contest.result_cache import ResultCache, default_results
from engine.contest.standings import TABLES
from engine.contest.tournament import Tournament


def add_cache_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument("--no-cache", action="store_true",
                         help="play every game: neither read nor keep results in the cache")


def result_cache(args: argparse.Namespace) -> ResultCache | None:
    if args.no_cache:
        return None
    return ResultCache(args.cache / "results" if args.cache is not None else default_results())


def report_cache(tournament: Tournament, cache: ResultCache | None) -> None:
    if cache is None:
        return
    sys.stderr.write(f"played {cache.played} games, {cache.hits} from the cache ({cache.folder})\n")
    if tournament.kind == TABLES and cache.played:
        sys.stderr.write("note: tables are drawn for the whole field, so an added or removed entry "
                         "redraws them and most games are played again; an edited entry replays "
                         "only its own games\n")
