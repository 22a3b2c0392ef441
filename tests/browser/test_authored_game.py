"""An author's own game in the page: pasted into the game editor, loaded, played by its example
bots, watched in the replay; a game with a mistake gets one clear line (with its line number)
and the page stays usable; an endless loop in the game's code ends the run, never the page."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect
from test_accessibility import _serious_violations

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
LOWEST_UNIQUE = (ROOT / "examples" / "games" / "lowest_unique.py").read_text(encoding="utf-8")


def load_game(arena, source: str) -> None:
    page = arena.page
    if not page.locator("#game-editor-details").evaluate("(d) => d.open"):
        page.get_by_text("Your own game", exact=True).click()  # opens the section
    page.evaluate("(text) => { window.kothArena.gameEditor.value = text; }", source)
    arena.button("Load game").click()


def loaded_status(arena):
    return arena.page.locator("#game-status")


def test_an_authors_game_pasted_runs_with_its_example_bots_and_replays(arena, results_dir):
    load_game(arena, LOWEST_UNIQUE)
    expect(loaded_status(arena)).to_contain_text("Loaded Lowest Unique", timeout=60_000)
    expect(arena.label("Game")).to_have_value("lowest_unique")
    arena.label("Bot 1 example").select_option("one")
    arena.label("Bot 2 example").select_option("dodger")
    arena.setup(games=2, seed=3)
    arena.label("Rounds").fill("12")
    status = arena.run()
    assert "2 games" in status, status
    one, dodger = arena.result_row("one"), arena.result_row("dodger")
    assert one[1] == "2" and dodger[1] == "2", (one, dodger)
    records = arena.records()
    assert len(records) == 2 and all(len(r["turns"]) == 12 for r in records)
    assert records[0]["start"]["picture"]["width"] == 5
    # the last frame: the canvas is named from the picture's caption, the legend from its legend
    arena.page.locator("#board-area").focus()
    arena.page.keyboard.press("End")
    expect(arena.page.locator("canvas#board")).to_have_attribute("aria-label", re.compile(r"round 12 of 12"))
    expect(arena.page.locator("#legend")).to_contain_text(re.compile(r"(one|dodger): \d+ points"))
    arena.page.keyboard.press("Home")
    expect(arena.page.locator("canvas#board")).to_have_attribute("aria-label", re.compile(r"round 0 of 12"))
    arena.page.keyboard.press("ArrowRight")
    arena.page.keyboard.press("ArrowRight")
    expect(arena.page.locator("canvas#board")).to_have_attribute("aria-label", re.compile(r"round 2 of 12"))
    arena.page.screenshot(path=str(results_dir / "authored-game.png"), full_page=True)
    assert _serious_violations(arena.page) == []


def test_a_game_with_a_mistake_gets_one_line_with_its_line_and_the_page_goes_on(arena):
    broken = LOWEST_UNIQUE.replace('        rows = []\n', '        rows = []\n        1 / 0\n')
    line = next(i for i, text in enumerate(broken.splitlines(), 1) if text.strip() == "1 / 0")
    load_game(arena, broken)
    error = arena.page.locator("#game-error")
    expect(error).to_contain_text(f"draw raised ZeroDivisionError: division by zero (line {line})",
                                  timeout=60_000)
    assert _serious_violations(arena.page) == []  # the open editor, the error and its button
    arena.button(f"Show line {line}").click()
    missing = LOWEST_UNIQUE.replace("    def scores(self):", "    def points_of(self):")
    load_game(arena, missing)
    expect(error).to_contain_text("class Game has no method scores()", timeout=60_000)
    expect(arena.label("Game")).not_to_have_value("lowest_unique")
    expect(arena.button("Run")).to_be_enabled()
    # the built-in games still run
    arena.setup(game="flit", games=1)
    arena.label("Bot 1 example").select_option("greedy")
    arena.label("Bot 2 example").select_option("random")
    arena.run()


def test_an_endless_loop_in_apply_actions_ends_the_load_or_the_run_not_the_page(arena):
    # reached in the check game that loading plays: loading stops, with the line
    loop = "        while self.round == 3:\n            pass\n"
    looping = LOWEST_UNIQUE.replace("        self.round += 1\n", loop + "        self.round += 1\n")
    load_game(arena, looping)
    expect(arena.page.locator("#game-error")).to_contain_text(
        "apply_actions ran past its time limit (an endless loop?, stopped at line", timeout=60_000)
    # reached only in play (the check game's default moves name nothing): the run ends with the line
    looping = LOWEST_UNIQUE.replace(
        "        self.round += 1\n",
        "        while self.round == 3 and 1 in self.last:\n            pass\n        self.round += 1\n")
    line = next(i for i, text in enumerate(looping.splitlines(), 1) if text.strip() == "pass")
    load_game(arena, looping)
    expect(loaded_status(arena)).to_contain_text("Loaded Lowest Unique", timeout=60_000)
    arena.label("Bot 1 example").select_option("one")
    arena.label("Bot 2 example").select_option("random")
    arena.setup(games=1)
    arena.start_run()
    text = arena.wait_finished(60_000)
    assert "the game failed: apply_actions ran past its time limit" in text, text
    assert f"line {line}" in text or f"line {line - 1}" in text, text
    expect(arena.button("Run")).to_be_enabled()
    expect(arena.button("Load game")).to_be_enabled()
    # the page goes on: a run of a built-in game
    arena.setup(game="flit", games=1)
    arena.label("Bot 1 example").select_option("greedy")
    arena.label("Bot 2 example").select_option("random")
    arena.run()


def test_a_game_naming_a_renderer_the_page_lacks_is_drawn_from_its_pictures(arena):
    """``RENDERER`` names a hand-drawn renderer (web/src/games/NAME.js); where the page has none
    of that name, the generic renderer draws the game's ``draw()`` pictures."""
    title = 'TITLE = "Lowest Unique"'
    named = LOWEST_UNIQUE.replace(title, f'{title}\nRENDERER = "no_such_board"')
    load_game(arena, named)
    expect(loaded_status(arena)).to_contain_text("Loaded Lowest Unique", timeout=60_000)
    arena.label("Bot 1 example").select_option("one")
    arena.label("Bot 2 example").select_option("dodger")
    arena.setup(games=1, seed=3)
    arena.label("Rounds").fill("4")
    status = arena.run()
    assert "1 game" in status, status
    arena.page.locator("#board-area").focus()
    arena.page.keyboard.press("End")
    expect(arena.page.locator("canvas#board")).to_have_attribute("aria-label", re.compile(r"round 4 of 4"))
