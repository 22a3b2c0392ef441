"""Challenges in the page (issue 9): the entries panel by keyboard, the challenge file out and
back in (picker and drag-and-drop, checked by the engine), share links opened in another
browser profile (exactly the same challenge, in the trial-version view, the visitor's own
challenge kept), older and broken links, long links, and a 390 px phone."""
from __future__ import annotations

import json
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import READY_TIMEOUT_MS, wait_until
from playwright.sync_api import expect
from test_accessibility import _serious_violations

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
PHONE = {"width": 390, "height": 844}
BUDGET = 1_000_000  # steps a move may take: the same games on every machine
PASSER = "def move(view):\n    return 0, 0, 0, 0\n"
FIRST = "def move(view):\n    moves = view.moves()\n    return moves[0] if moves else (0, 0, 0, 0)\n"
GREEDY = "builtin:greedy"
HEAD = {"format": "koth-arena-challenge", "version": 1, "title": "t", "description": "", "game": "flit",
        "settings": {}, "games": 2, "seed": 1}


def challenge(page) -> dict:
    return page.evaluate("window.kothArena.challenge.currentChallenge()")


def names(page) -> list[str]:
    return [e["name"] for e in challenge(page)["entries"]]


def tournament_mode(page) -> None:
    """Tournament mode: the challenge section is the field."""
    page.get_by_role("radio", name="Tournament").check()
    expect(page.get_by_role("heading", name="Challenge", exact=True)).to_be_visible()


def fill_field(page, entries: list[dict], title="Trial of Flit",
               description="Three bots.\nBeat them.") -> None:
    tournament_mode(page)
    page.evaluate("() => { const c = window.kothArena.challenge; "
                  "for (const e of [...c.entries()]) c.deleteEntry(e.id); }")
    page.get_by_label("Title", exact=True).fill(title)
    page.get_by_label("Description", exact=True).fill(description)
    added = page.evaluate("(list) => window.kothArena.challenge.addEntries(list)", entries)
    assert added == len(entries)


FIELD = [
    {"name": "greedy", "author": "the engine", "code": GREEDY},
    {"name": "first", "author": "Ann", "code": FIRST, "link": "https://example.org/a/1"},
    {"name": "passer", "code": PASSER, "enabled": False},
]


def share(page) -> str:
    page.evaluate("document.getElementById('challenge-status').textContent = ''")
    page.get_by_role("button", name="Share challenge link", exact=True).click()
    box = page.get_by_label("Challenge link", exact=True)
    expect(page.locator("#challenge-status")).to_contain_text("Challenge link")
    link = box.input_value()
    assert "#c=" in link
    return link


def status(page):
    return page.locator("#challenge-status")


def pack(page, text: str) -> str:
    """A link's data as the page makes it (deflate-raw, base64url) for any text."""
    return page.evaluate("""async (text) => {
        const s = new Blob([new TextEncoder().encode(text)]).stream()
            .pipeThrough(new CompressionStream("deflate-raw"));
        const bytes = new Uint8Array(await new Response(s).arrayBuffer());
        let bin = ""; for (const b of bytes) bin += String.fromCharCode(b);
        return btoa(bin).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
    }""", text)


# -- the entries panel -------------------------------------------------------------------------

