"""Issue 18's friction points, for every registered game: a fault names its game, turn and
line and marks the line in the bot's editor (match and tournament); the Mode help follows
the game's seat count; on a phone the help folds away so that Run and the board come
first; a match's share link either repeats the sender's result in a fresh browser (secret
and step budget carried) or says plainly that it will not."""
from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest
from conftest import Arena
from playwright.sync_api import expect
from test_authored_game import load_game, loaded_status

from engine.games.registry import games

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
PHONE = {"width": 390, "height": 844}
BUDGET = 1_000_000  # steps a move may take: the same games on every machine
SPECS = {spec.name: spec for spec in games()}
GAMES = list(SPECS)
FAULTY = "def move(view):\n    x = 1\n    return 1 / 0\n"  # faults on line 3, every move
SHORT = {"atomas": ("Max moves", 40), "abotcalypse": ("Max turns", 40)}  # quick games


def _short(arena: Arena, game: str) -> None:
    if game in SHORT:
        label, value = SHORT[game]
        arena.label(label).fill(str(value))
    arena.label("Step budget").fill(str(BUDGET))


def _check_mode_help(page, game: str) -> None:
    spec = SPECS[game]
    text = page.locator("#mode-help .match-only").text_content()
    if spec.side_by_side:
        assert "one-player" in text and "play each other" not in text, text
    else:
        assert "play each other" in text, text
    tournament = page.locator("#mode-help .tournament-only").text_content()
    assert ("same seeds alone" in tournament) == spec.side_by_side, tournament


def _open_fresh(chromium, link: str):
    """The recipient: a new browser context (nothing saved), the link opened."""
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(30_000)
    return context, Arena(context.new_page()).open(link)


def _result_rows(arena: Arena) -> list[list[str]]:
    rows = arena.results_table().locator("tbody tr")
    return [[c.strip() for c in r.locator("th, td").all_inner_texts()] for r in rows.all()]


def _share_journey(sender: Arena, chromium) -> None:
    """The sender has just run a match: its share link repeats it in a fresh browser, or says
    that it will not; a malformed secret or budget refuses the link whole."""
    sent = _result_rows(sender)
    secret = re.search(r"Run with secret (\S+)\.", sender.status.inner_text()).group(1)

    sender.button("Share link").click()
    expect(sender.page.locator("#share-note")).to_contain_text("the same games, with the same result")
    link = sender.label("Share link URL").input_value()

    context, recipient = _open_fresh(chromium, link)
    try:
        expect(recipient.page.locator("#notice-text")).to_contain_text("Run plays the same games")
        expect(recipient.label("Secret (optional)")).to_have_value(secret)
        expect(recipient.label("Step budget")).to_have_value(str(BUDGET))
        recipient.run(600_000)
        assert _result_rows(recipient) == sent
        _check_fault_located(recipient)  # the same faults, located the same way
        assert f"Run with secret {secret}." in recipient.status.inner_text()
        assert not recipient.errors, recipient.errors
    finally:
        context.close()

    # Left out on purpose: the link says so, and so does the page that opens it.
    include = sender.page.get_by_label("Include the secret (the recipient replays the same games)")
    include.uncheck()
    sender.button("Share link").click()
    expect(sender.page.locator("#share-note")).to_contain_text("leaves the secret out")
    link = sender.label("Share link URL").input_value()
    context, recipient = _open_fresh(chromium, link)
    try:
        expect(recipient.page.locator("#notice-text")).to_contain_text(
            "This link does not carry the secret: your run will play different games than the sender's.")
        expect(recipient.label("Secret (optional)")).to_have_value("")

        # A link whose secret or budget is malformed is refused whole: a message, nothing changed.
        shared = json.loads(base64.urlsafe_b64decode(link.split("#", 1)[1] + "=="))
        budget = recipient.label("Step budget").input_value()
        assert budget == str(BUDGET)  # the budget travels even without the secret
        for bad, why in (({"secret": "x" * 257}, "its secret is not text"),
                         ({"secret": 7}, "its secret is not text"),
                         ({"budget": 0}, "its step budget is not a whole number"),
                         ({"budget": "1e6"}, "its step budget is not a whole number")):
            data = base64.urlsafe_b64encode(json.dumps({**shared, **bad}).encode()).decode()
            recipient.page.goto(f"{link.split('#', 1)[0]}#{data.rstrip('=')}")
            recipient.wait_ready()
            expect(recipient.status).to_contain_text(f"Could not apply the shared link: {why}")
            expect(recipient.label("Secret (optional)")).to_have_value("")
            expect(recipient.label("Step budget")).to_have_value(budget)
    finally:
        context.close()
    include.check()


