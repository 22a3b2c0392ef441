"""Python 2 answers pasted into the page unmodified (language: Python 2) play as they do
natively: the page's records equal the native controller's turn by turn. The suggestion,
the converted code and its diff, the author's line numbers in faults, and the language kept
with the bot (reload, share link) are checked as a visitor meets them."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect
from test_accessibility import _serious_violations  # the axe-core check, on the new controls

from engine.bots.native import HostedBot, InProcessBot
from engine.bots.sandbox import Sandbox
from engine.games.registry import get_game
from engine.play.match import run_series

pytestmark = pytest.mark.browser

ANSWERS = Path(__file__).resolve().parents[1] / "python2_answers"
LIMIT_MS = 10_000  # generous: the comparison is of answers, not of the machine's load
SECRET = "python 2"


def answer(game: str) -> str:
    return (ANSWERS / f"{game}.py").read_text(encoding="utf-8")


def native_records(game: str, seed: int, games: int, opponents: list[str], **overrides) -> list[dict]:
    """The same series natively: the answer in a sandboxed bot host, the examples in-process."""
    spec = get_game(game)
    bots = [HostedBot(game, answer(game), Sandbox(), language="python2")]
    bots += [InProcessBot(name, spec.example_source(name)) for name in opponents]
    if spec.players_setting:
        overrides[spec.players_setting] = len(bots)
    settings = spec.settings(None, time_limit_ms=LIMIT_MS, **overrides)
    return run_series(spec, settings, bots, seed, games, secret=SECRET).document["records"]


def paste_python2(arena, n: int, game: str) -> None:
    arena.set_bot(n, answer(game), name=game)
    arena.label(f"Bot {n} language").select_option("python2")


def assert_same_records(page_records: list[dict], native: list[dict]) -> None:
    assert len(page_records) == len(native)
    for index, (mine, theirs) in enumerate(zip(page_records, native, strict=True)):
        assert len(mine["turns"]) == len(theirs["turns"]), index
        for turn, (a, b) in enumerate(zip(mine["turns"], theirs["turns"], strict=True)):
            assert a == b, f"record {index}, turn {turn + 1}: page {a} != native {b}"
        assert mine["result"] == theirs["result"]
        assert not any(f for t in mine["turns"] for f in t["faults"]), "a fault in the page"


def test_atomas_answer_suggested_converted_and_equal_to_native(arena, results_dir):
    page = arena.page
    arena.setup(game="atomas", games=2, seed=3, time_limit_ms=LIMIT_MS, max_moves=120)
    while arena.button("Remove bot").is_enabled():
        arena.button("Remove bot").click()
    arena.label("Secret (optional)").fill(SECRET)
    arena.set_bot(1, answer("atomas"), name="atomas")
    # Pasted as Python 3 (the default), it is recognised: one click runs it as Python 2.
    expect(arena.label("Bot 1 language")).to_have_value("python3")
    hint = page.locator("#bot1-panel .py2-hint")
    expect(hint).to_contain_text("This looks like Python 2: it is not valid Python 3", timeout=60_000)
    assert _serious_violations(page) == []
    arena.button("Run as Python 2 (Bot 1)").click()
    expect(arena.label("Bot 1 language")).to_have_value("python2")
    expect(hint).to_be_hidden()
    # The converted code and the diff, read-only; the code in the editor is as pasted.
    page.locator("#bot1-panel .py2-converted summary").click()
    converted = page.get_by_role("textbox", name="Bot 1 code converted to Python 3 (read-only)")
    expect(converted).to_contain_text("line = input()", timeout=60_000)
    expect(converted).to_contain_text("print(n/2, 'y')")
    diff = page.get_by_role("textbox", name="Bot 1 diff from the posted code to the converted code")
    expect(diff.locator(".removed").first).to_be_visible()
    expect(diff).to_contain_text("-        print \"copying\", `middle`")
    expect(diff).to_contain_text("+        print(\"copying\", repr(middle))")
    editor_text = page.evaluate("() => document.querySelector('#bot1-panel .cm-content').innerText")
    assert "print n/2, 'y'" in editor_text and "`middle`" in editor_text  # unchanged
    page.locator("#bot1-panel").screenshot(path=str(results_dir / "python2-panel.png"))
    assert _serious_violations(page) == []

    arena.run(300_000)
    expect(arena.console(1)).to_contain_text("ring of")  # its print >>sys.stderr
    assert_same_records(arena.records(), native_records("atomas", 3, 2, [], max_moves=120))

    # The language is kept with the bot: a reload shows it.
    page.reload()
    arena.wait_ready()
    expect(arena.label("Bot 1 language")).to_have_value("python2")


def test_flit_answer_plays_as_natively(arena):
    arena.setup(game="flit", games=1, seed=2, time_limit_ms=LIMIT_MS)
    arena.label("Secret (optional)").fill(SECRET)
    paste_python2(arena, 1, "flit")
    arena.label("Bot 2 example").select_option("random")
    arena.run(300_000)
    assert_same_records(arena.records(), native_records("flit", 2, 1, ["random"]))


def test_abotcalypse_answer_plays_as_natively(arena):
    arena.setup(game="abotcalypse", games=1, seed=5, time_limit_ms=LIMIT_MS)
    arena.label("Max turns").fill("60")
    arena.label("Secret (optional)").fill(SECRET)
    while arena.button("Remove bot").is_enabled():
        arena.button("Remove bot").click()
    paste_python2(arena, 1, "abotcalypse")
    arena.label("Bot 2 example").select_option("builder")
    arena.run(300_000)
    assert_same_records(arena.records(), native_records("abotcalypse", 5, 1, ["builder"], max_turns=60))


SHIFTED = """import random
total = reduce(lambda a, b: a + b, [1, 2, 3])
line = raw_input()
x = len(line) / 2
print 1 / 0
"""


def test_a_fault_shows_the_pasted_line_and_a_share_link_carries_the_language(arena, open_arena, site_url):
    page = arena.page
    arena.setup(game="atomas", games=1, seed=1, time_limit_ms=LIMIT_MS, max_moves=5)
    while arena.button("Remove bot").is_enabled():
        arena.button("Remove bot").click()
    arena.set_bot(1, SHIFTED, name="shifted")
    arena.label("Bot 1 language").select_option("python2")
    arena.run(120_000)
    # fissix adds "from functools import reduce" as a line: the fault still names line 5.
    expect(arena.console(1)).to_contain_text(re.compile(r"line 5: .*ZeroDivisionError"))

    # Code nested nearly as deep as the converter allows converts in the page's Worker (whose
    # stack is smaller than CPython's); deeper code gets a message, and Python lives on.
    page.locator("#bot1-panel .py2-converted summary").click()
    converted = page.get_by_role("textbox", name="Bot 1 code converted to Python 3 (read-only)")
    arena.set_bot(1, "print " + "(" * 110 + "1/2" + ")" * 110 + "\n")
    expect(converted).to_contain_text("(" * 110 + "1/2", timeout=60_000)
    arena.set_bot(1, "print " + "(" * 3000 + "1/2" + ")" * 3000 + "\n")
    expect(page.locator("#bot1-panel .py2-status")).to_contain_text("nests 3,005 levels deep", timeout=60_000)
    # A 20,000-term sum: flat for fissix, but ast.parse of it overflowed the controller's stack.
    arena.set_bot(1, "x = " + "1+" * 20_000 + "1\n")
    expect(converted).to_contain_text("x = 1+1+1", timeout=60_000)
    arena.label("Bot 1 language").select_option("python3")
    arena.label("Bot 1 language").select_option("python2")
    expect(page.locator("#bot1-panel .py2-hint")).to_be_hidden()
    arena.set_bot(1, SHIFTED)
    arena.run(120_000)
    expect(arena.console(1)).to_contain_text(re.compile(r"line 5: .*ZeroDivisionError"))
    assert not [e for e in arena.errors if "stack" in e], arena.errors
    expect(page.locator("#status")).not_to_contain_text("Python in the controller failed")

    arena.button("Share link").click()
    url = page.locator("#share-url").input_value()
    other = open_arena(site_url)
    other.page.goto(url)
    other.wait_ready()
    expect(other.label("Bot 1 language")).to_have_value("python2")
    expect(other.page.locator("#bot1-panel .py2-hint")).to_be_hidden()
