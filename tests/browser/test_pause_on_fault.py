"""The bot author's debugging loop in the page (issue 22, item 4): a match pauses where a bot
faults, with the line marked; keys step one turn, play and pause, and run the match again with
the same seed and secret; an earlier version of a bot enters as an opponent."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import ROOMY_MS, wait_until
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
FAULT_LINE = 9  # the line of the raise below
# Flit's random example (its own code, renamed random_move) that raises on its 5th and 8th moves.
CRASHER = """\
import random

moves = 0


def move(view):
    global moves
    moves += 1
    if moves in (5, 8): raise ValueError("<b>boom</b> on my fifth move " + "x" * 5000)
    return random_move(view)


""" + (Path(__file__).resolve().parents[2] / "engine/games/flit/examples/random.py").read_text(
    encoding="utf-8").replace("def move(view):", "def random_move(view):")


def scrub(page) -> int:
    return int(page.locator("#scrub").input_value())


def test_a_match_pauses_at_a_fault_steps_by_key_and_runs_again_the_same(arena, results_dir):
    page = arena.page
    arena.setup(game="flit", games=1, seed=4, time_limit_ms=ROOMY_MS)
    arena.set_bot(1, CRASHER, name="crasher")
    arena.label("Bot 2 example").select_option("greedy")
    pause = arena.label("Pause on a fault")
    pause.check()
    arena.start_run()

    # The board stops at the faulting turn and stays there while the game plays on.
    wait_until(page, "window.kothArena.viewer.held", 300_000)
    console = arena.console(1)
    expect(console).to_contain_text("<b>boom</b> on my fifth move")
    expect(console).to_contain_text(re.compile(r"\(game 1, turn \d+\)[\s\S]*\(game 1, turn \d+\)"))
    turn, later = (int(t) for t in re.findall(r"\(game 1, turn (\d+)\)", console.inner_text())[:2])
    assert 0 < turn < later - 1 and scrub(page) == turn
    assert re.match(rf"Flit board, turn {turn} of ", arena.canvas_label()), arena.canvas_label()
    note = page.locator("#fault-pause")
    expect(note).to_contain_text(
        f"Paused at a fault of Bot 1 (crasher): game 1, turn {turn}, line {FAULT_LINE}.")
    # the bot's text is drawn as text, cut short (the console holds the rest)
    expect(note).to_contain_text("<b>boom</b> on my fifth move xxx")
    assert note.locator("b").count() == 0 and len(note.inner_text()) < 600
    marked = page.locator("#bot1-panel .cm-fault-line")
    expect(marked).to_have_count(1)
    expect(marked).to_contain_text('raise ValueError("<b>boom</b> on my fifth move "')
    expect(marked).to_contain_text(f"fault here: game 1, turn {turn}")
    first = arena.wait_finished()
    assert first.startswith("Finished"), first
    assert scrub(page) == turn, "the board left the fault while the game played on"
    page.locator("#bot1-panel").scroll_into_view_if_needed()
    page.screenshot(path=str(results_dir / "pause-on-fault.png"), full_page=True)
    rows = (arena.result_row("crasher"), arena.result_row("greedy"))

    # N steps exactly one turn; not while typing in a text field or a code editor.
    page.locator("#board-area").focus()
    page.keyboard.press("n")
    assert scrub(page) == turn + 1
    assert re.match(rf"Flit board, turn {turn + 1} of ", arena.canvas_label())
    arena.label("Seed").focus()
    page.keyboard.press("n")
    page.get_by_role("textbox", name="Bot 1 code").focus()
    page.keyboard.press("n")
    page.keyboard.press("Backspace")  # the editor took the key: its code is as it was
    assert scrub(page) == turn + 1
    assert page.evaluate("window.kothArena.getCode(0)") == CRASHER

    # P plays on, and the board stops again at the next fault.
    arena.label("Speed").fill("5")
    page.locator("#board-area").focus()
    page.keyboard.press("p")
    expect(note).to_have_text("")
    wait_until(page, f"window.kothArena.viewer.held && document.getElementById('scrub').value === '{later}'",
               60_000)
    expect(page.locator("#btn-play")).to_have_attribute("aria-pressed", "false")
    expect(note).to_contain_text(f"game 1, turn {later}, line {FAULT_LINE}.")
    # P plays and pauses (slowly: nothing here can reach the game's end first).
    arena.label("Speed").fill("1")
    page.locator("#board-area").focus()
    page.keyboard.press("p")
    expect(page.locator("#btn-play")).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("p")
    expect(page.locator("#btn-play")).to_have_attribute("aria-pressed", "false")

    # R plays the match again from its first turn: the same seed and secret, the same fault
    # at the same turn, the same scores. R during that run stops it and starts it again.
    expect(page.locator("#btn-rerun")).to_have_attribute("aria-keyshortcuts", "R")
    arena.label("Seed").fill("77")  # the form's seed is not the run's: R repeats the run
    page.locator("#board-area").focus()
    started = page.evaluate("window.kothArena.runsStarted")
    page.keyboard.press("r")
    assert page.evaluate("window.kothArena.runsStarted") == started + 1
    page.keyboard.press("r")
    wait_until(page, f"window.kothArena.runsStarted > {started + 1}", 600_000)
    wait_until(page, "window.kothArena.viewer.held", 300_000)
    assert scrub(page) == turn
    second = arena.wait_finished()
    assert second == first
    assert (arena.result_row("crasher"), arena.result_row("greedy")) == rows

    # The option is kept across reloads; on a phone the keys are named on screen.
    page.reload()
    arena.wait_ready()
    expect(arena.label("Pause on a fault")).to_be_checked()
    page.set_viewport_size(PHONE)
    keys = page.locator("#viewer-keys")
    keys.scroll_into_view_if_needed()
    expect(keys).to_be_visible()
    expect(keys).to_contain_text("P play or pause, N step one turn, R run the match again")
    box = keys.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]


OLD_GREEDY_NOTE = "# the version before the last edit\n"
HOSTILE_NAME = "<img src=x onerror=alert(1)>" + "n" * 300  # a shared link's bots are anyone's


def test_an_earlier_version_enters_as_an_opponent(arena):
    page = arena.page
    arena.setup(game="flit", games=1, seed=2, time_limit_ms=ROOMY_MS)
    arena.label("Bot 1 example").select_option("greedy")
    greedy = page.evaluate("window.kothArena.getCode(0)")
    kept = [7, {"bots": "junk"},
            {"bots": [{"name": HOSTILE_NAME, "code": "# hostile\n" + greedy}], "reason": "?", "at": "noon"},
            {"bots": [{"name": "greedy", "code": OLD_GREEDY_NOTE + greedy}, {"name": "same", "code": greedy}],
             "reason": "link", "at": page.evaluate("Date.now()")}]
    page.evaluate("(v) => localStorage.setItem('koth-arena:previous-bots:flit', v)", json.dumps(kept))

    menu = arena.label("Bot 2 example")
    menu.focus()  # the menu reads the kept versions when it is opened
    labels = menu.locator("optgroup[label^='Earlier versions'] option").all_inner_texts()
    # newest first; the code on show now is not offered; a kept name is text, cut to fit
    assert len(labels) == 2 and re.fullmatch(r"greedy \(v2, \d\d:\d\d\)", labels[0]), labels
    assert labels[1] == HOSTILE_NAME[:35] + " (v1)"
    assert page.locator("img").count() == 0
    menu.select_option(label=labels[0])
    expect(arena.label("Bot 2 name")).to_have_value(labels[0])
    assert page.evaluate("window.kothArena.getCode(1)") == OLD_GREEDY_NOTE + greedy

    arena.run()
    row = arena.result_row(labels[0])
    assert row[1] == "1", row
    assert arena.records()[0]["bots"] == ["greedy", labels[0]]
