"""The replay viewer: controls after a finished game, keyboard on the board, and replay
files written by the native command line."""
from __future__ import annotations

import re

import pytest
from conftest import ROOMY_MS, wait_until
from native_match import native_replay
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def turn_of(label: str) -> tuple[int, int]:
    m = re.match(r"Flit board, turn (\d+) of (\d+):", label)
    assert m, label
    return int(m[1]), int(m[2])


def test_replay_controls_after_a_flit_game(arena):
    page = arena.page
    # no time-out may shorten the game below the 500 turns scrubbed to below
    arena.setup(game="flit", games=1, seed=9, time_limit_ms=ROOMY_MS)
    arena.run()
    scrub = arena.label("Turn")
    turn, total = turn_of(arena.canvas_label())
    assert turn == total > 0
    expect(scrub).to_have_value(str(total))

    arena.button("Start").click()
    expect(scrub).to_have_value("0")
    assert turn_of(arena.canvas_label()) == (0, total)
    expect(arena.button("Step back")).to_be_disabled()

    arena.button("Step forward").click()
    expect(scrub).to_have_value("1")
    assert turn_of(arena.canvas_label()) == (1, total)
    arena.button("Step back").click()
    expect(scrub).to_have_value("0")

    arena.button("End").click()
    expect(scrub).to_have_value(str(total))
    assert turn_of(arena.canvas_label()) == (total, total)
    expect(arena.button("Step forward")).to_be_disabled()

    arena.button("Start").click()
    # slow enough that the game cannot play out before Pause lands, on any machine
    arena.label("Speed").fill("10")
    arena.button("Play").click()
    expect(arena.button("Pause")).to_have_attribute("aria-pressed", "true")
    wait_until(page, "Number(document.getElementById('scrub').value) >= 2")
    arena.button("Pause").click()
    expect(arena.button("Play")).to_have_attribute("aria-pressed", "false")
    paused = int(scrub.input_value())
    assert 0 < paused < total
    page.wait_for_timeout(300)
    assert int(scrub.input_value()) == paused, "the board moved on while paused"
    assert turn_of(arena.canvas_label())[0] == paused

    scrub.fill("500")
    assert turn_of(arena.canvas_label()) == (500, total)
    expect(page.locator("#frame-info")).to_contain_text("Turn 500 of")

    board = page.get_by_role("group", name=re.compile("^Board viewer"))
    board.focus()
    board.press("Home")
    assert turn_of(arena.canvas_label())[0] == 0
    board.press("ArrowRight")
    board.press("ArrowRight")
    assert turn_of(arena.canvas_label())[0] == 2
    board.press("ArrowLeft")
    assert turn_of(arena.canvas_label())[0] == 1
    board.press("End")
    assert turn_of(arena.canvas_label())[0] == total
    board.press("Home")
    board.press("Space")
    expect(arena.button("Pause")).to_be_visible()
    board.press("Space")
    expect(arena.button("Play")).to_be_visible()


def test_open_native_replay_and_refuse_a_broken_one(arena, tmp_path):
    replay = tmp_path / "native.json"
    native_replay(replay, "flit", "builtin:random", "builtin:greedy", "--games", "2", "--seed", "3")

    arena.label("Open replay…").set_input_files(str(replay))
    expect(arena.status).to_contain_text("Opened native.json: Flit, 2 records")
    records = arena.label("Game record")
    expect(records.locator("option")).to_have_count(2)
    expect(records.locator("option").first).to_have_text("Game 1 — seed 3 — random vs greedy")
    label = arena.canvas_label()
    assert re.match(r"Flit board, turn 0 of \d+: random \d+ pieces?, greedy \d+ pieces?", label), label
    expect(arena.results_table()).to_contain_text("replay native.json")
    assert arena.result_row("greedy")[1] == "2"

    records.select_option(index=1)
    label2 = arena.canvas_label()
    assert label2.startswith("Flit board, turn 0 of "), label2
    arena.button("End").click()
    final = arena.canvas_label()

    broken = tmp_path / "broken.json"
    broken.write_text('{"schema_version": 1, "kind": "series", "game": "flit", "records": [')
    arena.label("Open replay…").set_input_files(str(broken))
    expect(arena.status).to_contain_text("Could not open replay")
    expect(records.locator("option")).to_have_count(2)
    assert arena.canvas_label() == final
    expect(arena.results_table()).to_contain_text("replay native.json")
