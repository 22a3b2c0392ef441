"""Entries from the answers posted on a Stack Exchange question (a KotH challenge's field).

A KotH question collects its entries as answers: a header line names the bot (and often its
language, "Python 2, Edgebot"), the first code block holds its code. The page fetches the
answers from the public API (``/2.3/questions/{id}/answers?filter=withbody``, paged) and
this module turns the API's answer items into challenge entries (the fields of
``engine.challenge``'s entries) and, per answer that cannot be one, a problem saying why.
Standard library only (``html.parser``): it runs in the page's controller (Pyodide) and in
the tests alike. Nothing here touches the network.
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urlsplit

from engine.challenge import LANGUAGES, MAX_CODE_BYTES, MAX_LINK_CHARS, MAX_NAME_CHARS

DEFAULT_SITE = "codegolf"
API_ROOT = "https://api.stackexchange.com/2.3"
PAGE_SIZE = 100  # the API's largest page
MAX_ITEMS = 1_000  # answers read from one question (ten pages)
MAX_BODY_CHARS = 1_000_000  # an answer body past this is not read

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
    (not an answer item the API sends)."""
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


# ---- one answer's body ------------------------------------------------------------------

_HEADERS = ("h1", "h2", "h3", "h4", "h5", "h6")


class _AnswerBody(HTMLParser):
    """The first header's text, the first code block's text (``<pre><code>``, entities
    decoded by the parser) and that block's language hint (``class="lang-py"``)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.header: str | None = None
        self.code: str | None = None
        self.code_hint: str | None = None
        self._in_header = 0
        self._header_parts: list[str] = []
        self._pre = 0
        self._pre_class = ""
        self._code_parts: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _HEADERS and self.header is None:
            self._in_header += 1
        elif tag == "pre":
            self._pre += 1
            self._pre_class = dict(attrs).get("class") or ""
        elif tag == "code" and self._pre and self.code is None and self._code_parts is None:
            self._code_parts = []
            classes = f"{self._pre_class} {dict(attrs).get('class') or ''}"
            hint = re.search(r"\b(?:lang|language)-([A-Za-z0-9_+#-]+)", classes)
            self.code_hint = hint.group(1).lower() if hint else None
        elif tag == "br" and self._code_parts is not None:
            self._code_parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _HEADERS and self._in_header:
            self._in_header -= 1
            if not self._in_header:
                text = " ".join("".join(self._header_parts).split())
                self._header_parts = []
                if text:
                    self.header = text
        elif tag == "code" and self._code_parts is not None:
            self.code = "".join(self._code_parts)
            self._code_parts = None
        elif tag == "pre" and self._pre:
            self._pre -= 1

    def handle_data(self, data: str) -> None:
        if self._in_header:
            self._header_parts.append(data)
        if self._code_parts is not None:
            self._code_parts.append(data)


# Language names as answer headers write them -> the challenge's language, or None for a
# language the page cannot run (its display name is kept for the reason).
_PYTHON2 = re.compile(r"^(?:c?python|pypy)\s*-?\s*2(?:\.\d+)*$|^py2$")
_PYTHON3 = re.compile(r"^(?:c?python|pypy)(?:\s*-?\s*3(?:\.\d+)*)?$|^py3?$")
_OTHER_LANGUAGES = {
    "java", "javascript", "js", "node", "node.js", "nodejs", "typescript", "c", "c++", "cpp", "c#",
    "csharp", "f#", "go", "golang", "rust", "ruby", "perl", "php", "lua", "haskell", "scala",
    "kotlin", "swift", "r", "julia", "bash", "sh", "shell", "zsh", "powershell", "ocaml", "clojure",
    "lisp", "common lisp", "racket", "scheme", "erlang", "elixir", "dart", "d", "nim", "crystal",
    "fortran", "pascal", "delphi", "groovy", "coffeescript", "matlab", "octave", "vb.net",
    "visual basic", "objective-c", "zig", "prolog", "smalltalk", "tcl", "awk", "sed", "apl", "j",
    "k", "befunge", "brainfuck", "cjam", "pyth", "05ab1e", "jelly", "golfscript", "assembly",
}
# A code block's language hint (lang-XXX) -> the same
_HINTS = {"py": "python3", "python": "python3", "python3": "python3", "python2": "python2"}


def _language_of(text: str) -> tuple[str | None, bool]:
    """(challenge language or the name as written, is a known language)."""
    word = " ".join(text.lower().split())
    word = re.sub(r"\s*\(.*\)$", "", word)  # "Python 3 (PyPy)" -> "python 3"
    if _PYTHON2.match(word):
        return "python2", True
    if _PYTHON3.match(word):
        return "python3", True
    if word in _OTHER_LANGUAGES or re.fullmatch(r"(java|c\+\+|c|node\.?js)\s*\d+", word):
        return text.strip(), True
    return None, False


def _name_and_language(header: str) -> tuple[str, str | None]:
    """An answer header -> (bot name, language as written or normalised, or None)."""
    header = header.strip().strip("#*_ ").strip()
    paren = re.fullmatch(r"(.+?)\s*\(([^()]+)\)", header)  # "Corner Camper (Python 3)"
    if paren:
        language, known = _language_of(paren.group(2))
        if known:
            return paren.group(1).strip(), language
    for sep in (",", " - ", " – ", " — ", ":", "|"):
        if sep not in header:
            continue
        first, rest = (p.strip() for p in header.split(sep, 1))
        language, known = _language_of(first)
        if known and rest:
            return rest, language
        head, last = (p.strip() for p in header.rsplit(sep, 1))
        language, known = _language_of(last)
        if known and head:
            return head, language
    language, known = _language_of(header)
    return header, (language if known else None)


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
    name = " ".join(html.unescape(owner["display_name"]).split())
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
    parsed = _AnswerBody()
    parsed.feed(body)
    parsed.close()
    fallback = f"{author}'s bot" if author else f"answer {answer_id}"
    name, language = _name_and_language(parsed.header) if parsed.header else (fallback, None)
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


def entries_from_answers(items: Any, site: str = DEFAULT_SITE
                         ) -> tuple[list[ImportedEntry], list[AnswerProblem]]:
    """The API's answer items (every page's ``items``, in order) -> entries and problems.
    Entries keep the answers' order; a name that repeats is kept as is (the page makes
    names unique as it adds them)."""
    if not isinstance(items, list):
        raise ValueError("items must be a list of the API's answer objects")
    entries: list[ImportedEntry] = []
    problems: list[AnswerProblem] = []
    for item in items[:MAX_ITEMS]:
        result = entry_from_answer(item, site)
        (entries if isinstance(result, ImportedEntry) else problems).append(result)
    if len(items) > MAX_ITEMS:
        problems.append(AnswerProblem("too-many", f"only the first {MAX_ITEMS:,} of {len(items):,} answers "
                                      "were read", None, None, None, None))
    return entries, problems


def _short(text: str, limit: int = 80) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "…")
