"""Attacks through what a visitor opens (replay files, share links) and what they keep
(saved code): each attack runs, the page survives and stays usable, the target is untouched.

Replay files are re-run by the engine in the controller Worker before anything is shown;
a share link never silently replaces stored code; a failing save is never silent; two tabs
do not overwrite each other's code.
"""
from __future__ import annotations

import copy
import json
import re
import time
from pathlib import Path

import pytest
from conftest import wait_until
from native_match import native_replay
from playwright.sync_api import expect
from test_accessibility import _serious_violations

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def replays(tmp_path_factory) -> dict[str, dict]:
    tmp = tmp_path_factory.mktemp("replays")
    return {
        "flit": native_replay(tmp / "flit.json", "flit", "builtin:random", "builtin:greedy",
                              "--games", "2", "--seed", "3"),
        "atomas": native_replay(tmp / "atomas.json", "atomas", "builtin:greedy", "--games", "2",
                                "--seed", "1", "--max-moves", "40"),
        # 5,000 short games: record labels built in linear time open this at once
        "many": native_replay(tmp / "many.json", "atomas", "builtin:random", "--games", "5000",
                              "--seed", "1", "--max-moves", "1"),
    }


def open_file(arena, name: str, document: dict | str) -> None:
    text = document if isinstance(document, str) else json.dumps(document)
    arena.label("Open replay…").set_input_files(
        {"name": name, "mimeType": "application/json", "buffer": text.encode()})


def viewer_state(arena) -> dict:
    """What the visitor sees of the viewer and the results."""
    page = arena.page
    return {
        "canvas": arena.canvas_label(),
        "records": page.locator("#record option").all_inner_texts(),
        "info": page.locator("#frame-info").inner_text(),
        "results": arena.results_table().inner_text(),
    }


def open_baseline(arena, replays) -> dict:
    open_file(arena, "native.json", replays["flit"])
    expect(arena.status).to_contain_text("Opened native.json: Flit, 2 records", timeout=60_000)
    arena.button("Step forward").click()
    return viewer_state(arena)


def shown_mean(value: float) -> str:
    """A mean score as the results table shows it."""
    return str(int(value)) if value == int(value) else f"{value:.2f}"


def assert_responsive(arena) -> None:
    """A button still responds: the random-seed button draws a new seed."""
    seed = arena.label("Seed")
    before = seed.input_value()
    for _ in range(5):
        arena.button("Random seed").click()
        if seed.input_value() != before:
            return
    raise AssertionError("the Random seed button no longer responds")


# ---- replay files --------------------------------------------------------------------------
# These share one page (each file opened replaces what the viewer shows and stops its play).
def test_forged_summary_is_refused_with_the_difference_named(shared_arena, replays):
    arena = shared_arena
    shown = open_baseline(arena, replays)
    means = replays["flit"]["summary"]["mean_scores"]
    assert arena.result_row("greedy")[3] == shown_mean(means[1])

    forged = copy.deepcopy(replays["flit"])
    forged["summary"]["mean_scores"] = [999, 0]
    forged["summary"]["wins"] = [2, 0]
    open_file(arena, "forged.json", forged)
    expect(arena.status).to_contain_text(re.compile(
        r"Could not open replay forged\.json: summary differs: mean_scores\[0\] is 999 in the "
        r"file, [\d.]+ by the rules"))
    assert viewer_state(arena) == shown
    assert arena.result_row("random")[3] == shown_mean(means[0])

    # A forged turn: the board after it differs from what the rules give.
    forged = copy.deepcopy(replays["flit"])
    forged["records"][1]["turns"][5]["changes"].append([0, 0, 2])
    open_file(arena, "forged-turn.json", forged)
    expect(arena.status).to_contain_text("Could not open replay forged-turn.json: record 2, turn 6")
    assert viewer_state(arena) == shown


