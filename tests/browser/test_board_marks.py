"""Marks on the board in the page (issue 22, item 3): a function bot's ``view.mark`` and a script
bot's ``#mark`` stderr lines are drawn at their turn, listed as text (never markup), and a
checkbox per bot hides and shows that bot's marks."""
from __future__ import annotations

import pytest
from conftest import ROOMY_MS
from playwright.sync_api import expect
from test_turn_output import scrub_to

pytestmark = pytest.mark.browser

# Marks (2, 5) on its 3rd move: as bot 1 in game 1 it has seat 0, so that is turn 5.
MARKER = """\
def move(view):
    if view.turn == 3:
        view.mark(2, 5, "red", "look <b>here</b>")
    moves = view.moves()
    return moves[0] if moves else (0, 0, 0, 0)
"""
# A script bot (stream mode): marks the square it moves to, "turn N" on its Nth move.
SCRIPT = """\
import sys
_, size, players, me = input().split()
size, me = int(size), int(me)
board = {}
turn = 0
while True:
    line = input()
    if line != "M":
        x, y, c = map(int, line.split())
        board[x, y] = c
        continue
    turn += 1
    mine = [p for p, c in board.items() if c == me]
    move = None
    for (x, y) in mine:
        for dst in (((x + 1) % size, y), ((x - 1) % size, y), (x, (y + 1) % size), (x, (y - 1) % size)):
            if board.get(dst, 0) == 0 and any(p != (x, y) for p in mine):
                move = (next(p for p in mine if p != (x, y)), dst)
    if move:
        (x0, y0), (x1, y1) = move
        print(f"#mark {x1} {y1} #00aa00 turn {turn}", file=sys.stderr, flush=True)
        print(x0, y0, x1, y1, flush=True)
    else:
        print("0 0 0 0", flush=True)
"""
REGION = "The bots' marks on the board"


def board_pixels(arena) -> str:
    return arena.page.locator("#board").evaluate("(c) => c.toDataURL()")


def test_marks_of_a_function_bot_and_a_script_bot_show_at_their_turn_and_toggle(arena):
    arena.setup(game="flit", games=1, seed=5, time_limit_ms=ROOMY_MS)
    arena.set_bot(1, MARKER, "marker")
    arena.set_bot(2, SCRIPT, "script")
    arena.run()
    record = arena.records()[0]
    marks = record["debug"]["marks"]
    assert [5, 0, [2, 5], "red", "look <b>here</b>"] in marks
    script_first = next(m for m in marks if m[1] == 1)
    assert script_first[0] == 2 and script_first[3:] == ["#00aa00", "turn 1"]
    answer = record["turns"][1]["answers"][0].split()
    assert script_first[2] == [int(answer[2]), int(answer[3])]  # the square it moved to

    region = arena.page.get_by_role("region", name=REGION)
    items = region.get_by_role("listitem")
    scrub_to(arena, 2)
    expect(items).to_have_text([f"script: ({answer[2]}, {answer[3]}) #00aa00 \"turn 1\""])
    scrub_to(arena, 5)
    expect(items).to_have_text(['marker: (2, 5) red "look <b>here</b>"'])  # the text, not markup
    assert region.locator("b").count() == 0
    shown = board_pixels(arena)

    toggle = region.get_by_role("checkbox", name="marks of 1 marker")
    toggle.focus()
    arena.page.keyboard.press("Space")  # reachable by keyboard
    expect(toggle).not_to_be_checked()
    expect(items).to_have_count(0)
    assert board_pixels(arena) != shown  # the mark is no longer drawn
    toggle.click()
    expect(items).to_have_count(1)
    assert board_pixels(arena) == shown
    scrub_to(arena, 6)  # not a turn the marker marked
    expect(items.filter(has_text="marker:")).to_have_count(0)


ATOMAS_MARKER = """\
def move(view):
    view.mark(0, "blue", "first")
    return "0 n" if view.atom == "-" else 0
"""
ABOT_MARKER = """\
def move(view):
    view.mark(1, 2, "cyan", "up right")
    return "rest"
"""


def native_record(game: str, source: str, **settings) -> dict:
    """A natively played record (an in-process function bot) with its marks."""
    from engine.bots.native import InProcessBot
    from engine.games.registry import get_game
    from engine.play.match import run_series

    spec = get_game(game)
    document = run_series(spec, spec.settings(time_limit_ms=60_000, **settings),
                          [InProcessBot("marker", source)] * (1 if spec.side_by_side else 2), 1, 1,
                          secret="s").document
    return document["records"][0]


@pytest.mark.parametrize(("game", "source", "settings", "shown"), [
    ("atomas", ATOMAS_MARKER, {"max_moves": 3}, 'marker: (0) blue "first"'),
    ("abotcalypse", ABOT_MARKER, {"max_turns": 3, "players": 2, "width": 48, "height": 24}, None),
])
def test_atomas_and_abotcalypse_marks_show_on_their_board(arena, game, source, settings, shown):
    record = native_record(game, source, **settings)
    mark = record["debug"]["marks"][0]
    assert mark[0] == 1
    if shown is None:  # aBOTcalypse: the cell up and right of where the bot stood
        x, y = record["start"]["bots"][mark[1]][:2]
        assert mark[2] == [x + 1, y + 2]
        shown = f'marker: ({x + 1}, {y + 2}) cyan "up right"'
    page = arena.page
    page.evaluate("(rec) => window.kothArena.viewer.load({renderer: rec.game, bots: rec.bots, "
                  "records: [rec]})", record)
    region = page.get_by_role("region", name=REGION)
    scrub_to(arena, 1)
    expect(region.get_by_role("listitem").first).to_have_text(shown)
    drawn = board_pixels(arena)
    region.get_by_role("checkbox").first.uncheck()
    expect(region.get_by_role("listitem").filter(has_text=shown)).to_have_count(0)
    assert board_pixels(arena) != drawn
