"""An author's game travels with its challenge (issue 12 item 4): pasted into the page, its
example bots run, a challenge of 3 entries on it is shared as a link; a second browser profile
opening the link sees what the game is and runs nothing until "Load this game", then gets the
trial version of that game and, after Run, the author's leaderboard. A link whose game fails to
load says so, and the page goes on."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import READY_TIMEOUT_MS, wait_until
from playwright.sync_api import expect
from test_accessibility import _serious_violations
from test_authored_game import LOWEST_UNIQUE, load_game
from test_challenge_page import challenge, fill_field, leaderboard, pack, share, status

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]

BUDGET = 1_000_000  # steps a move may take: the same games on every machine
TWO = "def move(view):\n    return 2\n"
FIELD = [{"name": "one", "author": "the game's author", "code": "builtin:one"},
         {"name": "dodger", "code": "builtin:dodger"},
         {"name": "two", "author": "Ann", "code": TWO}]


def visit(chromium, url: str):
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    wait_until(page, "window.kothArena && window.kothArena.ready", READY_TIMEOUT_MS)
    return context, page, errors


def test_a_link_carries_the_authors_game_to_a_second_profile(open_arena, site_url, chromium, results_dir,
                                                              tmp_path):
    author = open_arena(site_url)
    load_game(author, LOWEST_UNIQUE)
    expect(author.page.locator("#game-status")).to_contain_text("Loaded Lowest Unique", timeout=60_000)
    # Its example bots play a match.
    author.label("Bot 1 example").select_option("one")
    author.label("Bot 2 example").select_option("dodger")
    author.setup(games=2, seed=3)
    assert "2 games" in author.run()
    # A challenge of three entries on it, shared.
    fill_field(author.page, FIELD, title="Trial of Lowest Unique", description="Lowest unique wins.")
    author.setup(games=2, seed=5)
    author.label("Secret (optional)").fill("same games")
    author.label("Step budget").fill(str(BUDGET))
    link = share(author.page)
    shared = challenge(author.page)
    assert shared["game"] == "lowest_unique" and shared["game_module"] == LOWEST_UNIQUE
    author.start_run()
    assert author.wait_finished(300_000).startswith("Finished the tournament")
    authors_board = leaderboard(author.page)
    authors_result = author.page.evaluate("window.kothArena.tournament.result")
    assert sorted(row[1] for row in authors_board) == ["dodger", "one", "two"]
    # the entries played the game (its bot-side code went to their Workers), none faulted
    assert [s["faults"] for s in authors_result["standings"]] == [0, 0, 0], authors_result
    assert authors_result["standings"][0]["wins"] > 0

    context, page, errors = visit(chromium, link)
    try:
        # Nothing of the author's runs before the press: the game is shown, not loaded.
        prompt = page.get_by_role("region", name="The challenge's own game")
        expect(prompt).to_contain_text("plays its own game, “lowest_unique”")
        page.get_by_text("Show the game's code").click()
        expect(page.get_by_label("The game module's code")).to_contain_text('NAME = "lowest_unique"')
        assert page.locator("#game option[value='lowest_unique']").count() == 0
        assert page.evaluate("window.kothArena.runsStarted") == 0
        assert _serious_violations(page) == []
        page.screenshot(path=str(results_dir / "challenge-game-prompt.png"), full_page=True)
        page.get_by_role("button", name="Load this game", exact=True).click()

        expect(status(page)).to_contain_text("Opened “Trial of Lowest Unique”: 3 entries", timeout=60_000)
        assert challenge(page) == shared
        expect(page.get_by_role("button", name="Trial version")).to_have_attribute("aria-pressed", "true")
        expect(page.locator("#trial-title")).to_have_text("Trial of Lowest Unique")
        expect(page.locator("#trial-entries > li")).to_have_count(3)
        expect(page.get_by_label("Game", exact=True)).to_have_value("lowest_unique")
        assert page.evaluate("window.kothArena.runsStarted") == 0
        page.screenshot(path=str(results_dir / "challenge-game-trial.png"), full_page=True)

        page.get_by_label("Step budget", exact=True).fill(str(BUDGET))
        page.get_by_role("button", name="Run", exact=True).click()
        wait_until(page, "window.kothArena.run === null && window.kothArena.tournament.result", 300_000)
        assert leaderboard(page) == authors_board
        result = page.evaluate("window.kothArena.tournament.result")
        assert result == authors_result

        # The exported file carries the game: the native tournament loads it from the file
        # (sandboxed) and prints the same result.
        with page.expect_download() as download:
            page.get_by_role("button", name="Author's view").click()
            page.get_by_role("button", name="Export file", exact=True).click()
        path = tmp_path / "lowest_unique.challenge.json"
        download.value.save_as(path)
        assert json.loads(path.read_text())["game_module"] == LOWEST_UNIQUE
        native = subprocess.run([sys.executable, "-m", "engine", "tournament", "--challenge", path,
                                 "--budget", str(BUDGET), "--json"],
                                cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert native.returncode == 0, native.stderr
        assert json.loads(native.stdout) == result
        assert not errors, errors
    finally:
        context.close()


def test_a_link_whose_game_does_not_load_says_why(open_arena, site_url, chromium):
    arena = open_arena(site_url)
    broken = LOWEST_UNIQUE.replace("    def scores(self):", "    def points_of(self):")
    text = json.dumps({"format": "koth-arena-challenge", "version": 1, "title": "Broken", "description": "",
                       "game": "lowest_unique", "game_module": broken, "settings": {}, "games": 1, "seed": 1,
                       "entries": [{"name": "a", "code": TWO}, {"name": "b", "code": TWO}]})
    link = f"{site_url.rstrip('/')}/#c={pack(arena.page, text)}"
    context, page, errors = visit(chromium, link)
    try:
        page.get_by_role("button", name="Load this game", exact=True).click()
        expect(status(page)).to_contain_text("Could not open the challenge link: its game did not load: "
                                             "class Game has no method scores()", timeout=60_000)
        expect(status(page)).to_contain_text("Nothing was changed")
        expect(page.get_by_role("button", name="Run", exact=True)).to_be_enabled()
        assert page.locator("#game option[value='lowest_unique']").count() == 0
        # Declining to load a game leaves everything as it was, with a message (the link stays
        # in the address bar: a reload asks again).
        page.reload()
        wait_until(page, "window.kothArena && window.kothArena.ready", READY_TIMEOUT_MS)
        page.get_by_role("button", name="Don't load it").click()
        expect(status(page)).to_contain_text("Did not open the challenge link: its game was not loaded.")
        assert page.evaluate("window.kothArena.runsStarted") == 0
        assert not errors, errors
    finally:
        context.close()
