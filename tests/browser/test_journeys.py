"""Every page journey for every game (issue 18 item 1): for each game of the registry and each
of its presets that seats a different number of bots, and for an author's game
(examples/games/landgrab.py, loaded as the page loads one), at desktop and phone sizes, one
page walks the journeys in turn: first visit, reload
mid-edit, paste and run, watch and scrub, errors with line numbers, share link opened in a
fresh context, tournament and leaderboard, trial view, snippet export. Choosing the game,
running and scrubbing are done from the keyboard alone (Tab, Enter, arrows).

Adding a game to the registry adds its journeys. The runs are short: a game's length
settings (max moves, max turns, rounds) are set low, and Flit, which has none, gets bots
that make a few moves and then pass (the game ends when every bot passes in a row).
The page is served with its real headers (the shared fixtures' isolated server). An author's
game does not yet travel by a match's share link (only by a challenge link): that journey is
its own test, an expected failure until it does.
"""
from __future__ import annotations

import json
import re
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import Arena, wait_until
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect
from test_authored_game import load_game
from test_challenge_page import PHONE, leaderboard

from engine.authored.authored_spec import bot_side_spec
from engine.contest.snippet import parse_snippet, unpack_challenge
from engine.core.spec import GameSpec
from engine.games.registry import games

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
LANDGRAB = (ROOT / "examples" / "games" / "landgrab.py").read_text(encoding="utf-8")
DESKTOP = {"width": 1280, "height": 900}
SIZES = {"desktop": {"viewport": DESKTOP},
         "phone": {"viewport": PHONE, "is_mobile": True, "has_touch": True}}
BUDGET = 1_000_000  # steps a move may take: the same games on every machine
LIMIT_MS = 10_000  # the wall-clock safety net, far above what a move needs
SHORT = 6  # max moves / max turns / rounds: a few turns to watch, seconds to play
LENGTH_FIELDS = ("max_moves", "max_turns", "rounds")
RUN_MS = 300_000  # a run of a few short games, at any load
WAIT_MS = 30_000  # what follows a key press or a button (the page's engine may be checking)

# A game with no length setting gets a bot that ends its games soon (else its examples).
# Flit ends when every bot has passed in a row: these move a few times, then pass.
QUICK_BOTS = {"flit": (
    "moves_made = 0\n\n"
    "def move(view):\n"
    "    global moves_made\n"
    "    moves_made += 1\n"
    "    moves = view.moves()\n"
    "    if moves_made > 3 or not moves:\n"
    "        return 0, 0, 0, 0  # a pass\n"
    "    return moves[0]\n")}
# A bot whose move raises on line 3: the fault must say "line 3".
RAISER = "def move(view):\n    value = 1\n    raise ValueError('bad move ' + str(value))\n"
RAISER_LINE = 3


@dataclass(frozen=True)
class Case:
    spec: GameSpec
    preset: str
    source: str | None = None  # an author's game module, loaded in the page first

    @property
    def id(self) -> str:
        return f"{self.spec.name}-{self.preset}"

    def quick_bot(self) -> str:
        """A small valid bot of the game, whose games end in a few turns."""
        return QUICK_BOTS.get(self.spec.name) or self.spec.example_source(next(iter(self.spec.examples())))

    def seats(self) -> tuple[int, int]:
        return self.spec.bot_range(self.preset)


def _cases() -> list[Case]:
    """Each game's presets that seat a different number of bots (Flit trial and full; one of
    aBOTcalypse's two, which differ only in the board's size and length), and an author's game."""
    cases: list[Case] = []
    for spec in games():
        seen: set[tuple[int, int]] = set()
        for preset in spec.presets:
            if spec.bot_range(preset.name) not in seen:
                seen.add(spec.bot_range(preset.name))
                cases.append(Case(spec, preset.name))
    authored = bot_side_spec(LANDGRAB)
    return [*cases, Case(authored, authored.default_preset, LANDGRAB)]


CASES = _cases()


# -- keyboard -------------------------------------------------------------------------------

def _focused(page) -> str:
    return page.evaluate("""() => { const a = document.activeElement;
        return a ? `${a.tagName.toLowerCase()}#${a.id}` : ""; }""")


def tab_to(page, element_id: str, most: int = 150) -> None:
    """Tab forward until the element has the focus (Esc then Tab leaves a code editor, whose
    Tab indents), as a keyboard user moves through the page."""
    for _ in range(most):
        where = page.evaluate("""(id) => { const a = document.activeElement;
            return !a ? "" : a.id === id ? "here" : a.closest(".cm-editor") ? "editor" : ""; }""", element_id)
        if where == "here":
            return
        if where == "editor":
            page.keyboard.press("Escape")
        page.keyboard.press("Tab")
    raise AssertionError(f"keyboard: #{element_id} not reached by Tab (focus on {_focused(page)})")


