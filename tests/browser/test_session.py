"""What the page keeps between visits, the editor by keyboard, and stopping a run."""
from __future__ import annotations

import json
import re

import pytest
from conftest import ROOMY_MS, wait_until
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_settings_and_bots_survive_a_reload(arena):
    page = arena.page
    arena.setup(game="flit", seed=4242, games=7, time_limit_ms=250)
    arena.label("Bot 1 name").fill("keyboard bot")

    # The editor works by keyboard: select all, type a new bot.
    editor = page.get_by_label("Bot 1 code", exact=True)
    editor.click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.type('def move(view):\nreturn "0 0 0 0"  # typed\n', delay=5)
    code = page.evaluate("window.kothArena.getCode(0)")
    # CodeMirror indents the line after the colon (and closes quotes as we type).
    assert re.match(r'def move\(view\):\n +return "0 0 0 0"  # typed\n *$', code), repr(code)
    arena.set_bot(2, "def move(view):\n    return (1, 1, 1, 1)\n", name="second")

    # the debounced save, however late its timer fires on a loaded machine
    wait_until(page, "(localStorage.getItem('koth-arena:settings') || '').includes('4242')", 30_000)
    saved = arena.storage()
    assert json.loads(saved["koth-arena:settings"])["seed"] == 4242
    page.reload()
    arena.wait_ready()

    expect(arena.label("Game")).to_have_value("flit")
    expect(arena.label("Seed")).to_have_value("4242")
    expect(arena.label("Games")).to_have_value("7")
    expect(arena.label("Time limit (ms)")).to_have_value("250")
    expect(arena.label("Bot 1 name")).to_have_value("keyboard bot")
    expect(arena.label("Bot 2 name")).to_have_value("second")
    assert page.evaluate("window.kothArena.getCode(0)") == code
    assert page.evaluate("window.kothArena.getCode(1)") == "def move(view):\n    return (1, 1, 1, 1)\n"
    expect(page.get_by_label("Bot 1 code", exact=True)).to_contain_text("# typed")

    # Each game keeps its own bots: Atomas still has its examples, and Flit's come back.
    arena.label("Game").select_option("atomas")
    expect(arena.label("Max moves")).to_be_visible()
    expect(arena.label("Time limit (ms)")).to_have_value("1000")  # the Atomas preset's default
    assert "def move" in page.evaluate("window.kothArena.getCode(0)")
    arena.label("Game").select_option("flit")
    expect(arena.label("Bot 1 name")).to_have_value("keyboard bot")

    # The typed bot runs: it passes every turn, without faults.
    arena.setup(games=1, time_limit_ms=ROOMY_MS)
    arena.run()
    row = arena.result_row("keyboard bot")
    assert row[1] == "1" and row[4] == "0", (row, arena.console(1).inner_text())


def test_stop_a_long_series(arena):
    arena.setup(game="flit", games=20, seed=1, time_limit_ms=100)
    arena.start_run()
    expect(arena.button("Run")).to_be_disabled()
    expect(arena.button("Stop")).to_be_enabled()
    expect(arena.status).to_contain_text("of 20 games finished", timeout=300_000)
    arena.button("Stop").click()
    assert arena.wait_finished(30_000).strip() == "Stopped."
    expect(arena.button("Run")).to_be_enabled()
    expect(arena.button("Stop")).to_be_disabled()
    expect(arena.results_table()).to_contain_text("stopped")
    games = int(arena.result_row("greedy")[1])
    assert 1 <= games < 20
    arena.page.wait_for_timeout(1500)
    expect(arena.status).to_have_text("Stopped.")  # nothing arrives after the stop

    # The page can run again after a stop.
    arena.setup(games=1)
    arena.run()


def test_share_link_carries_settings_and_bots_and_a_broken_one_is_refused(open_arena, site_url,
                                                                         arena_context):
    author = open_arena(site_url)
    author.setup(game="atomas", seed=777, games=4)
    author.set_bot(1, "def move(view):\n    return 0  # shared\n", name="sharer")
    author.button("Share link").click()
    link = author.page.get_by_label("Share link URL", exact=True).input_value()
    assert "#" in link and link.startswith(site_url.rstrip("/"))

    # A visitor with nothing saved opens the link: the same game, settings, names and code.
    visitor = open_arena(link)
    expect(visitor.label("Game")).to_have_value("atomas")
    expect(visitor.label("Seed")).to_have_value("777")
    expect(visitor.label("Games")).to_have_value("4")
    expect(visitor.label("Bot 1 name")).to_have_value("sharer")
    assert visitor.page.evaluate("window.kothArena.getCode(0)").endswith("return 0  # shared\n")

    # A damaged link: a clear message, and what the visitor had stays as it was.
    broken = open_arena(site_url.rstrip("/") + "/#not-a-valid-share-link")
    expect(broken.status).to_contain_text("Could not apply the shared link")
    expect(broken.label("Seed")).to_have_value("777")  # this context's saved settings
