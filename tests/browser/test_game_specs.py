"""The page is built from the engine's game specs: the game menu, presets, fields and their
bounds, bot counts, examples and rules links; a returning visitor's stored bots load; and
Flit's full preset plays with four bots on a 32×32 board."""
from __future__ import annotations

import json
import re

import pytest
from conftest import wait_until
from playwright.sync_api import expect

from engine.games.registry import games

pytestmark = pytest.mark.browser

SPECS = {spec.name: spec.to_json() for spec in games()}


def field_labels(arena) -> list[str]:
    return arena.page.locator("#game-fields label").all_inner_texts()


def panels_shown(arena) -> int:
    return arena.page.locator("#bot-panels .bot-panel:visible").count()


def test_the_form_follows_each_games_spec(arena):
    page = arena.page
    menu = arena.label("Game")
    assert menu.locator("option").all_inner_texts() == [s["title"] for s in SPECS.values()]
    for name, spec in SPECS.items():
        menu.select_option(name)
        assert field_labels(arena) == [f["label"] for f in spec["fields"]], name
        for f in spec["fields"]:
            box = arena.label(f["label"])
            expect(box).to_have_attribute("min", str(f["min"]))
            expect(box).to_have_attribute("max", str(f["max"]))
        presets = arena.label("Preset").locator("option").all_inner_texts()
        assert presets == [p["label"] for p in spec["presets"]], name
        default = next(p for p in spec["presets"] if p["name"] == spec["default_preset"])
        expect(arena.label("Time limit (ms)")).to_have_value(str(default["settings"]["time_limit_ms"]))
        lo, hi = default["bots"]
        assert lo <= panels_shown(arena) <= hi, (name, panels_shown(arena))
        # the menu's own options (a group after them lists the challenge's entries)
        examples = arena.label("Bot 1 example").locator(":scope > option").all_inner_texts()[1:]
        assert examples == list(spec["examples"]), name
        # the rules for bot authors, shipped with the site
        link = page.get_by_role("link", name=f"{spec['title']} rules for bot authors")
        href = link.get_attribute("href")
        assert href == spec["rules_doc"].replace(".md", ".html"), href
        rules = page.request.get(page.url.split("#")[0].rstrip("/") + "/" + href)
        assert rules.ok and "<h1" in rules.text() and spec["title"] in rules.text(), href

    # Bounds come from the spec: out of them, a clear message and no run.
    menu.select_option("abotcalypse")
    arena.label("Max turns").fill("100001")
    arena.button("Run").click()
    expect(arena.page.locator("#status-error")).to_have_text(
        "Cannot run: Max turns must be between 1 and 100000. ")
    assert page.evaluate("window.kothArena.run") is None
    arena.label("Max turns").fill("200")
    arena.label("Time limit (ms)").fill("0")
    arena.button("Run").click()
    expect(arena.page.locator("#status-error")).to_contain_text("Time limit (ms) must be between 1 and 60000")
    menu.select_option("atomas")
    expect(arena.label("Max moves")).to_be_visible()
    expect(arena.label("Max turns")).to_have_count(0)

    # Bot panels within the preset's bounds: aBOTcalypse 2 to 8, Flit's presets fixed.
    menu.select_option("abotcalypse")
    assert panels_shown(arena) == 4
    while arena.button("Add bot").is_enabled():
        arena.button("Add bot").click()
    assert panels_shown(arena) == 8
    expect(arena.label("Bot 8 example")).to_be_enabled()
    while arena.button("Remove bot").is_enabled():
        arena.button("Remove bot").click()
    assert panels_shown(arena) == 2
    menu.select_option("flit")
    expect(arena.button("Add bot")).to_be_hidden()
    assert panels_shown(arena) == 2
    arena.label("Preset").select_option("full")
    assert panels_shown(arena) == 4
    expect(page.locator("#bot-limits")).to_have_text("This preset plays with 4 bots.")

    # A share link outside the spec's bounds is refused, naming the bound.
    link = {"v": 1, "settings": {"game": "abotcalypse", "preset": "trial", "max_turns": 0},
            "bots": [{"name": "a", "code": "x"}, {"name": "b", "code": "y"}]}
    page.evaluate("(h) => { location.hash = h; }", share_hash(page, link))
    expect(arena.status).to_contain_text("its Max turns is 0; the page allows 1 to 100000")
    link["settings"]["max_turns"] = 50
    link["bots"] = link["bots"][:1]
    page.evaluate("(h) => { location.hash = h; }", share_hash(page, link))
    expect(arena.status).to_contain_text("plays with 2 to 8 bots, the link has 1")