def test_verified_replay_shows_the_engines_results(shared_arena, replays):
    arena = shared_arena
    """A genuine Atomas file opens; its results are the engine's summary, not the file's."""
    document = copy.deepcopy(replays["atomas"])
    open_file(arena, "atomas.json", document)
    expect(arena.status).to_contain_text("Opened atomas.json: Atomas, 2 records, every game re-run")
    mean = document["summary"]["mean_scores"][0]
    assert arena.result_row("greedy")[3] == shown_mean(mean)
    assert arena.page.locator("#record option").all_inner_texts() == [
        "Game 1 — seed 1 — greedy", "Game 2 — seed 2 — greedy"]


def test_an_unknown_atomas_item_is_refused_and_never_stops_the_viewer(shared_arena, replays):
    arena = shared_arena
    shown = open_baseline(arena, replays)
    forged = copy.deepcopy(replays["atomas"])
    forged["records"][0]["turns"][2]["board"][0] = "constructor"
    open_file(arena, "constructor.json", forged)
    expect(arena.status).to_contain_text(
        'Could not open replay constructor.json: record 1, turn 3: recorded board[0] is "constructor"')
    assert viewer_state(arena) == shown

    # Even fed straight to the viewer (no engine in between), unknown values are drawn as
    # "?" and the animation loop plays on to the end.
    record = copy.deepcopy(replays["atomas"]["records"][0])
    record["start"]["board"] = ["constructor", "__proto__", 10**9, -3, "+", 2]
    for turn in record["turns"]:
        turn["board"] = ["constructor", "__proto__", 10**9, -3, "+", 2]
        turn["atom"] = "toString"
    arena.page.evaluate("(rec) => window.kothArena.viewer.load({renderer: 'atomas', bots: ['x'], "
                        "records: [rec]})", record)
    expect(arena.page.locator("canvas#board")).to_have_attribute(
        "aria-label", re.compile(r"items \(\? \? \? \? \+ 2\), atom in play \?"))
    arena.label("Speed").fill("200")
    arena.button("Play").click()
    total = len(record["turns"])
    expect(arena.label("Turn")).to_have_value(str(total))
    expect(arena.button("Play")).to_have_attribute("aria-pressed", "false")
    assert "could not draw" not in arena.status.inner_text()

    # Flit: colours outside 0..5 are drawn as a cross; the board plays on.
    flit = copy.deepcopy(replays["flit"]["records"][0])
    flit["start"]["changes"] += [[5, 5, 9], [6, 6, 200]]
    arena.page.evaluate("(rec) => window.kothArena.viewer.load({renderer: 'flit', bots: ['x', 'y'], "
                        "records: [rec]})", flit)
    arena.button("Play").click()
    wait_until(arena.page, "Number(document.getElementById('scrub').value) >= 20")
    assert arena.canvas_label().startswith("Flit board, turn ")
    assert "could not draw" not in arena.status.inner_text()


def test_a_drawing_error_is_shown_once_and_the_loop_carries_on(shared_arena, replays):
    arena = shared_arena
    page = arena.page
    open_file(arena, "atomas.json", replays["atomas"])
    expect(arena.status).to_contain_text("Opened atomas.json")
    page.evaluate("""() => {
        window.drawErrors = 0;
        const viewer = window.kothArena.viewer;
        const shown = viewer.onDrawError;
        viewer.onDrawError = (m) => { window.drawErrors++; shown(m); };
        window.realArc = CanvasRenderingContext2D.prototype.arc;
        CanvasRenderingContext2D.prototype.arc = () => { throw new Error("broken canvas"); };
    }""")
    arena.label("Speed").fill("100")
    arena.button("Play").click()
    wait_until(page, "Number(document.getElementById('scrub').value) >= 10")
    expect(page.locator("#status-error")).to_contain_text("could not draw a frame")
    expect(page.locator("#status-error")).to_contain_text("broken canvas")
    assert page.evaluate("window.drawErrors") == 1, "the error was reported more than once"
    page.evaluate("() => { CanvasRenderingContext2D.prototype.arc = window.realArc; }")
    # the loop carries on to the end of the game by itself (End may be disabled by then)
    wait_until(page, "(() => { const s = document.getElementById('scrub'); "
                     "return Number(s.value) === Number(s.max); })()")
    # The loop may have reached the end before the canvas was mended (at load it did): a step
    # back and forth draws the last frame again, without a new error report.
    arena.button("Step back").click()
    arena.button("Step forward").click()
    total = len(replays["atomas"]["records"][0]["turns"])
    assert arena.canvas_label().startswith(f"Atomas board, greedy, move {total} of {total}")
    assert page.evaluate("window.drawErrors") == 1


