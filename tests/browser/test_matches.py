"""Whole matches in the page: example bots, pasted function bots, script bots."""
from __future__ import annotations

import re

import pytest
from conftest import ROOMY_MS
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

# The tests assert "no faults": a limit far above a move's cost on a loaded machine.
LIMIT_MS = ROOMY_MS

# Two small pasted Flit bots: one takes the move that converts the most neutrals next to
# its destination, the other always takes the first valid move.
FLIT_HUNTER = """\
def move(view):
    moves = view.moves()
    if not moves:
        return "0 0 0 0"
    def gain(m):
        return sum(view[p] == 5 for p in view.neighbours(m[2], m[3]))
    return max(moves, key=gain)
"""
FLIT_FIRST = """\
def move(view):
    moves = view.moves()
    return moves[0] if moves else (0, 0, 0, 0)
"""


def test_atomas_series_with_example_bots(arena, results_dir):
    arena.setup(game="atomas", games=3, seed=11, time_limit_ms=LIMIT_MS, max_moves=300)
    arena.label("Bot 1 example").select_option("greedy")
    arena.label("Bot 2 example").select_option("random")
    expect(arena.label("Bot 1 name")).to_have_value("greedy")
    expect(arena.label("Bot 2 name")).to_have_value("random")
    assert "def move" in arena.page.evaluate("window.kothArena.getCode(0)")

    status = arena.run()
    assert "3 games" in status and "greedy mean" in status and "random mean" in status

    greedy = arena.result_row("greedy")
    random_ = arena.result_row("random")
    assert greedy[1] == "3" and random_[1] == "3", (greedy, random_)
    # Atomas is scored by mean score (its spec): the bots ranked, best first, no wins.
    heads = arena.results_table().get_by_role("columnheader").all_inner_texts()
    assert heads == ["Bot", "Games", "Rank", "Mean score", "Faults"], heads
    assert (greedy[2], random_[2]) == ("1", "2"), (greedy, random_)
    assert arena.results_table().get_by_role("rowheader").all_inner_texts() == ["greedy", "random"]
    assert float(greedy[3]) > float(random_[3]), (greedy, random_)
    assert greedy[4] == "0" and random_[4] == "0", (
        greedy, random_, arena.console(1).inner_text(), arena.console(2).inner_text())

    per_game = arena.page.get_by_role("table", name="Per-game results")
    arena.page.get_by_text(re.compile(r"^Per-game results \(3 games\)")).click()
    expect(per_game.get_by_role("row")).to_have_count(4)  # header + 3 games

    label = arena.canvas_label()
    assert label.startswith("Atomas board, "), label
    assert re.search(r"move (\d+) of \1: score \d+", label), label
    expect(arena.label("Game record").locator("option")).to_have_count(6)  # 3 seeds x 2 bots
    arena.page.locator("#board-area").screenshot(path=str(results_dir / "atomas-board.png"))


def test_flit_match_between_pasted_bots(arena, results_dir):
    arena.setup(game="flit", games=1, seed=5, time_limit_ms=LIMIT_MS)
    arena.set_bot(1, FLIT_HUNTER, name="hunter")
    arena.set_bot(2, FLIT_FIRST, name="first")
    status = arena.run()
    assert status.startswith("Finished: 1 game;"), status
    assert re.search(r"hunter \d+ wins?, first \d+ wins?", status), status

    heads = arena.results_table().get_by_role("columnheader").all_inner_texts()
    assert heads == ["Bot", "Games", "Wins", "Mean score", "Faults"], heads  # Flit counts wins
    hunter, first = arena.result_row("hunter"), arena.result_row("first")
    assert hunter[1:3] in (["1", "1"], ["1", "0"]) and first[1] == "1", (hunter, first)
    assert int(hunter[2]) + int(first[2]) <= 1
    assert int(hunter[3]) > 0 and int(first[3]) >= 0
    assert hunter[4] == "0" and first[4] == "0", (
        hunter, first, arena.console(1).inner_text(), arena.console(2).inner_text())

    label = arena.canvas_label()
    m = re.match(r"Flit board, turn (\d+) of (\d+): hunter (\d+) pieces?, first (\d+) pieces?", label)
    assert m and m[1] == m[2], label
    assert (int(m[3]), int(m[4])) == (int(hunter[3]), int(first[3])), (label, hunter, first)
    expect(arena.page.locator("#frame-info")).to_contain_text("game over")
    arena.page.locator("#board-area").screenshot(path=str(results_dir / "flit-board.png"))


