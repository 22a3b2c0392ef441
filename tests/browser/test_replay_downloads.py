"""Replays, one-game links and the Markdown leaderboard in the page (issue 18, item 3).

Two journeys, each on one page: a match run's games downloaded and opened again (file
picker and drag-and-drop, a hostile drop refused), and a tournament's leaderboard as
Markdown (the CLI's text for the same challenge, seed, secret and step budget), all its
games as one file opened again, and a link to one of its games opened by a recipient in a
fresh browser context, where the engine plays that game again to the same scores.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import wait_until
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
BUDGET = 1_000_000  # steps a move: the same games on every machine
RANDOM_MOVE = """\
import random

def move(view):
    moves = view.moves()
    return random.choice(moves) if moves else (0, 0, 0, 0)
"""
HOSTILE_NAME = "a|b`c<img src=x onerror=alert(1)>[x](javascript:alert(1))"
DROP_JS = """([name, text]) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], name, { type: "application/json" }));
    const target = document.getElementById("board-area");
    for (const type of ["dragenter", "dragover", "drop"]) {
        target.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
    }
}"""

LINK_DATA_JS = """async () => {
    const bytes = new TextEncoder().encode(JSON.stringify(window.kothArena.currentChallenge()));
    const packed = new Blob([bytes]).stream().pipeThrough(new CompressionStream("deflate-raw"));
    return Math.ceil(new Uint8Array(await new Response(packed).arrayBuffer()).length * 4 / 3);
}"""


def _scores(arena) -> list[list]:
    return [r["result"]["scores"] for r in arena.records()]


def _download(page, button) -> str:
    with page.expect_download() as info:
        button.click()
    return Path(info.value.path()).read_text(encoding="utf-8")


def _opened(arena, name: str) -> None:
    expect(arena.status).to_contain_text(f"Opened {name}", timeout=120_000)


def test_a_match_runs_games_download_and_open_again_by_picker_and_by_drop(arena, tmp_path):
    page = arena.page
    arena.setup(game="flit", games=2, seed=5)
    arena.set_bot(2, RANDOM_MOVE, name="lucky")
    arena.run(300_000)
    played = _scores(arena)
    assert len(played) == 2

    everything = _download(page, arena.button("Download all games shown"))
    page.get_by_label("Game record", exact=True).select_option(index=1)
    one = _download(page, arena.button("Download this game"))
    assert json.loads(one)["kind"] == "game"

    # one game, dropped on the board
    page.evaluate(DROP_JS, ["one-game.json", one])
    _opened(arena, "one-game.json")
    assert _scores(arena) == [played[1]]

    # the whole run, opened with the file picker
    path = tmp_path / "run.json"
    path.write_text(everything, encoding="utf-8")
    arena.label("Open replay…").set_input_files(str(path))
    _opened(arena, "run.json")
    assert _scores(arena) == played
    native = subprocess.run([sys.executable, "-m", "engine", "replay", str(path), "--json"], cwd=ROOT,
                            capture_output=True, text=True, timeout=600)
    assert native.returncode == 0, native.stderr

    # hostile drops: a score forged, a file nested past the cap, two files at once
    forged = json.loads(one)
    forged["result"]["scores"][0] += 5
    page.evaluate(DROP_JS, ["forged.json", json.dumps(forged)])
    expect(page.locator("#status-error")).to_contain_text("Could not open replay forged.json: record 1",
                                                          timeout=120_000)
    page.evaluate(DROP_JS, ["deep.json", "[" * 100 + "]" * 100])
    expect(page.locator("#status-error")).to_contain_text("nests deeper than 32 levels")
    page.evaluate("""(text) => {
        const dt = new DataTransfer();
        for (const n of ["a.json", "b.json"]) dt.items.add(new File([text], n));
        const drop = new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true });
        document.body.dispatchEvent(drop);
    }""", one)
    expect(page.locator("#status-error")).to_contain_text("Drop one replay file at a time (2 were dropped)")
    assert _scores(arena) == played  # the viewer still shows the run opened last


def _challenge() -> dict:
    return {"format": "koth-arena-challenge", "version": 1, "title": "Replays | `and` <b>links</b>",
            "description": "", "game": "flit", "preset": "trial", "settings": {"time_limit_ms": 100},
            "games": 2, "seed": 11, "secret": "links-test",
            "entries": [{"name": HOSTILE_NAME, "code": "builtin:greedy", "author": "Mal|lory\n<b>",
                         "link": "https://codegolf.stackexchange.com/a/1234"},
                        {"name": "lucky", "code": RANDOM_MOVE, "author": "Bob"},
                        {"name": "greedy", "code": "builtin:greedy"}]}


def test_a_tournament_as_markdown_as_one_file_and_one_game_as_a_link(arena, chromium, site_url, tmp_path):
    page = arena.page
    challenge = _challenge()
    path = tmp_path / "challenge.json"
    path.write_text(json.dumps(challenge), encoding="utf-8")
    native = subprocess.run([sys.executable, "-m", "engine", "tournament", "--challenge", str(path),
                             "--budget", str(BUDGET), "--markdown", "-"],
                            cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert native.returncode == 0, native.stderr

    page.get_by_role("radio", name="Tournament").check()
    arena.setup(game="flit", games=challenge["games"], seed=challenge["seed"])
    arena.label("Time limit (ms)").fill("100")
    page.evaluate("""(list) => { const c = window.kothArena.challenge;
        for (const e of [...c.entries()]) c.deleteEntry(e.id);
        c.addEntries(list); }""", challenge["entries"])
    arena.label("Secret (optional)").fill(challenge["secret"])
    arena.label("Step budget").fill(str(BUDGET))
    page.locator("#challenge-title").fill(challenge["title"])
    expect(arena.button("Copy as Markdown")).to_be_disabled()
    arena.start_run()
    assert arena.wait_finished(300_000).startswith("Finished the tournament: 6 games")

    # the leaderboard as Markdown: the command line's text, hostile names inert
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    arena.button("Copy as Markdown").click()
    box = page.get_by_label("Leaderboard as Markdown")
    expect(box).to_be_visible()
    markdown = box.input_value()
    assert markdown == native.stdout
    assert "<img" not in markdown and "](javascript" not in markdown
    assert page.evaluate("navigator.clipboard.readText()") == markdown
    assert _download(page, arena.button("Download .md")) == markdown

    # all the games as one file, opened again with the file picker
    bundle = _download(page, arena.button("Download all games"))
    assert json.loads(bundle)["kind"] == "tournament"
    bundle_path = tmp_path / "tournament.json"
    bundle_path.write_text(bundle, encoding="utf-8")
    arena.label("Open replay…").set_input_files(str(bundle_path))
    _opened(arena, "tournament.json")
    games = arena.page.evaluate("window.kothArena.tournament.result.games")
    assert sorted(map(tuple, _scores(arena))) == sorted(tuple(g["scores"]) for g in games)

    # one game's link, opened by a recipient in a fresh context
    page.get_by_text("Games played, each with its replay").click()
    arena.button("Watch game 4").click()
    expect(arena.status).to_contain_text("Showing tournament game 4")
    watched = arena.records()[0]
    arena.button("Link to this game").click()
    link_field = page.get_by_label("Link to this game", exact=True)
    expect(link_field).to_have_value(re.compile("#g="))  # made asynchronously, after the click
    url = link_field.input_value()
    assert "#g=" in url
    share = page.evaluate(LINK_DATA_JS)  # the tournament's own link (#c=): the whole challenge
    data = url.split("#g=", 1)[1]
    assert len(data) <= share + 300, (len(data), share)  # a few hundred characters over it at most

    recipient = chromium.new_context(viewport={"width": 390, "height": 844})
    try:
        other = recipient.new_page()
        errors: list[str] = []
        other.on("pageerror", lambda exc: errors.append(str(exc)))
        other.goto(url)
        wait_until(other, "window.kothArena && window.kothArena.ready", 60_000)
        status = other.get_by_role("status")
        expect(status).to_contain_text("as the link says", timeout=300_000)
        records = other.evaluate("window.kothArena.viewer.tracks.map((t) => t.record)")
        assert [r["result"]["scores"] for r in records] == [watched["result"]["scores"]]
        assert records[0]["seed"] == watched["seed"]
        assert records[0]["bots"] == [n[:40] for n in watched["bots"]]  # a match run's names: 40 at most
        # a damaged link: one clear message, the page as it was
        before = other.evaluate("window.kothArena.getCode(0)")
        other.goto(url[: url.index("#g=") + 3] + "AAAA" + data[4:40])
        expect(other.locator("#status-error")).to_contain_text("This game link cannot be opened")
        expect(other.locator("#status-error")).to_contain_text("Nothing on the page was changed")
        assert other.evaluate("window.kothArena.getCode(0)") == before
        assert not errors, errors
    finally:
        recipient.close()
    assert re.search(r"#g=[A-Za-z0-9_-]+$", url)
