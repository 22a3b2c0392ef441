"""A question's answers read natively from the Stack Exchange API (the page reads them in
``web/src/se_import.js``; both hand the items to ``engine.contest.stackexchange``).

``python -m engine tournament --question ID_OR_URL`` calls ``fetch_answers``: it asks
``/2.3/questions/{id}/answers?filter=withbody`` page by page while ``has_more`` says so,
waits the API's ``backoff`` before the next request (the sleeper is a parameter, so tests
do not wait), stops with a message when the daily quota is spent or the API refuses
(``throttle_violation`` and the other error objects), and bounds everything a server sends:
each response's size (compressed and after gzip), the pages read, each request's time. The
server is any server (``--se-api``), so its bytes are hostile: every failure is one
``FetchError`` line. Standard library only.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from engine.contest.stackexchange import PAGE_SIZE, QuestionRef

DEFAULT_API = "https://api.stackexchange.com"
MAX_PAGES = 10  # 1,000 answers: engine.contest.stackexchange reads no more
MAX_RESPONSE_BYTES = 8 * 1024 * 1024  # one page, compressed or not (100 answers of 1 MB cannot come)
MAX_BACKOFF_S = 300.0  # a longer backoff ends the fetch with a message instead of a wait
TIMEOUT_S = 30.0  # per request
_READ = 1 << 16


class FetchError(Exception):
    """The answers could not be read: one line for the user."""


@dataclass
class Answers:
    """Every page's items in order, and what the API said along the way."""

    items: list[Any] = field(default_factory=list)
    pages: int = 0
    quota_remaining: int | None = None
    waited: list[float] = field(default_factory=list)  # each backoff slept, in seconds
    note: str | None = None  # the answers are not all here: why


def api_root(url: str | None) -> str:
    """The API's root from ``--se-api`` (``http://127.0.0.1:8000`` or ``.../2.3``)."""
    root = (url or DEFAULT_API).strip().rstrip("/")
    parts = urlsplit(root)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise FetchError(f"--se-api must be an http(s) URL such as {DEFAULT_API}, got {root[:100]!r}")
    return root.removesuffix("/2.3")


def answers_url(root: str, ref: QuestionRef, page: int) -> str:
    return (f"{root}/2.3/questions/{ref.question_id}/answers?site={ref.site}&filter=withbody"
            f"&sort=creation&order=asc&pagesize={PAGE_SIZE}&page={page}")


def fetch_answers(ref: QuestionRef, api: str | None = None, *, sleep: Callable[[float], None] = time.sleep,
                  timeout: float = TIMEOUT_S, max_pages: int = MAX_PAGES,
                  max_bytes: int = MAX_RESPONSE_BYTES) -> Answers:
    """The question's answer items, every page of them; ``FetchError`` when they cannot be had."""
    root = api_root(api)
    host = urlsplit(root).hostname or root
    out = Answers()
    for page in range(1, max_pages + 1):
        data = _get(answers_url(root, ref, page), host, timeout, max_bytes)
        items = data.get("items")
        if not isinstance(items, list):
            raise FetchError(f"{host} sent no answers (a JSON object without an 'items' list)")
        out.items += items
        out.pages = page
        quota = data.get("quota_remaining")
        if isinstance(quota, int) and not isinstance(quota, bool):
            out.quota_remaining = quota
        if data.get("has_more") is not True:
            return out
        if page == max_pages:
            out.note = (f"the question has more than {max_pages * PAGE_SIZE:,} answers: the first "
                        f"{len(out.items):,} are read")
            return out
        if out.quota_remaining == 0:
            raise FetchError(f"the Stack Exchange API's daily quota for this address is used up after "
                             f"page {page} of the answers; try again tomorrow")
        backoff = data.get("backoff")
        if isinstance(backoff, (int, float)) and not isinstance(backoff, bool) and backoff > 0:
            if backoff > MAX_BACKOFF_S:
                raise FetchError(f"{host} asks to wait {backoff:g} s before the next page; try again later")
            out.waited.append(float(backoff))
            sleep(float(backoff))
    return out


def _get(url: str, host: str, timeout: float, max_bytes: int) -> dict:
    request = urllib.request.Request(url, headers={"Accept-Encoding": "gzip",
                                                   "User-Agent": "koth-arena (python -m engine)"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 - http(s) checked
            body = _body(response, max_bytes, host, time.monotonic() + timeout)
    except urllib.error.HTTPError as exc:
        raise FetchError(_api_error(exc, host, max_bytes)) from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", None) or exc
        raise FetchError(f"could not reach {host}: {reason}; use --se-api or check your connection") from None
    data = _json(body, host)
    if "error_id" in data or "error_name" in data:
        raise FetchError(_error_text(data, host))
    return data


def _body(response, max_bytes: int, host: str, deadline: float) -> bytes:
    """The response's bytes, ungzipped, no more than ``max_bytes`` either way, read by
    ``deadline`` (a server that drips bytes would keep each read inside the socket's timeout)."""
    raw = bytearray()
    while True:
        chunk = response.read(_READ)
        if not chunk:
            break
        if time.monotonic() > deadline:
            raise FetchError(f"{host} took too long to send one page of answers")
        raw += chunk
        if len(raw) > max_bytes:
            raise FetchError(f"{host} sent more than {max_bytes >> 20} MB for one page of answers")
    gzipped = (response.headers.get("Content-Encoding", "").lower() == "gzip"
               or raw[:2] == b"\x1f\x8b")  # the real API gzips even when not asked
    if not gzipped:
        return bytes(raw)
    inflate = zlib.decompressobj(wbits=31)
    try:
        body = inflate.decompress(bytes(raw), max_bytes + 1)
    except zlib.error as exc:
        raise FetchError(f"{host} sent a broken gzip body ({exc})") from None
    if len(body) > max_bytes or inflate.unconsumed_tail:
        raise FetchError(f"{host} sent more than {max_bytes >> 20} MB for one page of answers (ungzipped)")
    return body


def _json(body: bytes, host: str) -> dict:
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise FetchError(f"{host} did not answer with JSON ({str(exc)[:100]})") from None
    if not isinstance(data, dict):
        raise FetchError(f"{host} did not answer with a JSON object")
    return data


def _api_error(exc: urllib.error.HTTPError, host: str, max_bytes: int) -> str:
    """An HTTP error: the API's own error object when it sent one (it does, with status 400)."""
    try:
        data = _json(_body(exc, max_bytes, host, time.monotonic() + TIMEOUT_S), host)
    except (FetchError, OSError):
        return f"{host} answered HTTP {exc.code} {str(exc.reason)[:100]}"
    return _error_text(data, host)


def _error_text(data: dict, host: str) -> str:
    name = str(data.get("error_name", "error"))[:100]
    message = " ".join(str(data.get("error_message", "")).split())[:300]
    if name == "throttle_violation":
        return (f"the Stack Exchange API refuses more requests from this address (throttle_violation: "
                f"{message}); try again later")
    return f"{host} refused the request ({name}: {message})"
