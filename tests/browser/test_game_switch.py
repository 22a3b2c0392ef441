"""Switching games leaks nothing from the game before (issue 18): for every registered game,
on a fresh profile, choosing the game and Tournament mode in either order gives a field of
that game's own examples, and a short tournament of it plays without a fault. Also the
first visit's trial view (no false "kept" notice, no stale status, no unedited example run
as "Your bot") and the seats' names and Example menus following the code."""
from __future__ import annotations

import re

import pytest
from conftest import Arena, wait_until
from playwright.sync_api import expect

from engine.games.registry import games

pytestmark = pytest.mark.browser

BUDGET = 1_000_000  # steps a move may take: the result does not depend on the machine's speed
GAMES = [spec.name for spec in games()]


def _field(page) -> list[dict]:
    return page.evaluate("window.kothArena.challenge.entries().map((e) => ({name: e.name, code: e.code}))")


def _fresh_field(chromium, site_url, game: str, tournament_first: bool) -> tuple[Arena, object, dict]:
    """A fresh profile that chose the game and Tournament mode in the order given: its page
    (with its context, to be closed by the caller) and the challenge it shows; its field is
    the game's own examples."""
    spec = next(s for s in games() if s.name == game)
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    arena = Arena(context.new_page())
    try:
        arena.open(site_url)
        page = arena.page
        tournament = page.get_by_role("radio", name="Tournament")
        if tournament_first:
            tournament.check()
            arena.setup(game=game)
        else:
            arena.setup(game=game)
            tournament.check()
        expect(tournament).to_be_checked()
        order = "mode then game" if tournament_first else "game then mode"
        field = _field(page)
        examples = {name: spec.example_source(name) for name in spec.examples()}
        assert len(field) >= 2, (order, field)
        for entry in field:
            name = entry["name"]
            assert name in examples, f"{game}, {order}: an entry not of the game's examples: {name!r}"
            assert entry["code"] == examples[name], f"{game}, {order}: {name} holds another game's code"
        return arena, context, page.evaluate("window.kothArena.currentChallenge()")
    except BaseException:
        context.close()
        raise


def _plays_cleanly(arena: Arena) -> None:
    """The field's short tournament ends with every entry playing and no fault."""
    page = arena.page
    field = _field(page)
    arena.setup(games=2, seed=3)
    arena.label("Step budget").fill(str(BUDGET))
    arena.start_run()
    text = arena.wait_finished(600_000)
    assert text.startswith("Finished the tournament"), text
    result = page.evaluate("window.kothArena.tournament.result")
    standings = {s["name"]: s for s in result["standings"]}
    assert set(standings) == {e["name"] for e in field}
    assert all(s["faults"] == 0 for s in standings.values()), standings
    assert all(s["games"] > 0 for s in standings.values()), standings
    assert not arena.errors, arena.errors


@pytest.mark.parametrize("game", GAMES)
def test_a_fresh_tournament_field_is_the_chosen_games_examples_and_plays_cleanly(chromium, site_url, game):
    """Both orders (game then mode, mode then game), each on a fresh profile, give a field of
    the game's own examples that plays without a fault. Where the two orders show the same
    challenge (field and settings), its tournament is played once: it would be the same."""
    contexts = []
    try:
        first, context, game_then_mode = _fresh_field(chromium, site_url, game, tournament_first=False)
        contexts.append(context)
        second, context, mode_then_game = _fresh_field(chromium, site_url, game, tournament_first=True)
        contexts.append(context)
        _plays_cleanly(second)
        if mode_then_game != game_then_mode:
            _plays_cleanly(first)
        assert not first.errors, first.errors
    finally:
        for context in contexts:
            context.close()


def test_switching_games_clears_the_last_tournaments_tables(arena):
    """A leaderboard of Flit entries is not left on show under another game."""
    page = arena.page
    page.get_by_role("radio", name="Tournament").check()
    arena.setup(game=GAMES[0], games=2, seed=3)
    arena.label("Step budget").fill(str(BUDGET))
    arena.start_run()
    assert arena.wait_finished(600_000).startswith("Finished the tournament")
    board = page.locator("#tournament")
    first_names = [e["name"] for e in _field(page)]
    expect(board).to_contain_text(first_names[0])
    arena.setup(game=GAMES[1])
    assert page.evaluate("window.kothArena.tournament.result") is None
    for row in board.get_by_role("rowheader").all_inner_texts():
        assert row not in first_names or row in [e["name"] for e in _field(page)], row