def choose_by_keyboard(page, element_id: str, value: str) -> None:
    """Arrow keys on a focused menu until it shows the value."""
    tab_to(page, element_id)
    options = page.evaluate("(id) => [...document.getElementById(id).options].map((o) => o.value)",
                            element_id)
    assert value in options, f"keyboard: {value!r} is not in #{element_id}'s menu {options}"
    for _ in range(len(options) * 2):
        current = page.evaluate("(id) => document.getElementById(id).value", element_id)
        if current == value:
            return
        key = "ArrowDown" if options.index(current) < options.index(value) else "ArrowUp"
        page.keyboard.press(key)
    raise AssertionError(f"keyboard: #{element_id} did not reach {value!r}")


# -- the journeys ------------------------------------------------------------------------------

def open_page(chromium, size: str, url: str):
    context = chromium.new_context(**SIZES[size])
    context.set_default_timeout(30_000)
    arena = Arena(context.new_page())
    arena.open(url)
    return context, arena


def seat_codes(page) -> list[str]:
    return page.evaluate("window.kothArena.panels.map((p) => p.editor.value)")


def seat_names(page) -> list[str]:
    return page.evaluate("[...document.querySelectorAll('#bot-panels .bot-name')].map((i) => i.value)")


def first_visit(arena: Arena, case: Case) -> None:
    """A fresh profile: ready, the game chosen by keyboard, its examples in the seats, and
    nothing that claims the visitor had earlier work."""
    page = arena.page
    expect(arena.button("Run")).to_be_enabled()
    expect(page.locator("#notice")).to_be_hidden()
    shown = page.locator("body").inner_text()
    claims = re.findall(r"[^\n]*(?:previous|kept|nothing of yours was lost)[^\n]*", shown)
    assert not claims, f"first visit: the page claims earlier work: {claims}"
    if case.source is not None:
        load_game(arena, case.source)
        expect(page.locator("#game-status")).to_contain_text(f"Loaded {case.spec.title}", timeout=60_000)
    page.evaluate("() => document.activeElement && document.activeElement.blur()")  # back to the top
    choose_by_keyboard(page, "game", case.spec.name)
    choose_by_keyboard(page, "preset", case.preset)
    expect(arena.label("Game")).to_have_value(case.spec.name)
    expect(arena.label("Preset")).to_have_value(case.preset)
    examples = case.spec.examples()
    codes, names = seat_codes(page), seat_names(page)
    low, high = case.seats()
    assert low <= len(codes) <= high, f"first visit: {len(codes)} seats, the preset plays {low} to {high}"
    for name, code in zip(names, codes, strict=True):
        assert name in examples and code == examples[name], \
            f"first visit: seat {name!r} does not hold {case.spec.name}'s example of that name"


def short_settings(arena: Arena, case: Case) -> None:
    arena.setup(games=1, seed=7, time_limit_ms=LIMIT_MS)
    arena.label("Step budget").fill(str(BUDGET))
    for item in case.spec.fields:
        if item.key in LENGTH_FIELDS:
            arena.label(item.label).fill(str(SHORT))


def reload_mid_edit(arena: Arena, case: Case) -> None:
    page = arena.page
    editor = page.get_by_label("Bot 1 code", exact=True)
    editor.click()
    page.keyboard.press("ControlOrMeta+End")
    page.keyboard.type("\n# mid-edit\n")
    typed = page.evaluate("window.kothArena.getCode(0)")
    assert "# mid-edit" in typed, f"reload mid-edit: the typing did not reach the editor: {typed[-80:]!r}"
    page.reload()
    arena.wait_ready()
    if case.source is not None:  # the visitor's own game loads again after the page
        expect(page.locator("#game-status")).to_contain_text(f"Loaded {case.spec.title}", timeout=60_000)
    kept = page.evaluate("window.kothArena.getCode(0)")
    assert kept == typed, f"reload mid-edit: the edit was lost: {typed[-80:]!r} became {kept[-80:]!r}"
    expect(arena.label("Game")).to_have_value(case.spec.name)
    expect(arena.label("Preset")).to_have_value(case.preset)
    expect(arena.label("Seed")).to_have_value("7")


def paste(page, label: str, text: str) -> None:
    page.get_by_label(label, exact=True).click()
    page.keyboard.press("ControlOrMeta+a")
    page.evaluate("""(text) => {
        const data = new DataTransfer();
        data.setData('text/plain', text);
        document.activeElement.dispatchEvent(new ClipboardEvent('paste', {clipboardData: data, bubbles: true,
                                                                          cancelable: true}));
    }""", text)


