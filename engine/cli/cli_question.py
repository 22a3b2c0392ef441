"""``tournament --question ID_OR_URL --commands FILE``: the command-line side of a question's
field (``engine.contest.question_entries``): the flags, the fetch, the build sandbox, and the
skipped answers' report (stderr at the end, or the ``skipped`` list of ``--json``)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

from engine.bots.entries import Entry, UsageError
from engine.bots.sandbox import Limits, Sandbox, SandboxError, Unsandboxed
from engine.cli.cli_status import status
from engine.contest.build_cache import default_cache
from engine.contest.challenge import Challenge
from engine.contest.command_entries import NO_COMMANDS, CommandsError, read_commands
from engine.contest.question_entries import About, Builder, Field, answers_field, command_entries_field
from engine.contest.se_fetch import FetchError, fetch_answers
from engine.contest.stackexchange import (
    DEFAULT_SITE,
    AnswerProblem,
    QuestionRef,
    QuestionRefError,
    parse_question_ref,
)

SLEEP: Callable[[float], None] = time.sleep  # the API's backoff; tests put their own here


def add_question_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument("--question", metavar="ID_OR_URL",
                         help="add the answers of this Stack Exchange question (a number or its URL; "
                              "default: the challenge file's question) as entries")
    command.add_argument("--se-api", metavar="URL",
                         help="the Stack Exchange API's server (default https://api.stackexchange.com)")
    command.add_argument("--commands", type=Path, metavar="FILE",
                         help="how to build and run answers in other languages (JSON or TOML: "
                              '{"C": {"build": "gcc -O2 -o {dir}/bot {file}", "run": "{dir}/bot"}})')
    command.add_argument("--cache", type=Path, metavar="DIR",
                         help=f"where built programs and finished games are kept (default: "
                              f"builds in {default_cache()}, games beside it in results/; with "
                              f"DIR, games in DIR/results)")


def question_entries(args: argparse.Namespace, challenge: Challenge | None,
                     skipped: list[AnswerProblem] | None, about: list[About] | None = None) -> list[Entry]:
    """The entries the question's answers and the challenge's command entries add; the ones
    left out go to ``skipped``, each entry's origin to ``about``. ``UsageError`` (one line)
    when the answers cannot be read."""
    natives = challenge.command_entries() if challenge is not None else []
    try:
        ref = _question_ref(args, challenge)
    except QuestionRefError as exc:
        raise UsageError(str(exc)) from None
    if ref is None and not natives:
        return []
    try:
        commands = read_commands(args.commands) if args.commands is not None else NO_COMMANDS
    except CommandsError as exc:
        raise UsageError(str(exc)) from None
    with status("building the challenge's command entries…") as shown:
        builder = Builder(commands, args.cache or default_cache(), _build_sandbox(args),
                          lambda name: shown.update(f"building {name[:60]}…"))
        field = command_entries_field(natives, builder)
    if ref is not None:
        with status(f"fetching the answers of question {ref.question_id}…"):
            try:
                fetched = fetch_answers(ref, args.se_api, sleep=SLEEP)
            except FetchError as exc:
                raise UsageError(str(exc)) from None
        with status(f"reading {len(fetched.items)} answers…") as shown:
            builder.progress = lambda name: shown.update(f"building {name[:60]}…")
            answers = answers_field(fetched.items, ref.site, builder)
        field.entries += answers.entries
        field.skipped += answers.skipped
        field.about += answers.about
        if fetched.note:
            field.skipped.append(AnswerProblem("too-many", fetched.note, None, None, None, None))
    if skipped is not None:
        skipped += field.skipped
    if about is not None:
        about += field.about
    return field.entries


def question_of(args: argparse.Namespace, challenge: Challenge | None) -> QuestionRef | None:
    """The question whose answers joined the field (None: none, or one that names no question)."""
    try:
        return _question_ref(args, challenge)
    except QuestionRefError:
        return None


def _question_ref(args: argparse.Namespace, challenge: Challenge | None) -> QuestionRef | None:
    """``--question``, else the challenge file's question, else None."""
    named = challenge.question if challenge is not None else None
    if args.question is not None:
        return parse_question_ref(args.question, named.site if named is not None else DEFAULT_SITE)
    return QuestionRef(named.site, named.id) if named is not None else None


def _build_sandbox(args: argparse.Namespace) -> Callable[[], Sandbox | Unsandboxed]:
    """The builds' sandbox, probed on the first build only."""
    made: list[Sandbox | Unsandboxed] = []

    def sandbox() -> Sandbox | Unsandboxed:
        if not made:
            if args.no_sandbox:
                made.append(Unsandboxed(Limits()))
            else:
                probe = Sandbox(Limits())
                try:
                    probe.probe()
                except SandboxError as exc:
                    raise UsageError(f"the build sandbox cannot start: {exc}; install bubblewrap, or "
                                     "pass --no-sandbox (trusted code only)") from None
                made.append(probe)
        return made[0]
    return sandbox


def report_skipped(skipped: list[AnswerProblem]) -> None:
    """The answers that play no game, one line each, at the end of the run (stderr)."""
    if not skipped:
        return
    sys.stderr.write(f"{len(skipped)} answer{'s' if len(skipped) != 1 else ''} skipped:\n")
    for problem in skipped:
        who = problem.name or (f"answer {problem.answer_id}" if problem.answer_id else "an answer")
        where = f" ({problem.link})" if problem.link else ""
        sys.stderr.write(f"  {who}{where}: {problem.reason}\n")


def skipped_json(skipped: list[AnswerProblem]) -> list[dict]:
    return [problem.to_json() for problem in skipped]


__all__ = ["Field", "add_question_arguments", "question_entries", "question_of", "report_skipped",
           "skipped_json"]
