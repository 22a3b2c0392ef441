"""Hostile links and challenge files opened in the page, served with its real headers: each
gets a message, and nothing the visitor had is lost (their challenge, their bots, the
page itself).

- ``#c=DATA`` (a challenge link): a deflate bomb (a 60 KB link that unpacks to 64 MB) is
  stopped at 16 MB unpacked; data that unpacks to 15 MB of empty objects is refused by the
  engine's count of values before Python parses it; wrong types and a 5,000-digit number
  are named by the engine's reader.
- ``#<base64url JSON>`` (the first share links): wrong types, too many bots, a code that is
  a number, deep nesting are refused with "Could not apply the shared link".
- a challenge file of 15 MB of empty objects is refused the same way.
"""
from __future__ import annotations

import base64
import json
import time
import zlib
from pathlib import Path

import pytest
from conftest import READY_TIMEOUT_MS, wait_until
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

HEAD = {"format": "koth-arena-challenge", "version": 1, "title": "hostile", "description": "", "game": "flit",
        "settings": {}, "games": 2, "seed": 1}
READY = "window.kothArena && window.kothArena.ready"
RESPONSIVE_S = 60  # a message within this, on a loaded machine (each is a few seconds idle)


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _link_data(text: str) -> str:
    """A challenge link's data, as the page packs it (deflate-raw, base64url)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    return _b64url(packer.compress(text.encode("utf-8")) + packer.flush())


def _empty_objects(megabytes: int) -> str:
    return json.dumps(HEAD)[:-1] + ', "entries": [' + ",".join(["{}"] * (megabytes * 2**20 // 3)) + "]}"


def _visitors_state(page) -> dict:
    return page.evaluate("""() => ({
        challenge: window.kothArena.challenge.currentChallenge(),
        bots: localStorage.getItem("koth-arena:bots:flit"),
    })""")


def _open(page, url: str) -> float:
    began = time.monotonic()
    page.goto(url)
    wait_until(page, READY, READY_TIMEOUT_MS)
    return began


def _says(page, locator, message: str, began: float) -> None:
    expect(locator).to_contain_text(message, timeout=RESPONSIVE_S * 1000)
    assert time.monotonic() - began < RESPONSIVE_S + 60  # the page load included
    assert page.evaluate("1 + 1") == 2  # the page still answers


@pytest.fixture
def visitor(open_arena, isolated_url):
    """A visitor with a challenge and bots of their own, saved."""
    arena = open_arena(isolated_url)
    page = arena.page
    page.evaluate("(code) => window.kothArena.challenge.addEntries([{name: 'mine', code}])",
                  "def move(view):\n    return 0\n")
    arena.set_bot(1, "def move(view):\n    return 0, 0, 0, 0  # my own bot\n", name="my own")
    # the page's debounced saves, however late their timer fires on a loaded machine
    wait_until(page, """(() => {
        const bot = JSON.parse(localStorage.getItem("koth-arena:bots:flit") || "[]")[0] || {};
        return bot.name === "my own" && (bot.code || "").includes("my own bot");
    })()""", 30_000)
    before = _visitors_state(page)
    assert "mine" in json.dumps(before["challenge"]) and "my own bot" in before["bots"]
    return arena, before, isolated_url.rstrip("/") + "/"


CHALLENGE_LINKS = [
    ("a deflate bomb", lambda: "x" * (64 * 2**20), "its data unpacks to more than 16 MB"),
    ("15 MB of empty objects", lambda: _empty_objects(15), "a challenge file holds at most 8,007 values"),
    ("a name that is a number", lambda: json.dumps({**HEAD, "entries": [{"name": 5, "code": "x"}]}),
     "entries[0].name must be text, got a number"),
    ("a 5,000-digit seed",
     lambda: json.dumps({**HEAD, "entries": []}).replace('"seed": 1', '"seed": ' + "9" * 5000),
     "not JSON: Exceeds the limit (4300 digits)"),
]


def test_hostile_challenge_links_get_a_message_and_nothing_is_lost(visitor):
    arena, before, base = visitor
    page = arena.page
    for name, make, message in CHALLENGE_LINKS:
        data = _link_data(make())
        assert len(data) < 200_000, (name, len(data))  # a link a chat would carry
        began = _open(page, base + "#c=" + data)
        _says(page, page.locator("#challenge-status"), f"Could not open the challenge link: {message}", began)
        expect(page.locator("#challenge-status")).to_contain_text("Nothing was changed.")
        assert _visitors_state(page) == before, name
    assert page.evaluate("window.kothArena.runsStarted") == 0


OLD_LINKS = [
    ("a code that is a number", {"v": 1, "settings": {"game": "flit"}, "bots": [{"name": "a", "code": 5}]},
     "a bot has no name or code"),
    ("a thousand bots", {"v": 1, "settings": {"game": "flit"}, "bots": [{"name": "a", "code": "x"}] * 1000},
     "it has 1000 bots"),
    ("a seed that is text", {"v": 1, "settings": {"game": "flit", "seed": "5"},
                             "bots": [{"name": "a", "code": "x"}, {"name": "b", "code": "y"}]},
     "is not a whole number"),
    ("a list", [1, 2, 3], "not an object"),
    ("100,000 levels deep", "[" * 100_000 + "]" * 100_000, "not an object"),
]


def test_hostile_first_share_links_are_refused_and_nothing_is_lost(visitor):
    arena, before, base = visitor
    page = arena.page
    for name, data, message in OLD_LINKS:
        text = data if isinstance(data, str) else json.dumps(data)
        began = _open(page, base + "#" + _b64url(text.encode()))
        _says(page, page.get_by_role("status"), "Could not apply the shared link", began)
        expect(page.get_by_role("status")).to_contain_text(message)
        assert _visitors_state(page) == before, name


def test_a_challenge_file_of_15_mb_of_empty_objects_is_refused(visitor, tmp_path: Path):
    arena, before, _ = visitor
    page = arena.page
    path = tmp_path / "empties.challenge.json"
    path.write_text(_empty_objects(15), encoding="utf-8")
    page.get_by_role("radio", name="Tournament").check()
    began = time.monotonic()
    page.locator("#challenge-file").set_input_files(str(path))
    _says(page, page.locator("#challenge-status"),
          "Could not open empties.challenge.json: a challenge file holds at most 8,007 values", began)
    assert _visitors_state(page) == before