def test_huge_files_are_refused_quickly_and_the_page_stays_responsive(shared_arena, replays):
    arena = shared_arena
    shown = open_baseline(arena, replays)

    many = copy.deepcopy(replays["many"])
    many["records"] = many["records"][:1] * 16_000
    open_file(arena, "records.json", many)
    expect(arena.status).to_contain_text(
        "Could not open replay records.json: the file holds 16000 records; a replay may hold at "
        "most 10000")
    assert_responsive(arena)

    wide = copy.deepcopy(replays["many"])
    wide["records"] = wide["records"][:1]
    wide["bots"] = [f"bot {i}" for i in range(2000)]
    wide["summary"]["games"] = [{"seed": 1, "scores": [], "winner": None, "faults": []}] * 50_000
    open_file(arena, "bots.json", wide)
    expect(arena.status).to_contain_text(
        "Could not open replay bots.json: the file names 2000 bots; a replay may name at most 64")
    assert_responsive(arena)

    deep = '{"schema_version": 1, "kind": "series", "records": ' + "[" * 100_000 + "]" * 100_000 + "}"
    open_file(arena, "deep.json", deep)
    expect(arena.status).to_contain_text("Could not open replay deep.json: the file nests deeper than 32")
    assert viewer_state(arena) == shown

    # The engine is still fine: a genuine file of 5,000 games opens, every game listed.
    open_file(arena, "many.json", replays["many"])
    expect(arena.status).to_contain_text("Opened many.json: Atomas, 5000 records", timeout=120_000)
    expect(arena.label("Game record").locator("option")).to_have_count(5000)
    expect(arena.label("Game record").locator("option").last).to_have_text(
        "Game 5000 — seed 5000 — random")
    # And a match still runs.
    arena.setup(game="flit", games=1)
    arena.run()


def test_a_file_opened_before_python_is_ready_waits_for_it(arena_context, replays, site_url):
    # Every text the status line shows, in order (a cold start takes seconds: the file is
    # chosen long before Python is ready).
    arena_context.add_init_script("""
        window.statusTexts = [];
        document.addEventListener("DOMContentLoaded", () => {
            const status = document.getElementById("status");
            new MutationObserver(() => window.statusTexts.push(status.textContent))
                .observe(status, {subtree: true, childList: true, characterData: true});
        });
    """)
    page = arena_context.new_page()
    page.goto(site_url, wait_until="domcontentloaded")
    page.get_by_label("Open replay…", exact=True).set_input_files(
        {"name": "early.json", "mimeType": "application/json",
         "buffer": json.dumps(replays["flit"]).encode()})
    expect(page.get_by_role("status")).to_contain_text("Opened early.json: Flit, 2 records",
                                                       timeout=60_000)
    texts = page.evaluate("window.statusTexts")
    wait = "early.json is checked by the engine as soon as Python is ready"
    waiting = [i for i, t in enumerate(texts) if wait in t]
    ready = [i for i, t in enumerate(texts) if t.startswith("Ready")]
    assert waiting and (not ready or waiting[0] < ready[0]), texts


def test_a_file_opened_during_a_run_waits_for_the_run_to_end(arena, replays):
    """Checking a file is Python work in the controller Worker: it never delays a match."""
    arena.setup(game="flit", games=20, seed=1, time_limit_ms=100)
    arena.start_run()
    open_file(arena, "later.json", replays["flit"])
    expect(arena.status).to_contain_text("later.json is checked by the engine when this run ends")
    expect(arena.status).to_contain_text("of 20 games finished", timeout=300_000)
    expect(arena.status).to_contain_text("later.json is checked by the engine when this run ends")
    assert arena.page.locator("#record option").count() >= 1  # still the live run's records
    arena.button("Stop").click()
    expect(arena.status).to_contain_text("Opened later.json: Flit, 2 records", timeout=60_000)
    expect(arena.results_table()).to_contain_text("replay later.json")


