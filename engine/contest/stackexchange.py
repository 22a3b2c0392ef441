"""Entries from the answers posted on a Stack Exchange question (a KotH challenge's field).

A KotH question collects its entries as answers: a header line names the bot (and often its
language, "Python 2, Edgebot"), the first code block holds its code. The page fetches the
answers from the public API (``/2.3/questions/{id}/answers?filter=withbody``, paged) and
this module turns the API's answer items into challenge entries (the fields of
``engine.contest.challenge``'s entries) and, per answer that cannot be one, a problem saying why.
An answer is a stranger's text: its body is read in linear time (``engine.contest.answer_html``,
``engine.contest.answer_header``: no regular expression touches it) and an answer that cannot be
read for any other reason is a problem of its own, so one answer never costs the others.
Standard library only: it runs in the page's controller (Pyodide) and in the tests alike.
Nothing here touches the network.
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from engine.contest.answer_header import name_and_language
from engine.contest.answer_html import read_answer
from engine.contest.challenge import LANGUAGES, MAX_CODE_BYTES, MAX_LINK_CHARS, MAX_NAME_CHARS
from engine.contest.html_text import unescape

DEFAULT_SITE = "codegolf"
API_ROOT = "https://api.stackexchange.com/2.3"
PAGE_SIZE = 100  # the API's largest page
MAX_ITEMS = 1_000  # answers read from one question (ten pages)
MAX_BODY_CHARS = 1_000_000  # an answer body past this is not read
# Reading every answer ends within this (plus one answer, at most 1 MB read in linear time):
# well inside the page's 60 s wait for the controller (web/src/se_import.js).
TIME_LIMIT_S = 20.0
_MAX_AUTHOR_CHARS = 8 * MAX_NAME_CHARS  # of a display name, before its references are decoded

# Sites whose web address is not SITE.stackexchange.com.
SITE_DOMAINS = {
    "stackoverflow": "stackoverflow.com", "superuser": "superuser.com", "serverfault": "serverfault.com",
    "askubuntu": "askubuntu.com", "mathoverflow": "mathoverflow.net",
    "stackapps": "stackapps.com",
}
_SITE = re.compile(r"^[a-z0-9][a-z0-9.-]{0,62}$")


class QuestionRefError(ValueError):
    """A question id or URL that names no question."""


@dataclass(frozen=True)
class QuestionRef:
    site: str  # the API's site parameter: "codegolf", "stackoverflow", ...
    question_id: int

    def answers_url(self, page: int = 1, pagesize: int = PAGE_SIZE) -> str:
        """The API request for one page of the question's answers, bodies included."""
        return (f"{API_ROOT}/questions/{self.question_id}/answers?site={self.site}"
                f"&filter=withbody&sort=creation&order=asc&page={page}&pagesize={pagesize}")

    def web_url(self) -> str:
        return f"https://{site_domain(self.site)}/questions/{self.question_id}"


@dataclass(frozen=True)
class ImportedEntry:
    """An answer that is a Python entry: the fields of a challenge file's entry."""
    name: str
    code: str
    language: str  # "python3" or "python2"
    author: str | None
    link: str | None
    answer_id: int | None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "code": self.code, "language": self.language}
        if self.author:
            out["author"] = self.author
        if self.link:
            out["link"] = self.link
        return out


@dataclass(frozen=True)
class AnswerProblem:
    """An answer that did not become an entry. ``kind``: ``native-only`` (not Python: the
    native controller can run it), ``no-code`` (no code block), ``too-big``, ``malformed``
    (not an answer item the API sends, or one that could not be read), ``out-of-time`` (not
    read: the answers before it took the import's time), ``too-many``."""
    kind: str
    reason: str
    name: str | None
    author: str | None
    link: str | None
    answer_id: int | None
    language: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "reason": self.reason, "name": self.name, "author": self.author,
                "link": self.link, "answer_id": self.answer_id, "language": self.language}


def site_domain(site: str) -> str:
    if "." in site:
        return site
    return SITE_DOMAINS.get(site, f"{site}.stackexchange.com")


def parse_question_ref(text: str, site: str = DEFAULT_SITE) -> QuestionRef:
    """A question from what a person pastes: its number, or a question (or answer-in-question)
    URL such as ``https://codegolf.stackexchange.com/questions/2674/title`` or ``.../q/2674``;
    the URL's host sets the site."""
    text = str(text).strip()
    site = str(site or DEFAULT_SITE).strip().lower()
    if not _SITE.match(site):
        raise QuestionRefError(f"{site!r} is not a Stack Exchange site name (such as codegolf)")
    if re.fullmatch(r"\d{1,12}", text):
        return QuestionRef(site, _question_number(text))
    parts = urlsplit(text if "://" in text else f"https://{text}")
    host = (parts.hostname or "").lower()
    path = [p for p in parts.path.split("/") if p]
    if not host or len(path) < 2 or path[0] not in ("questions", "q") or not path[1].isdigit():
        raise QuestionRefError(f"{_short(text)} is neither a question number nor a question's URL "
                               "(https://SITE/questions/NUMBER/...)")
    return QuestionRef(_site_of_host(host), _question_number(path[1]))


def _question_number(digits: str) -> int:
    number = int(digits)
    if not 1 <= number < 10**12:
        raise QuestionRefError(f"{digits} is not a question number")
    return number


def _site_of_host(host: str) -> str:
    host = host.removeprefix("www.").removeprefix("meta.")
    for site, domain in SITE_DOMAINS.items():
        if host == domain:
            return site
    if host.endswith(".stackexchange.com"):
        return host.removesuffix(".stackexchange.com")
    raise QuestionRefError(f"{host} is not a Stack Exchange site")


