"""The bot author's loop in the page: at the scrubbed turn, what each bot printed and answered
and how long it took (the record's debug part), a console line that takes the board to its
turn, and each bot's median and worst move time under the results (issue 22, items 1 and 5)."""
from __future__ import annotations

import re

import pytest
from conftest import READY_TIMEOUT_MS, ROOMY_MS, wait_until
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

# Prints on its 3rd move only: as bot 1 in game 1 it has seat 0, so that is turn 5.
PRINTER = """\
import sys
count = 0

def move(view):
    global count
    count += 1
    if count == 3:
        print("<b>third</b> move of", len(view.moves()))
        print("<img src=x onerror=alert(1)>", file=sys.stderr)
    moves = view.moves()
    return moves[0] if moves else (0, 0, 0, 0)
"""
FIRST = """\
def move(view):
    moves = view.moves()
    return moves[0] if moves else (0, 0, 0, 0)
"""
KNOWN_TURN = 5
REGION = "What the bots printed and answered at this turn"


def scrub_to(arena, turn: int) -> None:
    """Drag the Turn slider to ``turn`` (a range input: its value set, then its input event)."""
    arena.page.locator("#scrub").evaluate(
        "(e, v) => { e.value = String(v); e.dispatchEvent(new Event('input', {bubbles: true})); }", turn)


def test_the_scrubbed_turn_shows_output_answer_and_time_and_a_console_line_jumps_there(arena):
    arena.setup(game="flit", games=1, seed=5, time_limit_ms=ROOMY_MS)
    arena.set_bot(1, PRINTER, "printer")
    arena.set_bot(2, FIRST, "first")
    arena.run()

    turn_output = arena.page.get_by_role("region", name=REGION)
    scrub_to(arena, KNOWN_TURN)
    expect(arena.page.locator("#scrub")).to_have_value(str(KNOWN_TURN))
    expect(turn_output.get_by_role("heading")).to_have_text(f"Turn {KNOWN_TURN}")
    expect(turn_output).to_contain_text("<b>third</b> move of")  # the text itself, not markup
    expect(turn_output).to_contain_text("<img src=x onerror=alert(1)>")
    assert turn_output.locator("b, img").count() == 0
    answer = turn_output.locator("p.turn-answer").inner_text()
    assert re.fullmatch(r'1 printer: answered "\d+ \d+ \d+ \d+" in \d+\.\d+ ms', answer), answer
    record = arena.records()[0]
    move = record["turns"][KNOWN_TURN - 1]
    assert move["seats"] == [0] and f'"{move["answers"][0]}"' in answer
    assert [entry[:2] for entry in record["debug"]["output"]] == [[KNOWN_TURN, 0]]

    scrub_to(arena, KNOWN_TURN + 1)  # the other bot's turn: it printed nothing
    expect(turn_output.get_by_role("heading")).to_have_text(f"Turn {KNOWN_TURN + 1}")
    expect(turn_output).to_contain_text("2 first: answered")
    expect(turn_output).not_to_contain_text("third")

    arena.button("End").click()
    jump = arena.console(1).get_by_role("button",
                                        name=f"Show turn {KNOWN_TURN} of game record 1 on the board")
    expect(jump).to_have_count(2)  # its stdout line and its stderr line
    jump.first.click()
    expect(arena.page.locator("#scrub")).to_have_value(str(KNOWN_TURN))
    expect(turn_output).to_contain_text("<b>third</b> move of")

    timing = arena.page.get_by_role("table", name=re.compile(r"^Move time"))
    for name in ("printer", "first"):
        header = arena.page.get_by_role("rowheader", name=name, exact=True)
        row = timing.get_by_role("row").filter(has=header)
        cells = [c.strip() for c in row.locator("th, td").all_inner_texts()]
        assert int(cells[1]) > 10, cells
        assert re.fullmatch(r"\d+\.\d+ ms", cells[2]) and re.fullmatch(r"\d+\.\d+ ms", cells[3]), cells
        assert float(cells[2].split()[0]) <= float(cells[3].split()[0])  # median <= worst
    assert not arena.errors, arena.errors

    # the one-game link made at this turn opens the replayed game at it
    arena.button("Link to this game").click()
    link_field = arena.page.get_by_label("Link to this game", exact=True)
    expect(link_field).to_have_value(re.compile("#g="))  # made asynchronously, after the click
    url = link_field.input_value()
    other = arena.page.context.new_page()
    errors: list[str] = []
    other.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        other.goto(url)
        wait_until(other, "window.kothArena && window.kothArena.ready", READY_TIMEOUT_MS)
        expect(other.get_by_role("status")).to_contain_text("as the link says", timeout=300_000)
        expect(other.locator("#scrub")).to_have_value(str(KNOWN_TURN))
        expect(other.get_by_role("region", name=REGION)).to_contain_text("<b>third</b> move of")
        assert not errors, errors
    finally:
        other.close()