# ---- share links ---------------------------------------------------------------------------
def share_link(url: str, settings: dict, bots: list[dict]) -> str:
    import base64

    payload = json.dumps({"v": 1, "settings": settings, "bots": bots}).encode()
    return url.rstrip("/") + "/#" + base64.urlsafe_b64encode(payload).decode().rstrip("=")


OWN = "def move(view):\n    return 0  # my own work\n"
SHARED = "def move(view):\n    return 1  # from a link\n"


def test_a_share_link_keeps_the_visitors_bots_and_restore_brings_them_back(open_arena, site_url):
    visitor = open_arena(site_url)
    page = visitor.page
    visitor.setup(game="atomas")
    visitor.set_bot(1, OWN, name="mine")
    page.close()  # saved on leaving

    link = share_link(site_url, {"game": "atomas", "preset": "standard", "seed": 5, "games": 10,
                                 "time_limit_ms": 100, "max_moves": 300},
                      [{"name": "sharer", "code": SHARED}, {"name": "second", "code": SHARED}])
    visitor = open_arena(link)
    page = visitor.page
    notice = page.get_by_role("region", name="Notice")
    expect(notice).to_contain_text(
        "Opened a shared challenge: Atomas standard, seed 5, 10 games, Time limit (ms) 100, "
        "Max moves 300, bots: sharer, second. This link does not carry the secret: your run will play "
        "different games than the sender's. Nothing runs until you press Run.")
    expect(notice).to_contain_text("The bots you had before opening a shared link are kept.")
    assert page.evaluate("window.kothArena.getCode(0)") == SHARED
    assert page.evaluate("window.kothArena.runsStarted") == 0
    assert _serious_violations(page) == []
    kept = json.loads(visitor.storage()["koth-arena:previous-bots:atomas"])
    assert [k["bots"][0] for k in kept] == [{"name": "mine", "code": OWN}]

    # A second link over the first one's unedited bots: the visitor's own stay kept.
    page.close()
    visitor = open_arena(share_link(site_url, {"game": "atomas", "seed": 6},
                                    [{"name": "another", "code": SHARED + "# 2\n"}]))
    page = visitor.page
    assert page.evaluate("window.kothArena.getCode(0)") == SHARED + "# 2\n"
    kept = json.loads(visitor.storage()["koth-arena:previous-bots:atomas"])
    assert [k["bots"][0] for k in kept] == [{"name": "mine", "code": OWN}]
    notice = page.get_by_role("region", name="Notice")

    visitor.button("Restore my previous bots").click()
    assert page.evaluate("window.kothArena.getCode(0)") == OWN
    expect(visitor.label("Bot 1 name")).to_have_value("mine")
    expect(page.locator("#notice-text")).to_have_text(
        "Your previous bots are back. The shared link's bots are kept.")
    page.reload()
    visitor.wait_ready()
    assert page.evaluate("window.kothArena.getCode(0)") == OWN
    # The link's bots are kept in turn, across the reload: one click brings them back too.
    expect(page.get_by_role("region", name="Notice")).to_contain_text("The shared link's bots are kept.")
    visitor.button("Use the shared bots").click()
    assert page.evaluate("window.kothArena.getCode(0)") == SHARED + "# 2\n"
    assert json.loads(visitor.storage()["koth-arena:bots:atomas"])[0]["code"] == SHARED + "# 2\n"


def test_a_share_link_out_of_bounds_is_refused_and_changes_nothing(open_arena, site_url):
    visitor = open_arena(site_url)
    page = visitor.page
    visitor.setup(game="flit", time_limit_ms=250)
    visitor.set_bot(1, OWN, name="mine")
    page.close()  # saved on leaving

    link = share_link(site_url, {"game": "flit", "preset": "trial", "seed": 5, "games": 1,
                                 "time_limit_ms": 10**9},
                      [{"name": "slow", "code": SHARED}, {"name": "slow 2", "code": SHARED}])
    visitor = open_arena(link)
    page = visitor.page
    stored = visitor.storage()
    expect(visitor.status).to_contain_text(
        "Could not apply the shared link: its Time limit (ms) is 1000000000; the page allows 1 to "
        "60000. Nothing was changed.")
    expect(visitor.label("Time limit (ms)")).to_have_value("250")
    assert page.evaluate("window.kothArena.getCode(0)") == OWN
    after = visitor.storage()
    for key in ("koth-arena:settings", "koth-arena:bots:flit"):
        assert after[key] == stored[key]


