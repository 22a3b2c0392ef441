"""Tournament mode: the page's leaderboard is the native tournament's, whatever the number of
matches at once; Stop ends it at any moment; any game opens in the viewer by keyboard."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

from engine.games.registry import games

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
BUDGET = 1_000_000  # steps a move may take: no soft time limit, the same result everywhere

CONVERTER = """\
def move(view):
    neutrals = set(view.pieces(5))
    best, gain = (0, 0, 0, 0), -1
    for m in view.moves():
        g = sum(p in neutrals for p in view.neighbours(m[2], m[3]))
        if g > gain:
            best, gain = m, g
    return best
"""
FIRST_MOVE = """\
def move(view):
    moves = view.moves()
    return moves[0] if moves else (0, 0, 0, 0)
"""
# Seeded by the engine (each game's bot seed): the same moves natively and in the page.
RANDOM_MOVE = """\
import random

def move(view):
    moves = view.moves()
    return random.choice(moves) if moves else (0, 0, 0, 0)
"""
SPINNER = "def move(view):\n    while True:\n        pass\n"


def _challenge(entries: list[tuple[str, str]], games: int = 2, seed: int = 7) -> dict:
    return {"format": "koth-arena-challenge", "version": 1, "title": "Flit in the page",
            "description": "", "game": "flit", "preset": "trial", "settings": {"time_limit_ms": 100},
            "games": games, "seed": seed, "secret": "tourney-test",
            "entries": [{"name": name, "code": code} for name, code in entries]}


def _fill_field(arena, challenge: dict, parallel: str) -> None:
    """The challenge's field (the Challenge section's entries), as a visitor would set it up."""
    arena.page.get_by_role("radio", name="Tournament").check()
    arena.setup(game="flit", games=challenge["games"], seed=challenge["seed"])
    arena.label("Preset").select_option(challenge["preset"])
    arena.label("Time limit (ms)").fill(str(challenge["settings"]["time_limit_ms"]))
    arena.page.evaluate("""(list) => { const c = window.kothArena.challenge;
        for (const e of [...c.entries()]) c.deleteEntry(e.id);
        c.addEntries(list); }""", challenge["entries"])
    arena.label("Secret (optional)").fill(challenge["secret"])
    arena.label("Step budget").fill(str(BUDGET))
    arena.label("Parallel matches").select_option(parallel)


def _leaderboard(arena) -> list[list[str]]:
    rows = arena.page.get_by_role("table", name=re.compile(r"^Leaderboard")).get_by_role("row")
    return [[c.strip() for c in row.locator("th, td").all_inner_texts()] for row in rows.all()[1:]]


def _native_json(challenge: dict, folder: Path) -> dict:
    path = folder / "challenge.json"
    path.write_text(json.dumps(challenge), encoding="utf-8")
    native = subprocess.run([sys.executable, "-m", "engine", "tournament", "--challenge", path,
                             "--budget", str(BUDGET), "--json"],
                            cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert native.returncode == 0, native.stderr
    return json.loads(native.stdout)


def _greedy_field() -> dict:
    greedy = next(s for s in games() if s.name == "flit").example_source("greedy")
    return _challenge([("converter", CONVERTER), ("first", FIRST_MOVE), ("lucky", RANDOM_MOVE),
                       ("greedy", greedy)])


@pytest.fixture(scope="module")
def greedy_field_native(tmp_path_factory) -> dict:
    """The native tournament's JSON for _greedy_field(), run once for the module's three
    page runs (it does not depend on how the page runs it)."""
    return _native_json(_greedy_field(), tmp_path_factory.mktemp("native"))


@pytest.mark.parametrize("parallel,isolated", [("1", True), ("2", True), ("2", False)])
def test_the_page_leaderboard_is_the_native_tournament_json(open_arena, isolated_url, plain_url,
                                                            greedy_field_native, results_dir,
                                                            parallel, isolated):
    """Cross-origin isolated, the bots answer through shared memory (awaited with
    Atomics.waitAsync); without isolation, by messages: the same JSON either way."""
    arena = open_arena(isolated_url if isolated else plain_url)
    challenge = _greedy_field()
    example = arena.page.evaluate("() => window.kothArena.getCode(0)")  # the greedy example
    assert example == challenge["entries"][-1]["code"]  # the field's greedy is the page's own
    expected = greedy_field_native

    _fill_field(arena, challenge, parallel)
    shown = arena.page.evaluate("window.kothArena.currentChallenge()")
    del shown["title"], challenge["title"]
    assert shown == challenge
    arena.start_run()
    status = arena.wait_finished(300_000)
    assert status.startswith("Finished the tournament: 12 games"), status
    assert arena.page.evaluate("window.kothArena.tournament.result") == expected

    # What the visitor reads: the native ranking, W/D/L, faults and settled places ...
    board = _leaderboard(arena)
    assert [row[1] for row in board] == [s["name"] for s in expected["standings"]]
    for row, s in zip(board, expected["standings"], strict=True):
        assert row[2] == str(s["games"]) and row[3] == f"{s['wins']}/{s['draws']}/{s['losses']}"
        assert row[5] == str(s["faults"]) and (row[6] == "settled") == s["settled"]
    # ... and the cross table, row against column.
    cross = arena.page.get_by_role("table", name=re.compile(r"^Cross table"))
    order = [s["name"] for s in expected["standings"]]
    for a in order:
        cells = cross.get_by_role("row").filter(has=arena.page.get_by_role("rowheader", name=a, exact=True))
        texts = [c.strip() for c in cells.locator("td").all_inner_texts()]
        want = ["·" if a == b else "{wins}-{draws}-{losses}".format(**expected["cross"][a][b]) for b in order]
        assert texts == want, (a, texts, want)
    mode = "isolated" if isolated else "plain"
    shot = results_dir / f"tournament-parallel-{parallel}-{mode}.png"
    arena.page.screenshot(path=str(shot), full_page=True)


def test_a_game_of_the_tournament_opens_in_the_viewer_by_keyboard(arena):
    challenge = _challenge([("converter", CONVERTER), ("first", FIRST_MOVE), ("lucky", RANDOM_MOVE)])
    arena.page.get_by_role("radio", name="Match").focus()
    arena.page.keyboard.press("ArrowRight")  # radio buttons: arrows move the choice
    expect(arena.page.get_by_role("radio", name="Tournament")).to_be_checked()
    _fill_field(arena, challenge, "2")
    arena.start_run()
    assert arena.wait_finished(300_000).startswith("Finished the tournament: 6 games")
    summary = arena.page.get_by_text("Games played, each with its replay")
    summary.focus()
    arena.page.keyboard.press("Enter")
    games = arena.page.get_by_role("table", name=re.compile(r"^Games played"))
    expect(games.get_by_role("row")).to_have_count(7)  # a header and 6 games
    fourth = games.get_by_role("row").nth(4).locator("td").all_inner_texts()
    watch = arena.button("Watch game 4")
    watch.focus()
    arena.page.keyboard.press("Enter")
    expect(arena.status).to_contain_text("Showing tournament game 4")
    record = arena.records()[0]
    assert record["seed"] == int(fourth[0]) and " vs ".join(record["bots"]) == fourth[1]
    assert "–".join(map(str, record["result"]["scores"])) == fourth[2]
    expect(arena.page.locator("canvas#board")).to_have_attribute("aria-label", re.compile(r"^Flit board"))


def test_stop_ends_a_tournament_at_once_and_the_next_one_runs(arena):
    """A spinning bot under a 60 s limit (its hard limit is 600 s): Stop ends the tournament
    within moments; the page runs the next one with fresh Workers."""
    challenge = _challenge([("spinner", SPINNER), ("first", FIRST_MOVE), ("converter", CONVERTER)])
    challenge["settings"]["time_limit_ms"] = 60_000
    _fill_field(arena, challenge, "2")
    arena.label("Step budget").fill("0")  # none: the spinner spins until Stop
    arena.start_run()
    expect(arena.status).to_contain_text("Tournament:")
    arena.page.wait_for_timeout(1500)  # the spinner is being asked
    arena.button("Stop").click()
    assert arena.wait_finished(10_000) == "Stopped."
    expect(arena.page.get_by_role("table", name=re.compile(r"^Leaderboard"))).to_contain_text("(stopped)")
    arena.page.evaluate("""(code) => { const c = window.kothArena.challenge; const id = c.entries()[0].id;
        c.renameEntry(id, "again"); c.editEntry(id, { code }); }""", FIRST_MOVE)
    arena.label("Time limit (ms)").fill("1000")
    arena.start_run()
    assert arena.wait_finished(300_000).startswith("Finished the tournament: 6 games")
    assert [row[1] for row in _leaderboard(arena)].count("again") == 1


CRASHER = """\
calls = 0
def move(view):
    global calls
    calls += 1
    if calls % 50 == 0:
        return 1 / 0
    moves = view.moves()
    return moves[0] if moves else (0, 0, 0, 0)
