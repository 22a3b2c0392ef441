"""The page in Firefox (Debian's firefox-esr over WebDriver BiDi, tests/browser/firefox_page.py),
cross-origin isolated and plain, under its real headers: one page boot per mode, and in it
what a visitor does first. Ready; a match between a posted-style script bot (input()) and a
function bot; Stop ends a spinning bot's run at once and the next run works; a bot that
reaches for the Worker's global scope finds every route out withheld. The match's share link
opened in a fresh profile must repeat it. The plain page's Stop is xfail: under this driver its
controller Worker sometimes hangs (docs/testing.md, Browsers). (A tournament equal to the
native JSON, 5 runs in each mode: test_same_seed_other_engines.py.)
"""
from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from conftest import READY_TIMEOUT_MS, ROOMY_MS, wait_until
from firefox_page import FIREFOX_TESTS, firefox_modes
from test_page_attacks import APIS, REACH_OUT_BOT, SPINNING_BOT
from test_same_seed import _first_difference

from engine.play.debug_part import rules_part

pytestmark = [pytest.mark.browser, FIREFOX_TESTS]

ROOT = Path(__file__).resolve().parents[2]
SCRIPT_BOT = (ROOT / "engine" / "games" / "flit" / "examples" / "script.py").read_text(encoding="utf-8")

# The page's controls found by their labels, as a visitor finds them (CSS cannot).
HELPERS = """() => {
  const control = (text) => {
    const label = [...document.querySelectorAll("label")].find((l) => l.textContent.trim() === text);
    if (!label || !label.control) throw new Error(`no control labelled ${text}`);
    return label.control;
  };
  window.__ff = {
    set(text, value) {
      const el = control(text);
      el.value = String(value);
      el.dispatchEvent(new Event("input", { bubbles: true }));
      el.dispatchEvent(new Event("change", { bubbles: true }));
      return el.value === String(value);
    },
    status: () => document.querySelector("[role=status]").innerText,
    rows: () => [...document.querySelectorAll("#results table.results > tbody > tr")].map(
      (r) => [...r.querySelectorAll("th, td")].map((c) => c.innerText.trim())),
    console: (n) => {
      const log = document.querySelector(`[role=log][aria-label="Bot ${n} console"]`);
      return log ? log.innerText : null;
    },
  };
  return true;
}"""


class FirefoxArena:
    """A ready page on the arena in Firefox, with the few acts these tests need."""

    def __init__(self, firefox, url: str, fresh: bool = False) -> None:
        self.page = firefox.open(url, fresh=fresh)
        wait_until(self.page, "window.kothArena && window.kothArena.ready", READY_TIMEOUT_MS)
        assert self.page.evaluate(HELPERS, [])

    def set(self, label: str, value) -> None:
        assert self.page.evaluate("([t, v]) => window.__ff.set(t, v)", [label, value]), label

    def setup(self, games: int, seed: int, time_limit_ms: int) -> None:
        # Match mode: the page restores the last mode, and an earlier test of the session (one
        # Firefox profile) may have left it in Tournament mode, where 1 game is refused.
        if not self.page.evaluate("document.getElementById('mode-match').checked"):
            self.page.click("#mode-match")
        self.set("Game", "flit")
        self.set("Games", games)
        self.set("Seed", seed)
        self.set("Time limit (ms)", time_limit_ms)

    def bot(self, n: int, code: str, name: str) -> None:
        self.page.evaluate("([i, code]) => window.kothArena.setCode(i, code)", [n - 1, code])
        self.set(f"Bot {n} name", name)

    def status(self) -> str:
        return self.page.evaluate("window.__ff.status()")

    def start(self) -> None:
        before = self.page.evaluate("window.kothArena.runsStarted")
        self.page.click("#run")
        wait_until(self.page, f"window.kothArena.runsStarted > {before}", 60_000)

    def finish(self, timeout_ms: int = 600_000) -> str:
        try:
            wait_until(self.page, "window.kothArena.run === null", timeout_ms)
        except TimeoutError as exc:  # what the page showed, to tell a stall from a slow run
            shown, errors = self.status(), self.page.errors()
            raise TimeoutError(f"{exc}; the page said {shown!r}; errors: {errors}") from None
        return self.status()

    def run(self) -> str:
        self.start()
        status = self.finish()
        assert status.startswith("Finished"), status
        return status

    def rows(self) -> list[list[str]]:
        return self.page.evaluate("window.__ff.rows()")

    def console(self, n: int) -> str:
        return self.page.evaluate(f"window.__ff.console({n})")

    def records(self) -> list[dict]:
        return self.page.evaluate("window.kothArena.viewer.tracks.map((t) => t ? t.record : null)")