def share_hash(page, obj: dict) -> str:
    return "#" + page.evaluate("""(o) => {
        const bytes = new TextEncoder().encode(JSON.stringify(o));
        let bin = ""; for (const b of bytes) bin += String.fromCharCode(b);
        return btoa(bin).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
    }""", obj)


OLD_FLIT = [{"name": "old flit one", "code": "def move(view):\n    return '0 0 0 0'  # kept\n"},
            {"name": "old flit two", "code": "def move(view):\n    return (1, 1, 1, 1)\n"}]
OLD_ATOMAS = [{"name": "old atomas", "code": "def move(view):\n    return 0  # atomas kept\n"},
              {"name": "Bot 2", "code": ""}]


def test_a_returning_visitors_stored_bots_load(arena_context, site_url):
    """What the page stored before it was built from the specs (settings with one time limit,
    bots per game under bots:<game>) loads as it was, before and after Python is ready."""
    stored = {
        "koth-arena:settings": {"game": "flit", "preset": "trial", "seed": 31, "games": 3,
                                "time_limit_ms": 250, "max_moves": 2000, "atomas_bots": 2},
        "koth-arena:bots:flit": OLD_FLIT,
        "koth-arena:bots:atomas": OLD_ATOMAS,
    }
    arena_context.add_init_script("""(items) => {
        if (sessionStorage.getItem("seeded")) return;
        sessionStorage.setItem("seeded", "1");
        for (const [k, v] of Object.entries(items)) localStorage.setItem(k, JSON.stringify(v));
    }""".replace("(items) => {", "((items) => {") + f")({json.dumps(stored)});")
    from conftest import Arena

    arena = Arena(arena_context.new_page())
    arena.page.goto(site_url)
    # The editors hold the stored code at once, Python or not.
    expect(arena.label("Bot 1 name")).to_have_value("old flit one")
    assert arena.page.evaluate("window.kothArena.getCode(0)") == OLD_FLIT[0]["code"]
    arena.wait_ready()
    expect(arena.label("Game")).to_have_value("flit")
    expect(arena.label("Seed")).to_have_value("31")
    expect(arena.label("Time limit (ms)")).to_have_value("250")
    expect(arena.label("Bot 2 name")).to_have_value("old flit two")
    assert arena.page.evaluate("window.kothArena.getCode(1)") == OLD_FLIT[1]["code"]
    arena.label("Game").select_option("atomas")
    expect(arena.label("Bot 1 name")).to_have_value("old atomas")
    assert arena.page.evaluate("window.kothArena.getCode(0)") == OLD_ATOMAS[0]["code"]
    # the empty second bot got an example, as a new visitor's would
    assert "def move" in arena.page.evaluate("window.kothArena.getCode(1)")
    arena.page.reload()
    arena.wait_ready()
    expect(arena.label("Game")).to_have_value("atomas")
    expect(arena.label("Bot 1 name")).to_have_value("old atomas")
    assert not arena.errors, arena.errors


def test_flit_full_preset_with_four_bots(arena, results_dir):
    page = arena.page
    arena.setup(game="flit", games=1, seed=12)
    arena.label("Preset").select_option("full")
    expect(arena.label("Time limit (ms)")).to_have_value("50")
    arena.label("Time limit (ms)").fill("1000")  # a busy machine: no faults from lateness
    for n, example in enumerate(["greedy", "random", "greedy", "random"], start=1):
        arena.label(f"Bot {n} example").select_option(example)
        arena.label(f"Bot {n} name").fill(f"{example} {n}")
    arena.start_run()
    # A whole 32,768-turn game is too long for a test: play 400 turns and stop.
    wait_until(page, "(window.kothArena.viewer.tracks[0] || {length: 0}).length >= 400", 600_000)
    arena.button("Stop").click()
    assert arena.wait_finished(60_000).strip() == "Stopped."
    (record,) = arena.records()
    assert record["settings"]["size"] == 32 and record["settings"]["players"] == 4
    assert len(record["bots"]) == 4
    page.get_by_role("group", name=re.compile("^Board viewer")).press("End")
    label = arena.canvas_label()
    m = re.match(r"Flit board, turn (\d+) of \1: greedy 1 (\d+) pieces?, random 2 (\d+) pieces?, "
                 r"greedy 3 (\d+) pieces?, random 4 (\d+) pieces?", label)
    assert m and int(m[1]) >= 400, label
    assert all(int(m[k]) >= 1 for k in range(2, 6)), label
    seats = {seat for turn in record["turns"] for seat in turn["seats"]}
    assert seats == {0, 1, 2, 3}, seats
    expect(page.locator("#legend li")).to_have_count(5)  # four bots and the neutral pieces
    page.locator("#board-area").screenshot(path=str(results_dir / "flit-full-board.png"))