FLIT_SCRIPT = """\
# reads the text protocol with input(); answers on "M"
_, size, players, me = input().split()
size, me = int(size), int(me)
board = {}
while True:
    line = input()
    if line != "M":
        x, y, c = map(int, line.split())
        board[x, y] = c
        continue
    mine = sorted(p for p, c in board.items() if c == me)
    answer = "0 0 0 0"
    for (x, y) in mine:
        for dst in (((x + 1) % size, y), ((x - 1) % size, y), (x, (y + 1) % size), (x, (y - 1) % size)):
            if board.get(dst, 0) == 0:
                src = next((p for p in mine if p != (x, y)), None)
                if src:
                    answer = f"{src[0]} {src[1]} {dst[0]} {dst[1]}"
                    break
        if answer != "0 0 0 0":
            break
    print(answer)
"""

ATOMAS_SCRIPT = """\
line = raw_input()
atom, _, items = line.partition("/")
n = len(items.split())
print("thinking about", atom)  # not the last line: not the answer
if atom == "-":
    print(0, "y")
else:
    print(0)
"""


def test_script_bots_flit_input_and_atomas_raw_input(arena):
    jspi = arena.page.evaluate("typeof WebAssembly.Suspending === 'function'")
    assert jspi, "this Chromium lacks JSPI: Flit script bots cannot run"

    arena.setup(game="flit", games=1, seed=2, time_limit_ms=LIMIT_MS)
    arena.set_bot(1, FLIT_SCRIPT, name="scripted")
    arena.label("Bot 2 example").select_option("random")
    arena.run()
    row = arena.result_row("scripted")
    assert row[1] == "1" and row[4] == "0", row
    expect(arena.console(1)).not_to_contain_text("fault")
    (record,) = arena.records()
    seat = record["bot_index"].index(0)
    mine = [t for t in record["turns"] if t["seats"] == [seat]]
    moved = [t for t in mine if t["move"] is not None]
    assert mine and not any(t["faults"][0] for t in mine)
    assert len(moved) > 10, f"the script bot made only {len(moved)} moves"

    arena.setup(game="atomas", games=1, seed=4, time_limit_ms=LIMIT_MS, max_moves=60)
    arena.set_bot(1, ATOMAS_SCRIPT, name="raw")
    arena.label("Bot 2 example").select_option("greedy")
    arena.run()
    row = arena.result_row("raw")
    assert row[1] == "1" and row[4] == "0", row
    expect(arena.console(1)).to_contain_text("thinking about")
    records = arena.records()
    raw = next(r for r in records if r["bot_index"] == [0])
    assert raw["turns"] and all(t["faults"] == [None] for t in raw["turns"])
    assert raw["turns"][0]["answers"][0].startswith("0")


def test_syntax_error_is_reported_and_the_other_bot_plays(arena):
    arena.setup(game="flit", games=1, seed=3, time_limit_ms=LIMIT_MS)
    arena.set_bot(1, "def move(view):\n    return (0, 0 0, 0)\n", name="broken")
    arena.label("Bot 2 example").select_option("greedy")
    arena.run()
    console = arena.console(1)
    expect(console).to_contain_text("line 2")
    expect(console).to_contain_text(re.compile(r"syntax", re.I))
    greedy, broken = arena.result_row("greedy"), arena.result_row("broken")
    assert greedy[1] == "1" and greedy[2] == "1", greedy
    assert broken[1] == "1" and broken[2] == "0" and int(broken[4]) >= 1, broken
    (record,) = arena.records()
    greedy_seat = record["bot_index"].index(1)
    assert any(t["move"] for t in record["turns"] if t["seats"] == [greedy_seat])
