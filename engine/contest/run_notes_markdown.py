"""The notes under a posted leaderboard: what changed since the last run, and the answers
that play no game with the reason, each linked to its answer.

``python -m engine tournament --markdown FILE`` appends these to the leaderboard of
``engine.contest.leaderboard_markdown``; every name, author and reason comes from an answer, so each
goes through the same ``cell_text`` (one inert line: no link, emphasis, HTML or line break
of its own) and every link through ``link_target``. Standard library only.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.contest.leaderboard_markdown import cell_text, link_target
from engine.contest.standings_changes import Changes

MAX_REASON_CHARS = 300  # a build's error output is longer: the full text is on stderr and in --json
MAX_SKIPPED_LISTED = 200


def changes_markdown(changes: Changes | None) -> str:
    """``Changes since the last run (DATE):`` and a list (``- new: X``, ``- up 2: Y``, ...); ""
    without a last run or without a change (a re-run with nothing new posts the same text)."""
    if changes is None or changes.none:
        return ""
    since = cell_text(changes.since)
    lines = [f"Changes since the last run ({since}):", ""]
    lines += [f"- new: {cell_text(n)}" for n in changes.new]
    lines += [f"- up {k}: {cell_text(n)}" for n, k in changes.up]
    lines += [f"- down {k}: {cell_text(n)}" for n, k in changes.down]
    lines += [f"- gone: {cell_text(n)}" for n in changes.gone]
    return "\n".join(lines) + "\n"


def skipped_markdown(skipped: Iterable[Any]) -> str:
    """The skipped answers (``engine.contest.stackexchange.AnswerProblem``), one line each, linked to
    the answer when it has an address; "" when none."""
    skipped = list(skipped)
    if not skipped:
        return ""
    lines = [f"Answers not in the tournament ({len(skipped)}):", ""]
    for problem in skipped[:MAX_SKIPPED_LISTED]:
        who = cell_text(problem.name) if problem.name else (
            f"answer {problem.answer_id}" if problem.answer_id else "an answer")
        target = link_target(problem.link)
        who = f"[{who or 'an answer'}]({target})" if target else who
        by = f" by {cell_text(problem.author)}" if problem.author else ""
        lines.append(f"- {who}{by}: {cell_text(problem.reason, MAX_REASON_CHARS)}")
    if len(skipped) > MAX_SKIPPED_LISTED:
        lines.append(f"- and {len(skipped) - MAX_SKIPPED_LISTED} more (the command's output lists them all)")
    return "\n".join(lines) + "\n"