"""
GARBAGE = "def move(view):\n    print('x' * 5000)\n    return 'not a move at all'\n"


def test_bad_entries_get_faults_and_their_authors_see_why_the_field_plays_on(arena):
    """Through the view's start() (the trial view's way in): an entry that raises and one
    that answers garbage are faulted, never stop the tournament; the leaderboard marks the
    visitor's own entry and shows each bad entry's first error with its line."""
    challenge = _challenge([("mine", CRASHER), ("garbage", GARBAGE), ("first", FIRST_MOVE)])
    challenge["settings"]["time_limit_ms"] = 1000
    run = arena.page.evaluate("c => window.kothArena.tournament.start(c, {parallel: 2, focus: 'mine'})",
                              challenge)
    assert run is not None
    assert arena.wait_finished(300_000).startswith("Finished the tournament: 6 games")
    result = arena.page.evaluate("window.kothArena.tournament.result")
    standings = {s["name"]: s for s in result["standings"]}
    assert standings["garbage"]["faults"] > 0 and standings["garbage"]["wins"] == 0
    assert standings["first"]["faults"] == 0 and standings["first"]["games"] == 4
    board = arena.page.get_by_role("table", name=re.compile(r"^Leaderboard"))
    mine = board.get_by_role("rowheader").filter(has_text="mine")
    expect(mine).to_have_text("mine (your bot)")
    problems = arena.page.get_by_role("list", name="Entries' first errors")
    expect(problems).to_contain_text("garbage")
    assert standings["mine"]["faults"] > 0
    expect(problems.get_by_role("listitem").filter(has_text="mine")).to_contain_text("line 6")
    expect(problems).to_contain_text("ZeroDivisionError")


def test_the_mode_survives_a_reload_and_match_mode_keeps_its_two_bots(arena):
    arena.setup(game="flit")
    arena.page.get_by_role("radio", name="Tournament").check()
    heading = arena.page.get_by_role("heading", name="Tournament", exact=True)
    expect(heading).to_be_visible()
    arena.page.reload()
    arena.wait_ready()
    expect(arena.page.get_by_role("radio", name="Tournament")).to_be_checked()
    expect(heading).to_be_visible()
    arena.page.get_by_role("radio", name="Match").check()
    expect(arena.page.locator(".bot-panel:not([hidden])")).to_have_count(2)
    expect(heading).to_be_hidden()


@pytest.mark.parametrize("isolated", [True, False])
def test_a_looping_entry_is_stopped_and_the_tournament_ends_normally(open_arena, isolated_url, plain_url,
                                                                     isolated):
    """A bot that never answers is stopped at the hard limit (interrupted, or its Worker
    terminated) in each of its games; the other entries' games and results are untouched."""
    arena = open_arena(isolated_url if isolated else plain_url)
    challenge = _challenge([("spinner", SPINNER), ("first", FIRST_MOVE), ("converter", CONVERTER)])
    challenge["settings"]["time_limit_ms"] = 1000  # the others never late on a loaded machine
    # One game at a time: no spinner burns a core beside the others' moves (at 2 at once, on
    # 2 busy cores, a move of `converter` once took over a second).
    arena.page.evaluate("c => window.kothArena.tournament.start(c, {parallel: 1})", challenge)
    assert arena.wait_finished(300_000).startswith("Finished the tournament: 6 games")
    result = arena.page.evaluate("window.kothArena.tournament.result")
    standings = {s["name"]: s for s in result["standings"]}
    assert standings["spinner"]["wins"] == 0 and standings["spinner"]["faults"] >= 4
    assert standings["first"]["faults"] == standings["converter"]["faults"] == 0
    assert result["cross"]["converter"]["first"] == {"wins": 2, "draws": 0, "losses": 0}