# ---- saving ---------------------------------------------------------------------------------
def test_a_failing_save_shows_a_persistent_warning(arena_context, open_arena, site_url):
    arena_context.add_init_script("""
        Storage.prototype.setItem = function () {
            throw new DOMException("The quota has been exceeded.", "QuotaExceededError");
        };
    """)
    arena = open_arena(site_url)
    page = arena.page
    warning = page.get_by_role("alert")
    arena.setup(game="flit")
    arena.set_bot(1, OWN, name="unsaved")
    expect(warning).to_contain_text("Your bots' code is not being saved: its storage is full.")
    expect(warning).to_contain_text("download the code")
    page.wait_for_timeout(1000)
    expect(warning).to_be_visible()  # it stays
    with page.expect_download() as download:
        arena.button("Download the bots' code").click()
    assert _serious_violations(page) == []
    text = Path(download.value.path()).read_text()
    assert "# ---- Bot 1: unsaved (flit) ----" in text and OWN in text
    arena.button("Try saving again").click()
    expect(warning).to_be_visible()


def test_two_tabs_keep_each_others_code(open_arena, site_url):
    first = open_arena(site_url)
    second = open_arena(site_url)
    for tab in (first, second):
        tab.setup(game="flit")
    first.set_bot(1, "def move(view):\n    return 0  # first tab\n")
    wait_until(second.page, "window.kothArena.getCode(0).includes('# first tab')")
    second.set_bot(1, "def move(view):\n    return 0  # second tab\n")
    wait_until(first.page, "window.kothArena.getCode(0).includes('# second tab')")

    # Bots kept from before a shared link, then both tabs edit within the same moment:
    # neither edit is lost, and the bots kept earlier stay kept. Which tab's save lands last
    # is up to the two tabs' timers (under load either): that tab's version is shown in both,
    # and that tab says so and keeps the other's.
    first.page.evaluate("""(code) => localStorage.setItem("koth-arena:previous-bots:flit",
        JSON.stringify([{bots: [{name: "mine", code}], reason: "link"}]))""", OWN)
    first.set_bot(2, "def move(view):\n    return 0  # A\n")
    second.set_bot(2, "def move(view):\n    return 0  # B\n")
    agreed = """() => { const code = window.kothArena.getCode(1);
        return code.includes('# A') ? 'A' : code.includes('# B') ? 'B' : null; }"""
    deadline = time.monotonic() + 30
    while (shown := {first.page.evaluate(agreed), second.page.evaluate(agreed)}) != {"A"} and shown != {"B"}:
        assert time.monotonic() < deadline, f"the tabs show {shown}"
        time.sleep(0.1)
    (winner,) = shown
    other = "A" if winner == "B" else "B"
    saver = second if winner == "B" else first
    notice = saver.page.get_by_role("region", name="Notice")
    expect(notice).to_contain_text("also edited in another tab")
    saver.button("Use the other tab's version").click()
    for tab in (first, second):
        wait_until(tab.page, f"window.kothArena.getCode(1).includes('# {other}')")
    expect(notice).to_contain_text("This tab's earlier version is kept.")
    saver.button("Use this tab's version again").click()
    for tab in (first, second):
        wait_until(tab.page, f"window.kothArena.getCode(1).includes('# {winner}')")
    expect(notice).to_contain_text("1 older kept version behind it")
    kept = json.loads(saver.storage()["koth-arena:previous-bots:flit"])
    assert kept[0]["bots"][0] == {"name": "mine", "code": OWN}
    assert f"# {other}" in kept[1]["bots"][1]["code"]