def test_a_challenge_of_three_entries_is_built_by_keyboard_and_kept(arena, results_dir):
    page = arena.page
    page.get_by_role("radio", name="Match").focus()
    page.keyboard.press("ArrowRight")
    expect(page.get_by_role("radio", name="Tournament")).to_be_checked()
    # A new field starts with the match's bots (here the examples on show); delete them.
    assert names(page) == ["greedy", "random"]
    for name in ("greedy", "random"):
        arena.button(f"Delete {name}").focus()
        page.keyboard.press("Enter")
    assert names(page) == []
    add = arena.button("Add entry")
    for name in ("alpha", "beta", "gamma"):
        add.focus()
        page.keyboard.press("Enter")
        field = arena.label("Entry name")
        expect(field).to_be_focused()  # a new entry opens with its name ready to type
        field.fill(name)
        field.press("Enter")
        expect(page.locator("#entry-list .entry-open", has_text=name)).to_have_count(1)
    assert names(page) == ["alpha", "beta", "gamma"]
    expect(page.locator("#entry-list .cm-editor")).to_have_count(1)  # one editor open at a time
    expect(page.get_by_label("gamma code", exact=True)).to_be_visible()

    # The open editor takes typing; the summary of the entry follows.
    page.get_by_label("gamma code", exact=True).click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.insert_text(PASSER)
    expect(page.locator('#entry-list .entry.open .entry-meta')).to_have_text("2 lines")

    # Duplicate beta (keyboard), rename the copy; a taken name is refused with the reason.
    arena.button("Duplicate beta").focus()
    page.keyboard.press("Enter")
    name_field = arena.label("Entry name")
    expect(name_field).to_have_value("beta copy")
    name_field.fill("alpha")
    name_field.press("Enter")
    expect(page.locator(".entry-error")).to_have_text("Not renamed: another entry is named “alpha”.")
    name_field.fill("delta")
    name_field.press("Enter")
    assert names(page) == ["alpha", "beta", "delta", "gamma"]

    # Switch gamma off (Space on its checkbox), move delta up twice, to the top.
    page.get_by_label("gamma plays", exact=True).focus()
    page.keyboard.press("Space")
    arena.button("Move delta up").focus()
    page.keyboard.press("Enter")
    expect(arena.button("Move delta up")).to_be_focused()
    page.keyboard.press("Enter")
    expect(arena.button("Move delta down")).to_be_focused()  # at the top: the focus stays on the entry
    assert names(page) == ["delta", "alpha", "beta", "gamma"]

    # Delete alpha, then undo: it comes back in its place.
    arena.button("Delete alpha").focus()
    page.keyboard.press("Enter")
    expect(arena.button("Undo delete")).to_be_focused()
    assert names(page) == ["delta", "beta", "gamma"]
    page.keyboard.press("Enter")
    assert names(page) == ["delta", "alpha", "beta", "gamma"]

    # Only one editor: the entry put back is open; opening another closes it; closing leaves none.
    expect(page.get_by_label("alpha code", exact=True)).to_be_visible()
    arena.button("beta").click()
    expect(page.locator("#entry-list .cm-editor")).to_have_count(1)
    expect(page.get_by_label("beta code", exact=True)).to_be_visible()
    expect(arena.button("beta")).to_have_attribute("aria-expanded", "true")
    arena.button("beta").click()
    expect(page.locator("#entry-list .cm-editor")).to_have_count(0)
    arena.button("alpha").click()
    page.wait_for_timeout(400)  # past the debounced save
    before = challenge(page)
    assert [e.get("enabled", True) for e in before["entries"]] == [True, True, True, False]
    assert before["entries"][3]["code"] == PASSER
    page.screenshot(path=str(results_dir / "challenge-author-desktop.png"), full_page=True)

    page.reload()
    arena.wait_ready()
    assert challenge(page) == before
    expect(page.get_by_role("radio", name="Tournament")).to_be_checked()
    expect(page.get_by_text("4 of 32 · 3 playing")).to_be_visible()
    assert _serious_violations(page) == []


def test_the_visitors_saved_bots_become_the_first_entries(arena_context, site_url):
    """A visitor from before challenges existed: their saved bots are in the field."""
    old = [{"name": "old flit one", "code": "def move(view):\n    return '0 0 0 0'  # kept\n"},
           {"name": "old flit two", "code": PASSER}]
    arena_context.add_init_script(
        "if (!localStorage.getItem('koth-arena:settings')) {"
        f"localStorage.setItem('koth-arena:bots:flit', {json.dumps(json.dumps(old))});"
        "localStorage.setItem('koth-arena:settings', JSON.stringify({game: 'flit', seed: 1, games: 2}));}")
    page = arena_context.new_page()
    page.goto(site_url)
    wait_until(page, "window.kothArena && window.kothArena.ready", READY_TIMEOUT_MS)
    entries = challenge(page)["entries"]
    assert [(e["name"], e["code"]) for e in entries] == [(b["name"], b["code"]) for b in old]
    assert page.evaluate("window.kothArena.getCode(0)") == old[0]["code"]  # the seats keep them too