@pytest.mark.parametrize("game", GAMES)
def test_a_fault_is_located_and_a_share_link_repeats_the_match(arena, chromium, results_dir, game):
    """One journey per game: a match with a faulting bot (the fault located, its line marked),
    its share link opened in a fresh browser (the same result, the same faults), a link that
    leaves the secret out (said so), malformed links (refused), then a tournament's first
    error located and marked in the entry's editor."""
    page = arena.page
    arena.setup(game=game, games=2, seed=5)
    _short(arena, game)
    _check_mode_help(page, game)

    # A match: the console names game, turn and line; the line is marked in the editor.
    arena.set_bot(1, FAULTY, name="faulty")
    arena.run(600_000)
    _check_fault_located(arena)
    _share_journey(arena, chromium)
    code = arena.label("Bot 1 code")
    marked = code.locator(".cm-fault-line")
    page.screenshot(path=str(results_dir / f"fault-line-{game}.png"))
    code.click()
    page.keyboard.press("Control+End")
    page.keyboard.type("\n")
    expect(marked).to_have_count(0)  # an edit clears the mark: the line may have changed

    # A tournament: the entry's first error names game and turn; its editor marks the line.
    page.get_by_role("radio", name="Tournament").check()
    entry = page.evaluate("(code) => window.kothArena.challenge.addEntry(code, 'faulty')", FAULTY)
    page.evaluate("(id) => window.kothArena.challenge.openEntry(id)", entry)
    arena.setup(games=2, seed=5)
    arena.start_run()
    assert arena.wait_finished(600_000).startswith("Finished the tournament")
    problems = page.get_by_role("list", name="Entries' first errors")
    first_error = re.compile(r"faulty line 3: .*ZeroDivisionError.*\(game \d+, turn \d+\)")
    expect(problems).to_contain_text(first_error)
    entry_code = arena.label("faulty code")
    expect(entry_code.locator(".cm-fault-line")).to_contain_text("return 1 / 0")
    expect(entry_code.locator(".cm-fault-note")).to_have_text(re.compile(r"fault here: game \d+, turn \d+$"))

    # The entry's example menu shows what the code is: its own, then the example chosen.
    menu = arena.label("Start from an example")
    expect(menu).to_have_value("")
    example = list(SPECS[game].examples())[-1]
    menu.select_option(example)
    expect(menu).to_have_value(example)
    expect(arena.label("Entry name")).to_have_value("faulty")  # a name the author gave stays
    expect(entry_code.locator(".cm-fault-line")).to_have_count(0)


def _check_fault_located(arena: Arena) -> None:
    """Bot 1 ran FAULTY for 2 games: its console and its editor say where it faulted."""
    console = arena.console(1)
    expect(console).to_contain_text(re.compile(r"line 3: .*ZeroDivisionError.*\(game 1, turn \d+\)"))
    expect(console).to_contain_text(re.compile(r"\(game 2, turn \d+\)"))
    marked = arena.label("Bot 1 code").locator(".cm-fault-line")
    expect(marked).to_have_count(1)
    expect(marked).to_contain_text("return 1 / 0")
    expect(marked.locator(".cm-fault-note")).to_have_text(re.compile(r"fault here: game 1, turn \d+$"))


def test_an_authors_game_names_the_fault_and_its_help_follows_its_seats(arena):
    """examples/games/landgrab.py (2 to 6 bots, all moving at once), loaded in the page."""
    load_game(arena, (ROOT / "examples" / "games" / "landgrab.py").read_text(encoding="utf-8"))
    expect(loaded_status(arena)).to_contain_text("Loaded Land Grab", timeout=60_000)
    text = arena.page.locator("#mode-help .match-only").text_content()
    assert "the bots below (2 to 6) play each other, all in the same game" in text, text
    arena.setup(games=2, seed=3)
    arena.label("Rounds").fill("8")
    arena.label("Step budget").fill(str(BUDGET))
    arena.set_bot(1, FAULTY, name="faulty")
    arena.run(600_000)
    _check_fault_located(arena)


def test_on_a_phone_the_help_folds_and_run_and_the_board_come_first(chromium, site_url, results_dir):
    context = chromium.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        arena = Arena(context.new_page()).open(site_url)
        page = arena.page
        help_box = page.locator("#how-it-works")
        expect(help_box).not_to_have_attribute("open", "")
        expect(page.locator("#secret-help")).to_be_hidden()
        for game in GAMES:
            arena.setup(game=game)
            _check_mode_help(page, game)
            run = arena.button("Run").bounding_box()
            board = page.locator("#board-area").bounding_box()
            # within the first two screens of a phone, and the board before the seats' editors
            assert run["y"] + run["height"] <= 2 * PHONE["height"], (game, run)
            assert board["y"] <= 2 * PHONE["height"], (game, board)
            assert board["y"] < arena.label("Bot 1 code").bounding_box()["y"], game
        page.screenshot(path=str(results_dir / "phone-first-screens.png"))
        page.get_by_text("How it works", exact=True).click()
        expect(page.locator("#secret-help")).to_be_visible()
        assert not arena.errors, arena.errors
    finally:
        context.close()