MARKER = """\
import builtins
builtins.KOTH_LEFT_BEHIND = "marker"

def move(view):
    moves = view.moves()
    return moves[0] if moves else (0, 0, 0, 0)
"""
PROBE = """\
import builtins

def move(view):
    if hasattr(builtins, "KOTH_LEFT_BEHIND"):
        raise RuntimeError("another entry's Worker")
    moves = view.moves()
    return moves[-1] if moves else (0, 0, 0, 0)
"""


def test_a_worker_that_ran_an_entry_never_serves_another(arena):
    """An entry leaves a mark in its Worker's Python (the builtins module); an entry that
    finds such a mark would raise. Across 12 games, 2 at once, with Workers kept between
    an entry's matches, the probe never meets a mark: Workers are kept per entry."""
    challenge = _challenge([("marker", MARKER), ("probe", PROBE), ("first", FIRST_MOVE),
                            ("probe2", PROBE)])
    challenge["settings"]["time_limit_ms"] = 1000
    arena.page.evaluate("c => window.kothArena.tournament.start(c, {parallel: 2, budget: 1000000})",
                        challenge)
    assert arena.wait_finished(300_000).startswith("Finished the tournament: 12 games")
    result = arena.page.evaluate("window.kothArena.tournament.result")
    faults = {s["name"]: s["faults"] for s in result["standings"]}
    assert faults == {"marker": 0, "probe": 0, "first": 0, "probe2": 0}
    workers = arena.page.evaluate("window.kothArena.tournament.workers")
    assert workers["started"] < 24  # some matches did reuse their entries' Workers


