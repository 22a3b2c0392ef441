"""Export as Stack Snippet in the page: the engine writes the block of post markdown for the
challenge on show (it parses back into the site's snippet form and carries exactly the
challenge), and refuses one over a post's 30,000 characters, with its size."""
from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from conftest import wait_until

from engine import __version__
from engine.contest.challenge import challenge_json, load_challenge
from engine.contest.snippet import parse_snippet, pyodide_cdn_url, pypi_wheel_url, unpack_challenge

pytestmark = pytest.mark.browser


def open_dialog(arena):
    arena.page.get_by_role("radio", name="Tournament").check()  # the challenge's field and its actions
    opener = arena.page.get_by_role("button", name="Export as Stack Snippet…", exact=True)
    opener.focus()
    arena.page.keyboard.press("Enter")
    dialog = arena.page.get_by_role("dialog", name="Export as a Stack Snippet")
    dialog.wait_for()
    return dialog


def export(arena, dialog) -> None:
    dialog.get_by_role("button", name="Export", exact=True).click()
    wait_until(arena.page,
               "() => !document.getElementById('snippet-export-run').disabled"
               " && document.getElementById('snippet-status').textContent !== 'Writing the snippet…'")


def test_export_writes_the_snippet_of_the_challenge_on_show(arena):
    from test_accessibility import _serious_violations  # tests/browser is on sys.path (rootdir-less)

    arena.page.evaluate("""() => window.kothArena.challenge.addEntries([
        { name: "first", author: "Ann", code: "def move(view):\\n    return (0, 0, 0, 0)\\n" }])""")
    dialog = open_dialog(arena)
    field = dialog.get_by_label("Question number or URL (optional)", exact=True)
    field.fill("https://codegolf.stackexchange.com/questions/262108/flit")
    field.press("Enter")
    wait_until(arena.page,
               "document.getElementById('snippet-status').textContent.startsWith('Snippet ready')")
    status = dialog.get_by_role("status").inner_text()
    markdown = dialog.get_by_label("Snippet markdown", exact=True).input_value()
    assert re.match(rf"Snippet ready: {len(markdown):,} of the post's 30,000 characters", status), status
    blocks = parse_snippet(markdown)
    config = json.loads(re.search(r"const K = (\{.*?\});\n", blocks["js"]).group(1))
    assert (config["question"], config["site"]) == (262108, "codegolf")
    assert config["wheel"] == pypi_wheel_url(__version__)
    assert config["pyodide"].startswith("https://cdn.jsdelivr.net/npm/pyodide@")
    shown = arena.page.evaluate("window.kothArena.challenge.currentChallenge()")
    expected = json.loads(challenge_json(load_challenge(json.dumps(shown))))
    assert json.loads(unpack_challenge(config["challenge"])) == expected
    assert [e["name"] for e in expected["entries"]][-1] == "first"
    package = Path(__file__).resolve().parents[2] / "node_modules" / "pyodide" / "package.json"
    pyodide = json.loads(package.read_text())
    assert config["pyodide"] == pyodide_cdn_url(pyodide["version"])  # the page's own Pyodide
    assert _serious_violations(arena.page) == []


def test_export_refuses_a_snippet_over_the_post_limit_with_its_size(arena):
    rng = random.Random(3)  # random text: deflate cannot shrink it under the limit
    code = "".join(f"x{rng.getrandbits(64):016x} = {rng.getrandbits(64)}\n" for _ in range(1200))
    arena.page.evaluate("(code) => window.kothArena.challenge.addEntries([{ name: 'huge', code }])", code)
    dialog = open_dialog(arena)
    export(arena, dialog)
    error = dialog.get_by_role("alert").inner_text()
    assert re.match(r"Cannot export: the snippet is [\d,]+ characters: a post holds at most 30,000",
                    error), error
    assert not dialog.get_by_label("Snippet markdown", exact=True).is_visible()
    dialog.get_by_role("button", name="Close", exact=True).press("Enter")
    assert arena.page.evaluate("document.activeElement.id") == "snippet-export-open"