def test_a_match_seat_plays_an_entry_of_the_challenge(arena):
    """Match mode: a seat's example menu lists the challenge's entries; choosing one puts its
    name and code in the seat, and the match plays it."""
    page = arena.page
    fill_field(page, [{"name": "first mover", "code": FIRST}, {"name": "passer", "code": PASSER}])
    page.get_by_role("radio", name="Match").check()
    menu = arena.label("Bot 2 example")
    assert menu.locator("optgroup[label='Challenge entries'] > option").all_inner_texts() == ["first mover",
                                                                                              "passer"]
    menu.select_option(label="first mover")
    expect(arena.label("Bot 2 name")).to_have_value("first mover")
    assert page.evaluate("window.kothArena.getCode(1)") == FIRST
    arena.setup(games=1, time_limit_ms=1000)
    arena.run()
    assert arena.result_row("first mover")[1] == "1"


def test_a_field_saved_in_another_tab_shows_here(open_arena, site_url):
    first = open_arena(site_url)
    fill_field(first.page, FIELD)
    second = open_arena(site_url)
    tournament_mode(second.page)
    assert names(second.page) == ["greedy", "first", "passer"]
    first.page.evaluate("window.kothArena.challenge.addEntries([{name: 'late', code: 'pass'}])")
    expect(second.page.locator("#entry-list .entry-open", has_text="late")).to_have_count(1)
    assert challenge(second.page)["entries"] == challenge(first.page)["entries"]


# -- files --------------------------------------------------------------------------------------

def test_export_then_import_gives_back_the_same_challenge(arena, tmp_path):
    page = arena.page
    fill_field(page, FIELD)
    arena.label("Seed").fill("77")
    arena.label("Secret (optional)").fill("S1")
    page.wait_for_timeout(300)
    with page.expect_download() as download:
        arena.button("Export file").click()
    path = tmp_path / download.value.suggested_filename
    download.value.save_as(path)
    assert path.name == "trial-of-flit.challenge.json"
    exported = json.loads(path.read_text())
    assert exported == challenge(page)
    assert exported["format"] == "koth-arena-challenge" and exported["seed"] == 77
    assert exported["secret"] == "S1"
    assert exported["entries"][2] == {"name": "passer", "code": PASSER, "enabled": False}

    # The native tournament reads the same file.
    from engine.contest.challenge import load_challenge
    assert [e.name for e in load_challenge(path.read_text()).tournament_entries()] == ["greedy", "first"]

    # Change the field, then import the file back: exactly what was exported.
    arena.button("Delete first").click()
    page.get_by_label("Title", exact=True).fill("changed")
    arena.label("Seed").fill("5")
    changed = challenge(page)
    page.locator("#challenge-file").set_input_files(str(path))
    expect(status(page)).to_contain_text("Opened “Trial of Flit”: 3 entries")
    assert challenge(page) == exported
    expect(arena.label("Seed")).to_have_value("77")

    # What it replaced is kept, one click away.
    arena.button("Restore my previous challenge").click()
    assert challenge(page)["entries"] == changed["entries"]
    assert challenge(page)["title"] == "changed"


def test_a_file_dropped_on_the_challenge_is_imported(arena):
    page = arena.page
    tournament_mode(page)
    text = json.dumps({**HEAD, "title": "Dropped", "game": "atomas", "settings": {"max_moves": 300},
                       "games": 3, "seed": 9,
                       "entries": [{"name": "a", "code": "builtin:greedy"},
                                   {"name": "b", "code": "builtin:random"},
                                   {"name": "c", "code": "def move(view):\n    return 0\n"}]})
    page.evaluate("""(text) => {
        const dt = new DataTransfer();
        dt.items.add(new File([text], "dropped.challenge.json", { type: "application/json" }));
        const target = document.getElementById("challenge");
        for (const type of ["dragenter", "dragover", "drop"]) {
            target.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
        }
    }""", text)
    expect(status(page)).to_contain_text("Opened “Dropped”: 3 entries of atomas")
    expect(arena.label("Game")).to_have_value("atomas")
    expect(arena.label("Max moves")).to_have_value("300")
    assert names(page) == ["a", "b", "c"]
    assert challenge(page)["settings"] == {"max_moves": 300}


