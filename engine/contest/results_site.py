"""``tournament --publish DIR``: a tournament as a static results site.

What a challenge's readers want after a run: the leaderboard, the cross table, each entry's
page (its code, its games, its faults with the error text), each game watchable in the
page's viewer (its one-game link, ``engine.contest.game_link``), and the challenge's trial version
(the page's challenge link). The site is plain files with relative links only, so any static
host serves it, from a sub-path too. The results pages need no script: each carries a
Content-Security-Policy that allows none (``CSP``) and its one stylesheet.

The page itself (which plays the linked games) needs HTTP: the site carries a copy of the
built page (``scripts/build.py``'s output) in ``page/``, or its links point at a hosted
copy (``page_url``). Everything from answers (names, authors, code, fault messages,
reasons) is HTML-escaped, invisible and control characters shown as ``<U+202E>``; sizes are
bounded and each page says what it leaves out (``MAX_*``).

Written atomically: the whole site goes to a temporary folder beside ``DIR``, which then
takes ``DIR``'s place, so an interrupted publish leaves the previous site (or none). A ``DIR``
that holds anything but a previous site (its ``MARKER`` file) is refused, never replaced.
Standard library only.
"""

from __future__ import annotations

import html
import json
import os
import shutil
import tempfile
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from engine.contest.game_link import CHALLENGE_LINK_PREFIX, NoLink, game_link_fragment, pack
from engine.contest.leaderboard_markdown import link_target
from engine.contest.standings import PAIRS, cross_table, leaderboard_rows
from engine.core.outcome import FaultKind
from engine.core.replay_limits import MAX_DOCUMENT_CHARS
from engine.play.replay import ReplayError, parse_document

MARKER = ".koth-arena-results"
PAGE_DIR = "page"
CSP = ("default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'")
MAX_CROSS_ENTRIES = 40  # a wider cross table is unreadable; the first places are shown
MAX_GAMES_LISTED = 1_000  # per entry page
MAX_PAGE_LINK_CHARS = 8_000_000  # the game links of one page, together
MAX_GAME_LINK_CHARS = 2_000_000  # Chrome opens no longer URL
MAX_FAULTS_LISTED = 100  # per entry
MAX_FAULT_CHARS = 1_000
MAX_REASON_CHARS = 2_000
MAX_SKIPPED_LISTED = 1_000
MAX_CODE_CHARS = 256 * 1024  # engine.contest.challenge.MAX_CODE_BYTES
MAX_TEXT_CHARS = 200  # a name, an author, a title

STYLE = """body{font:16px/1.45 system-ui,sans-serif;margin:0 auto;max-width:72rem;padding:1rem;color:#1b1b1b}
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #bbb;padding:.2rem .5rem;text-align:left}
td.n,th.n{text-align:right}pre{background:#f4f4f4;padding:.6rem;overflow:auto;max-height:40rem}
.note{color:#555}a{color:#0645ad}
"""


class PublishError(Exception):
    """The site cannot be written: one line for the user."""


@dataclass(frozen=True)
class PageLink:
    """Where the page is: ``source`` (a built page to carry in ``page/``) or ``url`` (hosted)."""

    source: Path | None = None
    url: str | None = None

    def href(self, depth: int) -> str:
        """The page's address from a file ``depth`` folders below the site's root."""
        if self.url is not None:
            return self.url
        return "../" * depth + f"{PAGE_DIR}/index.html"


@dataclass
class Origin:
    """An entry's author, answer address and posted code (None where unknown)."""

    author: str | None = None
    link: str | None = None
    code: str | None = None
    language: str | None = None


@dataclass
class SiteInput:
    """What a results site shows besides the tournament."""

    title: str | None = None
    origins: list[Origin | None] = field(default_factory=list)  # by entry index
    skipped: list[Any] = field(default_factory=list)  # engine.contest.stackexchange.AnswerProblem
    challenge_json: dict | None = None  # the trial version's challenge file
    question_link: str | None = None
    changes: Any = None  # engine.contest.standings_changes.Changes
    replays: Path | None = None  # the tournament's replay folder (match-00001.json, ...)
    date: str = ""
    version: str = ""


