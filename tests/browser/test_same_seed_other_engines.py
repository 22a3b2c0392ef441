"""Same seed, same games in Firefox (issue 20, item 2) and in WebKit: the Flit field of a
posted-style script bot and two examples, with a fixed seed and secret, played 5 times in the
cross-origin isolated page and 5 times in the plain one; every game's record (each turn's answers, faults
and changes, and the result) and the tournament's JSON must be the native run's, every time.

Firefox's isolated page once gave a different result on each run (the issue); the runs
alternate 1 and 2 matches at once, the case where Chromium once differed too.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import READY_TIMEOUT_MS, wait_until
from firefox_page import FIREFOX_TESTS, firefox_modes
from test_same_seed import _first_difference
from webkit_page import WEBKIT_TESTS

from engine.play.debug_part import rules_part

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "engine" / "games" / "flit" / "examples"
RUNS = 5
PARALLEL = (1, 2, 1, 2, 2)
RUN_TIMEOUT_MS = 600_000

# Each game's replay document as the page's Watch button gets it from the controller.
WATCH = """async (index) => {
  const view = window.kothArena.tournament;
  const shown = view.hooks.openReplay;
  const got = new Promise((resolve) => { view.hooks.openReplay = (doc) => resolve(doc); });
  try {
    view.watch(index);
    return await Promise.race([got, new Promise((r) => setTimeout(() => r(null), 120000))]);
  } finally {
    view.hooks.openReplay = shown;
  }
}"""


def _challenge() -> dict:
    return {"format": "koth-arena-challenge", "version": 1, "title": "Flit in Firefox", "description": "",
            "game": "flit", "preset": "trial", "settings": {"time_limit_ms": 60_000}, "games": 2,
            "seed": 4242, "secret": "firefox-same-seed",
            "entries": [{"name": n, "code": (EXAMPLES / f"{n}.py").read_text(encoding="utf-8")}
                        for n in ("script", "greedy", "random")]}


def _native(challenge: dict, folder: Path) -> tuple[dict, list[dict]]:
    path = folder / "challenge.json"
    path.write_text(json.dumps(challenge), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "engine", "tournament", "--challenge", str(path), "--json",
                           "--replays", str(folder / "replays")],
                          cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    records = [json.loads(p.read_text(encoding="utf-8"))["records"][0]
               for p in sorted((folder / "replays").glob("match-*.json"))]
    return json.loads(done.stdout), records


@FIREFOX_TESTS
@firefox_modes()
def test_five_runs_give_the_native_games(firefox, isolated_url, plain_url, tmp_path, isolated):
    five_runs_give_the_native_games(firefox, isolated_url if isolated else plain_url, isolated, tmp_path)


@WEBKIT_TESTS
@pytest.mark.parametrize("isolated", [False, True], ids=["plain", "isolated"])
def test_five_runs_give_the_native_games_in_webkit(webkit, isolated_url, plain_url, tmp_path, isolated):
    """WebKit: no shared memory for Workers, no JSPI: its bot Workers serve in relay or push mode
    (docs/testing.md, "WebKit"), isolated or not."""
    five_runs_give_the_native_games(webkit, isolated_url if isolated else plain_url, isolated, tmp_path)


def five_runs_give_the_native_games(browser, url: str, isolated: bool, tmp_path) -> None:
    challenge = _challenge()
    expected, records = _native(challenge, tmp_path)
    page = browser.open(url)
    try:
        wait_until(page, "window.kothArena && window.kothArena.ready", READY_TIMEOUT_MS)
        assert page.evaluate("crossOriginIsolated") is isolated
        failures = []
        for run, parallel in enumerate(PARALLEL[:RUNS], start=1):
            started = page.evaluate(
                "([c, k]) => window.kothArena.tournament.start(c, {parallel: k, budget: null})",
                [challenge, parallel])
            assert started is not None
            wait_until(page, "window.kothArena.run === null", RUN_TIMEOUT_MS)
            status = page.evaluate("document.querySelector('[role=status]').innerText")
            assert status.startswith("Finished the tournament: 6 games"), status
            label = f"run {run} ({parallel} at once)"
            for index, theirs in enumerate(records):
                document = page.evaluate(WATCH, index)
                assert document, f"{label}: game {index + 1} did not open"
                mine = document["records"][0]
                if rules_part(mine) != rules_part(theirs):  # each reply's time and output apart
                    failures.append(f"{label}: game {index + 1} ({' vs '.join(mine['bots'])}) differs, "
                                    f"{_first_difference(mine, theirs)}")
            if page.evaluate("window.kothArena.tournament.result") != expected:
                failures.append(f"{label}: the tournament JSON differs")
        assert not failures, "\n".join(failures)
        assert not page.errors(), page.errors()
    finally:
        page.close()