def run_by_keyboard(arena: Arena) -> str:
    page = arena.page
    before = page.evaluate("window.kothArena.runsStarted")
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    tab_to(page, "run")
    page.keyboard.press("Enter")
    wait_until(page, f"window.kothArena.runsStarted > {before}", 10_000)
    return arena.wait_finished(RUN_MS)


def paste_and_run(arena: Arena, case: Case) -> None:
    page = arena.page
    bot = case.quick_bot()
    paste(page, "Bot 1 code", bot)
    wait_until(page, "(code) => window.kothArena.getCode(0) === code", 10_000, arg=bot)
    if case.spec.name in QUICK_BOTS:
        for i in range(1, len(seat_codes(page))):
            arena.set_bot(i + 1, bot)
    status = run_by_keyboard(arena)
    assert status.startswith("Finished"), f"paste and run: {status!r}"
    for name in seat_names(page):
        row = arena.result_row(name)
        assert row and row[1] == "1" and re.fullmatch(r"-?\d+(\.\d+)?", row[3]), \
            f"paste and run: no score for {name!r}: {row}"


def watch_and_scrub(arena: Arena) -> None:
    page = arena.page
    scrub = arena.label("Turn")
    # the scrub bar's end follows the viewer's next drawn frame, which may come after "Finished"
    try:
        wait_until(page, "Number(document.getElementById('scrub').max) >= 2", WAIT_MS)
    except TimeoutError:
        pass  # the assertion below names the length seen
    last = int(page.evaluate("document.getElementById('scrub').max"))
    assert last >= 2, f"watch and scrub: a game of {last} turns"
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    tab_to(page, "board-area")
    labels = {}
    for key, turn in (("Home", 0), ("ArrowRight", 1), ("ArrowRight", 2), ("ArrowLeft", 1), ("End", last)):
        page.keyboard.press(key)
        expect(scrub).to_have_value(str(turn), timeout=WAIT_MS)
        labels[turn] = arena.canvas_label()
    assert len({labels[0], labels[1], labels[last]}) == 3, \
        f"watch and scrub: the board did not change: {labels}"


def errors_with_lines(arena: Arena, case: Case) -> None:
    arena.set_bot(1, RAISER)
    arena.button("Run").click()
    status = arena.wait_finished(RUN_MS)
    assert status.startswith("Finished"), f"errors: the run did not finish: {status!r}"
    expect(arena.console(1)).to_contain_text(f"line {RAISER_LINE}", timeout=WAIT_MS)
    expect(arena.console(1)).to_contain_text("ValueError: bad move 1", timeout=WAIT_MS)


def shown_setup(page) -> dict:
    """The seats' names and code and the settings on show."""
    return {"codes": seat_codes(page), "names": seat_names(page), "settings": page.evaluate("""() =>
        Object.fromEntries(["game", "preset", "seed", "games"]
            .map((id) => [id, document.getElementById(id).value])
            .concat([...document.querySelectorAll("#game-fields input")].map((i) => [i.id, i.value])))""")}


def share_link(chromium, arena: Arena, case: Case, size: str):
    """The match's share link in a fresh profile: the same code and settings. Returns that
    profile (the trial view opens there next), to be closed by the caller."""
    page = arena.page
    arena.button("Share link").click()
    link = arena.label("Share link URL").input_value()
    sent = shown_setup(page)
    context, visitor = open_page(chromium, size, link)
    try:
        refused = visitor.status.inner_text()
        assert "Could not apply" not in refused, f"share link: the fresh profile refused it: {refused!r}"
        if case.source is not None:  # its module travels with the link, loaded on the visitor's press
            visitor.page.get_by_role("button", name="Load this game", exact=True).click()
            expect(visitor.status).to_contain_text("Applied the settings and bots", timeout=WAIT_MS)
        got = shown_setup(visitor.page)
        assert got == sent, "share link: the fresh profile got other code or settings"
        assert not visitor.errors, visitor.errors
    except BaseException:
        context.close()
        raise
    return context, visitor


def tournament(arena: Arena, case: Case) -> list[str]:
    page = arena.page
    page.get_by_role("radio", name="Tournament").check()
    expect(page.get_by_role("heading", name="Challenge", exact=True)).to_be_visible(timeout=WAIT_MS)
    page.evaluate("() => { const c = window.kothArena.challenge; "
                  "for (const e of [...c.entries()]) c.deleteEntry(e.id); }")
    names = [f"entry {i + 1}" for i in range(max(2, case.seats()[0]))]
    bot = case.quick_bot()
    page.evaluate("(list) => window.kothArena.challenge.addEntries(list)",
                  [{"name": n, "code": bot} for n in names])
    page.get_by_label("Title", exact=True).fill(f"Trial of {case.spec.title}")
    arena.setup(games=2)
    arena.start_run()
    status = arena.wait_finished(RUN_MS)
    assert status.startswith("Finished the tournament"), f"tournament: {status!r}"
    board = leaderboard(page)
    assert sorted(row[1] for row in board) == sorted(names), f"tournament: leaderboard {board}"
    return names