def page_url(url: str) -> str:
    """``--page-url``: an http(s) address of a hosted page, without its fragment."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname or len(url) > 2_000:
        raise PublishError(f"--page-url must be an http(s) address of the page, got {url[:100]!r}")
    return parts._replace(fragment="").geturl()


def built_page(candidates: Iterable[Path]) -> Path | None:
    """The first folder that holds a built page (index.html and app.js, as scripts/build.py
    writes them)."""
    for folder in candidates:
        if (folder / "index.html").is_file() and (folder / "app.js").is_file():
            return folder
    return None


# -- text ---------------------------------------------------------------------------------

def text(value: object, limit: int = MAX_TEXT_CHARS, lines: bool = False) -> str:
    """Untrusted text as HTML: escaped, invisible and control characters made visible,
    one line unless ``lines``, at most ``limit`` characters (then "… (cut)")."""
    value = str(value)
    cut = len(value) > limit
    value = value[:limit]
    shown = []
    for char in value:
        if lines and char in "\n\t":
            shown.append(char)
        elif unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            shown.append(" " if char in "\n\r\t" else f"<U+{ord(char):04X}>")
        else:
            shown.append(char)
    out = html.escape("".join(shown), quote=True)
    return out + (" … (cut)" if cut else "")


def attr(value: str) -> str:
    return html.escape(value, quote=True)


def _document(title: str, body: list[str], depth: int) -> str:
    up = "../" * depth
    return "\n".join([
        "<!doctype html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        '<meta name="referrer" content="no-referrer">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{title}</title>", f'<link rel="stylesheet" href="{up}style.css">', "</head>", "<body>",
        *body, "</body>", "</html>", ""])


def _outside(link: str | None, label: str) -> str:
    target = link_target(link) if link else None
    if target is None:
        return label
    return f'<a href="{attr(target)}" rel="nofollow noopener noreferrer">{label}</a>'


# -- the site -----------------------------------------------------------------------------

class _Site:
    def __init__(self, tournament: Any, about: SiteInput, page: PageLink) -> None:
        self.t = tournament
        self.about = about
        self.page = page
        self.ranking = tournament.ranking()
        self.place = {r.name: r.place for r in self.ranking}
        self.results = tournament.ordered_results()
        self.faults = self._faults()

    def origin(self, entry: int) -> Origin:
        origins = self.about.origins
        return (origins[entry] if entry < len(origins) else None) or Origin()

    def entry_href(self, entry: int, depth: int) -> str:
        return ("" if depth else "entries/") + f"{entry + 1}.html"

    def title(self) -> str:
        return text(self.about.title) if self.about.title else f"{text(self.t.spec.title)} tournament"

    # index.html
    def index(self) -> str:
        t = self.t
        body = [f"<h1>{self.title()}</h1>"]
        failed = sum(1 for r in self.results if r.error is not None)
        budget = (f"a step budget of {t.budget:,} a move" if t.budget is not None
                  else "moves limited by wall-clock time (results can vary by machine)")
        body.append(f"<p>{text(t.spec.title)} tournament ({t.kind}), {len(self.results) - failed} games from "
                    f"seed {t.first_seed}, {budget}. Played {text(self.about.date)} with KotH Arena "
                    f"{text(self.about.version)}.</p>")
        if failed:
            body.append(f"<p>{failed} games failed in the game's own code and count for no one.</p>")
        links = []
        if self.about.challenge_json is not None:
            href = f"{self.page.href(0)}#{CHALLENGE_LINK_PREFIX}{pack(self.about.challenge_json)}"
            links.append(f'<a href="{attr(href)}">Try the challenge in the page (its trial version)</a>')
        if self.about.question_link:
            links.append(_outside(self.about.question_link, "The question"))
        if links:
            body.append("<p>" + " · ".join(links) + "</p>")
        body += self._changes()
        body += self._leaderboard()
        body += self._cross()
        body += self._skipped()
        return _document(self.title(), body, 0)

    def _changes(self) -> list[str]:
        changes = self.about.changes
        if changes is None:
            return []
        if changes.none:
            return [f"<p>No change in the standings since the last run ({text(changes.since)}).</p>"]
        items = ([f"<li>new: {text(n)}</li>" for n in changes.new]
                 + [f"<li>up {k}: {text(n)}</li>" for n, k in changes.up]
                 + [f"<li>down {k}: {text(n)}</li>" for n, k in changes.down]
                 + [f"<li>gone: {text(n)}</li>" for n in changes.gone])
        return [f"<h2>Changes since the last run ({text(changes.since)})</h2>", "<ul>", *items, "</ul>"]

    def _leaderboard(self) -> list[str]:
        index = {name: i for i, name in enumerate(self.t.names)}
        by_rate = self.t.by == "win_rate"
        rows = ["<h2>Leaderboard</h2>", "<table>",
                f'<tr><th class="n">#</th><th>entry</th><th>author</th><th class="n">games</th>'
                f'<th class="n">{"W/D/L" if by_rate else "mean ± 95%"}</th><th>95% interval</th>'
                f'<th class="n">faults</th><th>settled</th></tr>']
        for row in leaderboard_rows(self.ranking, self.t.by):
            entry = index[row["name"]]
            origin = self.origin(entry)
            rows.append(
                f'<tr><td class="n">{row["place"]}</td><td><a href="{self.entry_href(entry, 0)}">'
                f'{text(row["name"])}</a></td><td>{text(origin.author) if origin.author else ""}</td>'
                f'<td class="n">{row["games"]}</td><td class="n">{text(row["measure"])}</td>'
                f'<td>{text(row["interval"])}</td><td class="n">{row["faults"]}</td>'
                f'<td>{"settled" if row["settled"] else ""}</td></tr>')
        return [*rows, "</table>"]

    def _cross(self) -> list[str]:
        if self.t.kind != PAIRS:
            return []
        names = [r.name for r in self.ranking][:MAX_CROSS_ENTRIES]
        cross = cross_table(self.t.names, self.results, [r.name for r in self.ranking])
        out = ["<h2>Cross table</h2>", '<p class="note">Wins-draws-losses of the row against the column.</p>',
               "<table>", "<tr><th></th>" + "".join(f"<th>{text(n, 40)}</th>" for n in names) + "</tr>"]
        for a in names:
            cells = "".join("<td>·</td>" if a == b else
                            '<td class="n">{wins}-{draws}-{losses}</td>'.format(**cross[a][b]) for b in names)
            out.append(f"<tr><th>{text(a, 40)}</th>{cells}</tr>")
        out.append("</table>")
        if len(self.ranking) > MAX_CROSS_ENTRIES:
            out.append(f'<p class="note">The cross table shows the first {MAX_CROSS_ENTRIES} places of '
                       f"{len(self.ranking)}; each entry's page lists all its games.</p>")
        return out

    def _skipped(self) -> list[str]:
        skipped = self.about.skipped
        if not skipped:
            return []
        out = [f"<h2>Answers not in the tournament ({len(skipped)})</h2>", "<ul>"]
        for problem in skipped[:MAX_SKIPPED_LISTED]:
            who = text(problem.name) if problem.name else (
                f"answer {problem.answer_id}" if problem.answer_id else "an answer")
            by = f" by {text(problem.author)}" if problem.author else ""
            reason = text(problem.reason, MAX_REASON_CHARS)
            out.append(f"<li>{_outside(problem.link, who)}{by}: {reason}</li>")
        out.append("</ul>")
        if len(skipped) > MAX_SKIPPED_LISTED:
            out.append(f'<p class="note">{len(skipped) - MAX_SKIPPED_LISTED} more are not listed here.</p>')
        return out

    # entries/N.html
    def entry_page(self, entry: int) -> str:
        t = self.t
        name = t.names[entry]
        origin = self.origin(entry)
        e = t.entries[entry]
        body = [f'<p><a href="../index.html">{self.title()}</a></p>', f"<h1>{text(name)}</h1>"]
        facts = [f"place {self.place.get(name, '?')} of {len(self.ranking)}"]
        if origin.author:
            facts.append(f"by {text(origin.author)}")
        language = origin.language or (e.language if e.kind == "python" else None)
        if language:
            facts.append(f"in {text(language)}")
        if origin.link:
            facts.append(_outside(origin.link, "its answer"))
        body.append("<p>" + ", ".join(facts) + "</p>")
        body += self._code(e, origin)
        body += self._games_of(entry)
        body += self._faults_of(entry)
        return _document(f"{text(name)}: {self.title()}", body, 1)

    def _code(self, e: Any, origin: Origin) -> list[str]:
        if origin.code is not None:
            code, what = origin.code, "Its code"
        elif e.kind == "python":
            code, what = e.text, "Its code"
        elif e.kind == "builtin":
            try:
                code, what = self.t.spec.example_source(e.text), f"Its code (the example bot {text(e.text)})"
            except ValueError:
                code, what = e.text, "A built-in bot"
        else:
            code, what = e.text, "Its command"
        return [f"<h2>{what}</h2>", f"<pre><code>{text(code, MAX_CODE_CHARS, lines=True)}</code></pre>"]

    def _games_of(self, entry: int) -> list[str]:
        t = self.t
        mine = [r for r in self.results if entry in r.table]
        out = [f"<h2>Its games ({len(mine)})</h2>"]
        if t.spec.game_module is None:
            out.append('<p class="note">“Watch” opens the game in the page, which plays it again from its '
                       "seed, secret and the bots' code and says whether the scores match.</p>")
        out += ["<table>", '<tr><th class="n">game</th><th class="n">seed</th><th>seats</th><th>scores</th>'
                '<th class="n">its faults</th><th>viewer</th></tr>']
        spent = 0
        for r in mine[:MAX_GAMES_LISTED]:
            seats = ", ".join(text(t.names[e]) if e == entry else
                              f'<a href="{self.entry_href(e, 1)}">{text(t.names[e])}</a>' for e in r.table)
            faults = sum(f for e, f in zip(r.table, r.faults, strict=True) if e == entry)
            scores = "–".join(map(str, r.scores)) if r.error is None else f"failed: {text(r.error, 300)}"
            label = f"Game {r.index + 1} of {self.about.title or t.spec.title}"
            try:
                fragment = game_link_fragment(t, r, label)
                href = f"{self.page.href(1)}#{fragment}"
                if len(href) > MAX_GAME_LINK_CHARS:
                    raise NoLink("its link is over 2 MB")
                if spent + len(href) > MAX_PAGE_LINK_CHARS:
                    raise NoLink("this page's links are over 8 MB")
                spent += len(href)
                watch = f'<a href="{attr(href)}">watch</a>'
            except NoLink as exc:
                watch = f'<span class="note">no link: {text(str(exc))}</span>'
            out.append(f'<tr><td class="n">{r.index + 1}</td><td class="n">{r.seed}</td><td>{seats}</td>'
                       f'<td>{scores}</td><td class="n">{faults}</td><td>{watch}</td></tr>')
        out.append("</table>")
        if len(mine) > MAX_GAMES_LISTED:
            out.append(f'<p class="note">The first {MAX_GAMES_LISTED} of its {len(mine)} games are '
                       "listed.</p>")
        return out

    def _faults_of(self, entry: int) -> list[str]:
        faults = self.faults.get(entry, [])
        total = sum(f for r in self.results for e, f in zip(r.table, r.faults, strict=True) if e == entry)
        if not total:
            return ["<h2>Its faults</h2>", "<p>None.</p>"]
        out = [f"<h2>Its faults ({total})</h2>"]
        if not faults:
            out.append('<p class="note">The games\' replays were not kept, so the error texts are not '
                       "here.</p>")
            return out
        out.append("<ul>")
        for game, turn, kind, message in faults[:MAX_FAULTS_LISTED]:
            where = f"game {game}, turn {turn}" if turn else f"game {game}, at its start"
            out.append(f"<li>{where}: {text(kind, 40)}: <code>{text(message, MAX_FAULT_CHARS)}</code></li>")
        out.append("</ul>")
        if total > MAX_FAULTS_LISTED:
            shown = min(len(faults), MAX_FAULTS_LISTED)
            out.append(f'<p class="note">The first {shown} faults are listed.</p>')
        return out

    def _faults(self) -> dict[int, list[tuple[int, int, str, str]]]:
        """Each entry's faults from the replays (game number, turn, kind, message), the first
        ``MAX_FAULTS_LISTED`` of each; a replay that cannot be read gives none."""
        out: dict[int, list[tuple[int, int, str, str]]] = {}
        if self.about.replays is None:
            return out
        for r in self.results:
            if not any(r.faults) or all(len(out.get(e, [])) >= MAX_FAULTS_LISTED for e in r.table):
                continue
            replay = self.about.replays / f"match-{r.index + 1:05d}.json"
            for bot, turn, kind, message in _replay_faults(replay):
                if 0 <= bot < len(r.table):
                    listed = out.setdefault(r.table[bot], [])
                    if len(listed) < MAX_FAULTS_LISTED:
                        listed.append((r.index + 1, turn, kind, message))
        return out


def _replay_faults(path: Path) -> Iterable[tuple[int, int, str, str]]:
    """(bot, turn number, kind, message) of every fault in a replay file (``bot``: its place in
    the match's seating); none when it cannot be read (a file of the cache: untrusted)."""
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_DOCUMENT_CHARS:
            return []
        document = parse_document(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ReplayError):
        return []
    found = []
    records = document.get("records")
    for record in records if isinstance(records, list) else []:
        if not isinstance(record, dict):
            continue
        turns, bot_index = record.get("turns"), record.get("bot_index")
        if not (isinstance(bot_index, list) and all(type(b) is int for b in bot_index)):
            continue
        for number, turn in enumerate(turns if isinstance(turns, list) else [], 1):
            if not isinstance(turn, dict):
                continue
            seats, faults = turn.get("seats"), turn.get("faults")
            if not isinstance(seats, list) or not isinstance(faults, list):
                continue
            for seat, fault in zip(seats, faults, strict=False):
                if isinstance(fault, dict) and type(seat) is int and 0 <= seat < len(bot_index):
                    kind, message = str(fault.get("kind", "fault")), str(fault.get("message", ""))
                    if kind == FaultKind.FROZEN:  # not asked: not a fault of its own, and not counted
                        continue
                    found.append((bot_index[seat], number, kind, message))
    return found


# -- writing --------------------------------------------------------------------------------

def publish(folder: Path, tournament: Any, about: SiteInput, page: PageLink) -> list[str]:
    """Write the site into ``folder`` (replacing a previous site there); the notes of what
    was left out. ``PublishError`` when it cannot be written."""
    folder = Path(folder)
    _check_target(folder)
    site = _Site(tournament, about, page)
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f".{folder.name}.tmp-", dir=folder.parent))
    except OSError as exc:
        raise PublishError(f"cannot write the site beside {folder}: {exc.strerror or exc}") from None
    try:
        (work / MARKER).write_text("a KotH Arena results site (python -m engine tournament --publish)\n")
        (work / "style.css").write_text(STYLE, encoding="utf-8")
        (work / "index.html").write_text(site.index(), encoding="utf-8")
        (work / "entries").mkdir()
        for entry in range(len(tournament.entries)):
            (work / "entries" / f"{entry + 1}.html").write_text(site.entry_page(entry), encoding="utf-8")
        if page.source is not None:
            shutil.copytree(page.source, work / PAGE_DIR, symlinks=False)
        (work / "results.json").write_text(json.dumps(tournament.to_json()), encoding="utf-8")
        _swap(work, folder)
    except OSError as exc:
        shutil.rmtree(work, ignore_errors=True)
        raise PublishError(f"cannot write the site {folder}: {exc.strerror or exc}") from None
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return []


def _check_target(folder: Path) -> None:
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise PublishError(f"{folder} is not a folder: give --publish a new or empty folder")
    if folder.is_dir() and any(folder.iterdir()) and not (folder / MARKER).is_file():
        raise PublishError(f"{folder} holds other files: give --publish a new or empty folder, or one "
                           "it wrote before (it is replaced)")


def _swap(work: Path, folder: Path) -> None:
    """``work`` takes ``folder``'s place: the old site is moved aside, then removed."""
    os.chmod(work, 0o755)  # mkdtemp's 0700 would hide the site from a web server's user
    old = None
    if folder.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{folder.name}.old-", dir=folder.parent))
        os.replace(folder, old / "site")
    os.replace(work, folder)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