@pytest.mark.parametrize("game", GAMES)
def test_the_trial_view_of_a_first_visit_claims_nothing_and_runs_only_the_visitors_bot(
        open_arena, site_url, chromium, results_dir, game):
    spec = next(s for s in games() if s.name == game)
    author = open_arena(site_url)
    author.setup(game=game, games=2, seed=3)
    author.page.get_by_role("radio", name="Tournament").check()
    author.label("Step budget").fill(str(BUDGET))
    author.page.get_by_label("Title", exact=True).fill(f"Trial of {game}")
    author.page.get_by_role("button", name="Share challenge link", exact=True).click()
    box = author.page.get_by_label("Challenge link", exact=True)
    expect(box).to_have_value(re.compile("#c="))
    link = box.input_value()

    # A first visit by the link: the page seeded examples, nothing of the visitor's to keep.
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    try:
        visitor = Arena(context.new_page())
        visitor.open(link)
        _first_visit_trial(visitor, spec, results_dir)
        assert not visitor.errors, visitor.errors
    finally:
        context.close()


def _first_visit_trial(arena: Arena, spec, results_dir) -> None:
    page = arena.page
    game = spec.name
    status = page.locator("#challenge-status")
    expect(status).to_contain_text(f"Opened “Trial of {game}”")
    expect(page.get_by_role("button", name="Trial version")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#challenge")).not_to_contain_text("nothing of yours was lost")
    expect(page.locator("#challenge-kept")).to_be_hidden()
    expect(page.locator("body")).not_to_contain_text("The bots you had before")
    arena.label("Step budget").fill(str(BUDGET))

    # "Your bot" starts as a marked copy of an example; run unedited, it is refused and why.
    your_code = page.get_by_label("Your bot code", exact=True)
    expect(your_code).to_be_visible()
    first = next(iter(spec.examples()))
    start = page.evaluate("window.kothArena.challengePanel.yourEditor.value")
    assert start.startswith(f'# Your bot starts as a copy of the example "{first}"'), start[:200]
    before = page.evaluate("window.kothArena.runsStarted")
    page.get_by_role("button", name="Run my bot against the field").click()
    expect(status).to_contain_text(f"Your bot is still the example “{first}” unedited")
    assert page.evaluate("window.kothArena.runsStarted") == before

    # Edited, it runs; the "Checking…" line does not outlive the check.
    page.evaluate("(s) => { window.kothArena.challengePanel.yourEditor.value = s + '\\n# mine\\n'; }",
                  spec.example_source(first))
    page.get_by_label("Your bot's name", exact=True).fill("mine")
    page.get_by_role("button", name="Run my bot against the field").click()
    rank = page.locator("#trial-rank")
    expect(rank).to_contain_text("mine would rank", timeout=600_000)
    wait_until(page, "window.kothArena.run === null", 60_000)
    expect(status).not_to_contain_text("Checking the challenge")
    page.screenshot(path=str(results_dir / f"trial-first-visit-{game}.png"), full_page=True)


@pytest.mark.parametrize("game", GAMES)
def test_a_seats_name_and_example_menu_follow_its_code(arena, results_dir, game):
    spec = next(s for s in games() if s.name == game)
    page = arena.page
    arena.setup(game=game)
    names = list(spec.examples())
    menu = arena.label("Bot 1 example")
    name = arena.label("Bot 1 name")
    expect(menu).to_have_value(names[0])  # the loaded example, not "Choose an example…"
    menu.select_option(names[1])
    expect(name).to_have_value(names[1])
    expect(menu).to_have_value(names[1])

    # An edit: the menu says so.
    code = page.get_by_label("Bot 1 code", exact=True)
    code.click()
    page.keyboard.press("Control+End")
    page.keyboard.type("\n# tuned\n")
    expect(menu.locator("option:checked")).to_have_text(f"{names[1]} (edited)")
    expect(name).to_have_value(names[1])

    # Pasted code replacing it is another bot: not credited to the example.
    page.keyboard.press("Control+a")
    pasted = "def move(view):\n    raise SystemExit  # another bot entirely\n"
    page.evaluate("""(text) => {
        const data = new DataTransfer();
        data.setData('text/plain', text);
        document.activeElement.dispatchEvent(new ClipboardEvent('paste', {clipboardData: data, bubbles: true,
                                                                          cancelable: true}));
    }""", pasted)
    wait_until(page, "window.kothArena.getCode(0).includes('another bot entirely')", 10_000)
    expect(name).to_have_value("Bot 1")
    expect(menu.locator("option:checked")).to_have_text("Own code")
    page.screenshot(path=str(results_dir / f"seat-names-{game}.png"))

    # A name the visitor typed stays when an example is chosen.
    name.fill("my bot")
    menu.select_option(names[0])
    expect(name).to_have_value("my bot")
