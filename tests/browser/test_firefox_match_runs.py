"""Same seed, same games in Firefox's Match mode (issue 20, item 2): a posted-style script bot
against the random example, seed and secret fixed, run 5 times in the cross-origin isolated
page; each run's record must be the native run's, turn by turn.

Here the bots' Workers serve through shared memory and block in ``Atomics.wait``. Firefox
sometimes returns from it with nothing new: the bot Worker took that for a request and served
the last one again, so the random bot drew twice for one turn and played on from another
random state (3 runs, 3 results, all unlike native: first differences at turns 91, 799 and
822). It now waits until the request number moves (web/src/bot_worker.js).
"""
from __future__ import annotations

import pytest
from conftest import ROOMY_MS
from firefox_page import FIREFOX_TESTS
from native_match import bot_file, native_flit_game
from test_firefox_page import SCRIPT_BOT, FirefoxArena
from test_same_seed import _first_difference

pytestmark = [pytest.mark.browser, FIREFOX_TESTS]

RUNS = 5
SEED, SECRET = 2, "firefox-match"


def test_five_match_runs_in_the_isolated_page_give_the_native_game(firefox, isolated_url, tmp_path):
    native = native_flit_game(tmp_path, bot_file(tmp_path, SCRIPT_BOT), "builtin:random", SEED, SECRET)
    arena = FirefoxArena(firefox, isolated_url)
    try:
        assert arena.page.evaluate("crossOriginIsolated") is True
        failures = []
        for run in range(1, RUNS + 1):
            arena.setup(games=1, seed=SEED, time_limit_ms=ROOMY_MS)
            arena.bot(1, SCRIPT_BOT, "script")
            arena.set("Bot 2 example", "random")
            arena.set("Secret (optional)", SECRET)
            arena.run()
            (record,) = arena.records()
            if record["turns"] != native["turns"] or record["result"] != native["result"]:
                failures.append(f"run {run}: {_first_difference(record, native)}")
        assert not failures, "\n".join(failures)
        assert not arena.page.errors(), arena.page.errors()
    finally:
        arena.page.close()