@pytest.mark.parametrize("text,message", [
    ("{not json", "not JSON"),
    (json.dumps({**HEAD, "entries": [{"name": "a", "code": " "}]}),
     "entries[0].code is empty"),
    (json.dumps({**HEAD, "entries": [{"name": f"b{i}", "code": PASSER} for i in range(33)]}),
     "it has 33 entries; the page holds at most 32"),
])
def test_a_bad_file_is_refused_with_the_engines_message_and_nothing_changes(arena, tmp_path, text, message):
    page = arena.page
    fill_field(page, FIELD)
    before = challenge(page)
    path = tmp_path / "bad.challenge.json"
    path.write_text(text)
    page.locator("#challenge-file").set_input_files(str(path))
    expect(status(page)).to_contain_text(f"Could not open bad.challenge.json: {message}")
    expect(status(page)).to_contain_text("Nothing was changed.")
    assert challenge(page) == before


# -- links ----------------------------------------------------------------------------------------

def test_a_challenge_link_opens_the_same_challenge_in_another_profile(open_arena, site_url, chromium,
                                                                      results_dir):
    author = open_arena(site_url)
    fill_field(author.page, FIELD)
    author.label("Secret (optional)").fill("S1")
    author.page.wait_for_timeout(300)
    shared = challenge(author.page)
    link = share(author.page)

    visitor_ctx = chromium.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = visitor_ctx.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(site_url)
        wait_until(page, "window.kothArena && window.kothArena.ready", READY_TIMEOUT_MS)
        # The visitor's own challenge, before the link.
        page.evaluate("window.kothArena.challenge.addEntries([{name: 'mine', code: 'return 1'}])")
        page.get_by_label("Seed", exact=True).fill("4242")
        page.get_by_label("Secret (optional)", exact=True).fill("my own")
        page.wait_for_timeout(300)
        own = challenge(page)

        page.goto(link)
        wait_until(page, "window.kothArena && window.kothArena.ready", READY_TIMEOUT_MS)
        expect(status(page)).to_contain_text("Opened “Trial of Flit”: 3 entries")
        assert challenge(page) == shared  # exactly: entries, switches, settings, seed, secret
        assert "#" not in page.url  # the fragment is consumed

        # The trial-version view: the author's title, description and field first; code shown,
        # nothing run; one editor for your bot.
        expect(page.get_by_role("button", name="Trial version")).to_have_attribute("aria-pressed", "true")
        expect(page.locator("#trial-title")).to_have_text("Trial of Flit")
        expect(page.locator("#trial-description")).to_have_text("Three bots.\nBeat them.")
        expect(page.locator("#trial-entries > li")).to_have_count(3)
        expect(page.get_by_role("link", name="first")).to_have_attribute("href", "https://example.org/a/1")
        page.get_by_text("Code", exact=True).nth(1).click()
        expect(page.get_by_label("Code of first", exact=True).locator("xpath=self::pre")).to_contain_text(
            "return moves[0]")
        expect(page.get_by_label("Your bot code", exact=True)).to_be_visible()
        expect(page.get_by_role("button", name="Run my bot against the field")).to_be_visible()
        assert page.evaluate("window.kothArena.runsStarted") == 0
        page.screenshot(path=str(results_dir / "challenge-trial-desktop.png"), full_page=True)
        assert _serious_violations(page) == []

        # The visitor's own challenge is kept, one click away (and the link's stays too).
        restore = page.get_by_role("button", name="Restore my previous challenge")
        restore.click()
        assert challenge(page) == own  # the field, and the form's seed and secret with it
        page.get_by_role("button", name="Swap back").click()
        assert challenge(page) == shared

        # The author's view is one toggle away.
        page.get_by_role("button", name="Author's view").click()
        expect(page.locator("#entry-list .entry")).to_have_count(3)
        assert not errors, errors
    finally:
        visitor_ctx.close()


