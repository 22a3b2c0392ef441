"""``tournament --publish DIR`` and the notes of ``--markdown``: the command-line side of
``engine.contest.results_site``, ``engine.contest.standings_changes`` and
``engine.contest.run_notes_markdown``.

Before the run, ``prepare`` finds the page the site's game links open (``--page-url``, or a
built page to carry: ``--page-dir``, else ``build/site`` of this checkout or of the current
folder) and fails with one line when there is none; it also has the games' replays kept (in
a temporary folder unless ``--replays`` names one), since the faults' texts are in them.
After the run, ``standings_notes`` compares the places with the last run's of the same
challenge (kept in the cache folder) and keeps this run's; ``publish_site`` writes the site.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine.bots.entries import UsageError
from engine.contest.result_cache import default_results
from engine.contest.results_site import PageLink, PublishError, SiteInput, built_page, page_url, publish
from engine.contest.standings_changes import Changes, StandingsStore, compare, standings_key

ROOT = Path(__file__).resolve().parents[2]
NO_PAGE = ("error: the results site needs the page to play its games, and there is no built page: run "
           "python3 scripts/build.py (the site then carries build/site), or give --page-dir DIR (a built "
           "page) or --page-url URL (a hosted copy of the page)")


def add_publish_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument("--publish", type=Path, metavar="DIR",
                         help="write a static results site here: the leaderboard, the cross table, a page "
                              "per entry, every game a link to the page's viewer (replaces a site it wrote "
                              "before; refuses a folder holding anything else)")
    command.add_argument("--page-url", metavar="URL",
                         help="--publish: link the games to the page hosted at URL instead of carrying "
                              "a copy of the built page in DIR/page")
    command.add_argument("--page-dir", type=Path, metavar="DIR",
                         help="--publish: the built page to carry (default: build/site, as "
                              "scripts/build.py writes it)")


@dataclass
class Publishing:
    page: PageLink | None = None
    replays: Path | None = None  # a temporary replay folder, removed at the end


def prepare(args: argparse.Namespace) -> Publishing:
    """The page of ``--publish`` (``UsageError`` with what to do when there is none), and the
    replays kept for the faults' texts."""
    if args.publish is None:
        if args.page_url is not None or args.page_dir is not None:
            raise UsageError("--page-url and --page-dir go with --publish DIR")
        return Publishing()
    if args.page_url is not None:
        try:
            page = PageLink(url=page_url(args.page_url))
        except PublishError as exc:
            raise UsageError(str(exc)) from None
    else:
        given = [args.page_dir] if args.page_dir is not None else [ROOT / "build" / "site",
                                                                    Path.cwd() / "build" / "site"]
        source = built_page(given)
        if source is None:
            if args.page_dir is not None:
                raise UsageError(f"{args.page_dir} is not a built page (no index.html and app.js): run "
                                 "python3 scripts/build.py --out DIR, or give --page-url URL")
            raise UsageError(NO_PAGE.removeprefix("error: "))
        page = PageLink(source=source.resolve())
    out = Publishing(page)
    if args.replays is None:
        out.replays = Path(tempfile.mkdtemp(prefix="koth-arena-replays-"))
        args.replays = out.replays
    return out


def done(publishing: Publishing) -> None:
    if publishing.replays is not None:
        shutil.rmtree(publishing.replays, ignore_errors=True)


def _warn(message: str) -> None:
    sys.stderr.write(f"warning: {message}\n")


def standings_notes(args: argparse.Namespace, tournament: Any, challenge: Any,
                    question: Any) -> Changes | None:
    """The changes since the last run of this challenge or question (None: no last run, no
    challenge, or ``--no-cache``); this run's places are kept for the next."""
    if args.no_cache or (challenge is None and question is None):
        return None
    base = args.cache if args.cache is not None else default_results().parent
    store = StandingsStore(base / "standings", _warn)
    key = standings_key(tournament.spec.name, challenge.title if challenge else None,
                        (question.site, question.question_id) if question else None)
    places = [(r.name, r.place) for r in tournament.ranking()]
    changes = compare(store.read(key), places)
    store.write(key, places, datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"))
    return changes


def publish_site(args: argparse.Namespace, publishing: Publishing, tournament: Any, *, challenge: Any,
                 question: Any, skipped: list, about: list, changes: Changes | None) -> bool:
    """``--publish DIR``; False (after one line on stderr) when it cannot be written."""
    import json

    from engine import __version__
    from engine.contest.challenge import challenge_json
    from engine.contest.stackexchange import site_domain

    link = f"https://{site_domain(question.site)}/q/{question.question_id}" if question is not None else None
    site = SiteInput(
        title=challenge.title if challenge else None, origins=about, skipped=skipped,
        challenge_json=json.loads(challenge_json(challenge)) if challenge is not None else None,
        question_link=link, changes=changes, replays=args.replays,
        date=datetime.now(UTC).date().isoformat(), version=__version__)
    try:
        publish(args.publish, tournament, site, publishing.page)
    except PublishError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return False
    where = publishing.page.url or f"{args.publish}/page (a copy of {publishing.page.source})"
    sys.stderr.write(f"results site written to {args.publish} (open index.html over HTTP; games play in "
                     f"{where})\n")
    return True