@pytest.mark.parametrize("game,settings,entries,games", [
    ("atomas", {"max_moves": 150, "time_limit_ms": 5000}, ["greedy", "random", "greedy"], 2),
    ("abotcalypse", {"max_turns": 40, "time_limit_ms": 5000}, ["random", "builder", "thrower", "random"], 2),
])
def test_score_alone_and_table_tournaments_are_the_native_ones(arena, tmp_path, game, settings, entries,
                                                               games):
    """The other two formats: Atomas (every entry alone on the same seeds) and aBOTcalypse
    (tables of every entry), from built-in entries: the page's JSON is the native one."""
    challenge = {"format": "koth-arena-challenge", "version": 1, "title": game, "description": "",
                 "game": game, "settings": settings, "games": games, "seed": 3, "secret": "S",
                 "entries": [{"name": f"{name}{i}", "code": f"builtin:{name}"}
                             for i, name in enumerate(entries)]}
    path = tmp_path / "challenge.json"
    path.write_text(json.dumps(challenge), encoding="utf-8")
    native = subprocess.run([sys.executable, "-m", "engine", "tournament", "--challenge", path,
                             "--budget", str(BUDGET), "--json"],
                            cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert native.returncode == 0, native.stderr
    expected = json.loads(native.stdout)
    arena.page.evaluate("([c, b]) => window.kothArena.tournament.start(c, {parallel: 2, budget: b})",
                        [challenge, BUDGET])
    assert arena.wait_finished(300_000).startswith("Finished the tournament"), arena.status.inner_text()
    assert arena.page.evaluate("window.kothArena.tournament.result") == expected
    assert expected["format"] == ("alone" if game == "atomas" else "tables")
    expect(arena.page.get_by_role("table", name=re.compile(r"^Leaderboard"))).to_contain_text("Mean ± 95%")