def test_old_and_broken_links_open_or_say_why(open_arena, site_url):
    arena = open_arena(site_url)
    page = arena.page
    fill_field(page, FIELD)
    page.wait_for_timeout(300)
    before = challenge(page)
    base = site_url.rstrip("/") + "/"

    future = json.dumps({**before, "version": 3})
    cases = [
        ("#c=not*base64", "Could not open the challenge link: it is not base64url text."),
        ("#c=AAECAwQF", "Could not open the challenge link: its data does not unpack"),
        ("#c=" + pack(page, "no json here"), "Could not open the challenge link: not JSON"),
        ("#c=" + pack(page, future), "Could not open the challenge link: version 3 is not supported"),
    ]
    for fragment, message in cases:
        page.goto(base + fragment)
        arena.wait_ready()
        expect(status(page)).to_contain_text(message)
        expect(arena.status).to_contain_text(message)  # the page's status line says it too
        expect(page.get_by_role("heading", name="Challenge")).to_be_visible()  # not a blank page
        assert challenge(page) == before

    # A link of the first schema (settings and bots, "#<base64url JSON>") still opens.
    v1 = page.evaluate("""() => {
        const o = {v: 1, settings: {game: "flit", preset: "trial", seed: 31, games: 2},
                   bots: [{name: "v1 a", code: "def move(view):\\n    return 0, 0, 0, 0\\n"},
                          {name: "v1 b", code: "def move(view):\\n    return 0, 0, 0, 0\\n"}]};
        return btoa(JSON.stringify(o)).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
    }""")
    page.goto(base + "#" + v1)
    arena.wait_ready()
    expect(arena.label("Bot 1 name")).to_have_value("v1 a")
    expect(arena.label("Seed")).to_have_value("31")
    assert challenge(page)["entries"] == before["entries"]  # the field is not touched


def test_a_link_past_chat_limits_warns_and_offers_a_file(arena, tmp_path):
    page = arena.page
    noise = "# " + secrets.token_urlsafe(45_000) + "\n"  # random text: does not compress
    fill_field(page, [*FIELD[:2], {"name": "long", "code": noise + PASSER}])
    link = share(page)
    assert len(link) > 40_000
    warning = page.locator("#challenge-link-warning")
    expect(warning).to_be_visible()
    expect(warning).to_contain_text(f"This link is {len(link):,} characters")
    expect(warning).to_contain_text("a Discord message (2,000 characters)")
    expect(warning).to_contain_text("a Slack message (cut at 40,000 characters)")
    expect(warning).not_to_contain_text("Chrome")
    assert _serious_violations(page) == []  # the link box and the warning too
    with page.expect_download() as download:
        page.get_by_role("button", name="Export a file instead").click()
    path = tmp_path / "long.json"
    download.value.save_as(path)
    assert json.loads(path.read_text())["entries"][2]["code"] == noise + PASSER

    # A short link: no warning.
    page.evaluate("window.kothArena.challenge.deleteEntry(window.kothArena.challenge.entries()[2].id)")
    share(page)
    expect(warning).to_be_hidden()


# -- a phone ----------------------------------------------------------------------------------------

def test_a_shared_challenge_on_a_phone_needs_no_sideways_scrolling(open_arena, site_url, chromium,
                                                                    results_dir):
    author = open_arena(site_url)
    fill_field(author.page, FIELD)
    link = share(author.page)

    phone = chromium.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        page = phone.new_page()
        page.goto(link)
        wait_until(page, "window.kothArena && window.kothArena.ready", READY_TIMEOUT_MS)
        expect(page.locator("#trial-entries > li")).to_have_count(3)
        assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
        board = page.locator("#board-area").bounding_box()
        field = page.locator("#trial-entries").bounding_box()
        assert board["x"] >= 0 and board["x"] + board["width"] <= PHONE["width"]
        assert field["x"] + field["width"] <= PHONE["width"]
        table = page.get_by_role("table", name=re.compile(r"^Leaderboard")).bounding_box()
        assert table["x"] >= 0 and table["x"] + table["width"] <= PHONE["width"]
        page.screenshot(path=str(results_dir / "challenge-trial-phone.png"), full_page=True)

        # The author's view with an editor open, and the match's seats: no sideways scrolling.
        page.get_by_role("button", name="Author's view").click()
        page.get_by_role("button", name="first", exact=True).click()
        expect(page.get_by_label("first code", exact=True)).to_be_visible()
        assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
        page.screenshot(path=str(results_dir / "challenge-author-phone.png"), full_page=True)

        # Match mode: the preset menu, the example menus and the editors fit; the board comes
        # before the seats' editors.
        page.get_by_role("radio", name="Match").check()
        expect(page.get_by_label("Bot 1 code", exact=True)).to_be_visible()
        assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
        for label in ("Preset", "Bot 1 example", "Bot 2 example"):
            box = page.get_by_label(label, exact=True).bounding_box()
            assert box["x"] + box["width"] <= PHONE["width"], label
        assert (page.locator("#board-area").bounding_box()["y"]
                < page.get_by_label("Bot 1 code", exact=True).bounding_box()["y"])
        page.screenshot(path=str(results_dir / "match-phone.png"), full_page=True)
    finally:
        phone.close()