def trial_view(chromium, arena: Arena, visitor: Arena | None, case: Case, size: str, names: list[str]):
    """The tournament's challenge link, opened by the visitor of the share link (a link
    followed in the page: no reload), or by a fresh profile: the trial version of the field.
    Returns the fresh profile's context (None if none was opened), to be closed by the caller."""
    page = arena.page
    page.get_by_role("button", name="Share challenge link", exact=True).click()
    box = page.get_by_label("Challenge link", exact=True)
    expect(box).to_have_value(re.compile("#c="), timeout=WAIT_MS)
    context = None
    if visitor is None:
        context, visitor = open_page(chromium, size, box.input_value())
    else:
        visitor.page.goto(box.input_value())
    v = visitor.page
    if case.source is not None:
        v.get_by_role("button", name="Load this game", exact=True).click()
    expect(v.locator("#challenge-status")).to_contain_text(f"Opened “Trial of {case.spec.title}”",
                                                           timeout=60_000)
    trial = v.get_by_role("button", name="Trial version")
    expect(trial).to_have_attribute("aria-pressed", "true", timeout=WAIT_MS)
    expect(v.locator("#trial-entries > li")).to_have_count(len(names), timeout=WAIT_MS)
    expect(v.get_by_label("Your bot code", exact=True)).to_be_visible(timeout=WAIT_MS)
    assert not visitor.errors, visitor.errors
    return context


def snippet_export(arena: Arena, case: Case, names: list[str]) -> None:
    page = arena.page
    page.get_by_role("button", name="Export as Stack Snippet…", exact=True).click()
    dialog = page.get_by_role("dialog", name="Export as a Stack Snippet")
    dialog.get_by_role("button", name="Export", exact=True).click()
    expect(dialog.get_by_role("status")).to_contain_text("Snippet ready", timeout=60_000)
    markdown = dialog.get_by_label("Snippet markdown", exact=True).input_value()
    config = json.loads(re.search(r"const K = (\{.*?\});\n", parse_snippet(markdown)["js"]).group(1))
    carried = json.loads(unpack_challenge(config["challenge"]))
    assert carried["game"] == case.spec.name, f"snippet export: the snippet's game is {carried['game']!r}"
    assert [e["name"] for e in carried["entries"]] == names, "snippet export: other entries"
    dialog.get_by_role("button", name="Close", exact=True).click()


@contextmanager
def journey(name: str, times: dict[str, float]):
    """One journey's section: its time kept, its name on any failure."""
    start = time.monotonic()
    try:
        yield
    except (AssertionError, PlaywrightError) as exc:
        raise AssertionError(f"journey {name!r} failed: {exc}") from exc
    finally:
        times[name] = round(time.monotonic() - start, 1)


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_every_journey(chromium, site_url, results_dir, case: Case, size: str):
    times: dict[str, float] = {}
    with journey("open", times):
        context, arena = open_page(chromium, size, site_url)
    visitor_context = visitor = None
    try:
        with journey("first visit", times):
            first_visit(arena, case)
            short_settings(arena, case)
        with journey("reload mid-edit", times):
            reload_mid_edit(arena, case)
        with journey("paste and run", times):
            paste_and_run(arena, case)
        with journey("watch and scrub", times):
            watch_and_scrub(arena)
        with journey("errors with line numbers", times):
            errors_with_lines(arena, case)
        if case.source is None:  # an author's game: test_an_authors_game_travels_by_a_match_share_link
            with journey("share link", times):
                visitor_context, visitor = share_link(chromium, arena, case, size)
        with journey("tournament and leaderboard", times):
            names = tournament(arena, case)
        with journey("trial view", times):
            visitor_context = trial_view(chromium, arena, visitor, case, size, names) or visitor_context
        with journey("snippet export", times):
            snippet_export(arena, case, names)
        arena.page.screenshot(path=str(results_dir / f"journeys-{case.id}-{size}.png"))
        assert not arena.errors, f"uncaught errors in the page: {arena.errors}"
    finally:
        context.close()
        if visitor_context is not None:
            visitor_context.close()
        print(f"journeys {case.id} {size}: {times}")


def test_an_authors_game_travels_by_a_match_share_link(chromium, site_url):
    case = CASES[-1]
    assert case.source is not None
    context, arena = open_page(chromium, "desktop", site_url)
    visitor_context = None
    try:
        load_game(arena, case.source)
        loaded = arena.page.locator("#game-status")
        expect(loaded).to_contain_text(f"Loaded {case.spec.title}", timeout=60_000)
        visitor_context, _ = share_link(chromium, arena, case, "desktop")
    finally:
        context.close()
        if visitor_context is not None:
            visitor_context.close()
