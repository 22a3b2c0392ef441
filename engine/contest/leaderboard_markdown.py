"""A tournament's leaderboard as Markdown, to paste into a King-of-the-Hill question.

Every KotH post carries a leaderboard table; this module writes it once for both the
command line (``python -m engine tournament ... --markdown FILE``) and the page (the
controller Worker calls ``tournament_markdown`` on the same ``Tournament``), so the same
challenge, seed, secret and step budget give the same text in both. Standard library only.

Entry names, authors and links come from strangers (a pasted bot, a Stack Exchange answer):
``cell_text`` makes each one inert text in a table cell (no cell break, no code span, no
HTML, no link, one line), and ``link_target`` keeps only plain http(s) addresses with the
characters that would end a link or a cell percent-encoded. The secret is written only
when the challenge itself made it public; otherwise the table says a secret was used.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from engine.contest.ranking import WIN_RATE

MAX_CELL_CHARS = 100  # a name or author in the table (challenge names are at most 100)
MAX_LINK_CHARS = 2_000  # as engine.contest.challenge.MAX_LINK_CHARS

# ASCII punctuation CommonMark lets a backslash escape, minus what is harmless in running
# text and common in names (. , - ' " / = ? ; @ $ % ^); ':' is escaped so no autolink forms.
_ESCAPED = set("\\`*_[](){}#!|~+:")
_HTML = {"<": "&lt;", ">": "&gt;", "&": "&amp;"}
# Bidirectional controls reorder what a reader sees around them; they go with the other
# invisible format characters (category Cf) and control characters (Cc).
_SPACES = re.compile(r"\s+")
_LINK_SAFE = re.compile(r"https?://[^\s]+\Z")
_LINK_ENCODED = {c: f"%{ord(c):02X}" for c in "()<>[]|`\"\\ {}*_"}


@dataclass(frozen=True)
class EntryCredit:
    """Who wrote an entry and where it was posted, when the challenge says so."""

    author: str | None = None
    link: str | None = None


def cell_text(value: object, limit: int = MAX_CELL_CHARS) -> str:
    """Untrusted text as one inert Markdown table cell: a single line, no markup, at most
    ``limit`` characters (then an ellipsis)."""
    text = _SPACES.sub(" ", str(value))
    kept = []
    for char in text:
        if unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co", "Cn"):
            continue
        kept.append(_HTML.get(char) or ("\\" + char if char in _ESCAPED else char))
        if len(kept) >= limit:
            kept.append("…")
            break
    return "".join(kept).strip()


def link_target(link: object) -> str | None:
    """An http(s) address fit for ``[text](address)`` in a table cell, or None."""
    if not isinstance(link, str) or len(link) > MAX_LINK_CHARS or not _LINK_SAFE.match(link):
        return None
    if any(unicodedata.category(c).startswith("C") for c in link):
        return None
    return "".join(_LINK_ENCODED.get(c, c) for c in link)


def _percent(value: float) -> str:
    return f"{value:.0%}"


def _score(ranked: Any, by: str) -> str:
    low, high = ranked.interval
    if by == WIN_RATE:
        s = ranked.standing
        return (f"{_percent(ranked.value)} ({_percent(low)}–{_percent(high)}), "
                f"{s.wins}/{s.draws}/{s.losses} W/D/L")
    if low == float("-inf") or high == float("inf"):
        return f"{ranked.value:.1f} (one game: no interval)"
    return f"{ranked.value:.1f} ± {(high - low) / 2:.1f} ({low:.1f}–{high:.1f})"


def tournament_markdown(tournament: Any, credits: list[EntryCredit | None] | None = None, *,
                        date: str, version: str, title: str | None = None,
                        public_secret: str | None = None) -> str:
    """The leaderboard of ``tournament`` (``engine.contest.tournament.Tournament``) as Markdown.

    ``credits[i]``: entry ``i``'s author and link (entries from a challenge file or a Stack
    Exchange question), None where unknown. ``date``: the day it was played (ISO, UTC),
    ``version``: the engine's. ``public_secret``: the secret when the challenge published
    it (then it is written), else None (the table says only that one was used).
    """
    credits = list(credits or [])
    credit_of = {name: credits[i] for i, name in enumerate(tournament.names)
                 if i < len(credits) and credits[i] is not None}
    by = tournament.by
    score = "Win rate (95% interval), W/D/L" if by == WIN_RATE else "Mean score ± 95% interval"
    lines = []
    if title:
        lines += [f"**{cell_text(title)}**", ""]
    lines += [f"| # | Entry | Author | {score} | Games | Faults |",
              "|--:|:--|:--|--:|--:|--:|"]
    for ranked in tournament.ranking():
        credit = credit_of.get(ranked.name) or EntryCredit()
        name = cell_text(ranked.name) or "(no name)"
        target = link_target(credit.link)
        entry = f"[{name}]({target})" if target else name
        author = cell_text(credit.author) if credit.author is not None else ""
        s = ranked.standing
        lines.append(f"| {ranked.place} | {entry} | {author} | {_score(ranked, by)} | {s.games} | "
                     f"{s.faults} |")
    failed = sum(1 for r in tournament.results.values() if r.error is not None)
    ranked_by = "win rate (a draw is half a win)" if by == WIN_RATE else "mean score per game"
    played = len(tournament.results) - failed
    facts = [f"{cell_text(tournament.spec.title)} tournament ({tournament.kind}), {played} game"
             f"{'' if played == 1 else 's'} from seed {tournament.first_seed}, ranked by {ranked_by}"]
    if failed:
        facts.append(f"{failed} game{'' if failed == 1 else 's'} failed in the game's own code and count"
                     " for no one")
    if public_secret is not None:
        facts.append(f"secret {_code(public_secret)} (from the challenge)")
    else:
        facts.append("a secret was drawn into the games' randomness (not shown)")
    if tournament.budget is not None:
        facts.append(f"step budget {tournament.budget:,} a move")
    else:
        facts.append("moves limited by wall-clock time (results can vary by machine)")
    lines += ["", "; ".join(facts) + ".", "",
              f"Played {cell_text(date)} with KotH Arena {cell_text(version)}."]
    return "\n".join(lines) + "\n"


def _code(text: str) -> str:
    """Text as an inline code span that no backtick in it can end."""
    text = _SPACES.sub(" ", text)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    return f"{fence} {text} {fence}" if longest else f"{fence}{text}{fence}"


def challenge_credits(challenge: Any) -> list[EntryCredit]:
    """The credits of a challenge's playing entries, in the tournament's entry order
    (``engine.contest.challenge.Challenge.tournament_entries``: command entries, which the
    page cannot run, are not among them)."""
    return [EntryCredit(e.author, e.link) for e in challenge.entries if e.enabled and not e.native]