# -- the trial version: run the field, then your bot against it --------------------------------------

def leaderboard(page) -> list[list[str]]:
    rows = page.get_by_role("table", name=re.compile(r"^Leaderboard")).get_by_role("row")
    return [[c.strip() for c in row.locator("th, td").all_inner_texts()] for row in rows.all()[1:]]


def test_a_visitor_gets_the_authors_leaderboard_and_places_their_bot(open_arena, site_url, chromium, tmp_path,
                                                                     results_dir):
    author = open_arena(site_url)
    fill_field(author.page, [{"name": "greedy", "code": GREEDY}, {"name": "first", "code": FIRST},
                             {"name": "lucky", "code": "builtin:random"},
                             {"name": "passer", "code": PASSER, "enabled": False}])
    author.setup(games=2, seed=5)
    author.label("Secret (optional)").fill("same games")
    author.label("Step budget").fill(str(BUDGET))
    link = share(author.page)
    shared = challenge(author.page)
    author.start_run()
    assert author.wait_finished(300_000).startswith("Finished the tournament: 6 games")
    authors_board = leaderboard(author.page)
    authors_result = author.page.evaluate("window.kothArena.tournament.result")
    assert sorted(row[1] for row in authors_board) == ["first", "greedy", "lucky"]  # passer is off

    visitor_ctx = chromium.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = visitor_ctx.new_page()
        page.goto(link)
        wait_until(page, "window.kothArena && window.kothArena.ready", READY_TIMEOUT_MS)
        expect(page.locator("#trial-title")).to_have_text("Trial of Flit")
        assert challenge(page) == shared
        page.get_by_label("Step budget", exact=True).fill(str(BUDGET))
        page.get_by_role("button", name="Run", exact=True).click()
        wait_until(page, "window.kothArena.run === null && window.kothArena.tournament.result", 300_000)
        assert leaderboard(page) == authors_board
        result = page.evaluate("window.kothArena.tournament.result")
        assert result == authors_result

        # The native tournament prints the same for the same challenge file.
        with page.expect_download() as download:
            page.get_by_role("button", name="Author's view").click()
            page.get_by_role("button", name="Export file", exact=True).click()
        path = tmp_path / "shared.challenge.json"
        download.value.save_as(path)
        native = subprocess.run([sys.executable, "-m", "engine", "tournament", "--challenge", path,
                                 "--budget", str(BUDGET), "--json"],
                                cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert native.returncode == 0, native.stderr
        assert json.loads(native.stdout) == result

        # Your bot against the field: where it would rank, the author's field unchanged.
        page.get_by_role("button", name="Trial version").click()
        page.get_by_label("Your bot's name", exact=True).fill("mine")
        # an unedited copy of an example is refused (its rank would be the example's): edit it
        page.evaluate("window.kothArena.challengePanel.yourEditor.value += '\\n# mine\\n'")
        page.get_by_role("button", name="Run my bot against the field").click()
        rank = page.locator("#trial-rank")
        expect(rank).to_contain_text(re.compile(r"mine would rank (1st|2nd|3rd|4th)( \(tied\))? of 4\."),
                                     timeout=300_000)
        mine = [row for row in leaderboard(page) if row[1].startswith("mine")]
        assert mine and mine[0][1] == "mine (your bot)", leaderboard(page)
        assert rank.inner_text().startswith(f"mine would rank {_ordinal(int(mine[0][0]))}")
        assert challenge(page) == shared
        page.screenshot(path=str(results_dir / "challenge-trial-ranked.png"), full_page=True)
    finally:
        visitor_ctx.close()


def _ordinal(n: int) -> str:
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n if n < 20 else n % 10, 'th')}"
