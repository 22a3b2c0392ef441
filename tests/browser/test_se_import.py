"""Entries from a Stack Exchange question: the page's dialog fetches the answers from the API
(recorded responses in tests/data/se/ served through Playwright's route interception: the
real API is not reachable here), pages through them honouring `backoff`, and adds the Python
answers to the challenge; errors (a throttle, the network) are shown and lose nothing."""
from __future__ import annotations

import json
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from conftest import wait_until

pytestmark = pytest.mark.browser

DATA = Path(__file__).resolve().parents[1] / "data" / "se"
API = "https://api.stackexchange.com/2.3/**"
QUESTION = "https://codegolf.stackexchange.com/questions/262108/flit-king-of-the-hill"


class RecordedApi:
    """Answers /questions/262108/answers from the recorded pages; `fail` maps a page number
    to "throttle" (the API's error response) or "network" (the request fails)."""

    def __init__(self, fail: dict[int, str] | None = None):
        self.fail = fail or {}
        self.requests: list[tuple[float, dict]] = []

    def __call__(self, route):
        url = urlsplit(route.request.url)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        self.requests.append((time.monotonic(), {"path": url.path, **query}))
        page = int(query.get("page", "1"))
        headers = {"Access-Control-Allow-Origin": "*"}
        if self.fail.get(page) == "network":
            route.abort("internetdisconnected")
        elif self.fail.get(page) == "throttle":
            route.fulfill(status=400, content_type="application/json; charset=utf-8", headers=headers,
                          body=(DATA / "error_throttle.json").read_text())
        else:
            route.fulfill(status=200, content_type="application/json; charset=utf-8", headers=headers,
                          body=(DATA / f"answers_page{page}.json").read_text())


def open_dialog(arena):
    arena.page.get_by_role("radio", name="Tournament").check()  # the challenge's field and its actions
    opener = arena.page.get_by_role("button", name="Import answers…", exact=True)
    opener.focus()
    arena.page.keyboard.press("Enter")
    dialog = arena.page.get_by_role("dialog", name="Import entries from a Stack Exchange question")
    dialog.wait_for()
    return dialog


def fetch(arena, dialog, question: str) -> str:
    field = dialog.get_by_label("Question number or URL", exact=True)
    field.fill(question)
    field.press("Enter")  # submits the dialog's form
    status = dialog.get_by_role("status")
    wait_until(arena.page,
               "() => !document.getElementById('se-fetch').disabled"
               " && document.getElementById('se-status').textContent"
               " && !/^(Fetching|Reading|Waiting)/.test(document.getElementById('se-status').textContent)")
    return status.inner_text()


def listed(dialog) -> list[str]:
    items = dialog.get_by_role("list", name="Answers found").get_by_role("listitem")
    return [t.strip() for t in items.all_inner_texts()]


def test_import_pages_through_the_answers_and_adds_the_python_ones(arena):
    api = RecordedApi()
    arena.page.route(API, api)
    before = arena.page.evaluate("window.kothArena.challenge.entries().map((e) => e.name)")
    dialog = open_dialog(arena)
    status = fetch(arena, dialog, QUESTION)
    counts = "4 entries to add, 2 not added"
    assert status.startswith(f"6 answers read: {counts}."), status
    assert "296 more requests today" in status
    items = listed(dialog)
    edgebot = next(i for i in items if i.startswith("Edgebot by Jörg Hülsermann — "))
    assert edgebot.split(" — ", 1)[1].startswith("Python 2: will be added")
    assert any(i.startswith("Greedy Gus by Ann O'Nym — Python 3: will be added") for i in items)
    assert any(i.startswith("Rook by rooky — native only — written in Java") for i in items)
    assert any(i.startswith("Talker by talker — the answer has no code block") for i in items)

    # Two pages, both with the body filter; the second only after the first's backoff (1 s).
    assert [r["page"] for _, r in api.requests] == ["1", "2"]
    for _, request in api.requests:
        assert request["path"] == "/2.3/questions/262108/answers"
        assert (request["site"], request["filter"], request["pagesize"]) == ("codegolf", "withbody", "100")
    assert api.requests[1][0] - api.requests[0][0] >= 1.0

    dialog.get_by_role("button", name="Add the entries", exact=True).click()
    entries = arena.page.evaluate("window.kothArena.challenge.currentChallenge().entries")
    added = entries[len(before):]
    status = dialog.get_by_role("status").inner_text()
    assert status.startswith(f"Added {len(added)} entries to the challenge"), status
    names = ["Greedy Gus", "Corner Camper", "Passer"]
    assert [e["name"] for e in added] == ["Edgebot", *names]
    gus = added[-3]
    assert gus["language"] == "python3" and gus["author"] == "Ann O'Nym"
    assert gus["link"] == "https://codegolf.stackexchange.com/a/262113"
    assert gus["code"].startswith("def move(view):") and 'neutrals ("5" squares)' in gus["code"]
    assert "&quot;" not in gus["code"]

    dialog.get_by_role("button", name="Close", exact=True).press("Enter")
    assert not dialog.is_visible()
    assert arena.page.evaluate("document.activeElement.id") == "se-import-open"


def test_errors_are_shown_and_the_earlier_pages_kept(arena):
    api = RecordedApi(fail={1: "network"})
    arena.page.route(API, api)
    dialog = open_dialog(arena)
    fetch(arena, dialog, "262108")
    error = dialog.get_by_role("alert").inner_text()
    assert error.startswith("Could not read every answer: could not reach api.stackexchange.com"), error
    assert listed(dialog) == []
    assert dialog.get_by_role("button", name="Add the entries", exact=True).is_disabled()

    api.fail = {2: "throttle"}
    status = fetch(arena, dialog, "262108")
    error = dialog.get_by_role("alert").inner_text()
    assert "page 2: the API refused (throttle_violation, HTTP 400): too many requests from this IP" in error
    assert "(the answers of the pages before it are listed)" in error
    counts = "2 entries to add, 1 not added"
    assert status.startswith(f"3 answers read: {counts}."), status
    assert sorted(i.split(" by ")[0] for i in listed(dialog)) == ["Edgebot", "Greedy Gus", "Rook"]


def test_a_bad_question_gets_a_message(arena):
    dialog = open_dialog(arena)
    fetch(arena, dialog, "https://example.org/questions/5")
    assert "is not a Stack Exchange site" in dialog.get_by_role("alert").inner_text()


def test_dialog_passes_axe(arena):
    from test_accessibility import _serious_violations  # tests/browser is on sys.path (rootdir-less)

    api = RecordedApi()
    arena.page.route(API, api)
    dialog = open_dialog(arena)
    fetch(arena, dialog, "262108")
    assert _serious_violations(arena.page) == []
    assert json.dumps(listed(dialog))