@firefox_modes()
def test_the_page_works_in_firefox(firefox, isolated_url, plain_url, results_dir, isolated):
    began = time.monotonic()
    arena = FirefoxArena(firefox, isolated_url if isolated else plain_url)
    print(f"{firefox.version}: ready in {time.monotonic() - began:.1f} s")
    assert arena.page.evaluate("crossOriginIsolated") is isolated

    # A posted-style script bot (reads input()) against a function bot, no faults.
    arena.setup(games=1, seed=2, time_limit_ms=ROOMY_MS)
    arena.bot(1, SCRIPT_BOT, "scripted")
    arena.set("Bot 2 example", "random")
    arena.set("Secret (optional)", "firefox-share")
    arena.run()
    rows = {r[0]: r for r in arena.rows()}
    assert rows["scripted"][1] == "1" and rows["scripted"][4] == "0", rows
    (record,) = arena.records()
    seat = record["bot_index"].index(0)
    moved = [t for t in record["turns"] if t["seats"] == [seat] and t["move"] is not None]
    assert len(moved) > 10, f"the script bot made {len(moved)} moves"
    assert not any(f for t in record["turns"] for f in t["faults"]), "a bot was faulted"

    # A bot that reaches the Worker's global scope finds every way out withheld.
    arena.setup(games=1, seed=6, time_limit_ms=ROOMY_MS)
    arena.bot(1, REACH_OUT_BOT, "reacher")
    arena.set("Bot 2 example", "greedy")
    arena.run()
    text = arena.console(1)
    assert "global via import js: reached" in text, text
    for api in APIS:
        assert f"import js: {api}: blocked" in text, (api, text)
    assert {r[0]: r for r in arena.rows()}["greedy"][4] == "0", arena.rows()

    # Stop ends a run at once although the spinning bot's limit is 60 s; the next run works.
    arena.setup(games=1, seed=2, time_limit_ms=60_000)
    arena.bot(1, SPINNING_BOT, "spinner")
    starts = arena.page.evaluate("window.kothArena.workerStarts")
    arena.start()
    time.sleep(1.5)  # the spinner is asked and spins (the check below does not depend on it)
    stopped_at = time.monotonic()
    arena.page.click("#stop")
    status = arena.finish(timeout_ms=30_000)  # the hard limit is 600 s
    print(f"Stop took {time.monotonic() - stopped_at:.2f} s")
    assert status.startswith("Stopped"), status
    assert arena.page.evaluate("window.kothArena.workerStarts") == starts, "Python was restarted"
    wait_until(arena.page, "window.kothArena.ready", READY_TIMEOUT_MS)
    arena.setup(games=1, seed=3, time_limit_ms=ROOMY_MS)
    arena.set("Bot 1 example", "random")
    assert re.match(r"Finished: 1 game", arena.run())

    arena.page.screenshot(results_dir / f"firefox-{'isolated' if isolated else 'plain'}.png")
    assert not arena.page.errors(), arena.page.errors()
    arena.page.close()


@firefox_modes()
def test_a_share_link_repeats_a_script_bots_match_in_firefox(firefox, isolated_url, plain_url, isolated):
    arena = FirefoxArena(firefox, isolated_url if isolated else plain_url)
    arena.setup(games=1, seed=2, time_limit_ms=ROOMY_MS)
    arena.bot(1, SCRIPT_BOT, "scripted")
    arena.set("Bot 2 example", "random")
    arena.set("Secret (optional)", "firefox-share")
    arena.run()
    (record,) = arena.records()
    assert not any(f for t in record["turns"] for f in t["faults"]), "a bot was faulted"

    # Its share link, opened in a fresh profile, plays the same game with the same result.
    arena.page.click("#share")
    link = wait_until(arena.page, "document.getElementById('share-url').value", 60_000)
    recipient = FirefoxArena(firefox, link, fresh=True)
    try:
        notice = wait_until(recipient.page, "document.getElementById('notice-text').innerText", 60_000)
        assert "Run plays the same games" in notice, notice
        recipient.run()
        assert recipient.rows() == arena.rows()
        # The game as the rules see it: each reply's time (the record's debug part) differs.
        (theirs,) = recipient.records()
        assert rules_part(theirs) == rules_part(record), _first_difference(theirs, record)
        assert not recipient.page.errors(), recipient.page.errors()
    finally:
        recipient.page.close()
        arena.page.close()