# A code block's language hint (lang-XXX) -> the challenge's language
_HINTS = {"py": "python3", "python": "python3", "python3": "python3", "python2": "python2"}


def _clean_name(name: str, fallback: str) -> str:
    name = "".join(c if c.isprintable() else " " for c in name)
    name = " ".join(name.split()).strip("#*_` ")
    if not name:
        name = fallback
    return name[:MAX_NAME_CHARS].strip()


def _answer_link(item: dict, site: str) -> str | None:
    link = item.get("link")
    if isinstance(link, str) and link.startswith(("https://", "http://")) and len(link) <= MAX_LINK_CHARS:
        return link
    answer_id = item.get("answer_id")
    if isinstance(answer_id, int) and not isinstance(answer_id, bool):
        return f"https://{site_domain(site)}/a/{answer_id}"
    return None


def _author(item: dict) -> str | None:
    owner = item.get("owner")
    if not isinstance(owner, dict) or not isinstance(owner.get("display_name"), str):
        return None
    name = " ".join(unescape(owner["display_name"][:_MAX_AUTHOR_CHARS]).split())
    name = "".join(c for c in name if c.isprintable())
    return name[:MAX_NAME_CHARS].strip() or None


def entry_from_answer(item: Any, site: str = DEFAULT_SITE) -> ImportedEntry | AnswerProblem:
    """One API answer item -> an entry, or the problem that keeps it from being one."""
    if not isinstance(item, dict):
        return AnswerProblem("malformed", "the API sent something that is not an answer",
                             None, None, None, None)
    answer_id = item.get("answer_id") if isinstance(item.get("answer_id"), int) else None
    author = _author(item)
    link = _answer_link(item, site)
    body = item.get("body")
    if not isinstance(body, str):
        return AnswerProblem("malformed", "the answer has no body (the request must use filter=withbody)",
                             None, author, link, answer_id)
    if len(body) > MAX_BODY_CHARS:
        return AnswerProblem("too-big", f"the answer is {len(body):,} characters, more than "
                             f"{MAX_BODY_CHARS:,}", None, author, link, answer_id)
    parsed = read_answer(body)
    fallback = f"{author}'s bot" if author else f"answer {answer_id}"
    name, language = name_and_language(parsed.header) if parsed.header else (fallback, None)
    name = _clean_name(name, fallback)
    if language is None and parsed.code_hint:
        language = _HINTS.get(parsed.code_hint)
    if language is not None and language not in LANGUAGES:
        return AnswerProblem(
            "native-only", f"written in {language}: the page runs Python answers only; the native "
            "controller runs it (python -m engine tournament ... cmd:COMMAND)",
            name, author, link, answer_id, language)
    if parsed.code is None or not parsed.code.strip():
        return AnswerProblem("no-code", "the answer has no code block", name, author, link, answer_id,
                             language)
    code = parsed.code if parsed.code.endswith("\n") else parsed.code + "\n"
    size = len(code.encode("utf-8"))
    if size > MAX_CODE_BYTES:
        return AnswerProblem("too-big", f"its code is {size:,} bytes, more than the {MAX_CODE_BYTES:,} "
                             "bytes a bot may have", name, author, link, answer_id, language)
    return ImportedEntry(name, code, language or "python3", author, link, answer_id)


def entries_from_answers(items: Any, site: str = DEFAULT_SITE, time_limit: float = TIME_LIMIT_S
                         ) -> tuple[list[ImportedEntry], list[AnswerProblem]]:
    """The API's answer items (every page's ``items``, in order) -> entries and problems.
    Entries keep the answers' order; a name that repeats is kept as is (the page makes
    names unique as it adds them). Answers not begun within ``time_limit`` seconds are
    problems (``out-of-time``): the import ends on time with the answers read by then."""
    if not isinstance(items, list):
        raise ValueError("items must be a list of the API's answer objects")
    entries: list[ImportedEntry] = []
    problems: list[AnswerProblem] = []
    started = time.monotonic()
    for item in items[:MAX_ITEMS]:
        if time.monotonic() - started >= time_limit:
            result: ImportedEntry | AnswerProblem = _out_of_time(item, time_limit)
        else:
            result = _entry_or_problem(item, site)
        (entries if isinstance(result, ImportedEntry) else problems).append(result)
    if len(items) > MAX_ITEMS:
        problems.append(AnswerProblem("too-many", f"only the first {MAX_ITEMS:,} of {len(items):,} answers "
                                      "were read", None, None, None, None))
    return entries, problems


def _out_of_time(item: Any, time_limit: float) -> AnswerProblem:
    answer_id = item.get("answer_id") if isinstance(item, dict) else None
    return AnswerProblem("out-of-time", f"not read: reading the answers before it took the import's "
                         f"{time_limit:g} s", None, None, None,
                         answer_id if isinstance(answer_id, int) else None)


def _entry_or_problem(item: Any, site: str) -> ImportedEntry | AnswerProblem:
    """``entry_from_answer``, with an answer that fails to be read in any way (a bug, memory)
    recorded as that answer's problem: the other answers are read all the same."""
    try:
        return entry_from_answer(item, site)
    except Exception as exc:  # noqa: BLE001 - a stranger's answer must end in a message
        answer_id = item.get("answer_id") if isinstance(item, dict) else None
        return AnswerProblem("malformed", f"the answer could not be read ({type(exc).__name__}: "
                             f"{str(exc)[:200]})", None, None, None,
                             answer_id if isinstance(answer_id, int) else None)


def _short(text: str, limit: int = 80) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "…")
