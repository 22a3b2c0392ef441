"""A bot's output in the page, served with its real headers: 5 MB of prints and errors every
move, with markup, control characters, lone surrogates and a hundred blank lines. The
console keeps a bounded part of it as text (never markup), the bot's answers still count
(no fault), the other bot is untouched and the page answers throughout."""
from __future__ import annotations

import re

import pytest
from conftest import wait_until
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

FLOODER = r'''
import sys

JUNK = ('<img src=x onerror="document.title=\'owned\'"><script>document.title="owned"</script>'
        "\x1b[2J\x1b[31m\x00\x07" + "\ud800" + "\u202e")


def move(view):
    print(JUNK)
    print("x" * 3_000_000)
    sys.stderr.write(("\n" * 100) + JUNK + "y" * 2_000_000 + "\n")
    moves = view.moves()
    return moves[0] if moves else (0, 0, 0, 0)
'''


def test_a_flood_of_output_with_markup_is_kept_as_bounded_text(open_arena, isolated_url):
    arena = open_arena(isolated_url)
    page = arena.page
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    # 5 MB of output a move, and "no faults" asserted: a limit far above its cost under load
    arena.setup(game="flit", games=1, seed=8, time_limit_ms=30_000)
    arena.set_bot(1, FLOODER, name="flooder")
    arena.label("Bot 2 example").select_option("greedy")
    page.wait_for_timeout(400)
    title = page.title()
    arena.start_run()
    wait_until(page, "window.kothArena.run === null", 600_000, interval_s=1)
    status = arena.status.inner_text()
    assert status.startswith("Finished"), status

    console = arena.console(1)
    expect(console).to_contain_text(re.compile(r"\[\.\.\. \d+ characters (of output )?cut"))
    assert console.locator("img, script").count() == 0  # shown as text, never as markup
    expect(console).to_contain_text('<img src=x onerror="document.title')
    assert console.locator(":scope > *").count() <= 2_000  # the console's own cap, in lines
    text_length = page.evaluate("document.querySelector('[aria-label=\"Bot 1 console\"]').textContent.length")
    assert text_length < 2_000_000, text_length  # a bounded part of some 5 MB a move
    assert page.title() == title and dialogs == []
    flooder, greedy = arena.result_row("flooder"), arena.result_row("greedy")
    assert flooder[4] == "0", flooder  # its answers still count
    assert greedy[4] == "0", greedy
    assert page.evaluate("1 + 1") == 2
